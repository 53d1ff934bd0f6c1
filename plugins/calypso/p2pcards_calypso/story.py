"""The story of a game of Calypso as people read it: one line per :meth:`Calypso.story` entry.

Entries are plain data kept in the state (``CalypsoState.story``): each card cut and who cut
highest, trump suits that were not chosen by a turn (drawn, the partner's, the last one left),
who took each trick and why, each calypso completed, each deal's scores and who deals next, and
a trick reopened to correct a revoke (honour mode). Card text is ASCII ("9s"); a console shows it
with suit symbols.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from p2pcards.cards import SUIT_NAMES, Card, Suit
from p2pcards.game import agree

from .tricks import is_ruff

__all__ = ["deal_entry", "tell", "trick_entry"]

_RANK_NAMES = {11: "jack", 12: "queen", 13: "king", 14: "ace"}


def _rank_phrase(value: int) -> str:
    """A cut card's rank (2..14): "a 9", "an 8", "a queen", "an ace"."""
    word = _RANK_NAMES.get(value, str(value))
    return ("an " if word[0] in "8a" else "a ") + word


def _name(names: Sequence[str], seat: Any) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else f"seat {seat}"


def _suit(value: Any) -> str:
    try:
        return SUIT_NAMES[Suit(value)]
    except ValueError:
        return str(value)


def _and(words: Sequence[str]) -> str:
    words = list(words)
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def trick_entry(state: Any, plays: Sequence[tuple[int, Card]], won_by: int) -> dict[str, Any]:
    """The entry for a trick just won: ``plays`` as ``(seat, face)`` in playing order, the
    winning card at ``won_by``. ``why`` is "led own trump" (a led own suit is a trump, rule 18),
    "own trump" (a ruff; "highest own trump" when another trump was in it) or "highest" (of the
    led suit); "first" is set when an equal card came later (rule 22: the first played wins)."""
    led = plays[0][1].suit
    assert led is not None, "Calypso has no jokers"
    seat, card = plays[won_by]

    def trumps(i: int) -> bool:
        who, face = plays[i]
        return (i == 0 and face.suit == state.trump.get(who)) or (i > 0 and is_ruff(face, state.trump.get(who), led))

    if trumps(won_by):
        rivals = [i for i in range(len(plays)) if trumps(i)]
        why = "led own trump" if won_by == 0 and len(rivals) == 1 else "own trump"
        if len(rivals) > 1:
            why = "highest own trump"
    else:
        rivals = [i for i in range(len(plays)) if not trumps(i) and plays[i][1].suit == led]
        why = "highest"
    entry: dict[str, Any] = {
        "event": "trick",
        "deal": state.deal_number,
        "trick": state.trick_number,
        "seat": seat,
        "card": str(card),
        "why": why,
        "led": led.value,
    }
    if any(i > won_by and plays[i][1].rank == card.rank for i in rivals):
        entry["first"] = True
    return entry


def deal_entry(state: Any) -> dict[str, Any]:
    """The entry for a deal just over: every seat's points so far and, in partnership, the sides."""
    totals = state.totals()
    sides = sorted({state.side(s) for s in range(state.players)}) if state.partner(0) is not None else None
    return {
        "event": "deal",
        "deal": state.deal_number,
        "of": state.deals_total,
        "totals": [totals[s] for s in range(state.players)],
        "sides": [list(side) for side in sides] if sides else None,
    }


def tell(entry: Mapping[str, Any], names: Sequence[str]) -> str:
    """One story entry as a line ("bob takes trick 3 with 9s (own trump)")."""
    event = entry.get("event")
    who = _name(names, entry.get("seat"))
    if event == "cut":
        again = " (cutting again)" if isinstance(entry.get("round"), int) and entry["round"] > 1 else ""
        return f"{who} {agree(who, 'cuts')} {_rank_phrase(entry.get('rank', 0))}{again}"
    if event == "recut":
        tied = [_name(names, s) for s in entry.get("seats", [])]
        return f"{_and(tied)} tie and cut again"
    if event == "cut won":
        first = _name(names, (entry.get("ranking") or [None])[0])
        chooses, deals = agree(first, "chooses"), agree(first, "deals")
        return f"{first} {agree(first, 'cuts')} highest: {chooses} trumps first and {deals} first"
    if event == "seating":
        first = _name(names, (entry.get("ranking") or [None])[0])
        return f"seats and suits are drawn at random: {first} {agree(first, 'deals')} first"
    if event == "trump":
        suit = _suit(entry.get("suit"))
        if entry.get("why") == "drawn":
            return f"{who} {agree(who, 'draws')} {suit} as trump"
        if entry.get("why") == "partner":
            partner = _name(names, entry.get("of"))
            theirs = "your" if partner == "you" else f"{partner}'s"
            return f"{who} {agree(who, 'gets')} {suit}, the partner suit of {theirs} {_suit(entry.get('of_suit'))}"
        return f"{who} {agree(who, 'gets')} {suit}, the suit left"
    if event == "trick":
        why = entry.get("why")
        reason = {
            "led own trump": "led own trump",
            "own trump": "own trump",
            "highest own trump": "highest own trump",
        }.get(str(why), f"highest {_suit(entry.get('led'))[:-1]}")
        if entry.get("first"):
            reason += ", played first"
        return f"{who} {agree(who, 'takes')} trick {entry.get('trick')} with {entry.get('card')} ({reason})"
    if event == "calypso":
        number = entry.get("number", 1)
        points = 500 if number == 1 else 750 if number == 2 else 1000
        return f"{who} {agree(who, 'completes')} calypso {number} ({points} points)"
    if event == "deal":
        return f"deal {entry.get('deal')} of {entry.get('of')}: {_scores(entry, names)}"
    if event == "summary":
        dealer, leader = _name(names, entry.get("dealer")), _name(names, entry.get("leader"))
        return (
            f"next, deal {entry.get('deal')} of {entry.get('of')}: {dealer} {agree(dealer, 'deals')}, "
            f"{leader} {agree(leader, 'leads')}"
        )
    if event == "reopened":
        card = "your card" if who == "you" else f"{who}'s card"
        return f"{who} {agree(who, 'takes')} back a revoke: trick {entry.get('trick')} is played again from {card}"
    return ""


def _scores(entry: Mapping[str, Any], names: Sequence[str]) -> str:
    """ "alice & carol 1,530, bob & dave 760" (partnership) or "alice 900, bob 760, carol 0",
    the highest first."""
    totals = entry.get("totals") or []
    sides = entry.get("sides") or [[seat] for seat in range(len(totals))]
    scored = []
    for side in sides:
        points = sum(totals[s] for s in side if 0 <= s < len(totals))
        scored.append((points, " & ".join(_name(names, s) for s in side)))
    scored.sort(key=lambda item: -item[0])
    return ", ".join(f"{who} {points:,}" for points, who in scored)

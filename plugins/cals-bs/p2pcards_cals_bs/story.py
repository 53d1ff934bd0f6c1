"""The story of a game of Cal's BS as people read it: one line per :meth:`CalsBS.story` entry.

Entries are plain data kept in the state (``BSState.story``): who went first, how each doubt and
each face-up going-out play turned out (the cards, the rank they claimed, those that were not of
it, how many cards the pile held), who won each hand and what comes next. Card text is ASCII
("Qd"); a console shows it with suit symbols.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from p2pcards.game import agree

__all__ = ["rank_phrase", "tell"]

_RANK_NAMES = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}


#: Plurals of the number ranks in words: "8s" would read as the eight of spades.
_NUMBER_PLURALS = {
    "2": "twos", "3": "threes", "4": "fours", "5": "fives", "6": "sixes",
    "7": "sevens", "8": "eights", "9": "nines", "10": "tens",
}  # fmt: skip


def rank_phrase(symbol: str, plural: bool) -> str:
    """ "a 7", "an 8", "a queen", "an ace"; plural "sevens", "queens" (never "7s", which a
    reader, and the console's card highlighting, takes for the seven of spades)."""
    word = _RANK_NAMES.get(symbol, symbol)
    if plural:
        return _NUMBER_PLURALS.get(symbol) or word + "s"
    return ("an " if word[0] in "8ae" else "a ") + word


def _name(names: Sequence[str], seat: Any) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else f"seat {seat}"


def _cards(count: int) -> str:
    return f"{count} card{'s' * (count != 1)}"


def _not_of_claim(entry: Mapping[str, Any]) -> str:
    """ "5h is not a 7", "7h 5c are not eights", "2c 2d 2h JK are not four of a kind"."""
    wrong = entry.get("wrong") or entry.get("cards") or []
    many = len(wrong) != 1
    if entry.get("claim") == "quads":
        return f"{' '.join(wrong)} {'are' if many else 'is'} not four of a kind"
    if entry.get("rank") is None:
        return f"{' '.join(entry.get('cards', []))} {'do' if many else 'does'} not bear out {entry.get('claim')}"
    return f"{' '.join(wrong)} {'are' if many else 'is'} not {rank_phrase(entry['rank'], many)}"


def _true_to_claim(entry: Mapping[str, Any]) -> str:
    """ "8h 8d were eights", "JK was a 7", "2c 2d 2h 2s were quads"."""
    cards = entry.get("cards") or []
    many = len(cards) != 1
    if entry.get("claim") == "quads":
        what = "quads"
    elif entry.get("rank") is None:
        what = f"true to {entry.get('claim')}"
    else:
        what = rank_phrase(entry["rank"], many)
    return f"{' '.join(cards)} {'were' if many else 'was'} {what}"


def tell(entry: Mapping[str, Any], names: Sequence[str]) -> str:
    """One story entry as a line ("alice lied: 5h is not a 7; alice takes 9 cards")."""
    event = entry.get("event")
    if event == "first dealer":
        who = _name(names, entry.get("seat"))
        return f"{who} {agree(who, 'deals')} first (drawn by lot)"
    if event == "doubt":
        placer, doubter = _name(names, entry.get("seat")), _name(names, entry.get("doubter"))
        taker = _name(names, entry.get("taker"))
        takes = f"{taker} {agree(taker, 'takes')} {_cards(entry.get('pile', 0))}"
        if entry.get("true"):
            return f"{doubter} {agree(doubter, 'was')} wrong to doubt: {_true_to_claim(entry)}; {takes}"
        return f"{placer} lied: {_not_of_claim(entry)}; {takes}"
    if event == "going out":
        who = _name(names, entry.get("seat"))
        goes = f"{who} {agree(who, 'goes')} out"
        how = entry.get("how")
        if how == "undoubted":
            return f"{goes}: nobody doubted the last set"
        if how == "played on":
            return f"{goes}: the next player played on without doubting"
        if how == "doubted true":
            return f"{goes}: the doubted last set was true"
        cards = entry.get("cards") or []
        if entry.get("true"):
            return f"{goes}: {' '.join(cards)} {'were' if len(cards) != 1 else 'was'} true"
        takes = f"{who} {agree(who, 'takes')} {_cards(entry.get('pile', 0))}"
        return f"{who} {agree(who, 'tries')} to go out, but {_not_of_claim(entry)}; {takes}"
    if event == "hand won":
        who = _name(names, entry.get("seat"))
        return f"hand {entry.get('hand')}: {who} {agree(who, 'wins')} ({_standings(entry, names)})"
    if event == "dropped out":
        who = _name(names, entry.get("seat"))
        count = entry.get("cards", 0)
        return f"{who} dropped out; {_cards(count if isinstance(count, int) else 0)} set aside unseen"
    if event == "summary":
        dealer, leader = _name(names, entry.get("dealer")), _name(names, entry.get("leader"))
        return f"next, hand {entry.get('hand')}: {dealer} {agree(dealer, 'deals')}, {leader} {agree(leader, 'leads')}"
    return ""


def _standings(entry: Mapping[str, Any], names: Sequence[str]) -> str:
    scores = entry.get("scores") or []
    target = entry.get("target")
    table = ", ".join(f"{_name(names, seat)} won {score}" for seat, score in enumerate(scores))
    goal = "" if not isinstance(target, int) else f"; first to {target} wins the match"
    return f"hands: {table}{goal}"

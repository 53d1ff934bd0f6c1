"""Console grammar for Cal's BS: reading what a player types and saying actions back.

play 7h 7s as 7      place cards face down claiming a rank (lead: any rank; follow: the
                     current rank, so "as 7" may be left out)
lead 7h 7s as 7      the same as play
quads 9h 9s 9d 9c    lead four of a kind without naming the rank (option quads)
+2 5h 5s             reply to quads claiming rank B+2 (after the first reply, "play 5h" works)
pass                 do nothing this turn (not when you must lead)
doubt                turn the top set face up (also: bs, call)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from p2pcards.cards import Card, CardParseError, parse_card, parse_rank
from p2pcards.game import Action, IllegalAction

COMMANDS_HELP = "\n".join(
    [
        "play CARDS as RANK   place 1-6 cards face down claiming RANK, e.g. play 7h 7s JK as 7",
        "                     (following, 'as RANK' may be left out: the current rank is meant)",
        "lead CARDS as RANK   the same as play",
        "quads C1 C2 C3 C4    lead four of a kind without naming it (quads variant)",
        "+N CARDS             reply to quads claiming the quads rank plus N, e.g. +2 5h 5s",
        "pass                 let the turn go by (the lead player may not pass)",
        "doubt                turn the top set face up; the one who was wrong takes the pile",
    ]
)

_PLUS = re.compile(r"^\+(\d{1,2})$")
# The third-person forms are what format_action says ("seat 2 plays 4 cards as 9"), so a move
# as the log shows it can be typed back.
_PASS = {"pass", "p", "passes"}
_DOUBT = {"doubt", "d", "bs", "call", "bullshit", "doubts"}
_PLAY = {"play", "lead", "put", "place", "plays", "leads"}


def sort_hand(cards: Iterable[Card]) -> list[Card]:
    """By rank (2 up to A), then suit; jokers last: the order that helps in this game."""
    return sorted(
        cards, key=lambda c: (99, 0, c.pack) if c.rank is None or c.suit is None else (c.rank.value, c.suit.value, 0)
    )


def _cards_for(state: Any, seat: int, words: Sequence[str], known: Mapping[int, Card]) -> list[int]:
    """Map typed faces to handles of the seat's hand."""
    if not words:
        raise IllegalAction("expected cards, e.g. 7h 7s JK")
    free = [h for h in state.hands[seat] if h in known]
    chosen: list[int] = []
    for word in words:
        try:
            card = parse_card(word)
        except CardParseError as exc:
            raise IllegalAction(str(exc)) from None
        match = next(
            (
                h
                for h in free
                if h not in chosen and (known[h].is_joker if card.is_joker else known[h].face == card.face)
            ),
            None,
        )
        if match is None:
            held = any(known[h].is_joker if card.is_joker else known[h].face == card.face for h in free)
            if held:
                raise IllegalAction(f"you typed {word} more often than you hold it")
            if word.lower() == "as" and word is words[-1]:  # "play 7h 7s as": the rank is missing
                raise IllegalAction(
                    "you do not hold As (the ace of spades); to claim a rank, name it after 'as', e.g. play 7h 7s as 7"
                )
            raise IllegalAction(f"you do not hold {word}")
        chosen.append(match)
    return chosen


def _claim_at(words: Sequence[str]) -> int | None:
    """Where the keyword "as" is among the words after ``play``, or None.

    "As" is also the ace of spades. The claim is one rank and comes last, and a rank is never a
    card, so the keyword is the next-to-last word when it reads "as" and the last word is not a
    card: ``play As as 5`` and ``play as as a`` place the ace of spades claiming 5 and A;
    ``play as 7`` names no cards; ``play As``, ``play 7h As`` and ``play As 7s`` are only cards.
    An "as" followed by a rank anywhere else is a claim with words after it: an error."""
    if len(words) >= 2 and words[-2].lower() == "as" and not _is_card(words[-1]):
        return len(words) - 2
    for at, word in enumerate(words[:-1]):
        if word.lower() == "as" and not _is_card(words[at + 1]) and _is_claim(words[at + 1]):
            raise IllegalAction("expected one rank after 'as', at the end, e.g. play 7h 7s as 7")
    return None


def _is_card(word: str) -> bool:
    try:
        parse_card(word)
    except CardParseError:
        return False
    return True


def _is_joker(word: str) -> bool:
    """``JK``, ``joker``, ``jokers``: a joker named where a rank belongs."""
    if word.lower().rstrip("s") == "joker":
        return True
    try:
        return parse_card(word).is_joker
    except CardParseError:
        return False


def _is_claim(word: str) -> bool:
    if _PLUS.match(word):
        return True
    try:
        parse_rank(word)
    except CardParseError:
        return False
    return True


def parse_action(state: Any, seat: int, text: str, known: Mapping[int, Card]) -> Action:
    words = text.replace(",", " ").split()
    if not words:
        raise IllegalAction("expected a command: play, quads, +N, pass or doubt")
    verb, rest = words[0].lower(), words[1:]
    if verb in _PASS or verb in _DOUBT:
        if rest:
            raise IllegalAction(f"{verb} takes nothing after it")
        return {"type": "pass" if verb in _PASS else "doubt"}
    if verb in ("quads", "quad", "q") or _PLUS.match(verb):
        if not getattr(state, "quads", True):
            # (Before the cards are read: "you do not hold Ac" would point the wrong way.)
            raise IllegalAction(
                "quads are not played at this table (option quads is off): "
                "lead with play CARDS as RANK, e.g. play 9h 9s as 9"
            )
    if verb in ("quads", "quad", "q"):
        cards = _cards_for(state, seat, rest, known)
        if len(cards) != 4:
            raise IllegalAction("expected four cards after quads, e.g. quads 9h 9s 9d 9c")
        return {"type": "quads", "cards": cards}
    plus = _PLUS.match(verb)
    if plus:
        return {"type": "play", "cards": _cards_for(state, seat, rest, known), "plus": int(plus.group(1))}
    if verb not in _PLAY:
        raise IllegalAction(f"unknown command {words[0]!r}; expected play, lead, quads, +N, pass or doubt")

    if len(rest) >= 2 and rest[-2].lower() == "as" and _is_joker(rest[-1]):
        raise IllegalAction(
            f"a joker is not a rank: jokers are wild, so claim the rank they stand for, e.g. play 7h {rest[-1]} as 7"
        )
    at = _claim_at(rest)
    if at is not None:
        card_words, claim = rest[:at], rest[-1]
        if not card_words:
            raise IllegalAction("expected cards before 'as', e.g. play 7h 7s as 7")
        cards = _cards_for(state, seat, card_words, known)
        plus = _PLUS.match(claim)
        if plus:
            return {"type": "play", "cards": cards, "plus": int(plus.group(1))}
        try:
            rank = parse_rank(claim)
        except CardParseError as exc:
            raise IllegalAction(str(exc)) from None
        return {"type": "play", "cards": cards, "rank": rank.symbol}

    if state.must_lead:
        raise IllegalAction("you are leading: say which rank, e.g. play 7h 7s as 7 or play As as 5")
    cards = _cards_for(state, seat, rest, known)
    if state.in_quads_context:
        if state.plus is None:
            raise IllegalAction("reply to quads with +N, e.g. +2 5h 5s")
        return {"type": "play", "cards": cards, "plus": state.plus}
    return {"type": "play", "cards": cards, "rank": state.current_rank.symbol}


def format_action(action: Action, faces: Mapping[int, Card]) -> str:
    kind = action.get("type")
    if kind in ("pass", "doubt"):
        return {"pass": "passes", "doubt": "doubts"}[kind]
    handles = action.get("cards", [])
    if all(h in faces for h in handles):
        cards = " ".join(str(faces[h]) for h in handles)
    else:
        cards = f"{len(handles)} card" + ("s" if len(handles) != 1 else "")
    if kind == "quads":
        return f"quads {cards}"
    if "plus" in action:
        return f"+{action['plus']} {cards}"
    return f"plays {cards} as {action.get('rank')}"

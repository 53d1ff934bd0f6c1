"""What people see and type in Calypso: the view, action text and the console grammar.

Grammar (case-insensitive)::

    play Qh | p Qh | Qh | Q♥ | 10s        play a card (any copy you hold of that face)
    trump hearts | choose h | suit ♥ | hearts   choose your trump suit after the cut
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from p2pcards.cards import Card, CardParseError, Suit, parse_card, parse_suit, sort_cards
from p2pcards.game import Action, IllegalAction

if TYPE_CHECKING:
    from .game import Calypso, CalypsoState

SUMMARY = (
    "Calypso: four packs, four personal trump suits (spades with hearts, diamonds with clubs). "
    "Follow suit if you can, otherwise discard or ruff with your own suit; a led own suit is a "
    "trump. Won cards of your suit build your calypso (one of each rank, A to 2): 500 for the "
    "first, 750 the second, 1000 each after; 20 per card of an unfinished calypso, 10 per card "
    "in your trick pile."
)

COMMANDS_HELP = "\n".join([
    "play CARD     play a card, e.g. 'play Qh' or just 'Qh' (any copy you hold)",
    "trump SUIT    choose your trump suit after the cut, e.g. 'trump hearts' or 'trump h'",
])

_PLAY_WORDS = {"play", "p"}
_CHOOSE_WORDS = {"trump", "choose", "suit", "pick"}


def _suit_name(suit: Suit) -> str:
    return suit.name.lower()


def parse_action(state: CalypsoState, seat: int, line: str, known: Mapping[int, Card]) -> Action:
    from .game import CHOOSING, PLAYING

    words = line.strip().split(None, 1)
    if not words:
        raise IllegalAction("type a card to play, e.g. 'play Qh' or 'Qh'")
    head, rest = words[0].lower(), (words[1] if len(words) > 1 else "")
    if state.phase == CHOOSING:
        if head in _CHOOSE_WORDS:
            suit_text = rest
        elif not rest:
            suit_text = head
        else:
            raise IllegalAction("choose your trump suit, e.g. 'trump hearts'")
        try:
            suit = parse_suit(suit_text)
        except CardParseError:
            left = ", ".join(_suit_name(s) for s in state.available_suits())
            raise IllegalAction(f"expected 'trump SUIT' with one of {left}, got {line.strip()!r}") from None
        return {"type": "choose_suit", "suit": suit.value}
    if head in _CHOOSE_WORDS:
        raise IllegalAction("the trump suits are already chosen; play a card, e.g. 'play Qh'")
    if state.phase != PLAYING:
        raise IllegalAction("nothing to play yet")
    card_text = rest if head in _PLAY_WORDS else line
    try:
        face = parse_card(card_text)
    except CardParseError:
        raise IllegalAction(f"expected a card such as 'play Qh' or '10s', got {line.strip()!r}") from None
    # With four packs a face names any copy; take the lowest handle held.
    copies = sorted(h for h in state.hands[seat] if h in known and known[h].face == face)
    if not copies:
        raise IllegalAction(f"you hold no {face}")
    return {"type": "play", "card": copies[0]}


def format_action(state: CalypsoState, seat: int, action: Action, faces: Mapping[int, Card]) -> str:
    if action.get("type") == "choose_suit":
        suit = parse_suit(action["suit"])
        return f"seat {seat} chooses {suit.symbol} {_suit_name(suit)}"
    card = faces.get(action.get("card"))
    return f"seat {seat} plays {card.unicode() if card else 'a card'}"


def view(game: Calypso, state: CalypsoState, seat: int | None, known: Mapping[int, Card]) -> dict[str, Any]:
    """Public facts for everyone (rule 22, Q-CY-22): trumps, calypsos in progress face up,
    completed counts, pile sizes, the current trick and provisional scores. Earlier tricks are
    not shown. A seat also sees its own hand, sorted."""
    totals = state.totals() if state.tableaux else {}
    players = []
    for s in range(state.players):
        tableau = state.tableaux[s]
        trump = state.trump.get(s)
        players.append({
            "seat": s,
            "trump": trump.value if trump else None,
            "partner": state.partner(s) if state.order else None,
            "hand_size": len(state.hands[s]),
            "calypso": [f"{r.symbol}{trump.value}" for r in sorted(tableau.current, reverse=True)]
            if trump else [],
            "completed": len(tableau.completed),
            "pile": len(tableau.pile),
            "score": totals.get(s, 0),
        })
    step = game.next_step(state)
    out: dict[str, Any] = {
        "phase": state.phase,
        "mode": state.mode,
        "trump_lead_rule": state.trump_lead_rule,
        "order": list(state.order),
        "dealer": state.order[state.dealer_position] if state.order else None,
        "deal": state.deal_number,
        "deals": state.deals_total,
        "trick_number": state.trick_number,
        "stock": len(state.stock),
        "trick": [
            {"seat": s, "card": str(state.faces[h]) if h in state.faces else None}
            for s, h in state.trick
        ],
        "last_trick_winner": state.last_trick_winner,
        "players": players,
        "to_act": getattr(step, "seat", None),
        "cuts": {str(s): v for s, v in state.cuts.items()},
    }
    if state.removed_suit is not None:
        out["removed_suit"] = state.removed_suit.value
    if seat is not None:
        hand = sort_cards(known[h] for h in state.hands[seat] if h in known)
        out["hand"] = [str(c) for c in hand]
    if state.result is not None:
        out["result"] = state.result.to_wire()
    return out

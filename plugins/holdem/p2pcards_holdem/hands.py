"""Ranking poker hands: pokerkit's evaluator, and the hand in words ("two pair, kings and nines").

The rules rank hands with pokerkit (``StandardHighHand``: the best five of the seven cards),
pinned in the plugin's pyproject.toml, so that every peer ranks alike. Only the words are ours:
pokerkit names the category, we name the ranks that make it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from p2pcards.cards import Card, Rank

__all__ = ["best_hand", "describe", "kicker", "kit_text"]

_KIT_RANK = {Rank.TEN: "T", Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K", Rank.ACE: "A"}

_SINGULAR = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
    10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace",
}  # fmt: skip
_PLURAL = {r: ("sixes" if r == 6 else w + "s") for r, w in _SINGULAR.items()}


def kit_text(card: Card) -> str:
    """A card as pokerkit writes it ("Th", "As")."""
    assert card.rank is not None and card.suit is not None
    return _KIT_RANK.get(card.rank, str(int(card.rank))) + card.suit.value


def best_hand(hole: Sequence[Card], board: Sequence[Card]) -> Any:
    """pokerkit's best five-card high hand of ``hole`` and ``board`` (comparable: greater wins)."""
    # Imported when a hand is first ranked: its lookup tables take 8 MB, and every installed
    # game's plugin is loaded whatever the game (a long Cal's BS match's verify paid for it).
    from pokerkit import StandardHighHand

    return StandardHighHand.from_game("".join(map(kit_text, hole)), "".join(map(kit_text, board)))


def _ranks_of(hand: Any) -> list[int]:
    """The five cards' ranks as numbers 2-14."""
    values = {"T": 10, "J": 11, "Q": 12, "K": 13, "A": 14}
    out = []
    for card in hand.cards:
        text = str(card.rank.value)
        out.append(values.get(text) or int(text))
    return out


def describe(hand: Any) -> str:
    """The hand in words: "two pair, kings and nines", "a flush, ace high", "a royal flush"."""
    ranks = _ranks_of(hand)
    counts = Counter(ranks)
    groups = sorted(counts, key=lambda r: (counts[r], r), reverse=True)  # by count, then rank
    label = hand.entry.label.name
    straight_high = 5 if set(ranks) == {14, 2, 3, 4, 5} else max(ranks)
    if label == "STRAIGHT_FLUSH":
        return "a royal flush" if straight_high == 14 else f"a straight flush, {_SINGULAR[straight_high]} high"
    if label == "FOUR_OF_A_KIND":
        return f"four of a kind, {_PLURAL[groups[0]]}"
    if label == "FULL_HOUSE":
        return f"a full house, {_PLURAL[groups[0]]} full of {_PLURAL[groups[1]]}"
    if label == "FLUSH":
        return f"a flush, {_SINGULAR[max(ranks)]} high"
    if label == "STRAIGHT":
        return f"a straight, {_SINGULAR[straight_high]} high"
    if label == "THREE_OF_A_KIND":
        return f"three of a kind, {_PLURAL[groups[0]]}"
    if label == "TWO_PAIR":
        return f"two pair, {_PLURAL[groups[0]]} and {_PLURAL[groups[1]]}"
    if label == "ONE_PAIR":
        return f"a pair of {_PLURAL[groups[0]]}"
    return f"{_SINGULAR[max(ranks)]} high"


def _order(hand: Any) -> list[int]:
    """The five ranks in the order hands of one kind are compared: by count, then rank."""
    counts = Counter(_ranks_of(hand))
    return [r for r in sorted(counts, key=lambda r: (counts[r], r), reverse=True) for _ in range(counts[r])]


def kicker(winner: Any, loser: Any) -> str | None:
    """What decides between two hands said in the same words ("a pair of twos" each): the
    winner's first card that beats the loser's, as "ace kicker"; ``None`` if the words differ
    or the hands tie."""
    if describe(winner) != describe(loser) or not loser < winner:
        return None
    for mine, theirs in zip(_order(winner), _order(loser), strict=True):
        if mine != theirs:
            return f"{_SINGULAR[mine]} kicker"
    return None

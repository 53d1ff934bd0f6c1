"""Playing cards: suits, ranks, jokers, physical copies, decks, parsing and printing.

This is the lowest layer: plain values with no knowledge of games, crypto or the network.

A :class:`Card` is one *physical* card. Games with several packs (Calypso uses four) hold several
copies of the same face; ``Card.pack`` says which pack a copy came from, and ``Card.face`` drops
that so faces can be compared. Jokers have no rank or suit; two jokers in one pack are told apart
by ``pack`` as well (``JK#0``, ``JK#1``), because the deck protocol needs every physical card to
be distinct.

Text forms::

    >>> parse_card("10s"), str(parse_card("Qd")), parse_card("7♥").unicode()
    (Card(rank=<Rank.TEN: 10>, suit=<Suit.SPADES: 's'>, pack=0), 'Qd', '7♥')
    >>> format_cards(parse_cards("7h 10s Qd JK"))
    '7h 10s Qd JK'
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "Card",
    "CardParseError",
    "JOKER",
    "Rank",
    "SUIT_NAMES",
    "Suit",
    "build_deck",
    "format_cards",
    "parse_card",
    "parse_cards",
    "parse_rank",
    "parse_suit",
    "sort_cards",
]


class CardParseError(ValueError):
    """Text that does not name a card, a rank or a suit."""


class Suit(enum.Enum):
    """The four suits; the value is the ASCII letter used in card text."""

    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    def __str__(self) -> str:
        return self.value


#: Each suit's name as a word, for messages and option values: ``SUIT_NAMES[Suit.HEARTS] == "hearts"``.
SUIT_NAMES = {Suit.CLUBS: "clubs", Suit.DIAMONDS: "diamonds", Suit.HEARTS: "hearts", Suit.SPADES: "spades"}
_SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}
_SUIT_BY_TEXT = {s.value: s for s in Suit} | {v: k for k, v in _SUIT_SYMBOLS.items()}
# Other spellings people type: outline symbols and full names.
_SUIT_BY_TEXT |= {"♧": Suit.CLUBS, "♢": Suit.DIAMONDS, "♡": Suit.HEARTS, "♤": Suit.SPADES}
_SUIT_BY_TEXT |= {name: s for s, name in SUIT_NAMES.items()} | {name[:-1]: s for s, name in SUIT_NAMES.items()}


class Rank(enum.IntEnum):
    """Ranks with ace high; the value is the rank's strength (2 lowest, 14 highest)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def symbol(self) -> str:
        """The short text: 2..10, J, Q, K, A."""
        return _RANK_TEXT[self]

    def __str__(self) -> str:
        return self.symbol


_RANK_TEXT = {r: str(r.value) for r in Rank if r.value <= 10} | {
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.ACE: "A",
}
_RANK_BY_TEXT = {v: k for k, v in _RANK_TEXT.items()} | {"T": Rank.TEN, "1": Rank.ACE}


@dataclass(frozen=True, order=False, slots=True)
class Card:
    """One physical card. ``rank`` and ``suit`` are both ``None`` for a joker."""

    rank: Rank | None
    suit: Suit | None
    pack: int = 0

    def __post_init__(self) -> None:
        if (self.rank is None) != (self.suit is None):
            raise ValueError("a card has both a rank and a suit, or neither (a joker)")
        if self.pack < 0:
            raise ValueError("pack must be >= 0")

    @property
    def is_joker(self) -> bool:
        return self.rank is None

    @property
    def face(self) -> Card:
        """The card without its physical copy number, for comparing faces."""
        return self if self.pack == 0 else Card(self.rank, self.suit)

    def copy(self, pack: int) -> Card:
        return Card(self.rank, self.suit, pack)

    def __str__(self) -> str:
        # The two are None together (see __post_init__); testing both lets mypy narrow each.
        return "JK" if self.rank is None or self.suit is None else f"{self.rank.symbol}{self.suit.value}"

    def unicode(self) -> str:
        """``7♥``, ``10♠``; a joker is ``JK`` (its glyph is missing from many terminal fonts)."""
        return "JK" if self.rank is None or self.suit is None else f"{self.rank.symbol}{self.suit.symbol}"

    def label(self) -> str:
        """A text naming this physical copy uniquely, e.g. ``7h#2`` (pack 2)."""
        return f"{self}#{self.pack}"

    def sort_key(self) -> tuple[int, int, int]:
        """Suit, then rank, then pack; jokers last."""
        if self.rank is None or self.suit is None:
            return (len(_SUIT_ORDER), 0, self.pack)
        return (_SUIT_ORDER[self.suit], self.rank.value, self.pack)

    @classmethod
    def from_label(cls, text: str) -> Card:
        """Inverse of :meth:`label`."""
        face, sep, pack = text.partition("#")
        if not sep or not pack.isdigit():
            raise CardParseError(f"not a card label: {text!r} (expected e.g. '7h#0')")
        return parse_card(face).copy(int(pack))


JOKER = Card(None, None)

_SUIT_ORDER = {Suit.SPADES: 0, Suit.HEARTS: 1, Suit.CLUBS: 2, Suit.DIAMONDS: 3}
# A rank then a suit, e.g. "10s", "Qd", "7♥", "t h"; case-insensitive.
_CARD_RE = re.compile(r"^\s*(10|[2-9]|[tjqka1])\s*([cdhs♣♦♥♠♧♢♡♤])\s*$", re.IGNORECASE)
_JOKER_TEXTS = {"jk", "joker", "jo", "*", "🃏"}


def parse_rank(text: str) -> Rank:
    """``"7"``, ``"10"``, ``"T"``, ``"q"`` -> a :class:`Rank`."""
    key = text.strip().upper()
    if key in _RANK_BY_TEXT:
        return _RANK_BY_TEXT[key]
    names = {r.name.lower(): r for r in Rank} | {r.name.lower() + "s": r for r in Rank}
    if key.lower() in names:
        return names[key.lower()]
    raise CardParseError(f"not a rank: {text!r} (expected 2-10, J, Q, K or A)")


def parse_suit(text: str) -> Suit:
    """``"h"``, ``"♥"``, ``"hearts"`` -> a :class:`Suit`."""
    key = text.strip().lower()
    if key in _SUIT_BY_TEXT:
        return _SUIT_BY_TEXT[key]
    raise CardParseError(f"not a suit: {text!r} (expected c, d, h, s or ♣ ♦ ♥ ♠)")


def parse_card(text: str) -> Card:
    """Parse one card in ASCII or Unicode form; the result is pack 0."""
    if text.strip().lower() in _JOKER_TEXTS:
        return JOKER
    m = _CARD_RE.match(text)
    if not m:
        raise CardParseError(f"not a card: {text!r} (expected e.g. 7h, 10s, Qd, 7♥ or JK)")
    return Card(parse_rank(m.group(1)), parse_suit(m.group(2)))


def parse_cards(text: str) -> list[Card]:
    """Parse cards separated by spaces or commas: ``"7h 10s, Qd JK"``."""
    return [parse_card(t) for t in re.split(r"[\s,]+", text.strip()) if t]


def format_cards(cards: Iterable[Card], *, unicode: bool = False) -> str:
    return " ".join(c.unicode() if unicode else str(c) for c in cards)


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    return sorted(cards, key=Card.sort_key)


def build_deck(*, packs: int = 1, jokers: int = 0, without_suits: Sequence[Suit] = ()) -> list[Card]:
    """Every physical card of ``packs`` standard 52-card packs, less ``without_suits``.

    ``jokers`` is the number of jokers in the whole deck, numbered by ``pack`` 0, 1, ...

    >>> len(build_deck()), len(build_deck(jokers=2)), len(build_deck(packs=4))
    (52, 54, 208)
    >>> len(build_deck(packs=3, without_suits=[Suit.CLUBS]))
    117
    """
    if packs < 1:
        raise ValueError("packs must be >= 1")
    suits = [s for s in Suit if s not in set(without_suits)]
    deck = [Card(r, s, p) for p in range(packs) for s in suits for r in Rank]
    deck += [JOKER.copy(j) for j in range(jokers)]
    return deck

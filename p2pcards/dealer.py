"""The local open-faced dealer: a deck backend that simply knows every card.

For rules tests, bots and fast simulations in one process. It is seeded, so the same seed gives
the same shuffles and coins. It keeps track of who may see what exactly as the mental-poker deck
does (a dealt card is known to its receiver, a revealed card to everyone, a transferred card to
its new holder), so a bot sees the same information whichever deck it plays against. Transferred
cards get new handles numbered as the mental-poker deck numbers them (a counter from
``FIRST_TRANSFERRED``), assigned in a random order.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from .cards import Card

__all__ = ["FIRST_TRANSFERRED", "LocalDealer"]

#: The first handle given to a transferred card: far above any shuffle epoch's handles
#: (``epoch * len(deck)``), and counted up by one per moved card, like the mental-poker deck.
FIRST_TRANSFERRED = 1 << 24


class LocalDealer:
    def __init__(self, cards: Sequence[Card], players: int, rng: random.Random):
        if len(set(cards)) != len(cards):
            raise ValueError("the deck holds the same physical card twice")
        self.cards = list(cards)
        self.players = players
        self.rng = rng
        self.faces: dict[int, Card] = {}
        self._known: list[dict[int, Card]] = [{} for _ in range(players)]
        self._epoch = 0
        self._next_transferred = FIRST_TRANSFERRED
        self._coin_labels: set[str] = set()

    def shuffle(self) -> list[int]:
        order = self.cards[:]
        self.rng.shuffle(order)
        return self.lay_out(order)

    def lay_out(self, order: Sequence[Card]) -> list[int]:
        """The handles of a new shuffle whose stock is ``order`` (every card of the deck, top
        first). A stacked deck (:mod:`p2pcards.testing`) chooses the order itself."""
        if sorted(order, key=Card.sort_key) != sorted(self.cards, key=Card.sort_key):
            raise ValueError("a shuffle must hold every card of the deck exactly once")
        base = self._epoch * len(order)
        self._epoch += 1
        handles = list(range(base, base + len(order)))
        self.faces.update(zip(handles, order))
        return handles

    def coin(self, label: str, bound: int) -> int:
        self.use_coin_label(label)
        return self.rng.randrange(bound)

    def use_coin_label(self, label: str) -> None:
        """Note a coin's label, refusing one used before in this game."""
        # The mental-poker deck derives a coin from the game and its label only, so a label used
        # twice gives the same value twice there: refuse it here, where a plugin's tests run.
        if label in self._coin_labels:
            raise ValueError(f"Coin label {label!r} used twice in one game (labels must be unique)")
        self._coin_labels.add(label)

    def deal(self, to: Mapping[int, int]) -> None:
        for handle, seat in to.items():
            self._known[seat][handle] = self.faces[handle]

    def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]:
        opened = {h: self.faces[h] for h in handles}
        for known in self._known:
            known.update(opened)
        return opened

    def transfer(self, handles: Sequence[int], to: int) -> list[int]:
        old = sorted(set(handles))
        # The new numbers go to the cards in a random order, so nothing links them to the old.
        keys = {h: self.rng.random() for h in old}
        old.sort(key=keys.__getitem__)
        new = list(range(self._next_transferred, self._next_transferred + len(old)))
        self._next_transferred += len(old)
        for was, now in zip(old, new):
            self.faces[now] = self.faces[was]
            self._known[to][was] = self._known[to][now] = self.faces[was]
        return new

    def known(self, seat: int) -> Mapping[int, Card]:
        return self._known[seat]

    def open_all(self) -> dict[int, Card]:
        return dict(self.faces)

"""The local open-faced dealer: a deck backend that simply knows every card.

For rules tests, bots and fast simulations in one process. It is seeded, so the same seed gives
the same shuffles and coins. It keeps track of who may see what exactly as the mental-poker deck
does (a dealt card is known to its receiver, a revealed card to everyone, a transferred card to
its new holder), so a bot sees the same information whichever deck it plays against.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from .cards import Card

__all__ = ["LocalDealer"]


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

    def shuffle(self) -> list[int]:
        order = self.cards[:]
        self.rng.shuffle(order)
        base = self._epoch * len(order)
        self._epoch += 1
        handles = list(range(base, base + len(order)))
        self.faces.update(zip(handles, order))
        return handles

    def coin(self, label: str, bound: int) -> int:
        return self.rng.randrange(bound)

    def deal(self, to: Mapping[int, int]) -> None:
        for handle, seat in to.items():
            self._known[seat][handle] = self.faces[handle]

    def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]:
        opened = {h: self.faces[h] for h in handles}
        for known in self._known:
            known.update(opened)
        return opened

    def transfer(self, handles: Sequence[int], to: int) -> None:
        for handle in handles:
            self._known[to][handle] = self.faces[handle]

    def known(self, seat: int) -> Mapping[int, Card]:
        return self._known[seat]

    def open_all(self) -> dict[int, Card]:
        return dict(self.faces)

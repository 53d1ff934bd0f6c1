"""A Cal's BS table for scenario tests: :class:`p2pcards.testing.ScenarioTable` with the deck
stacked hand by hand, so that chosen cards reach chosen seats. Steps other than turns (coin,
shuffle, deal, reveal, transfer) run by themselves, as ``p2pcards.engine.play`` runs them, and
every reveal and transfer is recorded."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from p2pcards.dealer import LocalDealer
from p2pcards.testing import ScenarioTable, StackedDealer, load_game, stack_deal

GAME_ID = "cals-bs"


def the_game():
    return load_game(GAME_ID)


class NoLotDealer(LocalDealer):
    """A local dealer that fails the test if the game asks it to draw a coin."""

    def coin(self, label: str, bound: int) -> int:
        raise AssertionError(f"a coin {label!r} was drawn")


def stacked_deck(deals: tuple[Mapping[int, str], ...], first_dealer: int):
    """A deck factory: hand ``i`` deals ``deals[i]`` (seat -> cards, each hand filled up from the
    rest of the deck in deck order); the lot makes ``first_dealer`` the first dealer, and the deal
    passes left each hand. Hands after those are shuffled at random."""

    def factory(cards, players):
        sizes = [len(cards) // players + (1 if i < len(cards) % players else 0) for i in range(players)]
        stacks = []
        for number, hands in enumerate(deals):
            first = (first_dealer + number + 1) % players  # all 54 cards, from the dealer's left
            seats = [(first + i) % players for i in range(players)]
            stacks.append(stack_deal(cards, hands, seats, dict(zip(seats, sizes))))
        return StackedDealer(cards, players, random.Random(7), stacks=stacks, coins={"first-dealer": first_dealer})

    return factory


class Table(ScenarioTable):
    def __init__(self, players: int, *deals: Mapping[int, str], dealer: int | None = None, **options: Any):
        dealer = players - 1 if dealer is None else dealer  # so seat 0 leads first
        super().__init__(GAME_ID, players, options, deck=stacked_deck(deals, dealer))

    def step(self):
        return self.next_step()

    def raw(self, seat: int, action: dict) -> None:
        """What a modified client can do: skip check_own (peers still run check)."""
        self.act(seat, action, check_own=False)

    def handles(self, seat: int, text: str) -> list[int]:
        return self.parse(seat, "play " + text + " as 2")["cards"]

    def hand(self, seat: int) -> list[str]:
        return sorted(self.faces(self.state.hands[seat]))

    def keep_only(self, seat: int, text: str) -> None:
        """A scenario shortcut to the end of a hand: the seat keeps only these of its cards
        (the others leave the game, as if shed earlier)."""
        keep = self.handles(seat, text)
        self.state.hands[seat] = [h for h in self.state.hands[seat] if h in keep]

"""Helpers for Calypso tests: the game loaded through its real entry point, and a
:class:`p2pcards.testing.ScenarioTable` that stacks the first deal and the cuts and makes the
suit choices, so that a test drives one game card by card from typed commands.
(Not a conftest.py: root tests import their ``conftest`` by name and a second would shadow it.)

Seats in partnership scenarios follow rules.md II.c: the cuts A, K, Q, J for seats 0..3 make
seat 0 (W, ♠) the first dealer, seat 2 (N, ♣) the first leader, seat 1 (E, ♥) and seat 3
(S, ♦). In solo and three-player scenarios seat 0 deals, seat 1 leads, and the seats choose
suits in seat order. A choice given without a place (``"h"``, not ``"h opposite"``) takes the
first open place clockwise from the first dealer, so that by default the table order is the
cut order.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest
from p2pcards_calypso.text import place_words

from p2pcards.cards import parse_suit
from p2pcards.game import Turn
from p2pcards.plugins import load_plugins
from p2pcards.testing import ScenarioTable, StackedDealer, stack_deal

N, E, S, W = 2, 1, 3, 0
COMPASS = {"N": N, "E": E, "S": S, "W": W}


def calypso_game():
    host = load_plugins()
    assert not [e for e in host.errors if "calypso" in str(e)], host.errors
    return host.game("calypso")


class CalypsoDealer(StackedDealer):
    @property
    def coin_log(self) -> list[str]:
        """The labels of the coins drawn, in order."""
        return list(self.coins_drawn)


class Table(ScenarioTable):
    """One game driven step by step; chance steps and suit choices run by themselves, cards come
    from tests. ``hands`` (by seat or compass letter) are dealt in the first deal, each filled to
    13 with cards of the suits the seat is not ``void`` in; the rest of the stock is shuffled."""

    def __init__(
        self,
        mode: str = "partnership",
        hands: Mapping = {},
        void: Mapping = {},
        choices: Sequence[str] | None = None,
        cuts: Sequence[int] | None = None,
        coins: Mapping[str, int] | None = None,
        seed: int = 7,
        players: int | None = None,
        **options,
    ):
        players = players or (3 if mode == "three" else 4)
        cuts = cuts or [14, 13, 12, 11][:players]
        coin_values = {f"cut1/seat{s}": rank - 2 for s, rank in enumerate(cuts)}
        coin_values.update(coins or {})
        if mode == "partnership":
            recipients = [N, E, S, W]
            self.choices = list(["s", "c"] if choices is None else choices)  # W picks ♠ (E gets ♥), N picks ♣ (S ♦)
        else:
            recipients = [(1 + i) % players for i in range(players)]
            default = ["s", "h", "d"] if mode == "solo" else ["s", "h"]
            self.choices = list(default if choices is None else choices)
        hands = {COMPASS.get(k, k): v for k, v in hands.items()}
        void = {COMPASS.get(k, k): {parse_suit(s) for s in v} for k, v in void.items()}

        def deck(cards, players):
            avoid = {seat: (lambda card, banned=banned: card.suit in banned) for seat, banned in void.items()}
            top = stack_deal(cards, hands, recipients, 13, avoid=avoid) if hands or void else []
            return CalypsoDealer(
                cards, players, random.Random(seed), stacks=[top], coins=coin_values, shuffle_rest=True
            )

        super().__init__(calypso_game(), players, {"mode": mode, **options}, deck=deck)

    def answer(self, step: Turn):
        """The suit choices come from ``choices``, in order."""
        state = self.state
        if state.phase != "choosing" or not self.choices:
            return None
        choice = self.choices.pop(0)
        if state.chooses_places() and state.places and len(choice.split()) == 1:
            choice += " " + place_words(self.players)[state.places_open()[0]]
        return f"trump {choice}"

    # Seats may be named by compass letter.

    def seat(self, who) -> int:
        return COMPASS.get(who, who)

    def known(self, who):
        return super().known(self.seat(who))

    def parse(self, who, text: str):
        return super().parse(self.seat(who), text)

    def act(self, who, text: str, *, own_check: bool = True):
        return super().act(self.seat(who), text, check_own=own_check)

    def trick(self, *cards: str, own_check: bool = True) -> int:
        """Play one card per seat in turn order (from the current leader); returns the winner."""
        for card in cards:
            step = self.game.next_step(self.state)
            self.act(step.seat, f"play {card}", own_check=own_check)
        return self.state.last_trick_winner

    def hand(self, who) -> list[str]:
        known = self.known(who)
        return sorted(str(known[h]) for h in self.state.hands[self.seat(who)])

    def calypso(self, who) -> set[str]:
        return {r.symbol for r in self.state.tableaux[self.seat(who)].current}

    def pile(self, who) -> list[str]:
        return sorted(str(self.state.faces[h]) for h in self.state.tableaux[self.seat(who)].pile)

    def play_out(self, rng: random.Random | None = None):
        """Play legal cards at random until the game is done (no own check, as before)."""
        return super().play_out(rng=rng or random.Random(0), check_own=False)

    @property
    def steps(self) -> list:
        return self.log

    def deal_steps(self):
        return self.deals

    @property
    def dealer(self) -> CalypsoDealer:
        return self.deck

    @property
    def dealer_stock(self) -> list[int]:
        return self.deck.stocks[-1]


@pytest.fixture(scope="session")
def game():
    """The Calypso game from the installed plugin (import this fixture into a test module)."""
    return calypso_game()

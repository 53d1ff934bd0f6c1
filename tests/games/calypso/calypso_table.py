"""Helpers for Calypso tests: the game loaded through its real entry point, a dealer that stacks
the deck and the coins, and a table that drives one game card by card from typed commands.
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
from collections.abc import Iterable, Mapping, Sequence

import pytest

from p2pcards_calypso.text import place_words

from p2pcards.cards import Card, parse_card, parse_suit
from p2pcards.dealer import LocalDealer
from p2pcards.engine import Replica, carry_out
from p2pcards.game import Deal, Done, Shuffle, Turn
from p2pcards.plugins import load_plugins

N, E, S, W = 2, 1, 3, 0
COMPASS = {"N": N, "E": E, "S": S, "W": W}


def calypso_game():
    host = load_plugins()
    assert not [e for e in host.errors if "calypso" in str(e)], host.errors
    return host.game("calypso")


class StackedDealer(LocalDealer):
    """A local dealer whose shuffle puts ``top`` (faces, any copy) first, and whose coins come
    from ``coins`` by label when given there."""

    def __init__(self, cards, players, rng, top: Sequence[str] = (), coins: Mapping[str, int] | None = None):
        super().__init__(cards, players, rng)
        self.top = list(top)
        self.coins = dict(coins or {})
        self.shuffles = 0
        self.coin_log: list[str] = []

    def shuffle(self) -> list[int]:
        self.shuffles += 1
        handles = super().shuffle()
        pool = list(self.cards)
        stacked = []
        for text in self.top:
            face = parse_card(text).face
            copy = next(c for c in pool if c.face == face)
            pool.remove(copy)
            stacked.append(copy)
        self.rng.shuffle(pool)
        self.faces.update(zip(handles, stacked + pool))
        return handles

    def coin(self, label: str, bound: int) -> int:
        self.coin_log.append(label)
        if label in self.coins:
            assert 0 <= self.coins[label] < bound
            return self.coins[label]
        return super().coin(label, bound)


def stack_hands(deck: Sequence[Card], recipients: Sequence[int], hands: Mapping[int, Sequence[str]],
                void: Mapping[int, Iterable[str]] = {}, deals: int = 1) -> list[str]:
    """The top of the stock (as faces) that deals ``hands`` (padded to 13 with cards of suits
    the seat is not void in) for the first deal, given the seat order cards are dealt in."""
    pool = [c.face for c in deck]
    chosen: dict[int, list[Card]] = {}
    for seat in recipients:
        chosen[seat] = [parse_card(t) for t in hands.get(seat, ())]
        for face in chosen[seat]:
            pool.remove(face)
    for seat in recipients:
        banned = {parse_suit(s) for s in void.get(seat, ())}
        while len(chosen[seat]) < 13:
            face = next(f for f in pool if f.suit not in banned)
            pool.remove(face)
            chosen[seat].append(face)
    top = []
    for i in range(13):
        for seat in recipients:
            top.append(str(chosen[seat][i]))
    return top


class Table:
    """One game driven step by step; chance steps run by themselves, turns come from tests."""

    def __init__(self, mode: str = "partnership", hands: Mapping = {}, void: Mapping = {},
                 choices: Sequence[str] | None = None, cuts: Sequence[int] | None = None,
                 coins: Mapping[str, int] | None = None, seed: int = 7, players: int | None = None,
                 **options):
        self.game = calypso_game()
        players = players or (3 if mode == "three" else 4)
        self.options = self.game.resolve_options({"mode": mode, **options}, players)
        self.players = players
        deck = self.game.deck(self.options, players)
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
        void = {COMPASS.get(k, k): v for k, v in void.items()}
        top = stack_hands(deck, recipients, hands, void) if hands or void else ()
        self.dealer = StackedDealer(deck, players, random.Random(seed), top, coin_values)
        self.replica = Replica(self.game, self.options, players)
        self.state = self.replica.state
        self.steps: list = []
        self.advance()

    def advance(self):
        """Run chance steps (and suit choices from ``choices``) until a card must be played."""
        game, state, dealer = self.game, self.state, self.dealer
        while True:
            step = game.next_step(state)
            self.steps.append(step)
            if isinstance(step, Turn):
                if state.phase == "choosing" and self.choices:
                    choice = self.choices.pop(0)
                    if state.chooses_places() and state.places and len(choice.split()) == 1:
                        choice += " " + place_words(self.players)[state.places_open()[0]]
                    self.act(step.seat, f"trump {choice}")
                    continue
                return step
            if isinstance(step, Done):
                return step
            event = carry_out(game, state, step, dealer)
            if isinstance(step, Shuffle):
                self.dealer_stock = event["handles"]

    def seat(self, who) -> int:
        return COMPASS.get(who, who)

    def known(self, who):
        return self.dealer.known(self.seat(who))

    def parse(self, who, text: str):
        seat = self.seat(who)
        return self.game.parse_action(self.state, seat, text, self.known(seat))

    def act(self, who, text: str, *, own_check: bool = True):
        seat = self.seat(who)
        action = self.game.parse_action(self.state, seat, text, self.known(seat))
        if own_check:
            self.game.check_own(self.state, seat, action, self.known(seat))
        self.replica.act(seat, action)
        return self.advance()

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
        """Play legal cards at random until the game is done; returns the Done step."""
        rng = rng or random.Random(0)
        while True:
            step = self.game.next_step(self.state)
            if isinstance(step, Done):
                return step
            actions = self.game.legal_actions(self.state, step.seat, self.known(step.seat))
            self.replica.act(step.seat, rng.choice(actions))
            self.advance()

    def deal_steps(self) -> list[Deal]:
        return [s for s in self.steps if isinstance(s, Deal)]


@pytest.fixture(scope="session")
def game():
    """The Calypso game from the installed plugin (import this fixture into a test module)."""
    return calypso_game()

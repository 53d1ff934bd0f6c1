"""A Crazy Eights table for scenario tests: the real game (loaded through its entry point), the
real engine ``Replica`` and a local dealer whose deck is stacked, so chosen cards reach chosen
hands, the starter and the stock. Steps other than turns run by themselves, as
``p2pcards.engine.play`` runs them, and are recorded in ``steps``."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from p2pcards.cards import Card, parse_cards
from p2pcards.dealer import LocalDealer
from p2pcards.engine import Replica, carry_out
from p2pcards.game import Done, Turn
from p2pcards.plugins import load_plugins

GAME_ID = "crazy-eights"


def the_game():
    return load_plugins().game(GAME_ID)


class StackedDealer(LocalDealer):
    """Deals ``hands`` (seat -> cards text), then turns ``starter`` (one or more cards), then
    leaves ``stock`` on top of the rest of the pack; the coin makes ``dealer`` the dealer."""

    def __init__(self, cards, players, dealer, hands: Mapping[int, str], starter: str, stock: str):
        super().__init__(cards, players, random.Random(7))
        self.dealer = dealer
        size = len(next(iter(hands.values())).split())
        per_seat = {seat: parse_cards(text) for seat, text in hands.items()}
        assert all(len(c) == size for c in per_seat.values()) and len(per_seat) == players
        dealt = [per_seat[(dealer + 1 + i) % players][i // players] for i in range(size * players)]
        top = dealt + parse_cards(starter) + parse_cards(stock)
        assert len(set(top)) == len(top), "a card is stacked twice"
        self.order = top + [c for c in cards if c not in set(top)]

    def coin(self, label: str, bound: int) -> int:
        return self.dealer

    def shuffle(self) -> list[int]:
        handles = list(range(len(self.order)))
        self.faces.update(zip(handles, self.order))
        return handles


class Table:
    def __init__(self, hands: Mapping[int, str], starter: str, stock: str = "", *, dealer: int = None,
                 **options: Any):
        self.game = the_game()
        self.players = len(hands)
        dealer = self.players - 1 if dealer is None else dealer
        size = len(next(iter(hands.values())).split())
        self.options = self.game.resolve_options({"hand_size": size, **options}, self.players)
        self.deck = StackedDealer(self.game.deck(self.options, self.players), self.players, dealer,
                                  hands, starter, stock)
        self.replica = Replica(self.game, self.options, self.players)
        self.steps: list[Any] = []
        self.record = None
        self.advance()

    @property
    def state(self):
        return self.replica.state

    def known(self, seat: int) -> Mapping[int, Card]:
        return self.deck.known(seat)

    def handle(self, seat: int, text: str) -> int:
        card = parse_cards(text)[0]
        return next(h for h in self.state.hands[seat] if self.deck.faces[h] == card)

    def hand(self, seat: int) -> str:
        return " ".join(str(self.deck.faces[h]) for h in self.state.hands[seat])

    def legal(self, seat: int) -> list[str]:
        actions = self.game.legal_actions(self.state, seat, self.known(seat))
        return sorted(self.game.format_action(self.state, seat, a, self.known(seat)) for a in actions)

    def act(self, seat: int, action: str | dict, *, check_own: bool = True) -> None:
        """Play ``action`` (typed text or an action dict) and run the steps that follow."""
        if isinstance(action, str):
            action = self.game.parse_action(self.state, seat, action, self.known(seat))
        if check_own:
            self.game.check_own(self.state, seat, action, self.known(seat))
        self.replica.act(seat, action)
        self.advance()

    def advance(self) -> None:
        game, state, deck = self.game, self.state, self.deck
        while True:
            step = self.replica.next_step()
            if isinstance(step, Turn):
                return
            self.steps.append(step)
            if isinstance(step, Done):
                faces = deck.open_all()
                self.record = (step.result, game.audit(state, self.replica.actions, faces))
                return
            carry_out(game, state, step, deck)

    @property
    def turn(self) -> int:
        return self.replica.next_step().seat

    @property
    def result(self):
        return self.record[0]

    @property
    def violations(self):
        return self.record[1]

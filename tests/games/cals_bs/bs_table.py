"""A Cal's BS table for scenario tests: the real game (loaded through its entry point), the real
engine ``Replica``, and a local dealer whose deck is stacked so that chosen cards reach chosen
seats. Steps other than turns (coin, shuffle, deal, reveal, transfer) run by themselves, exactly
as ``p2pcards.engine.play`` runs them, and every reveal and transfer is recorded."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from p2pcards.cards import Card, parse_cards
from p2pcards.dealer import LocalDealer
from p2pcards.engine import Replica, carry_out, order_round
from p2pcards.game import Done, Reveal, Round, Transfer, Turn
from p2pcards.plugins import load_plugins

GAME_ID = "cals-bs"


def the_game():
    return load_plugins().game(GAME_ID)


def physical(text: str, taken: set[Card]) -> list[Card]:
    """Typed faces -> distinct physical cards of the 54-card deck (JK -> JK#0, then JK#1)."""
    out = []
    for card in parse_cards(text):
        copy = card
        while copy in taken or copy in out:
            copy = card.copy(copy.pack + 1)
        out.append(copy)
    taken.update(out)
    return out


class NoLotDealer(LocalDealer):
    """A local dealer that fails the test if the game asks it to draw a coin."""

    def coin(self, label: str, bound: int) -> int:
        raise AssertionError(f"a coin {label!r} was drawn")


class StackedDealer(LocalDealer):
    """A local dealer whose first shuffles put the given cards in the given seats' hands (the
    rest of each hand filled from the remaining cards in deck order), then shuffles at random."""

    def __init__(self, cards, players, deals: Sequence[Mapping[int, str]], first_dealer: int):
        super().__init__(cards, players, random.Random(7))
        self.deals = list(deals)
        self.first_dealer = first_dealer
        self.dealer = first_dealer

    def coin(self, label: str, bound: int) -> int:
        return self.first_dealer

    def shuffle(self) -> list[int]:
        if not self.deals:
            return super().shuffle()
        wanted = self.deals.pop(0)
        n = self.players
        sizes = [54 // n + (1 if i < 54 % n else 0) for i in range(n)]  # from the dealer's left
        taken: set[Card] = set()
        hands = {seat: physical(text, taken) for seat, text in wanted.items()}
        rest = [c for c in self.cards if c not in taken]
        first = (self.dealer + 1) % n
        per_seat: dict[int, list[Card]] = {}
        for offset in range(n):
            seat = (first + offset) % n
            cards = hands.get(seat, [])
            need = sizes[offset] - len(cards)
            assert need >= 0, f"seat {seat} can hold only {sizes[offset]} cards"
            per_seat[seat] = cards + rest[:need]
            rest = rest[need:]
        order = [per_seat[(first + i % n) % n][i // n] for i in range(54)]
        self.dealer = (self.dealer + 1) % n
        base = self._epoch * 54
        self._epoch += 1
        handles = list(range(base, base + 54))
        self.faces.update(zip(handles, order))
        return handles


class Table:
    def __init__(self, players: int, *deals: Mapping[int, str], dealer: int | None = None, **options: Any):
        self.game = the_game()
        self.players = players
        self.options = self.game.resolve_options(options, players)
        dealer = players - 1 if dealer is None else dealer  # so seat 0 leads first
        self.deck = StackedDealer(self.game.deck(self.options, players), players, deals, dealer)
        self.replica = Replica(self.game, self.options, players)
        self.reveals: list[tuple[tuple[int, ...], int | None]] = []
        self.transfers: list[Transfer] = []
        self.advance()

    @property
    def state(self):
        return self.replica.state

    def step(self):
        return self.game.next_step(self.state)

    def advance(self) -> None:
        """Run every step that is not a turn, the way the engine does."""
        game, state, deck = self.game, self.state, self.deck
        while True:
            step = game.next_step(state)
            if isinstance(step, (Turn, Round, Done)):
                return
            if isinstance(step, Reveal):
                self.reveals.append((step.handles, step.owner))
            elif isinstance(step, Transfer):
                self.transfers.append(step)
            carry_out(game, state, step, deck)

    # -- acting ---------------------------------------------------------------------------

    def parse(self, seat: int, text: str) -> dict:
        return self.game.parse_action(self.state, seat, text, self.deck.known(seat))

    def act(self, seat: int, text: str) -> dict:
        """What an honest client does: parse, check_own, then every peer's check and apply."""
        action = self.parse(seat, text)
        self.game.check_own(self.state, seat, action, self.deck.known(seat))
        self.replica.act(seat, action)
        self.advance()
        return action

    def race(self, *responses: tuple[int, str], saw: dict[int, set[int]] | None = None) -> list[int | None]:
        """A free-order round: every ``(seat, text)`` response chosen against the state the
        round opened with; ``saw[seat]``: whose responses that seat had seen when it acted
        (none by default: all at once). Applied in the table's order; returns each response's
        index in the log, or None if void, in the order given."""
        step = self.step()
        assert isinstance(step, Round), step
        actions = {}
        for seat, text in responses:
            actions[seat] = self.parse(seat, text)
            self.game.check_own(self.state, seat, actions[seat], self.deck.known(seat))
        ordered = order_round(actions, saw or {}, step.after, self.players)
        indices = dict(zip((seat for seat, _ in ordered), self.replica.respond(step, ordered)))
        self.advance()
        return [indices[seat] for seat, _ in responses]

    def raw(self, seat: int, action: dict) -> None:
        """What a modified client can do: skip check_own (peers still run check)."""
        self.replica.act(seat, action)
        self.advance()

    def handles(self, seat: int, text: str) -> list[int]:
        return self.parse(seat, "play " + text + " as 2")["cards"]

    # -- looking --------------------------------------------------------------------------

    @property
    def turn(self) -> int | None:
        step = self.step()
        return step.seat if isinstance(step, Turn) else None

    def faces(self, handles) -> list[str]:
        return [str(self.deck.faces[h]) for h in handles]

    def hand(self, seat: int) -> list[str]:
        return sorted(self.faces(self.state.hands[seat]))

    def keep_only(self, seat: int, text: str) -> None:
        """A scenario shortcut to the end of a hand: the seat keeps only these of its cards
        (the others leave the game, as if shed earlier)."""
        keep = self.handles(seat, text)
        self.state.hands[seat] = [h for h in self.state.hands[seat] if h in keep]

    def audit(self):
        return self.game.audit(self.state, self.replica.actions, self.deck.open_all())

    def view(self, seat: int | None):
        return self.game.view(self.state, seat, self.deck.known(seat) if seat is not None else {})

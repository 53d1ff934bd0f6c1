"""The mental-poker deck as an engine deck backend, with every party in this process.

:class:`MentalPokerDeck` has the methods of the engine's ``DeckBackend`` (and of ``LocalDealer``).
It runs one :class:`~p2pcards.deck.party.Party` per seat, each holding only its own seed, and
carries their messages through in-process queues (:class:`LocalNetwork`). Every message is
msgpack-encoded and decoded on the way, which proves it is plain data: the network layer will
carry exactly these messages.

Seeds: :func:`mental_poker_factory` with ``seed=None`` draws each seat's seed from
:mod:`secrets`; with a seed (``p2pcards simulate --seed``) it derives them from it so that runs
repeat. **A seeded simulation is not secret**: anyone who knows the seed can compute every card.

``open_all`` runs the end-of-game reveal and audit, which opens every hand (bluffs included).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..cards import Card
from ..engine import DeckBackend
from ..game import Game
from .derive import SEED_BYTES
from .group import MultiplyMany, digest
from .local import DeckFault, LocalNetwork, Tamper, multiplier
from .party import AuditOp, CoinOp, DealOp, DropOp, Op, OpDone, Party, RevealOp, ShuffleOp, TransferOp

__all__ = ["DeckFault", "LocalNetwork", "MentalPokerDeck", "mental_poker_factory", "simulation_seeds"]


class MentalPokerDeck:
    """A DeckBackend whose cards nobody sees: N parties in this process.

    ``multiply_many`` (default: :func:`~p2pcards.deck.local.multiplier` of ``workers``) is
    what every party multiplies with."""

    def __init__(
        self,
        cards: Sequence[Card],
        players: int,
        seeds: Sequence[bytes] | None = None,
        *,
        header: bytes = b"",
        workers: int = 1,
        party_factory: Callable[..., Party] = Party,
        tamper: Tamper | None = None,
        multiply_many: MultiplyMany | None = None,
    ):
        seeds = list(seeds) if seeds is not None else [secrets.token_bytes(SEED_BYTES) for _ in range(players)]
        if len(seeds) != players:
            raise ValueError("one seed per seat")
        multiply = multiply_many or multiplier(workers)
        self.players = players
        self.n = len(cards)
        self.parties = [
            party_factory(
                seat,
                players,
                header,
                cards,
                seeds[seat],
                multiply_many=multiply,
            )
            for seat in range(players)
        ]
        self.gone: set[int] = set()  # seats that dropped out: they take part in nothing after
        self.net = LocalNetwork(self.parties, tamper)
        for party in self.parties:
            self.net.call(party.seat, party.start)
        self.net.run()
        self._check()

    # -- running one operation at every seat ---------------------------------------------------

    @property
    def playing(self) -> list[Party]:
        return [p for p in self.parties if p.seat not in self.gone]

    def _check(self) -> None:
        blames = {p.seat: p.blame for p in self.playing if p.blame is not None}
        if blames:
            raise DeckFault(blames)

    def run_op(self, op: Op) -> list[OpDone]:
        """Begin ``op`` at every seat, deliver messages until all are done; one OpDone per seat.
        If the queues run dry first, the driver's step timeout fires at a waiting seat."""
        now = max(self.net.clock)
        for party in self.playing:
            self.net.call(party.seat, party.begin, op, at=now)
        self.net.run()
        self._check()
        if not all(p.done for p in self.playing):
            for party in self.playing:
                if party.owed():
                    blame = party.timeout()
                    assert blame is not None, "a party that owes a message is blamed"
                    raise DeckFault({party.seat: blame})
            raise RuntimeError("the deck stalled with no seat waiting for a message")  # pragma: no cover
        index = len(self.playing[0].ops) - 1
        done = []
        for seat, events in enumerate(self.net.events):
            if seat not in self.gone:
                mine = [e for e in events if isinstance(e, OpDone) and e.index == index]
                done.append(mine[-1])
            events.clear()
        return done

    def drop_out(self, seat: int) -> None:
        """``seat`` drops out (protocol/deck.md §4.6): it publishes its key of every card
        nobody holds, every other seat checks them, and its own cards are set aside; its party
        takes part in nothing after (as a program that ended)."""
        self.run_op(DropOp(seat))
        self.gone.add(seat)

    # -- DeckBackend ------------------------------------------------------------------------------

    def shuffle(self) -> list[int]:
        done = self.run_op(ShuffleOp())
        return list(done[0].handles)

    def coin(self, label: str, bound: int) -> int:
        value = self.run_op(CoinOp(label, bound))[0].value
        assert value is not None, "a coin step ends with its value"
        return value

    def deal(self, to: Mapping[int, int]) -> None:
        self.run_op(DealOp(dict(to)))

    def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]:
        done = self.run_op(RevealOp(tuple(handles), owner))
        faces = dict(done[0].faces)
        if any(dict(d.faces) != faces for d in done):  # pragma: no cover - a bug, not a cheat
            raise RuntimeError("seats decoded a public reveal differently")
        return faces

    def transfer(self, handles: Sequence[int], to: int) -> list[int]:
        done = self.run_op(TransferOp(tuple(handles), to))
        new = list(done[0].handles)
        if any(list(d.handles) != new for d in done):  # pragma: no cover - a bug, not a cheat
            raise RuntimeError("seats numbered a transfer's new handles differently")
        return new

    def prove_claim(self, seat: int, index: int, handles: Sequence[int], sets: Sequence[Sequence[Card]]) -> Any:
        """Seat ``seat``'s proof of a hidden claim at move ``index`` (Party.prove_claim)."""
        return self.parties[seat].prove_claim(index, handles, sets)

    def check_claim(
        self, index: int, seat: int, handles: Sequence[int], sets: Sequence[Sequence[Card]], proof: Any
    ) -> str | None:
        """Why every seat refuses the claim (they decide alike: the first seat still playing
        says it), or None (Party.check_claim)."""
        return self.playing[0].check_claim(index, seat, handles, sets, proof)

    def known(self, seat: int) -> Mapping[int, Card]:
        return self.parties[seat].known

    def open_all(self) -> dict[int, Card]:
        """Reveal every seed and audit the whole game; raises DeckFault naming step and seat.
        Returns the faces the table saw (every card opened to all): all the game's audit reads."""
        done = self.run_op(AuditOp())
        faces = dict(done[0].faces)
        if any(dict(d.faces) != faces for d in done):  # pragma: no cover
            raise RuntimeError("seats audited different faces")
        return faces


def simulation_seeds(seed: Any, index: int, players: int) -> list[bytes]:
    """Seeds derived from a simulation seed: repeatable, and therefore not secret."""
    return [digest("simulation-seed", str(seed), index, seat) for seat in range(players)]


def mental_poker_factory(seed: Any = None, *, workers: int = 1):
    """``factory(game, options, players, game_index) -> MentalPokerDeck``, like
    ``simulate.local_deck(seed)``. ``seed=None``: secret seeds from :mod:`secrets`."""

    def factory(game: Game, options: Mapping[str, Any], players: int, index: int) -> DeckBackend:
        header = json.dumps(
            {"game": game.id, "options": dict(options), "players": players, "index": index},
            sort_keys=True,
            default=str,
        ).encode()
        seeds = None if seed is None else simulation_seeds(seed, index, players)
        return MentalPokerDeck(game.deck(options, players), players, seeds, header=header, workers=workers)

    return factory

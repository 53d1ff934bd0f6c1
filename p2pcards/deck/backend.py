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

import heapq
import json
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import msgpack

from ..cards import Card
from ..engine import DeckBackend
from ..game import Game
from .derive import SEED_BYTES
from .group import digest, multiply_many, threaded_multiply_many
from .party import (
    AuditOp,
    Blame,
    CoinOp,
    DealOp,
    Op,
    OpDone,
    Output,
    Party,
    RevealOp,
    ShuffleOp,
    TransferOp,
)

__all__ = ["DeckFault", "LocalNetwork", "MentalPokerDeck", "mental_poker_factory", "simulation_seeds"]

Tamper = Callable[[int, int, dict[str, Any]], dict[str, Any] | None]
"""``tamper(sender, receiver, message) -> message`` (or None to drop it): for tests of cheaters."""


class DeckFault(RuntimeError):
    """The deck protocol stopped with a verdict. ``blame`` is the one most seats reached;
    ``blames`` maps every seat that reached one to its verdict."""

    def __init__(self, blames: Mapping[int, Blame]):
        votes: dict[tuple[str, int], list[Blame]] = {}
        for b in blames.values():
            votes.setdefault((b.step, b.seat), []).append(b)
        self.blame = max(votes.values(), key=len)[0]
        self.blames = dict(blames)
        super().__init__(str(self.blame))


def _encode(message: dict[str, Any]) -> bytes:
    return msgpack.packb(message, use_bin_type=True)


def _decode(data: bytes) -> dict[str, Any]:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


class LocalNetwork:
    """In-process message queues between parties.

    It also keeps a virtual clock as if each party ran on its own machine on a network with no
    latency: a message is handled at the later of its send time and the moment its receiver is
    free, and takes the measured time of the ``receive`` call. ``critical_path`` is then the
    setup time a real table would see, which ``bench`` reports next to the wall time."""

    def __init__(self, parties: Sequence[Party], tamper: Tamper | None = None):
        self.parties = list(parties)
        self.tamper = tamper
        self.queue: list[tuple[float, int, int, int, bytes]] = []
        self.events: list[list[OpDone | Blame]] = [[] for _ in parties]
        self.clock = [0.0] * len(parties)
        self._seq = 0
        self.messages = 0
        self.bytes = 0

    def call(self, seat: int, method: Callable[..., Output], *args: Any, at: float | None = None) -> None:
        start = max(self.clock[seat], at if at is not None else 0.0)
        began = time.perf_counter()
        output = method(*args)
        self.clock[seat] = start + (time.perf_counter() - began)
        self.events[seat] += output.events
        for send in output.sends:
            targets = range(len(self.parties)) if send.to is None else [send.to]
            for to in targets:
                if to == seat:
                    continue
                message = send.message
                if self.tamper is not None:
                    message = self.tamper(seat, to, message)
                    if message is None:
                        continue
                data = _encode(message)
                self.messages += 1
                self.bytes += len(data)
                self._seq += 1
                heapq.heappush(self.queue, (self.clock[seat], self._seq, seat, to, data))

    def run(self) -> None:
        """Deliver messages until none is left."""
        while self.queue:
            sent_at, _, sender, to, data = heapq.heappop(self.queue)
            self.call(to, self.parties[to].receive, sender, _decode(data), at=sent_at)


_POOLS: dict[int, ThreadPoolExecutor] = {}


def _multiplier(workers: int):
    if workers <= 1:
        return multiply_many
    if workers not in _POOLS:
        _POOLS[workers] = ThreadPoolExecutor(workers, thread_name_prefix="deck-mult")
    return threaded_multiply_many(_POOLS[workers], workers)


class MentalPokerDeck:
    """A DeckBackend whose cards nobody sees: N parties in this process.

    ``full_audit``: "all" (every party recomputes every pass at the end), "one" (party 0 does;
    the others check hashes and the faces they saw: in one process they received byte-identical
    broadcasts, so one full recomputation covers them all), or "none" (hashes and faces only,
    with a full recomputation on any mismatch)."""

    def __init__(
        self,
        cards: Sequence[Card],
        players: int,
        seeds: Sequence[bytes] | None = None,
        *,
        header: bytes = b"",
        workers: int = 1,
        full_audit: str = "one",
        party_factory: Callable[..., Party] = Party,
        tamper: Tamper | None = None,
    ):
        seeds = list(seeds) if seeds is not None else [secrets.token_bytes(SEED_BYTES) for _ in range(players)]
        if len(seeds) != players:
            raise ValueError("one seed per seat")
        multiply = _multiplier(workers)
        self.players = players
        self.n = len(cards)
        self.parties = [
            party_factory(
                seat, players, header, cards, seeds[seat], multiply_many=multiply,
                full_audit=full_audit == "all" or (full_audit == "one" and seat == 0),
            )
            for seat in range(players)
        ]
        self.net = LocalNetwork(self.parties, tamper)
        for party in self.parties:
            self.net.call(party.seat, party.start)
        self.net.run()
        self._check()

    # -- running one operation at every seat ---------------------------------------------------

    def _check(self) -> None:
        blames = {p.seat: p.blame for p in self.parties if p.blame is not None}
        if blames:
            raise DeckFault(blames)

    def run_op(self, op: Op) -> list[OpDone]:
        """Begin ``op`` at every seat, deliver messages until all are done; one OpDone per seat.
        If the queues run dry first, the driver's step timeout fires at a waiting seat."""
        now = max(self.net.clock)
        for party in self.parties:
            self.net.call(party.seat, party.begin, op, at=now)
        self.net.run()
        self._check()
        if not all(p.done for p in self.parties):
            for party in self.parties:
                if party.owed():
                    blame = party.timeout()
                    raise DeckFault({party.seat: blame})
            raise RuntimeError("the deck stalled with no seat waiting for a message")  # pragma: no cover
        index = len(self.parties[0].ops) - 1
        done = []
        for seat, events in enumerate(self.net.events):
            mine = [e for e in events if isinstance(e, OpDone) and e.index == index]
            done.append(mine[-1])
            events.clear()
        return done

    # -- DeckBackend ------------------------------------------------------------------------------

    def shuffle(self) -> list[int]:
        done = self.run_op(ShuffleOp())
        return list(done[0].handles)

    def coin(self, label: str, bound: int) -> int:
        done = self.run_op(CoinOp(label, bound))
        return done[0].value

    def deal(self, to: Mapping[int, int]) -> None:
        self.run_op(DealOp(dict(to)))

    def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]:
        done = self.run_op(RevealOp(tuple(handles), owner))
        faces = dict(done[0].faces)
        if any(dict(d.faces) != faces for d in done):  # pragma: no cover - a bug, not a cheat
            raise RuntimeError("seats decoded a public reveal differently")
        return faces

    def transfer(self, handles: Sequence[int], to: int) -> None:
        self.run_op(TransferOp(tuple(handles), to))

    def known(self, seat: int) -> Mapping[int, Card]:
        return self.parties[seat].known

    def open_all(self) -> dict[int, Card]:
        """Reveal every seed and audit the whole game; raises DeckFault naming step and seat."""
        done = self.run_op(AuditOp())
        faces = dict(done[0].faces)
        if any(dict(d.faces) != faces for d in done):  # pragma: no cover
            raise RuntimeError("seats audited different faces")
        return faces


def simulation_seeds(seed: Any, index: int, players: int) -> list[bytes]:
    """Seeds derived from a simulation seed: repeatable, and therefore not secret."""
    return [digest("simulation-seed", str(seed), index, seat) for seat in range(players)]


def mental_poker_factory(seed: Any = None, *, workers: int = 1, full_audit: str = "one"):
    """``factory(game, options, players, game_index) -> MentalPokerDeck``, like
    ``simulate.local_deck(seed)``. ``seed=None``: secret seeds from :mod:`secrets`."""

    def factory(game: Game, options: Mapping[str, Any], players: int, index: int) -> DeckBackend:
        header = json.dumps(
            {"game": game.id, "options": dict(options), "players": players, "index": index},
            sort_keys=True, default=str,
        ).encode()
        seeds = None if seed is None else simulation_seeds(seed, index, players)
        return MentalPokerDeck(game.deck(options, players), players, seeds, header=header,
                               workers=workers, full_audit=full_audit)

    return factory

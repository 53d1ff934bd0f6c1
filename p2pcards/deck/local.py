"""In-process message queues between parties (no engine, no IO): used by the backend and bench."""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import msgpack

from .group import multiply_many, threaded_multiply_many
from .party import Blame, OpDone, Output, Party

__all__ = ["DeckFault", "LocalNetwork", "Tamper", "multiplier"]

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

    It also keeps a virtual clock as if each party ran on its own machine: a message is handled
    at the later of its arrival (its send time, plus ``hop``) and the moment its receiver is
    free, and takes the measured time of the ``receive`` call. ``critical_path`` is then the
    setup time a real table would see, which ``bench`` reports next to the wall time.

    ``hop``: seconds from a message's sending to its delivery, for the parts of a real hop no
    party call includes (the session layer's signing and checking, the wire); 0 is instant."""

    def __init__(self, parties: Sequence[Party], tamper: Tamper | None = None, *, hop: float = 0.0):
        self.parties = list(parties)
        self.tamper = tamper
        self.hop = hop
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
            plain = None  # the message encoded once for every untampered copy
            for to in targets:
                if to == seat:
                    continue
                message = send.message
                if self.tamper is not None:
                    tampered = self.tamper(seat, to, message)
                    if tampered is None:
                        continue
                    message = tampered
                if message is send.message:
                    plain = data = plain or _encode(message)
                else:
                    data = _encode(message)
                self.messages += 1
                self.bytes += len(data)
                self._seq += 1
                heapq.heappush(self.queue, (self.clock[seat] + self.hop, self._seq, seat, to, data))
        if self.parties[seat].deferred:  # its messages are on their way: now its work that waited
            self.call(seat, self.parties[seat].proceed)

    def run(self) -> None:
        """Deliver messages until none is left."""
        while self.queue:
            sent_at, _, sender, to, data = heapq.heappop(self.queue)
            self.call(to, self.parties[to].receive, sender, _decode(data), at=sent_at)


_POOLS: dict[int, ThreadPoolExecutor] = {}


def multiplier(workers: int, min_points: int | None = None):
    """A MultiplyMany over ``workers`` threads (a pool kept per count), splitting from
    ``min_points`` points (default: group.PARALLEL_MIN_POINTS, for tables of several peer
    processes on one machine)."""
    if workers <= 1:
        return multiply_many
    if workers not in _POOLS:
        _POOLS[workers] = ThreadPoolExecutor(workers, thread_name_prefix="deck-mult")
    if min_points is None:
        return threaded_multiply_many(_POOLS[workers], workers)
    return threaded_multiply_many(_POOLS[workers], workers, min_points)

"""What the game's waits (``RemoteSeat.choose``, ``NetworkDeck._run``) need of the peer that
runs them, as a narrow interface, and the carrying out of the referee's effects
(p2pcards/table/referee.py) against it.

The waits depend on this module, not on :mod:`p2pcards.net.peer`: the peer builds its seats and
its deck, and they reach back only through :class:`WaitingPeer` (no import cycle)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import trio

from ..deck.party import Party, Send
from ..session import TableSession
from ..table.header import TableHeader
from ..table.protocol import TableAborted, TableProtocol
from ..table.referee import AskAround, Effect, End, Links, NoteAway, StateAbsent, Timings, Wait, WaitingOn
from ..table.stall import Statements
from ..wire.identity import Identity
from ..wire.messages import Entry
from .stallclock import StallClock

__all__ = ["WaitingPeer", "carry_out", "open_wait"]


class WaitingPeer(Protocol):
    """The part of a :class:`~p2pcards.net.peer.Peer` that its seats and its deck use."""

    seat: int
    identity: Identity
    header: TableHeader
    protocol: TableProtocol
    clock: StallClock
    session: TableSession
    send_lock: trio.Lock
    turns: int
    timings: Timings

    @property
    def aborted(self) -> TableAborted | None: ...

    def links(self) -> Links: ...

    def note_away(self, seat: int) -> None: ...

    def waiting_on(self, seats: tuple[tuple[int, str], ...]) -> None: ...

    def abort(self, exc: TableAborted) -> None: ...

    def progress(self, party: Party) -> None: ...

    async def ask_around(self, waiting_on: set[int], *, halt: bool = True) -> None: ...

    def stated_absent(self, turn: int, seat: int) -> bool: ...

    def missing_statements(self, turn: int, seat: int) -> set[int]: ...

    def settling(self, seats: set[int]) -> set[int]: ...

    def awaited_statements(self, seats: set[int]) -> dict[int, Statements]: ...

    async def state_absent(self, turn: int, seat: int) -> None: ...

    async def publish(self, kind: str, body: dict[str, Any]) -> Entry: ...

    async def publish_deck(self, sends: Sequence[Send]) -> None: ...

    async def replay_void_action(self, turn: int) -> None: ...

    def logged_action(self) -> Any: ...

    async def passed_for_us(self, turn: int) -> None: ...


def open_wait(peer: WaitingPeer, phase: str) -> Wait:
    """A wait of ``phase`` (``"deck"`` or ``"turn"``) from now."""
    return Wait(peer.timings, [s.name for s in peer.header.seats], phase, peer.clock.now())


async def carry_out(peer: WaitingPeer, effects: Sequence[Effect]) -> None:
    """Do what the referee asks, in order; an :class:`End` raises its verdict."""
    for effect in effects:
        if isinstance(effect, NoteAway):
            peer.note_away(effect.seat)
        elif isinstance(effect, AskAround):
            await peer.ask_around(set(effect.seats), halt=effect.halt)
        elif isinstance(effect, WaitingOn):
            peer.waiting_on(effect.seats)
        elif isinstance(effect, StateAbsent):
            await peer.state_absent(effect.turn, effect.seat)
        elif isinstance(effect, End):
            raise effect.aborted

"""The seat's side of spectators: people who watch a table without a seat (protocol/table.md
section 10).

A spectator dials any seat's listener, does the handshake and sends ``watch`` instead of
``mesh``. The seat answers ``watching`` with the table header, then sends it every public log
entry (every entry whose body is not a sealed private message: :func:`recipients`) it holds,
and each one it accepts or signs from then on. A private entry is never sent while the game
runs. Once this seat's game is over (the end record written), it sends the private entries too,
whose boxes only their recipients can open (the seeds revealed at the end already show every
card), and the end record, so that the spectator holds the whole transcript and can verify it;
then it closes the connection.

A spectator never slows the seat: entries go into a bounded queue per spectator, and one whose
queue is full (it reads too slowly) is dropped; its own task does the sending, with a short
send timeout. Nothing a spectator sends after ``watch`` is read: the seat never acts on it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import trio

from ..wire.framing import frame_of
from ..wire.log import Log
from ..wire.messages import Bye, Entry
from ..wire.sealed import recipients
from ..wire.transcript import TranscriptEnd
from .transport import Connection, ConnectionClosed

__all__ = ["MAX_SPECTATORS", "QUEUE_ENTRIES", "SEND_SECONDS", "Spectators", "is_public"]

#: At most this many spectators per seat at once; one more is refused with a ``bye``.
MAX_SPECTATORS = 16
#: Entries waiting to go to one spectator: one more drops it (it does not read fast enough).
QUEUE_ENTRIES = 2048
#: A frame a spectator has not taken this long after we began writing it drops it.
SEND_SECONDS = 3.0
#: At the end, how long the seat waits for its spectators to take the rest of the log.
FINISH_SECONDS = 3.0


def is_public(entry: Entry) -> bool:
    """An entry a spectator may get during the game: not a sealed private message."""
    return not recipients(entry.body)


@dataclass
class _Watcher:
    conn: Connection
    name: str
    send: trio.MemorySendChannel[Any]
    receive: trio.MemoryReceiveChannel[Any]
    sent: set[tuple[int, int]] = field(default_factory=set)
    done: trio.Event = field(default_factory=trio.Event)


class Spectators:
    """Every spectator of one seat."""

    def __init__(self, header_wire: Any, log: Callable[[], Log], on_change: Any = None):
        self.header_wire = header_wire
        self.log = log
        self.watchers: list[_Watcher] = []
        self.finished = False
        #: Called with the spectators' names each time one comes or goes.
        self.on_change = on_change
        #: Spectators dropped because they did not keep up (a full queue, a send that timed
        #: out, or too slow to take the end).
        self.dropped = 0

    @property
    def names(self) -> list[str]:
        return [w.name for w in self.watchers]

    def offer(self, entries: Iterable[Entry]) -> None:
        """Entries just signed or accepted: queue the public ones for every spectator (never
        waits; a spectator whose queue is full is dropped)."""
        if not self.watchers or self.finished:
            return  # the common case: nothing to check
        public = [e for e in entries if is_public(e)]
        for watcher in list(self.watchers):
            for entry in public:
                if not self._queue(watcher, ("entry", entry)):
                    break

    def _queue(self, watcher: _Watcher, item: Any) -> bool:
        try:
            watcher.send.send_nowait(item)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            self._drop(watcher, "fell behind")
            return False
        return True

    def _drop(self, watcher: _Watcher, why: str) -> None:
        if watcher in self.watchers:
            self.watchers.remove(watcher)
            watcher.conn.failure = watcher.conn.failure or f"spectator {watcher.name} {why}"
            watcher.conn._close_now()
            watcher.done.set()
            self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self.names)

    async def serve(self, conn: Connection, name: str) -> None:
        """Serve one spectator whose ``watch`` came on ``conn`` until the end (or it goes)."""
        if self.finished or len(self.watchers) >= MAX_SPECTATORS:
            try:
                await conn.send(Bye("this table takes no more spectators").to_wire())
            except ConnectionClosed:
                pass
            await conn.aclose()
            return
        conn.send_timeout = SEND_SECONDS
        send, receive = trio.open_memory_channel[Any](QUEUE_ENTRIES)
        watcher = _Watcher(conn, name, send, receive)
        # What the log holds now goes first; what comes meanwhile is queued behind it (and
        # skipped if it was in the snapshot).
        snapshot = [e for e in self.log().canonical() if is_public(e)]
        self.watchers.append(watcher)
        self._changed()
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._ignore_input, watcher, nursery.cancel_scope)
                try:  # caught inside the nursery: trio would wrap it in an ExceptionGroup
                    await self._send_all(watcher, snapshot)
                except ConnectionClosed:
                    pass
                nursery.cancel_scope.cancel()
        finally:
            if watcher in self.watchers:
                self.watchers.remove(watcher)
                self._changed()
            if conn.failure is not None:  # we cut it: it did not keep up
                self.dropped += 1
            watcher.done.set()
            await conn.aclose()

    async def _send_all(self, watcher: _Watcher, snapshot: list[Entry]) -> None:
        """The header, the ``snapshot``, then what is queued, until the end record."""
        await watcher.conn.send({"type": "lobby", "op": "watching", "header": self.header_wire})
        for entry in snapshot:
            await self._send_entry(watcher, entry)
        async for kind, item in watcher.receive:
            if kind == "entry":
                await self._send_entry(watcher, item)
            elif kind == "rest":
                for entry in item:
                    await self._send_entry(watcher, entry)
            elif kind == "end":
                await watcher.conn.send({"type": "lobby", "op": "ended", "end": item})
                return

    async def _send_entry(self, watcher: _Watcher, entry: Entry) -> None:
        key = (entry.sender, entry.seq)
        if key in watcher.sent:
            return
        watcher.sent.add(key)
        await watcher.conn.send_frame(frame_of(entry.encoded()))

    async def _ignore_input(self, watcher: _Watcher, scope: trio.CancelScope) -> None:
        """Read what the spectator sends, and drop it: a spectator cannot affect the game. Its
        end (or a malformed frame) ends the spectator."""
        try:
            while True:
                await watcher.conn.receive()
        except Exception:  # closed, or bytes that are no frame: either way it is gone
            scope.cancel()

    async def finish(self, end: TranscriptEnd, entries: Iterable[Entry]) -> None:
        """Our game is over: send every spectator the rest of the log (``entries``: what our
        transcript holds, private entries included) and the end record, then stop; waits at
        most :data:`FINISH_SECONDS` for them to take it."""
        if self.finished:
            return
        rest = list(entries)
        for watcher in list(self.watchers):
            if self._queue(watcher, ("rest", rest)):
                self._queue(watcher, ("end", end.to_wire()))
        self.finished = True
        with trio.move_on_after(FINISH_SECONDS):
            for watcher in list(self.watchers):
                await watcher.done.wait()
        for watcher in list(self.watchers):
            self._drop(watcher, "was too slow to take the end of the game")

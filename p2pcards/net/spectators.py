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

Every player sees who watches: a seat tells the other seats its spectators' names in an
unsigned ``watchers`` notice each time one comes or goes (:meth:`Spectators.announce`), and
:class:`OtherWatchers` turns what the other seats claim into lines for our player: untrusted
text, escaped, capped in count and length, at most :data:`NOTICE_LINES` lines per seat.

At a table whose header lets spectators chat (``spectator_chat``), the one thing a seat reads
from its spectator is a chat line (``{"type": "lobby", "op": "say", "text": ...}``): at most
one a :data:`SAY_SECONDS`, :data:`SAY_LINES` in all, 200 printable characters. The seat shows
it to its player as a spectator's, relays it to the other seats (an unsigned
``spectator-says`` notice, never a log entry) and to its own spectators (``said``); the
others show what they are relayed under the same limits (:class:`RelayedChat`). Whatever a
spectator sends is read at :data:`INPUT_BYTES_PER_SECOND` at most, chat or not.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from ..text import printable
from ..wire.framing import frame_of
from ..wire.log import Log
from ..wire.messages import MAX_SPECTATOR_CHAT, MAX_WATCHER_NAME, MAX_WATCHERS, Bye, Entry, SpectatorSays, Watchers
from ..wire.schema import Record, Str, Text
from ..wire.sealed import recipients
from ..wire.spill import SpillError
from ..wire.transcript import TranscriptEnd
from .transport import Connection, ConnectionClosed

__all__ = [
    "MAX_SPECTATORS",
    "NOTICE_LINES",
    "QUEUE_ENTRIES",
    "SEND_SECONDS",
    "OtherWatchers",
    "RelayedChat",
    "Spectators",
    "is_public",
]

#: At most this many spectators per seat at once; one more is refused with a ``bye``.
MAX_SPECTATORS = 16
#: Entries waiting to go to one spectator: one more drops it (it does not read fast enough).
QUEUE_ENTRIES = 2048
#: A frame a spectator has not taken this long after we began writing it drops it.
SEND_SECONDS = 3.0
#: At the end, how long the seat waits for its spectators to take the rest of the log.
FINISH_SECONDS = 3.0
#: A spectator's chat: at most one line per this many seconds, and this many lines in all
#: (more are dropped); the same bounds for lines another seat relays.
SAY_SECONDS = 1.0
SAY_LINES = 100
#: What the seat reads of a spectator's input on average, in bytes a second: a chat line a
#: second needs a few hundred. One that sends more waits, its bytes left in its socket, not
#: decoded (decoding a flood at the network's speed would take the players' CPU).
INPUT_BYTES_PER_SECOND = 16 << 10
#: Notices waiting to go to the other seats (more are dropped: they are only for people).
NOTICES = 64
_SAY = Record({"type": Str(16), "op": Str(16), "text": Text(MAX_SPECTATOR_CHAT, min_len=1)})

#: Lines about another seat's spectators shown to our player, at most, per seat and game (a
#: seat that floods ``watchers`` notices fills no log).
NOTICE_LINES = 64


def is_public(entry: Entry) -> bool:
    """An entry a spectator may get during the game: not a sealed private message."""
    return not recipients(entry.body)


@dataclass
class _Watcher:
    conn: Connection
    name: str
    send: trio.MemorySendChannel[Any]
    receive: trio.MemoryReceiveChannel[Any]
    #: Per seat, a byte per entry: 1 once it went to this spectator (a set of pairs cost ~100
    #: bytes an entry, for each of up to MAX_SPECTATORS spectators of a long match).
    sent: dict[int, bytearray] = field(default_factory=dict)

    def had(self, seat: int, seq: int) -> bool:
        flags = self.sent.get(seat)
        return flags is not None and seq < len(flags) and flags[seq] == 1

    def mark(self, seat: int, seq: int) -> None:
        flags = self.sent.setdefault(seat, bytearray())
        if seq >= len(flags):
            flags.extend(bytes(seq + 1 - len(flags)))
        flags[seq] = 1

    done: trio.Event = field(default_factory=trio.Event)
    said: int = 0  # chat lines taken from it
    last_said: float = -math.inf


def _public_entries(log: Log, counts: list[int]) -> Iterator[Entry]:
    """The public entries among the first ``counts[seat]`` of each seat's, in canonical
    order, read as they are asked for (:class:`~p2pcards.wire.spill.SpillError` then)."""
    for seat, count in enumerate(counts):
        for seq in range(count):
            if seq >= log.next_seq(seat):
                break  # our own last entry, taken back meanwhile (it could not be journaled)
            entry = log.entry(seat, seq)
            if is_public(entry):
                yield entry


class Spectators:
    """Every spectator of one seat."""

    def __init__(
        self,
        header_wire: Any,
        log: Callable[[], Log],
        on_change: Any = None,
        *,
        chat: bool = False,
        on_say: Callable[[str, str], None] | None = None,
    ):
        self.header_wire = header_wire
        #: The header lets spectators chat: ``on_say(name, text)`` gets each line one says.
        self.chat = chat
        self.on_say = on_say
        self.log = log
        self.watchers: list[_Watcher] = []
        self.finished = False
        #: Called with the spectators' names each time one comes or goes.
        self.on_change = on_change
        #: Spectators dropped because they did not keep up (a full queue, a send that timed
        #: out, or too slow to take the end).
        self.dropped = 0
        self._notices, self._to_send = trio.open_memory_channel[Any](NOTICES)

    async def announce(self, send: Callable[[Watchers | SpectatorSays], Any]) -> None:
        """Run alongside the game: ``send`` the other seats our spectators' list each time it
        changes, and our spectators' chat lines (``send`` awaits; never the game)."""
        async for notice in self._to_send:
            if notice is None:  # the list changed: the list as it is now
                notice = Watchers(tuple(printable(n)[:MAX_WATCHER_NAME] for n in self.names[:MAX_WATCHERS]))
            await send(notice)

    def _notice(self, notice: Any) -> None:
        try:
            self._notices.send_nowait(notice)
        except trio.WouldBlock:
            pass  # only for people: the next list says who watches

    def tell(self, name: str, text: str, skip: _Watcher | None = None) -> None:
        """A spectator's chat line (ours or relayed by another seat): to our spectators (but
        ``skip``, who said it)."""
        for watcher in list(self.watchers):
            if watcher is not skip:
                self._queue(watcher, ("said", {"type": "lobby", "op": "said", "name": name, "text": text}))

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
        self._notice(None)
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
        # What the log holds now goes first, read (the older entries from the log's spill,
        # issue 23) one by one as the spectator takes them: a join holds no copy of the log
        # and reads nothing it does not send. What comes meanwhile is queued behind it (and
        # skipped if it was in the snapshot).
        log = self.log()
        snapshot = _public_entries(log, [log.next_seq(s) for s in range(len(log.roster))])
        send, receive = trio.open_memory_channel[Any](QUEUE_ENTRIES)
        watcher = _Watcher(conn, name, send, receive)
        self.watchers.append(watcher)
        self._changed()
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._ignore_input, watcher, nursery.cancel_scope)
                try:  # caught inside the nursery: trio would wrap it in an ExceptionGroup
                    await self._send_all(watcher, snapshot)
                except ConnectionClosed:
                    pass
                except SpillError:  # our log's spill file cannot give back its older entries
                    try:
                        await conn.send(Bye("this seat cannot read back the game so far").to_wire())
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

    async def _send_all(self, watcher: _Watcher, snapshot: Iterable[Entry]) -> None:
        """The header, the ``snapshot``, then what is queued, until the end record."""
        await watcher.conn.send({"type": "lobby", "op": "watching", "header": self.header_wire})
        for entry in snapshot:
            await self._send_entry(watcher, entry)
        async for kind, item in watcher.receive:
            if kind == "entry":
                await self._send_entry(watcher, item)
            elif kind == "rest":
                log = self.log()
                for seat, count in enumerate(item):
                    for seq in range(min(count, log.next_seq(seat))):
                        if not watcher.had(seat, seq):  # (none read that it had)
                            await self._send_entry(watcher, log.entry(seat, seq))
            elif kind == "said":
                await watcher.conn.send(item)
            elif kind == "end":
                await watcher.conn.send({"type": "lobby", "op": "ended", "end": item})
                return

    async def _send_entry(self, watcher: _Watcher, entry: Entry) -> None:
        if watcher.had(entry.sender, entry.seq):
            return
        watcher.mark(entry.sender, entry.seq)
        await watcher.conn.send_frame(frame_of(entry.encoded()))

    async def _ignore_input(self, watcher: _Watcher, scope: trio.CancelScope) -> None:
        """Read what the spectator sends, and drop it: a spectator cannot affect the game (a
        chat line, where the table allows it, is only shown and relayed). Its end (or a
        malformed frame) ends the spectator."""
        conn = watcher.conn
        try:
            read = conn.bytes_received
            while True:
                message = await conn.receive()
                if self.chat and not self.finished:
                    self._heard(watcher, message)
                await trio.sleep((conn.bytes_received - read) / INPUT_BYTES_PER_SECOND)
                read = conn.bytes_received
        except Exception:  # closed, or bytes that are no frame: either way it is gone
            scope.cancel()

    def _heard(self, watcher: _Watcher, message: Any) -> None:
        """A chat line from ``watcher``, within its bounds; anything else is dropped."""
        if not (isinstance(message, dict) and message.get("type") == "lobby" and message.get("op") == "say"):
            return
        try:
            _SAY.check(message)
        except ValueError:
            return
        now = trio.current_time()
        if watcher.said >= SAY_LINES or now - watcher.last_said < SAY_SECONDS:
            return
        watcher.said, watcher.last_said = watcher.said + 1, now
        text, name = " ".join(message["text"].split()), printable(watcher.name)[:MAX_WATCHER_NAME]
        if not text:
            return
        self._notice(SpectatorSays(name, text))
        self.tell(name, text, skip=watcher)
        if self.on_say is not None:
            self.on_say(name, text)

    async def finish(self, end: TranscriptEnd, counts: Sequence[int]) -> None:
        """Our game is over: send every spectator the rest of the log (the first
        ``counts[seat]`` entries of each seat's chain: what our transcript holds, private
        entries included; each spectator gets those it has not had, read from the log, the
        older ones from its spill, as it takes them) and the end record, then stop; waits at
        most :data:`FINISH_SECONDS` for them to take it."""
        if self.finished:
            return
        rest = tuple(counts)
        for watcher in list(self.watchers):
            if self._queue(watcher, ("rest", rest)):
                self._queue(watcher, ("end", end.to_wire()))
        self.finished = True
        with trio.move_on_after(FINISH_SECONDS):
            for watcher in list(self.watchers):
                await watcher.done.wait()
        for watcher in list(self.watchers):
            self._drop(watcher, "was too slow to take the end of the game")


class OtherWatchers:
    """Who watches through the other seats, as they say (``watchers`` notices): lines for our
    player. A notice is a seat's claim, trusted for nothing: names are escaped and cut, lists
    capped, and each seat gets at most :data:`NOTICE_LINES` lines per game."""

    def __init__(self, seat_names: list[str]):
        self.seat_names = seat_names
        self.by_seat: dict[int, tuple[str, ...]] = {}
        self._lines: dict[int, int] = {}

    def update(self, via: int, names: Iterable[str]) -> list[str]:
        """Seat ``via``'s list now: the lines to show (who came, who went)."""
        now = tuple(dict.fromkeys(printable(n)[:MAX_WATCHER_NAME] for n in names))[:MAX_WATCHERS]
        before = self.by_seat.get(via, ())
        self.by_seat[via] = now
        seat = self.seat_names[via] if 0 <= via < len(self.seat_names) else f"seat {via}"
        lines = [f"{n} is watching the table (through {seat})" for n in now if n not in before]
        lines += [f"{n} stopped watching (through {seat})" for n in before if n not in now]
        return self.budget(via, lines)

    def budget(self, via: int, lines: list[str]) -> list[str]:
        """As many of ``lines`` about seat ``via``'s spectators as its :data:`NOTICE_LINES`
        leave (our own seat's too: a spectator that comes and goes under new names floods no
        screen)."""
        room = max(0, NOTICE_LINES - self._lines.get(via, 0))
        self._lines[via] = self._lines.get(via, 0) + min(room, len(lines))
        return lines[:room]

    def names(self) -> list[str]:
        """Everyone the other seats say watches, each once."""
        return list(dict.fromkeys(n for names in self.by_seat.values() for n in names))


class RelayedChat:
    """Spectators' chat lines other seats relay: shown within :data:`SAY_SECONDS` and
    :data:`SAY_LINES` per relaying seat (a seat that floods them fills no screen)."""

    def __init__(self) -> None:
        self._lines: dict[int, int] = {}
        self._last: dict[int, float] = {}

    def take(self, via: int, now: float) -> bool:
        if self._lines.get(via, 0) >= SAY_LINES or now - self._last.get(via, -math.inf) < SAY_SECONDS / 2:
            return False
        self._lines[via] = self._lines.get(via, 0) + 1
        self._last[via] = now
        return True

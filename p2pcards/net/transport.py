"""Framed msgpack messages over trio TCP streams.

A :class:`Connection` sends and receives whole messages (see :mod:`p2pcards.wire.framing`).
Everything a peer sends is untrusted: a malformed or oversized frame raises
:class:`~p2pcards.wire.framing.FrameError`, after which the connection is unusable and is closed.
"""

from __future__ import annotations

import functools
import math
import os
import select
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import trio

from ..table.referee import PING_SECONDS, QUIET_SECONDS, SILENCE_SECONDS
from ..wire.framing import DEFAULT_LIMITS, FrameDecoder, FrameError, Limits, encode_frame
from ..wire.messages import Ping

__all__ = [
    "PING_SECONDS",
    "QUIET_SECONDS",
    "SILENCE_SECONDS",
    "Connection",
    "ConnectionClosed",
    "FrameError",
    "broadcast",
    "connect",
    "shielded",
]

RECEIVE_CHUNK = 65_536
#: A frame the other side has not taken this long after we began writing it: the connection is
#: closed (a peer that stops reading would otherwise hold every sender to it, and whatever
#: waits on them, forever). Honest peers read all the time; their buffers never fill this long.
SEND_SECONDS = 10.0
#: The longest a send that must not be cut off by a cancellation (an entry begun, a stop, a
#: seed) may take: shielded, but never forever. Longer than a connection's send timeout: a peer
#: that does not read is cut off by its own connection's timeout (which says so), not by this
#: deadline (issue 29: when it was the same, the shield's deadline could fire first and cut the
#: whole send, leaving a signed entry of ours unsent to the seats that do read).
SHIELD_SECONDS = 2 * SEND_SECONDS

# Keepalive (Connection.keep_alive, on every seat-to-seat connection of a running table). A
# link that silently stops carrying packets (a Wi-Fi drop: no FIN, no RST) is otherwise noticed
# only by TCP's retransmission timeout, many minutes later, and the seat behind it never
# becomes "away": nobody's grace period starts, and a deck or turn timeout names it instead.
# The seconds (PING_SECONDS: a ping on a connection quiet this long; SILENCE_SECONDS: nothing
# from the other side this long closes the link as cut; QUIET_SECONDS: a timeout on a seat whose
# link is this quiet waits for the keepalive's verdict) are the referee's (table/referee.py),
# which owns every time the table waits by.
PING_FRAME = encode_frame(Ping().to_wire())


def shielded() -> trio.CancelScope:
    """A scope that a cancellation from outside does not cut, bounded by SHIELD_SECONDS."""
    return trio.CancelScope(shield=True, deadline=trio.current_time() + SHIELD_SECONDS)


class ConnectionClosed(Exception):
    """The other side closed the connection or it broke."""


class Connection:
    def __init__(self, stream: trio.abc.Stream, label: str = "peer", limits: Limits = DEFAULT_LIMITS):
        self.stream = stream
        self.label = label
        self.limits = limits
        self._decoder = FrameDecoder(limits)
        self._ready: deque[Any] = deque()
        # (Not a Lock, which only the task that took it may release: a broadcast begins a frame
        # in its caller's task and finishes it, when the socket was full, in a task of its own.)
        self._send_lock = trio.Semaphore(1)
        self.closed = False
        self.bytes_sent = 0
        self.bytes_received = 0
        self.send_timeout = SEND_SECONDS
        #: Why we closed the connection ourselves (the other side stopped reading, or nothing
        #: came from it for SILENCE_SECONDS), if we did.
        self.failure: str | None = None
        #: We closed it because the link went silent (a cut: nobody's fault we can show),
        #: not because a peer that still talks stopped reading.
        self.silent = False
        #: trio time of the last bytes received and of the last frame sent (keep_alive).
        self.last_received: float | None = None
        self.last_sent = -float("inf")
        self._keeping_alive = False
        #: Set once the last broadcast that took its turn on this connection is done with it.
        self._last_turn: trio.Event | None = None

    @property
    def remote(self) -> str:
        try:
            host, port, *_ = self.stream.socket.getpeername()  # type: ignore[attr-defined]  # duck-typed: only socket streams have it
            return f"{host}:{port}"
        except (AttributeError, OSError):
            return self.label

    def local_address(self) -> str:
        """Our own IP address on this connection."""
        return self.stream.socket.getsockname()[0]  # type: ignore[attr-defined]  # a socket stream here

    async def send(self, message: Any) -> None:
        await self.send_frame(encode_frame(message, self.limits))

    async def send_frame(self, frame: bytes) -> None:
        """Send an already encoded frame (one message going to several peers is encoded once).

        When nothing else is being sent on this connection, the frame is written straight to
        the socket, without yielding to other tasks: an entry going to every peer then leaves
        for all of them at once. (Through ``send_all`` each send ends in a checkpoint, and the
        frame for the next peer waited while this peer's game loop went on with the next deck
        step, for a millisecond or more.) The rest of a frame the socket did not take at once
        goes through ``send_all``, still under the lock, so frames never interleave. A frame
        the other side does not take within :attr:`send_timeout` seconds closes the connection
        (:attr:`failure` says so) and raises :class:`ConnectionClosed`, as a closed one does."""
        # Its turn is taken now: frames go out in the order of the calls, a broadcast's too
        # (whose rest may still wait for room in the socket, in a task of its own).
        before, ours = _take_turn(self)
        try:
            if before is not None:
                await before.wait()
            await self._send_now(frame)
        finally:
            ours.set()

    async def _send_now(self, frame: bytes) -> None:
        """:meth:`send_frame` once its turn has come."""
        written = self._begin_now(frame)
        if written is None:
            await self._send_lock.acquire()
            written = 0
        await self._finish(frame, written)

    def _begin_now(self, frame: bytes) -> int | None:
        """Without waiting: take the send lock if it is free and write what the socket takes
        of ``frame`` right now (nothing once the connection failed); ``None`` if another send
        holds the lock. Then :meth:`_finish` must follow: it sends the rest and releases it."""
        try:
            self._send_lock.acquire_nowait()
        except trio.WouldBlock:
            return None
        return 0 if self.failure else self._write_now(frame)

    async def _finish(self, frame: bytes, written: int) -> None:
        """Under the send lock, which it releases: the rest of ``frame`` after the ``written``
        bytes already out (without yielding when there is none)."""
        try:
            # Only a connection we cut ourselves is refused here: ``closed`` also marks one whose
            # reader has stopped while the socket is still open (a goodbye may still go out).
            if self.failure is not None:
                raise ConnectionClosed(self.failure)
            if written < len(frame):
                try:
                    with trio.move_on_after(self.send_timeout) as scope:
                        await self.stream.send_all(memoryview(frame)[written:])
                except trio.Cancelled:
                    # Cut off from outside with part of a frame perhaps out: the stream cannot
                    # be used again (the next frame would reach the other side as garbage).
                    # Our own doing, not the other side's: closed as a cut link is (``silent``:
                    # nobody is named for it; the seat is away and may come back).
                    self.silent = True
                    self.failure = f"our send to {self.label} was cut off"
                    self._close_now()
                    raise
                if scope.cancelled_caught:
                    # Part of a frame may be out: the stream cannot be used again.
                    if self.quiet_for() >= QUIET_SECONDS:  # nothing comes either: the link is cut
                        self.silent = True
                        self.failure = f"the link to {self.label} went silent"
                    else:
                        self.failure = f"{self.label} did not read what we sent for {self.send_timeout:g} s"
                    self._close_now()
                    raise ConnectionClosed(self.failure)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            self.closed = True
            raise ConnectionClosed(f"{self.label}: {exc}") from None
        finally:
            self._send_lock.release()
        self.bytes_sent += len(frame)
        self.last_sent = trio.current_time()

    def _close_now(self) -> None:
        """Close without waiting: a task reading this connection gets ConnectionClosed."""
        self.closed = True
        try:
            # trio wakes up any task waiting on the socket; not every stream has one
            self.stream.socket.close()  # type: ignore[attr-defined]
        except (AttributeError, OSError):
            pass

    def _write_now(self, frame: bytes) -> int:
        """Write what the (non-blocking) socket takes right now; 0 when it takes nothing or
        this is not a socket stream (``send_all`` then does it all, errors included)."""
        try:
            fd = self.stream.socket.fileno()  # type: ignore[attr-defined]  # duck-typed: only socket streams have it
            return os.write(fd, frame) if fd >= 0 else 0
        except (AttributeError, OSError):
            return 0

    async def receive(self) -> Any:
        """The next message; raises :class:`ConnectionClosed` at the end of the stream and
        :class:`FrameError` on bytes that are not a valid frame."""
        while not self._ready:
            try:
                data = await self.stream.receive_some(RECEIVE_CHUNK)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                self.closed = True
                raise ConnectionClosed(f"{self.label}: {exc}") from None
            if not data:
                self.closed = True
                self._decoder.feed_eof()
                raise ConnectionClosed(f"{self.label} closed the connection")
            self.bytes_received += len(data)
            self.last_received = trio.current_time()
            self._ready.extend(self._decoder.feed(data))
        return self._ready.popleft()

    def quiet_for(self) -> float:
        """Seconds since anything came on this connection, while :meth:`keep_alive` runs
        (0 otherwise: without pings, a quiet link says nothing)."""
        if not self._keeping_alive or self.last_received is None or self.closed:
            return 0.0
        return trio.current_time() - self.last_received

    def heard_at(self) -> float | None:
        """trio time of the last bytes received, while :meth:`keep_alive` runs (``None``
        otherwise: without pings, silence says nothing)."""
        if not self._keeping_alive or self.last_received is None or self.closed:
            return None
        return self.last_received

    def heard_since(self, when: float) -> bool:
        """Something came on this connection at or after trio time ``when`` (always ``True``
        while :meth:`keep_alive` does not run: without pings, silence says nothing)."""
        if not self._keeping_alive or self.last_received is None:
            return True
        return self.last_received >= when

    async def keep_alive(self, *, every: float = PING_SECONDS, silence: float = SILENCE_SECONDS) -> None:
        """Run alongside the task that reads this connection, until it closes: a ``ping`` when
        we have sent nothing for about ``every`` seconds; once nothing at all has come for
        ``silence`` seconds (checked on the same grid), the connection is closed (:attr:`silent` set, :attr:`failure`
        says why) and its reader gets ConnectionClosed."""
        self.last_received = trio.current_time()  # its reader starts now (the lobby's is over)
        self._keeping_alive = True
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._ping, every)
                await self._watch_silence(silence, every)
                nursery.cancel_scope.cancel()
        finally:
            self._keeping_alive = False

    async def _ping(self, every: float) -> None:
        # Its own task: a ping that waits for room in the socket must not hold up the watch.
        # It wakes on a grid of ``every`` seconds, as do the watch and every connection's, so
        # that they all wake together (an autojump clock jumps once, not once a connection):
        # a ping goes out at a tick when nothing went out for half a tick, so the other side
        # hears from us at least every 1.5 ``every``.
        while not self.closed:
            await trio.sleep_until(_next_tick(trio.current_time(), every))
            if trio.current_time() - self.last_sent >= every / 2:
                try:
                    await self.send_frame(PING_FRAME)
                except ConnectionClosed:
                    return

    async def _watch_silence(self, silence: float, every: float) -> None:
        while not self.closed:
            assert self.last_received is not None, "set by keep_alive"
            now = trio.current_time()
            if now - self.last_received >= silence:
                if not self._data_waiting():
                    self.silent = True
                    self.failure = f"nothing came from {self.label} for {silence:g} s"
                    self._close_now()
                    return
                # Here, but its reader has not run yet (this process was busy or stopped).
                self.last_received = now
            # On the pings' grid (see _ping): closed at most a tick after the limit.
            await trio.sleep_until(math.ceil((self.last_received + silence) / every) * every)

    def _data_waiting(self) -> bool:
        """The socket has bytes (or an end) that nobody has read yet."""
        try:
            fd = self.stream.socket.fileno()  # type: ignore[attr-defined]  # duck-typed: only socket streams have it
            if fd < 0:
                return False
            poll = select.poll()
            poll.register(fd, select.POLLIN)
            return bool(poll.poll(0))
        except (AttributeError, OSError, ValueError):
            return False

    async def aclose(self) -> None:
        self.closed = True
        with trio.move_on_after(1) as scope:
            scope.shield = True
            await self.stream.aclose()


async def broadcast(
    sends: Sequence[tuple[Any, Sequence[bytes], Callable[[int], None] | None]],
    rest: trio.Nursery | None = None,
) -> None:
    """Send each connection its frames, in order: ``sends`` holds, for each connection, its
    frames and what to call with a frame's index once it is written (``None``: nothing). A
    connection that is closed or gets closed skips what is left for it (its peer catches up
    when it reconnects).

    Every connection is sent to independently of the others, each shielded (bounded by
    SHIELD_SECONDS, longer than any connection's send timeout): a peer that does not read
    holds up its own connection only, until its send timeout cuts it off, and a cancellation
    from outside cannot stop a frame short of the connections not yet reached (issue 29: sent
    one connection after the other, a signed entry of ours waited behind a peer that did not
    read, the send was cut off, and the seats that do read never got it). As with one
    connection, what the sockets take goes out at once, in the order of ``sends`` (the seats
    that wait on us first: ``send_order`` in net/peer.py); only what waits for room in a
    socket, or behind another send on its connection, goes on in a task of its own: in
    ``rest`` if given (this returns at once then: whoever sends waits on no peer), else in
    one this waits for. Frames sent later on a connection (by ``send_frame`` or another
    broadcast) go out after these."""
    with shielded():
        async with trio.open_nursery() as own:
            for conn, frames, sent in sends:
                if not frames:
                    continue
                # Its turn is taken now, in the order of the calls: a later entry of a chain
                # must not reach a peer before an earlier one.
                before, ours = _take_turn(conn)
                start, begun = 0, None
                begin_now = getattr(conn, "_begin_now", None)  # (a test's recorder has none)
                while before is None and begin_now is not None and start < len(frames):
                    # Nothing sent before waits on this connection: what its socket takes goes
                    # out now, without yielding, in the order of ``sends``.
                    begun = begin_now(frames[start])
                    if begun is None or begun < len(frames[start]):
                        break  # busy, or full: the rest in a task of its own
                    try:
                        await conn._finish(frames[start], begun)  # (nothing left: no wait)
                    except ConnectionClosed:
                        pass
                    else:
                        if sent is not None:
                            sent(start)
                    start, begun = start + 1, None
                if start == len(frames):
                    ours.set()
                    continue
                tail = functools.partial(_send_each, conn, before, ours, frames, start, begun, sent)
                try:
                    (rest or own).start_soon(tail)
                except RuntimeError:  # ``rest`` is closed (its table has ended): here, then
                    own.start_soon(tail)


def _take_turn(conn: Any) -> tuple[trio.Event | None, trio.Event]:
    """A place in line on ``conn`` for a broadcast: what to wait for before sending (the
    previous broadcast's event, while it is not done) and the event to set when done. (Kept
    on the object itself, a Connection or a test's stand-in for one.)"""
    before, ours = getattr(conn, "_last_turn", None), trio.Event()
    conn._last_turn = ours
    return (before if before is not None and not before.is_set() else None), ours


async def _send_each(
    conn: Any,
    before: trio.Event | None,
    ours: trio.Event,
    frames: Sequence[bytes],
    start: int,
    begun: int | None,
    sent: Callable[[int], None] | None,
) -> None:
    """The rest of a broadcast on one connection, from ``frames[start]``, of which ``begun``
    bytes are out already (its caller holds the connection's send lock for it) if not
    ``None``; after what was sent before on this connection (``before``) is done. Shielded
    from its first line (a task that has not run yet has no checkpoint behind it): while it
    waits for its turn (what it waits for is bounded the same way), and then for at most
    SHIELD_SECONDS."""
    send_now = getattr(conn, "_send_now", None) or conn.send_frame  # (a test's recorder)
    with trio.CancelScope(shield=True):
        try:
            if before is not None:
                await before.wait()
            with shielded():
                for index in range(start, len(frames)):
                    try:
                        if index == start and begun is not None:
                            await conn._finish(frames[index], begun)
                        else:
                            await send_now(frames[index])
                    except ConnectionClosed:
                        continue  # the rest fails at once too (its failure is set, or it is gone)
                    if sent is not None:
                        sent(index)
        finally:
            ours.set()


def _next_tick(time: float, every: float) -> float:
    """The first multiple of ``every`` after ``time``."""
    return (math.floor(time / every) + 1) * every


async def connect(host: str, port: int, *, label: str | None = None, timeout: float = 10.0) -> Connection:
    """Open a connection, or raise :class:`ConnectionClosed` saying why it failed."""
    try:
        with trio.fail_after(timeout):
            stream = await trio.open_tcp_stream(host, port)
    except (OSError, trio.TooSlowError) as exc:
        raise ConnectionClosed(f"cannot reach {host}:{port}: {exc or 'timed out'}") from None
    return Connection(stream, label or f"{host}:{port}")

"""Framed msgpack messages over trio TCP streams.

A :class:`Connection` sends and receives whole messages (see :mod:`p2pcards.wire.framing`).
Everything a peer sends is untrusted: a malformed or oversized frame raises
:class:`~p2pcards.wire.framing.FrameError`, after which the connection is unusable and is closed.
"""

from __future__ import annotations

import math
import os
import select
from collections import deque
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
    "connect",
    "shielded",
]

RECEIVE_CHUNK = 65_536
#: A frame the other side has not taken this long after we began writing it: the connection is
#: closed (a peer that stops reading would otherwise hold every sender to it, and whatever
#: waits on them, forever). Honest peers read all the time; their buffers never fill this long.
SEND_SECONDS = 10.0
#: The longest a send that must not be cut off by a cancellation (an entry begun, a stop, a
#: seed) may take: shielded, but never forever.
SHIELD_SECONDS = SEND_SECONDS

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
        self._send_lock = trio.Lock()
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
        try:
            self._send_lock.acquire_nowait()
        except trio.WouldBlock:
            await self._send_lock.acquire()
            written = 0
        else:
            written = 0 if self.failure else self._write_now(frame)
        try:
            # Only a connection we cut ourselves is refused here: ``closed`` also marks one whose
            # reader has stopped while the socket is still open (a goodbye may still go out).
            if self.failure is not None:
                raise ConnectionClosed(self.failure)
            if written < len(frame):
                with trio.move_on_after(self.send_timeout) as scope:
                    await self.stream.send_all(memoryview(frame)[written:])
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

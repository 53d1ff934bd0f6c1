"""Framed msgpack messages over trio TCP streams.

A :class:`Connection` sends and receives whole messages (see :mod:`p2pcards.wire.framing`).
Everything a peer sends is untrusted: a malformed or oversized frame raises
:class:`~p2pcards.wire.framing.FrameError`, after which the connection is unusable and is closed.
"""

from __future__ import annotations

import os
from collections import deque
from typing import Any

import trio

from ..wire.framing import DEFAULT_LIMITS, FrameDecoder, FrameError, Limits, encode_frame

__all__ = ["Connection", "ConnectionClosed", "FrameError", "connect", "shielded"]

RECEIVE_CHUNK = 65_536
#: A frame the other side has not taken this long after we began writing it: the connection is
#: closed (a peer that stops reading would otherwise hold every sender to it, and whatever
#: waits on them, forever). Honest peers read all the time; their buffers never fill this long.
SEND_SECONDS = 10.0
#: The longest a send that must not be cut off by a cancellation (an entry begun, a stop, a
#: seed) may take: shielded, but never forever.
SHIELD_SECONDS = SEND_SECONDS


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
        #: Why we closed the connection ourselves (the other side stopped reading), if we did.
        self.failure: str | None = None

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
                    self.failure = f"{self.label} did not read what we sent for {self.send_timeout:g} s"
                    self._close_now()
                    raise ConnectionClosed(self.failure)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            self.closed = True
            raise ConnectionClosed(f"{self.label}: {exc}") from None
        finally:
            self._send_lock.release()
        self.bytes_sent += len(frame)

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
            self._ready.extend(self._decoder.feed(data))
        return self._ready.popleft()

    async def aclose(self) -> None:
        self.closed = True
        with trio.move_on_after(1) as scope:
            scope.shield = True
            await self.stream.aclose()


async def connect(host: str, port: int, *, label: str | None = None, timeout: float = 10.0) -> Connection:
    """Open a connection, or raise :class:`ConnectionClosed` saying why it failed."""
    try:
        with trio.fail_after(timeout):
            stream = await trio.open_tcp_stream(host, port)
    except (OSError, trio.TooSlowError) as exc:
        raise ConnectionClosed(f"cannot reach {host}:{port}: {exc or 'timed out'}") from None
    return Connection(stream, label or f"{host}:{port}")

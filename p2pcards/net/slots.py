"""A listener's connection slots: strangers cannot lock a table's seats out of its listeners.

Every seat listens for the whole game (a seat that restarts dials everyone), and the host's
listener is where joiners sit down, so anyone on the network can open connections to it. A
connection is *unproven* until it has done the handshake and sent its first lobby message, and
the handler has found that it belongs (a joiner given a seat, a seat of the table under the key
the roster or the header gives it: :meth:`Slot.admit`). Unproven connections are limited:

* at most :data:`UNPROVEN_SECONDS` each, then they are closed;
* at most :data:`MAX_UNPROVEN_PER_ADDRESS` from one remote address: a new one pushes out the
  oldest from that address (rather than being refused, so that a joiner behind the same
  address as a stranger, a NAT or this computer, still gets in);
* at most :data:`MAX_UNPROVEN` in all: a new one pushes out the oldest of the address that
  holds the most, so one address can never push out another's.

An admitted connection no longer counts: a seat is never refused or dropped for lack of slots
(there are at most 15 other seats). protocol/table.md section 2 states these rules.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import Any

import trio

__all__ = ["MAX_UNPROVEN", "MAX_UNPROVEN_PER_ADDRESS", "UNPROVEN_SECONDS", "Slot", "serve_listener"]

#: Unproven connections a listener serves at once, and from one remote address.
MAX_UNPROVEN = 64
MAX_UNPROVEN_PER_ADDRESS = 8
#: How long a connection to a listener has for the handshake and its first lobby message. On
#: loopback the two take about 1 ms (6 ms at worst, measured here). Over a lossy Wi-Fi a lost
#: segment costs a TCP retransmission timeout, and after a lost SYN or SYN-ACK Linux starts the
#: connection with a 3 s one (doubling on each loss): with 10% loss, 72 admissions took 0.46 s
#: (median) and up to 3.3 s, and one joiner in about 130 connections was cut off at the old 5 s
#: and could not join (tests/net/test_lossy_network.py's switch, issue 23). 15 s covers two
#: such retransmissions, a slow computer's signatures and a peer busy with a deck step; strangers
#: still cannot lock anyone out, as a new connection pushes an old unproven one out.
UNPROVEN_SECONDS = 15.0


class Slot:
    """One accepted connection's place at a listener, for its handler."""

    def __init__(self, slots: _Slots, address: str):
        self._slots = slots
        self.address = address
        self.scope = trio.CancelScope(deadline=trio.current_time() + UNPROVEN_SECONDS)
        self.admitted = False

    def admit(self) -> None:
        """This connection belongs (a seated joiner, a seat of the table): from now on it has no
        time limit and is never pushed out."""
        if not self.admitted:
            self.admitted = True
            self.scope.deadline = math.inf
            self._slots.close(self)


class _Slots:
    def __init__(self) -> None:
        self.unproven: list[Slot] = []  # oldest first

    def open(self, address: str) -> Slot:
        """A slot for a new connection from ``address``, pushing out an older unproven one if
        the limits are reached."""
        same = [slot for slot in self.unproven if slot.address == address]
        if len(same) >= MAX_UNPROVEN_PER_ADDRESS:
            self._drop(same[0])
        elif len(self.unproven) >= MAX_UNPROVEN:
            busiest, _ = Counter(slot.address for slot in self.unproven).most_common(1)[0]
            self._drop(next(slot for slot in self.unproven if slot.address == busiest))
        slot = Slot(self, address)
        self.unproven.append(slot)
        return slot

    def _drop(self, slot: Slot) -> None:
        self.unproven.remove(slot)
        slot.scope.cancel()

    def close(self, slot: Slot) -> None:
        if slot in self.unproven:
            self.unproven.remove(slot)


def _remote_address(stream: Any) -> str:
    try:
        return str(stream.socket.getpeername()[0])
    except (AttributeError, OSError, IndexError):
        return "?"


async def serve_listener(listener: Any, handle: Callable[[Any, Slot], Any], nursery: trio.Nursery) -> None:
    """Accept connections and run ``handle(stream, slot)`` for each, within the limits above:
    the handler calls ``slot.admit()`` once the connection has shown it belongs; one pushed out
    or too slow is cancelled and closed. Running out of file descriptors or buffers is waited
    out, not fatal: it is what a flood of strangers does."""
    slots = _Slots()

    async def one(stream: Any, slot: Slot) -> None:
        try:
            with slot.scope:
                await handle(stream, slot)
        finally:
            slots.close(slot)
            if slot.scope.cancelled_caught:  # too slow, or pushed out by newer connections
                await trio.aclose_forcefully(stream)

    while True:
        try:
            stream = await listener.accept()
        except OSError:  # EMFILE, ENFILE, ENOBUFS, ENOMEM: connections will close; try again
            await trio.sleep(0.1)
            continue
        nursery.start_soon(one, stream, slots.open(_remote_address(stream)))

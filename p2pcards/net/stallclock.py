"""A clock for the deadlines this peer holds about *other* seats, which stands still while this
process does not run (issue 23).

``trio.current_time()`` is ``CLOCK_MONOTONIC``, which keeps running while a process is stopped
(SIGSTOP or Ctrl-Z, a debugger, a machine swapping hard; on Linux it stands still only while the
whole machine is suspended). A deadline about another seat (its deck message, its move, the
grace period after it dropped out) that ran out while we did not run says nothing about that
seat: on waking, its message may be sitting unread in our socket. :class:`StallClock` notices
such stalls and gives deadline arithmetic a time that does not advance during them, so a
deadline that ran out while we were stopped is extended by the stall and checked again, never
charged to anyone.

How it notices: :meth:`StallClock.run` looks at the time every :data:`TICK` seconds, and so does
every :meth:`StallClock.now`. While the tick runs, two looks more than :data:`STALL` seconds
apart mean this process (or its trio loop) did not run in between. On waking, the timer of a
deadline and the tick fire in the same batch and trio runs them in any order, so the deadline's
own look (``now``) notices the stall as well as the tick would.

A false stall only extends deadlines by its length. Under heavy CPU load trio's loop can be late
by a second or so, well under :data:`STALL`; a loop that is late by more (a long computation in
trio's thread, a machine swapping) did not read our sockets either, so the seats we wait on get
that time back, which is only fair. It never makes a deadline shorter.

The other seats' view of a stopped peer (they see it go quiet) is not this clock's business:
keepalives give such a peer the grace period there."""

from __future__ import annotations

import math

import trio

__all__ = ["STALL", "TICK", "StallClock"]

#: Seconds between the background looks at the time.
TICK = 0.25
#: A gap between two looks longer than this is a stall: about ten ticks, so that a loop late by
#: a second or two under load is not one (and a false one would only extend deadlines).
STALL = 2.5


class StallClock:
    """``trio.current_time()`` less every stall noticed since :meth:`run` started. Stalls are
    noticed only while :meth:`run` runs (without the tick, a long gap between two looks is
    just time passing); before it, :meth:`now` is ``trio.current_time()``."""

    def __init__(self, tick: float = TICK, stall: float = STALL):
        self.tick = tick
        self.stall = stall
        #: Seconds spent stalled so far, and how many stalls.
        self.stalled = 0.0
        self.stalls = 0
        self._seen: float | None = None  # our last look at the time, while the tick runs

    def now(self) -> float:
        """The time for deadlines about other seats: it stands still during a stall."""
        current = trio.current_time()
        if self._seen is not None:
            gap = current - self._seen
            if gap > self.stall:
                # The whole gap, not the gap less a tick: an extension a tick too long is
                # harmless, a deadline a tick short might charge a seat for our stop.
                self.stalled += gap
                self.stalls += 1
            self._seen = current
        return current - self.stalled

    async def run(self) -> None:
        """Look at the time every tick, for as long as deadlines are kept (runs forever). A
        plain periodic sleep: trio's autojump clock still jumps past it, a tick at most (never
        a stall). The ticks fall on multiples of the tick, so the clocks of several peers in one
        process (the tests' tables) wake together and cost an autojump clock one jump, not one
        each."""
        self._seen = trio.current_time()
        try:
            while True:
                await trio.sleep_until((math.floor(trio.current_time() / self.tick) + 1) * self.tick)
                self.now()
        finally:
            self._seen = None

    async def wait(self, event: trio.Event, deadline: float) -> bool:
        """Wait for ``event`` until ``deadline`` (a :meth:`now` time): ``True`` if it was set
        in time. A deadline that runs out during a stall is moved on by it and waited for
        again."""
        while not event.is_set():
            left = deadline - self.now()
            if left <= 0:
                return False
            with trio.move_on_after(left):
                await event.wait()
        return True

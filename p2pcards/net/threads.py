"""Work done in a worker thread so that it does not block the event loop (a journal's fsync,
verifying a transcript), except on a virtual clock.

Under trio's ``MockClock`` with autojump (the test tables' virtual time) a run whose tasks all
wait, one of them on a thread, is idle: the clock jumps to the next deadline, again and again
while the thread works, and every other seat's timeouts fall due at once. A slow fsync on a
loaded disk once held a seat for 120 virtual seconds that way (review of issue 28). There the
work runs in the loop instead: time must not pass while our own process works."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import trio

T = TypeVar("T")


def on_virtual_clock() -> bool:
    """The run's clock is trio's ``MockClock`` (a test's virtual time)."""
    # Not imported here: trio.testing imports pytest, a tenth of a second of every start of
    # the program; a MockClock can only run where something imported it already.
    testing = sys.modules.get("trio.testing")
    return testing is not None and isinstance(trio.lowlevel.current_clock(), testing.MockClock)


async def off_the_loop(fn: Callable[..., T], *args: Any, **options: Any) -> T:
    """``fn(*args)`` in a worker thread (``options`` as for ``trio.to_thread.run_sync``); in the
    loop on a virtual clock."""
    if on_virtual_clock():
        await trio.lowlevel.checkpoint()
        return fn(*args)
    return await trio.to_thread.run_sync(fn, *args, **options)

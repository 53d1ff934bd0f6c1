"""Run the ``p2pcards`` command line, stopped (SIGSTOP, as a closed laptop lid or Ctrl-Z would)
at a chosen point of the seat's own chain; the caller sends the SIGCONT.

``python stoppable.py HOW -- p2pcards-args...``, HOW one of:

``never``                      not stopped
``stop@AFTER:deck:SEQ``        AFTER seconds after it has sent its first deck entry with ``seq``
                               >= SEQ, it stops itself
``stop@AFTER:action:TURN``     the same after its first move for turn TURN or later
``hold@deck:SEQ``              it stops itself, in trio's own thread, once it has signed its first
                               deck entry with ``seq`` >= SEQ and before that entry goes out:
                               the deck cannot go on without it until it is continued (a timer
                               of ``stop@`` may fire only after the deck's last step of this
                               seat, and the game then passes for it, under load)
``slow@FIRST:COUNT:SECONDS``   not stopped: its player takes SECONDS longer over each of its moves
                               for turns FIRST to FIRST+COUNT-1

It prints ``stoppable: stopping (pid N)`` just before the stop and ``stoppable: continued``
after it. As under killable.py, every seat it names is printed as ``named: ...`` and every stop
of its game as ``stopped: ...``. Used by test_stopped_seat.py."""

from __future__ import annotations

import os
import signal
import sys
import threading

import trio
from killable import report  # type: ignore[import-not-found]  # (this script's folder)

from p2pcards import cli
from p2pcards.net.peer import Peer
from p2pcards.net.seats import LocalSeat


def arm_stop(after: float, kind: str, at_least: int) -> None:
    write_out = Peer._write_out
    armed = [True]

    def stop_now() -> None:
        print(f"stoppable: stopping (pid {os.getpid()})", flush=True)
        os.kill(os.getpid(), signal.SIGSTOP)
        print("stoppable: continued", flush=True)

    def is_target(entry) -> bool:
        if entry.kind != kind:
            return False
        return (entry.body["turn"] if kind == "action" else entry.seq) >= at_least

    async def stopping_write_out(self, entries, fresh):
        written = await write_out(self, entries, fresh)
        target = [e for e in fresh if is_target(e)]
        if target and armed:
            armed.clear()
            print(f"stoppable: stopping in {after:g} s, after entry #{target[0].seq} ({target[0].kind})", flush=True)
            # From a thread: the stop comes wherever trio's thread is then, as a real one would.
            threading.Timer(after, stop_now).start()
        return written

    Peer._write_out = stopping_write_out  # type: ignore[method-assign]


def arm_hold(kind: str, at_least: int) -> None:
    write_out = Peer._write_out
    armed = [True]

    async def holding_write_out(self, entries, fresh):
        target = [e for e in fresh if e.kind == kind and e.seq >= at_least]
        if target and armed:
            armed.clear()
            print(f"stoppable: holding entry #{target[0].seq} ({target[0].kind}) back", flush=True)
            print(f"stoppable: stopping (pid {os.getpid()})", flush=True)
            os.kill(os.getpid(), signal.SIGSTOP)  # this thread, here: nothing more goes out
            print("stoppable: continued", flush=True)
        return await write_out(self, entries, fresh)

    Peer._write_out = holding_write_out  # type: ignore[method-assign]


def arm_slow(first: int, count: int, seconds: float) -> None:
    choose = LocalSeat._choose_in_time

    async def slow_choose(self, session, seat):
        if first <= self.peer.turns < first + count:
            await trio.sleep(seconds)
        return await choose(self, session, seat)

    LocalSeat._choose_in_time = slow_choose  # type: ignore[method-assign]


if __name__ == "__main__":
    how, dashes, *args = sys.argv[1:]
    assert dashes == "--", sys.argv
    what, _, params = how.partition("@")
    report()
    if what == "stop":
        after, kind, at_least = params.split(":")
        assert kind in ("deck", "action"), how
        arm_stop(float(after), kind, int(at_least))
    elif what == "hold":
        kind, at_least = params.split(":")
        assert kind == "deck", how
        arm_hold(kind, int(at_least))
    elif what == "slow":
        first, count, seconds = params.split(":")
        arm_slow(int(first), int(count), float(seconds))
    else:
        assert what == "never", how
    sys.argv = ["p2pcards", *args]
    sys.exit(cli.main())

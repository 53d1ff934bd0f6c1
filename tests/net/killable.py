"""Run the ``p2pcards`` command line, SIGKILLed at an exact point of the seat's own chain.

``python killable.py SEQ KIND PHASE -- p2pcards-args...``: the process kills itself (SIGKILL,
as ``kill -9`` would) at the first entry it signs with ``seq`` >= SEQ and kind KIND (``any``:
whatever kind), at PHASE (``never``: it is not killed):

``signed``     signed, before its journal has it (nothing of it written or sent)
``journaled``  in the journal's file (flushed, not fsynced), not sent to anyone
``sent``       journaled and sent to every connected seat, not yet fsynced
``synced``     journaled, sent and fsynced
``stop@S``     not killed: S seconds after that entry is sent, it stops itself (SIGSTOP, as a
               closed laptop lid would) and waits for a SIGCONT, which the test sends;
               ``stop@S:T``: the entry must also be a move for turn T or later
``slow@T:N:S`` not killed: its player takes S seconds longer over each of its moves for turns
               T to T+N-1 (SEQ and KIND are not used)

Every seat it names (``TableProtocol.name``) is printed as a line ``named: ...``, and every
stop of its game as ``stopped: ...``. Used by test_kill_points.py and test_stopped_seat.py."""

from __future__ import annotations

import os
import signal
import sys
import threading

import trio

from p2pcards import cli
from p2pcards.net.peer import Peer
from p2pcards.net.seats import LocalSeat
from p2pcards.table.protocol import TableProtocol


def die() -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def report() -> None:
    name = TableProtocol.name

    def printing_name(self, seat, reason):
        print(f"named: {reason}", flush=True)
        return name(self, seat, reason)

    TableProtocol.name = printing_name  # type: ignore[method-assign]
    stopped = Peer._stopped

    def printing_stopped(self, exc):
        if self.aborted is None:
            print(f"stopped: seat {exc.seat}: {exc.reason}", flush=True)
        return stopped(self, exc)

    Peer._stopped = printing_stopped  # type: ignore[method-assign]


def arm(seq: int, kind: str, phase: str) -> None:
    write_out = Peer._write_out

    async def killing_write_out(self, entries, fresh):
        target = [e for e in fresh if e.seq >= seq and kind in ("any", e.kind)]
        if not target:
            return await write_out(self, entries, fresh)
        print(f"killable: dying at entry #{target[0].seq} ({target[0].kind}), {phase}, turn {self.turns}", flush=True)
        if phase == "signed":
            die()
        if phase == "journaled":
            for entry in fresh:
                self.journal.append_entry(entry)
            self.journal.flush()
            die()
        await write_out(self, entries, fresh)
        if phase == "synced":
            self.journal.fsync()  # as keep_journal_synced would, a moment later
        die()

    Peer._write_out = killing_write_out  # type: ignore[method-assign]


def arm_stop(seq: int, kind: str, after: float, turn: int | None) -> None:
    write_out = Peer._write_out
    armed = [True]

    def stop_now() -> None:
        print(f"killable: stopping (pid {os.getpid()})", flush=True)
        os.kill(os.getpid(), signal.SIGSTOP)
        print("killable: continued", flush=True)

    async def stopping_write_out(self, entries, fresh):
        written = await write_out(self, entries, fresh)
        target = [e for e in fresh if e.seq >= seq and kind in ("any", e.kind)]
        if turn is not None:
            target = [e for e in target if e.kind == "action" and e.body["turn"] >= turn]
        if target and armed:
            armed.clear()
            print(f"killable: stopping in {after:g} s, after entry #{target[0].seq} ({target[0].kind})", flush=True)
            # A thread: the stop comes wherever trio's thread is then, as a real one would.
            threading.Timer(after, stop_now).start()
        return written

    Peer._write_out = stopping_write_out  # type: ignore[method-assign]


def arm_slow(first: int, count: int, seconds: float) -> None:
    choose = LocalSeat._choose_in_time

    async def slow_choose(self, session, seat):
        if first <= self.peer.turns < first + count:
            await trio.sleep(seconds)
        return await choose(self, session, seat)

    LocalSeat._choose_in_time = slow_choose  # type: ignore[method-assign]


if __name__ == "__main__":
    seq, kind, phase, dashes, *args = sys.argv[1:]
    how, _, params = phase.partition("@")
    assert dashes == "--" and how in ("never", "signed", "journaled", "sent", "synced", "stop", "slow"), sys.argv
    report()
    if how == "stop":
        after, _, turn = params.partition(":")
        arm_stop(int(seq), kind, float(after), int(turn) if turn else None)
    elif how == "slow":
        first, count, seconds = params.split(":")
        arm_slow(int(first), int(count), float(seconds))
    elif phase != "never":
        arm(int(seq), kind, phase)
    sys.argv = ["p2pcards", *args]
    sys.exit(cli.main())

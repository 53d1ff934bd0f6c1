"""Run the ``p2pcards`` command line, SIGKILLed at an exact point of the seat's own chain.

``python killable.py SEQ KIND PHASE -- p2pcards-args...``: the process kills itself (SIGKILL,
as ``kill -9`` would) at the first entry it signs with ``seq`` >= SEQ and kind KIND (``any``:
whatever kind), at PHASE (``never``: it is not killed):

``signed``     signed, before its journal has it (nothing of it written or sent)
``journaled``  in the journal's file (flushed, not fsynced), not sent to anyone
``sent``       journaled and sent to every connected seat, not yet fsynced
``synced``     journaled, sent and fsynced

Every seat it names (``TableProtocol.name``) is printed as a line ``named: ...``, and every
stop of its game as ``stopped: ...``. Used by test_kill_points.py."""

from __future__ import annotations

import os
import signal
import sys

from p2pcards import cli
from p2pcards.net.peer import Peer
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


if __name__ == "__main__":
    seq, kind, phase, dashes, *args = sys.argv[1:]
    assert dashes == "--" and phase in ("never", "signed", "journaled", "sent", "synced"), sys.argv
    report()
    if phase != "never":
        arm(int(seq), kind, phase)
    sys.argv = ["p2pcards", *args]
    sys.exit(cli.main())

"""Run the ``p2pcards`` command line, SIGKILLed at an exact point of the seat's own chain.

``python killable.py PHASE FROM_HAND DONE -- p2pcards-args...``: the process kills itself
(SIGKILL, as ``kill -9`` would) at the first entry it signs whose label (:func:`entry_label`) is
not in DONE (labels separated by commas) and that belongs to hand FROM_HAND or a later one
(:func:`hand_of`), at PHASE (``never``: it is not killed):

``signed``     signed, before its journal has it (nothing of it written or sent)
``journaled``  in the journal's file (flushed, not fsynced), not sent to anyone
``sent``       journaled and sent to every connected seat, not yet fsynced
``synced``     journaled, sent and fsynced
``lost``       sent, then a power cut: the journal loses what its last fsync did not cover

Killed, it prints ``killable: dying at #SEQ LABEL (hand H), PHASE``: the caller restarts the
seat (``p2pcards resume`` under this script again) with LABEL added to DONE, so that one game
kills the seat once at every label it signs (test_kill_points.py).

Every seat it names (``TableProtocol.name``) is printed as a line ``named: ...``, and every
stop of its game as ``stopped: ...``. Its games are not recorded in the history."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from typing import Any

PHASES = ("signed", "journaled", "sent", "synced", "lost")
#: The own entry that starts a hand: every seat shuffles the deck anew for each hand.
HAND_START = "deck:shuffle"


def entry_label(entry: Any) -> str:
    """What a kill point tells apart: the entry's kind; for a deck entry, the deck message
    it carries (``deck:shuffle``, ``deck:open``...: a pass, a reveal, a transfer's re-handle,
    the audit's seed), or ``deck:box``/``deck:boxes`` for openings sealed to one seat or to
    several (a transfer's or a draw's keys, a deal); for an action, the move's type."""
    body = entry.body
    if entry.kind == "deck":
        msg = body.get("msg")
        if isinstance(msg, dict):
            return f"deck:{msg.get('type')}"
        return "deck:boxes" if "boxes" in body else "deck:box"
    if entry.kind == "action" and "sealed" in body:
        return "action:sealed"  # a free-order response's commitment (its type is sealed)
    if entry.kind == "action":
        action = body.get("action")
        if isinstance(action, dict) and isinstance(action.get("type"), str):
            return f"action:{action['type']}"
    return str(entry.kind)


def hand_of(own: Sequence[Any], seq: int) -> int:
    """The hand that the seat's own entry ``seq`` belongs to (``own``: the seat's chain):
    how many shuffles the seat had signed by then (its commitments before the first belong to
    the first hand)."""
    return max(1, sum(1 for entry in own[: seq + 1] if entry_label(entry) == HAND_START))


def die() -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def report() -> None:
    from p2pcards.net.peer import Peer
    from p2pcards.table.protocol import TableProtocol

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


def track_durable_size() -> None:
    """Remember, on each journal, how much of its file the last fsync made durable (what a
    power cut leaves): what was flushed before an fsync began is on disk once it returns."""
    from p2pcards.wire.transcript import TranscriptWriter

    fsync = TranscriptWriter.fsync

    def tracking_fsync(self):
        size = os.fstat(self._handle.fileno()).st_size
        fsync(self)
        self.durable = max(getattr(self, "durable", 0), size)

    TranscriptWriter.fsync = tracking_fsync  # type: ignore[method-assign]
    resume = TranscriptWriter.resume.__func__  # type: ignore[attr-defined]

    def tracking_resume(cls, path, **kwargs):
        writer, transcript = resume(cls, path, **kwargs)
        writer.durable = transcript.valid_size  # resume fsyncs the file as it reopens it
        return writer, transcript

    TranscriptWriter.resume = classmethod(tracking_resume)  # type: ignore[method-assign, assignment]


def arm(phase: str, from_hand: int, done: set[str]) -> None:
    from p2pcards.net.peer import Peer

    write_out = Peer._write_out

    async def killing_write_out(self, entries, fresh):
        own = self.log.entries(self.seat)
        target = next((e for e in fresh if hand_of(own, e.seq) >= from_hand and entry_label(e) not in done), None)
        if target is None:
            return await write_out(self, entries, fresh)
        hand = hand_of(own, target.seq)
        print(f"killable: dying at #{target.seq} {entry_label(target)} (hand {hand}), {phase}", flush=True)
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
        if phase == "lost":
            os.truncate(self.journal.path, getattr(self.journal, "durable", 0))
        die()

    Peer._write_out = killing_write_out  # type: ignore[method-assign]


def skip_history() -> None:
    """No game goes into the seats' histories: recording one verifies its transcript again,
    at every seat (the caller verifies one, and checks that every seat's is the same)."""
    from p2pcards.net import table

    async def no_history(peer, path, home):
        return None

    table._record_history = no_history  # type: ignore[assignment]


def instant_reactions() -> None:
    """Bots answer free-order rounds without their human-like reaction time (about a second a
    round, a minute a free-order hand): who wins a race is not what these tables test."""
    from p2pcards import session

    init = session.BotSeat.__init__

    def instant(self, bot, *, delay: float = 0.0, reaction: float = 1.0) -> None:
        init(self, bot, delay=delay, reaction=0.0)

    session.BotSeat.__init__ = instant  # type: ignore[method-assign]


def drop_out_when_allowed() -> None:
    """With ``P2PCARDS_TEST_DROP_OUT`` set: this seat's player drops out (issue 30) at its first
    turn where the rules allow it, as the console's ``drop`` has it (its bot plays until then);
    a resumed seat too, until the drop-out is made."""
    from p2pcards.net.seats import LocalSeat
    from p2pcards.session import DroppingOut

    init = LocalSeat.__init__

    def dropping(self, peer, agent):
        init(self, peer, DroppingOut(agent))

    LocalSeat.__init__ = dropping  # type: ignore[method-assign]


def main(phase: str, from_hand: int, done: str, args: list[str]) -> int:
    """Arm this process, then run ``p2pcards args``: its exit status."""
    assert phase in ("never", *PHASES), phase
    report()
    skip_history()
    instant_reactions()
    if os.environ.get("P2PCARDS_TEST_DROP_OUT"):
        drop_out_when_allowed()
    if phase != "never":
        track_durable_size()
        arm(phase, from_hand, set(filter(None, done.split(","))))
    from p2pcards import cli

    return cli.main(args)


def forked(phase: str, from_hand: int, done: str, args: list[str], home: str, log: str) -> None:
    """:func:`main` in a process forked from a forkserver that imported p2pcards already
    (test_kill_points.py: a start then takes a tenth of the second a fresh Python takes),
    as ``P2PCARDS_HOME=home p2pcards args >log 2>&1`` would run."""
    os.environ["P2PCARDS_HOME"] = home
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115 - the process's own
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    sys.exit(main(phase, from_hand, done, args))


if __name__ == "__main__":
    phase, from_hand, done, dashes, *args = sys.argv[1:]
    assert dashes == "--", sys.argv
    sys.exit(main(phase, int(from_hand), done, args))

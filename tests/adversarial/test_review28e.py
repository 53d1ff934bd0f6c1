"""Closing loose ends of issue 28 (one referee): cheaters aimed at what the earlier reviews
left (an ``open`` entry that no commitment awaits, a private opening of an operation that never
comes), and the hostile review that closed it (an opening at the deadline, to every seat or to
all but one; a goodbye after a commitment). Each table runs on trio's autojump clock over
loopback; :func:`~.adv_table.run_table` also checks that every honest seat's live verdict
agrees with ``p2pcards verify`` of its transcript, and each test checks whom every honest seat
and verify name."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from p2pcards.game import Round, Turn
from p2pcards.table import rounds

from .adv_table import play_until_cheated, verify
from .cheaters import CHEATERS, Cheater, CheatingSeat

CHEATER = 1
FREE = {"match_target": 1, "turn_mode": "free"}


def named_everywhere(run: Any, seat: int, words: str | None = None) -> str:
    """Every honest seat stopped naming ``seat``, and verify of every honest transcript names
    it (with ``words`` in its reason, if given)."""
    info = run.describe()
    for other, outcome in run.honest.items():
        assert outcome is not None, info
        assert outcome.aborted is not None and outcome.aborted.seat == seat, f"seat {other}\n{info}"
        assert all(b.startswith(f"seat {seat} ") for b in outcome.peer.blames), f"seat {other}\n{info}"
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert status == 1 and problem.get("seat") == seat, f"seat {other}'s transcript: {report}\n{info}"
        if words is not None:
            assert words in problem.get("reason", ""), f"seat {other}'s transcript: {problem}"
    return info


# -- an opening that no commitment awaits ---------------------------------------------------------


class StrayOpening(Cheater):
    """While another seat is due to move (no free-order round open), signs an ``open`` entry
    opening a pass for the current turn: an opening no commitment of its awaits. It was
    ignored at every seat (held for a round that may never come) and in verify."""

    deviation = "an opening outside any round"

    async def misbehave(self) -> None:
        for _ in range(100_000):  # bounded: a game has far fewer steps
            step = self.session.step
            if self.turns >= 2 and isinstance(step, Turn) and not isinstance(step, Round) and step.seat != self.seat:
                async with self.send_lock:
                    self.cheated = True
                    await self.publish("open", {"turn": self.turns, "open": {"type": "pass"}, "nonce": bytes(32)})
                return
            await trio.sleep(0.002)


class _OpensTwiceSeat(CheatingSeat):
    async def open(self, turn: int) -> Any:
        action = await super().open(turn)
        peer = self.peer
        if not peer.cheated:
            peer.cheated = True
            body = rounds.opening_body(self._secret(), peer.header.table, peer.seat, turn, action)
            await peer.publish("open", body)  # the same opening, signed a second time
        return action


class OpensTwice(Cheater):
    """Opens its first sealed response, then signs the same opening again: the second is an
    opening no commitment awaits."""

    deviation = "opens one response twice"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.session.seats[self.seat] = _OpensTwiceSeat(self, self.session.seats[self.seat].agent)


@pytest.mark.parametrize("name", ["StrayOpening", "OpensTwice"])
def test_an_opening_no_commitment_awaits_names_its_signer(name, tmp_path):
    """protocol/table.md section 9: one opening after each commitment, before the author's next
    move. Any other ``open`` entry is one the protocol never called for (transcript.md section
    5 item 11): every seat names its signer the moment it is logged (rounds.OpeningsDue, the
    same rule verify runs on the file)."""
    CHEATERS[name] = globals()[name]
    run = play_until_cheated(tmp_path, "cals-bs", 3, FREE, name, cheater=CHEATER, attempts=6)
    named_everywhere(run, CHEATER, "no commitment of its awaits")


def test_openings_due_rule_rows():
    """The rule itself, row by row (synchronous)."""
    from p2pcards.wire.identity import Identity
    from p2pcards.wire.messages import sign_entry

    me = Identity.generate()
    seq = [0]

    def entry(kind, body):
        e = sign_entry(me, table=b"t" * 16, sender=1, seq=seq[0], kind=kind, prev=b"\0" * 32, body=body)
        seq[0] += 1
        return e

    commit = {"turn": 3, "sealed": b"h" * 32, "box": b"b", "seen": []}
    opening = {"turn": 3, "open": {"type": "pass"}, "nonce": b"n" * 32, "seen": []}
    move = {"turn": 4, "action": {"type": "play"}, "seen": []}
    due = rounds.OpeningsDue()
    assert due.note(entry("open", opening)) == rounds.OpeningsDue.STRAY  # nothing committed
    assert due.note(entry("action", commit)) is None
    assert due.note(entry("open", opening)) is None  # its one opening
    assert due.note(entry("open", opening)) == rounds.OpeningsDue.STRAY  # a second one
    assert due.note(entry("action", commit)) is None
    assert due.note(entry("action", move)) is None  # a move before opening: moved_before_opening's
    assert due.note(entry("open", opening)) == rounds.OpeningsDue.STRAY
    assert due.note(entry("chat", {"text": "x", "seen": []})) is None


# -- the hostile review closing issue 28 ------------------------------------------------------------
# Three new ways a cheater might get an honest seat named, each at every honest seat and in
# verify: its opening exactly at the deadline (to every seat, or to every seat but one, which
# then gets it from the others only after its own deadline), and a goodbye signed after its
# commitment, before its opening.


def no_honest_seat_named(run: Any) -> str:
    """Every honest seat's verdict, and verify's on its transcript, name the cheater or
    nobody; returns the table's description."""
    info = run.describe()
    for seat, outcome in run.honest.items():
        assert outcome is not None, info
        assert outcome.aborted is None or outcome.aborted.seat in (CHEATER, None), f"seat {seat}\n{info}"
        assert all(b.startswith(f"seat {CHEATER} ") for b in outcome.peer.blames), f"seat {seat}\n{info}"
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert problem.get("seat") in (CHEATER, None), f"seat {seat}'s transcript: exit {status}, {report}\n{info}"
    return info


class _OpensAtTheDeadlineSeat(CheatingSeat):
    async def open(self, turn: int) -> Any:
        peer = self.peer
        if peer.cheated or turn < 2:
            return await super().open(turn)
        peer.cheated = True
        await trio.sleep(peer.delay)  # the round is sealed here: the others' waits run from about now
        return await super().open(turn)


class OpensAtTheDeadline(Cheater):
    """Signs the opening of its sealed response (turn 2 or later) ``delay`` seconds after the
    round is sealed at its seat: about when the other seats' wait on it (the deck timeout,
    4 s here) runs out, just before, at, or just after."""

    deviation = "opens at the deadline"
    delay = 4.0

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.session.seats[self.seat] = _OpensAtTheDeadlineSeat(self, self.session.seats[self.seat].agent)


class OpensAtTheDeadlineToOne(OpensAtTheDeadline):
    """The same, and its opening goes to every seat but the last one, which gets it from the
    others when it asks around (after its own deadline, if the opening came just before it)."""

    deviation = "opens at the deadline, to every seat but one"

    def entry_to(self, seat: int, entry: Any) -> bool:
        return not (entry.kind == "open" and seat == self.others[-1])


#: The delays tried: around the deck timeout (4 s) and past the keepalive's word on the quiet
#: link (about 6 s); ``--fast`` plays the last one only (the sweep takes minutes on a loaded
#: machine; 6.3 s went to the slow tier too in issue 29).
DELAYS = [*(pytest.param(d, marks=pytest.mark.slow) for d in (4.0, 5.0, 5.5, 5.8, 6.0, 6.3)), 7.0]


@pytest.mark.parametrize("delay", DELAYS)
@pytest.mark.parametrize("name", ["OpensAtTheDeadline", "OpensAtTheDeadlineToOne"])
def test_an_opening_at_the_deadline_names_nobody_honest(name, delay, tmp_path):
    cls = globals()[name]
    key = f"{name}{delay}"
    CHEATERS[key] = type(key, (cls,), {"delay": delay})
    run = play_until_cheated(tmp_path, "cals-bs", 3, FREE, key, cheater=CHEATER, attempts=6)
    info = no_honest_seat_named(run)
    if delay >= 6.3:
        # Well past the wait (the deck timeout, then the keepalive's word on a quiet link):
        # every honest seat names it for withholding its opening. (Found by this review: the
        # opening, come while the seats wound down, let their check of their own transcript
        # read a later step, whose stall verdict named nobody, and the staller went unnamed.)
        for seat, outcome in run.honest.items():
            assert outcome.aborted is not None and outcome.aborted.seat == CHEATER, f"seat {seat}\n{info}"


class _ByeAfterCommitSeat(CheatingSeat):
    async def open(self, turn: int) -> Any:
        peer = self.peer
        if peer.cheated or turn < 2:
            return await super().open(turn)
        peer.cheated = True
        await peer.say_goodbye("quit")  # its player quits: committed, never opened
        await trio.sleep_forever()


class ByeAfterCommit(Cheater):
    """Commits to its sealed response, then signs a goodbye instead of its opening (its
    player quits, or a client that saw every commitment come and wants out)."""

    deviation = "a goodbye after its commitment"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.session.seats[self.seat] = _ByeAfterCommitSeat(self, self.session.seats[self.seat].agent)


def test_a_goodbye_after_a_commitment_names_the_leaver(tmp_path):
    CHEATERS["ByeAfterCommit"] = ByeAfterCommit
    run = play_until_cheated(tmp_path, "cals-bs", 3, FREE, "ByeAfterCommit", cheater=CHEATER, attempts=6)
    info = no_honest_seat_named(run)
    for seat, outcome in run.honest.items():
        assert outcome.aborted is not None and outcome.aborted.seat == CHEATER, f"seat {seat}\n{info}"
        status, report = verify(outcome.transcript)
        assert status == 3 and report["problem"]["seat"] == CHEATER, f"seat {seat}: {report}"


class OpeningForNoOperation(Cheater):
    """With its first private openings of the game, also sends seat 2 a well-formed private
    opening of an operation that never comes (``op`` far ahead: its receiver's deck keeps it
    for that operation and never complains). No seat could tell at once; at the end-of-game
    step every seat counts the private boxes each seat sent (deck.md section 7): one more than
    the operations called for names its sender at every seat, and verify names it too. (Until
    protocol version 12 it was sent with the seed, at the audit.)"""

    deviation = "a private opening of an operation that never comes"

    async def deck_output(self, sends):
        if not self.cheated and any(s.to is not None for s in sends):
            self.cheated = True
            from p2pcards.deck.party import Send

            sends = [*sends, Send(2, {"type": "open", "op": 10_000, "scalars": [], "chains": []})]
        return await super().deck_output(sends)


def test_a_private_opening_of_no_operation_is_named_at_the_audit(tmp_path):
    CHEATERS["OpeningForNoOperation"] = OpeningForNoOperation
    run = play_until_cheated(tmp_path, "cals-bs", 3, {"match_target": 1}, "OpeningForNoOperation", cheater=CHEATER)
    named_everywhere(run, CHEATER)

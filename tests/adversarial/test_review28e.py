"""Closing loose ends of issue 28 (one referee): cheaters aimed at what the earlier reviews
left (an ``open`` entry outside any round, ...). Each table runs on trio's autojump clock over
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

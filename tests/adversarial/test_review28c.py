"""Third hostile review of issue 28 (one referee): a cheating peer aims at the limits of what
an honest seat holds, signs and writes down (evidence as deep and as large as a frame lets
through), at private deck messages of the wrong type, and at game moves whose fields have the
wrong type. Each table runs in-process on trio's autojump clock over loopback;
:func:`run_table` also checks that every honest seat's live verdict agrees with
``p2pcards verify`` of its transcript."""

from __future__ import annotations

from typing import Any

import pytest

from .adv_table import run_table, verify
from .cheaters import Equivocates

CHEATER = 1


def _deep(levels: int) -> Any:
    value: Any = []
    for _ in range(levels):
        value = [value]
    return value


class EquivocatesHugely(Equivocates):
    """Signs two versions of one chat entry, each as deep (or as large) as an entry may be: the
    honest seats' evidence of it (a ``blame`` entry holding both) is deeper and larger than
    any entry may be, so it cannot be signed as it stands."""

    deviation = "an equivocation too deep and too large to quote"
    padding: dict[str, Any] = {}

    async def misbehave(self):
        await self.until_turns(1)
        async with self._wire_lock:
            first = self.log.make_entry(self.identity, self.seat, "chat", {"text": "I have the ace", **self.padding})
            if self.journal is not None:
                self.journal.append_entry(first)
            body = {**first.body, "text": "I have no ace"}
            second = self.forge(self.identity, self.seat, first.seq, first.prev, "chat", body)
            self.cheated = True
            for index, seat in enumerate(self.others):
                await self.connections[seat].send((first if index == 0 else second).to_wire())


@pytest.mark.parametrize(
    "padding",
    [{"x": _deep(28)}, {"x": b"\x00" * (200 << 10)}],
    ids=["deep", "large"],
)
def test_an_equivocation_too_big_to_quote_names_the_cheater_and_loses_no_log(tmp_path, padding):
    cls = type("EquivocatesHugely", (EquivocatesHugely,), {"padding": padding})
    run = run_table("cals-bs", 3, {"match_target": 1}, cheater=CHEATER, peer_factory=cls, transcript_dir=tmp_path)
    info = run.describe()
    assert run.cheater_peer is not None and run.cheater_peer.cheated, info
    for seat, outcome in run.honest.items():
        assert outcome is not None, info
        assert outcome.aborted is not None and outcome.aborted.seat == CHEATER, info
        assert all(b.startswith(f"seat {CHEATER} ") for b in outcome.peer.blames), info
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert status == 1 and problem.get("seat") == CHEATER, f"seat {seat}'s transcript: {status} {report}"

"""A partial partition (issue 28, section 2): the link between seats 0 and 1 alone is down for
longer than the table's timeouts and grace period, while both reach seat 2. Nobody left: seat 2
reaches everyone, and each of seats 0 and 1 reaches one seat. Whatever the game's end, no
honest seat may be named (the seat that nobody can reach is the one named, and here there is
none). Before the seats' ``links`` notices (protocol/wire.md section 4.8), seat 1 named seat 0
as gone at its grace end, and seats 0 and 2 stopped on seat 1's stop: now seat 2's notices say
it reaches seat 0, so seat 1 keeps waiting while seat 0's entries come through seat 2, and the
game completes (or stops naming nobody at a step's last call). On trio's autojump clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pcards.table.timeouts import Timeouts

from .adv_table import verify
from .cheaters import LinkDown
from .test_link_down import run_with_link_down


class LongLinkDown(LinkDown):
    """The link to seat 0 down for longer than any timeout of the table."""

    outage = 30.0


# Slow tier: a whole table with a 30 s outage (~4 s); the notices that keep it from naming
# anybody are checked synchronously in tests/table/test_links_notice.py (fast tier).
@pytest.mark.slow
def test_a_link_down_between_two_seats_past_the_timeouts_names_nobody(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, info = run_with_link_down(tmp_path, monkeypatch, LongLinkDown, Timeouts(deck=4.0, turn=4.0, grace=4.0))
    outcomes = {seat: o for seat, o in run.outcomes.items() if o is not None}
    assert set(run.honest) <= set(outcomes), info  # every seat but the cut one finished
    for outcome in outcomes.values():
        named = outcome.aborted.seat if outcome.aborted is not None else None
        assert named is None, info
        assert outcome.peer.blames == [] and outcome.peer.session.violations == [], info
    # One verdict at every seat: the game completed (through seat 2), or stopped naming nobody.
    ends = {seat: (o.aborted is None, o.result if o.aborted is None else None) for seat, o in outcomes.items()}
    assert len({done for done, _ in ends.values()}) == 1, info
    assert all(o.aborted is None for o in outcomes.values()), info  # measured: it completes
    cut = run.cheater_peer
    assert cut.turns > cut.turns_when_down, info  # the table went on while the link was down
    for seat, outcome in run.honest.items():  # (the cut seat, run as the "cheater", keeps no transcript)
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert status == 0 and problem.get("seat") is None, f"seat {seat}: {problem}\n{info}"
    assert run.outcomes[0].transcript.read_bytes() == run.outcomes[2].transcript.read_bytes(), info

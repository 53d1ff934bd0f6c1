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

from p2pcards.net import table as table_module
from p2pcards.net.lobby import LobbyError
from p2pcards.table.timeouts import Timeouts

from .adv_table import run_table, verify
from .cheaters import LinkDown


class LongLinkDown(LinkDown):
    """The link to seat 0 down for longer than any timeout of the table."""

    outage = 30.0


def test_a_link_down_between_two_seats_past_the_timeouts_names_nobody(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    link_downs: list[LongLinkDown] = []

    class Recorded(LongLinkDown):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            link_downs.append(self)

    dial_seat = table_module.dial_seat

    async def dial_unless_cut(identity, header, me, seat, **kwargs):
        if me == 1 and seat == 0 and link_downs and link_downs[0].down():
            raise LobbyError("no route to seat 0 (the link is down)")
        return await dial_seat(identity, header, me, seat, **kwargs)

    monkeypatch.setattr(table_module, "dial_seat", dial_unless_cut)
    run = run_table(
        "cals-bs",
        3,
        {"match_target": 1},
        cheater=1,
        peer_factory=Recorded,
        transcript_dir=tmp_path,
        timeouts=Timeouts(deck=4.0, turn=4.0, grace=4.0),
        seed=3,
        virtual_time=True,
    )
    info = run.describe()
    assert run.cheater_peer is not None and run.cheater_peer.cheated, info
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

"""A partial partition (issue 28, section 2): the link between seats 0 and 1 alone is down for
longer than the table's timeouts and grace period, while both reach seat 2. Nobody left: seat 2
reaches everyone, and each of seats 0 and 1 reaches one seat. Whatever the game's end, no
honest seat may be named (the seat that nobody can reach is the one named, and here there is
none). Today seat 0 names seat 1 as gone at its grace end (and seat 1 names seat 0), and seat
2 may name the seat that waited on the other. On trio's autojump clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pcards.net import table as table_module
from p2pcards.net.lobby import LobbyError
from p2pcards.table.timeouts import Timeouts

from .adv_table import run_table
from .cheaters import LinkDown


class LongLinkDown(LinkDown):
    """The link to seat 0 down for longer than any timeout of the table."""

    outage = 30.0


@pytest.mark.xfail(
    strict=True, reason="issue 28: a partial partition names a seat that others reach (plan in the report)"
)
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
    for outcome in [o for o in run.outcomes.values() if o is not None]:
        named = outcome.aborted.seat if outcome.aborted is not None else None
        assert named is None, info
        assert outcome.peer.blames == [], info

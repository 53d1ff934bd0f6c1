"""One link down between two seats only (issue 23): seat 1's connection to seat 0 closes and
no redial gets through for 10 s (as when the path between them is cut: the dial fails), while
both reach seat 2. Seat 0 waits for seat 1
to come back (its grace period), but what seat 1 sends reaches it through seat 2 meanwhile: the
wait looks again when one comes (Peer.wait_for_return's ``wake``), and the game completes with
nobody named and a transcript that verifies. The table's timeouts are longer than the outage:
past them a link down between two seats only still ends the game (the third seat, which
reaches both, charges the seat that waits on the other: see docs/troubleshooting.md). On
trio's autojump clock, so the seconds pass at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pcards.net import table as table_module
from p2pcards.net.lobby import LobbyError
from p2pcards.table.timeouts import Timeouts

from .adv_table import TableRun, run_table, verify
from .cheaters import LinkDown

pytestmark = pytest.mark.slow  # whole tables on the mental-poker deck: seconds of crypto each

GRACE = 20.0


def run_with_link_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, link_down: type[LinkDown], timeouts: Timeouts
) -> tuple[TableRun, str]:
    """A 3-seat Cal's BS table (seed 3, on the autojump clock) whose seat 1 is a ``link_down``:
    while its link to seat 0 is down, seat 1's dials to seat 0 fail as on a cut path. Checks
    that the link went down; returns the run and its description."""
    link_downs: list[LinkDown] = []

    class Recorded(link_down):
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
        timeouts=timeouts,
        seed=3,
        virtual_time=True,
    )
    info = run.describe()
    assert run.cheater_peer is not None and run.cheater_peer.cheated, info
    return run, info


def test_the_table_plays_on_through_the_other_seat_while_one_link_is_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    run, info = run_with_link_down(tmp_path, monkeypatch, LinkDown, Timeouts(deck=20.0, turn=20.0, grace=GRACE))
    link_down = run.cheater_peer
    assert set(run.honest) == {0, 2} and all(o is not None for o in run.honest.values()), info
    # (Seat 1 may still be lingering when the others are done: the run then cancels it.)
    for outcome in [o for o in run.outcomes.values() if o is not None]:
        assert outcome.aborted is None and outcome.result is not None, info
        assert outcome.peer.blames == [] and outcome.peer.session.violations == [], info
    # The table went on while the link was down (measured: 3-7 turns in the 10 s with a wait
    # that looks again when a relayed message comes, 1-5 without; the relays wait on the
    # checks' intervals), and after it.
    assert link_down.turns > link_down.turns_when_down, info
    away = [e.text for e in run.outcomes[0].peer.session.history if e.kind == "connection"]
    assert "seat-1 disconnected" in away, away  # the link was down (seat 0 may not have waited on it)
    assert run.outcomes[0].transcript.read_bytes() == run.outcomes[2].transcript.read_bytes()
    status, report = verify(run.outcomes[0].transcript)
    assert status == 0, report

"""A Cal's BS follower whose client is gone is passed for (rules.md I.28; protocol/table.md
section 9, "Absent followers"), in clockwise and in free order, over loopback: the game goes
on without waiting the grace period, every honest seat applies the same passes, and
``p2pcards verify`` replays them from the signed ``absent`` statements. A seat that states
present players absent cannot make their moves vanish."""

from __future__ import annotations

import pytest

from p2pcards.table.timeouts import Timeouts

from .adv_table import blamed, play_until_cheated, verify

pytestmark = pytest.mark.slow  # whole tables on the mental-poker deck: seconds of crypto each

CHEATER = 1
MODES = {"clockwise": {"match_target": 1}, "free": {"match_target": 1, "turn_mode": "free"}}
#: A grace period far longer than passing for a gone follower takes (it is not waited for),
#: short enough for the end of a game that needs the leaver (to lead, or for its key to open
#: or hand over cards after a doubt), and shorter than the step timeouts, as by default: the
#: seat that waits on the leaver stops first, not the seats that wait on that seat.
LONG_GRACE = Timeouts(deck=6.0, turn=6.0, grace=3.0)


def passed_for(outcome, seat):
    """The turns at which ``outcome``'s seat passed for ``seat`` (it was gone)."""
    return outcome.peer.session.seats[seat].passed


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("players", [3, 4])
def test_a_follower_whose_client_is_gone_is_passed_for(tmp_path, players, mode):
    # The leaver's goodbye is unsigned: its connection counts as gone, and it signs nothing more.
    run = play_until_cheated(
        tmp_path,
        "cals-bs",
        players,
        MODES[mode],
        "SaysByeUnsigned",
        cheater=CHEATER,
        timeouts=LONG_GRACE,
        virtual_time=True,
    )
    info = run.describe()
    passes = {seat: len(passed_for(o, CHEATER)) for seat, o in run.honest.items()}
    for _seat, outcome in run.honest.items():
        assert blamed(outcome.peer) <= {CHEATER}, info
        # It is passed for as a follower; the game ends only if it must lead (nobody can play
        # its cards), naming it once the grace period is over, or the hand ends without it.
        if outcome.aborted is not None:
            assert outcome.aborted.seat in (CHEATER, None), info
    finished = [o for o in run.honest.values() if o.aborted is None]
    assert len(finished) in (0, len(run.honest)), info
    for seat, outcome in run.honest.items():
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        if outcome.aborted is None:
            assert status == 0, f"seat {seat}: {problem}\n{info}"
        else:
            assert status == 1 and problem.get("seat") in (CHEATER, None), f"seat {seat}: {problem}\n{info}"
    if max(passes.values()) == 0:
        pytest.skip(f"the leaver had to lead before it was a follower again: {info}")
    if finished:
        assert len(set(passes.values())) == 1, passes


@pytest.mark.parametrize("mode", MODES)
def test_stating_present_players_absent_voids_no_move(tmp_path, mode):
    run = play_until_cheated(tmp_path, "cals-bs", 3, MODES[mode], "StatesAbsentEarly", cheater=CHEATER)
    info = run.describe()
    for seat, outcome in run.honest.items():
        assert outcome.aborted is None and outcome.result is not None, info
        assert outcome.peer.blames == [], info
        for other in range(3):
            if other != seat:
                assert not passed_for(outcome, other), f"seat {other} was passed for while present\n{info}"
        status, report = verify(outcome.transcript)
        assert status == 0, f"seat {seat}: {report.get('problem')}"

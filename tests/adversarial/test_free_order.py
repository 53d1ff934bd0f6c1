"""Cal's BS in free order over loopback (protocol/table.md section 9): whole games between bots
with 3 and 4 players end alike at every seat and their transcripts verify, each round's order
recomputed from the signed head echoes; a seat that answers one round twice is named; one that
withholds its responses from a seat cannot drop them (the others relay them), and one that lies
in its echo to be ordered against responses it never saw never counts."""

from __future__ import annotations

import pytest

from p2pcards.net.peer import Peer

from .adv_table import blamed, play_until_cheated, run_table, verify
from .cheaters import CHEATERS

pytestmark = pytest.mark.slow  # whole tables on the mental-poker deck: seconds of crypto each

CHEATER = 1
FREE = {"match_target": 1, "turn_mode": "free"}


@pytest.mark.parametrize("players", [3, 4])
def test_whole_free_order_games_end_alike_and_verify(tmp_path, players):
    run = run_table("cals-bs", players, FREE, cheater=CHEATER, peer_factory=Peer, transcript_dir=tmp_path, seed=players)
    info = run.describe()
    results = {o.result.to_wire()["winners"][0] for o in run.outcomes.values() if o is not None and o.result}
    assert len(results) == 1 and all(o.aborted is None for o in run.honest.values()), info
    rounds = sum(e.kind == "turn" and "free order" in e.text for e in run.honest[0].peer.session.history)
    assert rounds > 0, "no free-order round was played"
    files = {o.transcript.read_bytes() for o in run.honest.values()}
    assert len(files) == 1  # the same order everywhere: byte-identical transcripts
    for seat, outcome in run.honest.items():
        status, report = verify(outcome.transcript)
        assert status == 0, f"seat {seat}: {report.get('problem')}"


@pytest.mark.parametrize("players", [3, 4])
def test_a_seat_that_answers_one_round_twice_is_named(tmp_path, players):
    for attempt in range(4):
        run = run_table(
            "cals-bs",
            players,
            FREE,
            cheater=CHEATER,
            peer_factory=CHEATERS["RespondsTwice"],
            transcript_dir=tmp_path / str(attempt),
            seed=attempt,
        )
        if run.cheater_peer is not None and run.cheater_peer.cheated:
            break
    info = run.describe()
    for _seat, outcome in run.honest.items():
        assert outcome.aborted is not None and outcome.aborted.seat == CHEATER, info
    for seat, outcome in run.honest.items():
        status, report = verify(outcome.transcript)
        assert status == 1 and (report.get("problem") or {}).get("seat") == CHEATER, f"seat {seat}: {report}"


@pytest.mark.parametrize("players", [3, 4])
def test_a_response_withheld_from_the_next_seat_reaches_it_and_the_game_ends_alike(tmp_path, players):
    run = play_until_cheated(tmp_path, "cals-bs", players, FREE, "WithholdsResponses", cheater=CHEATER)
    _check_ended_alike(run)


@pytest.mark.parametrize("players", [3, 4])
def test_a_response_echoing_entries_never_signed_never_counts(tmp_path, players):
    """Its author tries to place its response against ones it never saw: it is never handed
    on, so the round does not close on it; the cheater is named, or nobody."""
    run = play_until_cheated(tmp_path, "cals-bs", players, FREE, "EchoesUnsignedResponse", cheater=CHEATER)
    info = run.describe()
    for seat, outcome in run.honest.items():
        assert outcome.aborted is not None and outcome.aborted.seat in (CHEATER, None), info
        assert blamed(outcome.peer) <= {CHEATER}, info
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert status == 1 and problem.get("seat") in (CHEATER, None), f"seat {seat}: {problem}\n{info}"


# -- a seat that answers last (issue 28; protocol/table.md section 9, "Late answers") ------------


def _won_over(run, cheater: int) -> list[tuple[int, ...]]:
    """The races an honest seat saw the cheater win: the seats of each race ("... was first;
    ... too late") that the cheater headed."""
    races = []
    for outcome in run.honest.values():
        for event in outcome.peer.session.history:
            seats = tuple(event.data.get("seats") or ()) if event.kind == "notice" else ()
            if len(seats) > 1 and seats[0] == cheater:
                races.append(seats)
    return races


def _check_ended_alike(run) -> str:
    """Every honest seat finished its game naming nobody, its transcript verifies, and the
    transcripts are byte-identical. Returns the run's description."""
    info = run.describe()
    for seat, outcome in run.honest.items():
        assert outcome.aborted is None and outcome.result is not None, info
        assert outcome.peer.blames == [], info
        status, report = verify(outcome.transcript)
        assert status == 0, f"seat {seat}: {report.get('problem')}"
    assert len({o.transcript.read_bytes() for o in run.honest.values()}) == 1
    return info


def test_a_seat_that_waits_for_every_answer_and_echoes_the_rounds_opening_wins_and_verifies(tmp_path):
    """The hole: it answers after every other follower, pre-empting a doubt or play from a seat
    further from the placer's left with a doubt whose echo says it had seen none of them. The
    log cannot tell it from a seat whose incoming link was slow, so it wins that race at every
    seat, nobody is named and the transcripts verify (what every table does today)."""
    run = play_until_cheated(tmp_path, "cals-bs", 4, FREE, "AnswersLast", cheater=CHEATER, attempts=6)
    info = _check_ended_alike(run)
    assert _won_over(run, CHEATER), f"the cheater pre-empted {run.cheater_peer.preempted} but won no race\n{info}"


@pytest.mark.xfail(
    strict=True,
    reason="issue 28, open: from the signed log alone, a response signed after the others "
    "arrived and one whose author's incoming link was slow look the same (protocol/table.md "
    "section 9, 'Late answers'); the fix needs signed arrival statements or sealed responses",
)
def test_a_seat_that_waits_for_every_answer_gains_nothing(tmp_path):
    run = play_until_cheated(tmp_path, "cals-bs", 4, FREE, "AnswersLast", cheater=CHEATER, attempts=6)
    assert _won_over(run, CHEATER) == [], run.describe()


@pytest.mark.parametrize("players", [3, 4])
def test_a_late_answer_whose_echo_went_back_is_named_everywhere_and_by_verify(tmp_path, players):
    """It first signs a chat line with its true echo (counting the answers it waited for), then
    its answer with the echo from the round's opening: every honest seat refuses the answer and
    names it with the two signed entries as proof; verify names it too."""
    run = play_until_cheated(tmp_path, "cals-bs", players, FREE, "AnswersLastEchoBack", cheater=CHEATER, attempts=8)
    info = run.describe()
    for seat, outcome in run.honest.items():
        assert outcome.aborted is not None and outcome.aborted.seat == CHEATER, info
        assert blamed(outcome.peer) == {CHEATER}, info
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert status == 1 and problem.get("seat") == CHEATER, f"seat {seat}: {problem}\n{info}"
        assert "echo-backwards" in str(problem), f"seat {seat}: {problem}"

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


def _won_over(run, cheater: int, since: int = 0) -> list[tuple[int, ...]]:
    """The races an honest seat saw the cheater win from move ``since`` on: the seats of each
    race ("... was first; ... too late") that the cheater headed."""
    races = []
    for outcome in run.honest.values():
        for event in outcome.peer.session.history:
            seats = tuple(event.data.get("seats") or ()) if event.kind == "notice" else ()
            if len(seats) > 1 and seats[0] == cheater and event.data.get("turn", since) >= since:
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


def test_a_seat_that_waits_for_every_answer_gains_nothing(tmp_path):
    """Issue 28, closed by sealed responses (protocol version 8): it waits until every other
    follower has answered and signs its own with the head echo it had as the round opened. It
    learns only that they answered (a commitment says nothing of its response), so it never
    pre-empts a doubt or play of a seat further from the placer's left; its waiting is no
    fault anyone can see, so nobody is named and the transcripts verify."""
    run = play_until_cheated(tmp_path, "cals-bs", 4, FREE, "AnswersLast", cheater=CHEATER, attempts=6)
    info = _check_ended_alike(run)
    assert run.cheater_peer.preempted == [], info
    # (Before its first round answered last it plays honestly, and may win a race by its seat:
    # the bots doubt early since they are told the game's events.)
    assert run.cheater_peer.first_cheat is not None, info
    assert _won_over(run, CHEATER, since=run.cheater_peer.first_cheat) == [], info


# -- the opening of sealed responses (protocol version 8) -----------------------------------------


def _named_everywhere(run, code: str | None = None) -> None:
    """Every honest seat stopped naming the cheater, and verify names it on every transcript
    (its reason containing ``code``, if given)."""
    info = run.describe()
    for seat, outcome in run.honest.items():
        assert outcome.aborted is not None and outcome.aborted.seat == CHEATER, info
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert status == 1 and problem.get("seat") == CHEATER, f"seat {seat}: {problem}\n{info}"
        if code is not None:
            assert code in str(problem), f"seat {seat}: {problem}"


@pytest.mark.parametrize("players", [3, 4])
def test_an_opening_of_something_else_than_committed_is_named(tmp_path, players):
    run = play_until_cheated(tmp_path, "cals-bs", players, FREE, "OpensOtherThanCommitted", cheater=CHEATER)
    for outcome in run.honest.values():
        assert blamed(outcome.peer) == {CHEATER}, run.describe()
    _named_everywhere(run, "other than it committed to")


@pytest.mark.parametrize("players", [3, 4])
def test_an_opening_before_the_round_is_sealed_is_named(tmp_path, players):
    run = play_until_cheated(tmp_path, "cals-bs", players, FREE, "OpensBeforeSealed", cheater=CHEATER, attempts=6)
    for outcome in run.honest.values():
        assert blamed(outcome.peer) == {CHEATER}, run.describe()
    _named_everywhere(run, "before the round was sealed")


@pytest.mark.parametrize("players", [3, 4])
def test_a_withheld_opening_is_not_passed_for_and_names_its_seat(tmp_path, players):
    """Its commitment is in, the others opened, its opening never comes: the table does not
    pass for it (it could turn a committed doubt into a pass), it waits the deck timeout and
    stops naming it; verify names it from the transcript too."""
    run = play_until_cheated(tmp_path, "cals-bs", players, FREE, "WithholdsOpening", cheater=CHEATER)
    _named_everywhere(run, "opening")  # "withheld its opening", or "left" (no seed revealed)


@pytest.mark.parametrize("players", [3, 4])
def test_a_seat_that_commits_twice_to_one_round_is_named(tmp_path, players):
    run = play_until_cheated(tmp_path, "cals-bs", players, FREE, "CommitsTwice", cheater=CHEATER, attempts=6)
    _named_everywhere(run, "committed twice")


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


@pytest.mark.parametrize("players", [3, 4])
def test_an_illegal_response_opened_and_applied_names_its_author(tmp_path, players):
    """Sealed, an illegal play cannot be refused before it is opened; once opened and applied
    (it decides the round) the rules refuse it and every seat names its author, as verify
    does (the table named nobody before: a round's step has no one seat). A game where it was
    void (an earlier response decided the round) does not count here."""
    run = play_until_cheated(
        tmp_path,
        "cals-bs",
        players,
        FREE,
        "OpensIllegal",
        cheater=CHEATER,
        attempts=8,
        ready=lambda run: any(o.aborted is not None for o in run.honest.values()),
    )
    _named_everywhere(run, "illegal move")

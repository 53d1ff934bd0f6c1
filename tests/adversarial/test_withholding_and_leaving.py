"""A hostile seat must not get an honest one named (issue 19 section 2), with 3 and 4 players
over loopback: every honest seat, and ``p2pcards verify`` on every honest transcript, names
the cheater or nobody.

* withholding to frame: a seat sends its passes and moves to every seat but the next one;
* leaving with an unsigned goodbye while another seat is to move;
* (no cheating) a player who quits while another is to move: the leaver is named, by verify too.
"""

from __future__ import annotations

import pytest

from .adv_table import blamed, play_until_cheated, verify

pytestmark = pytest.mark.slow  # whole tables on the mental-poker deck: seconds of crypto each

CHEATER = 1
TABLES = {3: ("cals-bs", 3, {"match_target": 1}), 4: ("crazy-eights", 4, {})}


def play(tmp_path, name, players, *, seed=0, known_disagreement=None):
    game, count, options = TABLES[players]
    return play_until_cheated(
        tmp_path, game, count, options, name, cheater=CHEATER, seed=seed, known_disagreement=known_disagreement
    )


def assert_cheater_or_nobody(run):
    """Every honest seat, and verify on every honest transcript, names the cheater or nobody."""
    info = run.describe()
    for _seat, outcome in run.honest.items():
        assert outcome.aborted is not None and outcome.aborted.seat in (CHEATER, None), info
        assert blamed(outcome.peer) <= {CHEATER}, info
    for seat, outcome in run.honest.items():
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert status == 1 and problem.get("seat") in (CHEATER, None), f"seat {seat}: {problem}\n{info}"


@pytest.mark.parametrize("players", [3, 4])
def test_a_pass_or_move_withheld_from_the_next_seat_reaches_it_through_the_others(tmp_path, players):
    run = play(tmp_path, "WithholdsFromNext", players)
    info = run.describe()
    for _seat, outcome in run.honest.items():
        assert outcome.aborted is None and outcome.result is not None, info
        assert outcome.peer.blames == [], info
    for seat, outcome in run.honest.items():
        status, report = verify(outcome.transcript)
        assert status == 0, f"seat {seat}: {report.get('problem')}"


@pytest.mark.parametrize("players", [3, 4])
def test_an_unsigned_goodbye_counts_against_the_leaver_not_the_seat_to_move(tmp_path, players):
    run = play(tmp_path, "SaysByeUnsigned", players)
    info = run.describe()
    if all(o.aborted is None and o.result is not None for o in run.honest.values()):
        # The rules passed for the leaver to the game's end (Cal's BS rule 28, an absent
        # follower): since protocol version 12 the end of a game waits for no seat's seed, so the
        # others finish without it, naming nobody, and their transcripts verify.
        for seat, outcome in run.honest.items():
            assert outcome.peer.blames == [], info
            status, report = verify(outcome.transcript)
            assert status == 0, f"seat {seat}: {report.get('problem')}\n{info}"
        return
    # The seat the game needs the leaver for names it; a seat waiting on that one stops on its
    # stop entry, naming nobody.
    assert_cheater_or_nobody(run)
    assert any(o.aborted.seat == CHEATER for o in run.honest.values()), info


@pytest.mark.parametrize("players", [3, 4])
def test_a_player_who_quits_mid_turn_is_named_at_once_and_by_verify(tmp_path, players):
    run = play(tmp_path, "QuitsSigned", players)
    info = run.describe()
    for _seat, outcome in run.honest.items():
        assert outcome.aborted is not None and outcome.aborted.seat == CHEATER, info
        assert "left the table" in outcome.aborted.reason, info
        assert blamed(outcome.peer) <= {CHEATER}, info
    for seat, outcome in run.honest.items():
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        # A goodbye, not a fault: LEFT (exit 3), naming who left.
        assert status == 3 and report["verdict"] == "left", f"seat {seat}: {problem}"
        assert problem.get("seat") == CHEATER, f"seat {seat}: {problem}"
        assert "left the table" in problem.get("reason", ""), f"seat {seat}: {problem}"


@pytest.mark.parametrize("players", [3, 4])
def test_a_pass_that_echoes_entries_never_signed_names_its_author_or_nobody(tmp_path, players):
    # No honest seat can hand the pass on (causal order), so the next seat's step never comes:
    # the live seats name the cheater, and verify must not name that next seat for it.
    assert_cheater_or_nobody(play(tmp_path, "EchoesUnsignedEntry", players))


@pytest.mark.parametrize("players", [3, 4])
def test_a_seat_that_stops_while_waiting_on_a_stopped_seat_is_not_named_for_what_came_after(tmp_path, players):
    # The cheater says it stopped, then sends what it owed once a waiting seat has stopped too.
    # Verify of every honest file names the cheater for the deck entry it signed after its own
    # stop (protocol/table.md section 5), if the file holds it; a seat that stopped on the
    # cheater's stop and got that entry while winding down names the cheater too, by the same
    # rule (table/verdict.py's played_after_stop; issue 28: it named nobody), and the
    # agreement check of run_table says so.
    run = play(tmp_path, "StopsThenPlaysOn", players)
    assert_cheater_or_nobody(run)
    info = run.describe()
    for seat, outcome in run.honest.items():
        status, report = verify(outcome.transcript)
        if (report.get("problem") or {}).get("seat") == CHEATER:
            assert outcome.aborted.seat == CHEATER, f"seat {seat}\n{info}"

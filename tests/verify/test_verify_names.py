"""``p2pcards verify`` names the players (issue 22): its problem line, notes, violations and
result say "bob", never "seat 1"; the JSON keeps every numeric seat field and adds the names."""

from __future__ import annotations

from p2pcards.game import Result
from p2pcards.verify import EXIT_FAILED, EXIT_VERIFIED, Problem, Report, verify_file

from .verify_tables import write


def test_a_problem_line_names_the_player_to_blame_and_the_json_keeps_the_seat(bs_table, tmp_path):
    transcript = bs_table.read()
    log = transcript.log()
    me = bs_table.identities[1]
    stop = log.make_entry(me, 1, "stop", {"reason": "pretending to stop", "seat": None})
    after = log.make_entry(me, 1, "action", {"turn": 0, "action": {"type": "pass"}})
    report = verify_file(write(tmp_path / "after-stop.p2pt", transcript, transcript.entries + [stop, after]))
    assert report.status == EXIT_FAILED and report.problem.seat == 1
    name = report.players[1]["name"]
    line = report.problem_line()
    assert line.startswith(f"log #{after.seq} of {name}: ") and line.endswith(f"; to blame: {name}")
    assert "seat 1" not in line and f"verdict: FAILED at {line}" in report.to_text()
    problem = report.to_json()["problem"]
    assert problem["seat"] == 1 and problem["name"] == name
    assert problem["step"] == f"log #{after.seq} of seat 1"  # the JSON's text is as it was


def test_a_verified_report_names_the_winners_in_text_and_json(bs_table):
    report = bs_table.report
    assert report.status == EXIT_VERIFIED
    names = [p["name"] for p in report.players]
    winners = report.result.winners
    text = report.to_text()
    result_line = next(line for line in text.splitlines() if line.startswith("result: "))
    assert names[winners[0]] in result_line and "seat" not in result_line
    assert "in hands won" not in result_line and f"hands: {names[0]} won " in result_line  # each count by its name
    data = report.to_json()
    assert data["result_text"] == result_line.removeprefix("result: ")
    assert data["result"]["winners"] == list(winners)  # the signed result, as it is
    assert data["winner_names"] == [names[s] for s in winners]


def test_names_shared_or_empty_keep_the_seat_number_so_blame_names_one_player():
    report = Report(
        file="x.p2pt",
        status=EXIT_FAILED,
        problem=Problem("deck entry #3 of seat 1 (log #9)", "a bad pass to seats 0 and 2", 1),
        players=[{"seat": s, "name": n, "fingerprint": "ab12"} for s, n in enumerate(["bot", "bot", "carol"])],
        result=Result((2,), (0.0, 0.0, 1.0), "seat 2 wins the match"),
        violations=[{"seat": 2, "action_index": 4, "message": "led quads on seat 0's turn"}],
        notes=["seat 0 signed no result"],
    )
    assert report.names() == ["bot (seat 0)", "bot (seat 1)", "carol"]
    assert report.problem_line() == (
        "deck entry #3 of bot (seat 1) (log #9): a bad pass to bot (seat 0) and carol; to blame: bot (seat 1)"
    )
    text = report.to_text()
    assert "result: carol wins the match" in text
    assert "violation: turn 4, carol: led quads on bot (seat 0)'s turn" in text
    assert "note: bot (seat 0) signed no result" in text
    data = report.to_json()
    assert data["violations"] == [
        {"seat": 2, "action_index": 4, "message": "led quads on seat 0's turn", "name": "carol"}
    ]
    assert data["problem"]["seat"] == 1 and data["problem"]["name"] == "bot (seat 1)"


def test_a_count_of_one_check_is_said_in_the_singular():
    """``1 seed against its commitment``, not ``1 seeds against their commitments`` (issue 30's
    review: the leaver's own transcript of an ended game holds one revealed seed)."""
    from p2pcards.verify.report import _describe_checks

    text = _describe_checks({"entries": 29, "seeds": 1, "moves": 4, "results": 1})
    assert text == (
        "29 signed entries (signatures, per-seat hash chains); 1 seed against its commitment; "
        "4 moves replayed with the rules; 1 signed result"
    )

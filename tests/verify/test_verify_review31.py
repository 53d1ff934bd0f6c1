"""Review of issue 31's faster verify: every forged transcript must get the same verdict (status,
seat named, step) as the check-as-you-go verify before it, and never a crash. The walk over the
deck operations now goes on past a re-handling whose check is only started (verify/passes.py):
what it reads of that re-handling must not be trusted before its shape is checked."""

from __future__ import annotations

import dataclasses

import pytest

from p2pcards.verify import EXIT_FAILED, verify_file

from .verify_tables import resign, write


def _deck(entry, kind: str):
    msg = entry.body.get("msg") if entry.kind == "deck" else None
    return msg if isinstance(msg, dict) and msg.get("type") == kind else None


def _forge(table, entry, bend):
    transcript = table.read()
    current = next(e for e in transcript.entries if (e.sender, e.seq) == (entry.sender, entry.seq))
    body = {**current.body, "msg": bend(current.body["msg"])}
    return dataclasses.replace(transcript, entries=resign(transcript, table.identities, current, body))


@pytest.mark.parametrize(
    "bend",
    [
        pytest.param(lambda msg: {k: v for k, v in msg.items() if k != "points"}, id="points-missing"),
        pytest.param(lambda msg: {**msg, "points": 5}, id="points-int"),
        pytest.param(lambda msg: {**msg, "points": None}, id="points-none"),
        pytest.param(lambda msg: {**msg, "points": {"a": 1}}, id="points-map"),
        pytest.param(lambda msg: {**msg, "points": ["a"] * len(msg["points"])}, id="points-strings"),
    ],
)
def test_a_re_handling_without_its_points_names_its_author(bs_table, tmp_path, bend):
    """A re-handling whose ``points`` are missing or not points: every seat refused it for its
    shape, and verify names its author (it raised a KeyError or TypeError out of verify_file
    when the walk went on to number the re-handled cards before the check had run)."""
    entries = bs_table.read().entries
    rehandle = next(e for e in entries if _deck(e, "rehandle") and _deck(e, "rehandle")["moved"])
    report = verify_file(write(tmp_path / "a.p2pt", _forge(bs_table, rehandle, bend)), progress=lambda _: None)
    assert report.status == EXIT_FAILED, report.problem_line()
    assert report.problem.seat == rehandle.sender, report.problem_line()
    assert report.problem.step.startswith(f"rehandle message of seat {rehandle.sender} "), report.problem_line()


def test_a_bent_re_lock_before_a_re_handling_without_points_is_the_one_named(bs_table, tmp_path):
    """Two cheats: the shuffle's re-lock proof bent (checked ahead), then a re-handling with no
    points (found by the walk at once, now): the re-lock's author, whose cheat came first."""
    transcript = bs_table.read()
    # The deck is dealt unseeded, so which seat takes the pile varies: the re-lock is chosen to
    # be another seat's (every seat re-locks in the shuffle, before any re-handling).
    rehandle = next(e for e in transcript.entries if _deck(e, "rehandle") and _deck(e, "rehandle")["moved"])
    relock = next(e for e in transcript.entries if _deck(e, "relock") and e.sender != rehandle.sender)

    def bent(msg):
        return {**msg, "proof": {**msg["proof"], "c": bytes([msg["proof"]["c"][0] ^ 1]) + msg["proof"]["c"][1:]}}

    forged = _forge(bs_table, relock, bent)
    current = next(e for e in forged.entries if (e.sender, e.seq) == (rehandle.sender, rehandle.seq))
    body = {**current.body, "msg": {k: v for k, v in current.body["msg"].items() if k != "points"}}
    forged = dataclasses.replace(forged, entries=resign(forged, bs_table.identities, current, body))
    report = verify_file(write(tmp_path / "a.p2pt", forged), progress=lambda _: None)
    assert report.status == EXIT_FAILED, report.problem_line()
    assert report.problem.seat == relock.sender, report.problem_line()
    assert report.problem.step.startswith(f"relock pass of seat {relock.sender} "), report.problem_line()

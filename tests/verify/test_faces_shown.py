"""``p2pcards verify --json`` says what a transcript shows (issue 32): ``faces_shown``, the cards
whose face the table saw (opened to all, with the seats that saw them), and ``faces_decodable``,
the cards anyone holding the file can decode. On real networked games of the four bundled
games: the shown faces are exactly the cards the game's reveals turned up, every seat saw each,
and they are all the game's audit read. No seed is revealed since protocol version 12, so the
cards decodable from the file are exactly those: ``faces_shown == faces_decodable`` for every
bundled game."""

from __future__ import annotations

import json

import pytest

from p2pcards.verify import EXIT_VERIFIED

TABLES = ["bs_table", "calypso_table", "eights_table", "holdem_table"]


def _reveals(timeline):
    """The faces the timeline's reveal events turned up (by face, as the report writes them)."""
    return [card for event in timeline if event["kind"] == "reveal" for card in event["cards"]]


@pytest.mark.parametrize("table", TABLES)
def test_faces_shown_are_the_cards_turned_up_for_everyone(table, request, cli):
    table = request.getfixturevalue(table)
    done = cli("verify", str(table.path), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    players = len(report["players"])
    shown, decodable = report["faces_shown"], report["faces_decodable"]
    assert shown, "every bundled game turns cards up"
    assert all(entry["seen_by"] == list(range(players)) for entry in shown)
    # Each shown card is decodable, with the same face.
    faces = {e["handle"]: e["card"] for e in decodable}
    assert all(faces[e["handle"]] == e["card"] for e in shown)
    # The same cards the game's reveals turned up.
    checked = table.report
    assert checked.status == EXIT_VERIFIED and checked.faces_shown is not None
    # (as sets of faces: a card public already may be turned up again, a going-out play say)
    assert {card.unicode() for card, _ in checked.faces_shown.values()} == set(_reveals(checked.timeline))


@pytest.mark.parametrize("table", TABLES)
def test_a_finished_game_shows_no_more_than_the_table_saw(table, request):
    """No seed is revealed (protocol version 12): what a finished game's transcript lets anyone
    decode is exactly what the table saw (Cal's BS: its undoubted sets and hands stay hidden;
    Crazy Eights: an undrawn stock; Calypso: every card is played face up; Hold'em: folded and
    mucked hands, and the cards never dealt to the board)."""
    report = request.getfixturevalue(table).report
    assert report.faces_shown is not None and report.faces_decodable is not None
    assert set(report.faces_decodable) == set(report.faces_shown)

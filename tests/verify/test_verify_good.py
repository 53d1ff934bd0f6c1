"""``p2pcards verify`` on honest transcripts of whole networked games: exit 0, a clean report."""

from __future__ import annotations

import json
import re

import pytest

from p2pcards.cards import parse_cards
from p2pcards.game import Result, options_words, result_words
from p2pcards.plugins import load_plugins
from p2pcards.text import name_seats
from p2pcards.verify import EXIT_VERIFIED

from .verify_tables import won_hand_pickups


@pytest.fixture(
    params=[
        "bs_table",
        # slow: up to four two-hand matches to play before its first test
        pytest.param("bs_challengeable_table", marks=pytest.mark.slow),
        "calypso_table",
    ]
)
def table(request):
    return request.getfixturevalue(request.param)


def test_every_seat_wrote_the_same_transcript(table):
    first = table.paths[0].read_bytes()
    assert all(path.read_bytes() == first for path in table.paths[1:])


def test_verify_reports_the_game_and_result(table, cli):
    transcript = table.read()
    done = cli("verify", str(table.path))
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "verdict: VERIFIED" in out
    names = list(transcript.header.names)
    game = load_plugins().game(transcript.header.game)
    said = result_words(game, Result.from_wire(transcript.end.result))  # the game's own words
    assert f"result: {name_seats(said, names)}" in out  # by name, not "seat 1"
    for name in transcript.header.names:
        assert name in out
    # Options in the game's words, as the lobby says them; players in seat order, unnumbered.
    assert f"options: {options_words(game.options, dict(transcript.header.options))}" in out
    assert "=" not in out.split("options: ")[1].split("\n")[0]
    assert not re.search(r"\bseats? \d", out), out
    assert "sealed boxes cannot be opened" in out
    assert "what happened" not in out  # hands only on request


def test_json_is_one_object(table, cli):
    done = cli("verify", str(table.path), "--json", "--show-hands")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    transcript = table.read()
    assert report["verdict"] == "verified" and report["exit"] == 0 and report["problem"] is None
    assert report["game"]["id"] == table.game
    # The machine fields as signed; the summary in the game's words, by name, not "seat 1".
    names = list(transcript.header.names)
    said = result_words(load_plugins().game(table.game), Result.from_wire(transcript.end.result))
    assert report["result"] == {**transcript.end.result, "summary": name_seats(said, names)}
    assert report["result_text"] == report["result"]["summary"]
    assert report["winner_names"] == [transcript.header.names[s] for s in transcript.end.result["winners"]]
    assert [p["name"] for p in report["players"]] == list(transcript.header.names)
    checked = report["checked"]
    assert checked["entries"] == len(transcript.entries)
    assert "seeds" not in checked and checked["results"] == len(transcript.header.names)  # (no seed used)
    assert checked["public"] > 0 and checked["private"] > 0 and checked["moves"] > 0
    moves = [e for e in report["timeline"] if e["kind"] == "move"]
    assert [m["turn"] for m in moves] == list(range(checked["moves"]))


def test_show_hands_shows_every_deal_and_move(table):
    report = table.report
    assert report.status == EXIT_VERIFIED, report.problem_line()
    text = report.to_text(show_hands=True)
    deals = [e for e in report.timeline if e["kind"] == "deal"]
    assert deals and "deal:" in text
    dealt = sum(len(cards) for deal in deals for cards in deal["hands"].values())
    assert dealt > 0
    for event in report.timeline:
        if event["kind"] == "move":
            assert f"turn {event['turn']}, {report.name(event['seat'])}:" in text
            # every card a move references is shown with its face
            for card in event["cards"]:
                assert card in text
    assert Result.from_wire(table.read().end.result) == report.result


def test_cals_bs_claims_show_no_card_placed_face_down(bs_table):
    """Issue 32: a claim's cards go down face down; the report shows none of them (the table
    never saw them), and a doubted set is shown by the reveal that turned it up."""
    report = bs_table.report
    claims = [e for e in report.timeline if e["kind"] == "move" and e["action"]["type"] == "play"]
    assert claims and all(claim["cards"] == [] for claim in claims)
    doubts = [e for e in report.timeline if e["kind"] == "move" and e["action"]["type"] == "doubt"]
    reveals = [e for e in report.timeline if e["kind"] == "reveal"]
    assert len(reveals) >= len(doubts) and all(reveal["cards"] for reveal in reveals)


@pytest.mark.slow  # a two-hand match, up to 4 times
def test_cals_bs_challengeable_doubter_of_a_true_final_set_takes_the_pile(bs_challengeable_table):
    """Rule 27 over the network: the doubter of a true final set takes the pile (a transfer the
    replay checks) and the player wins the hand; the transcript verifies."""
    report = bs_challengeable_table.report
    assert report.status == EXIT_VERIFIED, report.problem_line()
    pickups = won_hand_pickups(report.timeline)
    assert pickups
    winners = report.result.details["hand_winners"]
    for final, doubt, transfer in pickups:
        assert final["action"]["type"] == "play" and doubt["action"]["type"] == "doubt"
        assert transfer["to"] == doubt["seat"] != final["seat"] and final["seat"] in winners
        rank = final["action"]["rank"]
        cards = parse_cards(" ".join(final["cards"]))
        assert all(c.is_joker or c.rank.symbol == rank for c in cards)
        assert set(final["cards"]) <= set(transfer["cards"])  # the whole pile, the final set too


def test_a_reader_that_stops_reading_ends_the_command_quietly(bs_table):
    """``p2pcards verify --show-hands FILE | head -1``: the command stops when its reader
    does, without "p2pcards: error: Broken pipe" or a traceback."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).with_name("p2pcards")
    with subprocess.Popen(
        [str(exe), "verify", "--show-hands", str(bs_table.path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline().startswith(b"transcript: ")
        proc.stdout.close()  # as head does after its line
        errors = proc.stderr.read().decode()
        proc.wait(timeout=120)
    assert errors == "", errors

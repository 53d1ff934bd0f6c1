"""``p2pcards replay``: the steps of real transcripts (bot peers over 127.0.0.1), what each
seat is shown at each step, moving about, and ``--print``."""

from __future__ import annotations

import random
import re
import shutil

import pytest

from p2pcards.cli import main
from p2pcards.console.replay import ReplayCursor, print_replay, replay_model, step_text
from p2pcards.plugins import load_plugins
from p2pcards.replay import SPECTATOR, is_spectator_file, load_replay, seat_of_file
from p2pcards.session import BotSeat, DroppingOut
from p2pcards.testing import run_loopback
from p2pcards.verify import EXIT_FAILED, EXIT_UNREADABLE, EXIT_VERIFIED, verify_file

from .verify_tables import resign, write

TABLES = ["bs_table", "calypso_table", "eights_table"]
CARD = re.compile(r"(?<![\w])(10|[2-9JQKA])([♠♥♦♣])")


@pytest.fixture(scope="module")
def replays(request):
    """One replay per game (loaded once: the tables are played once per session)."""
    return {name: load_replay(request.getfixturevalue(name).path) for name in TABLES}


@pytest.mark.parametrize("table", TABLES)
def test_every_event_of_the_verify_timeline_is_a_step(replays, table, request):
    replay = replays[table]
    report = request.getfixturevalue(table).report
    assert replay.verified and replay.report.status == EXIT_VERIFIED == report.status
    assert len(replay.steps) == len(report.timeline)
    assert [s.kind for s in replay.steps] == [e["kind"] for e in report.timeline]
    moves = [e["turn"] for e in report.timeline if e["kind"] == "move"]
    assert [s.turn for s in replay.steps if s.turn is not None] == moves == list(range(len(moves)))
    assert replay.faces is not None  # a finished game: the audit opened every card
    assert replay.hand_count >= 1 and replay.stopped_line() is None
    last = replay_model(replay, len(replay.steps) - 1, 0)
    assert last.status.startswith("game over: ") and not any(s.to_act for s in last.seats)


def _visible(timeline: list[dict], seat: int) -> list[set[str]]:
    """The faces ``seat`` may have seen after each event, from the verify timeline with the
    audit's faces alone (not from the replay): its own dealt cards, every card shown to all,
    cards handed to it."""
    seen: set[str] = set()
    out = []
    for event in timeline:
        if event["kind"] == "deal":
            seen |= set(event["hands"].get(seat, []))
        elif event["kind"] == "reveal" or (event["kind"] == "transfer" and event["to"] == seat):
            seen |= set(event["cards"])
        out.append(set(seen))
    return out


@pytest.mark.parametrize("table", TABLES)
def test_a_seat_is_never_shown_a_face_it_could_not_see(replays, table, request):
    """At every step, for every seat: the faces the replay holds for it, and every card on its
    screen (log, table, hand, status), were dealt to it, shown to everyone or handed to it."""
    replay = replays[table]
    timeline = request.getfixturevalue(table).report.timeline
    hidden_somewhere = False
    for seat in range(replay.players):
        visible = _visible(timeline, seat)
        for step in replay.steps:
            allowed = visible[step.index]
            known = {c.unicode() for c in step.known[seat].values()}
            assert known <= allowed, f"step {step.index}, seat {seat}: {known - allowed}"
            shown = {m.group(0) for line in step_text(replay, step.index, seat) for m in CARD.finditer(line)}
            assert shown <= allowed, f"step {step.index}, seat {seat} is shown {shown - allowed}"
            everything = {c.unicode() for c in replay.faces.values()}
            hidden_somewhere |= bool(everything - allowed)
    assert hidden_somewhere  # the check had hidden cards to catch


@pytest.mark.parametrize("table", TABLES)
def test_every_hand_is_shown_once_the_audit_opened_them(replays, table):
    """The hands with every face the table saw (issue 32: no seed is used): in Calypso every
    card of a deal is played face up, so every hand is whole; elsewhere a card nobody turned
    up stays hidden, and what is shown is what the table saw."""
    replay = replays[table]
    dealt = next(s.index for s in replay.steps if s.kind == "deal")
    hands = replay.hands(dealt)
    assert len(hands) == replay.players
    assert all(hands) if table == "calypso_table" else any(hands)
    assert {c for hand in hands for c in hand} <= set((replay.faces or {}).values())
    lines = step_text(replay, dealt, None)
    for name, hand in zip(replay.names, hands):
        if hand:  # (a hand none of whose cards the table saw has no line)
            assert f"   {name}: {' '.join(c.unicode() for c in hand)}" in lines
    # A face-down play shows its faces to everyone only here.
    assert replay.log(len(replay.steps) - 1, None) != replay.log(len(replay.steps) - 1, 0) or table == "eights_table"


def test_another_seats_face_down_play_is_written_without_its_faces(replays):
    replay = replays["bs_table"]
    play = next(s for s in replay.steps if s.kind == "move" and s.event["action"].get("type") == "play")
    actor = play.event["seat"]
    other = (actor + 1) % replay.players
    (_, mine), (_, theirs) = replay.describe(play.index, actor)[0], replay.describe(play.index, other)[0]
    # Issue 32: no seat's hidden cards are in the file (no seed is used): a face-down play is
    # written without its faces for every viewer, its player's too.
    assert not CARD.search(step_text(replay, play.index, actor)[1]), mine
    assert not CARD.search(step_text(replay, play.index, other)[1]), theirs
    assert mine.startswith(replay.names[actor]) and theirs.startswith(replay.names[actor])


def test_moving_about(replays):
    replay = replays["calypso_table"]
    cursor = ReplayCursor(replay, seat=1)
    assert cursor.index == 0 and cursor.log
    assert cursor.handle("n").message == "" and cursor.index == 1
    cursor.handle("")  # Enter: the next step too
    assert cursor.index == 2
    cursor.handle("p")
    assert cursor.index == 1
    assert cursor.handle("p").message == "" and cursor.handle("p").error  # before the first
    assert cursor.index == 0
    cursor.handle("hand 2")
    assert replay.steps[cursor.index].hand == 2 and replay.steps[cursor.index - 1].hand == 1
    cursor.handle("trick 5")
    step = replay.steps[cursor.index]
    assert (step.hand, step.trick) == (2, 5) and replay.steps[cursor.index - 1].trick == 4
    cursor.handle("turn 10")
    assert replay.steps[cursor.index].turn == 10
    assert len(cursor.log) == sum(len(replay.describe(i, 1)) for i in range(cursor.index + 1))
    cursor.handle("last")
    assert cursor.index == len(replay.steps) - 1 and cursor.handle("n").error
    cursor.handle("first")
    assert cursor.index == 0
    assert cursor.handle("hand 99").error and cursor.index == 0
    assert cursor.handle("seat 3").message and cursor.seat == 3
    assert cursor.handle("seat 7").error and cursor.seat == 3
    assert cursor.handle("all").message and cursor.seat is None
    assert "face up" in cursor.handle("table").message and cursor.seat == SPECTATOR
    assert not any(line.text.startswith("  ") for line in cursor.log)  # nobody's dealt cards
    assert cursor.handle("seat 0") and cursor.seat == 0
    assert cursor.handle("dance").error
    assert cursor.handle("q").intent == "quit"


def test_a_game_without_tricks_says_so(replays):
    cursor = ReplayCursor(replays["bs_table"], seat=0)
    feedback = cursor.handle("trick 2")
    assert feedback.error and "no tricks" in feedback.message and cursor.index == 0
    cursor.handle("hand 1")
    assert replays["bs_table"].steps[cursor.index].kind == "deal"


def test_a_transcript_that_does_not_verify_replays_as_far_as_it_goes(bs_table, tmp_path):
    transcript = bs_table.read()
    moves = {e.body["turn"]: e for e in transcript.entries if e.kind == "action"}
    # Seat 0's third move or a later one whose move before it was no doubt (a doubt's reveal
    # and pickup would be the last steps replayed, not that move; bs_table doubts at turn 1).
    entry = next(
        e
        for e in [m for _, m in sorted(moves.items()) if m.sender == 0][2:]
        if moves[e.body["turn"] - 1].body["action"]["type"] != "doubt"
    )
    body = {**entry.body, "action": {"type": "no-such-move"}}
    path = write(tmp_path / "illegal-seat0.p2pt", transcript, resign(transcript, bs_table.identities, entry, body))
    replay = load_replay(path)
    assert replay.report.status == EXIT_FAILED and replay.verdict_line().startswith("FAILED at turn")
    assert replay.steps and replay.steps[-1].turn == entry.body["turn"] - 1
    assert replay.faces is None  # no audit: one seat at a time
    assert f"turn {entry.body['turn'] - 1}" in replay.stopped_line()
    cursor = ReplayCursor(replay, seat=None)
    assert cursor.seat == 0 and cursor.handle("all").error
    text = print_replay(replay, 0)
    assert "verdict: FAILED at turn" in text and text.splitlines()[-1].startswith("== replayed as far as")


def test_the_seat_that_saved_the_file(bs_table):
    assert [seat_of_file(p, 3) for p in bs_table.paths] == [0, 1, 2]
    assert seat_of_file("game.p2pt", 3) == 0 and seat_of_file("t-seat5.p2pt", 3) == 0


def test_print(eights_table, capsys):
    path = str(eights_table.paths[1])
    assert main(["replay", "--print", path]) == EXIT_VERIFIED
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[1] == "verdict: VERIFIED: signatures, shuffles, every move and the result check out"
    names = list(load_replay(path).names)
    assert lines[2].endswith(f": what {names[1]} saw")  # the seat that saved the file, by name
    assert "== step 1 of " in out and "status: game over: " in out
    assert main(["replay", "--print", "--all", path]) == EXIT_VERIFIED
    assert "Crazy Eights: every hand" in capsys.readouterr().out
    assert main(["replay", "--print", "--seat", "2", path]) == EXIT_VERIFIED
    assert f"what {names[2]} saw" in capsys.readouterr().out


def test_print_refuses_what_it_cannot_show(eights_table, tmp_path, capsys):
    cut = tmp_path / "cut.p2pt"
    cut.write_bytes(eights_table.path.read_bytes()[:-200])
    assert main(["replay", "--print", str(cut)]) == EXIT_UNREADABLE
    assert "incomplete" in capsys.readouterr().err
    assert main(["replay", "--print", str(tmp_path / "missing.p2pt")]) == EXIT_UNREADABLE
    assert main(["replay", "--print", "--seat", "5", str(eights_table.path)]) == 2
    assert "seats 0 to 2" in capsys.readouterr().err
    # Not a terminal, no --print: say so instead of drawing a screen into a pipe.
    assert main(["replay", str(eights_table.path)]) == 2
    assert "--print" in capsys.readouterr().err


def test_a_pile_of_cards_seen_face_up_is_not_called_hidden(replays):
    """As the live table says it: a doubted set was turned face up before the pile goes to
    the taker, so the line says those cards were seen face up, never "N hidden cards" (issue 30)."""
    replay = replays["bs_table"]
    checked = 0
    for step in replay.steps:
        if step.kind != "transfer" or replay.steps[step.index - 1].kind != "reveal":
            continue  # a doubt: the set turned up, then the pile taken
        other = next(s for s in range(replay.players) if s != step.event["to"])
        (_, line), *_ = replay.describe(step.index, other)
        assert "hidden" not in line and "seen face up)" in line, line
        checked += 1
    assert checked  # the bots doubt in every hand


# -- a spectator's file, and one's own (issue 33; issue 30's "you") -----------------------------


def _spectators_copy(table, tmp_path):
    """A spectator's transcript of ``table``: the players' own bytes (tests/net/test_watch.py
    checks that a watcher's file is), under the name ``p2pcards watch`` saves it by."""
    path = tmp_path / f"watch-{table.paths[0].name.split('-seat')[0]}.p2pt"
    shutil.copy(table.paths[0], path)
    return path


def _public(timeline: list[dict]) -> list[set[str]]:
    """The faces turned up for everyone after each event of the verify timeline."""
    seen: set[str] = set()
    out = []
    for event in timeline:
        if event["kind"] == "reveal":
            seen |= set(event["cards"])
        out.append(set(seen))
    return out


def test_a_spectators_file_is_replayed_as_the_table_saw_it(eights_table, tmp_path, capsys):
    path = _spectators_copy(eights_table, tmp_path)
    assert is_spectator_file(path) and not any(is_spectator_file(p) for p in eights_table.paths)
    assert main(["replay", "--print", str(path)]) == EXIT_VERIFIED
    out = capsys.readouterr().out
    head, *steps = out.split("\n== ")
    assert "a spectator's" in head.splitlines()[0]
    assert "what the table saw face up" in head.splitlines()[2]
    public = _public(verify_file(path).timeline)
    replay = load_replay(path)
    assert len(steps) == len(replay.steps) == len(public)
    dealt = set()
    for index, text in enumerate(steps):
        shown = {m.group(0) for m in CARD.finditer(text)}
        assert shown <= public[index], f"step {index + 1}: {shown - public[index]}"
        assert "hand:" not in text and " gets " not in text  # no seat's hand, no deal's faces
        dealt |= {c.unicode() for c in replay.steps[index].known[0].values()}
        assert set(replay.known(index, SPECTATOR).values()) <= set(replay.faces.values())
    assert dealt - public[len(steps) - 1] or dealt - public[0], "seat 0 held cards the table never saw"
    # --seat and --all still choose another view of the same bytes.
    assert main(["replay", "--print", "--seat", "1", str(path)]) == EXIT_VERIFIED
    assert f"what {replay.names[1]} saw" in capsys.readouterr().out
    # A seat's own file asks for the table's view with --table.
    assert main(["replay", "--print", "--table", str(eights_table.paths[0])]) == EXIT_VERIFIED
    assert "what the table saw face up" in capsys.readouterr().out


@pytest.fixture(scope="module")
def dropped_table(tmp_path_factory):
    """Crazy Eights, 3 bot peers on 127.0.0.1, seat 2's player drops out at its first turn."""
    host = load_plugins()

    def seat(game, s, options):
        agent = BotSeat(host.bots_for(game.id)["random"](game, s, options, random.Random(s)))
        return DroppingOut(agent) if s == 2 else agent

    folder = tmp_path_factory.mktemp("dropped")
    table = run_loopback("crazy-eights", 3, {"hand_size": 3}, seats=seat, seed=1, transcript_dir=folder)
    paths = [p for p in table.transcripts if p is not None]
    assert len(paths) == 3, table.problems()
    return paths


def test_ones_own_file_says_you(dropped_table, capsys):
    names = load_replay(dropped_table[0]).names
    assert main(["replay", "--print", str(dropped_table[2])]) == EXIT_VERIFIED
    own = capsys.readouterr().out
    assert "you dropped out" in own and f"{names[2]} dropped out" not in own
    assert "game over: " in own and own.count("you dropped out") >= 2  # the story and the result
    assert main(["replay", "--print", str(dropped_table[0])]) == EXIT_VERIFIED
    other = capsys.readouterr().out
    assert f"{names[2]} dropped out" in other and "you dropped out" not in other

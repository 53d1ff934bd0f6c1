"""The game history (p2pcards/history.py): games recorded from real transcripts (Crazy Eights
over 127.0.0.1), at the end of a network game and by import; a transcript that does not verify
is marked; two writers at once; a damaged, newer or older database."""

from __future__ import annotations

import dataclasses
import functools
import re
import sqlite3
import threading
from pathlib import Path

import pytest
import trio
import trio.testing

from p2pcards import history as hist
from p2pcards.history import History, HistoryError, record_finished_game, record_transcript, verify_pending
from p2pcards.verify import verify_file
from p2pcards.wire.transcript import TranscriptWriter, read_transcript

from .history_tables import Played, play_recorded_game

#: The tests share one table (``played``): under pytest-xdist they go to one worker.
pytestmark = pytest.mark.xdist_group("history-table")


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Played:
    """The game, recorded at each seat as it ended (pending), then fully verified as the first
    ``p2pcards history`` does (:func:`verify_pending`); ``played.pending`` holds each home's
    records as the game left them."""
    played = trio.run(play_recorded_game, tmp_path_factory.mktemp("history-game"))
    played.pending = {}  # type: ignore[attr-defined]
    for home in (played.alice_home, played.bob_home):
        played.pending[home] = games(home)  # type: ignore[attr-defined]
        with History.open(home) as history:
            assert verify_pending(history) == 1
            assert verify_pending(history) == 0  # once
    return played


def games(home: Path) -> list[dict]:
    history = History.open(home, create=False)
    assert history is not None
    with history:
        return history.games()


def test_a_game_played_over_loopback_is_recorded_at_its_end(played):
    for outcome, home, me in ((played.alice, played.alice_home, "alice"), (played.bob, played.bob_home, "bob")):
        assert outcome.result is not None and outcome.history_warning is None
        # Recorded as the game ended, from what the seat checked live: not verified yet.
        (live,) = played.pending[home]
        assert (live["status"], live["verdict"], live["problem"]) == ("finished", "pending", None)
        assert hist.verdict_mark(live)[0] == "pending"
        assert live["result"]["winners"] == list(outcome.result.winners)
        (game,) = games(home)
        assert {k: v for k, v in live.items() if k not in ("verdict", "recorded")} == {
            k: v for k, v in game.items() if k not in ("verdict", "recorded")
        }
        seat = outcome.peer.seat
        assert game["our_seat"] == seat
        assert game["table"] == outcome.peer.header.table.hex()
        assert game["transcript"] == str(outcome.transcript.resolve())
        assert (game["status"], game["verdict"], game["problem"]) == ("finished", "verified", None)
        assert game["game"] == {"id": "crazy-eights", "name": "Crazy Eights", "rules": "2"}
        assert game["options"] == dict(outcome.peer.header.options)
        # What verify says: the same names and fingerprints, the same result.
        report = verify_file(outcome.transcript)
        assert [(p["seat"], p["name"], p["fingerprint"]) for p in game["players"]] == [
            (p["seat"], p["name"], p["fingerprint"]) for p in report.players
        ]
        assert game["players"][seat]["name"] == me
        assert game["players"][seat]["key"] == played.identities[me].public.ed25519.hex()
        assert game["result"]["winners"] == list(report.result.winners) == list(outcome.result.winners)
        assert [p["won"] for p in game["players"]] == [s in report.result.winners for s in range(3)]
        # For people: the result in the game's words, by name (as verify says it).
        assert game["result"]["summary"] == report.to_json()["result"]["summary"]
        assert game["result"]["winner_names"] == [report.players[s]["name"] for s in report.result.winners]
        assert not re.search(r"\bseats? \d", game["result"]["summary"]), game["result"]
    # The host's bot peer played in the same program: its seat is no one's history.
    assert played.bot.history_warning is None
    assert len(games(played.alice_home)) == 1


def test_the_opponents_are_counted_by_key_with_their_names(played):
    with History.open(played.alice_home) as history:
        opponents = {o["name"]: o for o in history.opponents()}
    assert set(opponents) == {"bob", "strategic bot 1"}
    bob = opponents["bob"]
    assert bob["key"] == played.identities["bob"].public.ed25519.hex()
    assert bob["fingerprint"] == played.identities["bob"].public.fingerprint
    result = played.alice.result
    alice_won, bob_won = 0 in result.winners, played.bob.peer.seat in result.winners
    assert (bob["games"], bob["won"], bob["lost"], bob["other"]) == (
        1,
        int(alice_won),
        int(bob_won and not alice_won),
        int(not alice_won and not bob_won),
    )
    assert (bob["unfinished"], bob["unverified"]) == (0, 0)


def test_recording_the_same_transcript_again_does_not_duplicate_it(played, tmp_path):
    home = tmp_path / "home"
    path = played.alice.transcript
    rec, new = record_transcript(path, our_seat=0, home=home)
    assert new and rec.verdict == "verified"
    rec, new = record_transcript(path, our_seat=0, home=home)
    assert not new
    # Another seat's copy (byte-identical) of the same table, found to be ours by the data
    # folder's identity: the same row.
    bob_copy = played.bob.transcript
    rec, new = record_transcript(bob_copy, home=played.bob_home)
    assert not new and rec.our_seat == played.bob.peer.seat
    assert len(games(home)) == 1 and len(games(played.bob_home)) == 1
    # A transcript of a table we did not sit at is recorded as such, once.
    rec, new = record_transcript(path, home=tmp_path / "stranger")
    assert new and rec.our_seat is None
    assert not record_transcript(path, home=tmp_path / "stranger")[1]
    (game,) = games(tmp_path / "stranger")
    assert game["our_seat"] is None
    text = hist.games_text([game])
    assert "between alice, " in text and "verified" in text


def test_a_transcript_that_fails_verification_is_marked(played, tmp_path):
    transcript = read_transcript(played.alice.transcript)
    # One move's body changed after signing: the file was altered.
    entries = list(transcript.entries)
    index = next(i for i, e in enumerate(entries) if e.kind == "action")
    entries[index] = dataclasses.replace(entries[index], body={**entries[index].body, "turn": 999})
    altered = tmp_path / "altered.p2pt"
    with TranscriptWriter.create(altered, transcript.header) as writer:
        writer.append_entries(entries)
        writer.write_end(transcript.end)
    assert verify_file(altered).verdict == "failed"
    rec, _ = record_transcript(altered, our_seat=0, home=tmp_path / "home")
    assert rec.verdict == "failed" and rec.problem_step == "log"
    (game,) = games(tmp_path / "home")
    assert game["verdict"] == "failed" and game["problem"]["step"] == "log"
    assert "the file was altered" in game["problem"]["reason"]
    text = hist.games_text([game])
    assert "FAILED" in text and "verification FAILED at log" in text
    # A failed game's result is no record: not a win, not a loss.
    with History.open(tmp_path / "home") as history:
        opponents = history.opponents()
    assert opponents and all((o["won"], o["lost"], o["other"], o["unverified"]) == (0, 0, 0, 1) for o in opponents)


def test_a_game_that_did_not_finish_is_marked_unfinished(played, tmp_path):
    transcript = read_transcript(played.alice.transcript)
    aborted = tmp_path / "aborted.p2pt"
    with TranscriptWriter.create(aborted, transcript.header) as writer:
        writer.append_entries(transcript.entries)
        writer.write_end(dataclasses.replace(transcript.end, status="aborted", result=None, note="test"))
    rec, _ = record_transcript(aborted, our_seat=0, home=tmp_path / "home")
    assert (rec.status, rec.verdict) == ("aborted", "failed")
    (game,) = games(tmp_path / "home")
    mark, why = hist.verdict_mark(game)
    assert mark == "unfinished" and why.startswith("not verified: end record")
    assert hist.outcome_text(game) == "aborted"


def test_a_file_that_is_no_whole_transcript_is_refused(played, tmp_path):
    cut = tmp_path / "cut.p2pt"
    cut.write_bytes(played.alice.transcript.read_bytes()[:-10])
    with pytest.raises(HistoryError, match="torn tail"):
        record_transcript(cut, home=tmp_path / "home")
    assert record_finished_game(cut, 0, tmp_path / "home").startswith("the game was not recorded in the history")


def test_a_damaged_database_warns_and_never_raises(played, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / hist.DB_FILE).write_bytes(b"this is not an sqlite database" * 100)
    warning = record_finished_game(played.alice.transcript, 0, home)
    assert warning is not None and "not a usable history database" in warning
    with pytest.raises(HistoryError, match="move it away"):
        History.open(home)


def test_a_database_from_a_newer_program_is_refused_unchanged(tmp_path):
    History.open(tmp_path).close()
    conn = sqlite3.connect(tmp_path / hist.DB_FILE)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(HistoryError, match="newer p2pcards"):
        History.open(tmp_path)
    conn = sqlite3.connect(tmp_path / hist.DB_FILE)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 99
    conn.close()


def test_an_older_database_is_upgraded_in_place(played, tmp_path, monkeypatch):
    record_transcript(played.alice.transcript, our_seat=0, home=tmp_path)
    with History.open(tmp_path) as history:
        assert history.version == hist.SCHEMA_VERSION
    # The next program adds a column: its migration runs once, the games are kept.
    migrations = [*hist.MIGRATIONS, ("ALTER TABLE games ADD COLUMN note TEXT",)]
    monkeypatch.setattr(hist, "MIGRATIONS", migrations)
    monkeypatch.setattr(hist, "SCHEMA_VERSION", len(migrations))
    with History.open(tmp_path) as history:
        assert history.version == len(migrations)
        assert history.conn.execute("SELECT COUNT(*), COUNT(note) FROM games").fetchone() == (1, 0)
    with History.open(tmp_path) as history:  # nothing left to do
        assert history.version == len(migrations) and len(history.games()) == 1


def test_the_database_is_private_and_in_wal_mode(tmp_path):
    with History.open(tmp_path / "new") as history:
        assert history.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert (tmp_path / "new" / hist.DB_FILE).stat().st_mode & 0o077 == 0
    assert History.open(tmp_path / "none", create=False) is None
    assert not (tmp_path / "none").exists()


def test_two_connections_writing_at_once(played, tmp_path):
    """Two programs sharing a data folder: each writer in its own thread and connection,
    interleaved, none lost, the database intact."""
    base, _ = record_transcript(played.alice.transcript, our_seat=0, home=tmp_path / "scratch")
    per_writer = 40
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def writer(index: int) -> None:
        try:
            with History.open(tmp_path) as history:
                start.wait(10)
                for n in range(per_writer):
                    table = f"{index:02x}{n:030x}"
                    assert history.record(dataclasses.replace(base, table_id=table, ended_at=n))
                    # and the same table again: still one row
                    assert not history.record(dataclasses.replace(base, table_id=table, ended_at=n))
        except BaseException as exc:  # reported by the test, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    with History.open(tmp_path) as history:
        assert history.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert history.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2 * per_writer
        assert history.conn.execute("SELECT COUNT(*) FROM players").fetchone()[0] == 2 * per_writer * 3
        assert len(history.games(limit=5)) == 5


def test_text_says_names_and_marks(played, tmp_path):
    with History.open(played.bob_home) as history:
        (game,) = history.games()
        opponents = history.opponents()
    text = hist.games_text([game])
    assert "Crazy Eights" in text and "verified" in text and "with alice, strategic bot 1" in text
    assert "seat " not in text
    winners = game["result"]["winners"]
    assert hist.outcome_text(game).endswith(" won")
    if played.bob.peer.seat in winners:  # (named in seat order: "alice and you won" in a tie)
        assert "you" in re.split(r", | and ", hist.outcome_text(game).removesuffix(" won"))
    table = hist.opponents_text(opponents)
    assert "alice" in table and played.identities["alice"].public.fingerprint in table


def test_marks_for_each_verdict():
    game = {
        "our_seat": 0,
        "players": [{"seat": 0, "name": "alice"}, {"seat": 1, "name": "bob"}],
        "status": "finished",
        "result": {"winners": [0, 1]},
        "verdict": "unreadable",
        "problem": {"step": "reading", "reason": "the game 'x' (rules 1) is not installed here", "seat": None},
    }
    assert hist.verdict_mark(game) == ("unchecked", "not checked here: the game 'x' (rules 1) is not installed here")
    assert hist.outcome_text(game) == "you and bob won"
    game.update(verdict="failed", problem={"step": "turn 4", "reason": "illegal move", "seat": 1})
    assert hist.verdict_mark(game) == ("FAILED", "verification FAILED at turn 4: illegal move; to blame: bob")
    game.update(status="abandoned", result=None)
    assert hist.verdict_mark(game) == ("unfinished", "not verified: turn 4: illegal move; to blame: bob")
    assert hist.outcome_text(game) == "abandoned"
    reason = "seat 1 signed nothing at this table (...): the game never started; nobody is to blame"
    game.update(verdict="not-started", problem={"step": "end record", "reason": reason, "seat": None})
    assert hist.verdict_mark(game) == ("not started", f"not verified: {reason.replace('seat 1', 'bob')}")
    game.update(status="finished", result={"winners": []}, verdict="verified", problem=None)
    assert (hist.verdict_mark(game), hist.outcome_text(game)) == (("verified", ""), "a draw")
    # A goodbye: the others read who left in verify's words, the leaver reads "you" (issue 30).
    bye = {"step": "bye entry of seat 1 (log #9)", "reason": "bob left the table (a signed goodbye)", "seat": 1}
    game.update(status="abandoned", result=None, verdict="left", problem=bye)
    assert hist.verdict_mark(game) == ("left", "not verified: bob left the table (a signed goodbye)")
    game.update(our_seat=1)
    assert hist.verdict_mark(game) == ("left", "not verified: you left the table (a signed goodbye)")


def test_who_left_to_a_bot_and_who_dropped_out_by_name():
    """The lines under a game: who let a bot finish the seat, then who dropped out (issue 30:
    a drop-out game said nothing of it in the history of the one who dropped out, nor of the
    others), "you" for our own seat; a value that is not a seat number is skipped."""
    game = {
        "our_seat": 0,
        "players": [{"seat": s, "name": n} for s, n in enumerate(["alice", "bob", "carol", "dave"])],
        "status": "finished",
        "result": {"winners": [0], "left_to_bot": [1], "dropped": [2, "x", True, 0]},
    }
    assert hist.left_to_bot_text(game).split("\n    ") == [
        "bob left; a bot plays bob's seat to the end",
        "carol dropped out; carol's cards were set aside unseen",
        "you dropped out; your cards were set aside unseen",
    ]
    game["result"] = {"winners": [0], "dropped": "carol"}
    assert hist.left_to_bot_text(game) == ""


WRITER = """
import sys
from p2pcards.history import GameRecord, History, PlayerRecord

home, index, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
players = [PlayerRecord(s, f"p{s}", f"{s:064x}", "0000-0000-000" + str(s), s == 0, 1.0) for s in range(3)]
with History.open(home) as history:
    for n in range(count):
        rec = GameRecord(f"{index:02x}{n:030x}", 0, "g", "G", "1", {}, players, "finished",
                         {"winners": [0], "scores": [1.0, 0.0, 0.0], "summary": "", "details": {}},
                         "verified", ended_at=n)
        assert history.record(rec) and not history.record(rec)
"""


@pytest.mark.system  # two processes
def test_two_programs_writing_at_once(tmp_path):
    """The same as two processes (SQLite locks files per process): nothing lost, intact."""
    import subprocess
    import sys

    count = 30
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(i), str(count)], stderr=subprocess.PIPE)
        for i in range(2)
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=60)
        assert writer.returncode == 0, err.decode()
    with History.open(tmp_path) as history:
        assert history.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert history.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2 * count
        (opponent, *_) = history.opponents()
        assert opponent["games"] == 2 * count and opponent["won"] == 2 * count


# Slow tier: a match of several hands (~12 s of crypto); a game recorded at its end without a
# full verification first is test_a_game_played_over_loopback_is_recorded_at_its_end.
@pytest.mark.slow
def test_a_long_match_shows_its_result_before_any_full_verification(tmp_path, monkeypatch):
    """A Cal's BS match of several hands (virtual time: the bots' thinking and the table's
    timeouts cost no real seconds): every seat has its result and its history record the moment
    the match ends, and no full verification of the transcript ran before; the first
    ``history`` verifies it, once."""
    import p2pcards.verify

    verified: list[str] = []
    real = p2pcards.verify.verify_file

    def counting(path, **keywords):
        verified.append(str(path))
        return real(path, **keywords)

    monkeypatch.setattr(p2pcards.verify, "verify_file", counting)
    played = trio.run(
        functools.partial(
            play_recorded_game, tmp_path, game_id="cals-bs", options={"match_target": "3"}, time_limit=600
        ),
        clock=trio.testing.MockClock(autojump_threshold=0.002),
    )
    assert verified == []  # the results and the records came first
    for outcome, home in ((played.alice, played.alice_home), (played.bob, played.bob_home)):
        assert outcome.result is not None and outcome.history_warning is None
        (game,) = games(home)
        assert (game["status"], game["verdict"]) == ("finished", "pending")
        assert game["result"]["winners"] == list(outcome.result.winners)
    with History.open(played.alice_home) as history:
        progress: list[float] = []
        assert verify_pending(history, progress=lambda i, n, g, done: progress.append(done)) == 1
    assert verified == [str(played.alice.transcript.resolve())]
    assert progress[0] == 0.0 and progress[-1] == 1.0 and progress == sorted(progress) and len(progress) > 3
    (game,) = games(played.alice_home)
    assert game["verdict"] == "verified"
    assert game["result"]["winners"] == list(played.alice.result.winners)
    report = real(played.alice.transcript)
    assert report.verdict == "verified"
    assert sum(event["kind"] == "shuffle" for event in report.timeline) >= 3  # a hand a shuffle


def test_a_pending_game_whose_transcript_is_gone_is_marked_unreadable(played, tmp_path):
    copy = tmp_path / "copy.p2pt"
    copy.write_bytes(played.alice.transcript.read_bytes())
    assert record_finished_game(copy, 0, tmp_path / "home") is None
    copy.unlink()
    with History.open(tmp_path / "home") as history:
        assert verify_pending(history) == 1
        (game,) = history.games()
    assert game["verdict"] == "unreadable" and "cannot read" in game["problem"]["reason"]
    assert hist.verdict_mark(game)[0] == "unchecked"

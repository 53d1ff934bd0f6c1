"""The LAN lobby: its view models, and a whole game found, joined and played through the
console's input against bot peers over loopback TCP (zeroconf on 127.0.0.1 only)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import trio
from prompt_toolkit.formatted_text import fragment_list_to_text

from p2pcards.console.app import ConsoleApp
from p2pcards.console.lan import LanLobby, game_choices
from p2pcards.console.lobby import GameChoice, OptionChoice, SeatInfo, TableAd, TableRoom
from p2pcards.console.lobbyview import CreateForm, parse_lobby_command, room_lines, table_rows
from p2pcards.console.render import ASCII
from p2pcards.plugins import load_plugins
from p2pcards.testing.loopback import unused_port
from p2pcards.wire.identity import Identity

from .support import run_console
from .test_app import play_to_the_end
from .test_lan import LOOPBACK, bots_play

GAMES = [
    GameChoice(
        "cals-bs",
        "Cal's BS",
        3,
        7,
        (
            OptionChoice("quads", "bool", False, "quads variant"),
            OptionChoice(
                "going_out", "str", "face_up_must_be_true", "how to go out", ("face_up_must_be_true", "challengeable")
            ),
            OptionChoice("match_target", "int", 3, "hand wins needed", minimum=1, maximum=99),
        ),
    ),
    GameChoice("high-card", "High card", 2, 6),
]


def test_table_rows_number_and_mark_the_selection():
    ads = [
        TableAd("a1", "cals-bs", "Cal's BS", "alice", 2, 3, address="127.0.0.1:4000", fingerprint="ab12"),
        TableAd("b2", "calypso", "Calypso", "bo", 4, 4, address="127.0.0.1:4001", fingerprint="cd34"),
    ]
    rows = table_rows(ads, 1)
    assert [selected for selected, _ in rows] == [False, True]
    assert rows[0][1].startswith(" 1. alice  Cal's BS  2/3 seated  key ab12")
    assert "4/4 seated full" in rows[1][1]
    assert table_rows([], None) == []


def test_room_lines_seats_readiness_and_words():
    ad = TableAd("a1", "cals-bs", "Cal's BS", "alice", 2, 3, {"match_target": 1, "quads": False})
    seats = (SeatInfo(0, "alice", True), SeatInfo(1, "bob", False, me=True), SeatInfo(2, None))
    lines = room_lines(TableRoom(ad, seats))
    assert lines[0] == "Cal's BS at alice's table"
    assert "options: match_target=1, quads=off" in lines
    assert "  bob (you)  waiting" in lines and "  (free)" in lines
    assert lines[-1] == "type 'ready' when you are (or 'leave')"
    started = room_lines(TableRoom(ad, seats, ("apple", "brick", "cloud"), started=True))
    assert started[-1].startswith("table words: apple brick cloud")
    none = room_lines(TableRoom(ad, seats, started=True, words_problem="seat 2 did not reveal its words nonce"))
    assert none[-1] == "no table words: seat 2 did not reveal its words nonce"
    assert room_lines(TableRoom(ad, seats, hosting=True))[0].endswith("(you host it)")


def test_room_lines_show_timeouts_and_the_bots_another_seat_plays():
    ad = TableAd("a1", "cals-bs", "Cal's BS", "alice", 4, 4)
    seats = (
        SeatInfo(0, "alice", True),
        SeatInfo(1, "bob", False, me=True),
        SeatInfo(2, "strategic bot 1", True, bot_of=0, bot="strategic"),
        SeatInfo(3, "strategic bot 2", True, bot_of=0, bot="strategic"),
    )
    lines = room_lines(TableRoom(ad, seats, timeouts="a deck step 30 s, a move 60 s, a dropped player 90 s"))
    assert "timeouts: a deck step 30 s, a move 60 s, a dropped player 90 s" in lines
    assert "  strategic bot 1  ready  [strategic bot on alice's computer]" in lines
    assert (
        "alice's computer plays strategic bot 1, strategic bot 2: it holds their keys, so it can see their cards "
        "(and deduce others' by elimination)"
    ) in lines


def test_create_form_fields_and_changes():
    form = CreateForm(GAMES)
    assert form.request() == ("cals-bs", {"quads": False, "going_out": "face_up_must_be_true", "match_target": 3}, 3, 2)
    assert [f.key for f in form.fields()] == ["game", "seats", "bots", "quads", "going_out", "match_target"]
    assert form.fields()[0].focused and "3-7 players" in form.fields()[0].help
    form.move(1)
    form.change(-1)  # seats stay within the game's range
    assert form.players == 3
    form.change(2)
    assert form.players == 5
    form.move(1)
    form.change(10)
    assert form.bots == 4  # one seat is yours
    form.move(1)
    form.change(1)
    assert form.values["quads"] is True
    form.move(1)
    form.change(1)
    assert form.values["going_out"] == "challengeable"
    form.move(1)
    form.change(-5)
    assert form.values["match_target"] == 1
    assert form.fields()[-1].focused and form.fields()[-1].help == "hand wins needed"
    form.move(1)  # wraps to the game
    form.change(1)
    assert form.request() == ("high-card", {}, 2, 1)


def test_lobby_commands():
    assert parse_lobby_command("join 2").verb == "join" and parse_lobby_command("join 2").target == "2"
    assert parse_lobby_command("connect 10.0.0.2:4000").target == "10.0.0.2:4000"
    assert "HOST:PORT" in parse_lobby_command("connect nowhere").error
    create = parse_lobby_command("create cals-bs seats=3 bots=2 match_target=1")
    assert (create.verb, create.game, dict(create.settings)) == (
        "create",
        "cals-bs",
        {"seats": "3", "bots": "2", "match_target": "1"},
    )
    assert parse_lobby_command("create").game == ""
    assert parse_lobby_command("ready").verb == "ready"
    assert "unknown command 'dance'" in parse_lobby_command("dance").error


def test_game_choices_come_from_the_plugins(host):
    ids = [g.id for g in game_choices(host)]
    assert "high-card" in ids


def lan_lobby(host, name: str, tmp_path: Path, **kwargs) -> LanLobby:
    """A LAN lobby of ``name``'s on 127.0.0.1, its bots moving at once, its transcripts in
    ``tmp_path / name``."""
    return LanLobby(
        host, Identity.generate(), name=name, interface=LOOPBACK, transcript_dir=tmp_path / name, bot_delay=0, **kwargs
    )


class HostThread:
    """A table hosted by a bot peer (with a bot peer in another seat) in its own trio run, as
    another computer on the network would be. The game's end is awaited; stop() ends it."""

    def __init__(self, host, tmp_path: Path):
        self.lobby = lan_lobby(host, "alice", tmp_path, seat_agent=bots_play(host))
        self.opened = threading.Event()
        self.end = None
        self.error: BaseException | None = None
        self._token = None
        self._cancel = None
        self.thread = threading.Thread(target=self._main, daemon=True)
        self.thread.start()
        assert self.opened.wait(20), "the hosted table did not open"

    def _main(self) -> None:
        try:
            trio.run(self._run)
        except BaseException as exc:  # reported by stop()
            self.error = exc

    async def _run(self) -> None:
        async with trio.open_nursery() as nursery:
            self._token = trio.lowlevel.current_trio_token()
            self._cancel = nursery.cancel_scope.cancel
            await nursery.start(self.lobby.run)
            self.room = await self.lobby.create("cals-bs", {"match_target": 1}, 3, 1)
            self.opened.set()
            while self.lobby.session() is None:
                await trio.sleep(0.05)
            self.end = await self.lobby.game_over()
            nursery.cancel_scope.cancel()

    def stop(self, wait: float = 0) -> None:
        """Give the hosted game ``wait`` seconds to end by itself, then cancel it."""
        self.thread.join(wait)
        if self.thread.is_alive() and self._token is not None:
            try:
                self._token.run_sync_soon(self._cancel)
            except trio.RunFinishedError:
                pass
        self.thread.join(20)
        if self.error is not None:
            raise self.error


@pytest.mark.slow  # a LAN lobby and game, in real time
def test_lan_lobby_find_join_ready_and_play_through_the_console(tmp_path):
    host = load_plugins()
    if "cals-bs" not in host.games:
        pytest.skip("cals-bs is not installed")
    hosted = HostThread(host, tmp_path)
    me = lan_lobby(host, "bob", tmp_path)
    table_id = hosted.room.table.table_id
    seen = {}

    async def script(driver):
        console: ConsoleApp = driver.console
        assert console.in_lobby
        await driver.until(
            lambda: any(t.table_id == table_id and t.seats_taken == 2 for t in me.tables()),
            20,
            "alice's table with its bot in the list",
        )
        listed = [t for t in me.tables() if t.table_id == table_id][0]
        assert listed.host_name == "alice" and listed.fingerprint == hosted.lobby.fingerprint()
        seen["title"] = console._title()[0][1]
        await driver.enter(f"join {me.tables().index(listed) + 1}")
        await driver.until(lambda: me.room() is not None and len(me.room().seats) == 3, 20, "the roster")
        assert [s.name for s in me.room().seats] == ["alice", "strategic bot 1", "bob"]
        await driver.enter("ready")
        await driver.until(lambda: not console.in_lobby and console.session is not None, 30, "the table screen")
        # The host reaches its own start a moment later (another thread here).
        await driver.until(lambda: (hosted.lobby.room() or me.room()).started, 10, "the host's start")
        assert len(console.table_words) == 5 and console.table_words == hosted.lobby.room().auth_words
        title = "".join(f[1] for f in console._title())  # the words may have their own line
        assert "table words: " + " ".join(console.table_words) in title
        await play_to_the_end(driver, prefer=("pass", "play"))
        assert console.session.result is not None, console.stopped
        await driver.until(lambda: "transcript saved to" in console.end_text(), 30, "the transcript")
        seen["end"] = console.end_text()
        # Said once it is true: the file is there the moment the screen says so.
        assert Path(seen["end"].split("transcript saved to ")[1].split("\n")[0]).is_file()
        await driver.enter("new")
        await driver.until(lambda: console.in_lobby, 10, "back in the lobby")
        await driver.enter("quit")

    try:
        console = run_console(None, script, glyphs=ASCII, colour=False, timeout=150, lobby=me)
        hosted.stop(wait=30)
    finally:
        hosted.stop()
    assert "lobby - your key " + me.fingerprint() in seen["title"]
    end = seen["end"]
    assert "audit: clean, every card shown checked" in end
    assert "check the transcript any time with: p2pcards verify " in end
    assert "type 'again' for a rematch, 'new' for the lobby or 'quit' to leave" in end
    path = end.split("transcript saved to ")[1].split("\n")[0]
    assert Path(path).exists() and Path(path).parent == tmp_path / "bob"
    assert hosted.end is not None and hosted.end.stopped is None
    assert console.games_played == 1


def test_watch_is_a_lobby_command_and_a_playing_table_says_so():
    assert parse_lobby_command("watch 2").verb == "watch"
    assert parse_lobby_command("watch 2").target == "2"
    assert parse_lobby_command("watch").target == ""
    assert "one table" in parse_lobby_command("watch 1 2").error
    rows = table_rows(
        [
            TableAd("a1", "cals-bs", "Cal's BS", "ann", 1, 3, address="127.0.0.1:1"),
            TableAd("b2", "cals-bs", "Cal's BS", "bob", 3, 3, address="127.0.0.1:2", playing=True),
        ],
        None,
    )
    assert "playing: watch 2" in rows[1][1] and "playing" not in rows[0][1]


# Slow tier: two games in a console (~6 s); a rematch between peers is played in the fast tier by
# tests/net/test_rematch.py::test_three_peers_agree_play_a_rematch_and_keep_the_score.
@pytest.mark.slow
def test_the_play_lobby_offers_again_at_once_and_plays_the_rematch(tmp_path):
    """A table made in the ``play`` lobby (two bot peers of ours): at game over the end screen
    offers 'again' at once; typed then, it is agreed to when the rematch room opens (the bots
    agree at once) and game 2 starts in the same console; 'new' then declines the next one
    and goes back to the lobby."""
    host = load_plugins()
    if "cals-bs" not in host.games:
        pytest.skip("cals-bs is not installed")
    me = lan_lobby(host, "bob", tmp_path, port=unused_port())  # (the rematch opens on it again)
    seen = {}

    async def script(driver):
        console: ConsoleApp = driver.console
        assert console.in_lobby
        await driver.until(lambda: me._nursery is not None, 10, "the lobby to run")

        async def create() -> None:  # (as the new-table form does, on the lobby's trio side)
            await me.create("cals-bs", {"match_target": 1}, 3, 2)

        console.lobby._queue("creating", create)
        await driver.until(lambda: not console.in_lobby and console.session is not None, 30, "the table screen")
        seen["title 1"] = fragment_list_to_text(console._title())
        await play_to_the_end(driver, prefer=("pass", "play"))
        assert console.session.result is not None, console.stopped
        seen["end"] = console.end_text()
        await driver.enter("again")
        assert "one table per run" not in console.message.message
        await driver.until(lambda: console.games_played == 2 and console.session.result is None, 60, "game 2")
        seen["title 2"] = fragment_list_to_text(console._title())
        await play_to_the_end(driver, prefer=("pass", "play"))
        await driver.until(lambda: "score after 2 games" in console.end_text(), 30, "the rematch offer")
        seen["second"] = console.end_text()
        await driver.enter("new")
        await driver.until(lambda: console.in_lobby, 20, "back in the lobby")
        # A table of its own from the lobby: not "game 3" of anything.
        console.lobby._queue("creating", create)
        await driver.until(lambda: not console.in_lobby and console.games_played == 3, 30, "a new table")
        seen["title 3"] = fragment_list_to_text(console._title())
        await driver.enter("quit")
        await driver.enter("quit")

    run_console(None, script, glyphs=ASCII, colour=False, timeout=200, lobby=me)
    assert "type 'again' for a rematch, 'new' for the lobby or 'quit' to leave" in seen["end"]
    assert "type 'again' for a rematch, 'new' for the lobby" in seen["second"]
    # The title numbers a rematch, in words; a first game, or a new table, has no number.
    assert "game" not in seen["title 1"].replace("games", ""), seen["title 1"]
    assert "3 players - rematch: game 2" in seen["title 2"], seen["title 2"]
    assert "game" not in seen["title 3"].replace("games", ""), seen["title 3"]
    assert len(me.transcripts) == 2

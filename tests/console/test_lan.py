"""The LAN lobby backend over loopback: tables found through real zeroconf on 127.0.0.1, joined
over TCP, played by bot peers. Never on a real interface."""

from __future__ import annotations

import random

import pytest
import trio

from p2pcards.console.lan import LanLobby, game_choices
from p2pcards.console.lobby import LobbyProblem
from p2pcards.console.lobbyview import CreateForm, room_lines
from p2pcards.history import History, verify_pending
from p2pcards.net.runner import bot_agent
from p2pcards.plugins import load_plugins
from p2pcards.wire.identity import Identity
from p2pcards.wire.transcript import read_transcript

LOOPBACK = "127.0.0.1"


def bots_play(host):
    """A seat agent factory: this peer's own seat is played by a bot."""

    def make(game, seat, options):
        return bot_agent(host, game, "strategic", random.Random(seat))(game, seat, options)

    return make


def lobby(host, tmp_path, name, **kwargs):
    kwargs.setdefault("seat_agent", bots_play(host))
    return LanLobby(
        host, Identity.generate(), name=name, interface=LOOPBACK, transcript_dir=tmp_path / name, bot_delay=0, **kwargs
    )


async def wait_for(predicate, what, timeout=15):
    with trio.fail_after(timeout):
        while not predicate():
            await trio.sleep(0.02)


def test_game_choices_list_games_and_options():
    host = load_plugins()
    choices = {g.id: g for g in game_choices(host)}
    if "cals-bs" not in choices:
        pytest.skip("cals-bs is not installed")
    bs = choices["cals-bs"]
    assert (bs.min_players, bs.max_players) == (3, 7)
    target = next(o for o in bs.options if o.name == "match_target")
    assert target.kind == "int" and target.minimum == 1 and "hand wins" in target.help


def test_the_create_form_offers_a_volunteer_dealer():
    # A game's new option reaches the lobby form with nothing to add in the console.
    choices = game_choices(load_plugins())
    ids = [g.id for g in choices]
    if "cals-bs" not in ids:
        pytest.skip("cals-bs is not installed")
    form = CreateForm(choices, game_index=ids.index("cals-bs"))
    dealer = next(o for o in form.game.options if o.name == "first_dealer")
    assert (dealer.kind, dealer.default, dealer.minimum, dealer.maximum) == ("int", -1, -1, 6)
    assert "by lot" in next(f.help for f in form.fields() if f.key == "first_dealer")
    form.focus = form.keys().index("first_dealer")
    form.change(-1)
    assert form.values["first_dealer"] == -1  # the lot is the lowest value
    form.change(+1)
    form.change(+1)
    assert form.request()[1]["first_dealer"] == 1


@pytest.mark.slow  # a LAN lobby and game through the console, in real time
async def test_create_find_join_ready_play(tmp_path):
    host = load_plugins()
    if "cals-bs" not in host.games:
        pytest.skip("cals-bs is not installed")
    a, b = lobby(host, tmp_path, "alice"), lobby(host, tmp_path, "bob")
    events = []
    b.subscribe(lambda e: events.append(e.kind))
    async with trio.open_nursery() as nursery:
        await nursery.start(a.run)
        await nursery.start(b.run)
        with pytest.raises(LobbyProblem, match="match_target"):
            await a.create("cals-bs", {"match_target": "zero"}, 3, 1)
        with pytest.raises(LobbyProblem, match="first_dealer: there is no seat 3 at a table of 3"):
            await a.create("cals-bs", {"first_dealer": 3}, 3, 1)
        room = await a.create("cals-bs", {"match_target": 1}, 3, 1)
        assert room.hosting and room.seats[0].me and room.seats[0].name == "alice"
        await wait_for(lambda: any(t.table_id == room.table.table_id for t in b.tables()), "the table in b's list")
        assert a.tables() == [] or all(t.table_id != room.table.table_id for t in a.tables())
        ad = next(t for t in b.tables() if t.table_id == room.table.table_id)
        assert ad.game_name == "Cal's BS" and ad.seats_total == 3 and ad.fingerprint == a.fingerprint()
        await wait_for(
            lambda: next(t for t in b.tables() if t.table_id == ad.table_id).seats_taken == 2, "the bot to sit"
        )
        joined = await b.join(ad.table_id)
        assert joined.table.table_id == ad.table_id
        await wait_for(lambda: b.room() and len(b.room().seats) == 3, "the roster")
        mine = next(s for s in b.room().seats if s.me)
        assert mine.name == "bob" and not mine.ready
        # Before saying ready, bob sees the table's timeouts and that seat 1 is alice's bot.
        shown = room_lines(b.room())
        assert "timeouts: a deck step 30 s, a move 600 s, a dropped player 90 s to come back" in shown
        assert (b.room().seats[1].bot_of, b.room().seats[1].bot) == (0, "strategic")
        assert "  strategic bot 1  ready  [strategic bot on alice's computer]" in shown, shown
        assert (
            "alice's computer plays strategic bot 1: it holds their keys, so it can see their cards "
            "(and deduce others' by elimination)"
        ) in shown
        assert any(line.startswith("your computer plays strategic bot 1:") for line in room_lines(a.room()))
        await b.ready()
        await wait_for(lambda: a.session() is not None and b.session() is not None, "the game to start")
        assert a.room().auth_words == b.room().auth_words and len(b.room().auth_words) == 5
        with trio.fail_after(120):
            end_a = await a.game_over()
            end_b = await b.game_over()
        assert end_a.stopped is None and end_b.stopped is None
        transcript = read_transcript(end_b.transcript)
        assert transcript.complete and transcript.end.status == "finished"
        assert a.room() is None and b.room() is None
        # Both players' seats are in the history (one data folder in this test: a row each), as
        # the game ended (pending its full verification), and verified at the next look;
        # alice's bot peer's is not.
        table = transcript.header.table.hex()

        def recorded() -> dict[int, str]:
            with History.open() as history:
                return {g["our_seat"]: g["verdict"] for g in history.games(limit=None) if g["table"] == table}

        assert recorded() == {0: "pending", 2: "pending"}

        def verify_now() -> None:
            with History.open() as history:
                verify_pending(history)

        await trio.to_thread.run_sync(verify_now)
        assert recorded() == {0: "verified", 2: "verified"}
        nursery.cancel_scope.cancel()
    assert "started" in events and "ended" in events


async def test_the_host_sends_away_a_player_who_never_says_ready(tmp_path):
    """A joiner who sits down and never says ready holds the table up: the host's 'remove SEAT'
    frees the seat, and the joiner is told why."""
    host = load_plugins()
    a, b = lobby(host, tmp_path, "alice"), lobby(host, tmp_path, "bob")
    errors = []
    b.subscribe(lambda e: errors.append(e.text) if e.kind == "error" else None)
    async with trio.open_nursery() as nursery:
        await nursery.start(a.run)
        await nursery.start(b.run)
        room = await a.create("cals-bs", {"match_target": 1}, 3, 0)
        await b.join(f"{LOOPBACK}:{room.table.address.rpartition(':')[2]}")
        await wait_for(lambda: len([s for s in a.room().seats if s.name]) == 2, "bob in alice's room")
        # Joined by address (no advert): the host's terms still name the game and its options.
        assert b.room().table.game_name == "Cal's BS" and b.room().table.options["match_target"] == 1
        assert b.room().timeouts.startswith("a deck step 30 s") and b.room().seats[1].bot_of is None
        seat = next(i for i, s in enumerate(a.room().seats) if s.name == "bob")
        with pytest.raises(LobbyProblem, match="only the host"):
            await b.remove(0)
        with pytest.raises(LobbyProblem, match="a seat from 1 to 2"):
            await a.remove(0)
        assert await a.remove(seat) == "bob"
        await wait_for(lambda: b.room() is None, "bob back in the lobby")
        await wait_for(lambda: not any(s.name == "bob" for s in a.room().seats), "bob's seat free")
        assert any("the host removed you from the table" in text for text in errors), errors
        nursery.cancel_scope.cancel()


@pytest.mark.slow  # a LAN lobby and game, in real time
async def test_a_started_table_is_listed_to_watch_and_watched_from_the_lobby(tmp_path):
    from p2pcards.console.app import TableStart

    host = load_plugins()
    if "cals-bs" not in host.games:
        pytest.skip("cals-bs is not installed")
    a, b = lobby(host, tmp_path, "alice"), lobby(host, tmp_path, "bob")
    a.bot_delay = 0.05  # the game lasts long enough to be found playing
    async with trio.open_nursery() as nursery:
        await nursery.start(a.run)
        await nursery.start(b.run)
        room = await a.create("cals-bs", {"match_target": 1}, 3, 2)
        # The bots sit at once and the game starts: once it runs, the table is announced
        # again as playing, and bob may watch it.
        await wait_for(
            lambda: any(t.table_id == room.table.table_id and t.playing for t in b.tables()),
            "the table listed as playing",
        )
        ad = next(t for t in b.tables() if t.table_id == room.table.table_id)
        assert ad.seats_taken == ad.seats_total
        runner = b.watch_table(ad.table_id)
        alices = a.session()
        shown = {}
        with trio.fail_after(120):
            # After the game the spectator's screen follows the table into a rematch, until
            # the player chooses ('new': back to the lobby).
            def chosen() -> str | None:
                done = "session" in shown and shown["session"].result is not None and runner.report is not None
                return "new" if done else None

            await runner(
                TableStart(lambda session, **kw: shown.setdefault("session", session), lambda text: None, None, chosen)
            )
            end_a = await a.game_over()
        assert shown["session"].result is not None and runner.report is not None
        assert runner.report.verdict == "verified"
        watchers = [e.text for e in alices.history if e.kind == "spectator"]
        assert "bob is watching the table" in watchers
        assert end_a.stopped is None
        nursery.cancel_scope.cancel()

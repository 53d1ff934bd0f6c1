"""``p2pcards host``/``join`` played in person: the console's seat runner over loopback TCP
(127.0.0.1 only), chat between seats, and the connection lines a seat's return adds."""

from __future__ import annotations

import random
import re
import threading

import pytest
import trio
import trio.testing

from p2pcards import PROTOCOL_VERSION
from p2pcards.console.app import ConsoleApp
from p2pcards.console.render import ASCII
from p2pcards.console.seat import hosted_seat, joined_seat, roster_text, terms_text
from p2pcards.console.viewmodel import TableTracker
from p2pcards.net.peer import Peer
from p2pcards.net.runner import bot_agent, join_table
from p2pcards.net.transport import Connection
from p2pcards.session import HumanSeat
from p2pcards.table.header import Seat, TableHeader
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.identity import Identity
from p2pcards.wire.messages import new_table_id

from .support import run_console
from .test_app import play_to_the_end

LOOPBACK = "127.0.0.1"


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    """In-person seats persist their state (to resume after a crash): keep it in tmp_path."""
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path / "home"))


def test_roster_text_says_who_sat_and_who_is_not_ready():
    assert roster_text(["carol", "", ""], [True, False, False]) == "waiting for players: 1 of 3 seated (carol)"
    assert roster_text(["carol", "dave", ""], [True, False, False]) == (
        "waiting for players: 2 of 3 seated (carol, dave); not ready yet: dave"
    )


def test_roster_text_says_which_seats_another_seats_computer_plays():
    from p2pcards.net.lobby import HostBot

    text = roster_text(["carol", "bot 1", "dave"], [True, True, False], {1: HostBot(0, "strategic")})
    assert text.splitlines()[1] == (
        "carol's computer plays bot 1 (bot): it holds their keys, so it can see their cards"
    )


class BotJoiner:
    """Another computer: a bot peer that joins ``port`` in its own trio run, says ``line`` in
    chat once the game is under way, and records its session's chat events."""

    def __init__(self, host, port: int, tmp_path, line: str):
        self.host, self.port, self.tmp_path, self.line = host, port, tmp_path, line
        self.chat: list[tuple[str, object]] = []
        self.outcome = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._main, daemon=True)
        self.thread.start()

    def _main(self) -> None:
        try:
            trio.run(self._run)
        except BaseException as exc:  # reported by join()
            self.error = exc

    async def _run(self) -> None:
        def agent(game, seat, options):
            return bot_agent(self.host, game, "random", random.Random(seat))(game, seat, options)

        async with trio.open_nursery() as nursery:

            def on_peer(peer) -> None:
                peer.session.subscribe(lambda e: e.kind == "chat" and self.chat.append((e.text, e.data.get("seat"))))
                nursery.start_soon(self._say_when_playing, peer.session)

            with trio.fail_after(60):
                self.outcome = await join_table(
                    self.host,
                    Identity.generate(),
                    LOOPBACK,
                    self.port,
                    name="dave",
                    agent=agent,
                    listen_host=LOOPBACK,
                    transcript_dir=self.tmp_path / "dave",
                    on_peer=on_peer,
                )
            nursery.cancel_scope.cancel()

    async def _say_when_playing(self, session) -> None:
        while session.phase != "playing":
            await trio.sleep(0.02)
        session.say(self.line)

    def join(self) -> None:
        self.thread.join(60)
        assert not self.thread.is_alive(), "the joining peer did not finish"
        if self.error is not None:
            raise self.error


def test_host_in_person_waits_for_a_player_then_chat_crosses_the_table(host, tmp_path):
    """The console hosts (seat 0, played through the input line); a bot peer joins over TCP.
    Chat goes both ways as signed entries, each line with its sender's name."""
    table = hosted_seat(
        host,
        Identity.generate(),
        "high-card",
        options={"cards": 2},
        players=2,
        name="carol",
        interface=LOOPBACK,
        port=0,
        bots=0,
        bot_name="random",
        bot_delay=0,
        transcript_dir=tmp_path / "carol",
        timeouts=Timeouts(),
    )
    seen = {}
    joiner: list[BotJoiner] = []

    async def script(driver):
        console: ConsoleApp = driver.console
        await driver.until(lambda: console.waiting and "is open at" in console.waiting, 10, "the table to open")
        seen["waiting"] = console.waiting
        seen["status"] = console._status()[0][1]
        seen["toolbar"] = console._toolbar()[0][1]
        assert console.session is None
        port = int(re.search(r"is open at 127\.0\.0\.1:(\d+)", console.waiting).group(1))
        joiner.append(BotJoiner(host, port, tmp_path, "good luck"))
        await driver.until(lambda: console.session is not None, 30, "the game to start")
        assert console.waiting is None and len(console.table_words) == 5
        await driver.my_turn_or_end(timeout=30)
        await driver.until(lambda: any(line.kind == "chat" for line in console.tracker.log), 20, "dave's chat")
        await driver.enter("say hello from carol")
        await driver.until(lambda: len(joiner[0].chat) == 2, 20, "carol's chat at dave's seat")
        await play_to_the_end(driver)
        assert console.session.result is not None, console.stopped
        await driver.enter("new")
        seen["new"] = console.message.message
        await driver.until(lambda: not console.table_running, 30, "the transcript")
        seen["end"] = console.end_text()
        await driver.enter("quit")

    try:
        console = run_console(table, script, glyphs=ASCII, colour=False, timeout=120, again=False)
    finally:
        for peer in joiner:
            peer.join()
    assert "carol's table (High card, 2 seats) is open at 127.0.0.1:" in seen["waiting"]
    assert seen["waiting"].endswith("\nwaiting for 1 player(s)") and "waiting for 1 player(s)" in seen["status"]
    assert "waiting for the table to start" in seen["toolbar"]
    chat = [line.text for line in console.tracker.log if line.kind == "chat"]
    assert chat == ["dave: good luck", "carol: hello from carol"]
    assert joiner[0].chat == [("dave: good luck", 1), ("carol: hello from carol", 0)]
    assert seen["new"] == "one table per run: type 'quit' to leave"
    assert "type 'quit' to leave" in seen["end"] and "'new'" not in seen["end"]
    assert table.outcome is not None and table.outcome.aborted is None
    assert table.outcome.transcript.parent == tmp_path / "carol"
    assert joiner[0].outcome.result is not None


def test_join_in_person_that_cannot_reach_the_table_says_so(host, tmp_path):
    async def nowhere() -> tuple[str, int]:
        listeners = await trio.open_tcp_listeners(0, host=LOOPBACK)
        port = listeners[0].socket.getsockname()[1]
        await listeners[0].aclose()  # a port nobody listens on
        return LOOPBACK, port

    table = joined_seat(
        host, Identity.generate(), nowhere, name="dave", listen_host=LOOPBACK, transcript_dir=tmp_path, label="nowhere"
    )

    async def script(driver):
        console = driver.console
        await driver.until(lambda: console.stopped, 15, "the failure")
        assert console._status()[0][1] == " the table did not start"
        await driver.enter("quit")

    console = run_console(table, script, glyphs=ASCII, colour=False, timeout=30, again=False)
    assert console.stopped.startswith("the table did not start: cannot reach 127.0.0.1:")
    assert "type 'quit' to leave" in "".join(text for _, text in console._table())
    assert table.outcome is None


async def test_a_seat_that_comes_back_is_announced(host):
    """A seat that was away and reconnects: the peer says so, and the console's bottom bar and
    log show it."""
    game = host.game("high-card")
    identities = [Identity.generate() for _ in range(2)]
    seats = tuple(Seat(name, i.public, LOOPBACK, 1) for name, i in zip(("carol", "dave"), identities))
    header = TableHeader(
        new_table_id(),
        game.id,
        game.rules_version,
        game.resolve_options({}, 2),
        seats,
        PROTOCOL_VERSION,
        Timeouts(grace=10),
    )
    peer = Peer(identities[0], header, 0, game, HumanSeat())
    tracker = TableTracker(peer.session)
    returned = []
    async with trio.open_nursery() as nursery:

        async def wait() -> None:
            returned.append(await peer.wait_for_return(1))

        nursery.start_soon(wait)
        await trio.testing.wait_all_tasks_blocked()
        assert tracker.connection == "dave is away; waiting up to 10 s for them to come back"
        peer.attach(1, Connection(trio.testing.memory_stream_pair()[0]))
    assert returned == [True]
    assert tracker.connection == "dave is back"
    assert [line.text for line in tracker.log if line.kind == "connection"] == [
        "dave is away; waiting up to 10 s for them to come back",
        "dave is back",
    ]


# -- the end screen's rematch offer (offer_rematches), with a stand-in for the network rematch
# (net/rematch.py has its own tests over loopback TCP: tests/net/test_rematch.py).


def _last_game(seat: int = 1):
    """A finished game's outcome as offer_rematches reads it: the peer's header and seat."""
    from types import SimpleNamespace

    seats = tuple(Seat(name, Identity.generate().public, LOOPBACK, 40000 + i) for i, name in enumerate("abc"))
    header = TableHeader(new_table_id(), "crazy-eights", "1", {}, seats, PROTOCOL_VERSION)
    return SimpleNamespace(peer=SimpleNamespace(header=header, seat=seat), result=None)


def _start(offers: list) -> object:
    from p2pcards.console.app import TableStart

    return TableStart(lambda *a, **k: None, lambda text: None, offers.append)


async def test_too_few_left_closes_the_offer_and_says_so():
    from p2pcards.console.seat import offer_rematches
    from p2pcards.net.lobby import LobbyError
    from p2pcards.net.rematch import Score

    async def rematch(agreement, on_roster, on_peer, on_words):
        raise LobbyError("bob left; Crazy Eights needs at least 2 players: no rematch")

    offers: list = []
    last = _last_game()
    with trio.fail_after(5):
        assert await offer_rematches(_start(offers), last, rematch, connection="", score=Score()) is last
    assert not offers[0].open
    assert offers[0].lines()[-1] == "no rematch: bob left; Crazy Eights needs at least 2 players"


@pytest.mark.parametrize("seated", [False, True])
async def test_quit_at_the_end_screen_tells_the_room_then_returns(seated, autojump_clock):
    """The player declines (quit): seated in the room, the runner leaves it at once (leaving it
    says bye); not seated yet, it waits for the room a few seconds at most, then returns."""
    from p2pcards.console.seat import DECLINE_SECONDS, offer_rematches
    from p2pcards.net.lobby import Roster
    from p2pcards.net.rematch import Score

    left_at: list[float] = []

    async def rematch(agreement, on_roster, on_peer, on_words):
        if seated:
            on_roster(Roster(["a", "b", "c"], [True, False, True]))
        try:
            await trio.sleep_forever()
        finally:
            left_at.append(trio.current_time())

    offers: list = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: offer_rematches(_start(offers), _last_game(), rematch, connection="", score=Score()))
        await trio.sleep(1)
        start = trio.current_time()
        offers[0].decline()
    assert left_at and left_at[0] - start == pytest.approx(0 if seated else DECLINE_SECONDS, abs=0.1)
    assert offers[0].lines()[-1] == "no rematch: you left"


def test_a_joiner_reads_the_table_options_in_words_before_it_starts(host):
    """``p2pcards join`` showed "Cal's BS, timeouts: ..." while waiting: not that the table plays
    a single hand in free order (the lobby's room says so). Now the options too, in words, in
    the game's order; a game not installed here by its id and ``key=value``."""
    from p2pcards.net.lobby import TableTerms

    options = {"turn_mode": "free", "first_dealer": -1, "match_target": 1, "quads": False}
    terms = TableTerms("cals-bs", "2", dict(sorted(options.items())), Timeouts())
    text = terms_text(host, terms)
    assert text.splitlines() == [
        "Cal's BS: quads: off, hands to win: 1 (a single hand), turn order: free order, first dealer: by lot",
        "timeouts: a deck step 30 s, a move 600 s, a dropped player 90 s to come back",
    ]
    other = TableTerms("no-such-game\x1b[2J", "1", {"size": 3}, Timeouts())
    assert terms_text(host, other).splitlines()[0] == "no-such-game\\x1b[2J: size=3"

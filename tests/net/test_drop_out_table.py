"""A player who leaves and drops out, where the game's rules allow it (issue 30): at the seat's
next turn its program signs the table's drop-out move, every seat applies it at that turn (its
cards are set aside unseen, its deck keys of the stock published), and the game goes on
without it to its end; every seat's transcript verifies alike and says who dropped out. Real
sockets on 127.0.0.1, no zeroconf."""

import os
import random
import socket

import pytest
import trio

from p2pcards.console.app import TableStart
from p2pcards.console.spectator import WatchTable
from p2pcards.engine import is_drop_out
from p2pcards.net.runner import bot_agent, host_table, join_table
from p2pcards.plugins import load_plugins
from p2pcards.session import BotSeat, HumanSeat
from p2pcards.table.timeouts import Timeouts
from p2pcards.verify import EXIT_VERIFIED, verify_file
from p2pcards.wire.identity import Identity

LOOPBACK = "127.0.0.1"


async def run_table(tmp_path, leave, game_id="cals-bs", players=4, options=None, joiner_scope=None):
    """A table of ``players`` seats (four-seat Cal's BS by default): the host's bot, bots it
    hosts, and dave, a person who never types; ``leave(peer, person)`` is run once the table
    asks dave for a move."""
    host = load_plugins()
    game = host.game(game_id)
    options = {"match_target": 1} if options is None else options
    outcomes, joined, events = [], [], []
    person = HumanSeat()
    hosts = []
    watched: dict = {}

    def watch_host(peer):
        hosts.append(peer)
        peer.session.subscribe(lambda event: events.append((event.kind, event.text)))

    async def spectate():
        # Someone watching through the host's seat follows the game past the drop-out too.
        while not hosts:
            await trio.sleep(0.01)
        me = hosts[0].header.seats[hosts[0].seat]
        runner = WatchTable(me.host, me.port, Identity.generate(), host, name="eve", transcript_dir=tmp_path / "eve")

        def show(session, **kwargs):
            watched["session"] = session

        await runner(TableStart(show, lambda text: None))
        watched["runner"] = runner

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = trio.Event()
            ports = []

            async def run_host():
                outcomes.extend(
                    await host_table(
                        host,
                        Identity.generate(),
                        game_id,
                        options=options,
                        players=players,
                        agent=bot_agent(host, game, "random", random.Random(1)),
                        name="drop",
                        interface=LOOPBACK,
                        announce=False,
                        bots=players - 2,
                        bot_name="random",
                        timeouts=Timeouts(deck=30, turn=30, grace=60),
                        transcript_dir=tmp_path,
                        on_port=lambda p: (ports.append(p), port.set()),
                        on_peer=watch_host,
                    )
                )

            async def run_joiner():
                await port.wait()
                with joiner_scope if joiner_scope is not None else trio.CancelScope():
                    await join_dave()

            async def join_dave():
                outcome = await join_table(
                    host,
                    Identity.generate(),
                    LOOPBACK,
                    ports[0],
                    name="dave",
                    agent=lambda game, seat, options: person,
                    listen_host=LOOPBACK,
                    transcript_dir=tmp_path,
                    on_peer=joined.append,
                )
                outcomes.append(outcome)

            async def leave_at_the_first_turn():
                while not person.waiting:
                    await trio.sleep(0.01)
                leave(joined[0], person, host, game)

            nursery.start_soon(run_host)
            nursery.start_soon(run_joiner)
            nursery.start_soon(leave_at_the_first_turn)
            nursery.start_soon(spectate)
    return outcomes, joined[0], events, watched


def _drop_out(peer, person, host, game):
    assert peer.session.leave_to_drop_out is not None
    bot_cls = host.bots_for(game.id)["random"]
    peer.session.leave_to_drop_out(BotSeat(bot_cls(game, peer.seat, peer.header.options, random.Random(3))))


CASES = [
    pytest.param("cals-bs", 4, {"match_target": 1}, id="cals-bs"),
    # Two hands: the bot that took the seat shuffles and deals the second (5-7 s of crypto).
    pytest.param("cals-bs", 4, {"match_target": 2}, id="cals-bs-two-hands", marks=pytest.mark.slow),
    pytest.param("crazy-eights", 3, {}, id="crazy-eights"),
]


@pytest.mark.parametrize(("game_id", "players", "options"), CASES)
async def test_a_player_who_drops_out_leaves_the_game_to_the_others(tmp_path, game_id, players, options):
    outcomes, dave, events, watched = await run_table(tmp_path, _drop_out, game_id, players, options)
    assert len(outcomes) == players
    for outcome in outcomes:
        assert outcome.aborted is None and outcome.result is not None, outcome.aborted
        assert not outcome.peer.left
    seat = dave.seat
    assert ("dropped", "dave dropped out; dave's cards are set aside unseen") in events
    # dave signed the drop-out move once, and no move after it.
    moves = [e for e in outcomes[0].peer.log.entries(seat) if e.kind == "action"]
    assert is_drop_out(moves[-1].body["action"])
    assert sum(is_drop_out(e.body["action"]) for e in moves) == 1
    # No deck seed is revealed: dave's set-aside cards stay hidden forever.
    for outcome in outcomes:
        deck = [e.body.get("msg", {}) for e in outcome.peer.log.entries(seat) if e.kind == "deck"]
        assert not [msg for msg in deck if msg.get("type") == "seed"]
        assert seat in outcome.peer.party.dropped
        assert "dropped out" in outcome.result.summary
    texts = []
    for outcome in outcomes:
        report = verify_file(outcome.transcript)
        assert report.status == EXIT_VERIFIED, report.to_text()
        texts.append(report.to_text())
        assert "verdict: VERIFIED; dave dropped out" in report.to_text()
        assert report.to_json()["dropped"] == [{"seat": seat, "name": "dave"}]
    assert len({outcome.transcript.read_bytes() for outcome in outcomes}) == 1  # the same file
    # The history says it under the game, by name, and "you" in dave's own (issue 30: it said
    # nothing of a drop-out).
    from p2pcards.history import History, games_text, record_transcript

    for our_seat, line in [(0, "dave dropped out; dave's cards were"), (seat, "you dropped out; your cards were")]:
        home = tmp_path / f"history-{our_seat}"
        rec, new = record_transcript(outcomes[0].transcript, our_seat=our_seat, home=home)
        assert new and rec.result["dropped"] == [seat]
        with History.open(home) as history:
            text = games_text(history.games(5))
        assert f"\n    {line} set aside unseen" in text, text
    # The spectator's table reached the players' result, and was told of the drop-out.
    session = watched["session"]
    assert session.result is not None and session.result.to_wire() == outcomes[0].result.to_wire()
    assert ("dropped", "dave dropped out; dave's cards are set aside unseen") in [
        (e.kind, e.text) for e in session.history
    ]
    assert "verified" in watched["runner"].outcome, watched["runner"].outcome


@pytest.mark.slow  # a whole 4-seat game's crypto, 6-9 s; the fast tier keeps the drop-out game below
async def test_a_player_who_drops_out_and_quits_at_once_ends_nothing(tmp_path, virtual_clock):
    """The program of the seat that dropped out ends right after its drop-out (its player
    closes it): it reveals no seed and signs no goodbye, the others play on without waiting
    for it (but the 10 s in which every seat's result may still come: virtual time), and
    their transcripts verify, saying who dropped out."""
    quit_scope = trio.CancelScope()

    def drop_and_quit(peer, person, host, game):
        _drop_out(peer, person, host, game)

        def quit_once_dropped(event):
            if event.kind == "dropped" and event.data.get("seat") == peer.seat:
                quit_scope.cancel()

        peer.session.subscribe(quit_once_dropped)

    outcomes, dave, events, watched = await run_table(
        tmp_path, drop_and_quit, "cals-bs", 4, {"match_target": 2}, joiner_scope=quit_scope
    )
    others = [o for o in outcomes if o.peer is not dave]
    assert len(others) == 3
    for outcome in others:
        assert outcome.aborted is None and outcome.result is not None, outcome.aborted
        assert not [e for e in outcome.peer.log.entries(dave.seat) if e.kind in ("bye", "stop")]
        report = verify_file(outcome.transcript)
        assert report.status == EXIT_VERIFIED, report.to_text()
        assert "dave dropped out" in report.to_text()
    _assert_every_entry_arrived(others)
    # Its program closed its sockets as it ended (issue 29: a cancellation skipped that, and
    # every seat's sends to it then waited out the send timeout, unread).
    assert all(conn.stream.socket.fileno() == -1 for conn in dave.connections.values())


def _assert_every_entry_arrived(others):
    """Every seat still playing holds every entry of every chain (its own, each other's)."""
    lengths = [[outcome.peer.log.next_seq(seat) for seat in range(4)] for outcome in others]
    assert all(length == lengths[0] for length in lengths), lengths


@pytest.mark.slow  # a whole 4-seat game's crypto, 5-6 s; the deaf-peer transport tests stay fast
async def test_a_seat_that_stops_reading_after_dropping_out_holds_up_nobody(tmp_path, virtual_clock):
    """Issue 29: the seat that dropped out quits, but its sockets stay open, unread (a copy of
    each is held here, as a stopped process or a program that never closes them would): every
    seat's sends to it block until the send timeout cuts that connection. The others' entries
    still reach each other at once and whole (each connection is sent to on its own, under a
    shield longer than the send timeout): the game goes on to its end, no seat that reads is
    named, and every seat holds every entry."""
    quit_scope = trio.CancelScope()
    held: list[socket.socket] = []

    def drop_and_stop_reading(peer, person, host, game):
        _drop_out(peer, person, host, game)

        def stop_once_dropped(event):
            if event.kind == "dropped" and event.data.get("seat") == peer.seat:
                for conn in peer.connections.values():
                    # A copy that keeps the socket open once its program has closed it; its
                    # receive buffer as small as can be, so that the others' sends to it fill
                    # up and block within a few entries (an unread buffer never grows).
                    sock = socket.socket(fileno=os.dup(conn.stream.socket.fileno()))
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
                    held.append(sock)
                quit_scope.cancel()

        peer.session.subscribe(stop_once_dropped)

    try:
        outcomes, dave, events, watched = await run_table(
            tmp_path, drop_and_stop_reading, "cals-bs", 4, {"match_target": 2}, joiner_scope=quit_scope
        )
    finally:
        for sock in held:
            sock.close()
    assert len(held) == 3
    others = [o for o in outcomes if o.peer is not dave]
    assert len(others) == 3
    for outcome in others:
        assert outcome.aborted is None and outcome.result is not None, outcome.aborted
        report = verify_file(outcome.transcript)
        assert report.status == EXIT_VERIFIED, report.to_text()
        for seat, conn in outcome.peer.connections.items():
            if seat != dave.seat:
                assert conn.failure is None, (seat, conn.failure)
    _assert_every_entry_arrived(others)

"""A player who leaves before the end says so (a ``bye`` on every connection): the others end
the game at once, as abandoned by that seat, instead of waiting the grace period for it.
Everything on 127.0.0.1, no zeroconf."""

import random

import trio

from p2pcards.net.runner import bot_agent, host_table, join_table
from p2pcards.plugins import load_plugins
from p2pcards.table.protocol import TableAborted
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.identity import Identity

LOOPBACK = "127.0.0.1"


async def test_a_seat_that_leaves_mid_game_ends_it_at_once_for_the_others():
    host = load_plugins()
    game = host.game("cals-bs")
    events = []
    outcomes = []
    grace = 60.0  # far longer than the test may take: the game must not wait for it
    moves = trio.Event()
    left, host_done = [], []

    def watch(peer):
        def seen(event):
            events.append((event.kind, event.text))
            if event.kind == "action" and sum(kind == "action" for kind, _ in events) >= 6:
                moves.set()

        peer.session.subscribe(seen)

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = trio.Event()
            ports = []

            async def run_host():
                outcomes.extend(
                    await host_table(
                        host,
                        Identity.generate(),
                        "cals-bs",
                        options={"match_target": 3},
                        players=3,
                        agent=bot_agent(host, game, "random", random.Random(1)),
                        name="leave",
                        interface=LOOPBACK,
                        announce=False,
                        bots=1,
                        bot_name="random",
                        timeouts=Timeouts(deck=20, turn=20, grace=grace),
                        on_port=lambda p: (ports.append(p), port.set()),
                        on_peer=watch,
                        linger=30.0,  # (a wind-down that waited it out would show plainly)
                    )
                )
                host_done.append(trio.current_time())

            async def run_joiner():
                await port.wait()
                with trio.CancelScope() as leaving:  # the player quits: the seat is cancelled
                    nursery.start_soon(quit_after_some_moves, leaving)
                    await join_table(
                        host,
                        Identity.generate(),
                        LOOPBACK,
                        ports[0],
                        name="dave",
                        agent=bot_agent(host, game, "random", random.Random(2)),
                        listen_host=LOOPBACK,
                    )

            async def quit_after_some_moves(scope):
                await moves.wait()
                left.append(trio.current_time())
                scope.cancel()

            nursery.start_soon(run_host)
            nursery.start_soon(run_joiner)
    assert len(outcomes) == 2  # the host's seat and its bot's
    for outcome in outcomes:
        assert outcome.aborted is not None and "dave left the table" in outcome.aborted.reason
        assert outcome.peer.header.seats[outcome.aborted.seat].name == "dave"
        assert set(outcome.peer.left) == {outcome.aborted.seat}
        # The game stopped: the seat list counts down no grace period ("away 0:59" read as if
        # the table still waited for the seat); a seat no longer connected is gone.
        shown = [(p.state, p.grace_left) for p in outcome.peer.session.presence()]
        me = outcome.peer.seat
        assert shown[me] == ("online", None)
        assert all(p in (("gone", None), ("online", None)) for s, p in enumerate(shown) if s != me), shown
        assert shown[outcome.aborted.seat] == ("gone", None)
    assert ("connection", "dave left the table (it said: quit before the game ended)") in events
    # The two seats left stop and sign it, and each ends its wind-down once it has the other's
    # stop: not after the whole linger (30 s here), waiting for stops it already held.
    assert host_done[0] - left[0] < 15, host_done[0] - left[0]


def find_a_fault_in_seat(seat: int, moves: int, reason: str):
    """An ``on_peer`` under which ``seat``'s peer, after ``moves`` moves, finds a fault in its
    own seat (a self-check that fails) and stops its game for it."""

    def on_peer(peer) -> None:
        if peer.seat != seat:
            return
        seen = []

        def watch(event) -> None:
            if event.kind == "action":
                seen.append(event)
                if len(seen) == moves:
                    peer.abort(TableAborted(reason, seat, "action"))

        peer.session.subscribe(watch)

    return on_peer


def test_a_seat_that_stops_for_its_own_reason_signs_a_bye_and_nobody_waits_the_grace(tmp_path):
    """Every stop says goodbye with its true reason (issue 23): a seat that stops for a fault of
    its own signs a ``bye`` saying so; the others end the game at once, naming it as having
    left, and their transcripts show it."""
    from p2pcards.net.runner import play_local_table
    from p2pcards.testing.loopback import _agents, _host_for
    from p2pcards.verify import EXIT_LEFT, verify_file

    host, game = _host_for("cals-bs")
    options = game.resolve_options({"match_target": 3}, 3)
    reason = "a self-check of its own seat failed"

    async def main():
        with trio.fail_after(30):  # the grace is 60 s
            return await play_local_table(
                host,
                game.id,
                players=3,
                options=options,
                agents=_agents(host, game, "random", 3, 0, 0.0),
                interface=LOOPBACK,
                timeouts=Timeouts(deck=20, turn=20, grace=60),
                transcript_dir=tmp_path,
                linger=5.0,
                on_peer=find_a_fault_in_seat(1, 3, reason),
            )

    outcomes = trio.run(main)
    faulty = outcomes[1].peer
    assert [e.body["reason"] for e in faulty.log.entries(1) if e.kind == "bye"] == [reason]
    assert not any(e.kind == "stop" for e in faulty.log.entries(1))
    for seat in (0, 2):
        aborted = outcomes[seat].aborted
        assert aborted is not None and aborted.seat == 1
        assert aborted.reason == "player 1 left the table (a signed goodbye)"  # our words, not its
        report = verify_file(outcomes[seat].transcript)
        assert report.end_status == "abandoned" and report.status == EXIT_LEFT and report.problem.seat == 1
        assert report.problem.reason == aborted.reason

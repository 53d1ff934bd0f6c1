"""A player who leaves before the end says so (a ``bye`` on every connection): the others end
the game at once, as abandoned by that seat, instead of waiting the grace period for it.
Everything on 127.0.0.1, no zeroconf."""

import random

import trio

from p2pcards.net.runner import bot_agent, host_table, join_table
from p2pcards.plugins import load_plugins
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

    def watch(peer):
        def seen(event):
            events.append((event.kind, event.text))
            if event.kind == "action" and sum(kind == "action" for kind, _ in events) >= 6:
                moves.set()

        peer.session.subscribe(seen)

    with trio.fail_after(30):
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
                    )
                )

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
                scope.cancel()

            nursery.start_soon(run_host)
            nursery.start_soon(run_joiner)
    assert len(outcomes) == 2  # the host's seat and its bot's
    for outcome in outcomes:
        assert outcome.aborted is not None and "dave left the table" in outcome.aborted.reason
        assert outcome.peer.header.seats[outcome.aborted.seat].name == "dave"
        assert set(outcome.peer.left) == {outcome.aborted.seat}
    assert ("connection", "dave left the table: quit before the game ended") in events

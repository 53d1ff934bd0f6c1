"""A connection between two running peers drops in the middle of a game: the higher seat of the
pair dials again, the peers catch up on what they missed, and the game completes."""

import random

import trio

from p2pcards.table.timeouts import Timeouts
from p2pcards.net.runner import bot_agent, host_table, join_table
from p2pcards.plugins import load_plugins
from p2pcards.wire.identity import Identity

LOOPBACK = "127.0.0.1"


async def test_a_dropped_connection_is_dialled_again_and_the_game_completes(tmp_path):
    host = load_plugins()
    peers = {}
    outcomes = []
    cut = []

    def agent(game, seat, options):
        return bot_agent(host, game, "random", random.Random(seat), delay=0.02)(game, seat, options)

    async def cut_once_under_way():
        while len(peers) < 3 or min(p.turns for p in peers.values()) < 6:
            await trio.sleep(0.01)
        victim = peers[1].connections[2]  # seat 1's link to seat 2: seat 2 must dial again
        cut.append(victim)
        await victim.stream.aclose()

    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            ports, port = [], trio.Event()

            async def run_host():
                outcomes.extend(await host_table(
                    host, Identity.generate(), "cals-bs", options={"match_target": 1}, players=3,
                    agent=agent, name="redial", interface=LOOPBACK, announce=False,
                    timeouts=Timeouts(deck=20, turn=30, grace=20), transcript_dir=tmp_path,
                    on_port=lambda p: (ports.append(p), port.set()),
                    on_peer=lambda p: peers.__setitem__(p.seat, p),
                ))

            async def run_joiner():
                await port.wait()
                outcomes.append(await join_table(
                    host, Identity.generate(), LOOPBACK, ports[0], name="guest", agent=agent,
                    listen_host=LOOPBACK, transcript_dir=tmp_path,
                    on_peer=lambda p: peers.__setitem__(p.seat, p),
                ))

            nursery.start_soon(run_host)
            nursery.start_soon(run_joiner)
            nursery.start_soon(run_joiner)
            nursery.start_soon(cut_once_under_way)
    assert all(o.aborted is None and o.result is not None for o in outcomes), [o.aborted for o in outcomes]
    assert cut and peers[1].connections[2] is not cut[0], "seat 2 never dialled seat 1 again"
    files = sorted(tmp_path.glob("*.p2pt"))
    assert len(files) == 3 and len({f.read_bytes() for f in files}) == 1

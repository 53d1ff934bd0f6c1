"""A connection between two running peers drops in the middle of a game: the higher seat of the
pair dials again, the peers catch up on what they missed, and the game completes."""

import random

import trio

from p2pcards.net.runner import bot_agent
from p2pcards.plugins import load_plugins

from .loopback_table import play_three_seats


async def test_a_dropped_connection_is_dialled_again_and_the_game_completes(tmp_path, virtual_clock):
    host = load_plugins()
    peers = {}
    cut = []

    def agent(game, seat, options):
        return bot_agent(host, game, "random", random.Random(seat), delay=0.02)(game, seat, options)

    async def cut_once_under_way():
        while len(peers) < 3 or min(p.turns for p in peers.values()) < 6:
            await trio.sleep(0.01)
        victim = peers[1].connections[2]  # seat 1's link to seat 2: seat 2 must dial again
        cut.append(victim)
        await victim.stream.aclose()

    outcomes = await play_three_seats(agent, tmp_path, peers, cut_once_under_way)
    assert all(o.aborted is None and o.result is not None for o in outcomes), [o.aborted for o in outcomes]
    assert cut and peers[1].connections[2] is not cut[0], "seat 2 never dialled seat 1 again"
    files = sorted(tmp_path.glob("*.p2pt"))
    assert len(files) == 3 and len({f.read_bytes() for f in files}) == 1

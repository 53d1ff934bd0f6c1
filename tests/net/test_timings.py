"""The benchmark's recorder (p2pcards/net/timings.py) sees every entry a peer receives: it
times the table protocol's accept, where every entry from the wire goes."""

from __future__ import annotations

import random

import trio

from p2pcards.net.runner import bot_agent
from p2pcards.net.timings import TimingRecorder
from p2pcards.plugins import load_plugins

from .loopback_table import play_three_seats


async def test_the_recorder_sees_entries_arrive_and_leave(tmp_path, virtual_clock):
    host = load_plugins()
    game = host.game("cals-bs")
    peers, recorder = {}, TimingRecorder()

    async def attach_early():
        while 1 not in peers:
            await trio.sleep(0.001)
        recorder.attach(peers[1])

    agent = bot_agent(host, game, "random", random.Random(3), delay=0.01)
    outcomes = await play_three_seats(agent, tmp_path, peers, attach_early)
    assert all(o.result is not None for o in outcomes), [o.aborted for o in outcomes]
    assert recorder.sent and recorder.received
    assert {seat for _, seat, _, _ in recorder.received} == {0, 2}

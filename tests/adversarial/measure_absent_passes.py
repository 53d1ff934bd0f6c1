"""How long the table takes to pass for a gone Cal's BS follower (docs/performance.md, "Passing
for a gone follower"): loopback only, bots, one seat says an unsigned goodbye mid-game.

    .venv/bin/python -m tests.adversarial.measure_absent_passes
"""

import pathlib
import statistics
import tempfile

import trio

from p2pcards.net import seats as seats_mod
from p2pcards.table.timeouts import Timeouts

from .adv_table import run_table
from .cheaters import CHEATERS

waits = []
orig = seats_mod.RemoteSeat.choose


async def timed(self, session, seat):
    t0 = trio.current_time()
    action = await orig(self, session, seat)
    if self.peer.turns in self.passed:
        waits.append(trio.current_time() - t0)
    return action


seats_mod.RemoteSeat.choose = timed
for mode in ({"match_target": 1}, {"match_target": 1, "turn_mode": "free"}):
    waits.clear()
    for attempt in range(6):
        run_table(
            "cals-bs",
            4,
            mode,
            cheater=1,
            peer_factory=CHEATERS["SaysByeUnsigned"],
            transcript_dir=pathlib.Path(tempfile.mkdtemp()),
            timeouts=Timeouts(deck=20, turn=20, grace=10),
            seed=attempt,
        )
    if waits:
        print(
            mode,
            "passes",
            len(waits),
            "median wait %.1f ms" % (1000 * statistics.median(waits)),
            "max %.1f ms" % (1000 * max(waits)),
        )

"""The end-of-game check of a stopped game's transcript (``_judge_the_stopper``, protocol/
table.md section 5) runs ``verify`` off the event loop: the loop keeps serving what else runs
in it (other seats of this process, the console, a rematch room) while a long transcript is
replayed. In real time on purpose: what is measured is the wall clock's gaps in a task that
ticks alongside (on trio's virtual clock the replay runs in the loop, as it must:
net/table.verify_off_the_loop says why)."""

from __future__ import annotations

import time

import trio

from p2pcards.net.table import verify_off_the_loop
from p2pcards.verify import verify_file


def test_verify_runs_off_the_loop_and_says_the_same(bs_table):
    expected = verify_file(bs_table.path)

    async def main():
        gaps: list[float] = []
        done = trio.Event()

        async def tick() -> None:
            last = time.perf_counter()
            while not done.is_set():
                await trio.sleep(0.01)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now

        async with trio.open_nursery() as nursery:
            nursery.start_soon(tick)
            began = time.perf_counter()
            report = await verify_off_the_loop(bs_table.path)
            took = time.perf_counter() - began
            done.set()
        return report, gaps, took

    report, gaps, took = trio.run(main)
    print(f"verify took {took:.3f} s off the loop; the longest gap between ticks {max(gaps):.3f} s")
    assert (report.status, report.problem) == (expected.status, expected.problem)
    # In the loop, one gap would be the whole replay (``took``); off it, the ticks go on
    # (the GIL passes between the threads every few milliseconds). Bounded loosely for a
    # loaded machine: a quarter of the replay's time, and at least half a second.
    assert len(gaps) > 1, (gaps, took)
    assert max(gaps) < max(0.5, took / 4), f"longest gap {max(gaps):.3f} s of a {took:.3f} s verify"

"""The clock for deadlines about other seats stands still while this process does not run
(issue 23). A stall is simulated by jumping trio's mock clock from inside a task, so that no
other task (the tick included) runs across the jump: just what a SIGSTOP does to a process."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from p2pcards.net.stallclock import STALL, TICK, StallClock


async def ticking(clock: StallClock, nursery: trio.Nursery) -> None:
    nursery.start_soon(clock.run)
    await trio.sleep(TICK * 2)  # the tick has looked at the time


async def ticking_manually(clock: StallClock, nursery: trio.Nursery, mock_clock: trio.testing.MockClock) -> None:
    """Start the tick under a clock that moves only when told to."""
    nursery.start_soon(clock.run)
    await trio.testing.wait_all_tasks_blocked()


async def test_time_that_passes_while_the_process_runs_counts(autojump_clock):
    clock = StallClock()
    async with trio.open_nursery() as nursery:
        await ticking(clock, nursery)
        before = clock.now()
        await trio.sleep(600)  # virtual minutes: the autojump clock jumps a tick at a time
        assert clock.now() - before == pytest.approx(600)
        assert clock.stalls == 0
        nursery.cancel_scope.cancel()


async def test_a_stall_is_not_counted_and_is_noticed_by_the_first_look(mock_clock):
    clock = StallClock()
    async with trio.open_nursery() as nursery:
        await ticking_manually(clock, nursery, mock_clock)
        before = clock.now()
        mock_clock.jump(45)  # stopped for 45 s: no task ran, the tick did not look
        # The deadline's own look notices it (on waking, it may run before the tick).
        assert clock.now() - before < TICK
        assert (clock.stalls, clock.stalled) == (1, 45)
        mock_clock.jump(1)  # then time counts again
        assert clock.now() - before == 1
        nursery.cancel_scope.cancel()


async def test_the_tick_notices_a_stall_on_its_own(mock_clock):
    clock = StallClock()
    async with trio.open_nursery() as nursery:
        await ticking_manually(clock, nursery, mock_clock)
        mock_clock.jump(20)
        await trio.testing.wait_all_tasks_blocked()  # the tick ran first this time
        assert (clock.stalls, clock.stalled) == (1, 20)
        nursery.cancel_scope.cancel()


async def test_a_late_loop_is_no_stall(mock_clock):
    # Under heavy load trio's loop may be a second or two late: that time counts.
    clock = StallClock()
    async with trio.open_nursery() as nursery:
        await ticking_manually(clock, nursery, mock_clock)
        before = clock.now()
        for _ in range(5):
            mock_clock.jump(STALL - 0.1)
            await trio.testing.wait_all_tasks_blocked()
        assert clock.stalls == 0
        assert clock.now() - before == 5 * (STALL - 0.1)
        nursery.cancel_scope.cancel()


async def test_without_the_tick_a_long_gap_is_time_passing(mock_clock):
    clock = StallClock()
    before = clock.now()
    mock_clock.jump(100)
    assert clock.now() - before == 100
    assert clock.stalls == 0


async def run_for(mock_clock: trio.testing.MockClock, seconds: float) -> None:
    """Time passes while this process runs: a tick at a time, every task running in between."""
    for _ in range(round(seconds / TICK)):
        mock_clock.jump(TICK)
        await trio.testing.wait_all_tasks_blocked()


async def test_a_deadline_that_ran_out_during_a_stall_is_moved_on(mock_clock):
    """A wait for a seat's return (the grace) that ran out while we were stopped is waited for
    again, the stall added: the seat that comes back then came back in time, and one that does
    not is given up on once the deadline has passed in time we ran."""
    clock = StallClock()
    returned, gone = trio.Event(), trio.Event()
    outcome: dict[str, bool] = {}
    async with trio.open_nursery() as nursery:
        await ticking_manually(clock, nursery, mock_clock)

        async def waiting(name: str, event: trio.Event) -> None:
            outcome[name] = await clock.wait(event, clock.now() + 10)

        nursery.start_soon(waiting, "returned", returned)
        nursery.start_soon(waiting, "gone", gone)
        await run_for(mock_clock, 4)
        mock_clock.jump(45)  # stopped: both deadlines ran out in trio's time
        await trio.testing.wait_all_tasks_blocked()
        assert outcome == {}
        await run_for(mock_clock, 5)
        returned.set()
        await trio.testing.wait_all_tasks_blocked()
        assert outcome == {"returned": True}
        await run_for(mock_clock, 1.25)
        assert outcome == {"returned": True, "gone": False}
        nursery.cancel_scope.cancel()

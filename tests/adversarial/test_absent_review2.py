"""A second hostile review of passing for absent followers (protocol/table.md section 9,
"Absent followers"), on the version fixed after the first review (test_absent_review.py).

Over loopback with real peers (adv_table.run_table). Each test shows an attack that still
works; each was marked xfail until it was fixed.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio

from p2pcards.game import Round, Turn
from p2pcards.table.timeouts import Timeouts

from .adv_table import named, play_until_cheated, verify
from .cheaters import CHEATERS, Cheater, CheatingSeat

pytestmark = pytest.mark.slow  # whole tables on the mental-poker deck: seconds of crypto each

TIMEOUTS = Timeouts(deck=6.0, turn=6.0, grace=3.0)
CHEATER = 1


def waited_on(session) -> tuple[int, ...]:
    step = session.step
    return tuple(step.seats) if isinstance(step, Round) else (step.seat,) if isinstance(step, Turn) else ()


# ----------------------------------------------------------------------------------------------
# 1. A stall that verify excuses: a statement about a turn at which nobody could answer it.


class _StallsSeat(CheatingSeat):
    async def choose(self, session, seat):
        peer = self.peer
        if peer.stated is not None:
            await trio.sleep_forever()
        return await super().choose(session, seat)


class StatesIdleSeatThenStalls(Cheater):
    """Signs an ``absent`` statement about another seat for a past turn at which that seat
    was not to move at all (so no honest seat holds a move of it for that turn, nor waits on
    it then: nobody ever answers), then stalls at its own next turn. Every honest seat names
    it at the turn timeout, but ``p2pcards verify`` reads the stall as a seat still waiting
    for the statements on whether that seat's move stands (_waiting_on_statements) and
    names nobody."""

    deviation = "states an idle seat absent for a past turn, then stalls"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.stated: tuple[int, int] | None = None
        self.history: dict[int, tuple[int, ...]] = {}
        self.session.seats[self.seat] = _StallsSeat(self, self.session.seats[self.seat].agent)

    async def misbehave(self):
        for _ in range(100_000):
            self.history.setdefault(self.turns, waited_on(self.session))
            target = next((s for s in self.others), None)
            idle = [t for t, seats in self.history.items() if t < self.turns and seats and target not in seats]
            if idle and isinstance(self.session.step, Turn) and self.session.step.seat != self.seat:
                self.cheated = True
                self.stated = (idle[0], target)
                await self.publish("absent", {"turn": idle[0], "seat": target})
                return
            await trio.sleep(0.002)


CHEATERS["StatesIdleSeatThenStalls"] = StatesIdleSeatThenStalls


def test_statement_about_an_idle_turn_excuses_a_stall(tmp_path):
    run = play_until_cheated(
        tmp_path,
        "cals-bs",
        3,
        {"match_target": 1},
        "StatesIdleSeatThenStalls",
        cheater=CHEATER,
        timeouts=TIMEOUTS,
        virtual_time=True,
    )
    info = run.describe() + f"\nstated {run.cheater_peer.stated}"
    for outcome in run.honest.values():
        assert outcome.aborted is not None, info
        assert CHEATER in named(outcome), info  # the table names the staller
    for seat, outcome in run.honest.items():
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert status == 1 and problem.get("seat") == CHEATER, f"seat {seat}: {problem}\n{info}"


class StatesAfterTheStop(Cheater):
    """Stalls at its own first turn after turn 2; once every honest seat has stopped its game
    (naming it), signs an ``absent`` statement about a follower for a past turn at which that
    follower did move. The honest seats, stopped, no longer answer statements
    (Peer.state_absent), but still take the entry into their transcripts: ``p2pcards verify``
    then reads the stall as a wait for statements and names nobody."""

    deviation = "stalls, then states a follower absent for a past turn after the others stopped"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.stated: tuple[int, int] | None = None
        self.stalling = False
        self._followers: dict[int, set[int]] = {}  # turn -> the followers it waited on then
        self.session.seats[self.seat] = _StallsAfterSeat(self, self.session.seats[self.seat].agent)

    async def misbehave(self):
        for _ in range(100_000):
            if self.session.state is not None:
                for seat in waited_on(self.session):
                    if seat != self.seat and self.session.game.absent_action(self.session.state, seat) is not None:
                        self._followers.setdefault(self.turns, set()).add(seat)
            if self.stalling and set(self.others) <= set(self.protocol.halted):
                past = [
                    (t, s)
                    for t, seats in self._followers.items()
                    for s in seats
                    if t < self.turns and self.protocol.holds_move(s, t)
                ]
                if past:
                    self.stated = past[-1]
                    self.cheated = True
                    await self.publish("absent", {"turn": past[-1][0], "seat": past[-1][1]})
                return
            await trio.sleep(0.002)


class _StallsAfterSeat(CheatingSeat):
    async def choose(self, session, seat):
        peer = self.peer
        if peer.turns >= 3 and peer._followers:
            peer.stalling = True
            await trio.sleep_forever()
        return await super().choose(session, seat)


CHEATERS["StatesAfterTheStop"] = StatesAfterTheStop


def test_statement_signed_after_the_stop_excuses_a_stall(tmp_path):
    """Fixed twice: verify no longer excuses the staller for its late statement, and, since
    the seedless replay reads public reveals (deck/public.py), it reaches a stall after a
    doubt too, where it used to stop and name nobody."""
    run = play_until_cheated(
        tmp_path,
        "cals-bs",
        3,
        {"match_target": 1},
        "StatesAfterTheStop",
        cheater=CHEATER,
        timeouts=TIMEOUTS,
    )
    info = run.describe() + f"\nstated {run.cheater_peer.stated}"
    for outcome in run.honest.values():
        assert outcome.aborted is not None and CHEATER in named(outcome), info
    for seat, outcome in run.honest.items():
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert status == 1 and problem.get("seat") == CHEATER, f"seat {seat}: {problem}\n{info}"


# ----------------------------------------------------------------------------------------------
# 3. A spin: between the turn timeout and the end of the grace period, a seat that stated a
#    follower absent and lacks one statement loops without waiting, asking around each time.


class NeverStates(Cheater):
    """Never signs an ``absent`` statement (it stays connected, so its missing statement
    counts as one that may still come)."""

    deviation = "never states a gone follower absent"

    async def state_absent(self, turn, seat):
        self.cheated = True
        return None


class CountsFetches(Cheater):
    """Not a cheater: an honest seat that counts the fetches it sends while it waits."""

    deviation = "none (counts its fetches)"
    leaves = False

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fetches = 0
        self.cheated = True

    def message_to(self, seat, message):
        from p2pcards.wire.messages import Fetch

        if isinstance(message, Fetch):
            self.fetches += 1
        return message


CHEATERS.update({cls.__name__: cls for cls in (NeverStates, CountsFetches)})


def test_a_missing_statement_makes_no_busy_loop(tmp_path):
    gone, counter = 2, 0
    run = play_until_cheated(
        tmp_path,
        "cals-bs",
        3,
        {"match_target": 1},
        "NeverStates",
        cheater=CHEATER,
        virtual_time=True,
        timeouts=TIMEOUTS,
        others={gone: CHEATERS["GoneForGood"], counter: CHEATERS["CountsFetches"]},
        ready=lambda r: r.outcomes[counter] is not None and r.outcomes[counter].aborted is not None,
    )
    info = run.describe()
    fetches = run.outcomes[counter].peer.fetches
    # Paced at most every CHECK_FIRST (0.25 s) over the whole table (under 40 s), to two seats
    # for two chains: a few hundred at the very most.
    assert fetches < 1000, f"seat {counter} sent {fetches} fetches\n{info}"


# ----------------------------------------------------------------------------------------------
# 4. One gone seat, and a lone early statement about a present follower ends the game.


@pytest.mark.parametrize("mode", ["clockwise", "free"])
def test_a_lone_early_statement_with_one_seat_gone_stops_nothing(tmp_path, mode):
    gone = 3
    options = {"match_target": 1, **({"turn_mode": "free"} if mode == "free" else {})}
    run = play_until_cheated(
        tmp_path,
        "cals-bs",
        4,
        options,
        "StatesAbsentEarly",
        cheater=CHEATER,
        virtual_time=True,
        timeouts=TIMEOUTS,
        others={gone: CHEATERS["GoneForGood"]},
    )
    info = run.describe()
    honest = {s: o for s, o in run.honest.items() if s != gone}
    # Without the cheater the table passes for the gone seat as a follower and stops only when
    # it must lead (or the hand needs its key). A statement about a present follower whose
    # move the honest seats hold (and say so) must not stop it sooner.
    # (The cheater may stop its own game, as any seat may; the seats waiting on it then stop
    # too, quoting its reason: that is not an honest seat stopping on a lone statement.)
    for seat, outcome in honest.items():
        reason = outcome.aborted.reason if outcome.aborted is not None else ""
        assert not reason.startswith("the statements"), f"seat {seat}: {reason}\n{info}"

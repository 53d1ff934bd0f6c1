"""Cheating with the table's drop-out move (issue 30, protocol version 10): a seat drops out
only at its own turn, where the game's rules allow it then, by the move ``{"type": "drop
out"}`` signed by itself, and signs no move after it. Each cheater below breaks one of these;
every honest seat names it (and nobody else), and so does ``p2pcards verify`` of every honest
seat's transcript. One table each, over loopback TCP (127.0.0.1, no zeroconf), on virtual time."""

from __future__ import annotations

import pytest
import trio

from p2pcards.game import Turn
from p2pcards.net.peer import Peer
from p2pcards.net.seats import LocalSeat
from p2pcards.session import DroppingOut
from p2pcards.table.timeouts import Timeouts

from .adv_table import blamed, run_table, verify
from .cheaters import Cheater

pytestmark = pytest.mark.slow  # whole tables on the mental-poker deck

CHEATER = 1  # never seat 0: "seat 0" is what a wrong default would name
BS3 = ("cals-bs", 3, {"match_target": 1})
BS4 = ("cals-bs", 4, {"match_target": 1})
DROP = {"type": "drop out"}
STALL = Timeouts(deck=2.0, turn=2.0, grace=0.5)


class DropsWhereRefused(Cheater):
    """At a three-seat Cal's BS table (the rules go on without a player only while at least 3
    others play), signs the drop-out move at its first turn anyway."""

    deviation = "drop-out the rules refuse"
    hang_after_move = True  # its own replica refuses it too

    def cheat_move(self, session, seat):
        return dict(DROP) if isinstance(session.step, Turn) else None


class DropsOutOfTurn(Cheater):
    """Signs the drop-out move for the turn the table is at, while that turn is another seat's."""

    deviation = "drop-out out of turn"

    async def misbehave(self):
        await self.until_other_turn(1)
        self.cheated = True
        await self.publish("action", {"turn": self.turns, "action": dict(DROP)})


class MovesAfterDropping(Cheater):
    """Drops out at its first turn (the rules allow it: four seats), then signs a pass for the
    turn the table is at, as if it still played."""

    deviation = "a move after dropping out"

    def cheat_move(self, session, seat):
        return dict(DROP) if isinstance(session.step, Turn) else None

    async def misbehave(self):
        await self.until(lambda: self.cheated)
        await self.until(lambda: self.seat in self.session.state.out)
        await trio.sleep(0.2)
        await self.publish("action", {"turn": self.turns, "action": {"type": "pass"}})


class DropsOutForAnother(Cheater):
    """At its first turn signs a drop-out move that names another seat (the next one) as the one
    who drops out: a seat drops out only by its own signed move, which names nobody."""

    deviation = "a drop-out for another seat"
    hang_after_move = True

    def cheat_move(self, session, seat):
        if not isinstance(session.step, Turn):
            return None
        return {**DROP, "seat": (seat + 1) % session.players}


def _check(run, tmp_path, *, words):
    honest = [s for s in run.outcomes if s != CHEATER]
    for seat in honest:
        outcome = run.outcomes[seat]
        assert outcome is not None and outcome.aborted is not None, f"seat {seat} finished"
        assert outcome.aborted.seat == CHEATER, (seat, outcome.aborted.reason)
        assert blamed(outcome.peer) <= {CHEATER}, outcome.peer.blames  # nobody innocent named
        assert outcome.transcript is not None
        status, report = verify(outcome.transcript)
        assert status == 1, report
        assert report["problem"]["seat"] == CHEATER, report["problem"]
        assert words in report["problem"]["reason"], report["problem"]


def test_a_drop_out_the_rules_refuse_is_named(tmp_path):
    run = run_table(*BS3, cheater=CHEATER, peer_factory=DropsWhereRefused, transcript_dir=tmp_path)
    _check(run, tmp_path, words="at least 3 others")


def test_a_drop_out_out_of_turn_is_named(tmp_path):
    run = run_table(*BS4, cheater=CHEATER, peer_factory=DropsOutOfTurn, transcript_dir=tmp_path)
    _check(run, tmp_path, words="")


def test_a_move_after_dropping_out_is_named(tmp_path):
    run = run_table(*BS4, cheater=CHEATER, peer_factory=MovesAfterDropping, transcript_dir=tmp_path)
    _check(run, tmp_path, words="after dropping out")


def test_a_drop_out_for_another_seat_names_its_signer(tmp_path):
    run = run_table(*BS4, cheater=CHEATER, peer_factory=DropsOutForAnother, transcript_dir=tmp_path)
    _check(run, tmp_path, words="nothing else")


class DropsOutHonestly(Peer):
    """Not a cheater: a seat whose player dropped out, at its first turn where the rules allow
    it (the reference client's ``drop``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        local = self.session.seats[self.seat]
        self.session.seats[self.seat] = LocalSeat(self, DroppingOut(local.agent))


class StallsAfterADropOut(Cheater):
    """Plays honestly until some seat has dropped out, then never moves again."""

    deviation = "stalling after a drop-out"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.session.seats[self.seat] = _StallsOnceDropped(self, self.session.seats[self.seat].agent)


class _StallsOnceDropped(LocalSeat):
    async def choose(self, session, seat):
        if session.replica.dropped:
            self.peer.cheated = True
            await trio.sleep_forever()
        return await super().choose(session, seat)


def test_a_staller_after_a_drop_out_is_named_never_the_seat_that_dropped_out(tmp_path):
    """Seat 2 drops out (honestly); then the cheater stalls at its turn. Every honest seat
    names the cheater, and verify of each transcript too, never the seat that dropped out
    (whose seed is missing from every file)."""
    dropper = 2
    run = run_table(
        *BS4,
        cheater=CHEATER,
        peer_factory=StallsAfterADropOut,
        transcript_dir=tmp_path,
        others={dropper: DropsOutHonestly},
        timeouts=STALL,
    )
    for seat in (0, 3, dropper):
        outcome = run.outcomes[seat]
        assert outcome is not None and outcome.aborted is not None, f"seat {seat} finished"
        assert outcome.aborted.seat in (CHEATER, None), (seat, outcome.aborted.reason)
        assert blamed(outcome.peer) <= {CHEATER}, outcome.peer.blames
        # No seat reveals its seed (protocol version 12), the dropper no more at the stop.
        deck = [e.body.get("msg") or {} for e in outcome.peer.log.entries(dropper) if e.kind == "deck"]
        assert not [msg for msg in deck if msg.get("type") == "seed"]
        if seat != dropper:
            assert outcome.aborted.seat == CHEATER, outcome.aborted.reason
        status, report = verify(outcome.transcript)
        assert status == 1, report
        assert report["problem"]["seat"] == CHEATER, report["problem"]

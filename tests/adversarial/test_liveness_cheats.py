"""Cheating seats against the liveness rules (keepalive, quiet links, the grace period): a seat
must not stall the table past its bound by playing with its links, nor escape being named.

Each table runs on trio's autojump clock over loopback (adv_table's ``virtual_time``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import trio

from p2pcards.table.timeouts import Timeouts

from .adv_table import run_table, verify
from .cheaters import CheatingSeat, StallsDeck, StallsTurnPeer

pytestmark = pytest.mark.slow  # whole tables on the mental-poker deck: seconds of crypto each

BS = ("cals-bs", 3, {"match_target": 1})
#: The grace period must cover a redial (REDIAL_FIRST 0.2 s, then a handshake).
TIMEOUTS = Timeouts(deck=2.0, turn=2.0, grace=1.0)
CYCLES = 20  # the cheater's drops, at most (the table's limit is 40 virtual seconds)


def run_cheating_bs(tmp_path: Any, peer_factory: Any, cheater: int) -> tuple[Any, str]:
    """The 3-seat Cal's BS table (``BS``, ``TIMEOUTS``) on the autojump clock, seat ``cheater``
    a ``peer_factory``; checks that it cheated. A one-hand game may end before a turn staller
    ever has to lead (the deck is new every game: 1 side-by-side suite run in 2 had it so), so
    it plays again, up to 4 tables, as play_until_cheated does. Returns the run and its
    description."""
    game, players, options = BS
    for attempt in range(4):
        run = run_table(
            game,
            players,
            options,
            cheater=cheater,
            peer_factory=peer_factory,
            transcript_dir=tmp_path / str(attempt),
            timeouts=TIMEOUTS,
            seed=attempt,
            virtual_time=True,
        )
        if run.cheater_peer is not None and run.cheater_peer.cheated:
            break
    info = run.describe()
    assert run.cheater_peer is not None and run.cheater_peer.cheated, info
    return run, info


class RedialsToStall:
    """Stalls (its first shuffle or re-lock pass, or its first move), and drops every link for
    most of the grace period shortly before each deadline: it then redials (the highest seat
    redials), hoping each return gives the step a fresh timeout. ``drops``: how many times it dropped
    them while the others still waited on it."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.drops = 0
        # Its own game never times out (the others wait on it, so it would wait on them): it
        # keeps redialing for as long as it likes.
        self.timeouts = self.header.timeouts
        self.header = dataclasses.replace(self.header, timeouts=Timeouts(deck=300.0, turn=300.0, grace=60.0))

    async def misbehave(self) -> None:
        await self.until(lambda: self.cheated)
        for _ in range(CYCLES):
            # Back on every link: the others' deadline is a deck timeout from about now.
            await self.until(lambda: all(self.connected(s) for s in self.others))
            await trio.sleep(min(self.timeouts.deck, self.timeouts.turn) - 1.2)
            if set(self.others) <= set(self.protocol.halted):
                return  # the others stopped: the stall was named
            self.drops += 1
            # Away for most of the grace period (so that the others' checks see it away):
            # every link it has, or that its redial brings, is dropped meanwhile.
            away_until = trio.current_time() + self.timeouts.grace * 0.9
            while trio.current_time() < away_until:
                for conn in list(self.connections.values()):
                    if not conn.closed:
                        await conn.aclose()
                await trio.sleep(0.02)


class RedialsToStallDeck(RedialsToStall, StallsDeck):
    pass


class _StallsLeadSeat(CheatingSeat):
    """Stalls at its first turn that nobody may pass for (a lead, not a follower's response:
    the table passes for an away follower and goes on, protocol/table.md section 9)."""

    async def choose(self, session, seat):
        if session.game.absent_action(session.state, seat) is None:
            self.peer.cheated = True
            await trio.sleep_forever()
        return await super().choose(session, seat)


class RedialsToStallTurn(RedialsToStall, StallsTurnPeer):
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.session.seats[self.seat] = _StallsLeadSeat(self, self.session.seats[self.seat].agent)


@pytest.mark.parametrize("staller", [RedialsToStallDeck, RedialsToStallTurn], ids=["deck", "turn"])
def test_a_staller_that_redials_before_each_deadline_is_still_named_in_bounded_time(tmp_path, staller):
    cheater = BS[1] - 1  # the highest seat: it redials the others itself
    run, info = run_cheating_bs(tmp_path, staller, cheater)
    staller = run.cheater_peer
    # Its returns push the deadline back only by the time it was away (and a moment to catch
    # up), never past the step's last call (network_deck.last_call: the deadline, the grace
    # period and the keepalive's 8 s): a few drops, not CYCLES of them (20 before the fix).
    assert staller.drops <= 8, f"{info}\ndrops: {staller.drops}"
    for outcome in run.honest.values():
        assert outcome is not None and outcome.aborted is not None, info
        assert outcome.aborted.seat in (cheater, None), info
        assert all(b.startswith(f"seat {cheater} ") for b in outcome.peer.blames), info
    named = {o.aborted.seat for o in run.honest.values()}
    assert cheater in named, info  # connected at the deadline: a stall, named
    for outcome in run.honest.values():
        # The transcript proves no fault (a stall is not one), and names nobody honest.
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
    assert problem.get("seat") in (cheater, None), (status, problem)

"""Seats that lie in their ``links`` notices (protocol/wire.md section 4.8, table.md section 5
"Partial partitions"). A notice is unsigned and only lengthens a wait: a liar can delay the
table up to a step's last call, never get an honest seat named. Each table runs on trio's
autojump clock over loopback (adv_table's ``virtual_time``)."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from p2pcards.net.transport import ConnectionClosed
from p2pcards.wire.messages import LinksNotice

from .adv_table import verify
from .cheaters import Cheater, StallsTurnPeer
from .test_liveness_cheats import _StallsLeadSeat, run_cheating_bs


class LinksLiar(Cheater):
    """Sends, twice a second on every link, a notice that it reaches every seat and waits on
    every other seat as away and for its statements (``claims``), whatever its links are."""

    deviation = "false links notices"
    claims: tuple[str, ...] = ("away", "statements")
    reached: bool = True  # claims to reach every seat (else none)
    stalls: bool = False  # a staller has cheated when it stalls, not when it starts lying

    def links_notice(self) -> LinksNotice:  # the seam our notices are made by
        connected = tuple(self.others) if self.reached else ()
        waits_on = tuple((s, why) for s in self.others for why in self.claims)
        return LinksNotice(self.header.table, connected, waits_on)

    async def misbehave(self) -> None:
        await self.until_turns(1)
        if not self.stalls:
            self.cheated = True
        for _ in range(400):  # bounded: 200 virtual seconds at most
            notice = self.links_notice().to_wire()
            for conn in list(self.connections.values()):
                if not conn.closed:
                    try:
                        await conn.send(notice)
                    except ConnectionClosed:
                        pass
            await trio.sleep(0.5)


class StallingLiar(LinksLiar, StallsTurnPeer):
    """Stalls at its first lead and claims, in its notices, to wait on the others. A game may
    end before its first lead: ``cheated`` is set by the stall (``_StallsLeadSeat``), so that
    ``run_cheating_bs`` plays again."""

    stalls = True

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.session.seats[self.seat] = _StallsLeadSeat(self, self.session.seats[self.seat].agent)


def _check_nobody_honest_named(run: Any, cheater: int) -> None:
    info = run.describe()
    for seat, outcome in run.honest.items():
        assert outcome is not None, info
        named = outcome.aborted.seat if outcome.aborted is not None else None
        assert named in (cheater, None), info
        assert all(b.startswith(f"seat {cheater} ") for b in outcome.peer.blames), info
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert problem.get("seat") in (cheater, None), f"seat {seat}: {status} {problem}\n{info}"


def test_false_notices_from_a_seat_that_plays_on_change_nothing(tmp_path) -> None:
    run, info = run_cheating_bs(tmp_path, LinksLiar, 1)
    for outcome in run.honest.values():
        assert outcome is not None and outcome.aborted is None and outcome.result is not None, info
        assert outcome.peer.blames == [], info
    _check_nobody_honest_named(run, 1)


class AwayLiar(StallingLiar):
    """Claims to wait on every other seat as away, and to reach none: each of them reaches it,
    and says so in its own notice, so the claim is refuted and the stall is named."""

    claims = ("away",)
    reached = False


class StatementsLiar(StallingLiar):
    """Claims to wait on every other seat's statements: it delays the table up to a turn's
    bound, then the game stops naming it or nobody (its word cannot be checked, nor name)."""

    claims = ("statements",)


# The liar that claims both in the fast tier; each claim alone (a table each) in the slow tier.
@pytest.mark.parametrize(
    "liar",
    [
        pytest.param(AwayLiar, id="away", marks=pytest.mark.slow),
        pytest.param(StatementsLiar, id="statements", marks=pytest.mark.slow),
        pytest.param(StallingLiar, id="both"),
    ],
)
def test_a_staller_that_claims_to_wait_only_delays_up_to_the_last_call(tmp_path, liar) -> None:
    cheater = 2
    run, info = run_cheating_bs(tmp_path, liar, cheater)
    for outcome in run.honest.values():
        assert outcome is not None and outcome.aborted is not None, info  # the table did not hang
    _check_nobody_honest_named(run, cheater)
    named = {o.aborted.seat for o in run.honest.values()}
    if liar is AwayLiar:
        assert cheater in named, info  # refuted by the seats it claims not to reach: a stall

"""Second hostile review of issue 28 (one referee): cheaters aimed at the ``links`` notices
(wire.md section 4.8, table.md section 5 "Partial partitions"). Each table runs on trio's
autojump clock over loopback; :func:`run_table` also checks that every honest seat's live
verdict agrees with ``p2pcards verify`` of its transcript."""

from __future__ import annotations

from typing import Any

import trio

from p2pcards.net.transport import ConnectionClosed

from .test_links_liars import StallingLiar, _check_nobody_honest_named
from .test_liveness_cheats import run_cheating_bs


def _check_the_staller_alone_named(tmp_path: Any, liar: type[StallingLiar]) -> None:
    """A ``liar`` at seat 2: no honest seat is named, and every honest seat that stopped named
    seat 2."""
    run, info = run_cheating_bs(tmp_path, liar, 2)
    _check_nobody_honest_named(run, 2)
    assert {o.aborted.seat for o in run.honest.values() if o.aborted is not None} == {2}, info


class SelectiveAwayLiar(StallingLiar):
    """Stalls at its first lead and tells each honest seat, alone, that it reaches that seat
    but waits on the *other* honest seat as away: the claimed-away seat never gets the lie
    about itself, so only its own notice (sent because it hears of a link down) can refute
    it."""

    deviation = "selective false links notices"

    def notice_for(self, to: int) -> dict[str, Any]:
        other = next(s for s in self.others if s != to)
        return {"type": "links", "table": self.header.table, "connected": [to], "waits_on": [[other, "away"]]}

    async def misbehave(self) -> None:
        await self.until_turns(1)  # (it has cheated once it stalls at its lead: _StallsLeadSeat)
        for _ in range(400):  # bounded: 200 virtual seconds at most
            for seat, conn in list(self.connections.items()):
                if not conn.closed:
                    try:
                        await conn.send(self.notice_for(seat))
                    except ConnectionClosed:
                        pass
            await trio.sleep(0.5)


def test_a_selective_away_lie_is_refuted_by_the_seat_it_names(tmp_path) -> None:
    _check_the_staller_alone_named(tmp_path, SelectiveAwayLiar)


class FloodsHostileNotices(StallingLiar):
    """Stalls at its first lead and floods every link with notices: for another table, with
    seats as bools, about itself only, and a burst of 500 at once."""

    deviation = "hostile links notices"

    async def misbehave(self) -> None:
        await self.until_turns(1)  # (it has cheated once it stalls at its lead: _StallsLeadSeat)
        notices = [
            {"type": "links", "table": b"\x00" * len(self.header.table), "connected": [], "waits_on": [[0, "away"]]},
            {"type": "links", "table": self.header.table, "connected": [True], "waits_on": [[False, "away"]]},
            {"type": "links", "table": self.header.table, "connected": [self.seat], "waits_on": [[self.seat, "away"]]},
        ]
        for round_ in range(40):  # bounded
            for conn in list(self.connections.values()):
                if conn.closed:
                    continue
                try:
                    for notice in notices * (500 if round_ == 0 else 1):
                        await conn.send(notice)
                except ConnectionClosed:
                    pass
            await trio.sleep(0.5)


def test_hostile_notices_delay_nothing_and_name_the_staller(tmp_path) -> None:
    _check_the_staller_alone_named(tmp_path, FloodsHostileNotices)

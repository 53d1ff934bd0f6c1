"""A three-seat Cal's BS table on 127.0.0.1 (p2pcards.testing's loopback table), played to its
end while a test's own task runs alongside (it cuts a link, floods a listener, ...)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from p2pcards.net.table import SeatOutcome
from p2pcards.table.timeouts import Timeouts
from p2pcards.testing import play_loopback


async def play_three_seats(
    agent: Any, tmp_path: Path, peers: dict, alongside: Callable[[], Awaitable[None]]
) -> list[SeatOutcome]:
    """Play the table; ``peers`` fills with every seat's Peer as it starts. Every seat's
    outcome, by seat, once the table and ``alongside`` are done."""
    with trio.fail_after(90):  # ``alongside`` too: it may wait for what never comes
        async with trio.open_nursery() as nursery:
            nursery.start_soon(alongside)
            table = await play_loopback(
                "cals-bs",
                3,
                {"match_target": 1},
                seats=agent,
                timeouts=Timeouts(deck=20, turn=30, grace=20),
                transcript_dir=tmp_path,
                on_peer=lambda p: peers.__setitem__(p.seat, p),
            )
    return table.outcomes

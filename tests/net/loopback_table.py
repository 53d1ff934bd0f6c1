"""A three-seat Cal's BS table on 127.0.0.1 (a host and two joiners, no zeroconf), played to
its end while a test's own task runs alongside (it cuts a link, floods a listener, ...)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from p2pcards.net.runner import host_table, join_table
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.identity import Identity

LOOPBACK = "127.0.0.1"


async def play_three_seats(
    host: Any,
    agent: Any,
    tmp_path: Path,
    name: str,
    peers: dict,
    outcomes: list,
    alongside: Callable[[], Awaitable[None]],
) -> None:
    """Play the table; ``peers`` fills with every seat's Peer as it starts, ``outcomes`` with
    every seat's outcome."""
    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            ports, port = [], trio.Event()

            async def run_host():
                outcomes.extend(
                    await host_table(
                        host,
                        Identity.generate(),
                        "cals-bs",
                        options={"match_target": 1},
                        players=3,
                        agent=agent,
                        name=name,
                        interface=LOOPBACK,
                        announce=False,
                        timeouts=Timeouts(deck=20, turn=30, grace=20),
                        transcript_dir=tmp_path,
                        on_port=lambda p: (ports.append(p), port.set()),
                        on_peer=lambda p: peers.__setitem__(p.seat, p),
                    )
                )

            async def run_joiner():
                await port.wait()
                outcomes.append(
                    await join_table(
                        host,
                        Identity.generate(),
                        LOOPBACK,
                        ports[0],
                        name="guest",
                        agent=agent,
                        listen_host=LOOPBACK,
                        transcript_dir=tmp_path,
                        on_peer=lambda p: peers.__setitem__(p.seat, p),
                    )
                )

            nursery.start_soon(run_host)
            nursery.start_soon(run_joiner)
            nursery.start_soon(run_joiner)
            nursery.start_soon(alongside)

"""A spectator is carried into the rematch: after the game it watched, its screen says it
follows the table into a rematch, and when the players start one it shows it, titled as a
rematch (console/spectator.py, WatchTable(follow=True)). On 127.0.0.1, virtual time."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pcards.console.app import TableStart
from p2pcards.console.spectator import WatchTable
from p2pcards.net.rematch import host_rematch, join_rematch
from p2pcards.net.runner import bot_agent, host_table, join_table
from p2pcards.plugins import load_plugins
from p2pcards.testing.loopback import LOOPBACK
from p2pcards.wire.identity import Identity

GAME = "crazy-eights"


@pytest.mark.slow  # two whole games watched (virtual time, but about 8 s of real work)
async def test_a_spectator_follows_the_table_into_its_rematch(tmp_path: Path, virtual_clock):
    plugins = load_plugins()
    game = plugins.game(GAME)
    rng = random.Random(4)

    def bots() -> Any:  # a move a virtual second: the spectator's looks come in between
        return bot_agent(plugins, game, "random", rng, delay=1.0)

    shown: list[tuple[Any, dict]] = []  # (session, how it was started) as the screen got them
    notices: list[str] = []
    chosen: list[str | None] = [None]
    first: dict[str, Any] = {}
    second: dict[str, Any] = {}
    with trio.fail_after(600):
        async with trio.open_nursery() as nursery:
            port = trio.Event()
            ports: list[int] = []

            def show(session: Any, **kwargs: Any) -> None:
                shown.append((session, kwargs))
                session.subscribe(lambda e: notices.append(e.text) if e.kind == "notice" else None)

            async def spectate(peer: Any) -> None:
                me = peer.header.seats[0]
                runner = WatchTable(
                    me.host,
                    me.port,
                    Identity.generate(),
                    plugins,
                    name="eve",
                    transcript_dir=tmp_path / "eve",
                    follow=True,
                )
                await runner(TableStart(show, lambda text: None, None, lambda: chosen[0]))

            async def alice() -> None:
                first["alice"] = (
                    await host_table(
                        plugins,
                        Identity.generate(),
                        GAME,
                        options={},
                        players=2,
                        agent=bots(),
                        name="alice",
                        interface=LOOPBACK,
                        announce=False,
                        on_port=lambda p: (ports.append(p), port.set()),
                        on_peer=lambda peer: nursery.start_soon(spectate, peer),
                    )
                )[0]
                agreed = trio.Event()
                agreed.set()
                second["alice"] = (
                    await host_rematch(plugins, [first["alice"]], interface=LOOPBACK, agent=bots(), agreement=agreed)
                )[0]

            async def bob() -> None:
                await port.wait()
                first["bob"] = await join_table(
                    plugins, Identity.generate(), LOOPBACK, ports[0], name="bob", agent=bots(), listen_host=LOOPBACK
                )
                second["bob"] = await join_rematch(
                    plugins, first["bob"], listen_host=LOOPBACK, agent=bots(), agreement=True
                )

            nursery.start_soon(alice)
            nursery.start_soon(bob)
            while not (len(shown) == 2 and shown[1][0].result is not None and "bob" in second):
                await trio.sleep(1)
            chosen[0] = "quit"  # the spectator leaves after the rematch: its screen stops following
    assert first["alice"].result is not None and second["alice"].result is not None
    (game1, how1), (game2, how2) = shown
    assert how1.get("rematch", 0) == 0 and how2["rematch"] == 2
    assert "rematch: game 2" in how2["notes"]
    assert game1.result == first["alice"].result and game2.result == second["alice"].result
    said = "\n".join(notices)
    assert "if the players start a rematch, this screen follows it (alice's table" in said, said
    assert "the rematch starts: alice and bob" in said, said

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
from p2pcards.net.lobby import LobbyError
from p2pcards.net.rematch import host_rematch, join_rematch
from p2pcards.net.runner import bot_agent, host_table, join_table
from p2pcards.plugins import load_plugins
from p2pcards.testing.loopback import LOOPBACK, unused_port
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
    watching: list[str] = []  # what alice's log says of spectators, at the rematch
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
                        port=unused_port(),  # the rematch opens on it again
                        announce=False,
                        on_port=lambda p: (ports.append(p), port.set()),
                        on_peer=lambda peer: nursery.start_soon(spectate, peer),
                    )
                )[0]
                agreed = trio.Event()
                agreed.set()

                def seen_by_alice(peer: Any) -> None:
                    peer.session.subscribe(
                        lambda e: watching.append(e.text) if e.kind == "spectator" and e.text else None
                    )

                second["alice"] = (
                    await host_rematch(
                        plugins,
                        [first["alice"]],
                        interface=LOOPBACK,
                        agent=bots(),
                        agreement=agreed,
                        on_peer=seen_by_alice,
                    )
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
    # The look that found the rematch went on as eve's watch: alice read of eve once (the
    # review of issue 30 read "eve is watching / eve stopped watching / eve is watching").
    assert watching in (["eve is watching the table"], ["eve is watching the table", "eve stopped watching"]), watching


async def test_a_spectator_hears_at_once_that_a_declined_rematch_closed(tmp_path: Path, virtual_clock):
    """bob types 'quit' at the end screen: the rematch's room closes (its bye reaches only the
    seated players) and alice's program no longer listens there. eve's screen said "the
    players are starting a rematch" for ten minutes (issue 30's review); now, within seconds
    of the room closing, "no rematch"."""
    plugins = load_plugins()
    game = plugins.game(GAME)
    rng = random.Random(5)
    notices: list[tuple[float, str]] = []
    chosen: list[str | None] = [None]
    closed: list[float] = []
    with trio.fail_after(900):
        async with trio.open_nursery() as nursery:
            port = trio.Event()
            ports: list[int] = []
            room_seen = trio.Event()

            def show(session: Any, **kwargs: Any) -> None:
                def note(e: Any) -> None:
                    if e.kind == "notice":
                        notices.append((trio.current_time(), e.text))
                        if e.text.startswith("the players are starting a rematch"):
                            room_seen.set()

                session.subscribe(note)

            async def spectate(peer: Any) -> None:
                me = peer.header.seats[0]
                runner = WatchTable(
                    me.host, me.port, Identity.generate(), plugins, name="eve", transcript_dir=tmp_path, follow=True
                )
                await runner(TableStart(show, lambda text: None, None, lambda: chosen[0]))
                watched.set()

            watched = trio.Event()

            async def alice() -> None:
                outcome = (
                    await host_table(
                        plugins,
                        Identity.generate(),
                        GAME,
                        options={},
                        players=2,
                        agent=bot_agent(plugins, game, "random", rng, delay=1.0),
                        name="alice",
                        interface=LOOPBACK,
                        port=unused_port(),  # the rematch opens on it again
                        announce=False,
                        on_port=lambda p: (ports.append(p), port.set()),
                        on_peer=lambda peer: nursery.start_soon(spectate, peer),
                    )
                )[0]
                with pytest.raises(LobbyError, match="bob left; Crazy Eights needs at least 2 players: no rematch"):
                    await host_rematch(plugins, [outcome], interface=LOOPBACK, agent=bots(), agreement=trio.Event())
                closed.append(trio.current_time())
                # alice's program stays at its end screen: nothing listens at the table's port.

            def bots() -> Any:
                return bot_agent(plugins, game, "random", rng)

            async def bob() -> None:
                await port.wait()
                outcome = await join_table(
                    plugins, Identity.generate(), LOOPBACK, ports[0], name="bob", agent=bots(), listen_host=LOOPBACK
                )
                with trio.move_on_after(600):  # bob never agrees: he quits once eve saw the room
                    async with trio.open_nursery() as inner:
                        inner.start_soon(
                            lambda: join_rematch(
                                plugins, outcome, listen_host=LOOPBACK, agent=bots(), agreement=trio.Event()
                            )
                        )
                        await room_seen.wait()
                        inner.cancel_scope.cancel()  # 'quit': leaving the room declines it

            nursery.start_soon(alice)
            nursery.start_soon(bob)
            with trio.move_on_after(120):
                await watched.wait()
            chosen[0] = "quit"
    assert closed, notices
    said = [text for _, text in notices]
    none = [(at, text) for at, text in notices if text.startswith("no rematch")]
    assert none and none[0][1].startswith("no rematch: the players' room closed"), said
    assert none[0][0] - closed[0] < 10, (none, closed)

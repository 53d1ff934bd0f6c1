"""The lobby over real loopback sockets (127.0.0.1 only, no zeroconf): joiners connect to each
other while the table waits, so that the game starts with its mesh up (protocol/table.md
sections 2 and 3)."""

from __future__ import annotations

import trio

from p2pcards.net.lobby import HostedLobby, host_lobby, join_lobby
from p2pcards.net.peer import Timeouts
from p2pcards.plugins import load_plugins
from p2pcards.wire.identity import Identity

LOOPBACK = "127.0.0.1"


async def test_joiners_are_connected_to_each_other_when_the_table_starts():
    host = load_plugins()
    game = host.game("cals-bs")
    games = host.rules_versions()
    players = 4
    ids = [Identity.generate() for _ in range(players)]
    lobby = HostedLobby(ids[0], "host", "cals-bs", game.rules_version, game.resolve_options({}, players), players,
                        games, LOOPBACK, 0, Timeouts())
    results = {}

    async def join(index: int, port: int) -> None:
        results[index] = await join_lobby(ids[index], LOOPBACK, port, name=f"p{index}", games=games,
                                          listen_host=LOOPBACK)

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            async def run_host(task_status=trio.TASK_STATUS_IGNORED):
                results[0] = await host_lobby(lobby, announce=False, task_status=task_status)

            port = await nursery.start(run_host)
            for index in range(1, players):
                nursery.start_soon(join, index, port)
                while len(lobby.sitters) < index:  # one at a time: joiner i gets seat i
                    await trio.sleep(0.005)
    assert sorted(results[0].links) == [1, 2, 3]
    for seat in range(1, players):
        # Connected to the host and to every other joiner, each under the key the header gives.
        assert sorted(results[seat].links) == [s for s in range(players) if s != seat], seat
    for result in results.values():
        await result.aclose()


async def test_a_joiner_refuses_a_table_whose_options_the_rules_cannot_read():
    """The host's header is untrusted: options that are missing, unparsed or out of range end
    the join with a clear error instead of reaching the rules (where a KeyError would end the
    joiner)."""
    import pytest

    from p2pcards.net.lobby import LobbyError
    from p2pcards.net.runner import join_table

    host = load_plugins()
    game = host.game("crazy-eights")
    games = host.rules_versions()
    for options, wrong in (({}, "hand_size"), ({**game.resolve_options({}, 2), "hand_size": "7"}, "hand_size")):
        ids = [Identity.generate() for _ in range(2)]
        lobby = HostedLobby(ids[0], "host", "crazy-eights", game.rules_version, options, 2, games, LOOPBACK, 0,
                            Timeouts())
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                async def run_host(task_status=trio.TASK_STATUS_IGNORED):
                    result = await host_lobby(lobby, announce=False, task_status=task_status)
                    await result.aclose()

                port = await nursery.start(run_host)
                with pytest.raises(LobbyError, match=f"does not fit crazy-eights here.*{wrong}"):
                    await join_table(host, ids[1], LOOPBACK, port, name="p1", agent=lambda *a: None,
                                     listen_host=LOOPBACK)

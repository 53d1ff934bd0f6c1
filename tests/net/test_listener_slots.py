"""A stranger's idle connections cannot lock seats out of a listener (protocol/table.md
section 2): 64 idle sockets used to fill every slot of the host's listener (a joiner could not
sit) and of a seat's listener (a seat that lost its connection could not come back) for 10 s
each, and a stranger could open them again as fast as they were closed.

Real sockets on 127.0.0.1; the policy between several addresses is checked on the slots
themselves (the tests use no other address)."""

from __future__ import annotations

import random

import pytest
import trio

from p2pcards.net import slots as slots_module
from p2pcards.net.lobby import HANDSHAKE_SECONDS, HostedLobby, handshake, host_lobby, join_lobby
from p2pcards.net.runner import bot_agent
from p2pcards.net.slots import MAX_UNPROVEN, MAX_UNPROVEN_PER_ADDRESS, UNPROVEN_SECONDS, _Slots
from p2pcards.net.transport import Connection, ConnectionClosed
from p2pcards.plugins import load_plugins
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.identity import Identity

from .loopback_table import play_three_seats

LOOPBACK = "127.0.0.1"
FLOOD = 70


async def _idle_sockets(port: int, count: int = FLOOD) -> list[trio.SocketStream]:
    return [await trio.open_tcp_stream(LOOPBACK, port) for _ in range(count)]


async def _closed(stream: trio.SocketStream) -> bool:
    """Whether the other side has closed ``stream`` (what it sent before, a hello, is skipped)."""
    with trio.move_on_after(0.2):
        try:
            while await stream.receive_some(65536):
                pass
        except trio.BrokenResourceError:
            pass
        return True
    return False


async def test_idle_sockets_neither_keep_a_joiner_out_nor_push_a_seated_one_out():
    host = load_plugins()
    game = host.game("cals-bs")
    games = host.rules_versions()
    lobby = HostedLobby(
        Identity.generate(),
        "host",
        "cals-bs",
        game.rules_version,
        game.resolve_options({}, 3),
        3,
        games,
        LOOPBACK,
        0,
        Timeouts(),
    )
    results = {}
    first_ready = trio.Event()

    async def join(name: str, ready) -> None:
        results[name] = await join_lobby(
            Identity.generate(), LOOPBACK, port, name=name, games=games, listen_host=LOOPBACK, ready=ready
        )

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:

            async def run_host(task_status=trio.TASK_STATUS_IGNORED):
                results["host"] = await host_lobby(lobby, announce=False, task_status=task_status)

            port = await nursery.start(run_host)
            nursery.start_soon(join, "first", first_ready)
            while len(lobby.sitters) < 1:
                await trio.sleep(0.005)
            idle = await _idle_sockets(port)
            # Well within the time an unproven connection may take: the joiner is not let in
            # because the idle ones ran out of time, but because they make room for it.
            nursery.start_soon(join, "second", True)
            with trio.fail_after(UNPROVEN_SECONDS / 2):
                while len(lobby.sitters) < 2:
                    await trio.sleep(0.005)
            first_ready.set()  # the first joiner's seated connection was never pushed out
    assert [s.name for s in results["host"].header.seats] == ["host", "first", "second"]
    closed = [await _closed(stream) for stream in idle]
    assert sum(closed) >= FLOOD - MAX_UNPROVEN_PER_ADDRESS
    for stream in idle:
        await stream.aclose()
    for result in results.values():
        await result.aclose()


async def test_a_seat_comes_back_through_idle_sockets_at_its_listener(tmp_path, virtual_clock):
    """Seat 1's listener is flooded, then its link to seat 2 is cut: seat 2 dials again and
    is let in at once (it used to wait for idle sockets to run out of time: 10 s)."""
    host = load_plugins()
    peers = {}
    back_after = []

    def agent(game, seat, options):
        return bot_agent(host, game, "random", random.Random(seat), delay=0.02)(game, seat, options)

    async def flood_then_cut():
        while len(peers) < 3 or min(p.turns for p in peers.values()) < 4:
            await trio.sleep(0.01)
        idle = await _idle_sockets(peers[1].header.seats[1].port)
        victim = peers[1].connections[2]
        cut_at = trio.current_time()
        await victim.stream.aclose()
        while peers[1].connections.get(2) is victim or not peers[1].connected(2):
            await trio.sleep(0.01)
        back_after.append(trio.current_time() - cut_at)
        for stream in idle:
            await stream.aclose()

    outcomes = await play_three_seats(agent, tmp_path, peers, flood_then_cut)
    assert all(o.aborted is None and o.result is not None for o in outcomes), [o.aborted for o in outcomes]
    assert back_after and back_after[0] < UNPROVEN_SECONDS / 2, back_after


async def test_an_unproven_connection_has_little_time(monkeypatch, autojump_clock):
    """A stranger that connects and says nothing is closed once the handshake's time is out; one
    that shakes hands late and then says nothing, UNPROVEN_SECONDS after it connected (the
    handshake and the first lobby message have 10 s each, one after the other, within that)."""
    lobby = HostedLobby(Identity.generate(), "host", "cals-bs", "1", {}, 3, {"cals-bs": "1"}, LOOPBACK, 0, Timeouts())
    async with trio.open_nursery() as nursery:
        port = await nursery.start(lambda task_status: host_lobby(lobby, announce=False, task_status=task_status))
        silent = await trio.open_tcp_stream(LOOPBACK, port)
        opened = trio.current_time()
        with trio.fail_after(60):
            while await silent.receive_some(65536):
                pass
        assert HANDSHAKE_SECONDS <= trio.current_time() - opened < HANDSHAKE_SECONDS + 1
        await silent.aclose()
        shaken = Connection(await trio.open_tcp_stream(LOOPBACK, port))
        opened = trio.current_time()
        await trio.sleep(HANDSHAKE_SECONDS - 2)  # a slow hello: the lobby message's own 10 s would end later
        await handshake(shaken, Identity.generate(), name="stranger", games=lobby.games)
        with trio.fail_after(60), pytest.raises(ConnectionClosed):
            await shaken.receive()
        assert UNPROVEN_SECONDS <= trio.current_time() - opened < UNPROVEN_SECONDS + 1
        await shaken.aclose()
        nursery.cancel_scope.cancel()
        for listener in lobby.listeners:
            await listener.aclose()


async def test_one_address_pushes_out_only_its_own_connections():
    slots = _Slots()
    honest = slots.open("192.0.2.1")
    flood = [slots.open("192.0.2.66") for _ in range(3 * MAX_UNPROVEN)]
    assert not honest.scope.cancel_called
    assert sum(not s.scope.cancel_called for s in flood) == MAX_UNPROVEN_PER_ADDRESS
    assert all(s.scope.cancel_called for s in flood[:-MAX_UNPROVEN_PER_ADDRESS])


async def test_when_every_slot_is_taken_the_busiest_address_gives_way():
    slots = _Slots()
    first = slots.open("192.0.2.1")
    crowd = [slots.open(f"198.51.100.{i // MAX_UNPROVEN_PER_ADDRESS}") for i in range(MAX_UNPROVEN - 2)]
    lone = slots.open("192.0.2.2")
    assert len(slots.unproven) == MAX_UNPROVEN
    late = slots.open("192.0.2.3")
    assert not any(s.scope.cancel_called for s in (first, lone, late))
    assert sum(s.scope.cancel_called for s in crowd) == 1  # the oldest of an address holding 8
    assert crowd[0].scope.cancel_called


async def test_an_admitted_connection_no_longer_counts_and_is_never_pushed_out():
    slots = _Slots()
    seat = slots.open("192.0.2.1")
    seat.admit()
    others = [slots.open("192.0.2.1") for _ in range(3 * MAX_UNPROVEN)]
    assert not seat.scope.cancel_called and seat.scope.deadline == float("inf")
    assert len(slots.unproven) == MAX_UNPROVEN_PER_ADDRESS
    assert others[-1] in slots.unproven
    assert slots_module.MAX_UNPROVEN_PER_ADDRESS == MAX_UNPROVEN_PER_ADDRESS

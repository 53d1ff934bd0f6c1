"""Connection: whole frames over real TCP on 127.0.0.1, including frames bigger than the socket
buffer sent by several tasks at once (a frame is written straight to the socket when the
connection is idle; what the socket does not take goes through ``send_all``, and no other frame
may start in between)."""

from __future__ import annotations

import os

import pytest
import trio

from p2pcards.net.transport import PING_SECONDS, SILENCE_SECONDS, Connection, ConnectionClosed, connect
from p2pcards.wire.framing import Limits

pytestmark = pytest.mark.trio

LIMITS = Limits(max_frame=1 << 22, max_bin_len=1 << 22)


async def _pair(nursery: trio.Nursery) -> tuple[Connection, Connection]:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    accepted: list[Connection] = []

    async def accept_one() -> None:
        stream = await listeners[0].accept()
        accepted.append(Connection(stream, "server", LIMITS))

    nursery.start_soon(accept_one)
    client = await connect("127.0.0.1", port)
    client.limits = LIMITS
    with trio.fail_after(5):
        while not accepted:
            await trio.sleep(0.001)
    await listeners[0].aclose()
    return client, accepted[0]


async def test_frames_from_concurrent_senders_arrive_whole_and_in_order_per_sender():
    async with trio.open_nursery() as nursery:
        client, server = await _pair(nursery)
        big = [os.urandom(300_000) for _ in range(3)]  # far beyond one socket buffer

        async def sender(name: str, count: int) -> None:
            for i in range(count):
                await client.send({"from": name, "i": i, "data": big[i % 3] if i % 2 else b"small"})

        received: list[dict] = []

        async def receiver(total: int) -> None:
            while len(received) < total:
                received.append(await server.receive())

        with trio.fail_after(30):
            async with trio.open_nursery() as inner:
                inner.start_soon(receiver, 3 * 12)
                for name in ("a", "b", "c"):
                    inner.start_soon(sender, name, 12)
        for name in ("a", "b", "c"):
            mine = [m for m in received if m["from"] == name]
            assert [m["i"] for m in mine] == list(range(12))
            assert all(m["data"] == (big[m["i"] % 3] if m["i"] % 2 else b"small") for m in mine)
        assert client.bytes_sent == server.bytes_received
        await client.aclose()
        await server.aclose()


async def test_sending_to_a_closed_peer_raises_connection_closed():
    async with trio.open_nursery() as nursery:
        client, server = await _pair(nursery)
        await server.aclose()
        with trio.fail_after(10), pytest.raises(ConnectionClosed):
            for _ in range(1000):  # the first writes may still land in the kernel's buffer
                await client.send({"data": b"x" * 10_000})
                await trio.sleep(0.001)
        assert client.closed
        await client.aclose()


async def test_a_peer_that_stops_reading_is_cut_off_after_the_send_timeout():
    """A peer that never reads fills our socket buffers; a send then used to wait forever (and
    every task waiting on that connection, or on a lock held by the sender, with it)."""
    async with trio.open_nursery() as nursery:
        client, server = await _pair(nursery)
        client.send_timeout = 0.5
        with trio.fail_after(20), pytest.raises(ConnectionClosed, match="did not read what we sent for 0.5 s"):
            for _ in range(10_000):  # far more than any socket buffer
                await client.send({"data": b"x" * 100_000})
        assert client.closed and client.failure is not None
        with pytest.raises(ConnectionClosed):  # later sends fail at once
            await client.send({"data": b"y"})
        await client.aclose()
        await server.aclose()


# -- keepalive (Connection.keep_alive) -------------------------------------------------------
# On trio's autojump clock: the 5 s of silence pass at once, over real loopback sockets.


async def _read_all(conn: Connection, got: list) -> None:
    """What a game connection's reader does: read until the connection ends."""
    try:
        while True:
            got.append(await conn.receive())
    except ConnectionClosed:
        pass


async def test_a_peer_that_goes_silent_is_closed_after_the_silence_limit(autojump_clock):
    """The other side keeps its socket open but sends nothing (packets lost without a FIN or an
    RST): after SILENCE_SECONDS the connection is closed as silent, and its reader ends."""
    async with trio.open_nursery() as nursery:
        client, server = await _pair(nursery)
        got: list = []
        start = trio.current_time()
        with trio.fail_after(60):
            async with trio.open_nursery() as inner:
                inner.start_soon(server.keep_alive)
                await _read_all(server, got)
        took = trio.current_time() - start
        assert SILENCE_SECONDS <= took < SILENCE_SECONDS + 1
        assert server.closed and server.silent
        assert server.failure == f"nothing came from server for {SILENCE_SECONDS:g} s"
        # It pinged us meanwhile, every PING_SECONDS it had sent nothing else; then it closed.
        pings: list = []
        await _read_all(client, pings)
        assert pings and all(p == {"type": "ping"} for p in pings)
        assert len(pings) >= SILENCE_SECONDS / PING_SECONDS - 1
        await client.aclose()


async def test_a_chatty_peer_is_never_closed(autojump_clock):
    """Both sides keep alive and nothing else is said for a (virtual) quarter hour: the pings
    alone keep the connection up, and the readers see only pings."""
    async with trio.open_nursery() as nursery:
        client, server = await _pair(nursery)
        got: dict[str, list] = {"client": [], "server": []}
        with trio.move_on_after(900):
            async with trio.open_nursery() as inner:
                for conn, name in ((client, "client"), (server, "server")):
                    inner.start_soon(conn.keep_alive)
                    inner.start_soon(_read_all, conn, got[name])
        assert not client.closed and not server.closed and not client.silent and not server.silent
        for name in ("client", "server"):
            assert set(map(str, got[name])) == {str({"type": "ping"})}
            assert len(got[name]) >= 900 / PING_SECONDS * 0.9  # about one a second, no more
            assert len(got[name]) <= 900 / PING_SECONDS + 1
        await client.aclose()
        await server.aclose()


async def test_a_busy_connection_carries_no_pings(autojump_clock):
    """Any message counts as life: while we send something every third of a second, no ping goes
    out (one goes at a tick of the ping grid when nothing went out for half a ping interval)."""
    async with trio.open_nursery() as nursery:
        client, server = await _pair(nursery)
        got: list = []
        with trio.move_on_after(30):
            async with trio.open_nursery() as inner:
                inner.start_soon(client.keep_alive)
                inner.start_soon(server.keep_alive)
                inner.start_soon(_read_all, server, got)
                inner.start_soon(_read_all, client, [])
                for i in range(1000):
                    await client.send({"n": i})
                    await trio.sleep(PING_SECONDS / 3)
        assert got and all("n" in message for message in got)
        assert not server.closed
        await client.aclose()
        await server.aclose()


async def test_what_waits_unread_in_the_socket_counts_as_life(autojump_clock):
    """Our reader did not run (a busy or stopped process): the bytes waiting in the socket are
    life all the same, and the connection is not closed for silence."""
    async with trio.open_nursery() as nursery:
        client, server = await _pair(nursery)
        with trio.move_on_after(3 * SILENCE_SECONDS):
            async with trio.open_nursery() as inner:
                inner.start_soon(client.keep_alive)
                inner.start_soon(server.keep_alive)  # nobody reads the server side
        assert not server.closed and not server.silent
        await client.aclose()
        await server.aclose()

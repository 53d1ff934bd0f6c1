"""Connection: whole frames over real TCP on 127.0.0.1, including frames bigger than the socket
buffer sent by several tasks at once (a frame is written straight to the socket when the
connection is idle; what the socket does not take goes through ``send_all``, and no other frame
may start in between)."""

from __future__ import annotations

import os

import pytest
import trio

from p2pcards.net.transport import Connection, ConnectionClosed, connect
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

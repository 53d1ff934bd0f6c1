"""Connection: whole frames over real TCP on 127.0.0.1, including frames bigger than the socket
buffer sent by several tasks at once (a frame is written straight to the socket when the
connection is idle; what the socket does not take goes through ``send_all``, and no other frame
may start in between)."""

from __future__ import annotations

import os

import pytest
import trio

from p2pcards.net.transport import (
    PING_SECONDS,
    SEND_SECONDS,
    SHIELD_SECONDS,
    SILENCE_SECONDS,
    Connection,
    ConnectionClosed,
    broadcast,
    connect,
)
from p2pcards.wire.framing import Limits, encode_frame

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


# -- broadcast: every connection on its own (issue 29) ----------------------------------------
# A seat whose program stopped with its sockets open (a player who dropped out and quit at
# once) reads nothing. Our entries used to go to one connection after the other under a shield
# whose deadline was the send timeout: the send to that seat blocked, the shield's deadline cut
# the whole send, and a seat that reads never got our signed move (its turn timeout then named
# us). On the loopback tables' autojump clock: the 10 s send timeout passes at once, over real
# sockets. (Not pytest-trio's, which jumps the moment the run idles: megabytes in flight through
# loopback on a loaded machine then cut a peer that reads by its own send timeout, once in a
# fast-tier run; virtual_clock jumps after 2 ms of real idleness, tests/conftest.py.)


def _big_frames(count: int) -> list[bytes]:
    """Frames that together are far more than any loopback socket buffer."""
    return [encode_frame({"n": n, "data": os.urandom(1 << 21)}, LIMITS) for n in range(count)]


async def test_a_peer_that_does_not_read_holds_up_no_other_and_is_named_by_its_timeout(virtual_clock):
    async with trio.open_nursery() as nursery:
        deaf, deaf_end = await _pair(nursery)  # its other end is never read
        ear, ear_end = await _pair(nursery)
        got: list = []
        nursery.start_soon(_read_all, ear_end, got)
        frames = _big_frames(8)
        written: dict[str, list[int]] = {"deaf": [], "ear": []}
        start = trio.current_time()
        await broadcast([(deaf, frames, written["deaf"].append), (ear, frames, written["ear"].append)])
        with trio.fail_after(5):
            while len(got) < len(frames):
                await trio.sleep(0.01)
        assert [message["n"] for message in got] == list(range(len(frames)))
        assert written["ear"] == list(range(len(frames)))
        # The deaf peer is cut off by its own connection's timeout, which names it, never by
        # the shield's deadline (which would have cut the send to the others too).
        assert deaf.failure == f"{deaf.label} did not read what we sent for {SEND_SECONDS:g} s"
        assert len(written["deaf"]) < len(frames)
        assert trio.current_time() - start < SHIELD_SECONDS
        for conn in (deaf, deaf_end, ear, ear_end):
            await conn.aclose()


async def test_a_cancelled_broadcast_still_reaches_every_peer_that_reads(virtual_clock):
    """A cancellation from outside (a turn's scope, a deck wait, the player quitting) while a
    send waits on a peer that does not read: the peers that read get every frame anyway."""
    async with trio.open_nursery() as nursery:
        deaf, deaf_end = await _pair(nursery)
        ears = [await _pair(nursery) for _ in range(2)]
        gots: list[list] = [[], []]
        for (_, end), got in zip(ears, gots, strict=True):
            nursery.start_soon(_read_all, end, got)
        frames = _big_frames(8)
        with trio.move_on_after(1) as outside:
            await broadcast([(deaf, frames, None)] + [(conn, frames, None) for conn, _ in ears])
        assert not outside.cancelled_caught  # shielded: it ends when the deaf peer is cut off
        with trio.fail_after(5):
            while any(len(got) < len(frames) for got in gots):
                await trio.sleep(0.01)
        assert all([message["n"] for message in got] == list(range(len(frames))) for got in gots)
        assert deaf.failure is not None and "did not read" in deaf.failure
        for conn, end in [(deaf, deaf_end), *ears]:
            await conn.aclose()
            await end.aclose()


async def test_a_send_cut_off_midway_closes_its_connection():
    """Part of a frame may be out when a send is cancelled: the stream is unusable after it
    (the next frame would reach the other side as garbage), so it is closed, saying why, as a
    cut link (the cancellation is ours: the other side is not named for it)."""
    async with trio.open_nursery() as nursery:
        deaf, deaf_end = await _pair(nursery)
        with trio.move_on_after(0.2):
            for frame in _big_frames(8):
                await deaf.send_frame(frame)
        assert deaf.closed and deaf.failure == f"our send to {deaf.label} was cut off"
        assert deaf.silent  # our doing: nobody is named for it
        with pytest.raises(ConnectionClosed):
            await deaf.send({"data": b"y"})
        await deaf.aclose()
        await deaf_end.aclose()


async def test_broadcasts_reach_a_peer_in_the_order_they_were_made(virtual_clock):
    """Each broadcast's frames go out in tasks, which run in any order: a later broadcast (a
    later entry of our chain) still reaches each peer after an earlier one, even while the
    earlier one waits for room in the socket."""
    async with trio.open_nursery() as nursery:
        client, server = await _pair(nursery)
        got: list = []
        big = _big_frames(4)  # waits for the reader
        small = [encode_frame({"n": 4 + n}, LIMITS) for n in range(4)]
        async with trio.open_nursery() as senders:
            for frames in [big] + [[frame] for frame in small]:
                senders.start_soon(broadcast, [(client, frames, None)])
                await trio.sleep(0)  # (its call is made: the next one comes after it)
            nursery.start_soon(_read_all, server, got)
        with trio.fail_after(5):
            while len(got) < 8:
                await trio.sleep(0.01)
        assert [message["n"] for message in got] == list(range(8))
        await client.aclose()
        await server.aclose()


async def test_a_broadcast_with_a_nursery_for_the_rest_waits_on_no_peer(virtual_clock):
    """Given a nursery for what the sockets do not take at once (a running table's), a
    broadcast returns at once, even with a peer that does not read: whoever sends goes on
    with its game (a seat held for the send timeout after its move could be named by a short
    turn timeout). A frame sent on a connection afterwards still reaches it after the
    broadcast's frames, and the peer that does not read is cut off by its own timeout."""
    async with trio.open_nursery() as nursery:
        deaf, deaf_end = await _pair(nursery)
        ear, ear_end = await _pair(nursery)
        got: list = []
        nursery.start_soon(_read_all, ear_end, got)
        frames = _big_frames(8)
        written: list[int] = []
        start = trio.current_time()
        async with trio.open_nursery() as rest:
            await broadcast([(deaf, frames, None), (ear, frames, written.append)], rest)
            assert trio.current_time() == start  # nothing waited on
            await ear.send({"n": len(frames)})  # after the broadcast's frames
            with trio.fail_after(5):
                while len(got) < len(frames) + 1:
                    await trio.sleep(0.01)
            rest.cancel_scope.cancel()  # (a table that ends: what is left is shielded)
        assert [message["n"] for message in got] == list(range(len(frames) + 1))
        assert written == list(range(len(frames)))
        assert deaf.failure == f"{deaf.label} did not read what we sent for {SEND_SECONDS:g} s"
        assert trio.current_time() - start < SHIELD_SECONDS
        for conn in (deaf, deaf_end, ear, ear_end):
            await conn.aclose()

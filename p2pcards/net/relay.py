"""A TCP relay that adds latency in user space, for measuring a table over a slow network on a
machine whose kernel cannot (no ``sch_netem``).

Each connection accepted on a relay's port is forwarded to one fixed target; every chunk read in
either direction is held for ``delay`` seconds from the moment it was read, then written on, in
order. A frame therefore reaches the other side one ``delay`` after it left, whatever its size
(the chunks of a large frame travel together, as over a long link with a fat pipe). An end
closed on one side is closed on the other once the data before it has gone through.

``python -m p2pcards.net.relay --delay-ms D LISTEN_HOST:PORT=TARGET_HOST:PORT ...`` runs one
relay per pair until it is killed, and prints ``ready`` once every port listens.
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
from collections.abc import Sequence

import trio

__all__ = ["CHUNK", "relay", "serve_relays"]

CHUNK = 65536
#: Chunks held at once per direction; a sender faster than that waits (TCP's own back-pressure).
HELD_CHUNKS = 4096
#: A target that does not answer within this long: the accepted connection is dropped.
CONNECT_SECONDS = 10.0


async def _pump(source: trio.abc.Stream, sink: trio.abc.Stream, delay: float) -> None:
    """Copy ``source`` to ``sink``, each chunk ``delay`` seconds after it was read."""
    send, receive = trio.open_memory_channel[tuple[float, bytes | bytearray]](HELD_CHUNKS)

    async def read() -> None:
        async with send:
            while True:
                try:
                    data = await source.receive_some(CHUNK)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    data = b""
                await send.send((trio.current_time() + delay, data))
                if not data:
                    return

    async def write() -> None:
        async with receive:
            async for due, data in receive:
                await trio.sleep_until(due)
                if not data:
                    break
                await sink.send_all(data)
        try:
            if isinstance(sink, trio.SocketStream):
                await sink.send_eof()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read)
        nursery.start_soon(write)


async def relay(client: trio.SocketStream, target: tuple[str, int], delay: float) -> None:
    """Serve one accepted connection: forward it to ``target`` both ways, delayed."""
    async with client:
        with trio.move_on_after(CONNECT_SECONDS) as connecting:
            try:
                upstream = await trio.open_tcp_stream(*target)
            except OSError:
                return
        if connecting.cancelled_caught:
            return
        async with upstream:
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(_pump, client, upstream, delay)
                    nursery.start_soon(_pump, upstream, client, delay)
            except* (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass  # one side went away: the connection is over


async def serve_relays(
    pairs: Sequence[tuple[tuple[str, int], tuple[str, int]]], delay: float, *, task_status=trio.TASK_STATUS_IGNORED
) -> None:
    """Listen on each ``(listen, target)`` pair's ``listen`` and relay to its ``target``, until
    cancelled. ``task_status.started`` reports the bound ports, in order."""
    async with trio.open_nursery() as nursery:
        ports = []
        for (host, port), target in pairs:
            listeners = await trio.open_tcp_listeners(port, host=host)
            ports.append(listeners[0].socket.getsockname()[1])
            handler = functools.partial(relay, target=target, delay=delay)
            nursery.start_soon(trio.serve_listeners, handler, listeners)
        task_status.started(ports)


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m p2pcards.net.relay", description=__doc__.splitlines()[0])
    parser.add_argument("--delay-ms", type=float, required=True, help="one-way delay added to every chunk")
    parser.add_argument("--seconds", type=float, default=math.inf, help="stop after this long")
    parser.add_argument("pairs", nargs="+", metavar="LISTEN=TARGET", help="HOST:PORT=HOST:PORT")
    args = parser.parse_args(argv)
    pairs = [(_address(a), _address(b)) for a, b in (pair.split("=", 1) for pair in args.pairs)]

    async def run() -> None:
        with trio.move_on_after(args.seconds):
            async with trio.open_nursery() as nursery:
                await nursery.start(serve_relays, pairs, args.delay_ms / 1000)
                print("ready", flush=True)

    trio.run(run)
    return 0


if __name__ == "__main__":
    sys.exit(main())

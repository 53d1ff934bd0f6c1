"""What a spectator sends a seat (protocol/table.md section 10): the seat reads it slowly, so
a spectator that floods it with frames costs the players no CPU (decoding a flood would)."""

from __future__ import annotations

import trio

from p2pcards.net import spectators as spectators_module
from p2pcards.net.spectators import Spectators
from p2pcards.net.transport import Connection
from p2pcards.wire.framing import encode, frame_of
from p2pcards.wire.identity import Identity
from p2pcards.wire.log import Log


async def _flood_a_seat(chat: bool, seconds: float) -> tuple[int, int, list[tuple[str, str]]]:
    """A spectator on 127.0.0.1 that sends big junk frames (and one chat line) as fast as the
    seat takes them for ``seconds``: the bytes it got out, the bytes the seat read, the lines
    the seat heard."""
    log = Log(bytes(16), {"t": 1}, [Identity.generate().public])
    heard: list[tuple[str, str]] = []
    seat_side: list[Connection] = []
    spectators = Spectators({"t": 1}, lambda: log, chat=chat, on_say=lambda n, t: heard.append((n, t)))
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]

    async def seat(stream: trio.SocketStream) -> None:
        conn = Connection(stream)
        seat_side.append(conn)
        await spectators.serve(conn, "flooder")

    junk = frame_of(encode({"type": "lobby", "op": "say", "junk": [[i, "x" * 50] for i in range(8000)]}))
    sent = 0
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, seat, listeners)
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(frame_of(encode({"type": "lobby", "op": "say", "text": "hello"})))
        with trio.move_on_after(seconds):
            while True:
                await stream.send_all(junk)
                sent += len(junk)
        read = seat_side[0].bytes_received
        nursery.cancel_scope.cancel()
    return sent, read, heard


async def test_a_spectator_flooding_the_seat_is_read_slowly():
    for chat in (False, True):
        sent, read, heard = await _flood_a_seat(chat, 1.0)
        # At most a frame and two chunks beyond the pace (the first frame is read at once).
        bound = spectators_module.INPUT_BYTES_PER_SECOND * 1.0 + (1 << 20) + 2 * 65_536
        assert read <= bound, (chat, read, sent)
        assert heard == ([("flooder", "hello")] if chat else [])

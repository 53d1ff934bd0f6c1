"""A live Peer for seat 0 of a three-seat Cal's BS table, in process and unconnected, for tests
that feed it messages directly (test_recover.py, test_catchup.py)."""

from __future__ import annotations

import random
from pathlib import Path

from p2pcards.net.peer import Peer
from p2pcards.net.runner import bot_agent
from p2pcards.net.transport import ConnectionClosed
from p2pcards.plugins import load_plugins as plugins
from p2pcards.table.header import Seat, TableHeader
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.identity import Identity
from p2pcards.wire.messages import Fetched
from p2pcards.wire.transcript import TranscriptHeader, TranscriptWriter

PLAYERS = 3
IDS = [Identity.generate() for _ in range(PLAYERS)]
TABLE = bytes(range(16))


def make_peer() -> Peer:
    game = plugins().game("cals-bs")
    options = game.resolve_options({"match_target": 1}, PLAYERS)
    seats = tuple(Seat(f"p{s}", IDS[s].public, "127.0.0.1", 1000 + s) for s in range(PLAYERS))
    header = TableHeader(TABLE, "cals-bs", game.rules_version, options, seats, 1, Timeouts(1, 1, 1))
    agent = bot_agent(plugins(), game, "random", random.Random(0))(game, 0, options)
    return Peer(IDS[0], header, 0, game, agent, seed=b"\x07" * 32)


def make_journal(peer: Peer, path: Path) -> TranscriptWriter:
    """A new journal at ``path`` for ``peer`` (of :func:`make_peer`), set as its journal."""
    header = TranscriptHeader(
        TABLE,
        tuple(i.public for i in IDS),
        ("p0", "p1", "p2"),
        "cals-bs",
        peer.header.rules_version,
        dict(peer.header.options),
        peer.header_wire,
    )
    peer.journal = TranscriptWriter.create(path, header)
    return peer.journal


def fetched(count: int) -> dict:
    return Fetched(TABLE, 0, count).to_wire()


class Recorder:
    """Stands for a connection: keeps what the peer writes on it."""

    def __init__(self):
        self.closed = False
        self.frames: list[bytes] = []
        self.messages: list[dict] = []

    async def send_frame(self, frame: bytes) -> None:
        self.frames.append(frame)

    async def send(self, message: dict) -> None:
        self.messages.append(message)

    async def receive(self):
        raise ConnectionClosed("test")

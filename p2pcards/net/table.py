"""Running one seat of a networked table from a started lobby to the saved transcript."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from ..game import Game, Result
from ..session import SeatAgent
from ..wire.errors import ProtocolError
from ..wire.identity import Identity
from ..wire.transcript import TranscriptEnd, TranscriptHeader, TranscriptWriter
from .lobby import LobbyError, LobbyResult, accept_mesh, dial_seat
from .peer import Peer, TableAborted
from .transport import ConnectionClosed, FrameError

__all__ = ["SeatOutcome", "play_seat", "transcript_header"]

#: After our game ends, how long we keep serving the other seats until they finish too.
LINGER_SECONDS = 10.0
MESH_SECONDS = 20.0


@dataclass
class SeatOutcome:
    peer: Peer
    result: Result | None
    aborted: TableAborted | None
    transcript: Path | None


def transcript_header(peer: Peer) -> TranscriptHeader:
    header = peer.header
    return TranscriptHeader(
        header.table,
        tuple(s.keys for s in header.seats),
        tuple(s.name for s in header.seats),
        header.game,
        header.rules_version,
        dict(header.options),
        lobby=peer.header_wire,
    )


async def play_seat(
    identity: Identity,
    lobby: LobbyResult,
    game: Game,
    agent: SeatAgent,
    *,
    games: Mapping[str, str],
    transcript_dir: Path | None = None,
    seed: bytes | None = None,
    on_peer: Callable[[Peer], None] | None = None,
    peer_factory: Callable[..., Peer] = Peer,
) -> SeatOutcome:
    """Connect to every other seat, play the game, and save the transcript.

    ``peer_factory`` (called like :class:`Peer`) lets tests seat a deviating peer."""
    header, me = lobby.header, lobby.seat
    path = journal_path = None
    journal = None
    peer = peer_factory(identity, header, me, game, agent, seed=seed)
    if transcript_dir is not None:
        transcript_dir.mkdir(parents=True, exist_ok=True)
        stem = f"{header.table.hex()[:12]}-seat{me}"
        path, journal_path = transcript_dir / f"{stem}.p2pt", transcript_dir / f"{stem}.journal"
        # The journal records entries as they arrive (a valid transcript if we crash); the
        # final transcript is written in canonical order, byte-identical at every seat.
        journal = TranscriptWriter.create(journal_path, transcript_header(peer), sync=False)
        peer.journal = journal
        peer.session.transcript_path = str(path)
    if on_peer:
        on_peer(peer)
    full_mesh = trio.Event()

    async def serve(nursery: trio.Nursery, seat: int, conn: Any) -> None:
        peer.attach(seat, conn)
        nursery.start_soon(peer.serve_connection, seat, conn)
        if all(peer.connected(s) for s in range(header.players) if s != me):
            full_mesh.set()

    async def accept_loop(nursery: trio.Nursery) -> None:
        while True:
            stream = await lobby.listener.accept()
            nursery.start_soon(accept_one, nursery, stream)

    async def accept_one(nursery: trio.Nursery, stream: Any) -> None:
        try:
            seat, conn = await accept_mesh(stream, identity, header, me, games=games)
        except (ProtocolError, ConnectionClosed, FrameError):
            await stream.aclose()
            return
        await serve(nursery, seat, conn)

    result = aborted = None
    async with trio.open_nursery() as nursery:
        if lobby.listener is not None:
            nursery.start_soon(accept_loop, nursery)
        for seat, conn in lobby.links.items():
            await serve(nursery, seat, conn)
        for seat in range(1, me):
            if seat not in lobby.links:
                await serve(nursery, seat, await dial_seat(identity, header, me, seat, games=games))
        if header.players == 1:
            full_mesh.set()
        with trio.move_on_after(MESH_SECONDS):
            await full_mesh.wait()
        if not full_mesh.is_set():
            missing = [header.seats[s].name for s in range(header.players) if s != me and not peer.connected(s)]
            aborted = TableAborted(f"could not connect to {', '.join(missing)}")
        else:
            try:
                result = await peer.play()
            except TableAborted as exc:
                aborted = exc
            # Keep answering until every seat has its result, so nobody is cut off mid-audit.
            with trio.move_on_after(LINGER_SECONDS):
                while not peer.all_finished():
                    await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    for conn in list(peer.connections.values()):
        await conn.aclose()
    if lobby.listener is not None:
        await lobby.listener.aclose()
    if journal is not None:
        end = _end_record(peer, result, aborted)
        journal.write_end(end)
        journal.close()
        with TranscriptWriter.create(path, transcript_header(peer), sync=True) as final:
            final.append_entries(peer.log.canonical())
            for blame in peer.log.blames:
                final.append_blame(blame)
            final.write_end(end)
        journal_path.unlink()
    return SeatOutcome(peer, result, aborted, path)


def _end_record(peer: Peer, result: Result | None, aborted: TableAborted | None) -> TranscriptEnd:
    seeds = {s: seed for s, seed in enumerate(peer.party.seeds) if seed is not None}
    if aborted is not None:
        absent = (aborted.seat,) if aborted.seat is not None and not peer.connected(aborted.seat) else ()
        status = "abandoned" if absent else "aborted"
        return TranscriptEnd(status, None, seeds, absent, aborted.reason[:1000])
    return TranscriptEnd("finished", result.to_wire() if result else None, seeds)

"""A seat that feeds its spectator hostile bytes (protocol/table.md section 10): the spectator
stops watching with a problem, never crashes, and holds no more than a table's log holds."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from p2pcards import PROTOCOL_VERSION
from p2pcards.net import watch as watch_module
from p2pcards.net.lobby import handshake
from p2pcards.net.transport import Connection
from p2pcards.net.watch import watch_table
from p2pcards.plugins import load_plugins
from p2pcards.table.header import Seat, TableHeader
from p2pcards.verify import verify_file
from p2pcards.wire.identity import Identity
from p2pcards.wire.messages import new_table_id, seat_genesis, sign_entry

PLUGINS = load_plugins()
GAMES = PLUGINS.rules_versions()
OPTIONS = PLUGINS.games["cals-bs"].resolve_options({"match_target": 1}, 3)


async def _watch_a_fake_seat(
    feed: Callable[[Connection, TableHeader, Identity, list[Identity]], Awaitable[Any]],
    transcript_dir: Path | None = None,
):
    """A seat of a three-seat table (its own key in the header) listening on 127.0.0.1; a
    spectator watches it and ``feed`` says what the seat sends after ``watching``."""
    me, others = Identity.generate(), [Identity.generate(), Identity.generate()]
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    seats = (
        Seat("mal", me.public, "127.0.0.1", port),
        *(Seat(name, o.public, "127.0.0.1", port + 1 + i) for i, (name, o) in enumerate(zip(("bob", "cy"), others))),
    )
    header = TableHeader(new_table_id(), "cals-bs", GAMES["cals-bs"], OPTIONS, seats, PROTOCOL_VERSION)

    async def seat(stream: Any) -> None:
        conn = Connection(stream)
        await handshake(conn, me, name="mal", games=GAMES)
        await conn.receive()  # watch
        await conn.send({"type": "lobby", "op": "watching", "header": header.to_wire()})
        await feed(conn, header, me, others)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, seat, listeners)
        with trio.fail_after(30):
            watched = await watch_table(
                "127.0.0.1", port, Identity.generate(), name="eve", games=GAMES, transcript_dir=transcript_dir
            )
        nursery.cancel_scope.cancel()
    return watched, header


async def test_a_seat_that_sends_its_spectator_entries_without_end_is_cut_off(monkeypatch):
    monkeypatch.setattr(watch_module, "MAX_ENTRIES", 50)
    sent = [0]

    async def flood(conn: Connection, header: TableHeader, me: Identity, others: list[Identity]) -> None:
        prev = seat_genesis(header.table, header.to_wire(), 0)
        for seq in range(200):  # its own chain: every entry validly signed by its author
            entry = sign_entry(
                me, table=header.table, sender=0, seq=seq, kind="chat", prev=prev, body={"text": "x" * 100}
            )
            prev = entry.hash
            try:
                await conn.send(entry.to_wire())
            except Exception:
                return
            sent[0] += 1
        await conn.aclose()

    watched, _ = await _watch_a_fake_seat(flood)
    assert watched.problem is not None and "more entries" in watched.problem, watched.problem
    assert len(watched.received) <= 50


async def test_a_seat_that_claims_a_finished_game_it_never_played_gets_no_verified(tmp_path):
    """Its own chain (validly signed chat lines), nothing of the other seat, then an end record
    that says the game finished with a result: the transcript the spectator writes is not
    verified, and nothing raises."""

    async def claim(conn: Connection, header: TableHeader, me: Identity, others: list[Identity]) -> None:
        prev = seat_genesis(header.table, header.to_wire(), 0)
        for seq in range(3):
            entry = sign_entry(
                me,
                table=header.table,
                sender=0,
                seq=seq,
                kind="chat",
                prev=prev,
                body={
                    "text": "gg",
                    "seen": [[seq, prev], *([0, seat_genesis(header.table, header.to_wire(), s)] for s in (1, 2))],
                },
            )
            prev = entry.hash
            await conn.send(entry.to_wire())
        end = {"type": "end", "status": "finished", "result": {"winners": [0]}, "absent": [], "note": ""}
        await conn.send({"type": "lobby", "op": "ended", "end": end})
        await trio.sleep(1)

    watched, _ = await _watch_a_fake_seat(claim, tmp_path)
    assert watched.problem is None and watched.transcript is not None
    report = verify_file(watched.transcript)
    assert report.verdict != "verified", report.problem_line()


async def test_a_header_whose_options_the_game_refuses_stops_the_spectators_screen_cleanly(tmp_path):
    """The seat's header is its word: options the installed game cannot read end the watch with
    a problem for the screen (LobbyProblem), not an exception that takes the console down."""
    import pytest

    from p2pcards.console.app import TableStart
    from p2pcards.console.lobby import LobbyProblem
    from p2pcards.console.spectator import WatchTable

    me = Identity.generate()
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    seats = tuple(Seat(f"s{i}", (me if i == 0 else Identity.generate()).public, "127.0.0.1", port) for i in range(3))
    bad = dict(OPTIONS, match_target="x")
    header = TableHeader(new_table_id(), "cals-bs", GAMES["cals-bs"], bad, seats, PROTOCOL_VERSION)

    async def seat(stream: Any) -> None:
        conn = Connection(stream)
        await handshake(conn, me, name="s0", games=GAMES)
        await conn.receive()
        await conn.send({"type": "lobby", "op": "watching", "header": header.to_wire()})
        await trio.sleep(5)

    shown: list = []
    runner = WatchTable("127.0.0.1", port, Identity.generate(), PLUGINS, name="eve", transcript_dir=tmp_path)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, seat, listeners)
        with trio.fail_after(10), pytest.raises(LobbyProblem) as info:
            await runner(TableStart(lambda session, **kw: shown.append(session), lambda text: None))
        nursery.cancel_scope.cancel()
    assert "match_target" in str(info.value) or "options" in str(info.value)
    assert not shown


async def test_watching_a_seat_that_is_not_there_is_a_problem_for_the_screen(tmp_path):
    """A refused connection reaches the console as LobbyProblem itself (the console's 'table
    stopped'), not inside an ExceptionGroup it would take for a crash."""
    import pytest

    from p2pcards.console.app import TableStart
    from p2pcards.console.lobby import LobbyProblem
    from p2pcards.console.spectator import WatchTable

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    await listeners[0].aclose()  # nothing listens there now
    runner = WatchTable("127.0.0.1", port, Identity.generate(), PLUGINS, name="eve", transcript_dir=tmp_path)
    with trio.fail_after(15), pytest.raises(LobbyProblem):
        await runner(TableStart(lambda session, **kw: None, lambda text: None))
    assert runner.outcome


async def test_a_seat_showing_its_spectator_another_version_of_its_move_is_found_at_the_next_echo():
    """The seat sends its spectator version A of its entry #0 (the players got version B), then
    another seat's entry whose head echo names B: the spectator stops there, saying the entries
    disagree, without naming the seat it watches through as the liar."""
    from p2pcards.wire.log import Log

    async def two_faced(conn: Connection, header: TableHeader, me: Identity, others: list[Identity]) -> None:
        roster = [me.public, *(o.public for o in others)]
        players_log = Log(header.table, header.to_wire(), roster)
        shown = Log(header.table, header.to_wire(), roster)
        real = players_log.make_entry(me, 0, "chat", {"text": "B"})
        fake = shown.make_entry(me, 0, "chat", {"text": "A"})
        echoing = players_log.make_entry(others[0], 1, "chat", {"text": "saw B"})
        assert real.hash != fake.hash
        await conn.send(fake.to_wire())
        await conn.send(echoing.to_wire())
        await trio.sleep(5)

    watched, _ = await _watch_a_fake_seat(two_faced)
    assert watched.problem is not None and "disagree" in watched.problem, watched.problem
    assert "sent something wrong" not in watched.problem
    assert [e.body["text"] for e in watched.received] == ["A"]


async def test_a_seat_whose_header_gives_it_another_encryption_key_is_not_watched():
    """The seat's header holds its signing key with an encryption key that is not the one it
    showed the spectator (issue 28): the header's keys are not the seat's, so it is not a seat
    of the table it sent, and the spectator stops before any entry."""
    import pytest

    from p2pcards.net.watch import WatchError
    from p2pcards.wire.identity import PublicIdentity

    me, others = Identity.generate(), [Identity.generate(), Identity.generate()]
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    swapped = PublicIdentity(me.public.ed25519, Identity.generate().public.x25519)
    seats = (
        Seat("mal", swapped, "127.0.0.1", port),
        *(Seat(name, o.public, "127.0.0.1", port + 1 + i) for i, (name, o) in enumerate(zip(("bob", "cy"), others))),
    )
    header = TableHeader(new_table_id(), "cals-bs", GAMES["cals-bs"], OPTIONS, seats, PROTOCOL_VERSION)

    async def seat(stream: Any) -> None:
        conn = Connection(stream)
        await handshake(conn, me, name="mal", games=GAMES)
        await conn.receive()  # watch
        await conn.send({"type": "lobby", "op": "watching", "header": header.to_wire()})
        await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, seat, listeners)
        with trio.fail_after(30), pytest.raises(WatchError, match="not a seat of the table it sent"):
            await watch_table("127.0.0.1", port, Identity.generate(), name="eve", games=GAMES)
        nursery.cancel_scope.cancel()

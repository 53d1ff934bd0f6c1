"""Spectators (protocol/table.md section 10): a whole Cal's BS game between bot peers on
127.0.0.1 with someone watching through seat 0. The spectator gets the public log only while
the game runs, nothing it received decodes a card not turned up for everyone, its transcript
verifies, and a spectator that misbehaves or stops reading changes nothing for the players."""

import filecmp
import socket
from pathlib import Path

import pytest
import trio

from p2pcards.deck.public import NotOpened
from p2pcards.net import spectators as spectators_module
from p2pcards.net.lobby import handshake
from p2pcards.net.transport import Connection, ConnectionClosed
from p2pcards.net.watch import watch_table
from p2pcards.plugins import load_plugins
from p2pcards.table.timeouts import Timeouts
from p2pcards.testing import play_loopback
from p2pcards.verify import verify_file
from p2pcards.verify.passes import public_passes
from p2pcards.wire.framing import encode
from p2pcards.wire.identity import Identity
from p2pcards.wire.messages import sign_entry
from p2pcards.wire.sealed import recipients
from p2pcards.wire.transcript import read_transcript

GAME, OPTIONS = "cals-bs", {"match_target": 1}


async def _play(tmp_path: Path, alongside, options=OPTIONS, spectator_events=None, **keywords) -> tuple:
    """Play the table with ``alongside(peer0)`` started as seat 0's game starts; with
    ``spectator_events`` (a dict), every seat's ``spectator`` events go to it as they come (a
    long match's history keeps only its last events)."""
    first = trio.Event()
    peers: dict = {}

    def on_peer(peer):
        peers[peer.seat] = peer
        if spectator_events is not None:
            seen = spectator_events.setdefault(peer.seat, [])
            peer.session.subscribe(lambda e: seen.append(e) if e.kind == "spectator" else None)
        if peer.seat == 0:
            first.set()

    async with trio.open_nursery() as nursery:

        async def watcher():
            await first.wait()
            await alongside(peers[0])

        nursery.start_soon(watcher)
        table = await play_loopback(
            GAME,
            3,
            options,
            seats="random",
            timeouts=Timeouts(deck=20, turn=30, grace=20),
            transcript_dir=tmp_path / "seats",
            on_peer=on_peer,
            linger=5,
            time_limit=90,
            **keywords,
        )
    return table, peers


class _Stub:
    """The spectator's entries, read like a log by verify's seedless public checks."""

    def __init__(self, entries):
        self._entries = sorted(entries, key=lambda e: (e.sender, e.seq))

    def canonical(self):
        return iter(self._entries)

    closed = canonical

    def entries(self, seat, start=0):
        return [e for e in self._entries if e.sender == seat and e.seq >= start]


def _public_faces(peer) -> dict:
    """Every face turned up for everyone during the game, as seat 0's session saw it."""
    faces = {}
    for event in peer.session.history:
        if event.kind == "reveal":
            faces.update(event.data.get("faces", {}))
    return faces


async def test_a_spectator_sees_the_public_game_only_and_verifies_it(tmp_path, virtual_clock):
    got: dict = {}

    async def watch(peer):
        header = peer.header.seats[peer.seat]
        got["watched"] = await watch_table(
            header.host,
            header.port,
            Identity.generate(),
            name="eve",
            games=load_plugins().rules_versions(),
            transcript_dir=tmp_path / "watcher",
            on_line=got.setdefault("lines", []).append,
        )

    with trio.fail_after(120):
        table, peers = await _play(tmp_path, watch)
    table.check()  # every seat finished, agreed, and wrote the same transcript
    watched = got["watched"]
    assert watched.problem is None
    assert watched.end is not None and watched.end.status == "finished"

    # The players saw who watched.
    notes = [e.text for e in peers[0].session.history if e.kind == "spectator"]
    assert "eve is watching the table" in notes
    seat0 = peers[0].header.seats[0].name
    for other in (1, 2):  # told by seat 0's unsigned notice, never in the signed log
        notes = [e.text for e in peers[other].session.history if e.kind == "spectator"]
        assert f"eve is watching the table (through {seat0})" in notes
        assert "eve" in peers[other].watching()
    assert not any(e.kind == "chat" for e in read_transcript(table.transcripts[1]).entries)

    # While the game ran: not one sealed message, and no byte of any box of the game.
    during = watched.during_game
    assert during and all(not recipients(e.body) for e in during)
    assert all(not recipients(frame.get("body")) for frame in watched.frames)
    seat_file = table.transcripts[0]
    boxes = [box for e in read_transcript(seat_file).entries for box in recipients(e.body).values()]
    assert boxes, "the game had private messages"
    stream = b"".join(encode(frame) for frame in watched.frames)
    assert not any(box in stream for box in boxes)
    # No seed at all (none is revealed since protocol version 12).
    kinds = [(e.kind, e.body.get("msg", {}).get("type") if e.kind == "deck" else None) for e in during]
    assert not [msg for _, msg in kinds if msg == "seed"]

    # Every face the spectator can decode from what it got during the game (the public passes
    # and every public opening) is one the game turned up for everyone.
    before_seeds = during
    game = load_plugins().game(GAME)
    cards = public_passes(_Stub(before_seeds), peers[0].header, game)
    openings = [e.body["msg"] for e in before_seeds if e.kind == "deck" and e.body["msg"].get("type") == "open"]
    decoded = {}
    for handle in cards.points:
        try:
            decoded.update(cards.opened([handle], openings))
        except NotOpened:
            pass
    public = _public_faces(peers[0])
    assert decoded, "the game turned cards up: the spectator sees them"
    assert decoded.items() <= public.items()
    # Seat 0's own hand at the end (never turned up) is not among them.
    hidden = {h: c for h, c in peers[0].deck.known(0).items() if h not in public}
    assert not (hidden.keys() & decoded.keys())

    # At the end it holds the whole transcript: it verifies, and it is the players' own.
    assert watched.transcript is not None
    assert verify_file(watched.transcript).verdict == "verified"
    assert filecmp.cmp(watched.transcript, seat_file, shallow=False)
    assert got["lines"] and any("move" in line for line in got["lines"])


@pytest.mark.slow  # a game in real time
async def test_a_spectator_that_sends_moves_and_stops_reading_changes_nothing(tmp_path, monkeypatch):
    # Real time: on the autojump clock it failed (spectators that do not read wait on real socket buffers).
    monkeypatch.setattr(spectators_module, "SEND_SECONDS", 0.5)
    monkeypatch.setattr(spectators_module, "QUEUE_ENTRIES", 8)
    got: dict = {}

    async def rude(peer):
        # A tiny receive window, and it never reads: the seat must drop it, not wait for it.
        sock = trio.socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        me = peer.header.seats[peer.seat]
        await sock.connect((me.host, me.port))
        conn = Connection(trio.SocketStream(sock))
        await handshake(conn, Identity.generate(), name="mallory", games=load_plugins().rules_versions())
        await conn.send({"type": "lobby", "op": "watch"})
        # A move "by seat 1", signed with its own key (it has no other), then a chat line and junk.
        forged = sign_entry(
            Identity.generate(),
            table=peer.header.table,
            sender=1,
            seq=0,
            kind="action",
            prev=bytes(32),
            body={"turn": 0, "action": {"type": "pass"}, "seen": []},
        )
        await conn.send(forged.to_wire())
        await conn.send({"type": "fetch", "table": peer.header.table, "seat": 1, "start": 0})
        got["dropped_before_end"] = None
        with trio.move_on_after(60):
            while "mallory" not in peer.spectators.names:
                await trio.sleep(0.01)
            while "mallory" in peer.spectators.names:
                await trio.sleep(0.01)
            got["dropped_before_end"] = peer.session.result is None
        await conn.aclose()

    with trio.fail_after(120):
        start = trio.current_time()
        table, peers = await _play(tmp_path, rude)
        took = trio.current_time() - start
    table.check()
    assert all(not p.blames for p in peers.values())
    assert verify_file(table.transcripts[0]).verdict == "verified"
    # Dropped while the game still ran, for not reading (it never held the seat up).
    assert peers[0].spectators.dropped == 1 and got["dropped_before_end"] is True
    notes = [e.text for e in peers[0].session.history if e.kind == "spectator"]
    assert notes[:2] == ["mallory is watching the table", "mallory stopped watching"]
    assert took < 60


def test_watch_refuses_a_bad_address(capsys):
    from p2pcards.cli import main

    assert main(["watch", "127.0.0.1:notaport", "--interface", "127.0.0.1"]) == 2
    assert "port between 1 and 65535" in capsys.readouterr().err


def test_another_seats_word_on_its_watchers_is_escaped_and_capped():
    from p2pcards.net.spectators import NOTICE_LINES, OtherWatchers
    from p2pcards.wire.messages import MAX_WATCHERS, Watchers, parse_message

    others = OtherWatchers(["ann", "bob"])
    assert others.update(1, ["eve", "eve"]) == ["eve is watching the table (through bob)"]
    assert others.update(1, []) == ["eve stopped watching (through bob)"]
    # A name a terminal would act on arrives only escaped (the schema refuses it on the wire).
    escaped = ("\\x1b[2Jx" * 40)[:64]
    assert others.update(0, ["\x1b[2Jx" * 40]) == [escaped + " is watching the table (through ann)"]
    shown = 0
    for i in range(200):  # a seat flooding notices gets a bounded number of lines
        shown += len(others.update(1, [f"n{i}"]))
    assert shown == NOTICE_LINES - 2  # (two lines about seat 1 came before)
    # On the wire: at most MAX_WATCHERS names, no control characters.
    assert parse_message({"type": "watchers", "names": ["a"]}) == Watchers(("a",))
    for bad in (["x"] * (MAX_WATCHERS + 1), ["\x1b"], ["y" * 65], "eve"):
        try:
            parse_message({"type": "watchers", "names": bad})
        except Exception:
            continue
        raise AssertionError(f"accepted {bad!r}")


@pytest.mark.slow  # a game in real time
async def test_spectators_coming_and_going_mid_game_neither_change_nor_slow_the_game(tmp_path):
    """Mid-game, six spectators come (through seats 0 and 1), take a few frames and go, and
    one that never reads stays attached: the players' transcripts agree and verify, hold no
    trace of them, and the game went on while the one that does not read was attached
    (counted in moves, not timed)."""
    # Real time: it failed on the autojump clock (not studied yet; issue 29).
    got: dict = {}
    games = load_plugins().rules_versions()

    async def dial(peer, seat: int, name: str, *, rcvbuf: int | None = None) -> Connection:
        me = peer.header.seats[seat]
        sock = trio.socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        await sock.connect((me.host, me.port))
        conn = Connection(trio.SocketStream(sock))
        await handshake(conn, Identity.generate(), name=name, games=games)
        await conn.send({"type": "lobby", "op": "watch"})
        return conn

    async def churn(peer):
        with trio.fail_after(60):
            while peer.turns < 3:
                await trio.sleep(0.005)
        stalled = await dial(peer, 0, "sloth", rcvbuf=2048)  # never reads
        got["attached_at"] = peer.turns
        for i in range(6):
            conn = await dial(peer, i % 2, f"visitor{i}")
            for _ in range(3):
                await conn.receive()
            await conn.aclose()
            await trio.sleep(0.01)
        with trio.fail_after(60):
            while "sloth" in peer.spectators.names and peer.session.result is None:
                await trio.sleep(0.005)
        got["moves_while_attached"] = peer.turns - got["attached_at"]
        got["visitors_seen"] = [e.text for e in peer.session.history if e.kind == "spectator"]
        await stalled.aclose()

    with trio.fail_after(120):
        table, peers = await _play(tmp_path, churn)
    table.check()  # every seat finished, agreed on the result and wrote the same transcript
    assert all(not p.blames for p in peers.values())
    assert verify_file(table.transcripts[0]).verdict == "verified"
    kinds = {e.kind for e in read_transcript(table.transcripts[0]).entries}
    assert kinds <= {"action", "deck", "result", "chat", "absent", "stop", "bye"}, kinds
    # The game kept going while a spectator that reads nothing was attached (its frames wait
    # in its own queue, with its own task): many moves, not one.
    assert got["moves_while_attached"] >= 10, got
    # And the players saw them come and go (seat 0's own, and seat 1's through its notice).
    assert "visitor0 is watching the table" in got["visitors_seen"]
    assert "sloth is watching the table" in got["visitors_seen"]
    assert any("visitor1 is watching the table (through" in line for line in got["visitors_seen"])


@pytest.mark.slow  # a game in real time
async def test_a_spectator_churning_floods_no_screen_and_hides_no_watcher(tmp_path):
    """A spectator that comes and goes under a new name again and again: each player gets at
    most NOTICE_LINES lines about it per seat it watches through, and the list of who watches
    (what the console shows) still names the one that stays at the end, at every seat."""
    # Real time: it failed on the autojump clock (not studied yet; issue 29).
    games = load_plugins().rules_versions()
    got: dict = {}
    seen: dict = {}

    async def dial(peer, name: str) -> Connection:
        me = peer.header.seats[0]
        conn = Connection(await trio.open_tcp_stream(me.host, me.port))
        await handshake(conn, Identity.generate(), name=name, games=games)
        await conn.send({"type": "lobby", "op": "watch"})
        await conn.receive()  # watching: it is counted
        return conn

    async def churn(peer):
        with trio.fail_after(60):
            while peer.turns < 1:  # the mesh is up: every seat hears seat 0's notices
                await trio.sleep(0.005)
        for i in range(spectators_module.NOTICE_LINES + 10):
            conn = await dial(peer, f"ghost{i}")
            await conn.aclose()
        lurker = await dial(peer, "lurker")
        got["lurker_at"] = peer.turns
        # Until the end of the match (the table's own 120 s bound, below, holds it: a bound of
        # its own, 30 s, was outlasted by a six-hand match on a loaded machine).
        # On a loaded machine (load 19) the table may drop the lurker as too slow to keep up
        # (its queue full: net/spectators.py, by design); it was listed by then, which is what
        # this test is about.
        try:
            while peer.session.result is None:
                await lurker.receive()
        except ConnectionClosed:
            got["lurker_dropped"] = True
        await lurker.aclose()

    with trio.fail_after(120):
        # A longer match: the spectators come and go while it runs.
        table, peers = await _play(tmp_path, churn, {"match_target": 6}, spectator_events=seen)
    table.check()
    assert all(not p.blames for p in peers.values())
    for seat in peers:
        events = seen[seat]
        lines = [e.text for e in events if e.text]
        assert len(lines) <= spectators_module.NOTICE_LINES, (seat, len(lines))
        # Before the game's end, the last list shown named the lurker (seat 0 saw it come
        # through its own listener; the others through seat 0's notice).
        assert any("lurker" in e.data["watching"] for e in events), seat

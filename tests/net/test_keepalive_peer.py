"""A live Peer whose links go silent (issue 23): real connections on 127.0.0.1 whose far ends
stop sending without closing, on trio's autojump clock. The seat list shows the silent seat as
away, with the grace period left, within seconds; nobody is named for it; and a peer whose every
link went silent is the one cut off, which names nobody."""

from __future__ import annotations

import random

import pytest
import trio

from p2pcards.net.peer import CUT_OFF, Peer
from p2pcards.net.runner import bot_agent
from p2pcards.net.transport import SILENCE_SECONDS, Connection, connect
from p2pcards.plugins import load_plugins as plugins
from p2pcards.table.header import Seat, TableHeader
from p2pcards.table.timeouts import Timeouts

from .peer_support import IDS, PLAYERS, TABLE

pytestmark = pytest.mark.trio

GRACE = 60.0


def _peer() -> Peer:
    game = plugins().game("cals-bs")
    options = game.resolve_options({"match_target": 1}, PLAYERS)
    seats = tuple(Seat(f"p{s}", IDS[s].public, "127.0.0.1", 1000 + s) for s in range(PLAYERS))
    header = TableHeader(TABLE, "cals-bs", game.rules_version, options, seats, 1, Timeouts(30, 30, GRACE))
    agent = bot_agent(plugins(), game, "random", random.Random(0))(game, 0, options)
    return Peer(IDS[0], header, 0, game, agent, seed=b"\x07" * 32)


async def _pair() -> tuple[Connection, Connection]:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    ours = await connect("127.0.0.1", port)
    theirs = Connection(await listeners[0].accept(), "far end")
    await listeners[0].aclose()
    return ours, theirs


async def _drain(conn: Connection) -> None:
    """A far end that reads what it gets (our fetches, our pings) and says nothing back."""
    try:
        while True:
            await conn.receive()
    except Exception:
        pass


async def test_a_silent_seat_is_away_with_its_grace_shown_and_nobody_is_named(autojump_clock):
    peer = _peer()
    events: list = []
    peer.session.subscribe(events.append)
    async with trio.open_nursery() as nursery:
        silent_ours, silent_far = await _pair()
        live_ours, live_far = await _pair()
        nursery.start_soon(_drain, silent_far)
        nursery.start_soon(_drain, live_far)
        live = trio.CancelScope()

        async def keep_live_far_alive() -> None:
            with live:
                await live_far.keep_alive()

        nursery.start_soon(keep_live_far_alive)
        nursery.start_soon(peer.serve_connection, 1, silent_ours)
        nursery.start_soon(peer.serve_connection, 2, live_ours)
        start = trio.current_time()
        await trio.sleep(1)
        assert peer.presence(1).state == peer.presence(2).state == "online"
        await trio.sleep(SILENCE_SECONDS + 0.5)  # the silence limit has passed
        away = peer.presence(1)
        assert away.state == "away" and away.grace_left is not None
        noticed = trio.current_time() - start - (GRACE - away.grace_left)
        assert SILENCE_SECONDS <= noticed <= SILENCE_SECONDS + 1
        assert peer.presence(2).state == "online"  # its pings keep it
        assert peer.blames == []  # a silent link is nobody's provable fault
        assert any(e.kind == "connection" and "p1 disconnected" in e.text for e in events)
        # Waiting on seat 1 ends naming it as gone: another seat still reaches us.
        assert not peer.cut_off()
        verdict = peer.gone(1, "action")
        assert verdict.seat == 1 and verdict.reason == "p1 left and did not come back in time"
        # Now seat 2 goes silent too: every link we had went silent, so we may be the one cut off.
        live.cancel()
        await trio.sleep(SILENCE_SECONDS + 0.5)
        assert peer.presence(2).state == "away"
        assert peer.cut_off()
        verdict = peer.gone(1, "action")
        assert verdict.seat is None and verdict.reason == CUT_OFF
        assert peer.blames == []
        nursery.cancel_scope.cancel()


async def test_a_seat_that_closed_its_connection_is_not_a_cut(autojump_clock):
    """A connection the other side closed (its program ended: FIN or RST) tells us the path to
    it works: we are not cut off, and the seat is named as gone when its grace runs out."""
    peer = _peer()
    async with trio.open_nursery() as nursery:
        for seat in (1, 2):
            ours, far = await _pair()
            nursery.start_soon(peer.serve_connection, seat, ours)
            if seat == 1:
                await far.aclose()
            else:
                nursery.start_soon(_drain, far)  # silent
        await trio.sleep(SILENCE_SECONDS + 1)
        assert peer.presence(1).state == peer.presence(2).state == "away"
        assert not peer.cut_off()
        assert peer.gone(1, "action").seat == 1
        nursery.cancel_scope.cancel()


async def test_a_link_cut_just_before_a_timeout_is_not_taken_for_a_stall(autojump_clock):
    """A seat whose link is cut a second before its timeout falls due (its move, sent just
    then, is lost with the link) is not named at the timeout: its link was not yet quiet for
    QUIET_SECONDS, but nothing came after the deadline, so the timeout waits for the
    keepalive's verdict. A live seat is heard from within a ping period after it."""
    peer = _peer()
    async with trio.open_nursery() as nursery:
        cut_ours, cut_far = await _pair()
        live_ours, live_far = await _pair()
        nursery.start_soon(_drain, cut_far)
        nursery.start_soon(_drain, live_far)
        nursery.start_soon(live_far.keep_alive)
        cut = trio.CancelScope()

        async def alive_until_cut() -> None:
            with cut:
                await cut_far.keep_alive()

        nursery.start_soon(alive_until_cut)
        nursery.start_soon(peer.serve_connection, 1, cut_ours)
        nursery.start_soon(peer.serve_connection, 2, live_ours)
        await trio.sleep(10.3)
        cut.cancel()  # the link goes silent (nothing closed)
        await trio.sleep(1.0)
        due = trio.current_time()  # both seats' timeouts fall due now
        assert peer.connected(1) and peer.connected(2)
        assert peer.quiet(1, due), "not heard from since its deadline: it may be cut"
        assert not peer.quiet(1), "quiet for less than QUIET_SECONDS: the old rule named it"
        await trio.sleep(1.6)  # a ping period and a half: the live seat's ping came
        assert peer.quiet(1, due) and not peer.quiet(2, due)
        await trio.sleep(SILENCE_SECONDS)
        assert not peer.connected(1)  # cut: away, its grace period runs
        nursery.cancel_scope.cancel()


async def test_an_away_seats_grace_runs_from_when_it_left_however_often_we_look(autojump_clock):
    """A step that waits on an away seat looks again at every check (its message may come
    through another seat: a link down between two seats only): looking neither restarts the
    grace period nor tells the player again that the table waits; coming back starts anew."""
    from .peer_support import Recorder

    peer = _peer()
    events: list = []
    peer.session.subscribe(events.append)
    peer.attach(1, Recorder())
    peer._detach(1)
    start = peer.clock.now()
    assert peer.grace_end(1) == pytest.approx(start + GRACE)
    await trio.sleep(3)
    assert peer.grace_end(1) == pytest.approx(start + GRACE)
    assert not await peer.wait_for_return(1, until=peer.clock.now() + 1)
    told = [e for e in events if e.kind == "connection" and "is away; waiting" in e.text]
    assert len(told) == 1
    peer.attach(1, Recorder())
    assert await peer.wait_for_return(1)
    peer._detach(1)
    left = peer.clock.now()
    await trio.sleep(2)
    assert peer.grace_end(1) == pytest.approx(left + GRACE)
    told = [e for e in events if e.kind == "connection" and "is away; waiting" in e.text]
    assert len(told) == 2

"""The lobby over real loopback sockets (127.0.0.1 only, no zeroconf): joiners connect to each
other while the table waits, so that the game starts with its mesh up (protocol/table.md
sections 2 and 3)."""

from __future__ import annotations

import trio

from p2pcards.net.lobby import HostedLobby, host_lobby, join_lobby
from p2pcards.plugins import load_plugins
from p2pcards.table.timeouts import Timeouts
from p2pcards.testing.loopback import unused_port
from p2pcards.wire.identity import Identity

LOOPBACK = "127.0.0.1"


async def test_joiners_are_connected_to_each_other_when_the_table_starts():
    host = load_plugins()
    game = host.game("cals-bs")
    games = host.rules_versions()
    players = 4
    ids = [Identity.generate() for _ in range(players)]
    lobby = HostedLobby(
        ids[0],
        "host",
        "cals-bs",
        game.rules_version,
        game.resolve_options({}, players),
        players,
        games,
        LOOPBACK,
        0,
        Timeouts(),
    )
    results = {}

    async def join(index: int, port: int) -> None:
        results[index] = await join_lobby(
            ids[index], LOOPBACK, port, name=f"p{index}", games=games, listen_host=LOOPBACK
        )

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:

            async def run_host(task_status=trio.TASK_STATUS_IGNORED):
                results[0] = await host_lobby(lobby, announce=False, task_status=task_status)

            port = await nursery.start(run_host)
            for index in range(1, players):
                nursery.start_soon(join, index, port)
                while len(lobby.sitters) < index:  # one at a time: joiner i gets seat i
                    await trio.sleep(0.005)
    assert sorted(results[0].links) == [1, 2, 3]
    for seat in range(1, players):
        # Connected to the host and to every other joiner, each under the key the header gives.
        assert sorted(results[seat].links) == [s for s in range(players) if s != seat], seat
    # Every seat opened every commitment and has the same table words.
    words = {result.words for result in results.values()}
    assert len(words) == 1 and len(words.pop().words) == 5
    for result in results.values():
        await result.aclose()


async def test_a_joiner_refuses_a_table_whose_options_the_rules_cannot_read():
    """The host's header is untrusted: options that are missing, unparsed or out of range end
    the join with a clear error instead of reaching the rules (where a KeyError would end the
    joiner)."""
    import pytest

    from p2pcards.net.lobby import LobbyError
    from p2pcards.net.runner import join_table

    host = load_plugins()
    game = host.game("crazy-eights")
    games = host.rules_versions()
    for options, wrong in (({}, "hand_size"), ({**game.resolve_options({}, 2), "hand_size": "7"}, "hand_size")):
        ids = [Identity.generate() for _ in range(2)]
        lobby = HostedLobby(
            ids[0], "host", "crazy-eights", game.rules_version, options, 2, games, LOOPBACK, 0, Timeouts()
        )
        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:

                async def run_host(task_status=trio.TASK_STATUS_IGNORED):
                    result = await host_lobby(lobby, announce=False, task_status=task_status)
                    await result.aclose()

                port = await nursery.start(run_host)
                with pytest.raises(LobbyError, match=f"does not fit crazy-eights here.*{wrong}"):
                    await join_table(
                        host, ids[1], LOOPBACK, port, name="p1", agent=lambda *a: None, listen_host=LOOPBACK
                    )


# -- a hostile or broken joiner at the host's door (found by a review with a hostile client) ----

import errno  # noqa: E402

import pytest  # noqa: E402

from p2pcards.net import slots as slots_module  # noqa: E402
from p2pcards.net.lobby import LobbyError, handshake, serve_listener  # noqa: E402
from p2pcards.net.transport import Connection, ConnectionClosed, connect  # noqa: E402
from p2pcards.wire.messages import make_hello  # noqa: E402


def _lobby(players: int, game_id: str = "crazy-eights") -> tuple[HostedLobby, dict[str, str]]:
    host = load_plugins()
    game = host.game(game_id)
    games = host.rules_versions()
    return HostedLobby(
        Identity.generate(),
        "host",
        game_id,
        game.rules_version,
        game.resolve_options({}, players),
        players,
        games,
        LOOPBACK,
        0,
        Timeouts(),
    ), games


async def _host_and(lobby: HostedLobby, attack) -> dict:
    """Run the host's lobby and ``attack(port, games)`` next to it; what host_lobby returned."""
    results = {}
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:

            async def run_host(task_status=trio.TASK_STATUS_IGNORED):
                results["host"] = await host_lobby(lobby, announce=False, task_status=task_status)

            port = await nursery.start(run_host)
            await attack(port)
    return results


async def _shaken(port: int, games: dict[str, str], name: str = "mallory") -> Connection:
    conn = await connect(LOOPBACK, port)
    await handshake(conn, Identity.generate(), name=name, games=games)
    return conn


async def test_a_joiner_that_sends_a_bad_frame_or_drops_mid_frame_is_dropped_and_the_table_starts():
    """A frame that is not valid after the handshake, or a connection cut in the middle of a
    frame (what a joiner whose program dies mid-write leaves), used to end the host with a
    FrameError traceback out of HostedLobby._seat."""
    lobby, games = _lobby(2)

    async def attack(port: int) -> None:
        bad = await _shaken(port, games)
        await bad.stream.send_all(b"\x00\x00\x00\x05" + b"\xc1" * 5)  # 0xc1 is never msgpack
        torn = await _shaken(port, games)
        await torn.send({"type": "lobby", "op": "sit", "host": LOOPBACK, "port": 9, "commit": bytes(32)})
        await torn.stream.send_all(b"\x00\x00\x01\x00abc")  # 256 bytes announced, 3 sent
        await torn.stream.aclose()
        while lobby.sitters:
            await trio.sleep(0.01)
        joined = await join_lobby(Identity.generate(), LOOPBACK, port, name="honest", games=games, listen_host=LOOPBACK)
        await joined.aclose()

    results = await _host_and(lobby, attack)
    assert sorted(results["host"].links) == [1]
    await results["host"].aclose()


async def test_a_joiner_that_said_ready_and_left_does_not_end_the_host():
    """Its seat is kept (the game names it if it does not come back); the host's ``start`` to it
    fails, which used to end the host with ConnectionClosed."""
    lobby, games = _lobby(3)

    async def attack(port: int) -> None:
        ghost = await _shaken(port, games, "ghost")
        await ghost.send({"type": "lobby", "op": "sit", "host": LOOPBACK, "port": 9, "commit": bytes(32)})
        await ghost.send({"type": "lobby", "op": "ready", "ready": True})
        while not lobby.readiness()[1]:
            await trio.sleep(0.01)
        await ghost.aclose()
        await trio.sleep(0.1)
        filler = await _shaken(port, games, "filler")
        await filler.send({"type": "lobby", "op": "sit", "host": LOOPBACK, "port": 10, "commit": bytes(32)})
        await trio.sleep(0.1)  # the roster to the ghost fails, then the start to it
        await filler.send({"type": "lobby", "op": "ready", "ready": True})
        while (await filler.receive()).get("op") != "start":
            pass
        await filler.send({"type": "lobby", "op": "reveal", "nonce": bytes(32)})
        assert (await filler.receive())["op"] == "nonces"
        await filler.aclose()

    results = await _host_and(lobby, attack)
    assert [s.name for s in results["host"].header.seats] == ["host", "ghost", "filler"]
    assert sorted(results["host"].links) == [2]
    await results["host"].aclose()


async def test_a_joiner_with_other_rules_is_told_why():
    """The host's ``bye`` names both rules versions; the joiner used to report 'expected auth'."""
    lobby, games = _lobby(2)

    async def attack(port: int) -> None:
        mine = games["crazy-eights"]
        for theirs, said in (
            ({**games, "crazy-eights": "0"}, f"we have rules {mine}, peer has 0"),
            ({"cals-bs": games["cals-bs"]}, "peer does not have the game"),
        ):
            with pytest.raises(LobbyError, match=said):
                await join_lobby(Identity.generate(), LOOPBACK, port, name="old", games=theirs, listen_host=LOOPBACK)
        joined = await join_lobby(Identity.generate(), LOOPBACK, port, name="ok", games=games, listen_host=LOOPBACK)
        await joined.aclose()

    results = await _host_and(lobby, attack)
    await results["host"].aclose()


async def test_connections_that_say_nothing_are_bounded_and_dropped(monkeypatch):
    """Strangers that connect and say nothing, or pass the handshake and send no ``sit``, used
    to hold a file descriptor each for as long as they liked, without limit: 1,100 of them
    ended a host under the common limit of 1,024 descriptors (EMFILE out of accept)."""
    monkeypatch.setattr(slots_module, "UNPROVEN_SECONDS", 0.5)
    lobby, games = _lobby(2)

    async def attack(port: int) -> None:
        shaken = await _shaken(port, games)  # and no sit
        silent = [await trio.open_tcp_stream(LOOPBACK, port) for _ in range(10)]

        async def closed_within(stream, seconds: float) -> bool:
            with trio.move_on_after(seconds):
                while await stream.receive_some(65536):
                    pass
                return True
            return False

        # Those beyond the limit of one address at once, the others after their time is up.
        for stream in silent:
            assert await closed_within(stream, 2.0)
        assert await closed_within(shaken.stream, 2.0)
        joined = await join_lobby(Identity.generate(), LOOPBACK, port, name="honest", games=games, listen_host=LOOPBACK)
        await joined.aclose()

    results = await _host_and(lobby, attack)
    await results["host"].aclose()


async def test_running_out_of_file_descriptors_is_waited_out():
    class Flaky:
        def __init__(self):
            self.calls = 0

        async def accept(self):
            self.calls += 1
            if self.calls <= 2:
                raise OSError(errno.EMFILE, "Too many open files")
            if self.calls == 3:
                return "stream"
            await trio.sleep_forever()

    handled = []

    async def handle(stream, slot):
        handled.append(stream)

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(serve_listener, Flaky(), handle, nursery)
            while not handled:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    assert handled == ["stream"]


async def _evil_host(seat: int, terms: dict, header_of, *, fails: str) -> None:
    """A hostile host: seats a joiner in ``seat`` with these ``terms`` and starts the table with
    ``header_of(host identity, joiner's keys, games)``; the joiner must fail with an error
    matching ``fails``."""
    host_id = Identity.generate()
    games = load_plugins().rules_versions()
    listeners = await trio.open_tcp_listeners(0, host=LOOPBACK)
    port = listeners[0].socket.getsockname()[1]

    async def evil_host() -> None:
        conn = Connection(await listeners[0].accept())
        joiner = await handshake(conn, host_id, name="evil", games=games)
        await conn.receive()  # sit
        await conn.send({"type": "lobby", "op": "seated", "seat": seat, "table": b"t" * 16, **terms})
        header = header_of(host_id, joiner.keys, games)
        with pytest.raises(ConnectionClosed):  # the joiner closes its side (maybe before the start)
            await conn.send(
                {
                    "type": "lobby",
                    "op": "start",
                    "header": header.to_wire() if header else {},
                    "commits": [bytes(32)] * (header.players if header else 0),
                    # Every seat's signed hello (the proof of its keys): the host's, the joiner's.
                    "hellos": [make_hello(host_id, name="evil", games=games).to_wire(), joiner.theirs.to_wire()][
                        : header.players if header else 0
                    ],
                }
            )
            while True:
                await conn.receive()

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(evil_host)
            with pytest.raises(LobbyError, match=fails):
                await join_lobby(Identity.generate(), LOOPBACK, port, name="joiner", games=games, listen_host=LOOPBACK)
    await listeners[0].aclose()


def _terms(games: dict, timeouts: Timeouts = Timeouts(), **changes) -> dict:
    from p2pcards.net.lobby import TableTerms

    return {**TableTerms("cals-bs", games["cals-bs"], {}, timeouts).to_wire(), **changes}


async def test_a_header_that_does_not_seat_us_is_a_clear_error():
    """A hostile host says 'seat 2' and then starts a table of one seat: the joiner used to end
    with an IndexError."""
    from p2pcards.table.header import Seat, TableHeader

    games = load_plugins().rules_versions()
    await _evil_host(
        2,
        _terms(games),
        lambda host_id, joiner, games: TableHeader(
            b"t" * 16, "cals-bs", games["cals-bs"], {}, (Seat("evil", host_id.public, LOOPBACK, 9),), 1, Timeouts()
        ),
        fails="does not seat us where the host said",
    )


async def test_a_header_whose_timeouts_differ_from_those_shown_is_refused():
    """The joiner is shown the table's timeouts when it sits (before it says ready): a host that
    starts the table with others (a turn of an hour instead of a minute) is refused."""
    from p2pcards.table.header import Seat, TableHeader

    games = load_plugins().rules_versions()

    def header(timeouts: Timeouts, options: dict | None = None):
        def make(host_id, joiner, games):
            seats = (Seat("evil", host_id.public, LOOPBACK, 9), Seat("joiner", joiner, LOOPBACK, 10))
            return TableHeader(b"t" * 16, "cals-bs", games["cals-bs"], options or {}, seats, 1, timeouts)

        return make

    shown = Timeouts(deck=30, turn=60, grace=90)
    await _evil_host(
        1,
        _terms(games, shown),
        header(Timeouts(deck=30, turn=3600, grace=90)),
        fails=r"timeouts \(a deck step 30 s, a move 3600 s.*\) are not those the host showed",
    )
    await _evil_host(
        1,
        _terms(games, shown),
        header(shown, {"match_target": 1}),
        fails="options are not those the host showed.*match_target",
    )


async def test_timeouts_out_of_bounds_are_refused_when_the_joiner_sits():
    games = load_plugins().rules_versions()
    for wrong in (float("inf"), 1e300, 0.0, -1.0):
        terms = _terms(games)
        terms["timeouts"] = {"deck": 30.0, "turn": wrong, "grace": 90.0}
        await _evil_host(1, terms, lambda *a: None, fails="offers timeouts out of bounds: the turn timeout")


async def test_seats_that_advertise_a_relay_are_reached_through_it():
    """A seat may tell the others to dial another address than the one it listens on (a port
    forward; the races benchmark's delaying relay): the header carries the advertised address,
    and every link of the mesh is made through the relays."""
    from p2pcards.net.relay import serve_relays

    host = load_plugins()
    game = host.game("cals-bs")
    games = host.rules_versions()
    players = 3
    ids = [Identity.generate() for _ in range(players)]
    # Below the ephemeral range: the relays and the lobby bind ports chosen here.
    listen = [unused_port() for _ in range(players)]
    results = {}
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            relays = await nursery.start(serve_relays, [((LOOPBACK, 0), (LOOPBACK, port)) for port in listen], 0.01)
            lobby = HostedLobby(
                ids[0],
                "host",
                "cals-bs",
                game.rules_version,
                game.resolve_options({}, players),
                players,
                games,
                LOOPBACK,
                listen[0],
                Timeouts(),
                advertise=(LOOPBACK, relays[0]),
            )

            async def run_host(task_status=trio.TASK_STATUS_IGNORED):
                results[0] = await host_lobby(lobby, announce=False, task_status=task_status)

            async def join(index: int) -> None:
                results[index] = await join_lobby(
                    ids[index],
                    LOOPBACK,
                    relays[0],
                    name=f"p{index}",
                    games=games,
                    listen_host=LOOPBACK,
                    listen_port=listen[index],
                    advertise=(LOOPBACK, relays[index]),
                )

            await nursery.start(run_host)
            for index in range(1, players):
                nursery.start_soon(join, index)
                while len(lobby.sitters) < index:
                    await trio.sleep(0.005)
            while len(results) < players:
                await trio.sleep(0.005)
            header = results[0].header
            assert [(seat.host, seat.port) for seat in header.seats] == [(LOOPBACK, port) for port in relays]
            assert lobby.advert().port == relays[0]
            for seat in range(players):
                assert sorted(results[seat].links) == [s for s in range(players) if s != seat]
                # Every link of this seat runs through a relay: the far end is a relay's port.
                for link in results[seat].links.values():
                    far = link.stream.socket.getpeername()[1]
                    near = link.stream.socket.getsockname()[1]
                    assert far in relays or near == listen[seat]
                await results[seat].aclose()
            nursery.cancel_scope.cancel()

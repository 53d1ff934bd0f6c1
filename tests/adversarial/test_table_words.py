"""The table words against a person in the middle and against seats that cheat at the reveal,
over real loopback sockets (127.0.0.1 only, no zeroconf; protocol/table.md section 2).

The honest side is the real lobby (:func:`host_lobby`, :func:`join_lobby`); the hostile one
speaks the lobby messages by hand, as another program would."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from p2pcards import PROTOCOL_VERSION
from p2pcards.net import lobby as lobby_module
from p2pcards.net.lobby import HostedLobby, LobbyResult, handshake, host_lobby, join_lobby, lobby_message
from p2pcards.net.transport import Connection, connect
from p2pcards.plugins import load_plugins
from p2pcards.table.header import Seat, TableHeader
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.identity import Identity, new_words_nonce, words_commitment
from p2pcards.wire.messages import make_hello

LOOPBACK = "127.0.0.1"
GAME = "crazy-eights"


def _lobby(players: int) -> tuple[HostedLobby, dict[str, str]]:
    host = load_plugins()
    game = host.game(GAME)
    games = host.rules_versions()
    return HostedLobby(
        Identity.generate(),
        "host",
        GAME,
        game.rules_version,
        game.resolve_options({}, players),
        players,
        games,
        LOOPBACK,
        0,
        Timeouts(),
    ), games


async def _receive_op(conn: Connection, op: str) -> dict[str, Any]:
    """The next lobby message ``op``, skipping rosters."""
    while True:
        raw = await conn.receive()
        if raw.get("op") != "roster":
            return lobby_message(raw, op, "host")


async def _close(results: dict[Any, LobbyResult]) -> None:
    for result in results.values():
        await result.aclose()


class Middle:
    """A person in the middle: the joiner dials it believing it is the host; it sits at the real
    host under keys of its own, and shows the joiner a header that seats the joiner under the
    joiner's keys and the host under the middle's. Every lobby message is relayed, with the
    middle's own commitment and nonce where the header names its keys. What it cannot do is
    choose the keys after it has seen an honest seat's nonce."""

    def __init__(self, host_port: int, games: dict[str, str], *, adapt: bool = False):
        self.host_port, self.games, self.adapt = host_port, games, adapt
        self.to_joiner, self.to_host = Identity.generate(), Identity.generate()
        self.nonce_joiner, self.nonce_host = new_words_nonce(), new_words_nonce()

    async def serve(self, listener: trio.SocketListener) -> None:
        joiner = Connection(await listener.accept())
        joined = await handshake(joiner, self.to_joiner, name="host", games=self.games)
        theirs = joined.keys
        sit = lobby_message(await joiner.receive(), "sit", "joiner")
        host = await connect(LOOPBACK, self.host_port)
        await handshake(host, self.to_host, name="joiner", games=self.games)
        await host.send({**sit, "commit": words_commitment(self.nonce_host)})
        await joiner.send(lobby_message(await host.receive(), "seated", "host"))
        while True:  # rosters to the joiner, its ready to the host, until the host starts
            raw = await host.receive()
            if raw.get("op") == "start":
                break
            await joiner.send(raw)
            if not raw["ready"][1]:
                await host.send(lobby_message(await joiner.receive(), "ready", "joiner"))
        real = TableHeader.from_wire(raw["header"])
        seats = (
            Seat(real.seats[0].name, self.to_joiner.public, real.seats[0].host, real.seats[0].port),
            Seat(real.seats[1].name, theirs, real.seats[1].host, real.seats[1].port),
        )
        shown = TableHeader(
            real.table, real.game, real.rules_version, real.options, seats, real.protocol, real.timeouts
        )
        await joiner.send(
            {
                "type": "lobby",
                "op": "start",
                "header": shown.to_wire(),
                "commits": [words_commitment(self.nonce_joiner), sit["commit"]],
                "hellos": [
                    make_hello(self.to_joiner, name="host", games=self.games).to_wire(),
                    joined.theirs.to_wire(),
                ],
            }
        )
        joiner_nonce = lobby_message(await joiner.receive(), "reveal", "joiner")["nonce"]
        await host.send({"type": "lobby", "op": "reveal", "nonce": self.nonce_host})
        lobby_message(await host.receive(), "nonces", "host")
        # Adapting: a nonce picked after the joiner's is known (what grinding for the host's words
        # would need) does not open the commitment the header already carries.
        shown_nonce = new_words_nonce() if self.adapt else self.nonce_joiner
        await joiner.send({"type": "lobby", "op": "nonces", "nonces": [shown_nonce, joiner_nonce]})
        await joiner.aclose()
        await host.aclose()


async def _middle_table(adapt: bool) -> dict[str, LobbyResult]:
    lobby, games = _lobby(2)
    results: dict[str, LobbyResult] = {}
    middle_listener = (await trio.open_tcp_listeners(0, host=LOOPBACK))[0]
    middle_port = middle_listener.socket.getsockname()[1]
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:

            async def run_host(task_status=trio.TASK_STATUS_IGNORED):
                results["host"] = await host_lobby(lobby, announce=False, task_status=task_status)

            port = await nursery.start(run_host)
            middle = Middle(port, games, adapt=adapt)
            nursery.start_soon(middle.serve, middle_listener)
            results["joiner"] = await join_lobby(
                Identity.generate(), LOOPBACK, middle_port, name="joiner", games=games, listen_host=LOOPBACK
            )
    await middle_listener.aclose()
    return results


async def test_a_person_in_the_middle_gets_other_words_on_each_side():
    results = await _middle_table(adapt=False)
    host_words, joiner_words = results["host"].words, results["joiner"].words
    # Both sides have words (nothing failed to open) and they differ: reading them aloud shows it.
    assert host_words.problem == joiner_words.problem == ""
    assert len(host_words.words) == len(joiner_words.words) == 5
    assert host_words.words != joiner_words.words
    await _close(results)


async def test_a_person_in_the_middle_that_changes_its_nonce_late_is_named_and_leaves_no_words():
    results = await _middle_table(adapt=True)
    joiner_words = results["joiner"].words
    assert joiner_words.words == () and joiner_words.seat == 0
    assert joiner_words.problem == "seat 0's words nonce does not open its commitment"
    assert len(results["host"].words.words) == 5  # the host's side went as an honest joiner's
    await _close(results)


class Cheat:
    """A joiner that sits in the last seat and, at the reveal, sends a nonce that does not open
    its commitment (``wrong``) or nothing at all (``silent``)."""

    def __init__(self, games: dict[str, str], how: str):
        self.games, self.how = games, how
        self.nonce = new_words_nonce()
        self.nonces: list[Any] | None = None

    async def play(self, port: int, players: int, lobby: HostedLobby) -> None:
        while len(lobby.sitters) < players - 2:  # the honest joiners first: we take the last seat
            await trio.sleep(0.005)
        conn = await connect(LOOPBACK, port)
        await handshake(conn, Identity.generate(), name="cheat", games=self.games)
        await conn.send(
            {"type": "lobby", "op": "sit", "host": LOOPBACK, "port": 9, "commit": words_commitment(self.nonce)}
        )
        await _receive_op(conn, "seated")
        await conn.send({"type": "lobby", "op": "ready", "ready": True})
        await _receive_op(conn, "start")
        if self.how == "wrong":
            await conn.send({"type": "lobby", "op": "reveal", "nonce": new_words_nonce()})
        self.nonces = (await _receive_op(conn, "nonces"))["nonces"]
        await conn.aclose()


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("how", ["wrong", "silent"])
async def test_a_seat_that_reveals_a_wrong_nonce_or_none_is_named_by_every_seat(players, how, monkeypatch):
    monkeypatch.setattr(lobby_module, "REVEAL_SECONDS", 0.5)
    lobby, games = _lobby(players)
    cheat = Cheat(games, how)
    results: dict[int, LobbyResult] = {}

    async def join(index: int, port: int) -> None:
        results[index] = await join_lobby(
            Identity.generate(), LOOPBACK, port, name=f"p{index}", games=games, listen_host=LOOPBACK
        )

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:

            async def run_host(task_status=trio.TASK_STATUS_IGNORED):
                results[0] = await host_lobby(lobby, announce=False, task_status=task_status)

            port = await nursery.start(run_host)
            for index in range(1, players - 1):
                nursery.start_soon(join, index, port)
                while len(lobby.sitters) < index:  # one at a time: joiner i gets seat i
                    await trio.sleep(0.005)
            nursery.start_soon(cheat.play, port, players, lobby)
    last = players - 1
    assert [s.name for s in results[0].header.seats][last] == "cheat"
    said = "did not reveal its words nonce" if how == "silent" else "'s words nonce does not open its commitment"
    host = results[0].words
    assert host.words == () and host.seat == last and host.problem == f"seat {last}{' ' * (how == 'silent')}{said}"
    for seat in range(1, last):
        joiner = results[seat].words
        # Named as well, with what a joiner cannot tell apart: the host relayed that seat's nonce.
        assert joiner.words == () and joiner.seat == last, joiner
        assert joiner.problem.startswith(host.problem) and "as the host relayed it" in joiner.problem
    # What the host sent on: the cheat's nonce as it came (nothing, for a silent one), ours last.
    assert cheat.nonces is not None and cheat.nonces[0] == lobby.nonce
    assert (cheat.nonces[last] is None) == (how == "silent")
    await _close(results)


async def test_a_host_that_never_reveals_leaves_no_words_and_does_not_hold_the_joiner(monkeypatch):
    """The joiner's wait is bounded; it still gets its seat and its connection to the host (the
    game judges the host from there), with no words and the reason."""
    monkeypatch.setattr(lobby_module, "REVEAL_SECONDS", 0.2)
    host_id = Identity.generate()
    games = load_plugins().rules_versions()
    game = load_plugins().game(GAME)
    listener = (await trio.open_tcp_listeners(0, host=LOOPBACK))[0]
    port = listener.socket.getsockname()[1]
    table = b"m" * 16
    joiner_id = Identity.generate()
    revealed: list[Any] = []

    async def silent_host() -> None:
        conn = Connection(await listener.accept())
        joined = await handshake(conn, host_id, name="silent", games=games)
        sit = lobby_message(await conn.receive(), "sit", "joiner")
        await conn.send(
            {
                "type": "lobby",
                "op": "seated",
                "seat": 1,
                "table": table,
                "game": GAME,
                "rules": game.rules_version,
                "options": game.resolve_options({}, 2),
                "timeouts": Timeouts().to_wire(),
            }
        )
        await conn.send(
            {
                "type": "lobby",
                "op": "roster",
                "names": ["silent", "joiner"],
                "ready": [True, False],
                "seats": 2,
                "mesh": [],
                "bots": [],
            }
        )
        lobby_message(await conn.receive(), "ready", "joiner")
        seats = (Seat("silent", host_id.public, LOOPBACK, port), Seat("joiner", joiner_id.public, LOOPBACK, 9))
        header = TableHeader(
            table, GAME, game.rules_version, game.resolve_options({}, 2), seats, PROTOCOL_VERSION, Timeouts()
        )
        await conn.send(
            {
                "type": "lobby",
                "op": "start",
                "header": header.to_wire(),
                "commits": [words_commitment(new_words_nonce()), sit["commit"]],
                "hellos": [make_hello(host_id, name="silent", games=games).to_wire(), joined.theirs.to_wire()],
            }
        )
        revealed.append(lobby_message(await conn.receive(), "reveal", "joiner")["nonce"])
        await trio.sleep_forever()  # and never the nonces

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(silent_host)
            result = await join_lobby(joiner_id, LOOPBACK, port, name="joiner", games=games, listen_host=LOOPBACK)
            nursery.cancel_scope.cancel()
    assert result.words.words == () and result.words.seat == 0
    assert result.words.problem == "the host (silent) did not reveal the words nonces within 0.4 s"
    assert sorted(result.links) == [0] and len(revealed) == 1
    await result.aclose()
    await listener.aclose()

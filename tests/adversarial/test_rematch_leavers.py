"""Cheating seats in a rematch's room (p2pcards/net/rematch.py, protocol/table.md "A rematch"):
the rematch is played by the seats that stayed, decided from what each seat's own
authenticated connection did, never from a peer's word about another seat.

* carol's program says ``ready`` and then vanishes (its connection closed, no ``bye``): she is
  left out, alice and bob play the rematch, and nobody else is named.
* carol's program, with carol's key but calling itself "bob", leaves with a ``bye`` that says
  "bob declined the rematch": carol is the one who left (by her key, under her name in the
  last game's header); bob plays.

Both rematches are played to the end over loopback TCP (127.0.0.1) and ``p2pcards verify``
says each seat's transcript is clean."""

from __future__ import annotations

import random
from typing import Any

import pytest
import trio

from p2pcards.net.lobby import Roster, handshake
from p2pcards.net.rematch import host_rematch, join_rematch
from p2pcards.net.runner import bot_agent
from p2pcards.net.table import SeatOutcome
from p2pcards.net.transport import connect
from p2pcards.plugins import load_plugins
from p2pcards.testing.loopback import LOOPBACK
from p2pcards.verify import EXIT_VERIFIED
from p2pcards.wire.identity import new_words_nonce, words_commitment
from p2pcards.wire.messages import Bye

from ..net.test_rematch import first_game
from .adv_table import verify

pytestmark = [
    pytest.mark.skipif("crazy-eights" not in load_plugins().games, reason="crazy-eights is not installed"),
    # Two games a test (~8 s of crypto); the rematch's room is checked in the fast tier by
    # tests/net/test_rematch.py (a rematch played, refused for too few players, by the host).
    pytest.mark.slow,
]

GAME = "crazy-eights"


async def _carol_cheats(last: SeatOutcome, *, name: str, bye: str | None) -> None:
    """carol's program, modified: it sits down in her seat of the rematch's room, says ready,
    then leaves, with ``bye`` (a lie about another seat) or none at all (it vanishes)."""
    header = last.peer.header
    target = header.seats[0]
    with trio.fail_after(30):
        while True:  # the host opens the room once its own game is saved
            try:
                conn = await connect(target.host, target.port)
                break
            except Exception:
                await trio.sleep(0.1)
        plugins = load_plugins()
        peer = await handshake(conn, last.peer.identity, name=name, games=plugins.rules_versions())
        commit = words_commitment(new_words_nonce())
        await conn.send({"type": "lobby", "op": "sit", "host": LOOPBACK, "port": 9, "commit": commit})
        seated = await conn.receive()
        assert seated["op"] == "seated" and seated["seat"] == 2, seated
        await conn.send({"type": "lobby", "op": "ready", "ready": True})
        await trio.sleep(0.3)
        if bye is not None:
            await conn.send(Bye(bye).to_wire())
        await conn.aclose()
        del peer


async def _rematch_without_carol(tmp_path: Any, *, name: str, bye: str | None) -> dict[str, Any]:
    plugins = load_plugins()
    game = plugins.game(GAME)
    rng = random.Random(11)
    with trio.fail_after(120):
        first = await first_game(plugins, GAME, ["alice", "bob", "carol"], rng)
        agreed = trio.Event()  # alice agrees once carol has left (carol was ready before)
        second: dict[str, Any] = {"rosters": []}

        def on_roster(roster: Roster) -> None:
            second["rosters"].append(roster)
            if roster.note:
                agreed.set()

        async with trio.open_nursery() as nursery:

            async def host_again() -> None:
                second["alice"] = await host_rematch(
                    plugins,
                    [first["alice"]],
                    interface=LOOPBACK,
                    agent=bot_agent(plugins, game, "random", rng),
                    agreement=agreed,
                    on_roster=on_roster,
                    transcript_dir=tmp_path,
                )

            async def bob_again() -> None:
                second["bob"] = await join_rematch(
                    plugins,
                    first["bob"],
                    listen_host=LOOPBACK,
                    agent=bot_agent(plugins, game, "random", rng),
                    agreement=True,
                    transcript_dir=tmp_path,
                )

            nursery.start_soon(host_again)
            nursery.start_soon(bob_again)
            nursery.start_soon(lambda: _carol_cheats(first["carol"], name=name, bye=bye))
    second["first"] = first
    return second


def _check_played_without_carol(second: dict[str, Any]) -> None:
    first = second["first"]
    header1 = first["alice"].peer.header
    game2 = [second["alice"][0], second["bob"]]
    header2 = game2[0].peer.header
    assert [s.keys for s in header2.seats] == [s.keys for s in header1.seats[:2]]
    assert [s.name for s in header2.seats] == ["alice", "bob"]
    notes = {r.note for r in second["rosters"] if r.note}
    assert notes == {"carol left; the rematch is alice and bob"}, notes
    for outcome in game2:
        assert outcome.aborted is None and outcome.result is not None
        assert not outcome.peer.blames, outcome.peer.blames
        status, report = verify(outcome.transcript)
        assert status == EXIT_VERIFIED, report


async def test_a_seat_that_agrees_then_vanishes_is_left_out(tmp_path, virtual_clock):
    second = await _rematch_without_carol(tmp_path, name="carol", bye=None)
    _check_played_without_carol(second)


async def test_a_seat_cannot_leave_the_rematch_for_another(tmp_path, virtual_clock):
    # carol's key, the name "bob", and a bye that blames bob: bob still plays.
    second = await _rematch_without_carol(tmp_path, name="bob", bye="bob declined the rematch")
    _check_played_without_carol(second)

"""A spectator is told at once when no rematch can come (issue 30's review): a player left
during the game and let a bot finish the seat, and too few are left for the game (or the one
who left is the host). Its screen said "the players are starting a rematch: this screen follows
it" for ten minutes while every player's screen said "no rematch". No network: the look at the
host's address is never made."""

from __future__ import annotations

from types import SimpleNamespace

import trio

from p2pcards import PROTOCOL_VERSION
from p2pcards.console.spectator import WatchTable
from p2pcards.plugins import load_plugins
from p2pcards.table.header import Seat, TableHeader
from p2pcards.table.protocol import LEFT_TO_BOT
from p2pcards.wire.identity import Identity
from p2pcards.wire.messages import new_table_id

LOOPBACK = "127.0.0.1"


def _watched(players: int, left: set[int], tmp_path):
    plugins = load_plugins()
    game = plugins.game("cals-bs")
    names = ["alice", "bob", "carol", "dave"][:players]
    seats = tuple(Seat(n, Identity.generate().public, LOOPBACK, 40000 + i) for i, n in enumerate(names))
    header = TableHeader(
        new_table_id(), game.id, game.rules_version, game.resolve_options({}, players), seats, PROTOCOL_VERSION
    )
    watch = WatchTable(LOOPBACK, 40000, Identity.generate(), plugins, name="erin", transcript_dir=tmp_path, follow=True)
    notices: list[str] = []
    watch.session = SimpleNamespace(publish=lambda kind, text, **data: notices.append(text))
    chat = SimpleNamespace(kind="chat", body={"text": LEFT_TO_BOT})
    hello = SimpleNamespace(kind="chat", body={"text": "good luck"})
    by_seat = [{1: hello, 7: chat} if s in left else {1: hello} for s in range(players)]
    watch.feed = SimpleNamespace(header=header, by_seat=by_seat)
    started = SimpleNamespace(chosen=lambda: "quit")  # a look would end at once
    return watch, header, started, notices


async def test_no_rematch_when_a_leaver_leaves_too_few(tmp_path):
    watch, header, started, notices = _watched(3, {1}, tmp_path)
    with trio.fail_after(1):
        assert await watch._find_rematch(started, header) is None
    assert notices == ["no rematch: bob left during the game; Cal's BS needs at least 3 players; type 'quit' to leave"]


async def test_no_rematch_when_the_host_left(tmp_path):
    watch, header, started, notices = _watched(4, {0}, tmp_path)
    with trio.fail_after(1):
        assert await watch._find_rematch(started, header) is None
    assert notices == ["no rematch: alice (the host) left during the game; type 'quit' to leave"]


async def test_a_rematch_that_can_come_is_still_looked_for(tmp_path):
    """Four seats, one left to a bot: three can play the rematch; the screen says it follows."""
    watch, header, started, notices = _watched(4, {2}, tmp_path)
    with trio.fail_after(1):
        assert await watch._find_rematch(started, header) is None  # (the player quit: no look)
    assert len(notices) == 1 and notices[0].startswith("if the players start a rematch, this screen follows it")

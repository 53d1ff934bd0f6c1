"""The story of Hold'em hands as the console's log tells it (issue 33's newcomer at 80x24):
each thing said once ("bob shows J♦ 3♣", not "bob shows" and then the line again; "the flop:
K♣ 5♣ 2♦", not "turned face up from the stock" before it), the chips a call or an all in put
in ("bob calls 20", "bob goes all in for 340"), and the cards a player who busts showed kept in
the log once the next hand deals them out of the seat list. Whole bot matches on the local
dealer, in process; the log is the console's own (:class:`TableTracker`)."""

from __future__ import annotations

import re

import pytest
import trio

from p2pcards.console.viewmodel import TableTracker
from p2pcards.plugins import PluginHost
from p2pcards.session import local_session

from .holdem_table import Table

CARD = r"(?:10|[2-9JQKA])[♠♥♦♣shdc]"  # (the log shows a card as the game wrote it)
OPTIONS = {"starting_stack": 200, "small_blind": 10, "big_blind": 20, "hand_limit": 12}


@pytest.fixture(scope="module")
def host() -> PluginHost:
    host = PluginHost()
    host.load_entry_points()
    return host


async def _match(host, seed, players=4):
    session = local_session(host, "holdem", players=players, me=None, deck="local", seed=seed, options=OPTIONS)
    tracker = TableTracker(session)
    events = []
    session.subscribe(events.append)
    with trio.fail_after(60):
        await session.run()
    return session, tracker, events


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_the_log_says_each_thing_once_with_the_chips_put_in(host, seed):
    session, tracker, events = await _match(host, seed)
    lines = [line.text for line in tracker.log]
    for before, after in zip(lines, lines[1:]):
        assert not after.startswith(before + " "), (before, after)
    # Every card from the stock is the board, told by street: no core line before it.
    assert not [line for line in lines if line.startswith("turned face up from the stock")], lines
    assert any(re.fullmatch(f"the flop: {CARD} {CARD} {CARD}", line) for line in lines), lines
    # A seat's shown hand is one line with its cards; a bare "shows" is never left alone.
    shows = [line for line in lines if re.search(r" shows( |$)", line)]
    assert shows and all(re.search(f" shows {CARD} {CARD}$", line) for line in shows), shows
    # The chips a call or an all in put in, as the seat's stack went down by them.
    calls = alls = 0
    for event in events:
        if event.kind != "action":
            continue
        kind = event.data["action"]["type"]
        if kind == "call":
            calls += 1
            assert re.search(r" calls [1-9][0-9,]*$", event.text), event.text
        if kind == "all-in":
            alls += 1
            assert re.search(r" goes all in for [1-9][0-9,]*$", event.text), event.text
    assert calls and alls, (calls, alls)


def test_a_call_and_an_all_in_say_what_they_put_in():
    table = Table({0: "As Kd", 1: "7c 2d", 2: "Qh Qs"}, "2c 7d 9h Js 3s", button=2)
    assert "calls 20" in table.legal(2)
    table.act(2, "calls 20")  # what the log says reads back
    assert "calls 10" in table.legal(0)  # the small blind owes 10
    table.act(0, "raise 100")
    assert "goes all in for 1480" in table.legal(1)  # the big blind has 20 in already
    table.act(1, "goes all in for 1480")
    assert table.state.put[1] == 1480


async def test_a_busted_players_shown_cards_stay_in_the_log(host):
    busted = 0
    for seed in range(1, 8):
        session, tracker, _ = await _match(host, seed, players=3)
        lines = [line.text for line in tracker.log]
        for index, line in enumerate(lines):
            found = re.fullmatch(r"(.+) is out of chips, finishing \w+", line)
            if not found:
                continue
            name = found.group(1)
            start = max(i for i in range(index) if re.match(r"hand \d+: ", lines[i]))
            hand = lines[start:index]
            assert f"{name} shows" not in hand, hand  # never a bare "shows"
            if any(re.fullmatch(f"{re.escape(name)} shows {CARD} {CARD}", h) for h in hand):
                busted += 1
                # The seat list no longer shows them once out; the log still does.
                assert any(line.startswith(f"{name} has ") for line in hand), hand
        if busted >= 2:
            break
    assert busted, "no bot busted with its hand shown in these matches"

"""Rematches over loopback TCP (127.0.0.1 only): every seat agrees; a seat that leaves leaves it
to the others when the game allows that many, else there is none.

Each peer is a peer of its own (its own keys, listener and connections), as in
``p2pcards host`` / ``join``; the rematch reopens the host's table for the same keys only."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest
import trio

from p2pcards.game import Game
from p2pcards.net.lobby import LobbyError, Roster
from p2pcards.net.rematch import Score, host_rematch, join_rematch
from p2pcards.net.runner import bot_agent, host_table, join_table, table_problems
from p2pcards.net.table import SeatOutcome
from p2pcards.plugins import load_plugins
from p2pcards.session import BotSeat, HumanSeat, SeatAgent, TableSession
from p2pcards.testing.loopback import LOOPBACK, unused_port
from p2pcards.wire.identity import Identity

pytestmark = pytest.mark.skipif("crazy-eights" not in load_plugins().games, reason="crazy-eights is not installed")

GAME = "crazy-eights"


class Person:
    """The person at seat 0, driven by the test: a :class:`HumanSeat` per game, and a task that
    types the first legal move whenever the table asks for one."""

    def __init__(self) -> None:
        self.sessions: list[TableSession] = []
        self.agents: list[HumanSeat] = []

    def agent(self, game: Game, seat: int, options: Mapping[str, Any]) -> SeatAgent:
        seat_agent = HumanSeat()
        self.agents.append(seat_agent)
        return seat_agent

    def on_peer(self, peer: Any) -> None:
        self.sessions.append(peer.session)

    async def play(self) -> None:
        while True:  # bounded by the test's fail_after
            if self.agents and self.sessions and self.agents[-1].waiting:
                session = self.sessions[-1]
                self.agents[-1].put(session.legal_actions()[0])
            await trio.sleep(0.005)


def _check(outcomes: list[SeatOutcome]) -> None:
    assert not table_problems(outcomes), table_problems(outcomes)


async def test_three_peers_agree_play_a_rematch_and_keep_the_score(tmp_path, virtual_clock):
    plugins = load_plugins()
    game = plugins.game(GAME)
    rng = random.Random(7)
    person = Person()
    alice, bob = Identity.generate(), Identity.generate()
    port_box: list[int] = []
    port_known = trio.Event()
    first: dict[str, Any] = {}

    def on_port(port: int) -> None:
        port_box.append(port)
        port_known.set()

    with trio.fail_after(120):
        async with trio.open_nursery() as driver:
            driver.start_soon(person.play)

            # Game 1: alice hosts (a person) with one bot of hers; bob is a bot peer of his own.
            async with trio.open_nursery() as nursery:

                async def run_host() -> None:
                    first["host"] = await host_table(
                        plugins,
                        alice,
                        GAME,
                        options={},
                        players=3,
                        agent=person.agent,
                        name="alice",
                        interface=LOOPBACK,
                        port=unused_port(),  # the rematch opens on it again
                        bots=1,
                        bot_name="random",
                        announce=False,
                        on_port=on_port,
                        on_peer=person.on_peer,
                        transcript_dir=tmp_path,
                    )

                async def run_bob() -> None:
                    await port_known.wait()
                    first["bob"] = await join_table(
                        plugins,
                        bob,
                        LOOPBACK,
                        port_box[0],
                        name="bob",
                        agent=bot_agent(plugins, game, "random", rng),
                        listen_host=LOOPBACK,
                        transcript_dir=tmp_path,
                    )

                nursery.start_soon(run_host)
                nursery.start_soon(run_bob)
            game1 = [first["host"][0], first["host"][1], first["bob"]]
            _check(sorted(game1, key=lambda o: o.peer.seat))
            header1 = game1[0].peer.header
            score = Score()
            score.add(header1, game1[0].result)

            # The rematch: bob's program sits down at once and agrees (a bot); alice's bot too.
            # Nothing starts until alice agrees.
            agreement = trio.Event()
            rosters: list[Roster] = []
            second: dict[str, Any] = {}
            async with trio.open_nursery() as nursery:

                async def rematch_host() -> None:
                    second["host"] = await host_rematch(
                        plugins,
                        first["host"],
                        interface=LOOPBACK,
                        agent=person.agent,
                        agreement=agreement,
                        bot_name="random",
                        on_roster=rosters.append,
                        on_peer=person.on_peer,
                        transcript_dir=tmp_path,
                    )

                async def rematch_bob() -> None:
                    second["bob"] = await join_rematch(
                        plugins,
                        first["bob"],
                        listen_host=LOOPBACK,
                        agent=bot_agent(plugins, game, "random", rng),
                        agreement=True,
                        transcript_dir=tmp_path,
                    )

                nursery.start_soon(rematch_host)
                nursery.start_soon(rematch_bob)
                # Every other seat has agreed; the table waits for alice alone.
                while not (rosters and all(rosters[-1].ready[1:]) and all(rosters[-1].names)):
                    await trio.sleep(0.01)
                await trio.sleep(0.3)
                assert len(person.sessions) == 1, "the rematch started before alice agreed"
                assert rosters[-1].ready[0] is False
                agreement.set()
            driver.cancel_scope.cancel()

    game2 = [second["host"][0], second["host"][1], second["bob"]]
    _check(sorted(game2, key=lambda o: o.peer.seat))
    header2 = game2[0].peer.header
    # A fresh table: a new id, the same game, options, timeouts, and the same keys in the same seats.
    assert header2.table != header1.table
    assert [s.keys.ed25519 for s in header2.seats] == [s.keys.ed25519 for s in header1.seats]
    assert [s.name for s in header2.seats] == [s.name for s in header1.seats]
    assert (header2.game, dict(header2.options), header2.timeouts) == (
        header1.game,
        dict(header1.options),
        header1.timeouts,
    )
    assert all(o.peer.header.table == header2.table for o in game2)
    score.add(header2, game2[0].result)
    expected = {s.name: 0 for s in header1.seats}
    for header, outcome in ((header1, game1[0]), (header2, game2[0])):
        assert outcome.result is not None
        for seat in outcome.result.winners:
            expected[header.seats[seat].name] += 1
    assert score.games == 2
    assert score.by_name() == expected
    assert sum(expected.values()) >= 2
    assert score.text().startswith("score after 2 games: ")
    # Each count says "won": a name that ends in a number stays apart from its count.
    assert all(f"{name} won {wins}" in score.text() for name, wins in expected.items()), score.text()


async def first_game(
    plugins: Any,
    game_id: str,
    names: list[str],
    rng: random.Random,
    leaver: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> dict[str, SeatOutcome]:
    """Game 1 (``options``, the game's defaults if None) between peers of their own: ``names[0]``
    hosts, the others join in that order (so that each sits in its place); every seat a random
    bot. Each one's outcome, by name.
    ``leaver``: a joiner played by a person who leaves at the first turn the table asks of
    them, letting a bot finish the seat (peer.Peer.leave_to_bot)."""
    game = plugins.game(game_id)
    person = HumanSeat()
    ids = {name: Identity.generate() for name in names}
    port_box: list[int] = []
    port_known = trio.Event()
    seated = {name: trio.Event() for name in names}
    first: dict[str, SeatOutcome] = {}

    def on_port(port: int) -> None:
        port_box.append(port)
        port_known.set()

    async with trio.open_nursery() as nursery:

        async def run_host() -> None:
            first[names[0]] = (
                await host_table(
                    plugins,
                    ids[names[0]],
                    game_id,
                    options=dict(options or {}),
                    players=len(names),
                    agent=bot_agent(plugins, game, "random", rng),
                    name=names[0],
                    interface=LOOPBACK,
                    port=unused_port(),  # the rematch opens on it again
                    announce=False,
                    on_port=on_port,
                )
            )[0]

        async def run_joiner(index: int) -> None:
            name = names[index]
            await port_known.wait()
            if index > 1:
                await seated[names[index - 1]].wait()
            first[name] = await join_table(
                plugins,
                ids[name],
                LOOPBACK,
                port_box[0],
                name=name,
                agent=(lambda *_: person) if name == leaver else bot_agent(plugins, game, "random", rng),
                listen_host=LOOPBACK,
                on_seated=lambda seat, terms: seated[name].set(),
                on_peer=(lambda peer: nursery.start_soon(leave_to_bot, peer)) if name == leaver else None,
            )

        async def leave_to_bot(peer: Any) -> None:
            while not person.waiting:  # bounded by the caller's fail_after
                await trio.sleep(0.01)
            bot = plugins.bots_for(game_id)["random"](game, peer.seat, peer.header.options, random.Random(5))
            peer.session.leave_to_bot(BotSeat(bot))

        nursery.start_soon(run_host)
        for index in range(1, len(names)):
            nursery.start_soon(run_joiner, index)
    _check(sorted(first.values(), key=lambda o: o.peer.seat))
    assert [first[name].peer.seat for name in names] == list(range(len(names)))
    return first


# Slow tier (this and the next): two games each, ~6 s of crypto; the fast tier plays a rematch
# (test_three_peers_...) and the rematch refused for too few players and by the host.
@pytest.mark.slow
async def test_a_quit_leaves_the_rematch_to_the_others(tmp_path, virtual_clock):
    """carol quits at the end screen (her program had sat down in the rematch's room): alice
    and bob play the rematch without her, a table of two in their order, and both screens say
    who left and who plays."""
    plugins = load_plugins()
    game = plugins.game(GAME)
    rng = random.Random(3)
    with trio.fail_after(120):
        first = await first_game(plugins, GAME, ["alice", "bob", "carol"], rng)

        def bots() -> Any:
            return bot_agent(plugins, game, "random", rng)

        second: dict[str, Any] = {}
        rosters: dict[str, list[Roster]] = {"alice": [], "bob": []}
        async with trio.open_nursery() as nursery:

            async def host_again() -> None:
                agreed = trio.Event()
                agreed.set()
                second["alice"] = await host_rematch(
                    plugins,
                    [first["alice"]],
                    interface=LOOPBACK,
                    agent=bots(),
                    agreement=agreed,
                    on_roster=rosters["alice"].append,
                )

            async def bob_again() -> None:
                second["bob"] = await join_rematch(
                    plugins,
                    first["bob"],
                    listen_host=LOOPBACK,
                    agent=bots(),
                    agreement=True,
                    on_roster=rosters["bob"].append,
                )

            async def carol_quits() -> None:
                with trio.CancelScope() as scope:
                    carol_room = scope

                    def on_roster(roster: Roster) -> None:
                        if all(roster.names):
                            carol_room.cancel()  # she types 'quit' at the end screen

                    await join_rematch(
                        plugins,
                        first["carol"],
                        listen_host=LOOPBACK,
                        agent=bots(),
                        agreement=trio.Event(),  # never agrees
                        on_roster=on_roster,
                    )
                second["carol"] = "quit"

            nursery.start_soon(host_again)
            nursery.start_soon(bob_again)
            nursery.start_soon(carol_quits)

    assert second["carol"] == "quit"
    game2 = [second["alice"][0], second["bob"]]
    _check(game2)
    header1, header2 = first["alice"].peer.header, game2[0].peer.header
    assert header2.table != header1.table
    assert [s.keys for s in header2.seats] == [s.keys for s in header1.seats[:2]]
    assert [o.peer.seat for o in game2] == [0, 1]
    assert all(o.peer.header.table == header2.table for o in game2)
    note = "carol left; the rematch is alice and bob"
    assert rosters["alice"][-1].note == note and rosters["bob"][-1].note == note
    assert rosters["bob"][-1].me == 1 and len(rosters["bob"][-1].names) == 2


@pytest.mark.slow
async def test_a_player_who_left_during_the_game_is_not_waited_for(tmp_path, virtual_clock):
    """carol left during game 1 and let a bot finish her seat; her program ends with the game.
    The rematch is alice's and bob's at once, not a room that waits for carol."""
    plugins = load_plugins()
    game = plugins.game(GAME)
    rng = random.Random(6)
    with trio.fail_after(120):
        first = await first_game(plugins, GAME, ["alice", "bob", "carol"], rng, leaver="carol")
        assert first["alice"].peer.bot_played == {2}
        second: dict[str, Any] = {}
        rosters: list[Roster] = []
        async with trio.open_nursery() as nursery:

            async def host_again() -> None:
                agreed = trio.Event()
                agreed.set()
                second["alice"] = await host_rematch(
                    plugins,
                    [first["alice"]],
                    interface=LOOPBACK,
                    agent=bot_agent(plugins, game, "random", rng),
                    agreement=agreed,
                    on_roster=rosters.append,
                )

            async def bob_again() -> None:
                second["bob"] = await join_rematch(
                    plugins,
                    first["bob"],
                    listen_host=LOOPBACK,
                    agent=bot_agent(plugins, game, "random", rng),
                    agreement=True,
                )

            nursery.start_soon(host_again)
            nursery.start_soon(bob_again)
    game2 = [second["alice"][0], second["bob"]]
    _check(game2)
    header1, header2 = first["alice"].peer.header, game2[0].peer.header
    assert [s.keys for s in header2.seats] == [s.keys for s in header1.seats[:2]]
    assert rosters[-1].note == "carol left during the game; the rematch is alice and bob"


@pytest.mark.slow  # two games of four over loopback TCP, in real time (about 7 s each)
@pytest.mark.parametrize(
    "leaver, dealer, words",
    [
        # bob left: dave, the volunteer, is in seat 2 now (seat 3 is no seat of three).
        ("bob", 2, "bob left during the game; the rematch is alice, carol and dave"),
        # dave, the volunteer, left: the first dealer is drawn by lot.
        (
            "dave",
            -1,
            "dave left during the game; the rematch is alice, bob and carol; first dealer: dave left, now by lot",
        ),
    ],
)
async def test_a_smaller_rematch_gives_an_option_that_names_a_seat_to_its_player(tmp_path, leaver, dealer, words):
    """Cal's BS's first_dealer names the seat that volunteered to deal first (dave's, 3). A
    player leaves during game 1: the rematch of three keeps dave's volunteering in dave's new
    seat, or draws by lot if dave left; the joiners accept that header (lobby.rematch_problem)."""
    plugins = load_plugins()
    if "cals-bs" not in plugins.games:
        pytest.skip("cals-bs is not installed")
    game = plugins.game("cals-bs")
    rng = random.Random(8)
    names = ["alice", "bob", "carol", "dave"]
    with trio.fail_after(180):
        first = await first_game(
            plugins, "cals-bs", names, rng, leaver=leaver, options={"match_target": 1, "first_dealer": 3}
        )
        second: dict[str, Any] = {}
        rosters: list[Roster] = []
        async with trio.open_nursery() as nursery:

            async def host_again() -> None:
                agreed = trio.Event()
                agreed.set()
                second["alice"] = await host_rematch(
                    plugins,
                    [first["alice"]],
                    interface=LOOPBACK,
                    agent=bot_agent(plugins, game, "random", rng),
                    agreement=agreed,
                    on_roster=rosters.append,
                )

            async def join_again(name: str) -> None:
                second[name] = await join_rematch(
                    plugins,
                    first[name],
                    listen_host=LOOPBACK,
                    agent=bot_agent(plugins, game, "random", rng),
                    agreement=True,
                )

            nursery.start_soon(host_again)
            for name in names[1:]:
                if name != leaver:
                    nursery.start_soon(join_again, name)
    game2 = [second["alice"][0]] + [second[name] for name in names[1:] if name != leaver]
    _check(game2)
    header2 = game2[0].peer.header
    assert [s.name for s in header2.seats] == [n for n in names if n != leaver]
    assert header2.options["first_dealer"] == dealer
    assert rosters[-1].note == words


async def test_too_few_left_ends_the_rematch_for_everyone(tmp_path, virtual_clock):
    """Cal's BS needs 3 players: carol quits a rematch of three, and every screen is told
    plainly that there is none."""
    if "cals-bs" not in load_plugins().games:
        pytest.skip("cals-bs is not installed")
    plugins = load_plugins()
    game = plugins.game("cals-bs")
    rng = random.Random(4)
    with trio.fail_after(180):
        # One hand (the rematch is what is tested): a whole match cost 10-25 s of crypto.
        first = await first_game(plugins, "cals-bs", ["alice", "bob", "carol"], rng, options={"match_target": 1})

        def bots() -> Any:
            return bot_agent(plugins, game, "random", rng)

        told: dict[str, str] = {}
        async with trio.open_nursery() as nursery:

            async def host_again() -> None:
                agreed = trio.Event()
                agreed.set()
                with pytest.raises(LobbyError) as caught:
                    await host_rematch(plugins, [first["alice"]], interface=LOOPBACK, agent=bots(), agreement=agreed)
                told["alice"] = str(caught.value)

            async def bob_again() -> None:
                with pytest.raises(LobbyError) as caught:
                    await join_rematch(plugins, first["bob"], listen_host=LOOPBACK, agent=bots(), agreement=True)
                told["bob"] = str(caught.value)

            async def carol_quits() -> None:
                with trio.CancelScope() as scope:
                    carol_room = scope

                    def on_roster(roster: Roster) -> None:
                        if all(roster.names):
                            carol_room.cancel()

                    await join_rematch(
                        plugins,
                        first["carol"],
                        listen_host=LOOPBACK,
                        agent=bots(),
                        agreement=trio.Event(),
                        on_roster=on_roster,
                    )

            nursery.start_soon(host_again)
            nursery.start_soon(bob_again)
            nursery.start_soon(carol_quits)

    plain = "carol left; Cal's BS needs at least 3 players: no rematch"
    assert told == {"alice": plain, "bob": plain}


async def test_the_host_quitting_declines_for_the_joiners(tmp_path, virtual_clock):
    plugins = load_plugins()
    game = plugins.game(GAME)
    rng = random.Random(5)
    alice, bob = Identity.generate(), Identity.generate()
    port_box: list[int] = []
    port_known = trio.Event()
    first: dict[str, Any] = {}

    def on_port(port: int) -> None:
        port_box.append(port)
        port_known.set()

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:

            async def run_host() -> None:
                first["alice"] = await host_table(
                    plugins,
                    alice,
                    GAME,
                    options={},
                    players=2,
                    agent=bot_agent(plugins, game, "random", rng),
                    name="alice",
                    interface=LOOPBACK,
                    port=unused_port(),  # the rematch opens on it again
                    announce=False,
                    on_port=on_port,
                )

            async def run_bob() -> None:
                await port_known.wait()
                first["bob"] = await join_table(
                    plugins,
                    bob,
                    LOOPBACK,
                    port_box[0],
                    name="bob",
                    agent=bot_agent(plugins, game, "random", rng),
                    listen_host=LOOPBACK,
                )

            nursery.start_soon(run_host)
            nursery.start_soon(run_bob)

        told: list[str] = []
        bob_rosters: list[Roster] = []
        times: dict[str, float] = {}
        async with trio.open_nursery() as nursery:

            async def host_leaves() -> None:
                with trio.CancelScope() as scope:
                    room = scope

                    def on_roster(roster: Roster) -> None:
                        if roster.ready[1]:
                            times.setdefault("quit", trio.current_time())
                            room.cancel()  # bob agreed; alice quits instead

                    await host_rematch(
                        plugins,
                        first["alice"],
                        interface=LOOPBACK,
                        agent=bot_agent(plugins, game, "random", rng),
                        agreement=trio.Event(),
                        on_roster=on_roster,
                    )

            async def bob_again() -> None:
                with pytest.raises(LobbyError) as caught:
                    await join_rematch(
                        plugins,
                        first["bob"],
                        listen_host=LOOPBACK,
                        agent=bot_agent(plugins, game, "random", rng),
                        agreement=True,
                        on_roster=bob_rosters.append,
                    )
                times["told"] = trio.current_time()
                told.append(str(caught.value))

            nursery.start_soon(host_leaves)
            nursery.start_soon(bob_again)
    assert told == ["alice (the host) declined the rematch"]
    # Said at once: bob's screen did not look for a smaller room the host never opens (it read
    # "declined" next to "looking for alice's table for a rematch" for five seconds).
    assert times["told"] - times["quit"] < 1.0, times
    assert not [r for r in bob_rosters if r.note], [r.note for r in bob_rosters]


@pytest.mark.slow  # two games in real time, then 2 s of looking for a third
async def test_a_bot_seat_follows_its_table_into_the_rematch(tmp_path):
    """``join --play-as-bot --rematches``: bob's bot seat sits down in alice's rematch room and
    agrees at once, plays it, and stops when no further rematch opens, saying why."""
    from p2pcards.net.rematch import follow_rematches

    plugins = load_plugins()
    game = plugins.game(GAME)
    rng = random.Random(9)
    with trio.fail_after(120):
        first = await first_game(plugins, GAME, ["alice", "bob"], rng)
        followed: list[SeatOutcome] = []
        second: dict[str, Any] = {}
        async with trio.open_nursery() as nursery:

            async def host_again() -> None:
                agreed = trio.Event()
                agreed.set()
                second["alice"] = await host_rematch(
                    plugins,
                    [first["alice"]],
                    interface=LOOPBACK,
                    agent=bot_agent(plugins, game, "random", rng),
                    agreement=agreed,
                )

            async def bob_follows() -> None:
                second["why"] = await follow_rematches(
                    plugins,
                    first["bob"],
                    listen_host=LOOPBACK,
                    agent=bot_agent(plugins, game, "random", rng),
                    on_outcome=followed.append,
                    find_seconds=2,
                )

            nursery.start_soon(host_again)
            nursery.start_soon(bob_follows)
    assert len(followed) == 1
    _check([second["alice"][0], followed[0]])
    assert followed[0].peer.header.table == second["alice"][0].peer.header.table != first["bob"].peer.header.table
    assert second["why"].startswith("no rematch: alice did not open the table again within 2 s"), second["why"]


def test_join_as_a_bot_takes_rematches_when_asked():
    """``join --play-as-bot KIND --rematches`` (cli.cmd_join then calls follow_rematches)."""
    from p2pcards.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["join", "alice", "--play-as-bot", "random", "--rematches"]).rematches is True
    assert parser.parse_args(["join", "alice", "--play-as-bot", "random"]).rematches is False

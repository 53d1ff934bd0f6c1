"""A player who leaves and drops out, where the game's rules allow it (issue 30): at the seat's
next turn its program signs the table's drop-out move, every seat applies it at that turn (its
cards are set aside unseen, its deck keys of the stock published), and the game goes on
without it to its end; every seat's transcript verifies alike and says who dropped out. Real
sockets on 127.0.0.1, no zeroconf."""

import random

import trio

from p2pcards.engine import is_drop_out
from p2pcards.net.runner import bot_agent, host_table, join_table
from p2pcards.plugins import load_plugins
from p2pcards.session import BotSeat, HumanSeat
from p2pcards.table.timeouts import Timeouts
from p2pcards.verify import EXIT_VERIFIED, verify_file
from p2pcards.wire.identity import Identity

LOOPBACK = "127.0.0.1"


async def run_table(tmp_path, leave):
    """A four-seat Cal's BS table: the host's bot and two bots it hosts, and dave, a person
    who never types; ``leave(peer, person)`` is run once the table asks dave for a move."""
    host = load_plugins()
    game = host.game("cals-bs")
    outcomes, joined, events = [], [], []
    person = HumanSeat()

    def watch_host(peer):
        peer.session.subscribe(lambda event: events.append((event.kind, event.text)))

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = trio.Event()
            ports = []

            async def run_host():
                outcomes.extend(
                    await host_table(
                        host,
                        Identity.generate(),
                        "cals-bs",
                        options={"match_target": 1},
                        players=4,
                        agent=bot_agent(host, game, "random", random.Random(1)),
                        name="drop",
                        interface=LOOPBACK,
                        announce=False,
                        bots=2,
                        bot_name="random",
                        timeouts=Timeouts(deck=30, turn=30, grace=60),
                        transcript_dir=tmp_path,
                        on_port=lambda p: (ports.append(p), port.set()),
                        on_peer=watch_host,
                    )
                )

            async def run_joiner():
                await port.wait()
                outcome = await join_table(
                    host,
                    Identity.generate(),
                    LOOPBACK,
                    ports[0],
                    name="dave",
                    agent=lambda game, seat, options: person,
                    listen_host=LOOPBACK,
                    transcript_dir=tmp_path,
                    on_peer=joined.append,
                )
                outcomes.append(outcome)

            async def leave_at_the_first_turn():
                while not person.waiting:
                    await trio.sleep(0.01)
                leave(joined[0], person, host, game)

            nursery.start_soon(run_host)
            nursery.start_soon(run_joiner)
            nursery.start_soon(leave_at_the_first_turn)
    return outcomes, joined[0], events


def _drop_out(peer, person, host, game):
    assert peer.session.leave_to_drop_out is not None
    bot_cls = host.bots_for(game.id)["random"]
    peer.session.leave_to_drop_out(BotSeat(bot_cls(game, peer.seat, peer.header.options, random.Random(3))))


async def test_a_player_who_drops_out_leaves_the_game_to_the_others(tmp_path):
    outcomes, dave, events = await run_table(tmp_path, _drop_out)
    assert len(outcomes) == 4
    for outcome in outcomes:
        assert outcome.aborted is None and outcome.result is not None, outcome.aborted
        assert not outcome.peer.left
    seat = dave.seat
    assert ("dropped", "dave dropped out; dave's cards are set aside unseen") in events
    # dave signed the drop-out move once, and no move after it.
    moves = [e for e in outcomes[0].peer.log.entries(seat) if e.kind == "action"]
    assert is_drop_out(moves[-1].body["action"])
    assert sum(is_drop_out(e.body["action"]) for e in moves) == 1
    # dave's deck seed was never revealed: its set-aside cards stay hidden forever.
    for outcome in outcomes:
        assert outcome.peer.party.seeds[seat] is None
        assert seat in outcome.peer.party.dropped
        assert "dropped out" in outcome.result.summary
    texts = []
    for outcome in outcomes:
        report = verify_file(outcome.transcript)
        assert report.status == EXIT_VERIFIED, report.to_text()
        texts.append(report.to_text())
        assert "dave dropped out" in report.to_text()
    assert len({outcome.transcript.read_bytes() for outcome in outcomes}) == 1  # the same file

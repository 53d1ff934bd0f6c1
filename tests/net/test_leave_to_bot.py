"""A player who leaves and lets a bot finish the seat: the seat's own program keeps it (the deck
lets nobody else hold its hand), a bot plays it from the turn the table is asking for, the
table is told by a signed chat line, and the game ends as any other, verified, at every seat.
Everything on 127.0.0.1, no zeroconf."""

import random

import pytest
import trio

from p2pcards.net.lobby import LobbyError
from p2pcards.net.rematch import host_rematch, join_rematch
from p2pcards.net.runner import bot_agent, host_table, join_table
from p2pcards.plugins import load_plugins
from p2pcards.session import BotSeat, HumanSeat
from p2pcards.table.protocol import LEFT_TO_BOT
from p2pcards.table.timeouts import Timeouts
from p2pcards.testing.loopback import unused_port
from p2pcards.verify import EXIT_VERIFIED, verify_file
from p2pcards.wire.identity import Identity

LOOPBACK = "127.0.0.1"


async def test_a_player_who_leaves_to_a_bot_does_not_end_the_game(tmp_path, virtual_clock):
    host = load_plugins()
    game = host.game("cals-bs")
    outcomes = []
    host_events = []
    shown = []  # how the host's seat list shows dave's seat once it heard
    person = HumanSeat()
    joined = []

    def watch_host(peer):
        def seen(event):
            host_events.append((event.kind, event.text))
            if event.kind == "notice" and "left; a bot plays" in event.text:
                shown.append(peer.session.presence()[event.data["seat"]].state)

        peer.session.subscribe(seen)

    with trio.fail_after(60):
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
                        players=3,
                        agent=bot_agent(host, game, "random", random.Random(1)),
                        name="leave",
                        interface=LOOPBACK,
                        port=unused_port(),  # the rematch opens on it again
                        announce=False,
                        bots=1,
                        bot_name="random",
                        timeouts=Timeouts(deck=20, turn=20, grace=60),
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
                # The person never types: the table asks for dave's move and waits, until
                # dave leaves and the bot answers that very turn.
                while not person.waiting:
                    await trio.sleep(0.01)
                peer = joined[0]
                assert peer.session.leave_to_bot is not None
                bot_cls = host.bots_for(game.id)["random"]
                peer.session.leave_to_bot(BotSeat(bot_cls(game, peer.seat, peer.header.options, random.Random(3))))
                assert peer.session.presence()[peer.seat].state == "bot"

            nursery.start_soon(run_host)
            nursery.start_soon(run_joiner)
            nursery.start_soon(leave_at_the_first_turn)
    assert len(outcomes) == 3
    for outcome in outcomes:
        assert outcome.aborted is None and outcome.result is not None, outcome.aborted
        assert not outcome.peer.left
    dave = joined[0].seat
    assert ("notice", "dave left; a bot plays dave's seat to the end") in host_events
    assert shown == ["bot"]
    assert outcomes[0].peer.bot_played == {dave}
    # The signed chat line is dave's own, and the transcripts are those of a finished game.
    chats = [e.body["text"] for e in outcomes[0].peer.log.entries(dave) if e.kind == "chat"]
    assert chats == [LEFT_TO_BOT]
    for outcome in outcomes:
        report = verify_file(outcome.transcript)
        assert report.status == EXIT_VERIFIED, report.to_text()
        # As the table said it live: a fact in verify's report, never a fault.
        first_bot_move = report.left_to_bot[dave]
        assert set(report.left_to_bot) == {dave} and isinstance(first_bot_move, int), report.left_to_bot
        assert "dave left; a bot plays dave's seat to the end" in report.to_text()
        assert report.to_json()["left_to_bot"] == [{"seat": dave, "name": "dave", "from_turn": first_bot_move}]
    _replay_and_history_say_dave_left(outcomes[0].transcript, dave, first_bot_move, tmp_path)
    # dave's program ends with the game: the rematch does not wait for him. Cal's BS needs 3
    # players, so there is none, said at once (not after the room's ten minutes).
    agreed = trio.Event()
    agreed.set()
    with trio.fail_after(10), pytest.raises(LobbyError) as caught:
        await host_rematch(
            host,
            outcomes[:2],
            interface=LOOPBACK,
            agent=bot_agent(host, game, "random", random.Random(2)),
            agreement=agreed,
        )
    assert str(caught.value) == "dave left during the game; Cal's BS needs at least 3 players: no rematch"
    # The other joiner (the host's bot peer here) knows it too, from dave's own signed word: it
    # says the same at once, not "alice did not open the table again within 30 s" (with a
    # firewall hint) after looking for a table that never opens.
    other = next(o for o in outcomes if o.peer.seat not in (0, dave))
    assert other.peer.bot_played == {dave}
    with trio.fail_after(1), pytest.raises(LobbyError) as caught:
        await join_rematch(
            host, other, listen_host=LOOPBACK, agent=bot_agent(host, game, "random", random.Random(4)), agreement=True
        )
    assert str(caught.value) == "dave left during the game; Cal's BS needs at least 3 players: no rematch"


def _replay_and_history_say_dave_left(path, dave, turn, tmp_path):
    """``p2pcards replay`` says it where it happened (just before the bot's first move of the
    seat), and ``p2pcards history`` says it under the game, in the table's words."""
    from p2pcards.history import History, games_text, record_transcript
    from p2pcards.replay import load_replay

    replay = load_replay(path)
    line = ("notice", "dave left; a bot plays dave's seat to the end")
    at = replay.turn_step(turn)
    assert at is not None
    lines = replay.describe(at, None)
    assert lines[0] == line and lines[1][0] == "action" and lines[1][1].startswith("dave "), lines
    before = replay.log(at - 1, None)
    assert line not in before and replay.log(len(replay.steps) - 1, None).count(line) == 1
    rec, new = record_transcript(path, our_seat=0, home=tmp_path / "home")
    assert new and rec.result["left_to_bot"] == [dave]
    with History.open(tmp_path / "home") as history:
        text = games_text(history.games(5))
    assert "\n    dave left; a bot plays dave's seat to the end" in text, text

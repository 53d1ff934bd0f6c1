"""p2pcards.testing's loopback table (play_loopback, run_loopback): whole tables of peers on
127.0.0.1 with the seats a test gives, and what it reports when a table goes wrong. The examples
of docs/testing.md run in tests/test_testing.py."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from p2pcards.bots import RandomBot
from p2pcards.game import Result
from p2pcards.plugins import load_plugins
from p2pcards.session import BotSeat
from p2pcards.testing import LoopbackFailure, LoopbackTable, load_game, play_loopback, run_loopback


class FirstLegal:
    """An agent of the test's own: the first action the seat may take, counted."""

    def __init__(self) -> None:
        self.turns = 0

    async def choose(self, session, seat):
        self.turns += 1
        return session.legal_actions()[0]


async def test_seats_by_bot_name_class_agent_and_factory(tmp_path, virtual_clock):
    strategic = load_plugins().bots_for("crazy-eights")["strategic"]
    mine = FirstLegal()

    def factory(game, seat, options):
        return BotSeat(RandomBot(game, seat, options, random.Random(seat)))

    names = {}
    table = await play_loopback(
        "crazy-eights",
        4,
        {"hand_size": 5},
        seats=["random", strategic, mine, factory],
        transcript_dir=tmp_path,
        on_peer=lambda peer: names.setdefault(peer.seat, peer.header.seats[peer.seat].name),
    )
    result = table.check()
    assert table.results == [result] * 4 and table.options["hand_size"] == 5
    assert mine.turns > 0
    assert [o.peer.seat for o in table.outcomes] == [0, 1, 2, 3]
    assert [names[seat] for seat in (1, 2, 3)] == ["player 1", "player 2", "player 3"]
    assert [p.parent for p in table.transcripts] == [tmp_path] * 4
    agents = [o.peer.session.seats[o.peer.seat].agent for o in table.outcomes]
    assert [type(getattr(a, "bot", a)) for a in agents] == [RandomBot, strategic, FirstLegal, RandomBot]


def test_a_game_object_that_is_not_installed_plays_with_the_generic_bots():
    installed = load_game("crazy-eights")
    copy = type(installed)()  # the same rules, but not the object its plugin registered
    table = run_loopback(copy, 2, seats="random")
    assert table.check() and table.game == "crazy-eights"
    assert table.transcripts == [None, None]
    with pytest.raises(LookupError, match="no bot 'strategic' for crazy-eights"):
        run_loopback(copy, 2, seats="strategic")


@pytest.mark.parametrize(
    "seats, error, message",
    [
        (["random"] * 3, ValueError, "one per seat \\(2\\), not 3"),
        (FirstLegal(), ValueError, "one agent cannot play every seat"),
        ("genius", LookupError, "no bot 'genius'"),
        (["random", 7], TypeError, "seat 1: 7 is not"),
    ],
)
def test_seats_it_cannot_play_are_refused_before_any_table(seats, error, message):
    with pytest.raises(error, match=message):
        run_loopback("crazy-eights", 2, seats=seats)


def test_a_bot_made_for_a_seat_is_refused():
    game = load_game("crazy-eights")
    bot = RandomBot(game, 0, game.resolve_options({}, 2), random.Random(0))
    with pytest.raises(TypeError, match="give the bot's class, RandomBot"):
        run_loopback(game, 2, seats=[bot, "random"])


def _outcome(result=None, aborted=None, violations=(), transcript=None):
    session = SimpleNamespace(violations=list(violations))
    return SimpleNamespace(
        peer=SimpleNamespace(session=session),
        result=result,
        aborted=SimpleNamespace(reason=aborted) if aborted else None,
        transcript=transcript,
    )


def test_check_names_every_problem(tmp_path: Path):
    won, lost = Result(winners=(0,)), Result(winners=(1,))
    good = LoopbackTable("g", {}, [_outcome(won), _outcome(won)])
    assert good.problems() == [] and good.check() == won
    bad = LoopbackTable("g", {}, [_outcome(won), _outcome(aborted="seat 0 stalled"), _outcome(won, violations=["x"])])
    with pytest.raises(LoopbackFailure, match="seat 1: seat 0 stalled; seat 2: audit found \\['x'\\]"):
        bad.check()
    assert LoopbackTable("g", {}, [_outcome(won), _outcome(lost)]).problems() == ["the seats disagree on the result"]
    (tmp_path / "a").write_bytes(b"one")
    (tmp_path / "b").write_bytes(b"two")
    differ = LoopbackTable(
        "g", {}, [_outcome(won, transcript=tmp_path / "a"), _outcome(won, transcript=tmp_path / "b")]
    )
    assert differ.problems() == ["seat 1's transcript differs from seat 0's"]


@pytest.mark.slow  # a match of several hands
async def test_what_a_peer_holds_beside_the_log_does_not_grow_with_finished_hands(tmp_path, virtual_clock):
    # Issue 23: a peer's memory grew by every entry's bytes and every event. At the start of
    # each hand (every hand but the first ends a finished one) the entries that keep their
    # encoded bytes and the session's events stay under bounds that no match length changes;
    # the transcripts, written from bytes made again, are identical everywhere and verify.
    from p2pcards.session import HISTORY_EVENTS
    from p2pcards.verify import EXIT_VERIFIED, verify_file
    from p2pcards.wire.log import KEEP_ENCODED

    players, kept_at_hands = 3, []

    def sample(peer):
        log = peer.log
        # (Of the entries held decoded: a spilled one read back makes its bytes anew.)
        kept = sum("signed_bytes" in e.__dict__ or "wire_bytes" in e.__dict__ for e in log.in_memory())
        kept_at_hands.append((len(log), kept, len(peer.session.history)))

    def watch(peer):
        if peer.seat == 0:
            peer.session.subscribe(lambda event: sample(peer) if event.kind == "shuffle" else None)

    table = await play_loopback(
        "cals-bs", players, {"match_target": 2}, seed=3, reaction=0.0, transcript_dir=tmp_path, on_peer=watch
    )
    table.check()  # identical transcripts at every seat
    assert len(kept_at_hands) >= 2  # at least two hands: the first ended before the second
    sample(table.outcomes[0].peer)  # and the end of the match
    entries, kept, _ = kept_at_hands[-1]
    assert entries > players * KEEP_ENCODED and kept < entries  # the bound bites
    for _entries, kept, events in kept_at_hands:
        assert kept <= players * KEEP_ENCODED and events <= HISTORY_EVENTS
    assert verify_file(table.transcripts[0]).status == EXIT_VERIFIED

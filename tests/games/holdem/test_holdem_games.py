"""Whole Hold'em matches: check_game for every variant and table size, the game's own bots,
a match on the mental-poker deck in one process (folded and mucked hands never opened), and
one table of peers over TCP on 127.0.0.1 whose transcripts verify."""

from __future__ import annotations

import re

import pytest

from p2pcards.dealer import LocalDealer
from p2pcards.engine import play, seeded_rng
from p2pcards.game import Reveal
from p2pcards.plugins import load_plugins
from p2pcards.testing import check_game, run_loopback

from .holdem_table import the_game


def test_the_game_and_its_bots_are_installed():
    host = load_plugins()
    assert "holdem" in host.games
    assert {"random", "strategic", "calling"} <= set(host.bots_for("holdem"))


def test_the_core_does_not_import_pokerkit():
    import subprocess
    import sys

    code = "import sys, p2pcards.cli, p2pcards.engine; sys.exit('pokerkit' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], timeout=60).returncode == 0


def test_whole_matches_pass_every_check():
    checks = check_game("holdem", games=2)
    assert {c.players for c in checks} == set(range(2, 10))
    assert all(c.record.result.winners for c in checks)


# Six seats is the slowest (2 s of CPU: the longest matches); the fast tier keeps 2, 3 and 9.
@pytest.mark.parametrize("players", [2, 3, pytest.param(6, marks=pytest.mark.slow), 9])
def test_whole_matches_with_the_games_bots(players):
    bots = (["strategic", "calling", "random"] * 3)[:players]
    for check in check_game("holdem", players=players, bots=bots, variants=["fifty-hands"], games=1):
        result = check.record.result
        assert result.winners and sum(result.scores) == 1500 * players


def _record(players, options, seed, deck=None, names=None):
    game = the_game()
    resolved = game.resolve_options(options, players)
    available = load_plugins().bots_for("holdem")
    names = names or (["strategic", "random"] * 5)[:players]
    bots = [available[n](game, s, resolved, seeded_rng(seed, "bot", s)) for s, n in enumerate(names)]
    if deck is None:
        deck = LocalDealer(game.deck(resolved, players), players, seeded_rng(seed, "deck"))
    return play(game, resolved, players, deck, bots)


class Watched(type(the_game())):  # type: ignore[misc]
    """The game's rules, with every hole-card reveal the game asks for checked as it is asked."""

    opened: list[tuple[int, int]] = []  # (hand, seat) of every hand asked to be opened

    def next_step(self, state):
        step = super().next_step(state)
        if isinstance(step, Reveal) and step.owner is not None:
            seat = step.owner
            assert seat not in state.folded and seat not in state.mucked, "a folded or mucked hand opened"
            assert set(step.handles) == set(state.hole[seat])
            assert state.tabled or state.phase == "showdown"
            self.opened.append((state.hand, seat))
        return step


def test_folded_and_mucked_hands_are_never_asked_for():
    game = Watched()
    Watched.opened = []
    kinds: dict[str, int] = {}
    for seed in range(4):  # (10 took 11 s of the fast tier; 4 still make every kind of move)
        resolved = game.resolve_options({"hand_limit": 25}, 4)
        deck = LocalDealer(game.deck(resolved, 4), 4, seeded_rng(seed, "deck"))
        available = load_plugins().bots_for("holdem")
        names = ["strategic", "strategic", "calling", "random"]
        bots = [available[n](game, s, resolved, seeded_rng(seed, "bot", s)) for s, n in enumerate(names)]
        record = play(game, resolved, 4, deck, bots)
        assert record.violations == []
        for _, action in record.actions:
            kinds[action["type"]] = kinds.get(action["type"], 0) + 1
    assert {"fold", "check", "call", "bet", "raise", "all-in", "show", "muck"} <= set(kinds)
    assert Watched.opened  # some hands were shown


def test_a_match_on_the_mental_poker_deck():
    backend = pytest.importorskip("p2pcards.deck.backend")
    game = Watched()
    Watched.opened = []
    options = game.resolve_options({"hand_limit": 6}, 3)
    deck = backend.mental_poker_factory(seed="holdem-3")(game, options, 3, 0)
    available = load_plugins().bots_for("holdem")
    bots = [
        available[n](game, s, options, seeded_rng(1, "bot", s))
        for s, n in enumerate(["strategic", "calling", "random"])
    ]
    record = play(game, options, 3, deck, bots)
    assert record.result.winners and record.violations == []
    assert sum(record.result.scores) == 4500 and record.result.details["hands"] <= 6


@pytest.mark.slow  # a whole table of peers: seconds of crypto
def test_one_table_over_loopback_verifies(tmp_path):
    from p2pcards.verify import EXIT_VERIFIED, verify_file

    table = run_loopback(
        "holdem", 3, {"hand_limit": 4}, seats=["strategic", "calling", "random"], seed=2, transcript_dir=tmp_path
    )
    result = table.check()
    assert result.winners and result.details["hands"] <= 4
    transcript = table.transcripts[0]
    assert transcript is not None
    report = verify_file(transcript)
    assert report.status == EXIT_VERIFIED, report.problem
    assert report.result == result
    # The replay reads the match by name, hand by hand.
    from p2pcards.cli import main
    from p2pcards.console.replay import print_replay
    from p2pcards.replay import load_replay

    replay = load_replay(transcript)
    text = print_replay(replay, 0)
    assert "hand 1: " in text and "posts" in text and (" wins " in text), text[-2000:]
    # Whose cards a reveal opened, by name (not "revealed: 2♦ 4♣"), and the board once, by street.
    lines = text.splitlines()
    assert not [line for line in lines if line.startswith(("revealed:", "turned face up from the stock"))]
    assert any(line.startswith("the flop: ") for line in lines), text[-2000:]
    names = replay.names
    shown = [line for line in lines if re.fullmatch(rf"({'|'.join(map(re.escape, names))}) shows \S+ \S+", line)]
    assert shown, text[-3000:]
    assert main(["replay", "--print", str(transcript)]) == EXIT_VERIFIED


@pytest.mark.parametrize(
    "options",
    [
        {"starting_stack": 40, "small_blind": 7, "big_blind": 13},  # short stacks, odd chips
        {"starting_stack": 100, "small_blind": 3, "big_blind": 5, "blinds_up_every": 2},
    ],
)
def test_short_stacks_and_odd_blinds_keep_every_chip(options):
    # All-in blinds, all-ins of every size and odd splits, 2-9 players: every check passes and
    # no chip is made or lost.
    for check in check_game("holdem", games=4, variants=[None], options=options, seed=9):
        assert sum(check.record.result.scores) == options["starting_stack"] * check.players

"""Bots worth playing (issue 30): each game's strategic bot wins more than its share against
the game's honest script and against random bots; the scripts play as documented; and
``p2pcards bench-bots`` prints the table of win rates.

The figures themselves (200 games a row) are in docs/performance.md; these tests ask a weaker
form on fewer games with fixed seeds, so that they stay quick and do not depend on luck."""

from __future__ import annotations

import json

import pytest

from p2pcards.bench_bots import CASES, bench_one
from p2pcards.cli import main
from p2pcards.dealer import LocalDealer
from p2pcards.engine import play, seeded_rng
from p2pcards.plugins import load_plugins


def case(game_id):
    return next(c for c in CASES if c.game == game_id)


def test_each_game_has_its_script_bot():
    host = load_plugins()
    for c in CASES:
        assert {"strategic", "random", c.script} <= set(host.bots_for(c.game))


def test_the_truthful_script_never_lies_and_never_doubts():
    host = load_plugins()
    game = host.game("cals-bs")
    bots = host.bots_for("cals-bs")
    names = ["truthful", "strategic", "truthful", "random"]
    for seed in range(3):
        options = game.resolve_options({"quads": seed == 2}, 4)
        seats = [bots[n](game, s, options, seeded_rng(seed, "bot", s)) for s, n in enumerate(names)]
        deck = LocalDealer(game.deck(options, 4), 4, seeded_rng(seed, "deck"))
        record = play(game, options, 4, deck, seats)
        assert record.violations == [] and record.result.winners
        mine = [action for seat, action in record.actions if names[seat] == "truthful"]
        assert all(a["type"] != "doubt" for a in mine)
        placed = [a for a in mine if a["type"] == "play"]
        assert placed and all("plus" not in a for a in placed)
        for action in placed:
            faces = [record.faces[h] for h in action["cards"]]
            assert all(f.is_joker or f.rank.symbol == action["rank"] for f in faces), action


def test_bench_bots_prints_one_row_per_game_and_opponent(capsys):
    assert main(["bench-bots", "--games", "3", "--game", "cals-bs", "--game", "crazy-eights", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["game"], r["opponent"]) for r in rows] == [
        ("cals-bs", "truthful"),
        ("cals-bs", "random"),
        ("crazy-eights", "simple"),
        ("crazy-eights", "random"),
    ]
    assert all(r["games"] == 3 and 0 <= r["wins"] <= 3 for r in rows)
    assert main(["bench-bots", "--games", "2", "--game", "crazy-eights", "--opponent", "random"]) == 0
    out = capsys.readouterr().out
    assert "crazy-eights" in out and "random" in out and "fair share" in out


@pytest.mark.slow  # about 30 s: a few hundred whole games
@pytest.mark.parametrize(
    "game_id, opponent, games, floor",
    [
        ("cals-bs", "truthful", 40, 0.5),  # a fair share is 1 in 4
        ("cals-bs", "random", 40, 0.5),
        ("calypso", "simple", 24, 0.4),  # solo: 1 in 4
        ("calypso", "random", 24, 0.4),
        ("crazy-eights", "simple", 150, 1 / 3),  # 1 in 3; the figure over 200 games is about 0.4
        ("crazy-eights", "random", 60, 0.5),
        ("holdem", "calling", 24, 0.5),  # 1 in 3; 85.0% over 200 matches of at most 30 hands
        ("holdem", "random", 24, 0.4),  # 69.5% over 200
    ],
)
def test_the_strategic_bot_wins_more_than_its_share(game_id, opponent, games, floor):
    row = bench_one(load_plugins(), case(game_id), opponent, games, seed="test")
    assert row.games == games
    assert row.rate > floor, row.to_json()

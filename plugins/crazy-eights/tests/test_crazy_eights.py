"""The plugin's own tests: it loads through its entry point and plays whole games."""

import random

import pytest

from p2pcards.dealer import LocalDealer
from p2pcards.engine import play
from p2pcards.game import IllegalAction
from p2pcards.plugins import load_plugins


def test_the_game_and_its_bot_are_installed():
    host = load_plugins()
    assert "crazy-eights" in host.games
    assert {"random", "strategic"} <= set(host.bots_for("crazy-eights"))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("draw_until_playable", [True, False])
def test_whole_games_between_bots(players, draw_until_playable):
    host = load_plugins()
    game = host.game("crazy-eights")
    options = game.resolve_options({"draw_until_playable": draw_until_playable}, players)
    bots = host.bots_for("crazy-eights")
    for seed in range(5):
        seats = [bots["strategic" if seat == 0 else "random"](game, seat, options, random.Random(seed))
                 for seat in range(players)]
        deck = LocalDealer(game.deck(options, players), players, random.Random(seed))
        record = play(game, options, players, deck, seats)
        assert record.result.winners
        assert record.violations == []


def test_parse_refuses_a_card_you_do_not_hold():
    game = load_plugins().game("crazy-eights")
    state = game.new_state(game.resolve_options({}, 2), 2)
    with pytest.raises(IllegalAction):
        game.parse_action(state, 0, "play 9h", {})

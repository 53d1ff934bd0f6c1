"""The plugin's own tests: it loads through its entry point, passes p2pcards' checks in whole
games between bots, and plays scenarios from stated hands."""

import pytest

from p2pcards.game import IllegalAction
from p2pcards.plugins import load_plugins
from p2pcards.testing import ScenarioTable, check_game


def test_the_game_and_its_bot_are_installed():
    host = load_plugins()
    assert "crazy-eights" in host.games
    assert {"random", "strategic"} <= set(host.bots_for("crazy-eights"))


def test_whole_games_pass_every_check():
    check_game("crazy-eights", games=3)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_whole_games_with_the_strategic_bot(players):
    bots = ["strategic"] + ["random"] * (players - 1)
    for check in check_game("crazy-eights", players=players, bots=bots):
        assert check.record.result.winners


def two_players(**options):
    """Seat 1 deals, so seat 0 plays first on the 9h; the stock starts with 2c."""
    return ScenarioTable("crazy-eights", 2, {"hand_size": 3, **options},
                         hands={0: "9s 8d Kh", 1: "2h 5c Qs"}, then="9h 2c", coins={"dealer": 1})


def test_an_eight_names_the_suit_to_follow():
    table = two_players()
    table.act(0, "play 8d suit clubs")
    assert table.legal(1) == ["draw", "play 5c"]
    with pytest.raises(IllegalAction, match="matches neither"):
        table.act(1, "play 2h")


def test_going_out_wins_the_others_cards():
    table = ScenarioTable("crazy-eights", 2, {"hand_size": 1}, hands={0: "9s", 1: "8h"}, then="9h",
                          coins={"dealer": 1})
    table.act(0, "play 9s")
    assert table.result.winners == (0,) and table.result.scores == (50.0, 0.0)
    assert table.violations == []


def test_parse_refuses_a_card_you_do_not_hold():
    table = two_players()
    with pytest.raises(IllegalAction):
        table.parse(0, "play 9h")

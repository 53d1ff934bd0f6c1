"""The public scoring function: a finished game scored from counts (rules.md II.28-30)."""

import pytest
from p2pcards_calypso import PlayerCounts, score_deal

from .calypso_table import Table


def test_each_player_scores_calypsos_cards_in_progress_and_pile_less_revokes():
    counts = [
        PlayerCounts(calypsos=2, in_progress=2, pile=3),
        PlayerCounts(in_progress=13 - 1, revokes=1),
        PlayerCounts(calypsos=4),
        PlayerCounts(),
    ]
    result = score_deal(counts)
    assert result.scores == (1250 + 40 + 30, 240 - 260, 3250, 0)
    assert result.details["players"]["1"] == {"calypsos": 0, "in_progress": 12, "pile": 0, "penalty": 260, "total": -20}


def test_partnership_sides_add_up_and_the_higher_side_wins():
    counts = [PlayerCounts(calypsos=1), PlayerCounts(pile=30), PlayerCounts(in_progress=5), PlayerCounts(pile=2)]
    result = score_deal(counts, sides=[[2, 0], [3, 1]])
    assert result.winners == (0, 2)
    assert result.details["sides"] == [{"seats": [0, 2], "total": 600}, {"seats": [1, 3], "total": 320}]
    assert result.details["difference"] == 280
    assert result.summary == "seats 0 and 2 win 600 to 320 (by 280)"


def test_equal_sides_are_a_draw():
    result = score_deal([PlayerCounts(pile=1)] * 4, sides=[[0, 2], [1, 3]])
    assert result.winners == () and result.summary == "a draw at 20 each"


@pytest.mark.parametrize("sides", [[[0, 1]], [[0, 1], [1, 2]], [[0, 2], [1, 4]]])
def test_sides_must_split_the_seats_in_two(sides):
    with pytest.raises(ValueError, match="sides"):
        score_deal([PlayerCounts()] * 4, sides=sides)


def test_each_for_themselves_ranking_differences_and_shared_top():
    result = score_deal([PlayerCounts(pile=5), PlayerCounts(pile=9), PlayerCounts(pile=9)])
    assert result.details["ranking"] == [1, 2, 0]
    assert result.details["differences"] == {"0-1": -40, "0-2": -40, "1-2": 0}
    assert result.winners == (1, 2)
    assert score_deal([PlayerCounts(pile=3)] * 3).winners == ()  # everyone equal: a draw


@pytest.mark.parametrize("mode", ["partnership", "solo", "three"])
def test_the_game_scores_its_result_with_score_deal(mode):
    t = Table(mode=mode)
    result = t.play_out().result
    counts = [PlayerCounts.of(t.state.tableaux[s]) for s in range(t.players)]
    sides = sorted({t.state.side(s) for s in range(4)}) if mode == "partnership" else None
    scored = score_deal(counts, sides)
    assert (scored.winners, scored.scores, scored.summary) == (result.winners, result.scores, result.summary)
    for seat, numbers in scored.details["players"].items():
        assert result.details["players"][seat] == {"trump": t.state.trump[int(seat)].value, **numbers}


def test_the_example_in_the_docs():
    counts = [
        PlayerCounts(calypsos=1, in_progress=4, pile=20),
        PlayerCounts(pile=31),
        PlayerCounts(in_progress=9, revokes=1),
        PlayerCounts(pile=12),
    ]
    result = score_deal(counts, sides=[[0, 2], [1, 3]])
    assert result.scores == (780.0, 310.0, -80.0, 120.0)
    assert result.winners == (0, 2) and result.summary == "seats 0 and 2 win 700 to 430 (by 270)"

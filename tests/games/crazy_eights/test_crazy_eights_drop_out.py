"""A player drops out of Crazy Eights (issue 30; docs/games/crazy-eights.md, "A player drops
out"): allowed while two others still play; the hand is set aside unseen and does not score."""

from __future__ import annotations

import random

import pytest

from p2pcards.game import IllegalAction, Reveal

from .eights_table import Table, the_game


def three() -> Table:
    return Table({0: "9s 3d Kh", 1: "2h 5c Qs", 2: "3h 4d 5d"}, starter="9h", stock="Ah 7c 2s")


def test_two_players_cannot_drop_to_one():
    t = Table({0: "9s 3d Kh", 1: "2h 5c Qs"}, starter="9h")
    with pytest.raises(IllegalAction, match="at least 2 others"):
        t.drop_out(1)


def test_the_hand_is_set_aside_and_the_turns_skip_it():
    t = three()
    held = list(t.state.hands[1])
    t.drop_out(1)
    assert t.state.out == [1] and t.state.hands[1] == []
    t.act(0, "play 9s")
    assert t.turn == 2
    t.act(2, "draw")
    assert t.turn == 2  # draws until it can play
    assert not any(set(step.handles) & set(held) for step in t.steps if isinstance(step, Reveal))
    assert "player 1 dropped out; 3 cards set aside unseen" in t.story()
    assert t.view(None)["seats"][1]["dropped out"] is True


def test_the_player_to_act_drops_out_and_the_next_one_plays():
    t = three()
    assert t.turn == 0
    t.drop_out(0)
    assert t.turn == 1


def test_a_dropped_hand_does_not_score_and_is_never_shown():
    t = Table({0: "9s", 1: "2h", 2: "3h"}, starter="9h", stock="Ah 7c 2s")
    held = list(t.state.hands[2])
    t.drop_out(2)
    t.act(0, "play 9s")  # seat 0 goes out
    assert t.done and t.result.winners == (0,)
    assert t.result.details["out"] == [2]
    assert t.result.details["penalties"] == [0, 2, 0]
    assert t.result.scores == (2.0, 0.0, 0.0)  # seat 1's 2h only: the set-aside 3h counts for nobody
    assert "seat 2 dropped out" in t.result.summary
    shown = {h for step in t.steps if isinstance(step, Reveal) for h in step.handles}
    assert not shown & set(held)
    assert "player 0 goes out with 9s" in t.story()


def test_not_while_a_card_is_played_or_after_the_end():
    t = Table({0: "9s", 1: "2h", 2: "3h"}, starter="9h")
    t.act(0, "play 9s")
    assert t.done
    assert "while the hand is being played" in the_game().drop_out_refusal(t.state, 1)


def test_bots_play_to_the_end_after_a_drop_out():
    t = Table({0: "9s 3d Kh", 1: "2h 5c Qs", 2: "3h 4d 5d", 3: "6h 6d 6s"}, starter="9h")
    t.drop_out(2)
    record = t.play_out(rng=random.Random(5))
    assert 2 not in record.result.winners and record.violations == []


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_strategic_bots_play_on_after_a_drop_out(seed):
    from p2pcards_crazy_eights.bots import StrategicBot

    t = Table({0: "9s 3d Kh", 1: "2h 5c Qs", 2: "3h 4d 5d", 3: "6h 6d 6s"}, starter="9h")
    t.drop_out(0)
    record = t.play_out([StrategicBot] * 4, rng=random.Random(seed))
    assert 0 not in record.result.winners and record.violations == []


def test_the_strategic_bots_look_ahead_leaves_out_a_seat_that_dropped_out():
    """In its play-outs a seat that dropped out has no hand, draws nothing and never wins, and
    the stock is the stock's size (the set-aside cards are in neither)."""
    from p2pcards_crazy_eights.bots import rollout

    # Seat 1 dropped out with an empty hand: it never draws the stock's 7 to go out with it.
    hands = [[(1, 9), (3, 10)], [], [(1, 4), (0, 2)]]
    assert rollout(hands, [(1, 7)], 5, 1, 0, True, out=[1]) == 0
    # Blocked with an empty stock: the lowest hand among the seats still playing wins.
    hands = [[(3, 2), (3, 3)], [], [(2, 4), (2, 6), (2, 7)]]
    assert rollout(hands, [], 9, 0, 0, True, out=[1]) == 0

"""A player drops out of Cal's BS (issue 30; docs/games/cals-bs.md, "A player drops out"): when
the rules allow it, what happens to the cards, the turn order, the next deal and the result."""

from __future__ import annotations

import random

import pytest

from p2pcards.game import Deal, IllegalAction, Transfer

from .bs_table import Table, the_game


def test_three_players_cannot_drop_to_two():
    t = Table(3, {0: "5h"})
    refusal = the_game().drop_out_refusal(t.state, 1)
    assert refusal is not None and "at least 3 others" in refusal
    with pytest.raises(IllegalAction, match="at least 3"):
        t.drop_out(1)
    assert t.state.out == [] and len(t.state.hands[1]) == 18


def test_a_dropped_hand_is_set_aside_and_the_turns_skip_it():
    t = Table(4, {0: "5h Kh", 1: "5s"})
    held = list(t.state.hands[2])
    t.drop_out(2)
    assert t.state.out == [2] and t.state.hands[2] == [] and t.state.set_aside == held
    assert t.state.playing == 3
    t.act(0, "play 5h as 5")
    assert t.turn == 1
    t.act(1, "pass")
    assert t.turn == 3  # seat 2 is skipped
    t.act(3, "pass")
    # Everyone still playing passed: the placer leads again (two passes, not three).
    assert t.turn == 0 and t.state.must_lead
    assert "player 2 dropped out; 13 cards set aside unseen" in t.story()
    assert t.view(None)["seats"][2]["dropped out"] is True
    # No step of the game ever opens or moves a set-aside card.
    assert not any(set(h) & set(held) for h, _ in t.reveals)
    assert not any(set(tr.handles) & set(held) for tr in t.transfers)


def test_not_while_a_set_of_ones_own_is_on_the_pile():
    t = Table(4, {0: "5h", 1: "5s"})
    t.act(0, "play 5h as 5")
    with pytest.raises(IllegalAction, match="a set of yours is on the pile"):
        t.drop_out(0)
    t.act(1, "doubt")  # the pile goes to seat 1 (5h was true): seat 0 may go now
    t.drop_out(0)
    assert t.state.out == [0] and t.turn == 1  # seat 0 was to lead; its left leads instead


def test_the_last_follower_who_had_not_passed_drops_out():
    t = Table(4, {0: "5h Kh"})
    t.act(0, "play 5h as 5")
    t.act(1, "pass")
    t.act(2, "pass")
    assert t.turn == 3
    t.drop_out(3)
    assert t.turn == 0 and t.state.must_lead  # everyone else still playing had passed


def test_a_follower_who_had_passed_drops_out():
    t = Table(5, {0: "5h Kh"})
    t.act(0, "play 5h as 5")
    t.act(1, "pass")
    t.drop_out(1)  # its pass no longer counts
    assert t.state.passes == 0 and t.turn == 2
    for seat in (2, 3):
        t.act(seat, "pass")
    assert t.turn == 4
    t.act(4, "pass")
    assert t.turn == 0 and t.state.must_lead


def test_the_next_hand_deals_every_card_to_the_players_left():
    t = Table(4, {0: "5h"}, match_target=2)
    t.drop_out(1)
    t.keep_only(0, "5h")
    t.act(0, "play 5h as 5")  # seat 0 goes out face up: hand 1 is its
    assert t.state.scores == [1, 0, 0, 0] and t.state.hand_number == 2
    deal = [s for s in t.log if isinstance(s, Deal)][-1]
    assert sorted(set(deal.to.values())) == [0, 2, 3]
    assert sorted(len(h) for h in t.state.hands) == [0, 18, 18, 18]
    # The deal passed left from seat 3 (the first dealer), skipping seat 1: seat 0 deals.
    assert t.state.dealer == 0 and t.turn == 2


def test_a_dropped_seat_cannot_win_and_ranks_below_the_others():
    game = the_game()
    t = Table(4, {0: "5h"}, match_target=1)
    t.drop_out(3)
    t.keep_only(0, "5h")
    t.act(0, "play 5h as 5")
    assert t.done and t.result.winners == (0,)
    assert t.result.details["out"] == [3]
    assert "seat 3 dropped out" in t.result.summary
    assert "seat 3 won 0 (dropped out)" in game.result_text(t.result)


def test_free_order_only_while_the_table_is_open():
    t = Table(4, {0: "5h Kh"}, turn_mode="free")
    t.act(0, "play 5h as 5")
    with pytest.raises(IllegalAction, match="free order"):
        t.drop_out(2)
    assert "on the pile" in the_game().drop_out_refusal(t.state, 0)


def test_no_drop_while_cards_are_turned_up_or_after_the_game():
    t = Table(4, {0: "5h"}, match_target=1)
    t.keep_only(0, "5h")
    t.act(0, "play 5h as 5")
    assert t.done
    assert "while a hand is being played" in the_game().drop_out_refusal(t.state, 1)


def test_bots_play_a_match_to_its_end_after_two_drop_outs():
    t = Table(5, {0: "5h"}, match_target=2)
    t.drop_out(4)
    t.drop_out(1)
    with pytest.raises(IllegalAction, match="at least 3"):
        t.drop_out(2)
    record = t.play_out(rng=random.Random(3))
    assert record.result.winners[0] in (0, 2, 3)
    assert record.violations == []
    for tr in t.transfers:
        assert tr.to not in (1, 4)
    assert not any(isinstance(s, Transfer) and s.to in (1, 4) for s in t.log)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_strategic_bots_play_on_after_a_drop_out(seed):
    from p2pcards_cals_bs.bots import StrategicBot

    t = Table(5, {0: "5h"}, match_target=2, quads="on")
    t.drop_out(3)
    record = t.play_out([StrategicBot] * 5, rng=random.Random(seed))
    assert 3 not in record.result.winners and record.violations == []


def test_the_strategic_bot_counts_a_set_aside_hand_among_the_cards_it_cannot_place():
    """The set-aside cards are in no hand and on no pile, and nobody saw them: the bot's odds
    draw from them too (a pool without them can hold fewer cards than the rank's unseen
    good ones, which the hypergeometric cannot take), and a seat that dropped out is nobody
    who could doubt its sets."""
    from p2pcards_cals_bs.bots import StrategicBot, at_least

    assert at_least(3, 5, 3, 2) == 1.0  # more good cards than the pool: every draw is good
    t = Table(5, {0: "5h"})
    t.drop_out(3)
    bot = StrategicBot(the_game(), 0, t.options, random.Random(1))
    held = sum(len(h) for h in t.state.hands) + sum(len(p.handles) for p in t.state.pile)
    assert bot._unknown_pool(t.state) == held - len(bot.seen) + len(t.state.set_aside) > held - len(bot.seen)
    bot.doubts[3][0][0] = 1000.0  # were seat 3 still at the table, it would doubt every set
    assert bot._doubt_risk(t.state, 1) < 0.9

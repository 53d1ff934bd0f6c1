"""One scenario test per ambiguity resolution Q-BS-1 to Q-BS-22 of shared/rules.md Part I.b."""

from __future__ import annotations

import pytest
from p2pcards_cals_bs import timeout_action
from p2pcards_cals_bs.rules import plus_rank

from p2pcards.cards import Rank
from p2pcards.game import Done, IllegalAction, OptionError

from .bs_table import Table, the_game


def test_q_bs_01_clockwise_turns_not_arbitrary_order():
    t = Table(5, {0: "5h"})
    t.act(0, "play 5h as 5")
    order = []
    for _ in range(4):
        order.append(t.turn)
        with pytest.raises(IllegalAction, match="turn"):
            t.game.check(t.state, (t.turn + 1) % 5, {"type": "pass"})  # nobody out of turn
        t.act(t.turn, "pass")
    assert order == [1, 2, 3, 4]
    with pytest.raises(OptionError):
        the_game().resolve_options({"turn_mode": "realtime"}, 5)


def test_q_bs_02_follower_count_may_differ_from_the_leaders():
    t = Table(3, {0: "5h 5s 5d", 1: "5c"})
    t.act(0, "play 5h 5s 5d as 5")
    t.act(1, "play 5c")
    assert [len(p.handles) for p in t.state.pile] == [3, 1]


def test_q_bs_03_the_count_is_always_true():
    t = Table(3, {0: "5h 5s"})
    action = t.parse(0, "play 5h 5s as 5")
    assert set(action) == {"type", "cards", "rank"}  # no count to lie about
    t.act(0, "play 5h 5s as 5")
    assert t.view(None)["pile"][0]["count"] == 2


def test_q_bs_04_last_placer_re_leads_even_if_not_the_leader():
    t = Table(4, {0: "5h", 2: "5s 8d"})
    t.act(0, "play 5h as 5")
    t.act(1, "pass")
    t.act(2, "play 5s")
    for seat in (3, 0, 1):
        t.act(seat, "pass")
    assert t.turn == 2 and t.state.must_lead
    t.act(2, "play 8d as 8")  # may change the rank; the pile stays
    assert len(t.state.pile) == 3 and t.state.current_rank == Rank.EIGHT


def test_q_bs_05_the_one_who_is_right_leads():
    t = Table(3, {0: "5h", 1: "2c"})
    t.act(0, "play 5h as 5")
    t.act(1, "doubt")  # wrong
    assert t.turn == 0
    t = Table(3, {0: "4h", 1: "2c"})
    t.act(0, "play 4h as 5")
    t.act(1, "doubt")  # right
    assert t.turn == 1


def test_q_bs_06_a_doubt_checks_only_the_top_set():
    t = Table(3, {0: "2h", 1: "5s"})
    t.act(0, "play 2h as 5")  # a lie, lower in the pile
    t.act(1, "play 5s")  # true, on top
    t.act(2, "doubt")
    assert t.turn == 1 and len(t.state.hands[2]) == 18 + 2  # judged on the top set only


def test_q_bs_07_doubt_a_set_with_passes_in_between():
    t = Table(4, {0: "2h"})
    t.act(0, "play 2h as 5")
    t.act(1, "pass")
    t.act(2, "pass")
    t.act(3, "doubt")  # seat 0's set, two passes back
    assert t.turn == 3 and len(t.state.hands[0]) == 14


def test_q_bs_08_jokers_wild_never_declared_six_is_the_most_truthful():
    t = Table(3, {0: "Kh Ks Kd Kc JK JK"})
    with pytest.raises(IllegalAction):
        t.act(0, "play JK as joker")
    t.act(0, "play Kh Ks Kd Kc JK JK as K")  # "6 kings are 4 kings and 2 jokers"
    t.act(1, "doubt")
    assert t.turn == 0 and len(t.state.hands[1]) == 24


def test_q_bs_09_going_out_on_a_lie():
    t = Table(3, {0: "5h", 1: "9s"})
    t.act(0, "play 5h as 5")
    t.keep_only(1, "9s")
    with pytest.raises(IllegalAction):
        t.act(1, "play 9s")  # default: illegal
    t = Table(3, {0: "5h", 1: "9s"}, going_out="challengeable")
    t.act(0, "play 5h as 5")
    t.keep_only(1, "9s")
    t.act(1, "play 9s")  # the option: allowed, and open to a doubt
    assert t.state.provisional == 1


def test_q_bs_10_lead_player_cannot_go_out_with_mixed_cards():
    t = Table(3, {0: "3h 4h"})
    t.keep_only(0, "3h 4h")
    with pytest.raises(IllegalAction):
        t.act(0, "play 3h 4h as 3")
    t.act(0, "play 4h as 4")
    assert len(t.state.hands[0]) == 1


def test_q_bs_11_uneven_deal_extra_cards_from_the_dealers_left():
    t = Table(4, dealer=1)
    assert [len(h) for h in t.state.hands] == [13, 13, 14, 14]
    t = Table(7, dealer=3)
    assert [len(t.state.hands[(3 + 1 + i) % 7]) for i in range(7)] == [8, 8, 8, 8, 8, 7, 7]


def test_q_bs_12_a_passed_player_may_act_again():
    t = Table(3, {0: "5h", 1: "5s"})
    t.act(0, "play 5h as 5")
    t.act(1, "pass")
    t.act(2, "pass")  # the placer must now lead again
    t.act(0, f"play {t.hand(0)[0]} as 6")
    t.act(1, "doubt")  # seat 1 passed in this cycle and now doubts
    assert t.reveals


def test_q_bs_13_doubts_cannot_collide_the_next_in_turn_decides():
    # Clockwise turns: the first doubter after the placer (nearest to its left) is the only one.
    t = Table(4, {0: "2h"})
    t.act(0, "play 2h as 5")
    t.act(1, "doubt")
    assert t.state.must_lead and t.turn == 1  # seat 2 and 3 never got to doubt this set


def test_q_bs_14_match_score_is_hand_wins():
    t = Table(3, {0: "7h"}, {1: "8h"}, match_target=2)
    t.keep_only(0, "7h")
    t.act(0, "play 7h as 7")
    assert t.state.scores == [1, 0, 0]
    t.keep_only(1, "8h")
    t.act(1, "play 8h as 8")
    assert t.state.scores == [1, 1, 0] and not isinstance(t.step(), Done)
    assert the_game().resolve_options({}, 3)["match_target"] == 3


def test_q_bs_15_quads_are_validated_and_cannot_be_doubted():
    t = Table(3, {0: "6h 6s 6d JK"}, quads=True)
    with pytest.raises(IllegalAction):
        t.act(0, "quads 6h 6s 6d JK")
    t = Table(3, {0: "6h 6s 6d 6c"}, quads=True)
    t.act(0, "quads 6h 6s 6d 6c")
    with pytest.raises(IllegalAction):
        t.act(1, "doubt")


def test_q_bs_16_later_replies_keep_the_first_n():
    t = Table(3, {0: "6h 6s 6d 6c", 1: "7h", 2: "7s"}, quads=True)
    t.act(0, "quads 6h 6s 6d 6c")
    t.act(1, "+1 7h")
    with pytest.raises(IllegalAction):
        t.act(2, "+2 7s")
    t.act(2, "+1 7s")


def test_q_bs_17_after_ace_comes_two():
    assert plus_rank(Rank.ACE, 1) == Rank.TWO and plus_rank(Rank.KING, 3) == Rank.THREE
    t = Table(3, {0: "Ah As Ad Ac", 1: "2h", 2: "3c"}, quads=True)
    t.act(0, "quads Ah As Ad Ac")
    t.act(1, "+1 2h")
    t.act(2, "doubt")
    assert t.turn == 1  # A+1 = 2: true


def test_q_bs_18_going_out_on_plus_n_false_takes_the_pile():
    t = Table(3, {0: "Ah As Ad Ac", 1: "5h"}, quads=True)
    t.act(0, "quads Ah As Ad Ac")
    t.keep_only(1, "5h")
    t.act(1, "+1 5h")
    assert len(t.state.hands[1]) == 5 and not isinstance(t.step(), Done)


def test_q_bs_19_every_turn_needs_an_action_timeout_is_a_pass():
    t = Table(3, {0: "5h"})
    t.act(0, "play 5h as 5")
    with pytest.raises(IllegalAction):
        t.raw(1, {"type": "wait"})
    t.raw(1, timeout_action(t.state, 1))
    assert t.state.passes == 1


def test_q_bs_20_rank_order_is_only_for_quads_arithmetic():
    t = Table(3, {0: "Ah", 1: "2s"})
    t.act(0, "play Ah as A")
    t.act(1, "pass")
    t.act(2, "pass")
    t.act(0, f"play {t.hand(0)[0]} as 2")  # no "higher than before" rule
    assert t.state.current_rank == Rank.TWO
    assert plus_rank(Rank.TWO, 12) == Rank.ACE


def test_q_bs_21_no_doubt_on_an_empty_table():
    t = Table(3, {0: "5h"})
    with pytest.raises(IllegalAction):
        t.act(0, "doubt")
    assert {"type": "doubt"} not in t.game.legal_actions(t.state, 0, t.deck.known(0))


def test_q_bs_22_the_lead_may_be_doubted_at_once():
    t = Table(3, {0: "5h"})
    t.act(0, "play 5h as 9")
    assert {"type": "doubt"} in t.game.legal_actions(t.state, 1, t.deck.known(1))
    t.act(1, "doubt")
    assert t.turn == 1

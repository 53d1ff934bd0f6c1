"""One scenario test per rule of shared/rules.md Part I (I.1 to I.35), against the local dealer.

Seats are 0..n-1 clockwise; unless a test says otherwise the first dealer is the last seat, so
seat 0 leads first. ``Table`` stacks the deck so that named cards reach named seats."""

from __future__ import annotations

import random

import pytest
from p2pcards_cals_bs import timeout_action

from p2pcards.cards import Rank
from p2pcards.engine import carry_out
from p2pcards.game import Coin, Done, IllegalAction, OptionError, Reveal, Shuffle, Transfer, Turn

from .bs_table import NoLotDealer, Table, the_game


def pile_cards(t: Table) -> int:
    return sum(len(p.handles) for p in t.state.pile)


def test_rule_01_deck_is_54_cards_with_two_jokers():
    game = the_game()
    deck = game.deck(game.resolve_options({}, 4), 4)
    assert len(deck) == len(set(deck)) == 54
    assert sum(c.is_joker for c in deck) == 2
    t = Table(4)
    assert sorted(h for hand in t.state.hands for h in hand) == sorted(t.deck.faces)


@pytest.mark.parametrize("players", [2, 8])
def test_rule_02_three_to_seven_players(players):
    game = the_game()
    with pytest.raises(OptionError):
        game.resolve_options({}, players)
    for ok in range(3, 8):
        assert game.resolve_options({}, ok)["quads"] is False


def test_rule_03_thirteen_ranks_suits_never_matter():
    t = Table(3, {0: "2h 2s 2c", 1: "Ad"})
    t.act(0, "play 2h 2s 2c as 2")  # three suits, one rank: truthful
    t.act(1, "doubt")
    assert t.state.turn == 0 and len(t.state.hands[1]) == 18 + 3  # the doubter took the pile
    for rank in Rank:
        t2 = Table(3, {0: "Kh"})
        t2.act(0, f"play Kh as {rank.symbol}")
        assert t2.state.current_rank == rank


def test_rule_04_seats_are_clockwise_left_is_next_seat():
    t = Table(4, {3: "5h"}, dealer=2)
    assert t.turn == 3  # left of dealer 2
    t.act(3, "play 5h as 5")
    assert t.turn == 0  # left of seat 3 wraps to 0


def test_rule_05_first_dealer_by_lot_then_rotates():
    game = the_game()
    options = game.resolve_options({}, 5)
    state = game.new_state(options, 5)
    assert game.next_step(state) == Coin("first-dealer", 5)
    t = Table(3, {0: "7h"}, {}, dealer=2, match_target=2)
    assert t.state.dealer == 2
    t.keep_only(0, "7h")
    t.act(0, "play 7h as 7")  # seat 0 goes out: the hand ends, the next is dealt
    assert t.state.hand_number == 2 and t.state.dealer == 0  # left of the previous dealer
    assert t.turn == 1


def test_rule_05_a_volunteer_deals_first_and_no_lot_is_drawn():
    # seed-BS l.11: the first dealer is drawn by lot only "if nobody volunteers".
    game = the_game()
    options = game.resolve_options({"first_dealer": "2"}, 4)
    state = game.new_state(options, 4)
    assert game.next_step(state) == Shuffle() and state.dealer == 2
    assert game.view(state, None, {})["table"] == ["seat 2 deals first: all 54 cards are dealt"]
    deck = NoLotDealer(game.deck(options, 4), 4, random.Random(1))
    step = game.next_step(state)
    while not isinstance(step, Turn):
        carry_out(game, state, step, deck)
        step = game.next_step(state)
    assert state.dealer == 2 and step == Turn(3)  # the dealer's left leads, as after a lot
    assert [len(state.hands[seat]) for seat in (3, 0, 1, 2)] == [14, 14, 13, 13]


def test_rule_05_after_a_volunteer_the_deal_passes_left():
    t = Table(4, {3: "7h"}, {}, dealer=2, first_dealer=2, match_target=2)
    assert t.state.dealer == 2 and t.turn == 3
    t.keep_only(3, "7h")
    t.act(3, "play 7h as 7")
    assert t.state.hand_number == 2 and t.state.dealer == 3 and t.turn == 0


def test_rule_05_by_lot_stays_the_default():
    game = the_game()
    options = game.resolve_options({}, 4)
    assert options["first_dealer"] == -1
    state = game.new_state(options, 4)
    assert game.next_step(state) == Coin("first-dealer", 4) and state.dealer is None
    lot = "the first dealer is chosen by lot, then all 54 cards are dealt"
    assert game.view(state, None, {})["table"] == [lot]


def test_rule_05_a_table_header_from_before_first_dealer_draws_by_lot():
    # Tables and transcripts of rules 2 made before the option existed do not name it.
    game = the_game()
    old = {"quads": False, "going_out": "face_up_must_be_true", "match_target": 3, "turn_mode": "clockwise"}
    game.check_table_options(old, 4)
    assert game.next_step(game.new_state(old, 4)) == Coin("first-dealer", 4)
    game.check_table_options({**old, "first_dealer": 2}, 4)
    for wrong in (
        {**old, "first_dealer": 4},
        {**old, "first_dealer": "2"},
        {k: v for k, v in old.items() if k != "quads"},
    ):
        with pytest.raises(OptionError):
            game.check_table_options(wrong, 4)


@pytest.mark.parametrize("players,volunteer", [(4, 5), (4, 4), (3, 3), (7, 7), (4, -2)])
def test_rule_05_a_volunteer_must_sit_at_the_table(players, volunteer):
    with pytest.raises(OptionError, match="first_dealer"):
        the_game().resolve_options({"first_dealer": volunteer}, players)
    for seat in range(-1, players):
        assert the_game().resolve_options({"first_dealer": seat}, players)["first_dealer"] == seat


@pytest.mark.parametrize(
    "players,sizes",
    [(3, [18, 18, 18]), (4, [14, 14, 13, 13]), (5, [11, 11, 11, 11, 10]), (6, [9] * 6), (7, [8] * 5 + [7] * 2)],
)
def test_rule_06_deal_sizes_from_the_dealers_left(players, sizes):
    for dealer in range(players):
        t = Table(players, dealer=dealer)
        from_left = [len(t.state.hands[(dealer + 1 + i) % players]) for i in range(players)]
        assert from_left == sizes


def test_rule_07_public_information():
    t = Table(3, {0: "7h 7s", 1: "8d"})
    t.act(0, "play 7h 7s as 7")
    spectator = t.view(None)
    assert spectator["hand_sizes"] == [16, 18, 18]
    assert spectator["pile"] == [{"owner": 0, "count": 2, "claim": "2x7"}]  # no faces
    assert spectator["pile_cards"] == 2 and "hand" not in spectator
    mine = t.view(1)
    assert "8d" in map(str, mine["hand"]) and len(mine["hand"]) == 18


def test_rule_08_a_set_is_one_to_six_cards():
    t = Table(3, {0: "2h 3h 4h 5h 6h 7h 8h"})
    with pytest.raises(IllegalAction, match="1 to 6"):
        t.act(0, "play 2h 3h 4h 5h 6h 7h 8h as 2")
    with pytest.raises(IllegalAction):
        t.raw(0, {"type": "play", "cards": [], "rank": "2"})
    t.act(0, "play 2h 3h 4h 5h 6h 7h as 2")
    assert len(t.state.top.handles) == 6


def test_rule_09_declaration_is_a_rank_count_comes_from_the_cards():
    t = Table(3, {0: "7h 7s 7d"})
    with pytest.raises(IllegalAction, match="rank"):
        t.act(0, "play 7h as JK")
    t.raw(0, {"type": "play", "cards": t.handles(0, "7h 7s 7d"), "rank": "7", "count": 5})
    assert t.view(None)["pile"][0]["claim"] == "3x7"  # the true count, whatever is said


def test_rule_10_truthful_means_rank_or_joker_jokers_alone_fit_any_rank():
    t = Table(3, {0: "JK JK"})
    t.act(0, "play JK JK as 9")
    t.act(1, "doubt")
    assert t.state.turn == 0  # truthful: the placer leads, the doubter took the pile
    assert len(t.state.hands[1]) == 20


def test_rule_11_cycle_and_current_rank():
    t = Table(3, {0: "9h", 1: "9s Qd", 2: "2c"})
    assert t.state.current_rank is None
    t.act(0, "play 9h as 9")
    assert t.state.current_rank == Rank.NINE
    t.act(1, "play 9s")  # the current rank is implied when following
    t.act(2, "doubt")
    assert t.state.current_rank is None and t.state.pile == []  # the doubt ended the cycle


def test_rule_12_first_turn_left_of_dealer_then_clockwise():
    t = Table(5, {2: "4h"}, dealer=1)
    assert t.turn == 2 and t.state.must_lead
    t.act(2, "play 4h as 4")
    assert t.turn == 3
    t.act(3, "pass")
    assert t.turn == 4


def test_rule_13_lead_any_rank_no_pass_no_doubt():
    t = Table(3, {0: "5h"})
    for text in ("pass", "doubt"):
        with pytest.raises(IllegalAction, match="lead player"):
            t.act(0, text)
    t.act(0, "play 5h as K")  # any rank
    assert t.state.current_rank == Rank.KING and t.turn == 1


def test_rule_14_follower_pass_play_current_rank_or_doubt():
    t = Table(3, {0: "5h", 1: "5s 6s", 2: "3c"})
    t.act(0, "play 5h as 5")
    with pytest.raises(IllegalAction, match="current rank"):
        t.act(1, "play 6s as 6")
    t.act(1, "play 6s as 5")  # a claim of the current rank (here a lie)
    t.act(2, "doubt")  # doubts the top set, seat 1's
    handles, owner = t.reveals[-1]
    assert t.faces(handles) == ["6s"] and owner == 1


def test_rule_15_no_doubting_your_own_set():
    t = Table(3, {0: "5h"})
    t.act(0, "play 5h as 5")
    t.act(1, "pass")
    t.act(2, "pass")
    with pytest.raises(IllegalAction):
        t.act(0, "doubt")  # back to the placer: they must lead instead
    game, state = t.game, t.state
    state.must_lead = False  # even if a turn came round, the check refuses it
    with pytest.raises(IllegalAction, match="your own set"):
        game.check(state, 0, {"type": "doubt"})


def test_rule_16_after_a_play_the_turn_passes_left():
    t = Table(4, {0: "5h", 1: "5s"})
    t.act(0, "play 5h as 5")
    t.act(1, "play 5s")
    assert t.turn == 2


def test_rule_17_after_a_pass_the_turn_passes_left():
    t = Table(4, {0: "5h"})
    t.act(0, "play 5h as 5")
    t.act(1, "pass")
    assert t.turn == 2 and not t.state.must_lead


def test_rule_18_passing_does_not_end_your_cycle():
    t = Table(3, {0: "5h", 1: "5s", 2: "5d"})
    t.act(0, "play 5h as 5")
    t.act(1, "pass")
    t.act(2, "play 5d")
    t.act(0, "pass")
    t.act(1, "play 5s")  # seat 1 passed earlier in this cycle and plays now
    assert t.state.top.owner == 1


def test_rule_19_everyone_passes_last_placer_leads_on_top_of_the_pile():
    t = Table(4, {0: "5h Kh", 1: "5s"})
    t.act(0, "play 5h as 5")
    t.act(1, "play 5s")
    for seat in (2, 3, 0):
        t.act(seat, "pass")
    assert t.turn == 1 and t.state.must_lead and pile_cards(t) == 2  # pile not cleared
    with pytest.raises(IllegalAction):
        t.act(1, "pass")  # the re-leader must place cards


def test_rule_20_doubt_resolution_who_takes_who_leads():
    lie = Table(3, {0: "5h", 1: "Ks"})
    lie.act(0, "play 5h as 9")
    lie.act(1, "doubt")
    assert lie.state.turn == 1 and lie.state.must_lead  # the doubter was right and leads
    assert len(lie.state.hands[0]) == 18  # the placer took the pile back
    truth = Table(3, {0: "9h", 1: "Ks"})
    truth.act(0, "play 9h as 9")
    truth.act(1, "doubt")
    assert truth.state.turn == 0 and len(truth.state.hands[1]) == 19


def test_rule_21_only_the_top_set_is_revealed_lower_sets_go_hidden():
    t = Table(3, {0: "5h 5s", 1: "2d 3d", 2: "Ac"})
    t.act(0, "play 5h 5s as 5")
    lower = t.handles(1, "2d 3d")
    t.act(1, "play 2d 3d")
    t.act(2, "play Ac")
    top = t.state.top.handles
    t.act(0, "doubt")
    assert [handles for handles, _ in t.reveals] == [top]
    transfer = t.transfers[-1]
    assert transfer.to == 2 and set(lower) <= set(transfer.handles)
    assert not set(lower) & set(t.deck.known(0))  # the doubter never sees the lower sets
    assert set(lower) <= set(t.deck.known(2))  # the taker does


def test_rule_22_table_is_open_at_start_after_doubt_and_after_all_pass():
    t = Table(3, {0: "5h 6h", 1: "9s"})
    assert t.state.must_lead
    t.act(0, "play 5h as 5")
    assert not t.state.must_lead
    t.act(1, "doubt")
    assert t.state.must_lead and t.turn == 0
    t.act(0, "play 6h as 6")
    t.act(1, "pass")
    t.act(2, "pass")
    assert t.state.must_lead and t.turn == 0


def test_rule_23_going_out_face_up_truthful_wins_at_once():
    t = Table(3, {0: "7h", 1: "7s JK"}, match_target=1)
    t.act(0, "play 7h as 7")
    t.keep_only(1, "7s JK")
    t.act(1, "play 7s JK")
    assert t.reveals[-1] == (tuple(t.state.records[-1].handles), 1)  # face up, opened by seat 1
    step = t.step()
    assert isinstance(step, Done) and step.result.winners == (1,)
    assert t.audit() == []


def test_rule_24_an_untruthful_going_out_play_is_rejected():
    t = Table(3, {0: "7h", 1: "8s"})
    t.act(0, "play 7h as 7")
    t.keep_only(1, "8s")
    before = (list(t.state.hands[1]), len(t.state.pile))
    with pytest.raises(IllegalAction, match="face up"):
        t.act(1, "play 8s")
    assert (list(t.state.hands[1]), len(t.state.pile)) == before
    kinds = {a["type"] for a in t.game.legal_actions(t.state, 1, t.deck.known(1))}
    assert kinds == {"pass", "doubt"}  # one off-rank card: pass or doubt only


def test_rule_25_lead_player_goes_out_with_one_rank_jokers_included():
    t = Table(3, {0: "Qh Qs JK 4c"}, match_target=1)
    t.keep_only(0, "Qh Qs JK 4c")
    with pytest.raises(IllegalAction):
        t.act(0, "play Qh Qs JK 4c as Q")
    t.state.hands[0] = t.handles(0, "Qh Qs JK")
    t.act(0, "play Qh Qs JK as Q")
    assert t.step().result.winners == (0,)


def test_rule_26_match_first_to_k_hand_wins():
    t = Table(3, {0: "7h"}, {1: "8h"}, {2: "9h"}, {0: "Th"}, match_target=2)
    won = []
    for seat, card in [(0, "7h"), (1, "8h"), (2, "9h")]:
        assert t.turn == seat and t.state.must_lead
        t.keep_only(seat, card)
        t.act(seat, f"play {card} as {card[0]}")
        won.append(seat)
        if seat < 2:
            assert t.state.scores[seat] == 1 and not isinstance(t.step(), Done)
    t.keep_only(0, "Th")
    t.act(0, "play Th as 10")
    result = t.step().result
    assert result.winners == (0,) and result.scores == (2.0, 1.0, 1.0)
    assert result.details["hand_winners"] == [0, 1, 2, 0]


def test_rule_26_each_hand_is_a_fresh_shuffle():
    game = the_game()
    t = Table(3, {0: "7h"}, match_target=2)
    t.keep_only(0, "7h")
    old = set(t.deck.faces)
    # stop right after the hand ends to see the Shuffle step
    t.replica.act(0, t.parse(0, "play 7h as 7"))
    assert isinstance(t.step(), Reveal)
    t.game.on_reveal(t.state, t.deck.reveal(t.step().handles, 0))
    assert isinstance(game.next_step(t.state), Shuffle)
    t.advance()
    assert not old & {h for hand in t.state.hands for h in hand}  # all new handles


CHALLENGEABLE = {"going_out": "challengeable", "match_target": 1}


def provisionally_out(t: Table, seat: int, last: str) -> None:
    """Seat 0 leads 5h as 5; ``seat`` then places its last card ``last`` face down as a 5."""
    t.act(0, "play 5h as 5")
    t.keep_only(seat, last)
    t.act(seat, f"play {last}")
    assert t.reveals == [] and t.state.provisional == seat and t.state.hands[seat] == []


def test_rule_27_challengeable_nobody_doubts_the_player_wins():
    t = Table(3, {0: "5h", 1: "8s"}, **CHALLENGEABLE)
    provisionally_out(t, 1, "8s")  # a lie, allowed: face down, provisionally out
    t.act(2, "pass")
    assert not isinstance(t.step(), Done)
    t.act(0, "pass")
    assert t.step().result.winners == (1,)
    assert t.transfers == [] and pile_cards(t) == 2  # nobody doubted: nobody takes the pile


def test_rule_27_challengeable_true_final_set_doubted_doubter_takes_the_pile_player_wins():
    t = Table(3, {0: "5h", 1: "5s", 2: "9c"}, **CHALLENGEABLE)
    provisionally_out(t, 1, "5s")
    before = len(t.state.hands[2])
    pile = [h for placed in t.state.pile for h in placed.handles]
    t.act(2, "doubt")
    assert t.reveals == [((pile[1],), 1)]  # only the final set is turned up
    # the seed's doubt rule: the doubter was wrong and takes every card on the table
    assert [(tr.to, sorted(tr.handles)) for tr in t.transfers] == [(2, sorted(pile))]
    assert len(t.state.hands[2]) == before + 2 and t.state.pile == []
    # rule 27: the final set was true, so the player has won
    done = t.step()
    assert isinstance(done, Done) and done.result.winners == (1,)
    assert t.state.hands[1] == [] and t.state.hand_winners == [1]
    assert t.audit() == []


def test_rule_27_challengeable_in_a_match_the_pickup_comes_before_the_next_hand():
    t = Table(3, {0: "5h", 1: "5s"}, going_out="challengeable", match_target=2)
    provisionally_out(t, 1, "5s")
    t.replica.act(2, t.parse(2, "doubt"))  # stop after the doubt to see the steps in order
    assert isinstance(t.step(), Reveal)
    t.game.on_reveal(t.state, t.deck.reveal(t.step().handles, 1))
    transfer = t.step()
    assert isinstance(transfer, Transfer) and transfer.to == 2 and len(transfer.handles) == 2
    assert t.state.scores == [0, 1, 0] and t.state.provisional is None
    t.advance()  # the transfer, then a fresh shuffle and deal for hand 2
    assert t.transfers == [transfer]
    assert t.state.hand_number == 2 and t.state.scores == [0, 1, 0] and t.state.pile == []
    assert sum(len(h) for h in t.state.hands) == 54 and t.turn == 1  # the deal passed left


def test_rule_27_challengeable_doubt_finds_the_final_set_false_player_takes_the_pile():
    t = Table(3, {0: "5h", 1: "8s", 2: "9c"}, **CHALLENGEABLE)
    provisionally_out(t, 1, "8s")
    t.act(2, "doubt")
    assert [(tr.to, len(tr.handles)) for tr in t.transfers] == [(1, 2)]
    assert len(t.state.hands[1]) == 2 and t.turn == 2 and t.state.must_lead
    assert t.state.provisional is None and t.state.scores == [0, 0, 0]
    t.act(2, "play 9c as 9")
    assert not isinstance(t.step(), Done)  # the game goes on
    assert t.audit() == []


def test_rule_27_challengeable_a_play_on_top_is_placed_then_the_player_wins():
    t = Table(3, {0: "5h", 1: "8s", 2: "5s 5d"}, **CHALLENGEABLE)
    provisionally_out(t, 1, "8s")
    before = len(t.state.hands[2])
    t.act(2, "play 5s")
    # the follower's cards are placed (out of the hand, on the pile) before the hand ends
    assert len(t.state.hands[2]) == before - 1
    assert [(p.owner, len(p.handles)) for p in t.state.pile] == [(0, 1), (1, 1), (2, 1)]
    assert t.faces(t.state.pile[-1].handles) == ["5s"] and t.state.records[-1].seat == 2
    assert t.step().result.winners == (1,) and t.transfers == []
    assert t.audit() == []


def test_rule_27_challengeable_a_follower_going_out_on_top_does_not_win_too():
    t = Table(3, {0: "5h", 1: "8s", 2: "5s"}, **CHALLENGEABLE)
    provisionally_out(t, 1, "8s")
    t.keep_only(2, "5s")
    t.act(2, "play 5s")  # seat 2's last card, placed on top of seat 1's final set
    assert t.state.hands[2] == [] and t.state.pile[-1].owner == 2
    assert t.step().result.winners == (1,) and t.state.hand_winners == [1]
    assert t.audit() == []


def test_rule_27_challengeable_a_play_on_top_of_a_placed_set_cannot_be_a_cheat():
    # The play on top is checked like any other follow before it is placed.
    t = Table(3, {0: "5h", 1: "8s", 2: "5s"}, **CHALLENGEABLE)
    provisionally_out(t, 1, "8s")
    with pytest.raises(IllegalAction):
        t.act(2, "play 5s as 7")  # not the current rank
    with pytest.raises(IllegalAction):
        t.raw(2, {"type": "play", "cards": t.state.hands[0][:1], "rank": "5"})  # not its cards
    assert t.state.provisional == 1 and len(t.state.pile) == 2


def test_rule_28_interruptions_follower_timeout_is_a_pass():
    t = Table(3, {0: "5h"})
    assert timeout_action(t.state, 0) is None  # a lead player cannot be played for
    t.act(0, "play 5h as 5")
    assert timeout_action(t.state, 1) == {"type": "pass"}
    assert timeout_action(t.state, 2) is None  # not their turn
    t.raw(1, timeout_action(t.state, 1))
    assert t.turn == 2


def test_rule_29_realtime_mode_is_not_offered():
    game = the_game()
    assert game.resolve_options({"turn_mode": "clockwise"}, 3)["turn_mode"] == "clockwise"
    with pytest.raises(OptionError, match="clockwise"):
        game.resolve_options({"turn_mode": "realtime"}, 3)


def test_rule_30_quads_lead_is_four_of_a_rank_without_jokers():
    off = Table(3, {0: "9h 9s 9d 9c"})
    with pytest.raises(IllegalAction, match="option quads"):
        off.act(0, "quads 9h 9s 9d 9c")
    t = Table(3, {0: "9h 9s 9d 9c JK 4h"}, quads=True)
    with pytest.raises(IllegalAction, match="four cards of one rank"):
        t.act(0, "quads 9h 9s 9d JK")
    with pytest.raises(IllegalAction, match="four cards of one rank"):
        t.act(0, "quads 9h 9s 9d 4h")
    with pytest.raises(IllegalAction, match="exactly 4"):
        t.raw(0, {"type": "quads", "cards": t.handles(0, "9h 9s 9d")})
    t.act(0, "quads 9h 9s 9d 9c")
    assert t.view(None)["pile"] == [{"owner": 0, "count": 4, "claim": "quads"}]
    with pytest.raises(IllegalAction, match="quads cannot be doubted"):
        t.act(1, "doubt")


def test_rule_31_replies_to_quads_pass_or_plus_n():
    t = Table(3, {0: "9h 9s 9d 9c", 1: "Jh"}, quads=True)
    t.act(0, "quads 9h 9s 9d 9c")
    with pytest.raises(IllegalAction, match=r"\+N"):
        t.act(1, "play Jh as J")
    for n in (0, 13):
        with pytest.raises(IllegalAction, match="1 to 12"):
            t.raw(1, {"type": "play", "cards": t.handles(1, "Jh"), "plus": n})
    t.act(1, "pass")
    t.act(2, "pass")
    assert t.turn == 0 and t.state.must_lead  # rule 34: all passed


def test_rule_32_first_reply_fixes_n():
    t = Table(4, {0: "9h 9s 9d 9c", 1: "Jh", 2: "Js", 3: "Qs"}, quads=True)
    t.act(0, "quads 9h 9s 9d 9c")
    t.act(1, "+2 Jh")
    assert t.state.plus == 2
    with pytest.raises(IllegalAction, match=r"\+2"):
        t.act(2, "+3 Js")
    t.act(2, "play Js")  # the fixed +2 is implied
    assert t.state.top.plus == 2
    t.act(3, "doubt")  # after the first reply, doubting is allowed again
    assert t.turn is not None


def test_rule_33_doubting_plus_n_reveals_b_and_the_top_set():
    t = Table(3, {0: "9h 9s 9d 9c", 1: "Jh", 2: "2c"}, quads=True)
    t.act(0, "quads 9h 9s 9d 9c")
    t.act(1, "+2 Jh")  # B=9, B+2 = J: true
    t.act(2, "doubt")
    revealed = [t.faces(handles) for handles, _ in t.reveals]
    assert sorted(revealed[0]) == ["9c", "9d", "9h", "9s"] and revealed[1] == ["Jh"]
    assert [owner for _, owner in t.reveals] == [0, 1]
    assert t.turn == 1 and len(t.state.hands[2]) == 18 + 5  # the doubter was wrong

    t = Table(3, {0: "9h 9s 9d 9c", 1: "Qh", 2: "2c"}, quads=True)
    t.act(0, "quads 9h 9s 9d 9c")
    t.act(1, "+2 Qh")  # Q is not 9+2
    t.act(2, "doubt")
    assert t.turn == 2 and len(t.state.hands[1]) == 18 + 4


def test_rule_34_all_pass_after_plus_n_ends_the_quads_context():
    t = Table(3, {0: "9h 9s 9d 9c", 1: "Jh Kd"}, quads=True)
    t.act(0, "quads 9h 9s 9d 9c")
    t.act(1, "+2 Jh")
    t.act(2, "pass")
    t.act(0, "pass")
    assert t.turn == 1 and t.state.must_lead and not t.state.in_quads_context
    t.act(1, "play Kd as K")  # a normal lead on top of the old pile
    assert pile_cards(t) == 6 and t.state.current_rank == Rank.KING


def test_rule_35_going_out_on_plus_n_is_checked_face_up():
    # false: the player takes the whole pile, revealed cards included; the left player leads
    t = Table(3, {0: "9h 9s 9d 9c", 1: "Qh"}, quads=True, match_target=1)
    t.act(0, "quads 9h 9s 9d 9c")
    t.keep_only(1, "Qh")
    t.act(1, "+2 Qh")  # accepted although it could not be known
    assert len(t.state.hands[1]) == 5 and t.turn == 2 and t.state.must_lead
    assert t.audit() == []  # not a violation: the player could not know
    # true: the player wins
    t = Table(3, {0: "9h 9s 9d 9c", 1: "Jh"}, quads=True, match_target=1)
    t.act(0, "quads 9h 9s 9d 9c")
    t.keep_only(1, "Jh")
    t.act(1, "+2 Jh")
    assert t.step().result.winners == (1,)
    # a quads lead with the leader's last four cards goes out
    t = Table(3, {0: "4h 4s 4d 4c"}, quads=True, match_target=1)
    t.keep_only(0, "4h 4s 4d 4c")
    t.act(0, "quads 4h 4s 4d 4c")
    assert t.step().result.winners == (0,)


def test_rule_27_challengeable_with_quads_plus_n_exit_is_face_down_and_doubtable():
    t = Table(3, {0: "9h 9s 9d 9c", 1: "Qh", 2: "2c"}, quads=True, going_out="challengeable")
    t.act(0, "quads 9h 9s 9d 9c")
    t.keep_only(1, "Qh")
    t.act(1, "+2 Qh")  # a lie (B+2 = J), face down
    assert t.reveals == [] and t.state.provisional == 1
    t.act(2, "doubt")
    assert len(t.state.hands[1]) == 5 and t.turn == 2  # false: the player takes the pile
    assert t.audit() == []
    # true (B+2 = J): the doubter takes the pile, the revealed quads too, and the player wins
    t = Table(3, {0: "9h 9s 9d 9c", 1: "Jh", 2: "2c"}, quads=True, **CHALLENGEABLE)
    t.act(0, "quads 9h 9s 9d 9c")
    t.keep_only(1, "Jh")
    t.act(1, "+2 Jh")
    before = len(t.state.hands[2])
    t.act(2, "doubt")
    assert [(tr.to, len(tr.handles)) for tr in t.transfers] == [(2, 5)]
    assert len(t.state.hands[2]) == before + 5
    assert t.step().result.winners == (1,)
    assert t.audit() == []


def test_rule_28_an_idle_players_own_client_passes_or_leads_its_lowest_card():
    t = Table(3, {0: "9h 3c JK", 1: "5s"})
    t.keep_only(0, "9h 3c JK")
    lead = t.game.idle_action(t.state, 0, t.deck.known(0))
    assert t.faces(lead["cards"]) == ["3c"] and lead["rank"] == "3"  # one card, as its own rank
    t.game.check_own(t.state, 0, lead, t.deck.known(0))
    t.raw(0, lead)
    assert t.game.idle_action(t.state, 1, t.deck.known(1)) == {"type": "pass"}
    assert t.game.idle_action(t.state, 2, t.deck.known(2)) is None  # not their turn

"""Hold'em rules in stated hands: blinds and the order of action (heads-up too), the minimum
raise and an all-in short of it, side pots with three all-ins, a split pot and its odd chip, a
showdown where the loser mucks, a pot won uncontested, busting out and the end of the match."""

from __future__ import annotations

import pytest
from p2pcards_holdem import make_pots, split

from p2pcards.game import IllegalAction

from .holdem_table import Table


def test_heads_up_the_button_posts_the_small_blind_and_acts_first_then_last():
    table = Table({0: "As Kd", 1: "7c 2d"}, "2c 7d 9h Js 3s", button=0)
    state = table.state
    assert (state.sb_seat, state.bb_seat) == (0, 1)
    assert state.bets == [10, 20] and state.stacks == [1490, 1480]
    assert table.turn == 0  # the button acts first before the flop
    table.act(0, "call")
    assert table.turn == 1  # the big blind has the option
    assert table.legal(1) == ["checks", "goes all in for 1480", "raises to 100", "raises to 40", "raises to 60"]
    table.act(1, "check")
    assert state.street == 1 and table.turn == 1  # after the flop the big blind acts first
    assert table.story(["alice", "bob"])[:3] == [
        "alice has the button (drawn by lot)",
        "hand 1: alice deals; alice posts 10, bob posts 20",
        "the flop: 2c 7d 9h",
    ]


def test_three_handed_blinds_and_first_to_act():
    table = Table({0: "As Kd", 1: "7c 2d", 2: "Qh Qs"}, "2c 7d 9h Js 3s", button=2)
    assert (table.state.sb_seat, table.state.bb_seat) == (0, 1)
    assert table.turn == 2  # left of the big blind
    table.act(2, "call")
    table.act(0, "call")
    table.act(1, "check")
    assert table.turn == 0  # after the flop: the first seat left of the button


def test_minimum_bet_and_raise():
    table = Table({0: "As Kd", 1: "7c 2d", 2: "Qh Qs"}, "2c 7d 9h Js 3s", button=2)
    with pytest.raises(IllegalAction, match="smallest you may raise to is 40"):
        table.act(2, "raise 30")
    table.act(2, "raise 60")  # a raise of 40
    with pytest.raises(IllegalAction, match="smallest you may raise to is 100"):
        table.act(0, "raise 90")
    table.act(0, "raise 100")
    table.act(1, "fold")
    table.act(2, "call")
    assert table.state.street == 1 and table.turn == 0
    with pytest.raises(IllegalAction, match="smallest you may bet is 20"):
        table.act(0, "bet 10")
    with pytest.raises(IllegalAction, match="no bet to raise"):
        table.act(0, {"type": "raise", "to": 50})
    table.act(0, "bet 20")


def test_an_all_in_short_of_a_full_raise_does_not_reopen_the_betting():
    # Seat 2 raises to 60 (by 40); the small blind, 70 behind, goes all in to 80: a raise of
    # only 20. The big blind has not acted and may raise; seat 2 may only call or fold.
    table = Table({0: "As Kd", 1: "7c 2d", 2: "Qh Qs"}, "2c 7d 9h Js 3s", button=2, behind={0: 70})
    table.act(2, "raise 60")
    table.act(0, "all in")
    assert table.state.current == 80 and table.state.min_raise == 40
    assert "raises to 120" in table.legal(1)
    table.act(1, "call")
    assert table.turn == 2
    assert table.legal(2) == ["calls 20", "folds"]
    with pytest.raises(IllegalAction, match="does not reopen the betting"):
        table.act(2, "raise 200")
    table.act(2, "call")
    assert table.state.street == 1


def test_two_short_all_ins_that_make_a_full_raise_reopen_the_betting():
    players = {0: "As Kd", 1: "7c 2d", 2: "Qh Qs", 3: "5c 5d"}
    # button 0: seat 1 small blind, seat 2 big blind, seat 3 first to act
    table = Table(players, "2c 7d 9h Js 3s", button=0, behind={0: 80, 1: 90})
    table.act(3, "raise 60")  # a full raise of 40
    table.act(0, "all in")  # to 80: 20 more, short
    table.act(1, "all in")  # to 100: 20 more, short; 40 in all since seat 3 acted
    table.act(2, "call")
    assert table.turn == 3
    assert "raises to 140" in table.legal(3)  # the two short raises make a full one
    table.act(3, "call")
    assert table.state.street == 1


def test_side_pots_with_three_all_ins():
    hands = {0: "Kc Kd", 1: "Qc Qd", 2: "4h 5h", 3: "Ac Ad"}
    # button 0: seat 1 small blind, seat 2 big blind, seat 3 first to act
    table = Table(hands, "2c 7d 9h Js 3s", button=0, behind={3: 100, 0: 300, 1: 600})
    table.act(3, "all in")  # 100
    table.act(0, "all in")  # 300
    table.act(1, "all in")  # 610 with the small blind
    table.act(2, "call")  # 610
    # every hand was turned up at once (TDA rule 16), then the board
    assert all(table.hole_shown(s) for s in range(4))
    assert table.stacks() == [600, 620, 890, 400]
    names = ["ann", "bob", "cy", "dee"]
    story = table.story(names)
    assert "cy has jack high" in story and "dee has a pair of aces" in story
    assert "dee wins the main pot, 400 with a pair of aces" in story
    assert "ann wins side pot 1, 600 with a pair of kings" in story
    assert "bob wins side pot 2, 620 with a pair of queens" in story
    assert "cy is out of chips, finishing 4th" not in story  # cy kept 890


def test_make_pots_with_dead_money_and_levels():
    # seat 0 folded after putting in 50; seats 1, 2, 3 all in for 100, 300, 300
    pots = make_pots([50, 100, 300, 300], [1, 2, 3])
    assert [(p.amount, p.eligible) for p in pots] == [(350, [1, 2, 3]), (400, [2, 3])]


def test_split_gives_the_odd_chips_from_the_buttons_left():
    assert split(25, [0, 2], button=0, players=3) == {2: 13, 0: 12}
    assert split(11, [0, 1, 3], button=1, players=4) == {3: 4, 0: 4, 1: 3}


def test_a_split_pot_with_an_odd_chip():
    # Broadway on the board: both players left play it and split 25; the odd chip goes to the
    # first winner left of the button (seat 2, as seat 1 folded).
    hands = {0: "2s 3h", 1: "7c 2d", 2: "4h 5h"}
    table = Table(hands, "Ac Kd Qh Js Ts", button=0, starting_stack=1000, small_blind=5, big_blind=10)
    table.act(0, "call")
    table.act(1, "fold")
    table.act(2, "check")
    for _ in range(3):
        table.act(2, "check")
        table.act(0, "check")
    assert table.state.phase == "showdown" and table.turn == 2  # no bet on the river: left of the button
    table.act(2, "show")
    table.act(0, "show")
    assert table.stacks() == [1002, 995, 1003]
    assert "cy and ann split 25 with a straight, ace high (cy 13, ann 12)" in table.story(["ann", "bob", "cy"])


def test_the_loser_mucks_and_the_mucked_hand_is_never_opened():
    table = Table({0: "As Ks", 1: "7c 2d"}, "Ac Kd 9h 4s 3c", button=0)
    table.act(0, "call")
    table.act(1, "check")
    for _ in range(2):
        table.act(1, "check")
        table.act(0, "check")
    table.act(1, "check")
    table.act(0, "bet 100")
    table.act(1, "call")
    assert table.turn == 0  # the last aggressor shows first
    table.act(0, "show")
    assert table.turn == 1
    table.act(1, "muck")
    assert table.hole_shown(0) and not table.hole_shown(1)
    assert table.stacks() == [1620, 1380]
    assert table.state.hand == 2
    story = table.story(["ann", "bob"])
    assert "ann has two pair, aces and kings" in story
    assert "bob mucks" not in story  # the log says so (the move); the story tells outcomes
    assert "ann wins 240 with two pair, aces and kings" in story


def test_a_pot_won_uncontested_is_not_shown():
    table = Table({0: "As Ks", 1: "7c 2d"}, "Ac Kd 9h 4s 3c", button=0)
    table.act(0, "raise 60")
    table.act(1, "fold")
    assert not table.hole_shown(0) and not table.hole_shown(1)
    assert table.stacks() == [1520, 1480]
    story = table.story(["ann", "bob"])
    assert "40 uncalled goes back to ann" in story
    assert "ann wins 40; nobody else is left in the hand" in story
    assert table.state.hand == 2  # the next hand is dealt


def test_the_first_to_show_may_muck_and_the_other_wins_unshown():
    table = Table({0: "As Ks", 1: "7c 2d"}, "Ac Kd 9h 4s 3c", button=0)
    table.act(0, "call")
    table.act(1, "check")
    for _ in range(3):
        table.act(1, "check")
        table.act(0, "check")
    assert table.turn == 1
    table.act(1, "muck")
    assert not table.hole_shown(0) and not table.hole_shown(1)
    assert table.stacks() == [1520, 1480]


def test_a_player_out_of_chips_leaves_and_the_match_ends():
    table = Table({0: "As Ad", 1: "7c 2d"}, "Ac Kd 9h 4s 3c", button=0, starting_stack=200, small_blind=5, big_blind=10)
    table.act(0, "all in")
    table.act(1, "call" if any(a.startswith("calls") for a in table.legal(1)) else "all in")
    assert table.done
    assert table.result.winners == (0,) and table.result.scores == (400.0, 0.0)
    assert table.result.summary == "seat 0 wins the match with all 400 chips after 1 hands"
    assert table.story(["ann", "bob"])[-2:] == [
        "bob is out of chips, finishing 2nd",
        "ann wins the match after 1 hands",
    ]


def test_blinds_rise_and_the_hand_limit_ends_the_match():
    table = Table({0: "As Ad", 1: "7c 2d"}, "Ac Kd 9h 4s 3c", button=0, blinds_up_every=1, hand_limit=2)
    table.act(0, "fold")
    assert table.state.hand == 2 and (table.state.sb, table.state.bb) == (20, 40)
    assert table.state.button == 1 and table.state.sb_seat == 1
    assert "the blinds rise to 20/40" in table.story()
    table.play_out()
    assert table.done and table.result.details["hands"] == 2


def test_a_short_big_blind_is_all_in_and_the_full_blind_is_still_the_bet():
    table = Table({0: "As Ad", 1: "7c 2d", 2: "Qh Qs"}, "Ac Kd 9h 4s 3c", button=0, behind={2: 0})
    table.state.bets[2] = 5  # seat 2 could post only 5 of its big blind
    table.state.total[2] = 5
    assert table.turn == 0 and table.state.current == 20
    assert "calls 20" in table.legal(0)


def test_the_view_at_a_seat_and_for_a_spectator():
    table = Table({0: "As Kd", 1: "7c 2d", 2: "Qh Qs"}, "2c 7d 9h Js 3s", button=2)
    table.act(2, "raise 60")
    mine = table.view(0)
    assert [str(c) for c in mine["hand"]] == ["As", "Kd"]
    assert mine["status"] == "you to act: 50 to call, raise to 100+"
    assert mine["seats"] == [{"chips": "1,490", "bet": "10"}, {"chips": "1,480", "bet": "20"},
                             {"chips": "1,440", "bet": "60", "D": ""}]  # fmt: skip
    assert mine["table"] == ["hand 1 · blinds 10/20 · preflop", "board: -", "pot: 90"]
    watcher = table.view(None)
    assert watcher["hand"] == [] and watcher["status"] == "seat 0 to act: 50 to call, raise to 100+"
    assert not any("A" in str(v) for seat in watcher["seats"] for v in seat.values())


def test_what_a_player_types():
    table = Table({0: "As Kd", 1: "7c 2d", 2: "Qh Qs"}, "2c 7d 9h Js 3s", button=2)
    assert table.parse(2, "raise 60") == {"type": "raise", "to": 60}
    assert table.parse(2, "raises to 60") == {"type": "raise", "to": 60}
    assert table.parse(2, "bet 60") == {"type": "raise", "to": 60}  # facing the big blind
    assert table.parse(2, "r 1,500") == {"type": "all-in"}  # every chip
    assert table.parse(2, "all in") == table.parse(2, "goes all in") == table.parse(2, "shove") == {"type": "all-in"}
    assert table.parse(2, "c") == {"type": "call"} and table.parse(2, "f") == {"type": "fold"}
    with pytest.raises(IllegalAction, match="say how much"):
        table.parse(2, "raise")
    with pytest.raises(IllegalAction, match="expected fold, check, call"):
        table.parse(2, "play 9h")


@pytest.mark.parametrize(
    "action, message",
    [
        ({"type": "raise", "to": True}, "whole number"),  # True is 1 to Python: not a number of chips
        ({"type": "raise", "to": 60.0}, "whole number"),
        ({"type": "raise", "to": "60"}, "whole number"),
        ({"type": "raise", "to": -5}, "smallest you may raise to is 40"),
        ({"type": "raise", "to": 10**40}, "all your chips"),
        ({"type": "raise"}, "says how much"),
        ({"type": "call", "to": 20}, "takes no amount"),
        ({"type": "check"}, "cannot check: 20 to call"),
        ({"type": "bet", "to": 60}, "there is a bet already"),
        ({"type": "show"}, "expected fold, check"),
        ({"type": ["raise"]}, "expected fold, check"),
        ({"type": "fold", "cards": [1, 2]}, "takes no amount"),
    ],
)
def test_a_modified_clients_move_is_refused_by_every_peer(action, message):
    # check() is what every peer runs on a move it receives; the refusal never repeats the
    # sender's values.
    table = Table({0: "As Kd", 1: "7c 2d", 2: "Qh Qs"}, "2c 7d 9h Js 3s", button=2)
    with pytest.raises(IllegalAction, match=message) as refused:
        table.game.check(table.state, 2, action)
    assert "1000000000000" not in str(refused.value) and "True" not in str(refused.value)
    with pytest.raises(IllegalAction, match="not your turn"):
        table.game.check(table.state, 0, {"type": "fold"})


def test_a_player_whose_time_runs_out_checks_or_folds_and_mucks_at_a_showdown():
    table = Table({0: "As Ks", 1: "7c 2d"}, "Ac Kd 9h 4s 3c", button=0)
    idle = table.game.idle_action
    assert idle(table.state, 0, table.known(0)) == {"type": "fold"}
    assert idle(table.state, 1, table.known(1)) is None  # not its turn
    table.act(0, "call")
    assert idle(table.state, 1, table.known(1)) == {"type": "check"}
    table.act(1, "check")
    for _ in range(3):
        table.act(1, "check")
        table.act(0, "check")
    assert table.state.phase == "showdown" and idle(table.state, 1, table.known(1)) == {"type": "muck"}


def test_pots_always_add_up_to_what_was_put_in():
    import random

    rng = random.Random(5)
    for _ in range(500):
        players = rng.randint(2, 9)
        total = [rng.choice([0, 5, 10, 20, 35, 100, 250]) for _ in range(players)]
        live = [s for s in range(players) if total[s] and rng.random() < 0.7] or [
            max(range(players), key=total.__getitem__)
        ]
        pots = make_pots(total, live)
        assert sum(p.amount for p in pots) == sum(total)
        assert all(set(p.eligible) <= set(live) and p.eligible for p in pots)


def test_a_big_blind_short_of_the_small_blind_gets_the_rest_back_to_the_caller():
    # Heads-up: seat 1, the big blind, had only 5 chips; the button calls the full 20, and the
    # 15 nobody could match goes back before the board is run out.
    table = Table({0: "As Ad", 1: "7c 2d"}, "Ac Kd 9h 4s 3c", button=0)
    table.state.stacks[1], table.state.bets[1], table.state.total[1] = 0, 5, 5
    table.act(0, "call")
    assert "15 uncalled goes back to ann" in table.story(["ann", "bob"])
    assert table.done and table.result.scores == (1505.0, 0.0)  # ann: 1500 less 5 in, plus the pot of 10


def test_going_heads_up_the_last_big_blind_does_not_post_it_again():
    # Three-handed, ann (seat 0) has the button, bob the small blind, cy the big blind. Ann goes
    # all in and is knocked out. Moving the button on to bob would make cy the big blind twice
    # in a row; starting heads-up the button goes to cy instead (TDA 2019 rule 34; WSOP 87).
    table = Table({0: "7c 2d", 1: "As Ad", 2: "Kc Kd"}, "Ac Kh 9h 4s 3c", button=0, behind={0: 100})
    table.act(0, "all in")
    table.act(1, "call")
    table.act(2, "call")
    for _ in range(3):
        table.act(1, "check")
        table.act(2, "check")
    table.act(1, "show")  # no bet on the river: the first left of the button shows first
    table.act(2, "muck")
    table.act(0, "muck")
    state = table.state
    assert state.out == [0] and state.hand == 2
    assert (state.button, state.sb_seat, state.bb_seat) == (2, 2, 1)
    assert table.story(["ann", "bob", "cy"])[-1] == "hand 2: cy deals; cy posts 10, bob posts 20"
    assert table.turn == 2  # heads-up the button acts first before the flop
    table.act(2, "fold")
    assert (state.button, state.sb_seat, state.bb_seat) == (1, 1, 2)  # then they alternate


def test_the_pot_sized_raise_offered_is_the_pot_after_calling_on_top():
    # Heads-up, the button faces 5 more with 15 in the pot: calling makes it 20, and a raise of
    # the pot is to 10 + 20 = 30 (it was offered as 35).
    table = Table({0: "As Kd", 1: "7c 2d"}, "2c 7d 9h Js 3s", button=0, small_blind=5, big_blind=10)
    assert "raises to 30" in table.legal(0) and "raises to 35" not in table.legal(0)


def test_the_street_is_named_only_while_it_is_bet():
    # Once the flop's betting is over the turn card is on its way (under mental poker, for a
    # while) and the board still has three cards: the view must not call that the turn.
    import copy

    table = Table({0: "As Kd", 1: "7c 2d"}, "2c 7d 9h Js 3s", button=0)
    table.act(0, "call")
    table.act(1, "check")
    assert table.view(0)["table"][:2] == ["hand 1 · blinds 10/20 · flop", "board: 2♣ 7♦ 9♥"]
    between = copy.deepcopy(table.state)
    table.game._deal_board(between)  # what the rules do when the flop's betting ends
    assert between.phase == "board" and between.street == 2
    view = table.game.view(between, 0, table.known(0))
    assert view["table"][:2] == ["hand 1 · blinds 10/20", "board: 2♣ 7♦ 9♥"]


def test_two_out_in_one_hand_with_equal_stacks_share_the_place():
    # All three start the hand with 100 (after the blinds: 90, 80, 100 behind); ann wins it, bob
    # and cy are out at once with as many chips each: they tie for 2nd (TDA), not 2nd and 3rd.
    table = Table({0: "As Ad", 1: "Kc Kd", 2: "Qc Qd"}, "2c 7d 9h Js 3s", button=2,
                  behind={0: 90, 1: 80, 2: 100})  # fmt: skip
    table.act(2, "all in")
    table.act(0, "all in")
    table.act(1, "all in")
    story = table.story(["ann", "bob", "cy"])
    assert "bob is out of chips, finishing 2nd" in story and "cy is out of chips, finishing 2nd" in story
    assert table.done and table.result.winners == (0,)


def test_who_started_the_hand_with_more_chips_finishes_higher():
    table = Table({0: "As Ad", 1: "Kc Kd", 2: "Qc Qd"}, "2c 7d 9h Js 3s", button=2,
                  behind={0: 290, 1: 80, 2: 150})  # fmt: skip
    table.act(2, "all in")
    table.act(0, "call")
    table.act(1, "all in")
    story = table.story(["ann", "bob", "cy"])
    assert "bob is out of chips, finishing 3rd" in story and "cy is out of chips, finishing 2nd" in story

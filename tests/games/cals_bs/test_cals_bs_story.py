"""The story of a Cal's BS game (issue 22): every doubt says who was right, every going out why,
every hand who won and what comes next, with the players' names."""

from __future__ import annotations

from .bs_table import Table

NAMES = ["alice", "bob", "carol"]


def told(t: Table) -> list[str]:
    return t.story(NAMES)


def test_the_first_dealer_drawn_by_lot_is_told_by_name():
    t = Table(3, {0: "5h"})
    assert told(t) == ["carol deals first (drawn by lot)"]  # the lot made seat 2 the dealer


def test_a_doubt_that_finds_a_lie_says_who_lied_and_who_takes_the_pile():
    t = Table(3, {0: "5h 7h", 1: "Ks"})
    t.act(0, "play 5h 7h as 7")
    t.act(1, "doubt")
    assert told(t)[-1] == "alice lied: 5h is not a 7; alice takes 2 cards"


def test_a_doubt_of_a_true_set_says_the_doubter_was_wrong():
    t = Table(3, {0: "Qh Qd", 1: "Ks"})
    t.act(0, "play Qh Qd as Q")
    t.act(1, "doubt")
    assert told(t)[-1] == "bob was wrong to doubt: Qh Qd were queens; bob takes 2 cards"


def test_a_doubt_takes_the_whole_pile_and_is_told_of_the_top_set_only():
    t = Table(3, {0: "8h 8d", 1: "5s", 2: "8c"})
    t.act(0, "play 8h 8d as 8")
    t.act(1, "play 5s as 8")
    t.act(2, "doubt")
    assert told(t)[-1] == "bob lied: 5s is not an 8; bob takes 3 cards"


def test_a_lie_of_several_cards_names_only_the_cards_that_were_not_of_the_rank():
    t = Table(3, {0: "Ah JK 3c 4d", 1: "Ks"})
    t.act(0, "play Ah JK 3c 4d as A")
    t.act(1, "doubt")
    assert told(t)[-1] == "alice lied: 3c 4d are not aces; alice takes 4 cards"


def test_the_local_player_is_told_in_the_second_person():
    t = Table(3, {0: "5h", 1: "Ks"})
    t.act(0, "play 5h as 9")
    t.act(1, "doubt")
    assert t.story(["you", "bob", "carol"])[-1] == "you lied: 5h is not a 9; you take 1 card"


def test_going_out_face_up_says_the_cards_were_true_then_the_hand_and_what_comes_next():
    t = Table(3, {0: "7h"}, {1: "8h"}, match_target=2)
    t.keep_only(0, "7h")
    t.act(0, "play 7h as 7")
    assert told(t)[1:] == [
        "alice goes out: 7h was true",
        "hand 1: alice wins (hands: alice won 1, bob won 0, carol won 0; first to 2 wins the match)",
        "next, hand 2: alice deals, bob leads",
    ]


def test_a_false_face_up_going_out_play_says_so_and_the_player_takes_the_pile():
    t = Table(3, {0: "7h", 1: "8s"})
    t.act(0, "play 7h as 7")
    t.keep_only(1, "8s")
    t.raw(1, {"type": "play", "cards": t.state.hands[1], "rank": "7"})  # a modified client's lie
    assert told(t)[-1] == "bob tries to go out, but 8s is not a 7; bob takes 2 cards"


def test_the_last_hand_of_the_match_has_no_next_hand():
    t = Table(3, {0: "7h"}, match_target=1)
    t.keep_only(0, "7h")
    t.act(0, "play 7h as 7")
    assert told(t)[-1] == "hand 1: alice wins (hands: alice won 1, bob won 0, carol won 0; first to 1 wins the match)"


CHALLENGEABLE = {"going_out": "challengeable", "match_target": 1}


def test_challengeable_going_out_undoubted_played_on_and_doubted_true():
    t = Table(3, {0: "5h", 1: "8s"}, **CHALLENGEABLE)
    t.act(0, "play 5h as 5")
    t.keep_only(1, "8s")
    t.act(1, "play 8s")
    t.act(2, "pass")
    t.act(0, "pass")
    assert told(t)[-2] == "bob goes out: nobody doubted the last set"

    t = Table(3, {0: "5h", 1: "8s", 2: "5s 5d"}, **CHALLENGEABLE)
    t.act(0, "play 5h as 5")
    t.keep_only(1, "8s")
    t.act(1, "play 8s")
    t.act(2, "play 5s")
    assert told(t)[-2] == "bob goes out: the next player played on without doubting"

    t = Table(3, {0: "5h", 1: "5s", 2: "9c"}, **CHALLENGEABLE)
    t.act(0, "play 5h as 5")
    t.keep_only(1, "5s")
    t.act(1, "play 5s")
    t.act(2, "doubt")
    assert told(t)[-3:-1] == [
        "carol was wrong to doubt: 5s was a 5; carol takes 2 cards",
        "bob goes out: the doubted last set was true",
    ]

"""The story of a Crazy Eights hand (issue 22): who deals, who went out and with what, or why
the hand was blocked; and the log's wording of a play ("play 8d naming clubs", "an 8")."""

from __future__ import annotations

from .eights_table import Table

NAMES = ["alice", "bob", "carol"]


def test_the_dealer_and_the_player_going_out_are_told_by_name():
    t = Table({0: "9s", 1: "8h"}, starter="9h", stock="2c")
    assert t.story(NAMES[:2]) == ["bob deals (drawn by lot)"]
    t.act(0, "play 9s")
    assert t.story(NAMES[:2]) == ["bob deals (drawn by lot)", "alice goes out with 9s"]
    assert t.story(["you", "bob"])[-1] == "you go out with 9s"


def test_a_blocked_hand_says_why_the_lowest_hand_wins():
    t = Table({0: "2c 3d", 1: "Kc Qd", 2: "Ac 4d"}, starter="9h")
    t.state.stock.clear()
    for seat in range(3):
        t.act(seat, "pass")
    assert t.story(NAMES)[-1] == "blocked: nobody can play or draw, so the lowest hand wins"


def test_an_eight_is_written_with_the_suit_it_names_and_read_back():
    t = Table({0: "8d 9s", 1: "2h 5c"}, starter="9h")
    action = t.parse(0, "play 8d suit clubs")
    text = t.game.format_action(t.state, 0, action, t.known(0))
    assert text == "play 8d naming clubs"
    assert t.parse(0, text) == action
    assert t.game.format_action(t.state, 0, action, {}) == "play a card naming clubs"


def test_the_status_says_an_8_and_an_A():
    t = Table({0: "9s 3d", 1: "2h 5c"}, starter="Ah")
    assert t.game.view(t.state, 1, t.known(1))["status"] == "seat 0 to play: play a heart, an A or an 8, or draw"
    t = Table({0: "9s 3d", 1: "2h 5c"}, starter="5h")
    assert t.game.view(t.state, 1, t.known(1))["status"] == "seat 0 to play: play a heart, a 5 or an 8, or draw"

"""Rules scenarios for Crazy Eights on a stacked local deck, through the plugin's entry point.

Seat 0 plays first unless a test says otherwise (the stacked coin makes the last seat dealer)."""

from __future__ import annotations

import pytest

from p2pcards.cards import Suit
from p2pcards.game import Deal, IllegalAction, OptionError, Reveal
from p2pcards.plugins import load_plugins

from .eights_table import Table, the_game


def two(**options):
    """Two players, three cards each, 9h turned, then 2c 3c 4c ... on the stock."""
    return Table({0: "9s 8d Kh", 1: "2h 5c Qs"}, starter="9h", stock="2c 3c 4c 5s", **options)


# -- plugin and options -------------------------------------------------------------------------


def test_loads_through_its_entry_point_with_its_bot():
    host = load_plugins(fresh=True)
    assert not [e for e in host.errors if "crazy" in str(e)]
    info = host.plugins["crazy-eights"]
    assert info.distribution == "p2pcards-crazy-eights" and info.games == ["crazy-eights"]
    assert {"random", "strategic"} <= set(host.bots_for("crazy-eights"))
    game = host.game("crazy-eights")
    for values in game.variants.values():
        game.resolve_options(values, 4)
    assert "draw" in game.commands_help() and game.summary


@pytest.mark.parametrize(("players", "size"), [(2, 7), (3, 5), (4, 5), (5, 5)])
def test_pagat_hand_sizes_by_default(players, size):
    game = the_game()
    state = game.new_state(game.resolve_options({}, players), players)
    assert state.hand_size == size


def test_hand_size_option_is_bounded_by_the_pack():
    game = the_game()
    assert game.new_state(game.resolve_options({"hand_size": "9"}, 5), 5).hand_size == 9
    with pytest.raises(OptionError, match="hand_size"):
        game.resolve_options({"hand_size": 10}, 5)  # 50 cards dealt leave too few for a starter
    with pytest.raises(OptionError):
        game.resolve_options({}, 6)


# -- the deal and the starter -------------------------------------------------------------------


def test_deal_starter_and_first_player():
    t = Table({0: "9s 8d Kh", 1: "2h 5c Qs", 2: "3d 4d 5d"}, starter="9h", dealer=1)
    assert t.state.dealer == 1 and t.turn == 2  # left of the dealer starts
    assert t.hand(2) == "3d 4d 5d" and t.hand(0) == "9s 8d Kh"
    starter = t.steps[-1]
    assert isinstance(starter, Reveal) and starter.owner is None
    assert str(t.state.top) == "9h" and t.state.suit is Suit.HEARTS
    assert len(t.state.stock) == 52 - 9 - 1
    # Nobody saw another hand.
    assert not set(t.state.hands[0]) & set(t.known(1))


def test_an_eight_turned_as_starter_stays_under_and_the_next_card_is_turned():
    t = Table({0: "9s 3d Kh", 1: "2h 5c Qs"}, starter="8c 8h 4s")
    assert [str(t.state.faces[h]) for h in t.state.pile] == ["8c", "8h", "4s"]
    assert t.state.suit is Suit.SPADES and str(t.state.top) == "4s"
    assert sum(isinstance(s, Reveal) for s in t.steps) == 3


# -- playing ------------------------------------------------------------------------------------


def test_match_by_suit_or_by_rank():
    t = two()
    assert t.legal(0) == [
        "draw",
        "play 8d naming clubs",
        "play 8d naming diamonds",
        "play 8d naming hearts",
        "play 8d naming spades",
        "play 9s",
        "play Kh",
    ]
    t.act(0, "play 9s")  # same rank
    assert t.state.suit is Suit.SPADES and t.turn == 1
    t.act(1, "play Qs")  # same suit
    assert str(t.state.top) == "Qs" and t.turn == 0


def test_a_card_that_matches_nothing_is_refused_by_the_players_own_client():
    t = Table({0: "2c 8d Kh", 1: "2h 5c Qs"}, starter="9h")
    with pytest.raises(IllegalAction, match="matches neither"):
        t.act(0, "play 2c")
    assert t.turn == 0 and len(t.state.hands[0]) == 3


def test_a_play_is_revealed_by_its_owner():
    t = two()
    t.act(0, "play Kh")
    reveal = t.steps[-1]
    assert isinstance(reveal, Reveal) and reveal.owner == 0 and reveal.handles == (t.state.pile[-1],)
    assert t.state.pile[-1] in t.known(1)


def test_an_eight_names_the_suit_to_follow():
    t = two()
    t.act(0, "play 8d suit clubs")
    assert t.state.suit is Suit.CLUBS and str(t.state.top) == "8d"
    assert t.legal(1) == ["draw", "play 5c"]
    with pytest.raises(IllegalAction, match="matches neither"):
        t.act(1, "play 2h")
    t.act(1, "5c")
    assert t.state.suit is Suit.CLUBS


def test_an_eight_must_name_a_suit_and_only_an_eight_may():
    t = two()
    with pytest.raises(IllegalAction, match="name the suit"):
        t.act(0, "play 8d")
    with pytest.raises(IllegalAction, match="without naming a suit"):
        t.act(0, {"type": "play", "card": t.handle(0, "8d")})
    with pytest.raises(IllegalAction, match="not an eight"):
        t.act(0, {"type": "play", "card": t.handle(0, "Kh"), "suit": "s"})
    with pytest.raises(IllegalAction, match="only an eight"):
        t.act(0, "play Kh suit spades")


def test_going_out_wins_and_scores_the_others_cards():
    t = Table({0: "9s", 1: "8h"}, starter="9h", stock="2c")
    t.act(0, "play 9s")
    assert t.result.winners == (0,) and t.result.scores == (50.0, 0.0)
    assert t.result.details == {"ending": "out", "penalties": [0, 50]}
    # Seat 1 showed its hand to count it.
    shown = t.steps[-2]
    assert isinstance(shown, Reveal) and shown.owner == 1 and t.violations == []


def test_going_out_on_an_eight_still_names_a_suit():
    t = Table({0: "8s", 1: "Kh"}, starter="9h")
    t.act(0, "play 8s suit hearts")
    assert t.result.winners == (0,) and t.result.scores == (10.0, 0.0)


# -- drawing ------------------------------------------------------------------------------------


def test_a_draw_deals_one_hidden_card_from_the_stock_to_the_drawer_only():
    t = two()
    next_handle = t.state.stock[0]
    t.act(0, "draw")
    deal = t.steps[-1]
    assert isinstance(deal, Deal) and dict(deal.to) == {next_handle: 0}
    assert t.hand(0) == "9s 8d Kh 2c"
    assert next_handle in t.known(0) and next_handle not in t.known(1)
    assert t.state.stock[0] != next_handle


def test_draw_until_playable_keeps_the_turn_and_never_allows_a_pass_while_the_stock_lasts():
    t = two()
    t.act(0, "draw")
    t.act(0, "draw")  # drawing is allowed even when you could play
    assert t.turn == 0 and t.hand(0).endswith("2c 3c")
    with pytest.raises(IllegalAction, match="may not pass"):
        t.act(0, "pass")
    t.act(0, "play Kh")
    assert t.turn == 1


def test_draw_one_rule_allows_one_draw_then_play_or_pass():
    t = two(draw_until_playable=False)
    t.act(0, "draw")
    assert t.turn == 0 and "draw" not in t.legal(0) and "pass" in t.legal(0)
    with pytest.raises(IllegalAction, match="drawn your card"):
        t.act(0, "draw")
    t.act(0, "pass")  # allowed after drawing even though 9s and Kh could be played
    assert t.turn == 1 and t.state.drew is False


def test_with_the_stock_empty_a_player_who_cannot_play_passes():
    t = Table({0: "2c 3d", 1: "4c 5d"}, starter="9h", stock="6c 7c")
    t.act(0, "draw")
    t.act(0, "draw")
    assert t.state.stock  # the rest of the pack is still there; empty it by hand for the test
    t.state.stock.clear()
    assert t.legal(0) == ["pass"]
    t.act(0, "pass")
    assert t.turn == 1


def test_with_the_stock_empty_a_pass_is_refused_to_a_player_who_can_play():
    t = two()
    t.state.stock.clear()
    assert "pass" not in t.legal(0) and "draw" not in t.legal(0)
    with pytest.raises(IllegalAction, match="cannot pass: you can play"):
        t.act(0, "pass")
    with pytest.raises(IllegalAction, match="stock is empty"):
        t.act(0, "draw")


def test_a_blocked_game_ends_when_everyone_passes_and_the_lowest_hand_wins():
    t = Table({0: "2c 3d", 1: "Kc Qd", 2: "Ac 4d"}, starter="9h")
    t.state.stock.clear()
    for seat in range(3):
        t.act(seat, "pass")
    assert t.result.details == {"ending": "blocked", "penalties": [5, 20, 5]}
    assert t.result.winners == (0, 2) and t.result.scores == (20.0, 0.0, 20.0)
    assert "blocked" in t.result.summary and t.violations == []


# -- public checks and the audit ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ({"type": "play", "card": 3}, "your own cards"),  # a handle of seat 1's hand
        ({"type": "play", "card": 0, "suit": "x"}, "name a suit"),
        ({"type": "play", "card": 0, "cards": [1]}, "names a card"),
        ({"type": "shout"}, "unknown action"),
        ({"type": "pass"}, "may not pass"),
    ],
)
def test_every_peer_refuses_what_public_information_rules_out(action, message):
    t = two()
    assert 3 in t.state.hands[1] and 0 in t.state.hands[0]
    with pytest.raises(IllegalAction, match=message):
        t.game.check(t.state, 0, action)


def test_the_audit_names_a_modified_client_that_played_a_card_that_does_not_match():
    t = Table({0: "2c 4s", 1: "4d 5d"}, starter="9h")
    t.act(0, {"type": "play", "card": t.handle(0, "2c")}, check_own=False)
    t.act(1, {"type": "play", "card": t.handle(1, "4d")}, check_own=False)
    t.act(0, "play 4s")
    assert t.result.winners == (0,)
    assert [(v.seat, v.action_index) for v in t.violations] == [(0, 0), (1, 1)]
    assert "2c matches neither" in t.violations[0].message


def test_the_audit_names_a_pass_while_holding_a_playable_card():
    t = Table({0: "2c 9s", 1: "4d 5d"}, starter="9h")
    t.state.stock.clear()
    t.act(0, "pass", check_own=False)
    t.act(1, "pass")  # two passes in a row with an empty stock: the game is blocked
    assert t.result.details == {"ending": "blocked", "penalties": [11, 9]} and t.result.winners == (1,)
    [violation] = t.violations
    assert violation.seat == 0 and violation.action_index == 0 and "9s" in violation.message


def test_the_audit_names_an_eight_played_without_a_suit_and_the_eights_suit_counts():
    t = Table({0: "8c 3c", 1: "4d 5d"}, starter="9h", stock="Kd")
    t.act(0, {"type": "play", "card": t.handle(0, "8c")}, check_own=False)
    assert t.state.suit is Suit.CLUBS
    t.act(1, "draw")
    t.state.stock.clear()
    t.act(1, "pass")
    t.act(0, "3c")
    assert [v.message for v in t.violations] == ["played 8c without naming a suit"]


# -- grammar and view ---------------------------------------------------------------------------


def test_parse_and_format_round_trip():
    t = two()
    game, state, known = t.game, t.state, t.known(0)
    for text, expected in [
        ("play 8d suit spades", {"type": "play", "card": t.handle(0, "8d"), "suit": "s"}),
        ("play 8♦ hearts", {"type": "play", "card": t.handle(0, "8d"), "suit": "h"}),
        ("PLAY KH", {"type": "play", "card": t.handle(0, "Kh")}),
        ("9s", {"type": "play", "card": t.handle(0, "9s")}),
        ("draw", {"type": "draw"}),
        ("pass", {"type": "pass"}),
    ]:
        action = game.parse_action(state, 0, text, known)
        assert action == expected
        assert game.parse_action(state, 0, game.format_action(state, 0, action, known), known) == action
    assert game.format_action(state, 0, expected, {}) == "pass"
    assert game.format_action(state, 1, {"type": "play", "card": t.handle(0, "9s")}, {}) == "play a card"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("play 2c", "do not hold"),
        ("play", "expected"),
        ("play zz", "not a card"),
        ("play 8d suit purple", "not a suit"),
        ("dance", "not a card"),
    ],
)
def test_parse_errors_say_what_was_expected(text, message):
    t = two()
    with pytest.raises(IllegalAction, match=message):
        t.game.parse_action(t.state, 0, text, t.known(0))


def test_view_has_the_documented_keys():
    t = two()
    t.act(0, "play 8d suit clubs")
    view = t.game.view(t.state, 0, t.known(0))
    assert [str(c) for c in view["hand"]] == ["Kh", "9s"]
    assert view["seats"] == [{"cards": 2}, {"cards": 3, "dealer": "D"}]
    assert view["table"] == ["pile: 8♦ (play clubs)", f"stock: {len(t.state.stock)} cards"]
    assert view["status"] == "seat 1 to play: play a club or an 8, or draw"  # not "a 8 or an 8"
    spectator = t.game.view(t.state, None, {})
    assert spectator["hand"] == [] and spectator["table"] == view["table"]
    assert t.game.view(t.state, 1, t.known(1))["status"].startswith("you to play")

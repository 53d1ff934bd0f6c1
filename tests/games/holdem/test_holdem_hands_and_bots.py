"""Hands in words (pokerkit ranks them), the strategic bot's own evaluator against pokerkit's,
and the bots: legal moves only, and the strategic bot ahead of the calling script and of random
play over hundreds of hands."""

from __future__ import annotations

import random

import pytest
from p2pcards_holdem.bots import _pair, rank7
from p2pcards_holdem.hands import best_hand, describe, kicker

from p2pcards.cards import build_deck, parse_cards


@pytest.mark.parametrize(
    "hole, board, words",
    [
        ("Kh Kd", "9c 9s 2d 3h 7c", "two pair, kings and nines"),
        ("Ah 2d", "3c 4s 5h 9d Ks", "a straight, five high"),
        ("Ah Kh", "Qh Jh Th 2c 3d", "a royal flush"),
        ("9h 8h", "7h 6h 5h 2c 3d", "a straight flush, nine high"),
        ("Kh Kd", "Kc 9s 9d 3h 7c", "a full house, kings full of nines"),
        ("6h 6d", "6c 6s 2d 3h 7c", "four of a kind, sixes"),
        ("Ah 4h", "9h 2h Jh 3c 3d", "a flush, ace high"),
        ("7h 7d", "7c 9s 2d 3h Kc", "three of a kind, sevens"),
        ("Qh Qd", "9c 4s 2d 3h 7c", "a pair of queens"),
        ("Ah Jd", "9c 4s 2d 3h 7c", "ace high"),
    ],
)
def test_hands_in_words(hole, board, words):
    assert describe(best_hand(parse_cards(hole), parse_cards(board))) == words


def test_the_bots_evaluator_orders_hands_as_pokerkit_does():
    rng = random.Random(7)
    deck = build_deck()
    for _ in range(600):
        cards = rng.sample(deck, 9)
        board, a, b = cards[:5], cards[5:7], cards[7:9]
        kit = best_hand(a, board), best_hand(b, board)
        ours = rank7([_pair(c) for c in a + board]), rank7([_pair(c) for c in b + board])
        assert (kit[0] > kit[1]) == (ours[0] > ours[1]) and (kit[0] == kit[1]) == (ours[0] == ours[1]), cards


def test_a_pot_won_on_a_kicker_says_so():
    from .holdem_table import Table

    # Both have "a pair of twos" from the board; ann's ace decides.
    table = Table({0: "As 4d", 1: "Qh Js"}, "2c 2d 9h 7s 3c", button=0)
    table.act(0, "call")
    table.act(1, "check")
    for _ in range(3):
        table.act(1, "check")
        table.act(0, "check")
    table.act(1, "show")
    table.act(0, "show")
    story = table.story(["ann", "bob"])
    assert "ann has a pair of twos" in story and "bob has a pair of twos" in story
    assert "ann wins 40 with a pair of twos, ace kicker" in story


def test_the_kicker_in_words():
    board = parse_cards("Kc Kd 9h 7s 3c")
    ace, queen, nine = (parse_cards(hole) for hole in ("As 2d", "Qs 2h", "9c 2s"))
    assert kicker(best_hand(ace, board), best_hand(queen, board)) == "ace kicker"
    assert kicker(best_hand(queen, board), best_hand(ace, board)) is None  # the loser has none
    assert kicker(best_hand(nine, board), best_hand(ace, board)) is None  # different words
    assert kicker(best_hand(ace, board), best_hand(ace, board)) is None  # a tie

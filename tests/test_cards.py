from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pcards.cards import (
    JOKER,
    SUIT_NAMES,
    Card,
    CardParseError,
    Rank,
    Suit,
    build_deck,
    format_cards,
    parse_card,
    parse_cards,
    parse_rank,
    parse_suit,
    sort_cards,
)

cards = st.builds(Card, st.sampled_from(Rank), st.sampled_from(Suit), st.integers(0, 7)) | st.builds(
    lambda p: JOKER.copy(p), st.integers(0, 3)
)


@given(cards)
def test_ascii_and_unicode_round_trip(card):
    assert parse_card(str(card)) == card.face
    assert parse_card(card.unicode()) == card.face
    assert Card.from_label(card.label()) == card


@given(st.lists(cards, max_size=20))
def test_format_parse_round_trip(hand):
    assert parse_cards(format_cards(hand)) == [c.face for c in hand]
    assert parse_cards(format_cards(hand, unicode=True)) == [c.face for c in hand]


@given(st.lists(cards, max_size=30))
def test_sorting_is_a_stable_total_order(hand):
    once = sort_cards(hand)
    assert sort_cards(once) == once
    assert Counter(once) == Counter(hand)
    assert all(c.is_joker for c in once[len([c for c in hand if not c.is_joker]) :])


def test_text_forms():
    assert [str(c) for c in parse_cards("7h 10s, Qd JK")] == ["7h", "10s", "Qd", "JK"]
    assert parse_card("7♥").unicode() == "7♥"
    assert parse_card("th") == parse_card("10h")
    assert parse_card(" qS ") == Card(Rank.QUEEN, Suit.SPADES)
    assert parse_rank("jack") is Rank.JACK and parse_rank("7") is Rank.SEVEN
    assert SUIT_NAMES[Suit.HEARTS] == "hearts" and set(SUIT_NAMES) == set(Suit)
    assert all(parse_suit(name) is s and parse_suit(name[:-1]) is s for s, name in SUIT_NAMES.items())


@pytest.mark.parametrize("text", ["", "1x", "11h", "Zd", "7", "JKK"])
def test_bad_text_says_what_was_expected(text):
    with pytest.raises(CardParseError, match="expected"):
        parse_card(text)


def test_deck_builders():
    assert len(build_deck()) == 52
    deck54 = build_deck(jokers=2)
    assert len(deck54) == len(set(deck54)) == 54
    assert sum(c.is_joker for c in deck54) == 2
    four = build_deck(packs=4)
    assert len(four) == len(set(four)) == 208
    assert Counter(c.face for c in four)[parse_card("Ah")] == 4
    three = build_deck(packs=3, without_suits=[Suit.CLUBS])
    assert len(three) == 117 and all(c.suit is not Suit.CLUBS for c in three)


def test_card_invariants():
    with pytest.raises(ValueError):
        Card(Rank.ACE, None)
    assert parse_card("Ah").copy(3).face == parse_card("Ah")
    assert not parse_card("Ah").copy(1) == parse_card("Ah")  # noqa: SIM201 - tests __eq__, not __ne__

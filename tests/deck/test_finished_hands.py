"""A finished hand (protocol/deck.md section 6, "Finished hands"): what a party keeps of it (its
per-card key prefixes and the faces opened to all: no seed is revealed since protocol version 12,
so nothing recomputes it at the end) and the rules that let it go (issue 23). Real crypto, the
in-process deck."""

from __future__ import annotations

import pytest

from p2pcards.deck.backend import DeckFault
from p2pcards.deck.party import FIRST_REHANDLED, Party, ShuffleOp

from .deck_helpers import every_face, make_deck

PLAYERS = 3
CARDS = 12


def play_hands(deck, hands: int) -> list[list[int]]:
    """``hands`` hands: shuffle, deal 3 cards each, reveal one of seat 0's, move seat 1's hand
    to seat 2 (re-handled), reveal a moved card (opened by its new holder, with its chain)."""
    stocks = []
    for _ in range(hands):
        stock = deck.shuffle()
        stocks.append(stock)
        deck.deal({h: i % PLAYERS for i, h in enumerate(stock[:9])})
        deck.reveal([stock[0]], 0)
        new = deck.transfer([stock[1], stock[4]], 2)
        deck.reveal([new[0]], 2)
    return stocks


def test_a_finished_hand_is_dropped_but_for_its_key_prefixes_and_public_faces():
    deck = make_deck(PLAYERS, CARDS)
    play_hands(deck, 4)
    party = deck.parties[1]
    assert party.finished_hands == 3  # the fourth is the hand in progress
    assert {h // CARDS for h in party.cards_by_handle if h < FIRST_REHANDLED} == {3}
    assert all(h >= party._hand_handles[3] for h in party.cards_by_handle if h >= FIRST_REHANDLED)
    assert min(party.transcript) >= party._shuffle_ops[3]
    assert all(h // CARDS == 3 or h >= party._hand_handles[3] for h in party.known)
    assert len(party._old_keys.hi) == 3 * (PLAYERS * CARDS)  # every seat's per-card keys of 3 hands
    faces = every_face(deck)
    assert all(p.blame is None for p in deck.parties)
    # Every face opened to all stays (two a hand), and the last hand's in full.
    assert len([h for h in faces if h // CARDS < 3 and h < FIRST_REHANDLED]) == 3
    assert len(faces) == 3 * 2 + CARDS + 2


def test_opening_a_card_of_a_finished_hand_is_refused():
    deck = make_deck(PLAYERS, CARDS)
    stocks = play_hands(deck, 2)
    with pytest.raises(ValueError, match="of a hand before the last shuffle"):
        deck.reveal([stocks[0][11]], None)


class _ReusesOldKey(Party):
    """Publishes, in hand 2, its per-card key of hand 0 for the same position."""

    def _card_key(self, handle):
        if handle // CARDS == 2:
            handle -= 2 * CARDS
        return super()._card_key(handle)

    def _card_public_keys(self, epoch):
        self._prepared_keys.pop(epoch, None)
        return super()._card_public_keys(epoch)


def test_a_key_of_a_finished_hand_published_again_names_its_author():
    def factory(seat, *args, **kwargs):
        return (_ReusesOldKey if seat == 2 else Party)(seat, *args, **kwargs)

    deck = make_deck(PLAYERS, CARDS, party_factory=factory)
    play_hands(deck, 2)
    with pytest.raises(DeckFault) as fault:
        deck.shuffle()
    blames = fault.value.blames
    assert set(blames) >= {0, 1}
    for seat in (0, 1):
        assert blames[seat].seat == 2 and blames[seat].step == "relock"
        assert "reuses a per-card key of a finished hand" in blames[seat].reason


def test_an_accusation_about_a_finished_hand_names_its_accuser_at_every_seat():
    deck = make_deck(PLAYERS, CARDS)
    play_hands(deck, 2)
    old = deck.parties[0]._shuffle_ops[0] + 2  # the first hand's reveal
    for accusation in (
        {"type": "accuse", "op": old, "step": "shuffle", "seat": 0, "reason": "bad", "evidence": None},
        {"type": "accuse", "op": old, "step": "decode", "seat": 0, "reason": "bad", "evidence": {}},
    ):
        seats = make_deck(PLAYERS, CARDS)
        play_hands(seats, 2)
        for party in seats.parties:
            if party.seat != 1:
                party.receive(1, accusation)
                assert party.blame is not None and party.blame.seat == 1 and party.blame.step == "accuse"
                assert "of a hand it had finished" in party.blame.reason


def test_a_pass_of_the_next_shuffle_marks_the_hand_finished_for_its_sender_only():
    """An accusation that comes before its accuser's pass of the next shuffle is judged on its
    merits, at a seat that has not finished the hand yet, however far the others are."""
    deck = make_deck(PLAYERS, CARDS)
    play_hands(deck, 1)
    party = deck.parties[0]
    op = party._shuffle_ops[0]
    party.begin(ShuffleOp())
    # seat 1 accuses seat 2's shuffle pass of hand 0 (a pass every seat holds and checked):
    # false, so it names seat 1, but as a false accusation, not a stale one.
    party.receive(1, {"type": "accuse", "op": op, "step": "shuffle", "seat": 2, "reason": "x", "evidence": None})
    assert party.blame is not None and party.blame.seat == 1
    assert "false accusation" in party.blame.reason

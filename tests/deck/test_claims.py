"""Hidden claims at the deck (deck protocol 3): a seat proves that cards it holds lie in one of
several sets of faces without saying which (Cal's BS quads: four of one rank, the rank hidden),
and every other seat checks the claim from the public record and the proof alone. The cheats
of issue 32: a false claim (mixed ranks, a joker), a proof over another seat's card, and a
proof replayed at another move or by another seat; each is refused, the same at every seat.

A Cal's BS quads lead carries such a proof (tests/games/cals_bs, tests/adversarial)."""

from __future__ import annotations

import pytest

from p2pcards.cards import Card, Rank, Suit

from .deck_helpers import make_deck

RANK_SETS = [[Card(rank, suit) for suit in Suit] for rank in Rank]


def seat_with_quads():
    """A table of 3 after a full deal of 54 cards, where seat 0 holds all four cards of the
    rank of its first card: those of the others moved to it (one through seat 2 first), so
    shuffled and re-handled handles, one moved twice. Returns the deck and the four handles."""
    deck = make_deck(3, 54)
    handles = deck.shuffle()
    deck.deal({h: i % 3 for i, h in enumerate(handles)})
    rank = next(c.rank for h, c in deck.known(0).items() if not c.is_joker)
    where = {h: s for s in range(3) for h, c in deck.known(s).items() if c.rank == rank and not c.is_joker}
    assert len(where) == 4
    of_1 = [h for h, s in where.items() if s == 1]
    if of_1:  # one of seat 1's goes to seat 2 first: it reaches seat 0 renamed twice
        moved = deck.transfer(of_1[:1], 2)
        where = {**{h: s for h, s in where.items() if h != of_1[0]}, moved[0]: 2}
    others = sorted(h for h, s in where.items() if s != 0)
    new = deck.transfer(others, 0) if others else []
    quads = sorted([h for h, s in where.items() if s == 0] + list(new))
    assert {deck.known(0)[h].rank for h in quads} == {rank}
    return deck, quads, rank


@pytest.fixture(scope="module")
def table():
    return seat_with_quads()


def verdicts(deck, index, seat, handles, proof, sets=RANK_SETS):
    """What every seat other than ``seat`` says of the claim (None: it stands)."""
    return {p.seat: p.check_claim(index, seat, handles, sets, proof) for p in deck.parties if p.seat != seat}


def test_true_quads_stand_at_every_seat(table):
    deck, quads, _ = table
    proof = deck.parties[0].prove_claim(7, quads, RANK_SETS)
    assert verdicts(deck, 7, 0, quads, proof) == {1: None, 2: None}


def test_the_claim_does_not_show_the_rank(table):
    """One proof branch per rank and card, the real rank's as random as the others'."""
    deck, quads, _ = table
    proof = deck.parties[0].prove_claim(7, quads, RANK_SETS)
    assert len(proof["c"]) == 13 and all(len(row) == 4 for row in proof["c"])


def test_a_false_claim_is_refused_and_cannot_be_proven(table):
    """Three of the rank and another card: the honest prover refuses to make it; the proof of
    the true quads moved onto it (or any proof) is refused at every seat."""
    deck, quads, rank = table
    other = next(h for h, c in deck.known(0).items() if c.rank != rank and h not in quads)
    false = sorted(quads[:3] + [other])
    with pytest.raises(ValueError):
        deck.parties[0].prove_claim(7, false, RANK_SETS)
    proof = deck.parties[0].prove_claim(7, quads, RANK_SETS)
    assert all("does not hold" in v for v in verdicts(deck, 7, 0, false, proof).values())


def test_a_proof_over_another_seats_card_is_refused(table):
    """Seat 1 presents seat 0's true quads (and the proof seat 0 made) as its own claim: the
    cards are not seat 1's, which the public record of holders says at every seat."""
    deck, quads, _ = table
    proof = deck.parties[0].prove_claim(7, quads, RANK_SETS)
    got = {p.seat: p.check_claim(7, 1, quads, RANK_SETS, proof) for p in deck.parties}
    assert all(v is not None and "not held by seat 1" in v for v in got.values()), got
    with pytest.raises(ValueError, match="not held"):
        deck.parties[1].prove_claim(7, quads, RANK_SETS)


def test_a_replayed_proof_is_refused(table):
    """The proof of move 7 at move 9, or in another order of the cards: refused."""
    deck, quads, _ = table
    proof = deck.parties[0].prove_claim(7, quads, RANK_SETS)
    assert all("does not hold" in v for v in verdicts(deck, 9, 0, quads, proof).values())
    assert all("does not hold" in v for v in verdicts(deck, 7, 0, quads[::-1], proof).values())


@pytest.mark.parametrize(
    "handles",
    [[], [1, 1, 2, 3], "x", [True], [10**9], [-1]],
)
def test_malformed_claims_are_refused(table, handles):
    deck, quads, _ = table
    proof = deck.parties[0].prove_claim(7, quads, RANK_SETS)
    assert all(v is not None for v in verdicts(deck, 7, 0, handles, proof).values())


@pytest.mark.parametrize("proof", [None, {}, {"c": [], "f": []}, "proof", {"c": [[[b"\x01" * 32]]], "f": 1}])
def test_malformed_proofs_are_refused(table, proof):
    deck, quads, _ = table
    assert all(v is not None for v in verdicts(deck, 7, 0, quads, proof).values())


def test_a_joker_is_no_card_of_any_rank(table):
    deck, quads, _ = table
    jokers = [
        h
        for s in range(3)
        for h, c in deck.known(s).items()
        if c.is_joker and deck.parties[0].cards_by_handle[h].holder == 0
    ]
    if not jokers:
        pytest.skip("seat 0 holds no joker in this deal")
    false = sorted(quads[:3] + jokers[:1])
    proof = deck.parties[0].prove_claim(7, quads, RANK_SETS)
    assert all(v is not None for v in verdicts(deck, 7, 0, false, proof).values())

"""Privacy against N-1 colluders, and uniformity of the permutation derivation."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from p2pcards.deck import group
from p2pcards.deck.derive import Secrets

from .deck_helpers import make_deck


def _leaves(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


@pytest.mark.slow  # many deck operations
def test_all_but_one_pooling_secrets_and_messages_cannot_decode_the_last_hand():
    players, victim = 4, 2
    pooled: list[dict] = []

    def record(sender, receiver, message):
        if receiver != victim:  # everything any colluder receives
            pooled.append(message)
        return message

    deck = make_deck(players, 52, tamper=record)
    handles = deck.shuffle()
    deal = {h: h % players for h in handles[:20]}
    deck.deal(deal)
    game_id = deck.parties[0].game_id
    table = set(deck.parties[0].table)
    colluders = [Secrets(deck.parties[s]._seed, game_id) for s in range(players) if s != victim]

    # Every scalar the colluders could try: whatever they derive, and every 32-byte value in
    # every message they saw that is a valid scalar.
    candidates = {k.card_key(h) for k in colluders for h in handles} | {k.shuffle_key(0) for k in colluders}
    for leaf in _leaves(pooled):
        try:
            candidates.add(group.check_scalar(leaf))
        except group.InvalidScalar:
            pass
    victim_secrets = Secrets(deck.parties[victim]._seed, game_id)
    never_sent = {victim_secrets.shuffle_key(0)} | {victim_secrets.card_key(h) for h, s in deal.items() if s == victim}
    assert not never_sent & set(_leaves(pooled)), "the victim's keys for its own cards never left it"

    victim_cards = [h for h, s in deal.items() if s == victim]
    for handle in victim_cards:
        point = deck.parties[0].cards_by_handle[handle].point
        stripped = group.multiply(group.invert(group.scalar_product(k.card_key(handle) for k in colluders)), point)
        assert stripped not in table  # one lock left: the victim's
        for candidate in candidates:
            assert group.multiply(group.invert(candidate), stripped) not in table
    # and yet the colluders decode their own cards: the attack above is the honest path
    for handle, seat in deal.items():
        if seat != victim:
            assert handle in deck.known(seat) and handle not in deck.known(victim)


# Fairness. The derivation is deterministic per seed, so these tests cannot flake: the seeds are
# fixed. Thresholds are the chi-square critical values at p = 0.001.
CHI2_CRITICAL_P001 = {5: 20.52, 9: 27.88, 23: 49.73}


def _chi_square(counts, expected):
    return sum((c - expected) ** 2 / expected for c in counts)


def _permutation(seed: int, n: int) -> list[int]:
    return Secrets(seed.to_bytes(32, "big"), b"fairness").permutation(0, n)


def test_every_permutation_of_four_equally_likely():
    samples = 12_000
    counts = Counter(tuple(_permutation(i, 4)) for i in range(samples))
    assert set(counts) == set(itertools.permutations(range(4)))
    chi2 = _chi_square([counts[p] for p in itertools.permutations(range(4))], samples / 24)
    assert chi2 < CHI2_CRITICAL_P001[23], chi2


def test_every_card_lands_in_every_position_equally_often():
    samples, n = 10_000, 10
    positions = [Counter() for _ in range(n)]
    for i in range(samples):
        perm = _permutation(i, n)
        for position, card in enumerate(perm):
            positions[card][position] += 1
    for card in range(n):
        chi2 = _chi_square([positions[card][p] for p in range(n)], samples / n)
        assert chi2 < CHI2_CRITICAL_P001[9], (card, chi2)


def test_small_bounds_are_unbiased():
    stream = group.words(group.prf_stream(b"s" * 32, "bias"))
    draws = Counter(group.uniform_below(6, stream) for _ in range(12_000))
    assert _chi_square([draws[v] for v in range(6)], 2_000) < CHI2_CRITICAL_P001[5]


def _placed_card_position(seed):
    """Seat 0 puts one card on a pile, seats 1 and 2 one each, seat 2 picks the pile up: where
    among the new handles does seat 0's card land, and what does seat 0 know of them?"""
    deck = make_deck(3, 12, seed=seed)
    handles = deck.shuffle()
    deck.deal({h: h % 3 for h in handles[:9]})
    pile = [handles[0], handles[1], handles[5]]  # seat 0's card is the lowest handle
    new = deck.transfer(pile, 2)
    placer = deck.parties[0]
    assert not set(new) & set(deck.known(0)), "the placer learns no new handle's face"
    assert all(placer.cards_by_handle[h].link.parent is None for h in new)
    rehandle = placer.transcript[len(placer.ops) - 1][("rehandle", 2)]
    # which handles moved is public (the transfer says so); which became which is not
    assert set(rehandle) == {"type", "op", "moved", "sorted", "key", "proof", "points", "factors"}
    assert rehandle["moved"] == sorted(pile)
    mine = deck.known(0)[handles[0]]
    return [deck.known(2)[h] for h in new].index(mine)


@pytest.mark.slow  # many deck operations
def test_after_a_pickup_the_placer_cannot_find_its_card_among_the_new_handles():
    positions = Counter(_placed_card_position(seed) for seed in range(24))
    assert set(positions) == {0, 1, 2}, positions  # sorted points: the old order is gone


def test_a_card_that_comes_back_shows_nothing_of_the_other_cards_moved_with_it():
    """Deck protocol 3's per-card factor (the lead's correction of issue 32): seat 0 puts two
    cards down, seat 1 picks them up, and one of them comes back to seat 0, which then knows
    that card's scalar before and after seat 1's re-handling. Their ratio is that card's own
    factor times seat 1's scalar: applied to seat 0's other card it does not give that card's
    new point (with one scalar for the whole transfer it would, and seat 0 would know which of
    seat 1's hidden cards is its own)."""
    deck = make_deck(3, 20)
    handles = deck.shuffle()
    deck.deal({h: h % 3 for h in handles[:9]})
    seat0, seat1 = deck.parties[0], deck.parties[1]
    mine = [handles[0], handles[3]]
    before = {h: seat0._x_of(h) for h in mine}  # seat 0 holds both: every lock of each
    picked = deck.transfer(mine, 1)
    back = next(h for h in picked if deck.known(1)[h] == deck.known(0)[handles[0]])
    other = next(h for h in picked if h != back)
    deck.transfer([back], 0)
    after = seat0.cards_by_handle[back].x  # what seat 1 opened it to seat 0 with
    assert after is not None
    ratio = group.mul(after, group.invert(before[handles[0]]))
    point_of_other = seat0.cards_by_handle[handles[3]].point
    assert group.multiply(ratio, point_of_other) != seat0.cards_by_handle[other].point
    # (what it is instead: seat 1's own factor for that card, which seat 0 never learns)
    j = list(picked).index(other)
    y = seat1._rehandle_key(len(seat1.ops) - 2)
    factor = group.mul(seat1._own_secrets.rehandle_factor(len(seat1.ops) - 2, j), y)
    assert group.multiply(factor, point_of_other) == seat0.cards_by_handle[other].point

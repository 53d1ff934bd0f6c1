"""A seat drops out of the deck (protocol/deck.md §4.6, issue 30): it publishes its key of every
card nobody holds, never of its own; the others go on without it, later shuffles too; the audit
needs no seed of it; and its set-aside cards cannot be decoded from everything ever sent."""

from __future__ import annotations

import pytest

from p2pcards.deck import group
from p2pcards.deck.derive import Secrets
from p2pcards.deck.party import DropOp

from .deck_helpers import every_face, make_deck
from .test_privacy_fairness import _leaves

DROPPER = 1


def _play_a_drop(players: int = 3, cards: int = 20):
    """Shuffle, deal 3 cards to each seat, seat 1 drops out; then the stock is still opened
    (a public card, a card dealt to seat 2), seat 2 shows a card it held before the drop, and
    a second hand is shuffled, dealt and partly shown without seat 1. Every message any seat
    sent, to anyone, is in ``pooled``."""
    pooled: list[tuple[int, int, dict]] = []

    def record(sender, receiver, message):
        pooled.append((sender, receiver, message))
        return message

    deck = make_deck(players, cards, tamper=record)
    handles = deck.shuffle()
    deal = {h: i % players for i, h in enumerate(handles[: 3 * players])}
    deck.deal(deal)
    set_aside = sorted(h for h, s in deal.items() if s == DROPPER)
    stock = handles[3 * players :]
    deck.drop_out(DROPPER)
    starter = deck.reveal([stock[0]], None)
    deck.deal({stock[1]: 2})
    assert stock[1] in deck.known(2) and stock[1] not in deck.known(0)
    held = next(h for h, s in deal.items() if s == 2)
    shown = deck.reveal([held], 2)
    second = deck.shuffle()
    deck.deal({h: (0, 2)[i % 2] for i, h in enumerate(second[:6])})
    deck.reveal([second[0]], 0)
    deck.reveal([second[7]], None)
    return deck, pooled, set_aside, stock, starter, shown, deal


@pytest.mark.slow  # two shuffles with proofs and an audit
def test_the_game_goes_on_without_the_seat_and_the_audit_needs_no_seed_of_it():
    deck, pooled, set_aside, stock, starter, shown, deal = _play_a_drop()
    drops = [m for s, _, m in pooled if m["type"] == "drop"]
    assert {s for s, _, m in pooled if m["type"] == "drop"} == {DROPPER}
    assert drops[0]["handles"] == sorted(stock)  # a key for every stock card, none for its own
    assert not set(drops[0]["handles"]) & set(set_aside)
    assert set(starter) == {stock[0]}
    # Nothing from the dropper after its drop message: no pass of the second shuffle, no seed.
    first = next(i for i, p in enumerate(pooled) if p[2]["type"] == "drop")
    assert [m["type"] for s, _, m in pooled[first:] if s == DROPPER] == ["drop"] * (deck.players - 1)
    party = deck.parties[0]
    assert party.pass_order(1) == [("shuffle", 0), ("shuffle", 2), ("relock", 2), ("relock", 0)]
    faces = every_face(deck)
    assert [p.blame for p in deck.playing] == [None, None]
    # The first hand is finished: only the faces opened to all, or held by a seat still
    # playing, are known; the second is known in full (its stock opened by every_face).
    assert faces[stock[0]] == starter[stock[0]] and set(shown) <= set(faces)
    assert not set(set_aside) & set(faces)
    assert stock[1] not in party.public_faces  # dealt to seat 2 and never shown
    n = party.n
    assert all(h in faces for h in range(n, 2 * n))


@pytest.mark.slow
def test_the_set_aside_cards_cannot_be_decoded_from_every_transcript_put_together():
    """Every message any seat sent to anyone (private openings included), every seed revealed
    and the seeds of every other seat (their data folders): with all of it, the cards the dropper
    set aside stay locked under its key."""
    deck, pooled, set_aside, _stock, _starter, _shown, _deal = _play_a_drop()
    deck.open_all()
    party = deck.parties[0]
    game_id = party.game_id
    others = [Secrets(deck.parties[s]._seed, game_id) for s in range(deck.players) if s != DROPPER]
    dropper = Secrets(deck.parties[DROPPER]._seed, game_id)  # the test knows it; nobody else
    leaves = set(_leaves([m for _, _, m in pooled]))
    assert not {dropper.card_key(h) for h in set_aside} & leaves, "its keys of its own cards never left it"
    assert dropper.shuffle_key(0) not in leaves
    candidates = {k.card_key(h) for k in others for h in range(party.n)} | {k.shuffle_key(0) for k in others}
    for leaf in leaves:
        try:
            candidates.add(group.check_scalar(leaf))
        except group.InvalidScalar:
            pass
    table = set(party.table)
    # What the other seats' folders hold of those cards: every other seat's lock (their
    # seeds), not the dropper's.
    for handle in set_aside:
        point = deck.parties[DROPPER].cards_by_handle[handle].point
        stripped = group.multiply(group.invert(group.scalar_product(k.card_key(handle) for k in others)), point)
        assert stripped not in table
        for candidate in candidates:
            assert group.multiply(group.invert(candidate), stripped) not in table
        # The decoder works: with the dropper's own key, the card comes out.
        assert group.multiply(group.invert(dropper.card_key(handle)), stripped) in table


def test_a_set_aside_card_cannot_be_named_by_a_later_operation():
    deck = make_deck(3, 12)
    handles = deck.shuffle()
    deck.deal({h: i % 3 for i, h in enumerate(handles[:6])})
    deck.drop_out(DROPPER)
    theirs = handles[DROPPER]
    with pytest.raises(ValueError, match="set aside"):
        deck.reveal([theirs], DROPPER)
    with pytest.raises(ValueError):
        deck.run_op(DropOp(DROPPER))  # once only


def _drop_with_moved_cards():
    """Deck protocol 3 with a drop-out: seat 0 passes its two cards to the dropper (a transfer,
    so the dropper re-handles them: its scalar and per-card factors, from a seed it never
    reveals), the dropper shows the first to all (a face proof, no scalar), then drops out."""
    deck = make_deck(3, 12)
    handles = deck.shuffle()
    deck.deal({h: i % 3 for i, h in enumerate(handles[:6])})
    seat0 = deck.parties[0]
    mine = [h for h in handles[:6] if seat0.cards_by_handle[h].holder == 0]
    before = [seat0._x_of(h) for h in mine]
    moved = deck.transfer(mine, DROPPER)
    shown = deck.reveal([moved[0]], DROPPER)
    deck.drop_out(DROPPER)
    return deck, before, moved, shown


@pytest.mark.parametrize("step", ["transfer", "reveal"])
def test_no_later_operation_may_need_the_droppers_scalar_of_a_moved_card(step):
    """Its public re-handled card cannot be moved on (its receiver would need the scalar only
    the dropper knows), its hidden one is set aside: a game that tried either is a
    programming error at every seat, not a stall naming the seat that dropped out."""
    deck, _before, moved, _shown = _drop_with_moved_cards()
    if step == "transfer":
        with pytest.raises(ValueError, match="only a seat that dropped out"):
            deck.transfer([moved[0]], 2)
    else:
        with pytest.raises(ValueError, match="set aside"):
            deck.reveal([moved[1]], DROPPER)


@pytest.mark.slow  # an audit
def test_a_moved_card_the_dropper_holds_stays_hidden():
    """Its hidden re-handled card stays hidden even to seat 0, which knew that card's scalar
    before the transfer, with every seed but the dropper's (their data folders); the public
    one keeps the face its proof showed."""
    deck, before, moved, shown = _drop_with_moved_cards()
    seat0 = deck.parties[0]
    drop_message = seat0.transcript[len(seat0.ops) - 1][("drop", DROPPER)]
    assert not set(drop_message["handles"]) & set(moved)  # no key for a card it holds
    hidden = moved[1]
    faces = every_face(deck)
    assert [p.blame for p in deck.playing] == [None, None]
    assert faces.get(moved[0]) == shown[moved[0]]
    assert hidden not in faces
    table = set(seat0.table)
    point = seat0.cards_by_handle[hidden].point
    game_id = seat0.game_id
    others = [Secrets(deck.parties[s]._seed, game_id) for s in range(deck.players) if s != DROPPER]
    op = next(i for i, o in enumerate(seat0.ops) if type(o).__name__ == "TransferOp")
    guesses = list(before)
    guesses += [group.mul(k.rehandle_factor(op, j), x) for k in others for j in range(2) for x in before]
    for guess in guesses:
        assert group.multiply(group.invert(guess), point) not in table
    # The dropper itself decodes it.
    x = deck.parties[DROPPER].cards_by_handle[hidden].x
    assert x is not None and group.multiply(group.invert(x), point) in table

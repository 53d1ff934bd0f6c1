"""A finished hand (protocol/deck.md section 6, "Finished hands"): what a party keeps of it, the
audit from that and from the store, and the rules that let it go (issue 23). Real crypto, the
in-process deck."""

from __future__ import annotations

import pytest

from p2pcards.deck.audit import audit
from p2pcards.deck.backend import DeckFault
from p2pcards.deck.party import FIRST_REHANDLED, Party, ShuffleOp
from p2pcards.deck.store import MemoryStore, StoreError

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


def test_a_finished_hand_is_packed_and_the_audits_agree_with_a_party_that_keeps_everything():
    deck = make_deck(PLAYERS, CARDS, full_audit="none")
    play_hands(deck, 4)
    party = deck.parties[1]
    assert party.finished_hands == 3  # the fourth is the hand in progress
    assert {h // CARDS for h in party.cards_by_handle if h < FIRST_REHANDLED} == {3}
    assert all(h >= party._hand_handles[3] for h in party.cards_by_handle if h >= FIRST_REHANDLED)
    assert min(party.transcript) >= party._shuffle_ops[3]
    assert all(h // CARDS == 3 or h >= party._hand_handles[3] for h in party.known)
    stored = party.store.get(0)
    assert ("shuffle", 0) in stored[party._shuffle_ops[0]]
    faces = every_face(deck)
    light, full = audit(party, full=False), audit(party, full=True)  # again, seeds known now
    assert light.blame is None and full.blame is None and light.incomplete is None
    assert dict(light.faces) == dict(full.faces) == faces and len(faces) == 4 * CARDS + 4 * 2


class _Unreadable(MemoryStore):
    def get(self, hand):
        raise StoreError("gone")


def _audit_with_unreadable_stores(party_factory=None):
    """Three hands played with every seat's store unreadable, then the full audit: it ends
    with every face and nobody named. Returns the parties, for what their audit says."""
    factory = {} if party_factory is None else {"party_factory": party_factory}
    deck = make_deck(PLAYERS, CARDS, full_audit="all", **factory)
    for party in deck.parties:
        party.store = _Unreadable()
    play_hands(deck, 3)
    faces = deck.open_all()  # the faces the table saw (issue 32): the ones opened to all
    assert faces == deck.parties[0].public_faces and len(faces) == 3 * 2
    assert all(party.blame is None for party in deck.parties)
    return deck.parties


def test_an_unreadable_store_leaves_the_audit_incomplete_and_names_nobody():
    for party in _audit_with_unreadable_stores():
        assert "could not be completed" in party.audit_incomplete
        assert "gone" in party.audit_incomplete


def test_opening_a_card_of_a_finished_hand_is_refused():
    deck = make_deck(PLAYERS, CARDS)
    stocks = play_hands(deck, 2)
    with pytest.raises(ValueError, match="of a hand before the last shuffle"):
        deck.reveal([stocks[0][11]], None)


class _OffSeedInHandZero(Party):
    """Shuffles hand 0 by another permutation than its seed derives (a proven, fair shuffle):
    only the audit finds it, after the hand was packed."""

    def _permutation(self, epoch):
        perm = super()._permutation(epoch)
        return perm[::-1] if epoch == 0 else perm


def _audit_after_three_hands(cheater: int, party_class: type[Party], full_audit: str):
    """Three hands with ``party_class`` at seat ``cheater`` (two of them packed by then): the
    deck and the blames of the audit at the end, at every seat."""

    def factory(seat, *args, **kwargs):
        return (party_class if seat == cheater else Party)(seat, *args, **kwargs)

    deck = make_deck(PLAYERS, CARDS, full_audit=full_audit, party_factory=factory)
    play_hands(deck, 3)
    assert deck.parties[0].finished_hands == 2
    with pytest.raises(DeckFault) as fault:
        deck.open_all()
    return deck, list(fault.value.blames.values())


@pytest.mark.parametrize("full_audit", ["none", "all"])
def test_the_audit_names_a_deviation_of_a_finished_hand_from_the_store(full_audit):
    deck, blames = _audit_after_three_hands(1, _OffSeedInHandZero, full_audit)
    for blame in blames:
        assert blame.seat == 1 and blame.step == "shuffle" and blame.op == deck.parties[0]._shuffle_ops[0]


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


def test_a_deviation_in_a_finished_hand_with_an_unreadable_store_is_noted_not_blamed():
    """The store cannot give the hand back, so nothing can place the deviation: the audit says
    so, names nobody, and the faces are the ones the seeds derive."""

    def factory(seat, *args, **kwargs):
        return (_OffSeedInHandZero if seat == 1 else Party)(seat, *args, **kwargs)

    for party in _audit_with_unreadable_stores(factory):
        assert "found a difference" in party.audit_incomplete and "decoded as" in party.audit_incomplete


class _OffSeedInHandTwo(Party):
    """Like :class:`_OffSeedInHandZero`, in hand 2: the hand in progress at the audit, whose
    messages are in memory."""

    def _permutation(self, epoch):
        perm = super()._permutation(epoch)
        return perm[::-1] if epoch == 2 else perm


def test_an_unreadable_store_does_not_spare_a_deviation_in_the_hand_in_memory():
    """A finished hand's store that cannot be read leaves that hand to the light checks, not
    the hand in progress: its messages are in memory, recomputed in full, and a deviation in it
    names its author as it would with a readable store (review of issue 23)."""

    def factory(seat, *args, **kwargs):
        return (_OffSeedInHandTwo if seat == 1 else Party)(seat, *args, **kwargs)

    deck = make_deck(PLAYERS, CARDS, full_audit="all", party_factory=factory)
    for party in deck.parties:
        party.store = _Unreadable()
    play_hands(deck, 3)
    assert deck.parties[0].finished_hands == 2
    with pytest.raises(DeckFault) as fault:
        deck.open_all()
    assert set(fault.value.blames) == set(range(PLAYERS))
    for blame in fault.value.blames.values():
        assert blame.seat == 1 and blame.step == "shuffle" and blame.op == deck.parties[0]._shuffle_ops[2]


class _OffSeedRehandleInHandZero(Party):
    """Re-handles hand 0's transfer under a scalar its seed does not derive (a proven,
    fair re-handling): only the audit finds it, after the hand was packed."""

    def _rehandle_key(self, op):
        return super()._rehandle_key(op + 10**6 if self._hand_of_op(op) == 0 else op)


@pytest.mark.parametrize("full_audit", ["none", "all"])
def test_the_audit_names_an_off_seed_rehandling_of_a_finished_hand(full_audit):
    deck, blames = _audit_after_three_hands(2, _OffSeedRehandleInHandZero, full_audit)
    for blame in blames:
        assert blame.seat == 2 and blame.step == "rehandle" and blame.op == deck.parties[0]._shuffle_ops[0] + 3

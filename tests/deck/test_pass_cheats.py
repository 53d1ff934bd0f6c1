"""Every way to bend a pass, by every seat, with 3, 4 and 7 players: caught at that pass by every
honest seat, before any card is opened, naming the cheater and only the cheater.

The cheating seat computes its pass honestly, bends the output deck, and proves the bent deck
with its honest witness (the best a cheater without a forgery can do; the stale honest proof
fails the same way). A pass is checked by every other seat as it arrives (protocol/deck.md §5).
"""

from __future__ import annotations

import pytest
from nacl import bindings as na

from p2pcards.deck import Party
from p2pcards.deck.backend import DeckFault
from p2pcards.deck.derive import card_table
from p2pcards.deck.group import batch_invert, invert, mul, multiply, prf_scalar, scalar_product
from p2pcards.deck.passes import make_relock, make_shuffle
from p2pcards.deck.proofs import public_key

from .deck_helpers import make_deck

TAG = prf_scalar(b"t" * 32, "tag")


def _copy(points):
    points[1] = multiply(TAG, points[0])  # one card at two positions (another factor: distinct)


def _sum(points):
    points[0] = na.crypto_core_ed25519_add(points[0], points[1])  # two cards in one position


def _tag(points):
    points[2] = multiply(TAG, points[2])  # a card it can recognise later


def _substitute(points):
    points[3] = multiply(TAG, card_table(b"elsewhere", ("Ah#0",))[0])


def _move(points):
    points[0], points[1] = points[1], points[0]


def _drop(points):
    points[4] = multiply(TAG, points[5])  # card 4 gone, card 5 twice


SHUFFLE_CHEATS = {"copy": _copy, "sum": _sum, "tag": _tag, "substitute": _substitute}
RELOCK_CHEATS = {"move": _move, "copy": _copy, "drop": _drop, "tag": _tag}


def cheating_party(kind: str, bend):
    class Bends(Party):
        def _make_pass(self, index, epoch, step, deck):
            message = super()._make_pass(index, epoch, step, deck)
            if step != kind:
                return message
            points = list(message["points"])
            bend(points)
            proof_key = self.secrets.proof_key()
            key = self._shuffle_key(epoch)
            if step == "shuffle":
                return make_shuffle(
                    self.game_id, index, self.seat, deck, points, key, self._permutation(epoch), proof_key
                )
            base = epoch * self.n
            z = [mul(self._card_key(base + j), invert(key)) for j in range(self.n)]
            return make_relock(
                self.game_id, index, self.seat, deck, points, key, self._card_public_keys(epoch), z, proof_key
            )

    return Bends


CASES = [(k, name) for k, cheats in (("shuffle", SHUFFLE_CHEATS), ("relock", RELOCK_CHEATS)) for name in cheats]


#: Seven seats: slow (tests/conftest.py), seconds of crypto each.
# Three seats in the fast tier (a first, a middle and a last seat cheat); four and seven in the whole suite.
PLAYERS = [3, pytest.param(4, marks=pytest.mark.slow), pytest.param(7, marks=pytest.mark.slow)]


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize(("kind", "cheat"), CASES, ids=[f"{k}-{c}" for k, c in CASES])
def test_a_bent_pass_is_caught_at_that_pass_by_every_honest_seat(players, kind, cheat):
    bend = (SHUFFLE_CHEATS if kind == "shuffle" else RELOCK_CHEATS)[cheat]
    for cheater in range(players):  # every seat position, the last one included
        factory = cheating_party(kind, bend)
        deck = make_deck(
            players,
            cards=12,
            seed=f"{players}-{cheater}",
            party_factory=lambda seat, *a, **k: (factory if seat == cheater else Party)(seat, *a, **k),
        )
        with pytest.raises(DeckFault) as info:
            handles = deck.shuffle()
            deck.deal({h: h % players for h in handles})
        blames = info.value.blames
        honest = [s for s in range(players) if s != cheater]
        assert set(blames) >= set(honest), blames
        for seat in honest:
            blame = blames[seat]
            assert (blame.step, blame.seat, blame.op) == (kind, cheater, 0), blame
            assert "proof fails" in blame.reason
            # Caught at the pass: no seat opened a single card.
            assert deck.parties[seat].known == {}


def test_a_coalition_of_all_but_one_decodes_nothing_of_the_honest_seats_hand():
    """Pooling every secret but seat 0's and every message, the others strip their own keys
    from each card dealt to seat 0: what is left is still locked by seat 0's key."""
    players = 4
    deck = make_deck(players, cards=16, seed="coalition")
    handles = deck.shuffle()
    deck.deal({h: h % players for h in handles})
    party = deck.parties[1]
    table = set(party.table)
    for handle in handles[::players]:  # seat 0's cards
        card = party.cards_by_handle[handle]
        pooled = [deck.parties[s]._card_key(handle) for s in range(1, players)]
        (inverse,) = batch_invert([scalar_product(pooled)])
        assert multiply(inverse, card.point) not in table
        assert public_key(deck.parties[0]._card_key(handle)) == card.locks[0]


class SwapsAtRehandle(Party):
    """Picking up cards, re-handles one of its own cards in place of a moved one (a card it
    would rather keep hidden, or one it wants to track), proven with its honest witness."""

    def _make_rehandle(self, index, handles):
        mine = next(
            h
            for h, c in sorted(self.cards_by_handle.items())
            if c.holder == self.seat and h not in handles and not c.retired
        )
        swapped = self.cards_by_handle[handles[0]]
        saved, swapped.point = swapped.point, self.cards_by_handle[mine].point
        try:
            return super()._make_rehandle(index, handles)
        finally:
            swapped.point = saved


@pytest.mark.parametrize("players", PLAYERS)
def test_a_rehandling_that_swaps_a_moved_card_is_caught_at_the_transfer(players):
    for cheater in range(players):
        deck = make_deck(
            players,
            cards=3 * players,
            seed=f"swap-{players}-{cheater}",
            party_factory=lambda seat, *a, **k: (SwapsAtRehandle if seat == cheater else Party)(seat, *a, **k),
        )
        handles = deck.shuffle()
        deck.deal({h: h % players for h in handles[: 2 * players]})
        others = [h for h in handles[: 2 * players] if h % players != cheater][:2]
        with pytest.raises(DeckFault) as info:
            deck.transfer(others, cheater)
        for seat in range(players):
            if seat != cheater:
                blame = info.value.blames[seat]
                assert (blame.step, blame.seat) == ("rehandle", cheater), blame
                assert "proof fails" in blame.reason


@pytest.mark.parametrize("players", [3, 7])
def test_an_operations_shuffle_proofs_checked_together_name_the_same_seat(players):
    """passes.check_shuffles_together (the public checks of verify without every seed): an
    honest operation's shuffle proofs hold together, and check_pass then finds them checked; a
    bent pass anywhere fails the batch, and the checks one by one name its author, as before."""
    from p2pcards.deck import passes

    deck = make_deck(players, cards=12, seed=f"together-{players}")
    deck.shuffle()
    party = deck.parties[0]
    record = party.transcript[0]
    order = passes.pass_order(players)
    honest = [(kind, seat, record[(kind, seat)]) for kind, seat in order]
    assert passes.check_shuffles_together(party.game_id, 0, honest, party.table)
    assert not passes.check_shuffles_together(party.game_id, 1, honest, party.table)  # another op

    for cheater in range(players):
        bent = list(honest)
        cheat = deck.parties[cheater]
        inputs = party.table if cheater == 0 else honest[cheater - 1][2]["points"]
        points = list(honest[cheater][2]["points"])
        _copy(points)
        message = make_shuffle(
            party.game_id,
            0,
            cheater,
            inputs,
            points,
            cheat._shuffle_key(0),
            cheat._permutation(0),
            cheat.secrets.proof_key(),
        )
        bent[cheater] = ("shuffle", cheater, message)
        assert not passes.check_shuffles_together(party.game_id, 0, bent, party.table)
        deck_in, keys = list(party.table), {}
        with pytest.raises(passes.PassError, match="proof fails"):
            for kind, seat, msg in bent:
                try:
                    passes.check_pass(party.game_id, 0, kind, seat, msg, deck_in, keys)
                except passes.PassError:
                    assert (kind, seat) == ("shuffle", cheater)
                    raise
                deck_in = msg["points"]
                if kind == "shuffle":
                    keys[seat] = msg["key"]

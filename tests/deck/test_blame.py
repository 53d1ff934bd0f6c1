"""Every deviation is detected and the right seat blamed, at every honest seat alike."""

from __future__ import annotations

import copy
import os
from collections import Counter

import pytest
from nacl import bindings as na

from p2pcards.deck import Party, Send
from p2pcards.deck.backend import DeckFault
from p2pcards.deck.group import multiply, prf_scalar

from .deck_helpers import bad_points, every_face, make_deck


def verdict(excinfo, honest=None, cheater=None) -> tuple[str, int]:
    """The (step, seat) of a DeckFault, checking every honest seat that reached one agrees.
    A message changed on the way is the sender's own copy unchanged, so its view is left out."""
    fault: DeckFault = excinfo.value
    seats = set(fault.blames) if honest is None else set(fault.blames) & set(honest)
    seats.discard(cheater)
    verdicts = {(fault.blames[s].step, fault.blames[s].seat) for s in seats}
    assert len(verdicts) == 1, fault.blames
    return verdicts.pop()


def tamper_when(kind, sender, change, receiver=None):
    """A tamper hook changing (a copy of) messages of ``kind`` from ``sender``."""

    def hook(s, r, message):
        if message.get("type") == kind and s == sender and (receiver is None or r == receiver):
            message = copy.deepcopy(message)
            return change(message)
        return message

    return hook


def random_point() -> bytes:
    return na.crypto_core_ed25519_from_uniform(os.urandom(32))


# -- keys -------------------------------------------------------------------------------------------


def test_wrong_key_blames_its_sender():
    def wrong(message):
        message["scalars"][0][0][1] = prf_scalar(b"x" * 32, "wrong")
        return message

    deck = make_deck(4, tamper=tamper_when("open", 1, wrong, receiver=0))
    handles = deck.shuffle()
    with pytest.raises(DeckFault) as info:
        deck.deal({h: 0 for h in handles[:3]})
    assert verdict(info, cheater=1) == ("open", 1)
    assert set(info.value.blames) >= {0, 2, 3}, "the others checked the receiver's evidence"


def test_key_for_another_position_blames_its_sender():
    def swap(message):
        s = message["scalars"]
        s[0][0][1], s[1][0][1] = s[1][0][1], s[0][0][1]
        return message

    deck = make_deck(4, tamper=tamper_when("open", 3, swap, receiver=0))
    handles = deck.shuffle()
    with pytest.raises(DeckFault) as info:
        deck.deal({h: 0 for h in handles[:3]})
    assert verdict(info, cheater=3) == ("open", 3)


@pytest.mark.parametrize("where", ["lock", "handle", "op"])
def test_a_number_sent_as_a_float_or_bool_names_its_sender(where):
    """msgpack carries floats, and 0.0 == 0 in Python: an opening with a float (or a bool)
    where an integer belongs is its sender's fault, not a crash of the seat that reads it."""

    def floats(message):
        if where == "lock":
            message["scalars"][0][0][0] = float(message["scalars"][0][0][0])
        elif where == "handle":
            message["handles"][0] = float(message["handles"][0])
        else:
            message["op"] = True if message["op"] == 1 else float(message["op"])
        return message

    deck = make_deck(3, tamper=tamper_when("open", 2, floats))
    handles = deck.shuffle()
    with pytest.raises(DeckFault) as info:
        deck.reveal(handles[:2], None)
    assert verdict(info, cheater=2) == ("open", 2)


def test_a_float_lock_of_a_rehandled_card_names_its_sender():
    """A re-handled card goes on by its cumulative scalar, lock N (deck protocol 3): a float
    for N is no lock, and the receiver's evidence names the sender at every seat."""

    def floats(message):
        if message["scalars"][0][0][0] == 3:  # a re-handled card's scalar (not a deal's lock)
            message["scalars"][0][0][0] = float(message["scalars"][0][0][0])
        return message

    deck = make_deck(3, tamper=tamper_when("open", 1, floats, receiver=2))
    handles = deck.shuffle()
    deck.deal({h: h % 3 for h in handles[:9]})
    new = deck.transfer([handles[0], handles[2]], 1)
    with pytest.raises(DeckFault) as info:
        deck.transfer(new, 2)
    assert verdict(info, cheater=1) == ("open", 1)


def test_a_wrong_cumulative_scalar_names_its_sender_at_every_seat():
    """The holder of a re-handled card passes it on with its scalar x (point = x * card): one
    that does not open the point to a card of the table names the sender, at the receiver
    and, through its evidence, at every other seat (deck protocol 3)."""

    def wrong(message):
        if message["scalars"][0][0][0] == 3:  # a re-handled card's scalar (not a deal's lock)
            message["scalars"][0][0][1] = prf_scalar(b"x" * 32, "wrong")
        return message

    deck = make_deck(3, tamper=tamper_when("open", 1, wrong, receiver=0))
    handles = deck.shuffle()
    deck.deal({h: h % 3 for h in handles[:9]})
    new = deck.transfer([handles[0], handles[2]], 1)
    with pytest.raises(DeckFault) as info:
        deck.transfer(new, 0)
    assert verdict(info, cheater=1) == ("open", 1)
    assert "does not open it to a card" in info.value.blames[2].reason
    assert set(info.value.blames) >= {0, 2}, "the third seat checked the receiver's evidence"


@pytest.mark.parametrize("how", ["another face", "another proof", "a scalar"])
def test_a_false_face_proof_in_a_public_reveal_names_the_holder(how):
    """A re-handled card is shown to all by a proof of its face, never its scalar (deck
    protocol 3): a proof for another face, a proof that does not hold, or the scalar in its
    place names the holder at every seat as it arrives."""

    def forge(message):
        if message["faces"][0] is None:  # a deal's locks
            return message
        face, proof = message["faces"][0]
        if how == "another face":
            message["faces"][0] = [(face + 1) % 9, proof]
        elif how == "another proof":
            message["faces"][0] = [face, [proof[1], proof[0]]]
        else:
            message["scalars"][0] = [[3, prf_scalar(b"x" * 32, "x")]]
            message["faces"][0] = None
        return message

    deck = make_deck(3, 9, tamper=tamper_when("open", 1, forge))
    handles = deck.shuffle()
    deck.deal({h: h % 3 for h in handles[:9]})
    new = deck.transfer([handles[0], handles[2]], 1)
    with pytest.raises(DeckFault) as info:
        deck.reveal(new, None)
    assert verdict(info, cheater=1) == ("open", 1)


def test_wrong_key_in_a_public_reveal_is_seen_by_everyone():
    def wrong(message):
        message["scalars"][0][0][1] = prf_scalar(b"x" * 32, "wrong")
        return message

    deck = make_deck(3, tamper=tamper_when("open", 2, wrong))
    handles = deck.shuffle()
    with pytest.raises(DeckFault) as info:
        deck.reveal(handles[:2], None)
    assert verdict(info, cheater=2) == ("open", 2)


class ReusesKeys(Party):
    """Uses one per-card key for two handles (and proves its pass with it: the proof holds)."""

    def _card_key(self, handle):
        return super()._card_key(handle - handle % 2)


def test_reused_key_blames_its_author_at_its_pass():
    deck = make_deck(4, party_factory=lambda seat, *a, **k: (ReusesKeys if seat == 2 else Party)(seat, *a, **k))
    with pytest.raises(DeckFault) as info:
        deck.shuffle()  # the same public key twice in its re-lock
    assert verdict(info, honest=[0, 1, 3]) == ("relock", 2)
    assert "reuses the per-card key of seat 2" in info.value.blames[0].reason


class ReusesAnOpenedKey(Party):
    """In the second shuffle, locks a card with the key seat 0 opened to it at the first deal:
    a pass whose proof holds, under a public key that is seat 0's."""

    def _card_key(self, handle):
        if handle >= self.n and self.known:
            first = min(self.known)  # a card of ours from the first deal: we hold seat 0's key
            return self.cards_by_handle[first].scalars[0]
        return super()._card_key(handle)


def test_a_key_reused_from_an_earlier_hand_names_the_seat_that_reused_it():
    """Not the honest seat whose key it was (the victim, checking an opening, would have named
    it; everyone else the victim): the later pass's author, at that pass."""
    deck = make_deck(3, party_factory=lambda seat, *a, **k: (ReusesAnOpenedKey if seat == 1 else Party)(seat, *a, **k))
    handles = deck.shuffle()
    deck.deal({h: h % 3 for h in handles})
    with pytest.raises(DeckFault) as info:
        deck.shuffle()
    assert verdict(info, honest=[0, 2]) == ("relock", 1)
    assert "reuses the per-card key of seat 0" in info.value.blames[0].reason


# -- points -----------------------------------------------------------------------------------------


def test_duplicated_point_blames_the_pass_author():
    def duplicate(message):
        message["points"][1] = message["points"][0]
        return message

    with pytest.raises(DeckFault) as info:
        make_deck(4, tamper=tamper_when("shuffle", 1, duplicate)).shuffle()
    assert verdict(info, cheater=1) == ("shuffle", 1)
    assert "duplicated" in info.value.blame.reason


PASSES = [("shuffle", 1), ("shuffle", 3), ("relock", 0), ("relock", 2)]  # relock 2 is the last


@pytest.mark.parametrize("bad", sorted(bad_points()))
@pytest.mark.parametrize(("kind", "author"), PASSES, ids=[f"{k}{s}" for k, s in PASSES])
def test_invalid_point_blames_the_pass_author(bad, kind, author):
    def poison(message):
        message["points"][3] = bad_points()[bad]
        return message

    deck = make_deck(4, tamper=tamper_when(kind, author, poison))
    with pytest.raises(DeckFault) as info:
        handles = deck.shuffle()
        # The final deck is checked where its points are used: here, the holder's decoding.
        assert (kind, author) == PASSES[-1]
        deck.deal({handles[3]: 0})
    assert verdict(info, cheater=author) == (kind, author)


def test_invalid_point_in_the_final_deck_is_caught_at_its_pass():
    """The last re-lock's proof fails at every seat as it arrives: no card of that deck is
    ever opened (deck v1 found it only where the point was first multiplied)."""

    def poison(message):
        message["points"][5] = bad_points()["mixed-order"]
        return message

    deck = make_deck(3, tamper=tamper_when("relock", 1, poison))
    with pytest.raises(DeckFault) as info:
        deck.shuffle()
    assert verdict(info, cheater=1) == ("relock", 1)
    assert "proof fails" in info.value.blame.reason


def test_invalid_point_in_rehandling_is_caught_at_the_rehandling():
    """A re-handling carries a proof every seat checks as it arrives: a point outside the
    group (or any card that is not a moved one) names the new holder at the transfer."""

    def poison(message):
        bad, points = bad_points()["mixed-order"], message["sorted"]
        points[min(sum(p < bad for p in points), len(points) - 1)] = bad
        return message

    deck = make_deck(3, tamper=tamper_when("rehandle", 1, poison))
    handles = deck.shuffle()
    deck.deal({handles[0]: 0, handles[1]: 2})
    with pytest.raises(DeckFault) as info:
        deck.transfer(handles[:2], 1)
    assert verdict(info, honest=[0, 2]) == ("rehandle", 1)
    assert "proof fails" in info.value.blames[0].reason


def test_substituted_card_is_caught_at_its_pass():
    def substitute(message):
        message["points"][5] = random_point()
        return message

    deck = make_deck(3, tamper=tamper_when("shuffle", 1, substitute))
    with pytest.raises(DeckFault) as info:
        deck.shuffle()  # distinct valid points, but no proof covers them
    assert verdict(info, cheater=1) == ("shuffle", 1)
    assert "proof fails" in info.value.blame.reason


class ShufflesOffSeed(Party):
    """Shuffles honestly, with a proof, but not by the permutation its seed derives."""

    def _permutation(self, epoch):
        return super()._permutation(epoch)[::-1]


class RehandlesOffSeed(Party):
    """Re-handles the cards it picks up with a scalar its seed does not derive (proven)."""

    def _rehandle_key(self, op):
        return prf_scalar(b"r" * 32, "not derived")


@pytest.mark.parametrize("players", [3, 4])
def test_a_proven_pass_off_its_seed_is_no_fault_and_names_nobody(players):
    """Since protocol version 12 no seed is revealed, so nothing recomputes a pass from its
    seed: a shuffle or a re-handling not derived from the committed seed, but proven, is a fair
    one (the proofs, checked on arrival, are what keep the deck honest: deck.md §4.3). Before,
    the end-of-game audit named such a seat at its pass; now it is no longer provable from any
    transcript, and nobody is named. The deck stays sound: every card once, every seat agreeing."""
    cheat = {1: ShufflesOffSeed, 2: RehandlesOffSeed}
    deck = make_deck(players, party_factory=lambda seat, *a, **k: cheat.get(seat, Party)(seat, *a, **k))
    handles = deck.shuffle()
    deck.deal({h: h % players for h in handles[: 2 * players]})
    moved = [h for h in handles[: 2 * players] if h % players == 0][:1]
    deck.transfer(moved, 2)
    faces = every_face(deck)  # the end of the game: nobody named
    assert all(p.blame is None for p in deck.parties)
    assert Counter(faces[h] for h in handles) == Counter(deck.parties[0].cards)


def test_tampered_relock_is_caught_at_its_pass():
    extra = prf_scalar(b"e" * 32, "extra")

    def relock_twice(message):
        message["points"][7] = multiply(extra, message["points"][7])
        return message

    deck = make_deck(4, tamper=tamper_when("relock", 1, relock_twice))
    with pytest.raises(DeckFault) as info:
        deck.shuffle()
    assert verdict(info, cheater=1) == ("relock", 1)
    assert info.value.blame.op == 0 and "proof fails" in info.value.blame.reason


# -- stalls, seeds and accusations -------------------------------------------------------------------


def test_missing_pass_times_out_on_the_seat_that_owes_it():
    deck = make_deck(4, tamper=tamper_when("relock", 2, lambda m: None))
    with pytest.raises(DeckFault) as info:
        deck.shuffle()
    assert (info.value.blame.step, info.value.blame.seat) == ("relock", 2)
    assert "timeout" in info.value.blame.reason


def test_missing_private_key_times_out_on_its_sender():
    deck = make_deck(4, tamper=tamper_when("open", 3, lambda m: None, receiver=1))
    handles = deck.shuffle()
    with pytest.raises(DeckFault) as info:
        deck.deal({handles[0]: 1})
    assert (info.value.blame.step, info.value.blame.seat) == ("open", 3)


class RevealsItsSeed(Party):
    """Sends its seed at the end of the game, as before protocol version 12."""

    def _end_of_game(self, index, op):
        self._broadcast({"type": "seed", "seed": self._seed})
        return super()._end_of_game(index, op)


def test_a_seed_message_is_of_no_known_type_and_names_its_sender():
    """No seed is revealed since protocol version 12: a ``seed`` deck message is of no known
    type, and its sender is named for it, as for any (deck.md §4.3)."""
    deck = make_deck(3, party_factory=lambda seat, *a, **k: (RevealsItsSeed if seat == 1 else Party)(seat, *a, **k))
    deck.shuffle()
    with pytest.raises(DeckFault) as info:
        deck.open_all()
    assert verdict(info, honest=[0, 2]) == ("message", 1)
    assert "unknown message type" in info.value.blames[0].reason


class FalseAccuser(Party):
    """Accuses the first seat that sends it a private key, with that (valid) message."""

    accusation = "open"

    def receive(self, sender, message):
        out = super().receive(sender, message)
        if message.get("type") == "open" and not getattr(self, "_accused", False):
            self._accused = True
            evidence = {"sender": sender, "message": message}
            step, seat = self.accusation, sender
            if self.accusation == "decode":  # the keys decode fine (no such kind since protocol 11)
                h = message["handles"][0]
                evidence = {
                    "handles": [h],
                    "scalars": [[[i, s] for i, s in sorted(self.cards_by_handle[h].scalars.items())]],
                }
                seat = self.seat
            op = message["op"]
            if self.accusation == "shuffle":  # seat 1's shuffle pass was fine
                evidence, seat, op = None, 1, 0
            out.sends.append(
                Send(
                    None,
                    {"type": "accuse", "op": op, "step": step, "seat": seat, "reason": "made up", "evidence": evidence},
                )
            )
        return out


@pytest.mark.parametrize("accusation", ["open", "decode", "shuffle"])
def test_false_accusation_blames_the_accuser(accusation):
    class Accuser(FalseAccuser):
        pass

    Accuser.accusation = accusation
    deck = make_deck(4, party_factory=lambda seat, *a, **k: (Accuser if seat == 0 else Party)(seat, *a, **k))
    handles = deck.shuffle()
    with pytest.raises(DeckFault) as info:
        deck.deal({h: 0 for h in handles[:2]})
    assert verdict(info, honest=[1, 2, 3]) == ("accuse", 0)


# -- re-handling at a transfer ------------------------------------------------------------------------


def substitute_at_rehandle(message):
    """The new holder publishes a card that is not one it received (a fresh point), re-sorted
    so that the shape checks pass."""
    message["sorted"][0] = random_point()
    message["sorted"].sort()
    return message


def test_substitution_at_rehandling_is_caught_at_the_transfer():
    """Deck v1 found it in the audit or when the card was opened; now the re-handling's proof
    fails at every seat as it arrives."""
    deck = make_deck(3, tamper=tamper_when("rehandle", 1, substitute_at_rehandle))
    handles = deck.shuffle()
    deck.deal({h: h % 3 for h in handles[:9]})
    with pytest.raises(DeckFault) as info:
        deck.transfer([0, 2, 5], 1)
    assert verdict(info, cheater=1) == ("rehandle", 1)
    assert "proof fails" in info.value.blames[0].reason


@pytest.mark.parametrize("how", ["substitute", "swap", "proof of another card"])
def test_a_false_per_card_factor_names_the_new_holder(how):
    """After the one scalar, each card gets a factor of its own with a proof of knowledge
    (deck protocol 3): a card substituted there, two cards swapped, or a proof moved to
    another card names the new holder at the transfer."""

    def cheat(message):
        if how == "substitute":
            message["points"][0] = random_point()
        elif how == "swap":
            message["points"][:2] = message["points"][1::-1]
        else:
            message["factors"][:2] = message["factors"][1::-1]
        return message

    deck = make_deck(3, tamper=tamper_when("rehandle", 1, cheat))
    handles = deck.shuffle()
    deck.deal({h: h % 3 for h in handles[:9]})
    with pytest.raises(DeckFault) as info:
        deck.transfer([0, 2, 5], 1)
    assert verdict(info, cheater=1) == ("rehandle", 1)
    assert "factor proof of card" in info.value.blames[0].reason


def test_unsorted_rehandling_blames_the_new_holder():
    def unsort(message):
        message["sorted"].reverse()
        return message

    deck = make_deck(3, tamper=tamper_when("rehandle", 2, unsort))
    handles = deck.shuffle()
    deck.deal({h: h % 3 for h in handles[:9]})
    with pytest.raises(DeckFault) as info:
        deck.transfer([0, 1, 4], 2)
    assert verdict(info, cheater=2) == ("rehandle", 2)
    assert "sorted" in info.value.blames[0].reason


class DuplicatesAtRehandle(Party):
    """Re-randomises the first received card twice and drops the last one, and proves the
    result with its honest witness (deck v1: every link checked, only a decode of both copies
    or the audit could tell)."""

    def _make_rehandle(self, index, handles):
        first, dropped = self.cards_by_handle[handles[0]], self.cards_by_handle[handles[-1]]
        saved, dropped.point = dropped.point, first.point
        try:
            message = super()._make_rehandle(index, handles)
        finally:
            dropped.point = saved
        for handle in self.rehandled[index]:
            card = self.cards_by_handle[handle]
            if card.link.parent == handles[-1]:
                card.link.parent, card.root = handles[0], first.root
        return message

    def _lineage(self, handle):  # and does not notice its own copies
        return set(self.cards_by_handle)


def test_a_duplicated_card_at_rehandling_is_found_and_blamed_on_the_new_holder():
    deck = make_deck(
        3, party_factory=lambda seat, *a, **k: (DuplicatesAtRehandle if seat == 1 else Party)(seat, *a, **k)
    )
    handles = deck.shuffle()
    deck.deal({h: h % 3 for h in handles[:9]})
    with pytest.raises(DeckFault) as info:
        deck.transfer([0, 2, 5], 1)  # one scalar for all: the copy is the same point twice
    assert verdict(info, honest=[0, 2]) == ("rehandle", 1)
    assert "not distinct" in info.value.blames[0].reason

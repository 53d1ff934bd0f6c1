"""A private payload that is no opening of an operation (protocol/deck.md section 6): its
receiver's deck party accuses with it, and every other party names the sender as the accusation
arrives, whatever operation it names (the table layer marks what it opened from a box:
judge.NotAnOpening). Synchronous, on real parties."""

from __future__ import annotations

import pytest

from p2pcards.deck import judge

from .deck_helpers import make_deck

PLAYERS, CARDS = 3, 6
BAD = [{"type": "open", "op": op} for op in (None, -1, 2.0, True, False)] + [None, 7]


@pytest.mark.parametrize("payload", BAD)
def test_its_receiver_accuses_its_sender_with_it(payload):
    deck = make_deck(PLAYERS, CARDS)
    receiver = deck.parties[0]
    out = receiver.receive(1, judge.NotAnOpening(payload))
    assert receiver.blame is not None and receiver.blame.seat == 1 and receiver.blame.step == "open"
    [accusation] = [s.message for s in out.sends if s.message.get("type") == "accuse"]
    assert accusation["seat"] == 1 and accusation["step"] == "open"
    assert accusation["evidence"] == {"sender": 1, "message": payload}


@pytest.mark.parametrize("op", [0, 5, 10_000])  # any operation: reached or not, opening cards or not
@pytest.mark.parametrize("payload", BAD)
def test_every_other_seat_names_the_sender_as_the_accusation_arrives(payload, op):
    deck = make_deck(PLAYERS, CARDS)
    judging = deck.parties[2]
    evidence = {"sender": 1, "message": judge.NotAnOpening(payload)}
    judging.receive(0, {"type": "accuse", "op": op, "step": "open", "seat": 1, "reason": "x", "evidence": evidence})
    assert judging.blame is not None and judging.blame.seat == 1 and judging.blame.step == "open"
    assert "x" not in judging.blame.reason.split()


def test_the_accuser_is_named_if_it_accuses_another_seat_than_the_sender():
    deck = make_deck(PLAYERS, CARDS)
    judging = deck.parties[2]
    evidence = {"sender": 1, "message": judge.NotAnOpening(None)}
    judging.receive(0, {"type": "accuse", "op": 0, "step": "open", "seat": 2, "reason": "x", "evidence": evidence})
    assert judging.blame is not None and judging.blame.seat == 0 and judging.blame.step == "accuse"


def test_a_plain_map_as_evidence_proves_nothing_of_the_kind():
    """Only the table layer marks a payload it opened from a box; a peer's plaintext copy of a
    message with a bad op is not proof (it names the accuser, as it always did)."""
    deck = make_deck(PLAYERS, CARDS)
    judging = deck.parties[2]
    evidence = {"sender": 1, "message": {"type": "open", "op": None}}
    judging.receive(0, {"type": "accuse", "op": 0, "step": "open", "seat": 1, "reason": "x", "evidence": evidence})
    assert judging.blame is None or judging.blame.seat == 0

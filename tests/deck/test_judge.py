"""The accusation rules of protocol/deck.md section 6 that the live table's deck party and
``p2pcards verify`` both run (p2pcards.deck.judge): one row per rule, synchronous."""

from __future__ import annotations

import os

import pytest
from nacl import bindings as na

from p2pcards.deck import judge
from p2pcards.deck.judge import ACCUSE, Verdict

CARDS = 4
ACCUSER, ACCUSED = 1, 0


def point() -> bytes:
    return na.crypto_core_ed25519_from_uniform(os.urandom(32))


def shuffle_pass(points: list[bytes] | None = None) -> dict:
    points = points if points is not None else [point() for _ in range(CARDS)]
    return {"type": "shuffle", "op": 3, "points": points, "key": point(), "proof": [b"p"]}


def accusation(**fields) -> dict:
    return {"type": "accuse", "op": 3, "step": "shuffle", "seat": ACCUSED, "reason": "x", "evidence": None, **fields}


SMALL_ORDER = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")


@pytest.mark.parametrize(
    "message",
    [
        accusation(seat=3),  # not a seat of the table
        accusation(seat=-1),
        accusation(seat=True),  # a bool is not a seat
        accusation(op=-1),
        accusation(op=2.0),  # a float equal to an integer is not one
        accusation(op=None),
        "not a map",
    ],
)
def test_a_malformed_accusation_names_its_accuser(message):
    assert judge.malformed(ACCUSER, message, 3) == Verdict(ACCUSE, ACCUSER, "malformed accusation")


def test_a_well_formed_accusation_is_not_malformed():
    assert judge.malformed(ACCUSER, accusation(), 3) is None


@pytest.mark.parametrize(("op", "later", "named"), [(2, 5, True), (5, 5, False), (6, 5, False), (0, -1, False)])
def test_an_accusation_about_a_finished_hand_names_its_accuser(op, later, named):
    verdict = judge.finished_hand(ACCUSER, op, later)
    assert (verdict is not None) == named
    if named:
        assert verdict.seat == ACCUSER and verdict.step == ACCUSE and "of a hand it had finished" in verdict.reason


def test_a_public_message_not_held_names_the_accuser():
    verdict = judge.on_copy(ACCUSER, accusation(), None, CARDS)
    assert verdict.seat == ACCUSER and "that it had not received" in verdict.reason


def test_a_held_valid_pass_names_the_accuser_whether_its_shuffle_is_finished_or_not():
    """The rule needs nothing but the copy: no operation to reach (issue 28, section 2)."""
    verdict = judge.on_copy(ACCUSER, accusation(), shuffle_pass(), CARDS)
    assert verdict == Verdict(ACCUSE, ACCUSER, f"false accusation against seat {ACCUSED} (shuffle)")


@pytest.mark.parametrize(
    "copy",
    [
        shuffle_pass([point() for _ in range(CARDS - 1)] + [SMALL_ORDER]),  # a point outside the group
        shuffle_pass([point() for _ in range(CARDS - 1)]),  # a point short
        {"type": "shuffle", "op": 3},  # no points at all
    ],
)
def test_a_held_faulty_pass_names_the_accused(copy):
    verdict = judge.on_copy(ACCUSER, accusation(), copy, CARDS)
    assert verdict.seat == ACCUSED and verdict.step == "shuffle" and verdict.op == 3


def test_a_rehandling_is_judged_by_its_points_only():
    copy = {"type": "rehandle", "op": 3, "points": [point(), SMALL_ORDER], "key": point(), "moved": [1, 2]}
    verdict = judge.on_copy(ACCUSER, accusation(step="rehandle"), copy, CARDS)
    assert verdict.seat == ACCUSED and verdict.reason == "invalid point at position 1"


def test_no_verdict_repeats_the_accusers_words():
    words = "seat 0 is a cheater, trust me"
    message = accusation(reason=words, step=words)
    verdicts = [
        judge.malformed(ACCUSER, {**message, "seat": 9}, 3),
        judge.finished_hand(ACCUSER, 1, 2),
        judge.on_copy(ACCUSER, accusation(reason=words), None, CARDS),
        judge.on_copy(ACCUSER, accusation(reason=words), shuffle_pass(), CARDS),
        judge.unknown_kind(ACCUSER),
        judge.without_evidence(ACCUSER),
        judge.opens_no_cards(ACCUSER, "open", 7),
    ]
    for verdict in verdicts:
        assert verdict is not None and words not in verdict.reason and verdict.seat == ACCUSER


@pytest.mark.parametrize(
    ("message", "public"),
    [
        (accusation(), True),
        (accusation(step="relock"), True),
        (accusation(step="rehandle"), True),
        (accusation(evidence={"x": 1}), False),  # a public step with evidence is of no known kind
        (accusation(step="open"), False),
        (accusation(step="decode"), False),
    ],
)
def test_which_accusations_are_judged_on_the_copy(message, public):
    assert judge.is_public(message) == public


@pytest.mark.parametrize(
    "payload, opening",
    [
        ({"type": "open", "op": 0}, True),
        ({"type": "open", "op": 7, "keys": []}, True),
        ({"type": "open", "op": True}, False),  # a bool is no operation's number
        ({"type": "open", "op": False}, False),
        ({"type": "open", "op": None}, False),
        ({"type": "open", "op": -1}, False),
        ({"type": "open", "op": 2.0}, False),
        ({"type": "open", "op": "2"}, False),
        ({"type": "open"}, False),
        ({"type": "shuffle", "op": 1}, False),  # only openings go to one seat
        (None, False),
        ([1], False),
        (b"open", False),
    ],
)
def test_which_private_payloads_are_openings(payload, opening):
    assert judge.is_opening(payload) is opening


def test_a_private_payload_of_no_operation_names_its_sender_when_accused():
    verdict = judge.no_opening(ACCUSER, ACCUSED, ACCUSED)
    assert verdict.seat == ACCUSED and verdict.step == "open" and verdict.op is None
    assert "no opening of an operation" in verdict.reason


def test_a_private_payload_of_another_seat_than_the_accused_names_the_accuser():
    assert judge.no_opening(ACCUSER, ACCUSED, 2) == Verdict(
        ACCUSE, ACCUSER, "accusation names seat 0, the evidence seat 2"
    )

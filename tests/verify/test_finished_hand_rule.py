"""verify's rule for an accusation about a finished hand (protocol/deck.md section 6), on
signed entries alone: whichever seat's accusation comes first in the file, a stale one names
its signer (review of issue 23)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from p2pcards.verify.replay import SeatEntries
from p2pcards.verify.report import Failed
from p2pcards.verify.stops import stopped_by_accusation


def deck(seq: int, msg: dict, sender: int = 0) -> SimpleNamespace:
    return SimpleNamespace(kind="deck", seq=seq, body={"msg": msg}, sender=sender)


def accuse(seq: int, op: int, sender: int) -> SimpleNamespace:
    """About a private opening, with its evidence (judged only once its operation is replayed)."""
    evidence = {"sender": 2, "entry": 0, "key": b"k" * 32}
    msg = {"type": "accuse", "op": op, "step": "open", "seat": 2, "reason": "x", "evidence": evidence}
    return deck(seq, msg, sender)


def test_a_stale_accusation_names_its_signer_though_another_seat_accused_first():
    seats = [
        SeatEntries(0, [deck(1, {"type": "shuffle", "op": 4}), accuse(2, 9, 0)]),  # judged on its merits
        SeatEntries(1, [deck(1, {"type": "relock", "op": 10}, 1), accuse(2, 3, 1)]),  # about a finished hand
        SeatEntries(2, []),
    ]
    with pytest.raises(Failed) as failed:
        stopped_by_accusation(seats, "deck", 52)
    assert failed.value.problem.seat == 1
    assert "of a hand it had finished" in failed.value.problem.reason

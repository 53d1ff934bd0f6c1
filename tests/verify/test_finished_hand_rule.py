"""verify's rule for an accusation about a finished hand (protocol/deck.md section 6), on
signed entries alone: whichever seat's accusation comes first in the file, a stale one names
its signer (review of issue 23)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from p2pcards.verify.replay import SeatEntries
from p2pcards.verify.report import Failed
from p2pcards.verify.stops import stopped_by_accusation


def deck(seq: int, msg: dict) -> SimpleNamespace:
    return SimpleNamespace(kind="deck", seq=seq, body={"msg": msg})


def accuse(seq: int, op: int) -> SimpleNamespace:
    return deck(seq, {"type": "accuse", "op": op, "step": "open", "seat": 2, "reason": "x", "evidence": None})


def test_a_stale_accusation_names_its_signer_though_another_seat_accused_first():
    seats = [
        SeatEntries(0, [deck(1, {"type": "shuffle", "op": 4}), accuse(2, 9)]),  # judged on its merits
        SeatEntries(1, [deck(1, {"type": "relock", "op": 10}), accuse(2, 3)]),  # about a finished hand
        SeatEntries(2, []),
    ]
    with pytest.raises(Failed) as failed:
        stopped_by_accusation(seats, "deck")
    assert failed.value.problem.seat == 1
    assert "of a hand it had finished" in failed.value.problem.reason

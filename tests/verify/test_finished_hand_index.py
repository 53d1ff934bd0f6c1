"""verify's finished-hand rule reads the accuser's latest shuffle or re-lock pass before each
accusation from an index made once (issue 28: it looked through every entry before each
accusation, so a file of thousands of them took minutes)."""

from __future__ import annotations

import time

from p2pcards.verify.replay import SeatEntries, finished_hand_accusation
from p2pcards.wire.messages import Entry


def _entry(seq: int, msg: object) -> Entry:
    return Entry(b"\x00" * 16, 1, seq, "deck", b"\x00" * 32, {"msg": msg, "seen": []}, b"\x00" * 64)


def test_the_latest_pass_before_an_entry_is_the_highest_op_of_a_pass_signed_before_it():
    entries = [
        _entry(0, {"type": "commit"}),
        _entry(1, {"type": "shuffle", "op": 0}),
        _entry(2, {"type": "relock", "op": 1}),
        _entry(3, {"type": "shuffle", "op": True}),  # not an operation's number: not counted
        _entry(4, {"type": "accuse", "op": 0}),
        _entry(5, {"type": "shuffle", "op": 7}),
        _entry(6, {"type": "relock", "op": 3}),  # (a lower one after a higher one)
        _entry(7, {"type": "accuse", "op": 5}),
    ]
    seat = SeatEntries(1, entries)
    assert [seat.latest_pass_before(e.seq) for e in entries] == [-1, -1, 0, 1, 1, 1, 7, 7]
    assert finished_hand_accusation(seat, entries[4]) is not None  # op 0 < 1: refused
    assert finished_hand_accusation(seat, entries[7]) is not None  # op 5 < 7: refused


def test_thousands_of_accusations_are_read_in_linear_time():
    flood = 20_000
    entries = [_entry(0, {"type": "shuffle", "op": 0})]
    entries += [_entry(seq, {"type": "accuse", "op": 10**6, "seat": 0}) for seq in range(1, flood + 1)]
    seat = SeatEntries(1, entries)
    started = time.process_time()
    assert all(finished_hand_accusation(seat, e) is None for e in entries[1:])
    # Linear: ~30 ms here (quadratic, it was ~200 million looks).
    assert time.process_time() - started < 5.0

import pytest

from p2pcards.wire.messages import Entry
from p2pcards.wire.sealed import (
    SealError,
    entry_message_key,
    open_body,
    open_revealed,
    open_with_key,
    seal,
    seal_body,
    unseal,
)

TABLE = bytes(range(16))  # the table id of new_log (conftest.py)

PAYLOAD = {"keys": [b"\x01" * 32, b"\x02" * 32], "positions": [4, 9]}


def private_entry(log, players, roster, sender=0, to=2):
    body = seal_body(players[sender], table=TABLE, seat=sender, seq=log.next_seq(sender),
                     kind="deck.keys", to=to, recipient=roster[to], payload=PAYLOAD)
    entry = log.make_entry(players[sender], sender, "deck.keys", body)
    assert set(entry.body) == {"to", "box", "seen"}  # the log adds its head echo
    return entry


def test_round_trip(new_log, players, roster):
    entry = private_entry(new_log(), players, roster)
    assert open_body(players[2], 2, entry, roster[0]) == PAYLOAD


def test_only_the_recipient_can_open(new_log, players, roster):
    entry = private_entry(new_log(), players, roster)
    with pytest.raises(SealError):
        open_body(players[1], 2, entry, roster[0])  # seat 1 pretending to be seat 2
    with pytest.raises(SealError, match="addressed to seat 2"):
        open_body(players[1], 1, entry, roster[0])


def test_tampering_and_moving_are_detected(new_log, players, roster):
    entry = private_entry(new_log(), players, roster)
    box = entry.body["box"]
    for i in (0, 12, len(box) // 2, len(box) - 1):
        flipped = bytearray(box)
        flipped[i] ^= 0x80
        moved = Entry(entry.table, entry.sender, entry.seq, entry.kind, entry.prev,
                      {"to": 2, "box": bytes(flipped)}, entry.sig)
        with pytest.raises(SealError):
            open_body(players[2], 2, moved, roster[0])
    for field, value in {"seq": entry.seq + 1, "kind": "deck.other", "table": b"\x00" * 16}.items():
        kw = dict(table=entry.table, sender=entry.sender, seq=entry.seq, kind=entry.kind,
                  prev=entry.prev, body=entry.body, sig=entry.sig)
        kw[field] = value
        with pytest.raises(SealError):
            open_body(players[2], 2, Entry(**kw), roster[0])
    for body in ({"to": 2}, {"to": 2, "box": b"short"}, "x", {**entry.body, "extra": 1}):
        bad = Entry(entry.table, 0, entry.seq, entry.kind, entry.prev, body, entry.sig)
        with pytest.raises(SealError):
            open_body(players[2], 2, bad, roster[0])


def test_revealed_message_key_opens_that_box_for_anyone(new_log, players, roster):
    entry = private_entry(new_log(), players, roster)
    by_recipient = entry_message_key(players[2], 2, entry, roster[0])
    by_sender = entry_message_key(players[0], 0, entry, roster[2])
    assert by_recipient == by_sender
    assert open_revealed(entry, by_recipient) == PAYLOAD
    with pytest.raises(SealError):
        open_revealed(entry, b"\x00" * 32)


def test_raw_seal(players, roster):
    box = seal(players[0], roster[1], b"secret", b"aad")
    assert unseal(players[1], roster[0], box, b"aad") == b"secret"
    assert seal(players[0], roster[1], b"secret", b"aad") != box  # fresh nonce
    with pytest.raises(SealError):
        unseal(players[1], roster[0], box, b"other aad")
    with pytest.raises(SealError):
        open_with_key(b"\x00" * 32, b"", b"")

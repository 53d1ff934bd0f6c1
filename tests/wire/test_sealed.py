import pytest

from p2pcards.wire.messages import Entry
from p2pcards.wire.sealed import (
    SealError,
    entry_message_key,
    open_body,
    open_revealed,
    open_with_key,
    recipients,
    seal,
    seal_bodies,
    seal_body,
    unseal,
)

TABLE = bytes(range(16))  # the table id of new_log (conftest.py)

PAYLOAD = {"keys": [b"\x01" * 32, b"\x02" * 32], "positions": [4, 9]}


def private_entry(log, players, roster, sender=0, to=2):
    body = seal_body(
        players[sender],
        table=TABLE,
        seat=sender,
        seq=log.next_seq(sender),
        kind="deck",
        to=to,
        recipient=roster[to],
        payload=PAYLOAD,
    )
    entry = log.make_entry(players[sender], sender, "deck", body)
    assert set(entry.body) == {"to", "box", "seen"}  # the log adds its head echo
    return entry


def test_round_trip(new_log, players, roster):
    entry = private_entry(new_log(), players, roster)
    assert open_body(players[2], 2, entry, roster[0]) == PAYLOAD


def test_only_the_recipient_can_open(new_log, players, roster):
    entry = private_entry(new_log(), players, roster)
    with pytest.raises(SealError):
        open_body(players[1], 2, entry, roster[0])  # seat 1 pretending to be seat 2
    with pytest.raises(SealError, match="nothing for seat 1"):
        open_body(players[1], 1, entry, roster[0])


def test_tampering_and_moving_are_detected(new_log, players, roster):
    entry = private_entry(new_log(), players, roster)
    box = entry.body["box"]
    for i in (0, 12, len(box) // 2, len(box) - 1):
        flipped = bytearray(box)
        flipped[i] ^= 0x80
        moved = Entry(
            entry.table, entry.sender, entry.seq, entry.kind, entry.prev, {"to": 2, "box": bytes(flipped)}, entry.sig
        )
        with pytest.raises(SealError):
            open_body(players[2], 2, moved, roster[0])
    for field, value in {"seq": entry.seq + 1, "kind": "deck.other", "table": b"\x00" * 16}.items():
        kw = dict(
            table=entry.table,
            sender=entry.sender,
            seq=entry.seq,
            kind=entry.kind,
            prev=entry.prev,
            body=entry.body,
            sig=entry.sig,
        )
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
    by_sender = entry_message_key(players[0], 0, entry, roster[2], to=2)
    assert by_recipient == by_sender
    assert open_revealed(entry, by_recipient, 2) == PAYLOAD
    with pytest.raises(SealError):
        open_revealed(entry, b"\x00" * 32, 2)
    with pytest.raises(SealError):
        open_revealed(entry, by_recipient, 1)  # no box to seat 1


def test_raw_seal(players, roster):
    box = seal(players[0], roster[1], b"secret", b"aad")
    assert unseal(players[1], roster[0], box, b"aad") == b"secret"
    assert seal(players[0], roster[1], b"secret", b"aad") != box  # fresh nonce
    with pytest.raises(SealError):
        unseal(players[1], roster[0], box, b"other aad")
    with pytest.raises(SealError):
        open_with_key(b"\x00" * 32, b"", b"")


def multi_entry(log, players, roster, sender=1, seats=(2, 0)):
    items = [(to, roster[to], {**PAYLOAD, "for": to}) for to in seats]
    body = seal_bodies(players[sender], table=TABLE, seat=sender, seq=log.next_seq(sender), kind="deck", items=items)
    return log.make_entry(players[sender], sender, "deck", body)


def test_one_entry_carries_a_box_for_each_of_several_seats(new_log, players, roster):
    """A deal: one signed entry, one box per other seat (seats ascending); each seat opens its
    own box and no other; a revealed message key opens that one box for anyone."""
    entry = multi_entry(new_log(), players, roster)
    assert [to for to, _ in entry.body["boxes"]] == [0, 2]
    assert sorted(recipients(entry.body)) == [0, 2]
    for seat in (0, 2):
        assert open_body(players[seat], seat, entry, roster[1]) == {**PAYLOAD, "for": seat}
    with pytest.raises(SealError, match="nothing for seat 1"):
        open_body(players[1], 1, entry, roster[1])
    with pytest.raises(SealError):
        open_body(players[0], 2, entry, roster[1])  # seat 0 cannot open seat 2's box
    key = entry_message_key(players[2], 2, entry, roster[1])
    assert key == entry_message_key(players[1], 1, entry, roster[2], to=2)
    assert open_revealed(entry, key, 2) == {**PAYLOAD, "for": 2}
    with pytest.raises(SealError):
        open_revealed(entry, key, 0)  # the key of one box opens no other


def test_malformed_multi_recipient_bodies_are_refused(new_log, players, roster):
    entry = multi_entry(new_log(), players, roster)
    (a, box_a), (b, box_b) = entry.body["boxes"]
    for boxes in (
        [[a, box_a]],
        [[b, box_b], [a, box_a]],
        [[a, box_a], [a, box_b]],
        [[a, box_a, 1], [b, box_b]],
        [[a, "x"], [b, box_b]],
        [[-1, box_a], [b, box_b]],
        "x",
    ):
        body = {"boxes": boxes, "seen": entry.body["seen"]}
        assert recipients(body) == {}
        bad = Entry(entry.table, entry.sender, entry.seq, entry.kind, entry.prev, body, entry.sig)
        with pytest.raises(SealError):
            open_body(players[b], b, bad, roster[1])
    with pytest.raises(ValueError):
        seal_bodies(players[1], table=TABLE, seat=1, seq=0, kind="deck", items=[(0, roster[0], 1)])
    with pytest.raises(ValueError):
        seal_bodies(players[1], table=TABLE, seat=1, seq=0, kind="deck", items=[(0, roster[0], 1), (0, roster[0], 2)])

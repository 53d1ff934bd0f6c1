import pytest

from p2pcards.wire.identity import Identity
from p2pcards.wire.log import Blame, Rejected
from p2pcards.wire.messages import Entry, sign_entry

TABLE = bytes(range(16))  # the table id of new_log (conftest.py)


def play(log, players, seats):
    """Append one entry per seat in ``seats`` (each signed on the current head)."""
    out = []
    for seat in seats:
        entry = log.make_entry(players[seat], seat, "game.action", {"n": len(log)})
        assert log.append(entry) == len(log) - 1
        out.append(entry)
    return out


def rejected(log, entry, code, **kw):
    before = (len(log), log.head)
    with pytest.raises(Rejected) as info:
        log.append(entry, **kw)
    assert info.value.code == code
    assert (len(log), log.head) == before  # unchanged
    return info.value.blame


def test_honest_chain(new_log, players):
    log = new_log()
    entries = play(log, players, [0, 1, 2, 0, 1])
    assert [log.next_seq(s) for s in range(3)] == [2, 2, 1]
    assert log.head == entries[-1].hash
    assert entries[1].prev == entries[0].hash
    assert log.find(entries[2].hash) is entries[2]
    other = new_log()
    for e in entries:
        other.append(e)
    assert other.head == log.head


def test_bad_signature_blames_the_deliverer(new_log, players):
    log = new_log()
    good = log.make_entry(players[0], 0, "k", {})
    forged = Entry(good.table, 0, 0, "k", good.prev, {}, players[1].sign(good.signed_bytes))
    blame = rejected(log, forged, "bad-signature", via=1)
    assert blame.seat == 1 and not blame.provable
    assert rejected(log, forged, "bad-signature").seat == 0


def test_wrong_table(new_log, players):
    log = new_log()
    entry = sign_entry(players[0], table=b"\xff" * 16, sender=0, seq=0, kind="k",
                       prev=log.head, body=None)
    assert rejected(log, entry, "wrong-table", via=2).seat == 2


def test_stranger(new_log, players):
    log = new_log()
    stranger = Identity.generate()
    entry = sign_entry(stranger, table=TABLE, sender=5, seq=0, kind="k", prev=log.head, body=None)
    rejected(log, entry, "stranger")
    # A stranger's key claiming a real seat is just a bad signature.
    entry = sign_entry(stranger, table=TABLE, sender=1, seq=0, kind="k", prev=log.head, body=None)
    rejected(log, entry, "bad-signature")


def test_replay(new_log, players):
    log = new_log()
    [first, _] = play(log, players, [0, 1])
    assert rejected(log, first, "replay", via=2).seat == 2
    assert log.observe(first) is None  # catch-up copies are fine


def test_gap_in_seq(new_log, players):
    log = new_log()
    play(log, players, [0])
    skip = sign_entry(players[0], table=TABLE, sender=0, seq=2, kind="k", prev=log.head, body=None)
    rejected(log, skip, "gap")


def test_wrong_prev(new_log, players):
    log = new_log()
    [first, second] = play(log, players, [0, 1])
    stale = sign_entry(players[2], table=TABLE, sender=2, seq=0, kind="k", prev=first.hash,
                       body=None)
    blame = rejected(log, stale, "stale-prev")
    assert blame.seat == 2 and blame.evidence == (stale,)
    unknown = sign_entry(players[2], table=TABLE, sender=2, seq=0, kind="k", prev=b"\x07" * 32,
                         body=None)
    rejected(log, unknown, "fork")


def test_equivocation_is_caught_with_provable_evidence(new_log, players, roster):
    # Seat 0 tells peer A one thing and peer B another, both as its entry #0.
    log_a, log_b = new_log(), new_log()
    to_a = log_a.make_entry(players[0], 0, "game.action", {"card": 1})
    to_b = log_b.make_entry(players[0], 0, "game.action", {"card": 2})
    log_a.append(to_a)
    log_b.append(to_b)
    # B's next entry echoes the head B saw; A cannot link it (a fork) ...
    from_b = log_b.make_entry(players[1], 1, "game.action", {})
    assert rejected(log_a, from_b, "fork", via=1).seat == 1
    # ... so A fetches B's log, and the conflicting entry convicts seat 0.
    with pytest.raises(Rejected) as info:
        for entry in log_b.entries_from(0):
            log_a.observe(entry, via=1)
    blame = info.value.blame
    assert blame.code == "equivocation" and blame.seat == 0 and blame.provable
    assert set(blame.evidence) == {to_a, to_b}
    assert log_a.blames == [blame]
    assert blame.verify(TABLE, roster)
    # The evidence survives the wire and convinces a third party.
    again = Blame.from_wire(blame.to_wire())
    assert again.verify(TABLE, roster)
    assert not again.verify(b"\x00" * 16, roster)
    # Evidence that is not an equivocation proves nothing.
    fake = Blame(0, "equivocation", "x", (to_a, to_a), True)
    assert not fake.verify(TABLE, roster)
    assert not Blame(1, "equivocation", "x", (to_a, to_b), True).verify(TABLE, roster)


def test_head_echo(new_log, players):
    log_a, log_b = new_log(), new_log()
    for entry in play(log_a, players, [0, 1]):
        log_b.append(entry)
    assert log_a.check_head(log_b.make_head(players[1], 1)) is True
    ahead = play(log_b, players, [2])
    assert log_a.check_head(log_b.make_head(players[1], 1)) is False  # fetch needed
    log_a.append(ahead[0])
    # A different history at the same length is a fork.
    log_c = new_log()
    log_c.append(log_c.make_entry(players[0], 0, "game.action", {"n": "other"}))
    with pytest.raises(Rejected) as info:
        log_a.check_head(log_c.make_head(players[2], 2))
    assert info.value.code == "fork"
    forged = log_b.make_head(players[0], 1)  # seat 0's key, claims seat 1
    with pytest.raises(Rejected) as info:
        log_a.check_head(forged)
    assert info.value.code == "bad-signature"

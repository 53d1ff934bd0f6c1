import hashlib
import itertools
import random

import pytest

from p2pcards import PROTOCOL_VERSION
from p2pcards.wire.framing import decode, encode
from p2pcards.wire.identity import Identity
from p2pcards.wire.log import CHAT_ENTRIES, KEEP_ENCODED, KINDS, MAX_BLAMES, Blame, Budget, Log, Mismatch, Rejected
from p2pcards.wire.messages import Entry, Fetch, genesis_hash, seat_genesis, sign_entry
from p2pcards.wire.spill import FileSpill, MemorySpill

TABLE = bytes(range(16))  # the table id of new_log (conftest.py)
LOBBY = {"game": "highcard", "seats": 3}


@pytest.fixture(params=["kept", "spilled", "spilled-to-file"])
def new_log(request, roster, tmp_path):
    """Every test of this module runs on a log that keeps every entry, on one that spills all
    but the last of each chain and on one that spills all but the last two to a file (issue
    23): the answers must not differ."""
    made = itertools.count()

    def make() -> Log:
        log = Log(TABLE, LOBBY, roster)
        if request.param == "spilled":
            log.spill_to(MemorySpill(), keep=1)
        elif request.param == "spilled-to-file":
            log.spill_to(FileSpill.create(tmp_path / f"spill-{next(made)}"), keep=2)
        return log

    make.spills = request.param != "kept"  # type: ignore[attr-defined]
    return make


def play(log, players, seats):
    """One entry per seat in ``seats``, each made (signed and appended) by ``log``."""
    out = []
    for seat in seats:
        before = len(log)
        entry = log.make_entry(players[seat], seat, "action", {"n": before})
        assert len(log) == before + 1 and log.entries(seat)[-1] is entry
        out.append(entry)
    return out


def raw(player, seat, seq, prev, seen, body=None, table=TABLE, kind="action"):
    """An entry signed by hand (what a buggy or hostile peer could send)."""
    body = {"x": 1} if body is None else body
    if seen is not None:
        body = {**body, "seen": seen}
    return sign_entry(player, table=table, sender=seat, seq=seq, kind=kind, prev=prev, body=body)


def next_raw(log, player, seat, **kw):
    """Seat ``seat``'s correct next entry on ``log``, signed by ``player``, not appended."""
    return raw(player, seat, log.next_seq(seat), log.head(seat), log.seen(), **kw)


def rejected(log, entry, code, **kw):
    before = log.seen()
    with pytest.raises(Rejected) as info:
        log.append(entry, **kw)
    assert info.value.code == code
    assert log.seen() == before  # unchanged
    return info.value.blame


def test_honest_chains(new_log, players):
    log = new_log()
    entries = play(log, players, [0, 1, 2, 0, 1])
    assert len(log) == 5 and [log.next_seq(s) for s in range(3)] == [2, 2, 1]
    # Each seat's chain starts from its own genesis and links its own entries.
    genesis = genesis_hash(TABLE, LOBBY)
    for seat in range(3):
        expected = hashlib.sha256(f"p2pcards/{PROTOCOL_VERSION} seat genesis\x00".encode() + genesis + bytes([seat]))
        assert log.entries(seat)[0].prev == expected.digest() == seat_genesis(TABLE, LOBBY, seat)
    assert entries[3].prev == entries[0].hash and entries[4].prev == entries[1].hash
    assert log.head(0) == entries[3].hash and log.head(2) == entries[2].hash
    assert log.genesis == genesis
    # The head echo: what the sender had accepted when it signed.
    assert entries[4].body["seen"] == [[2, entries[3].hash], [1, entries[1].hash], [1, entries[2].hash]]
    assert log.seen() == [[2, entries[3].hash], [2, entries[4].hash], [1, entries[2].hash]]
    assert log.entries(1, 1) == [entries[4]] and log.entries(2, 5) == []
    assert log.entries(15) == [] and log.entries(-1) == []  # a fetch for a seat not here
    assert list(log.canonical()) == [entries[0], entries[3], entries[1], entries[4], entries[2]]
    other = new_log()
    for e in entries:
        assert other.append(e) is True
    assert other.seen() == log.seen()
    with pytest.raises(ValueError, match="seen"):
        log.make_entry(players[0], 0, "action", {"seen": []})


def test_concurrent_senders_in_any_arrival_order_give_equal_logs(new_log, players):
    # Every seat commits at once, each on top of only what it had: nobody waits for anyone.
    senders = [new_log() for _ in range(3)]
    round1 = [senders[s].make_entry(players[s], s, "deck", {"c": s}) for s in range(3)]
    for _s, log in enumerate(senders):
        for e in round1:
            log.append(e)
    round2 = [senders[s].make_entry(players[s], s, "deck", {"k": s}) for s in range(3)]
    everything = round1 + round2
    for log in senders:
        for e in round2:
            log.append(e)
    orders = []
    for order in itertools.permutations(range(3)):
        # Each seat's entries in seq order, seats interleaved in every way.
        orders.append([round1[s] for s in order] + [round2[s] for s in reversed(order)])
        orders.append([e for s in order for e in (round1[s], round2[s])])
    rng = random.Random(3)
    for _ in range(20):
        queues = [[round1[s], round2[s]] for s in range(3)]
        order = []
        while any(queues):
            order.append(rng.choice([q for q in queues if q]).pop(0))
        orders.append(order)
    logs = []
    for order in orders:
        log = new_log()
        for e in order:
            assert log.append(e, via=e.sender)
        assert not log.check_seen(order[-1])
        logs.append(log)
    for log in logs + senders:
        assert log.seen() == logs[0].seen()
        assert list(log.canonical()) == list(logs[0].canonical())
    assert [e.hash for e in logs[0].canonical()] == [e.hash for s in range(3) for e in everything if e.sender == s]


def test_bad_signature_blames_the_deliverer(new_log, players):
    log = new_log()
    good = next_raw(log, players[0], 0)
    forged = Entry(good.table, 0, 0, "action", good.prev, good.body, players[1].sign(good.signed_bytes))
    blame = rejected(log, forged, "bad-signature", via=1)
    assert blame.seat == 1 and not blame.provable
    assert rejected(log, forged, "bad-signature").seat == 0


def test_wrong_table(new_log, players):
    log = new_log()
    entry = next_raw(log, players[0], 0, table=b"\xff" * 16)
    assert rejected(log, entry, "wrong-table", via=2).seat == 2


def test_stranger(new_log, players):
    log = new_log()
    stranger = Identity.generate()
    entry = raw(stranger, 5, 0, log.head(0), log.seen())
    rejected(log, entry, "stranger")
    # A stranger's key claiming a real seat is just a bad signature.
    entry = next_raw(log, stranger, 1)
    rejected(log, entry, "bad-signature")


def test_replay_and_duplicates_are_harmless(new_log, players, monkeypatch):
    log = new_log()
    [first, second] = play(log, players, [0, 1])
    before = log.seen()
    # An exact copy (a resend after a reconnect, a relay, a fetched copy) changes nothing ...
    assert log.append(first, via=2) is False
    assert log.append(second) is False
    assert log.seen() == before and len(log) == 2
    # (an exact copy of a checked entry is recognised before any signature check) ...
    verified = []
    real_verify = Entry.verify
    monkeypatch.setattr(Entry, "verify", lambda self, key: verified.append(self) or real_verify(self, key))
    assert log.append(Entry.from_wire(first.to_wire()), via=2) is False and verified == []
    # ... but the same content with another signature is checked, and a bad one named.
    forged = Entry.from_wire({**first.to_wire(), "sig": bytes(64)})
    assert rejected(log, forged, "bad-signature", via=2).seat == 2 and verified == [forged]
    # ... and an entry cannot be replayed anywhere else: its table, seat, seq and prev are signed.
    other_table = Log(b"\x01" * 16, LOBBY, log.roster)
    assert rejected(other_table, first, "wrong-table", via=2).seat == 2
    other_lobby = Log(TABLE, {"game": "other"}, log.roster)
    rejected(other_lobby, first, "stale-prev")


def test_gap_in_seq(new_log, players):
    log = new_log()
    play(log, players, [0])
    skip = raw(players[0], 0, 2, log.head(0), [[2, log.head(0)], *log.seen()[1:]])
    assert rejected(log, skip, "gap", via=1).seat == 1


def test_stale_prev(new_log, players, roster):
    log = new_log()
    [first, second] = play(log, players, [0, 0])
    # Seat 0's #2 signed on top of its #0 instead of its #1: a fork of its own chain, and the
    # two signed entries prove it.
    stale = raw(players[0], 0, 2, first.hash, [[2, first.hash], *log.seen()[1:]])
    blame = rejected(log, stale, "stale-prev", via=1)
    assert blame.seat == 0 and blame.provable and blame.evidence == (second, stale)
    assert blame.verify(TABLE, roster) and log.blames == [blame]
    assert Blame.from_wire(blame.to_wire()).verify(TABLE, roster)
    assert not Blame(0, "stale-prev", "x", (first, second), True).verify(TABLE, roster)
    # A first entry that does not start from its seat genesis (here: seat 0's).
    wrong = raw(players[1], 1, 0, log.head(0), [log.seen()[0], [0, log.head(0)], log.seen()[2]])
    blame = rejected(log, wrong, "stale-prev")
    assert blame.seat == 1 and blame.evidence == (wrong,) and not blame.provable


@pytest.mark.parametrize(
    "seen",
    [
        None,  # no echo at all
        [],
        "seen",
        [[0, b"\x00" * 32]] * 3,  # count 0 must come with the seat genesis
        [[1, b"\x00" * 31], [0, None], [0, None]],
        [[-1, None], [0, None], [0, None]],
        [[True, None], [0, None], [0, None]],
        [[0, None], [0, None]],  # too short
        [[0, None], [0, None], [0, None], [0, None]],  # too long
        [[0, None], [0, None], [0, None, 1]],
        [[0, None], [5, None], [0, None]],  # the sender's own item is not [seq, prev]
    ],
)
def test_entry_without_a_valid_seen_is_refused(new_log, players, seen):
    log = new_log()
    genesis = [log.head(s) for s in range(3)]
    if isinstance(seen, list):
        seen = [
            [c, genesis[s % 3] if h is None else h, *rest] if isinstance(c, int) else [c, h]
            for s, (c, h, *rest) in enumerate(seen)
        ]
    entry = raw(players[1], 1, 0, log.head(1), seen)
    blame = rejected(log, entry, "bad-seen", via=2)
    assert blame.seat == 1 and blame.evidence == (entry,) and not blame.provable
    # A body that is not a map has no echo either.
    entry = sign_entry(players[1], table=TABLE, sender=1, seq=0, kind="action", prev=log.head(1), body=[log.seen()])
    rejected(log, entry, "bad-seen")
    assert log.append(next_raw(log, players[1], 1))


def test_equivocation_is_caught_with_provable_evidence(new_log, players, roster):
    # Seat 0 tells peer A one thing and peer B another, both as its entry #0.
    log_a, log_b = new_log(), new_log()
    to_a = next_raw(log_a, players[0], 0, body={"card": 1})
    to_b = next_raw(log_b, players[0], 0, body={"card": 2})
    assert log_a.append(to_a, via=0) and log_b.append(to_b, via=0)
    # B catches A up (it answers a fetch of seat 0 from #0): the other version convicts seat 0.
    with pytest.raises(Rejected) as info:
        for entry in log_b.entries(0, 0):
            log_a.append(entry, via=1)
    blame = info.value.blame
    assert blame.code == "equivocation" and blame.seat == 0 and blame.provable
    assert blame.evidence == (to_a, to_b)
    assert log_a.blames == [blame] and log_a.entries(0) == [to_a]  # keeps the first version
    assert blame.verify(TABLE, roster)
    # Seeing it again does not pile up blames.
    with pytest.raises(Rejected):
        log_a.append(to_b, via=2)
    assert len(log_a.blames) == 1
    # The evidence survives the wire and convinces a third party.
    again = Blame.from_wire(blame.to_wire())
    assert again.verify(TABLE, roster)
    assert not again.verify(b"\x00" * 16, roster)
    # Evidence that is not an equivocation proves nothing.
    assert not Blame(0, "equivocation", "x", (to_a, to_a), True).verify(TABLE, roster)
    assert not Blame(1, "equivocation", "x", (to_a, to_b), True).verify(TABLE, roster)
    assert not Blame(0, "gap", "x", (to_a, to_b), True).verify(TABLE, roster)
    assert not Blame(0, "equivocation", "x", (to_a,), True).verify(TABLE, roster)
    assert not Blame(7, "equivocation", "x", (to_a, to_b), True).verify(TABLE, roster)
    forged = Entry(to_b.table, 0, 0, to_b.kind, to_b.prev, {"card": 3}, to_b.sig)
    assert not Blame(0, "equivocation", "x", (to_a, forged), True).verify(TABLE, roster)


def test_head_echo_catches_a_seat_that_told_two_peers_different_things(new_log, players, roster):
    # Peers A (seat 1) and B (seat 2). Seat 0 sends version X of its #0 to A, Y to B.
    log_a, log_b = new_log(), new_log()
    x = next_raw(log_a, players[0], 0, body={"bid": 1})
    y = next_raw(log_b, players[0], 0, body={"bid": 9})
    log_a.append(x, via=0)
    log_b.append(y, via=0)
    # B signs its next entry; its echo says which seat-0 entry B holds. A accepts the entry (B's
    # own chain is fine) but the echo disagrees with A's copy.
    from_b = log_b.make_entry(players[2], 2, "action", {"n": 1})
    assert log_a.append(from_b, via=2)
    [mismatch] = log_a.check_seen(from_b)
    assert mismatch == Mismatch(seat=0, seq=0, theirs=y.hash, reporter=2)
    assert log_a.missing(from_b) == []
    # A fetches seat 0 from #0 from B; B's answer holds Y, which convicts seat 0.
    fetch = Fetch(TABLE, mismatch.seat, mismatch.seq)
    with pytest.raises(Rejected) as info:
        for entry in log_b.entries(fetch.seat, fetch.start):
            log_a.append(entry, via=2)
    blame = info.value.blame
    assert blame.code == "equivocation" and blame.seat == 0 and blame.verify(TABLE, roster)
    assert set(blame.evidence) == {x, y}
    # An echo that agrees reports nothing.
    from_a = log_a.make_entry(players[1], 1, "action", {})
    assert log_a.check_seen(from_a) == []


def test_head_echo_tells_what_to_fetch(new_log, players):
    log_a, log_b = new_log(), new_log()
    entries = play(log_b, players, [0, 0, 1])
    latest = log_b.make_entry(players[2], 2, "action", {})
    # A got seat 2's entry directly but misses what seat 2 had seen: fetch it from seat 2.
    assert log_a.append(latest, via=2)
    assert log_a.check_seen(latest) == []
    assert log_a.missing(latest) == [Fetch(TABLE, 0, 0), Fetch(TABLE, 1, 0)]
    log_a.append(entries[0])
    assert log_a.missing(latest) == [Fetch(TABLE, 0, 1), Fetch(TABLE, 1, 0)]
    for fetch in log_a.missing(latest):
        for entry in log_b.entries(fetch.seat, fetch.start):
            assert log_a.append(entry, via=2)
    assert log_a.missing(latest) == [] and log_a.seen() == log_b.seen()
    # check_seen on an entry without an echo refuses it.
    bare = sign_entry(players[1], table=TABLE, sender=1, seq=0, kind="action", prev=log_a.head(1), body={})
    with pytest.raises(Rejected) as info:
        log_a.check_seen(bare)
    assert info.value.code == "bad-seen"


def test_journal_in_arrival_order_verifies(new_log, players):
    log = new_log()
    arrival = play(log, players, [2, 0, 1, 1, 0, 2])
    rebuilt = new_log()
    for entry in arrival:
        rebuilt.append(entry)
    assert rebuilt.seen() == log.seen()
    assert encode([e.to_wire() for e in rebuilt.canonical()]) == encode([e.to_wire() for e in log.canonical()])


# -- the budget (wire.md section 7) --------------------------------------------------------------

BIG = 10**9


def small_log(roster, **limits):
    """A log whose seats have the budget ``limits`` (the rest unlimited), as every peer would."""
    budget = Budget(**{"entries": BIG, "bytes": BIG, "containers": BIG, **limits})
    return Log(TABLE, LOBBY, roster, budget=budget)


def over_budget(log, entry, code, roster):
    """``entry`` is refused with ``code``, naming its signer with the entry as proof that
    checks against this log and another peer's copy of it, and not against a log without it."""
    blame = rejected(log, entry, code, via=(entry.sender + 1) % 3)
    assert blame.seat == entry.sender and blame.provable and blame.evidence == (entry,)
    assert blame.verify(TABLE, roster, log)
    copy = Log(TABLE, LOBBY, roster, budget=log.budget)
    for e in log.canonical():
        copy.append(e)
    wired = Blame.from_wire(blame.to_wire())
    assert wired.verify(TABLE, roster, copy)
    assert not wired.verify(TABLE, roster)  # it needs the chain before the entry
    assert not wired.verify(b"\x01" * 16, roster, copy)
    return blame


def test_unknown_kind_is_refused_and_proves_the_fault(new_log, players, roster):
    log = new_log()
    play(log, players, [0, 1])
    junk = next_raw(log, players[1], 1, kind="junk")
    blame = over_budget(log, junk, "unknown-kind", roster)
    assert "unknown kind 'junk'" in blame.reason and log.blames == [blame]
    # Every kind of table.md section 4 is accepted; the seat may go on with a known one.
    assert {"deck", "action", "open", "absent", "chat", "blame", "result", "bye", "stop"} == KINDS
    for kind in sorted(KINDS):
        assert log.append(next_raw(log, players[2], 2, kind=kind))
    assert log.append(next_raw(log, players[1], 1))
    # A known kind called unknown proves nothing, nor an entry that is not the seat's.
    fine = log.entries(2)[0]
    assert not Blame(2, "unknown-kind", "x", (fine,), True).verify(TABLE, roster, log)
    assert not Blame(0, "unknown-kind", "x", (junk,), True).verify(TABLE, roster, log)
    forged = Entry(junk.table, 1, junk.seq, junk.kind, junk.prev, junk.body, players[0].sign(junk.signed_bytes))
    assert not Blame(1, "unknown-kind", "x", (forged,), True).verify(TABLE, roster, log)


def test_entries_over_the_count_budget(players, roster):
    log = small_log(roster, entries=4)
    play(log, players, [0, 1, 0, 0, 0, 2])
    fifth = next_raw(log, players[0], 0)
    blame = over_budget(log, fifth, "over-budget", roster)
    assert "budget of 4 entries" in blame.reason
    assert log.append(next_raw(log, players[1], 1))  # the other seats' budgets are their own
    # The proof must follow the chain the verifier holds: with another prev it proves nothing.
    moved = raw(players[0], 0, 4, log.entries(0)[2].hash, fifth.body["seen"])
    assert not Blame(0, "over-budget", "x", (moved,), True).verify(TABLE, roster, log)
    # Nor does an entry the rule accepts, claimed to be over budget.
    assert not Blame(0, "over-budget", "x", (log.entries(0)[3],), True).verify(TABLE, roster, log)
    # Nor does it convince a verifier that does not hold the chain before it yet.
    behind = small_log(roster, entries=4)
    assert not Blame(0, "over-budget", "x", (fifth,), True).verify(TABLE, roster, behind)


def test_bytes_over_the_budget(players, roster):
    probe = small_log(roster)
    sizes = [len(e.signed_bytes) for e in play(probe, players, [0, 0])]
    log = small_log(roster, bytes=sum(sizes) + 100)
    play(log, players, [0, 0])
    padded = next_raw(log, players[0], 0, body={"pad": b"x" * 200})
    blame = over_budget(log, padded, "over-budget", roster)
    assert f"budget of {sum(sizes) + 100} bytes" in blame.reason
    # One entry larger than MAX_ENTRY_BYTES is refused even with bytes to spare.
    log = small_log(roster, entry_bytes=1000)
    assert log.append(next_raw(log, players[2], 2, body={"pad": b"x" * 500}))
    huge = next_raw(log, players[2], 2, body={"pad": b"x" * 1000})
    assert "larger than 1000 bytes" in over_budget(log, huge, "over-budget", roster).reason


def test_lists_and_maps_over_the_budget(players, roster):
    # Empty lists cost a byte each on the wire and a hundred in a reader's memory: counted.
    log = small_log(roster, containers=400)
    assert log.append(next_raw(log, players[1], 1, body={"junk": [[]] * 200}))
    more = next_raw(log, players[1], 1, body={"junk": [[]] * 200})
    assert "lists and maps" in over_budget(log, more, "over-budget", roster).reason


def test_chat_has_a_budget_of_its_own(players, roster):
    log = small_log(roster, chat_entries=3)
    for i in range(3):
        assert log.append(next_raw(log, players[0], 0, kind="chat", body={"text": f"hi {i}"}))
    fourth = next_raw(log, players[0], 0, kind="chat", body={"text": "hi 3"})
    assert "budget of 3 chat lines" in over_budget(log, fourth, "over-budget", roster).reason
    assert log.append(next_raw(log, players[0], 0))  # a move still goes through
    log = small_log(roster, chat_bytes=2000)
    assert log.append(next_raw(log, players[1], 1, kind="chat", body={"text": "x" * 500}))
    long = next_raw(log, players[1], 1, kind="chat", body={"text": "y" * 1500})
    assert "chat over the budget of 2000 bytes" in over_budget(log, long, "over-budget", roster).reason
    assert log.append(next_raw(log, players[1], 1, kind="deck", body={"pad": b"y" * 1500}))
    # The default is far tighter than the rest of a seat's budget and far above chatty play.
    assert Log(TABLE, LOBBY, roster).budget.chat_entries == CHAT_ENTRIES == 1000


def test_one_proof_a_seat_is_kept(players, roster):
    log = small_log(roster, entries=1)
    play(log, players, [0, 1, 2])
    for n in range(3):  # a seat that keeps sending faulty versions does not grow the list
        rejected(log, next_raw(log, players[0], 0, body={"n": n}), "over-budget")
    for seat in (1, 2):
        rejected(log, next_raw(log, players[seat], seat), "over-budget")
    assert [b.seat for b in log.blames] == [0, 1, 2] and MAX_BLAMES >= 3


# Honest games measured over loopback (bots; issue 19), per seat: signed bytes and entries.
# Cal's BS, 7 players, 14 hands (to 5 wins): at most 402,761 bytes and 267 entries;
# Calypso, 4 players, a whole game: at most 106,795 bytes and 115 entries.
HONEST = {7: (402_761 / 14, 267 / 14), 4: (106_795, 115)}


def test_honest_games_are_far_under_budget(roster):
    seven, four = Budget.for_seats(7), Budget.for_seats(4)
    per_hand_bytes, per_hand_entries = HONEST[7]
    # A Cal's BS match of 450 hands at 7 players (to 99 wins among unequal players takes less;
    # 3 wins, the default, about 10): under budget.
    assert 450 * per_hand_bytes < seven.bytes and 450 * per_hand_entries < seven.entries
    assert 100 * HONEST[4][0] < four.bytes and 100 * HONEST[4][1] < four.entries
    # Every seat at a full table (16) can still play a long game of 4,000 entries.
    assert Budget.for_seats(16).entries > 4000 and Budget.for_seats(16).bytes > 6 << 20


def test_closed_leaves_out_entries_whose_echo_the_log_cannot_back():
    """A chat line that echoes another seat's line we never got, and what follows it in its
    chain, stay out of a finished transcript: every echo left is backed by the file."""
    ids = [Identity.generate() for _ in range(3)]
    keys = [i.public for i in ids]
    table, header = bytes(16), {"table": "t"}
    theirs = [Log(table, header, keys) for _ in range(3)]
    ours = Log(table, header, keys)
    lost = theirs[2].make_entry(ids[2], 2, "chat", {"text": "never reaches us"})
    theirs[1].append(lost)
    echoing = theirs[1].make_entry(ids[1], 1, "chat", {"text": "saw it"})
    after = theirs[1].make_entry(ids[1], 1, "chat", {"text": "and then"})
    mine = ours.make_entry(ids[0], 0, "chat", {"text": "ours"})
    ours.append(echoing)
    ours.append(after)
    assert list(ours.canonical()) == [mine, echoing, after]
    assert list(ours.closed()) == [mine]


def encoded_kept(log):
    """The entries of ``log`` that keep their encoded bytes beside the decoded body."""
    return [e for e in log.canonical() if "signed_bytes" in e.__dict__ or "wire_bytes" in e.__dict__]


def test_old_entries_drop_their_bytes_and_make_them_again_identical(new_log, players, roster):
    # Issue 23: a long match must not keep every entry's bytes beside its decoded body. Only
    # the last KEEP_ENCODED of each chain keep them, however long the log grows.
    if new_log.spills:
        pytest.skip("about the entries a log keeps decoded (a spilled one is read back anew)")
    log, other = new_log(), new_log()
    made = []
    for rounds in (1, 3, 9):
        while len(made) < rounds * 3 * KEEP_ENCODED:
            made += play(log, players, [0, 1, 2])
        assert len(encoded_kept(log)) <= 3 * KEEP_ENCODED
    original = {e.hash: (e.signed_bytes, e.wire_bytes) for e in made[-3:]}
    # What another seat receives (decoded from the wire) is kept the same way, and the echo
    # hashes in each body are the log's own objects, not a copy each.
    wire = [Entry.from_wire(decode(e.wire_bytes)) for e in made]
    for entry in wire:
        assert other.append(entry, via=1) is True
    assert other.seen() == log.seen() and len(encoded_kept(other)) <= 3 * KEEP_ENCODED
    last = other.entries(2)[-1]
    assert all(item[1] is other.entries(seat)[item[0] - 1].hash for seat, item in enumerate(last.body["seen"]))
    # Dropped, the bytes come back identical when asked: a fetch's answer, the transcript.
    first = other.entries(0)[0]
    assert "signed_bytes" not in first.__dict__
    assert first.encoded() == made[0].encoded() and "wire_bytes" not in first.__dict__
    assert (
        first.signed_bytes
        == sign_entry(
            players[0], table=TABLE, sender=0, seq=0, kind="action", prev=first.prev, body=first.body
        ).signed_bytes
    )
    assert first.verify(roster[0]) and first == made[0]
    for entry in made[-3:]:
        entry.forget_encoding()
        assert (entry.signed_bytes, entry.wire_bytes) == original[entry.hash]
    # An old entry sent again is still a harmless copy; another version of it still convicts.
    assert other.append(Entry.from_wire(first.to_wire()), via=2) is False
    forged = raw(players[0], 0, 0, first.prev, first.body["seen"], body={"n": -1})
    with pytest.raises(Rejected) as info:
        other.append(forged, via=2)
    assert info.value.code == "equivocation" and info.value.blame.verify(TABLE, roster)

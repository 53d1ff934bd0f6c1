"""A log that spills its older entries to a store answers as one that keeps them all (issue 23:
memory bounded whatever a match's length), and a spill file it cannot read back is a clear
error that loses nothing."""

from __future__ import annotations

import os
import random

import pytest

from p2pcards.wire.framing import encode
from p2pcards.wire.log import KEEP_ENCODED, Blame, Budget, Log, Rejected
from p2pcards.wire.messages import Entry
from p2pcards.wire.spill import FileSpill, MemorySpill, SpillError

from .test_log import LOBBY, TABLE, next_raw, raw


def wire(entries):
    return encode([e.to_wire() for e in entries])


def logs(roster, tmp_path, budget=None):
    """One log that keeps everything and three that spill (to memory, to a file, to an
    unnamed file), with tiny thresholds."""
    kept = Log(TABLE, LOBBY, roster, budget=budget)
    spilled = [Log(TABLE, LOBBY, roster, budget=budget) for _ in range(3)]
    spilled[0].spill_to(MemorySpill(), keep=1)
    spilled[1].spill_to(FileSpill.create(tmp_path / "spill"), keep=2)
    spilled[2].spill_to(FileSpill.unnamed(tmp_path), keep=5)
    return kept, spilled


def a_game(players, logs, rounds=40, seed=1):
    """Entries of all three seats, each made on its own seat's log and delivered to the
    others in a random order, some chats echoing entries the receivers lack."""
    rng = random.Random(seed)
    made = []
    for n in range(rounds):
        seat = rng.randrange(3)
        made.append(logs[seat].make_entry(players[seat], seat, rng.choice(["action", "chat", "deck"]), {"n": n}))
        for other in range(3):
            if other != seat and rng.random() < 0.8:
                for entry in made:
                    logs[other].append(Entry.from_wire(entry.to_wire()))
    return made


def same_answers(kept, log):
    assert len(log) == len(kept) and log.seen() == kept.seen()
    assert wire(log.canonical()) == wire(kept.canonical())
    assert wire(log.closed()) == wire(kept.closed())
    for seat in range(3):
        assert log.next_seq(seat) == kept.next_seq(seat) and log.head(seat) == kept.head(seat)
        for start in range(-2, kept.next_seq(seat) + 2):
            assert wire(log.entries(seat, start)) == wire(kept.entries(seat, start))
        for seq in range(kept.next_seq(seat)):
            assert log.entry(seat, seq) == kept.entry(seat, seq)
    assert log.entries(7) == []


def test_a_spilled_log_answers_as_one_that_keeps_everything(players, roster, tmp_path):
    # The three seats' own logs spill too; a fourth party's logs receive everything.
    seats = [Log(TABLE, LOBBY, roster) for _ in range(3)]
    for seat in seats[1:]:
        seat.spill_to(MemorySpill(), keep=1)
    made = a_game(players, seats, rounds=60)
    kept, spilled = logs(roster, tmp_path)
    rng = random.Random(2)
    order = sorted(made, key=lambda e: (e.sender, e.seq))
    for log in [kept, *spilled]:
        chains = [[e for e in order if e.sender == s] for s in range(3)]
        while any(chains):  # any interleaving that keeps each chain in order
            seat = rng.choice([s for s in range(3) if chains[s]])
            assert log.append(Entry.from_wire(chains[seat].pop(0).to_wire()), via=seat)
    for log in spilled:
        assert log.spilled > 0
        same_answers(kept, log)
    for seat in seats[1:]:
        assert seat.spilled > 0
    for seat in seats:  # every seat's log, spilled or not, ends the same
        for log in spilled:
            assert seat.seen() == log.seen() and wire(seat.canonical()) == wire(log.canonical())
    # The head echo checks and the fetches agree too, for every entry of the game.
    for entry in made:
        for log in spilled:
            assert log.check_seen(entry) == kept.check_seen(entry)
            assert log.missing(entry) == kept.missing(entry)


def test_closed_agrees_when_echoes_count_entries_that_never_came(players, roster, tmp_path):
    kept, spilled = logs(roster, tmp_path)
    others = [Log(TABLE, LOBBY, roster) for _ in range(3)]
    for n in range(8):  # a history everyone holds, long enough to spill
        for seat in range(3):
            entry = others[seat].make_entry(players[seat], seat, "action", {"n": n})
            for log in [*others, kept, *spilled]:
                if log is not others[seat]:
                    log.append(Entry.from_wire(entry.to_wire()))
    lost = others[2].make_entry(players[2], 2, "chat", {"text": "never reaches us"})
    others[1].append(lost)
    echoing = [others[1].make_entry(players[1], 1, "chat", {"text": f"saw it {n}"}) for n in range(3)]
    for log in [kept, *spilled]:
        for entry in echoing:
            log.append(Entry.from_wire(entry.to_wire()))
        assert [e.seq for e in log.closed() if e.sender == 1] == list(range(8))
        assert log.missing(echoing[0]) == kept.missing(echoing[0])
    for log in spilled:
        same_answers(kept, log)


def test_copies_and_rivals_of_spilled_entries(players, roster, tmp_path):
    kept, spilled = logs(roster, tmp_path)
    made = a_game(players, [kept, Log(TABLE, LOBBY, roster), Log(TABLE, LOBBY, roster)], rounds=30)
    for log in spilled:
        for entry in kept.canonical():
            log.append(Entry.from_wire(entry.to_wire()))
    old = next(e for e in kept.canonical() if e.sender == 0 and e.seq == 0)
    for log in [kept, *spilled]:
        before = log.seen()
        # A copy of an old entry (a resend after a reconnect) is harmless ...
        assert log.append(Entry.from_wire(old.to_wire()), via=2) is False
        # ... one with a signature that is not its author's names whoever delivered it ...
        forged = Entry(old.table, 0, 0, old.kind, old.prev, old.body, players[1].sign(old.signed_bytes))
        with pytest.raises(Rejected) as info:
            log.append(forged, via=2)
        assert info.value.code == "bad-signature" and info.value.blame.seat == 2
        # ... and another version of it convicts its author, with the kept one as evidence.
        rival = raw(players[0], 0, 0, old.prev, old.body["seen"], body={"n": -1})
        with pytest.raises(Rejected) as info:
            log.append(rival, via=2)
        blame = info.value.blame
        assert blame.code == "equivocation" and blame.evidence[0] == old and blame.verify(TABLE, roster)
        assert log.seen() == before
    assert made


def test_an_over_budget_entry_is_proved_against_a_spilled_chain(players, roster, tmp_path):
    big = 10**9
    probe = Log(TABLE, LOBBY, roster)
    sizes = [len(probe.make_entry(players[0], 0, "action", {"n": n}).signed_bytes) for n in range(6)]
    budget = Budget(entries=big, bytes=sum(sizes[:5]) + 50, containers=big)
    kept, spilled = logs(roster, tmp_path, budget)
    for log in [kept, *spilled]:
        for n in range(5):
            log.make_entry(players[0], 0, "action", {"n": n})
    for log in [kept, *spilled]:
        over = next_raw(log, players[0], 0, body={"n": 5})
        with pytest.raises(Rejected) as info:
            log.append(over, via=1)
        blame = info.value.blame
        assert blame.code == "over-budget" and blame.seat == 0 and blame.provable
        for judge in [kept, *spilled]:  # every log holding the chain checks the proof alike
            assert blame.verify(TABLE, roster, judge)
            assert Blame.from_wire(blame.to_wire()).verify(TABLE, roster, judge)
        moved = raw(players[0], 0, 5, log.entry(0, 3).hash, over.body["seen"], body={"n": 5})
        assert not Blame(0, "over-budget", "x", (moved,), True).verify(TABLE, roster, log)


def test_a_torn_or_changed_spill_file_is_a_clear_error(players, roster, tmp_path):
    path = tmp_path / "spill"
    log = Log(TABLE, LOBBY, roster)
    store = FileSpill.create(path)
    log.spill_to(store, keep=2)
    for n in range(6):
        log.make_entry(players[0], 0, "action", {"n": n})
    seen = log.seen()
    assert log.spilled == 4 and [e.body["n"] for e in log.entries(0)] == list(range(6))
    # Changed: one byte of the third record.
    data = bytearray(path.read_bytes())
    third = len(data) * 2 // 4 + 10
    data[third] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(SpillError, match="checksum: the spill file was changed"):
        log.entries(0)
    assert [e.body["n"] for e in log.entries(0, 4)] == [4, 5]  # the kept ones still answer
    # Torn: cut in the middle of the last record.
    os.truncate(path, len(data) - 20)
    with pytest.raises(SpillError, match="cut short: the spill file is torn"):
        log.entry(0, 3)
    with pytest.raises(SpillError):
        list(log.canonical())
    # The log itself goes on: appending, echoes and fetches never read the store.
    assert log.seen() == seen
    log.make_entry(players[0], 0, "action", {"n": 6})
    assert log.next_seq(0) == 7 and log.missing(next_raw(log, players[1], 1)) == []
    # Closed: a clear error too.
    log.close()
    with pytest.raises(SpillError, match="closed"):
        log.entry(0, 0)
    assert isinstance(SpillError("x"), OSError)  # what writing a transcript already handles


class FullDisk(MemorySpill):
    def __init__(self, room: int):
        super().__init__()
        self.room = room

    def put(self, seat: int, seq: int, data: bytes) -> None:
        if self.room <= 0:
            raise OSError(28, "No space left on device")
        self.room -= 1
        super().put(seat, seq, data)


def test_a_store_that_cannot_be_written_keeps_the_entries_in_memory(players, roster):
    kept, full = Log(TABLE, LOBBY, roster), Log(TABLE, LOBBY, roster)
    full.spill_to(FullDisk(room=3), keep=1)
    for n in range(10):
        entry = kept.make_entry(players[n % 3], n % 3, "action", {"n": n})
        assert full.append(Entry.from_wire(entry.to_wire()))
    assert full.spilled == 3 and full.spill_failure is not None and full.spill_failure.errno == 28
    same_answers(kept, full)


def test_an_index_follows_appends_and_retractions(players, roster):
    log = Log(TABLE, LOBBY, roster)
    log.spill_to(MemorySpill(), keep=1)
    log.make_entry(players[0], 0, "action", {"n": 0})
    results = log.index(lambda e: e.kind == "result")
    actions = log.index(lambda e: e.kind == "action")
    assert results == [[], [], []] and actions == [[0], [], []]
    log.make_entry(players[1], 1, "action", {"n": 1})
    last = log.make_entry(players[0], 0, "result", {"n": 2})
    assert results == [[1], [], []] and actions == [[0], [0], []]
    log.retract(last)
    assert results == [[], [], []] and log.next_seq(0) == 1


def test_entries_are_written_as_they_pass_the_encoded_ones_and_dropped_later(players, roster):
    # The store gets an entry while its bytes are still kept (KEEP_ENCODED behind the head),
    # and the entry leaves memory only once it is `keep` behind.
    keep = KEEP_ENCODED + 3
    kept, spilled = Log(TABLE, LOBBY, roster), Log(TABLE, LOBBY, roster)
    store = MemorySpill()
    spilled.spill_to(store, keep=keep)
    for n in range(3 * (keep + 10)):
        entry = kept.make_entry(players[n % 3], n % 3, "action", {"n": n})
        spilled.append(Entry.from_wire(entry.to_wire()))
    assert len(store._data) == 3 * (keep + 10 - KEEP_ENCODED)
    assert len(list(spilled.in_memory())) == 3 * keep and spilled.spilled == 3 * 10
    assert all(("signed_bytes" in e.__dict__) == (e.seq >= keep + 10 - KEEP_ENCODED) for e in spilled.in_memory())
    same_answers(kept, spilled)

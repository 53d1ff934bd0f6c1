"""Hostile review of the spilled log (issue 23): answers that must not change while entries
are read back, and readings a hostile seat must not be able to multiply."""

from __future__ import annotations

from p2pcards.wire.log import Blame, Log
from p2pcards.wire.messages import Entry
from p2pcards.wire.spill import MemorySpill

from .test_log import LOBBY, TABLE


class CountingSpill(MemorySpill):
    """A memory store that counts what is read back."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def get(self, seat: int, seq: int) -> bytes:
        self.reads += 1
        return super().get(seat, seq)


def test_canonical_read_lazily_while_the_log_spills_misses_nothing(players, roster):
    # canonical() and closed() are streamed (a transcript, the spectators' rest): entries that
    # come meanwhile spill older ones, and a stream that had looked at the chain before must
    # neither skip nor repeat an entry.
    kept, log = Log(TABLE, LOBBY, roster), Log(TABLE, LOBBY, roster)
    log.spill_to(MemorySpill(), keep=2)
    for n in range(6):
        entry = kept.make_entry(players[0], 0, "action", {"n": n})
        log.append(Entry.from_wire(entry.to_wire()))
    before = [e.hash for e in kept.canonical()]
    stream = log.canonical()
    got = [next(stream).hash for _ in range(4)]  # 0..3 read back from the store
    for n in range(6, 10):  # four more come: entries 4..7 go to the store
        entry = kept.make_entry(players[0], 0, "action", {"n": n})
        log.append(Entry.from_wire(entry.to_wire()))
    got += [e.hash for e in stream]
    assert got[: len(before)] == before
    assert len(set(got)) == len(got)


def test_an_accepted_entry_offered_as_over_budget_proof_reads_nothing_back(players, roster):
    # A hostile seat republishes another seat's genuine late entry as the proof of an
    # over-budget blame, again and again: the entry is one we accepted, so it proves nothing,
    # and checking that must not read the whole chain back from the spill each time.
    log = Log(TABLE, LOBBY, roster)
    store = CountingSpill()
    log.spill_to(store, keep=2)
    for n in range(50):
        log.make_entry(players[0], 0, "action", {"n": n})
    genuine = log.entry(0, 49)
    store.reads = 0
    for _ in range(10):
        assert not Blame(0, "over-budget", "x", (genuine,), True).verify(TABLE, roster, log)
    assert store.reads == 0


def test_an_over_budget_proof_at_the_head_reads_nothing_back(players, roster):
    # The usual proof continues the chain as held: what the chain spent is kept as entries
    # come, so checking it needs none of them read back.
    from p2pcards.wire.log import Budget, Rejected

    from .test_log import next_raw

    big = 10**9
    log = Log(TABLE, LOBBY, roster, budget=Budget(entries=40, bytes=big, containers=big))
    store = CountingSpill()
    log.spill_to(store, keep=2)
    for n in range(40):
        log.make_entry(players[0], 0, "action", {"n": n})
    over = next_raw(log, players[0], 0, body={"n": 40})
    try:
        log.append(over, via=1)
    except Rejected as exc:
        blame = exc.blame
    store.reads = 0
    assert blame.verify(TABLE, roster, log) and store.reads == 0


def test_indexes_and_columns_follow_a_spilled_log_through_retractions(players, roster):
    # What the hot paths read instead of the chain must say what reading the chain says, with
    # entries spilled and our own last entries retracted (a journal that could not be written).
    import random

    rng = random.Random(3)
    log = Log(TABLE, LOBBY, roster)
    log.spill_to(MemorySpill(), keep=1)
    turns = log.column(lambda e: e.body.get("t", -1))
    results = log.index(lambda e: e.kind == "result")
    firsts = log.index(lambda e: e.kind == "deck", first=True)
    for _ in range(300):
        seat = rng.randrange(3)
        kind = rng.choice(["action", "result", "deck", "chat"])
        entry = log.make_entry(players[seat], seat, kind, {"t": rng.randrange(20)})
        if rng.random() < 0.2:
            log.retract(entry)
    for seat in range(3):
        chain = log.entries(seat)
        assert list(turns[seat]) == [e.body["t"] for e in chain]
        assert results[seat] == [e.seq for e in chain if e.kind == "result"]
        assert firsts[seat] == [e.seq for e in chain if e.kind == "deck"][:1]

"""Spectators of a seat whose log spills (issue 23): anyone on the network may join as a
spectator, again and again; a join must not read the whole log back from the spill at once
and hold it decoded (16 at once would hold 16 copies of a long match)."""

from __future__ import annotations

import trio

from p2pcards.net.spectators import MAX_SPECTATORS, Spectators
from p2pcards.wire.framing import decode
from p2pcards.wire.identity import Identity
from p2pcards.wire.log import Log
from p2pcards.wire.messages import Entry
from p2pcards.wire.spill import MemorySpill, SpillError

ME = Identity.generate()
ENTRIES = 200


class CountingSpill(MemorySpill):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.broken = False

    def get(self, seat: int, seq: int) -> bytes:
        self.reads += 1
        if self.broken:
            raise SpillError("gone")
        return super().get(seat, seq)


class StuckConn:
    """A spectator's connection that takes ``takes`` entry frames, then none."""

    def __init__(self, takes: int = 1):
        self.takes = takes
        self.frames: list[bytes] = []
        self.sent: list[object] = []
        self.failure = None
        self.closed = False
        self.bytes_received = 0
        self.send_timeout = 0.0
        self._gone = trio.Event()
        self._room = trio.Event()

    async def send(self, message: object) -> None:
        self.sent.append(message)

    async def send_frame(self, frame: bytes) -> None:
        while len(self.frames) >= self.takes:
            await self._room.wait()
        self.frames.append(frame)

    def give(self, more: int) -> None:
        """Take ``more`` frames from now on."""
        self.takes += more
        self._room.set()
        self._room = trio.Event()

    async def receive(self) -> object:
        await self._gone.wait()
        raise EOFError

    def _close_now(self) -> None:
        self.closed = True
        self._gone.set()

    async def aclose(self) -> None:
        self._close_now()


def a_long_log() -> tuple[Log, CountingSpill]:
    log = Log(bytes(16), {"t": 1}, [ME.public])
    store = CountingSpill()
    log.spill_to(store, keep=2)
    for n in range(ENTRIES):
        log.make_entry(ME, 0, "action", {"n": n})
    return log, store


async def test_spectators_that_read_nothing_cost_no_reading_back():
    log, store = a_long_log()
    spectators = Spectators({"t": 1}, lambda: log)
    store.reads = 0
    async with trio.open_nursery() as nursery:
        for n in range(MAX_SPECTATORS):
            nursery.start_soon(spectators.serve, StuckConn(), f"s{n}")
        await trio.sleep(0.2)
        assert len(spectators.watchers) == MAX_SPECTATORS
        # Each took one entry and waits: a few read back each, not the whole log each.
        assert store.reads <= MAX_SPECTATORS * 3, store.reads
        nursery.cancel_scope.cancel()


async def test_a_spectator_gets_the_whole_log_in_order_and_what_comes_meanwhile():
    log, store = a_long_log()
    spectators = Spectators({"t": 1}, lambda: log)
    conn = StuckConn(takes=ENTRIES + 10)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(spectators.serve, conn, "s")
        await trio.sleep(0)
        for n in range(ENTRIES, ENTRIES + 5):  # entries come while it is being caught up
            spectators.offer([log.make_entry(ME, 0, "action", {"n": n})])
            await trio.sleep(0)
        await trio.sleep(0.2)
        nursery.cancel_scope.cancel()
    got = [Entry.from_wire(decode(f[4:])).seq for f in conn.frames]
    assert got == list(range(ENTRIES + 5))


async def test_a_spill_that_fails_during_a_catch_up_ends_that_spectator_only():
    log, store = a_long_log()
    spectators = Spectators({"t": 1}, lambda: log)
    store.broken = True
    conn = StuckConn(takes=ENTRIES)
    with trio.move_on_after(2):
        await spectators.serve(conn, "s")
    assert conn.closed and not spectators.watchers
    assert any(isinstance(m, dict) and m.get("type") == "bye" for m in conn.sent), conn.sent


async def test_the_end_of_a_long_match_sends_spectators_the_rest_without_reading_it_all_at_once():
    from p2pcards.wire.transcript import TranscriptEnd

    log, store = a_long_log()
    spectators = Spectators({"t": 1}, lambda: log)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(spectators.serve, StuckConn(takes=1), "s")
        await trio.sleep(0.05)
        store.reads = 0
        end = TranscriptEnd("aborted", None, (), "test")
        with trio.move_on_after(0.2):
            await spectators.finish(end, [log.next_seq(0)])
        assert store.reads <= 3, store.reads
        nursery.cancel_scope.cancel()


async def test_the_rest_is_what_a_spectator_had_not_had():
    from p2pcards.wire.transcript import TranscriptEnd

    log, store = a_long_log()
    spectators = Spectators({"t": 1}, lambda: log)
    conn = StuckConn(takes=10 * ENTRIES)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(spectators.serve, conn, "s")
        await trio.sleep(0.05)
        for n in range(ENTRIES, ENTRIES + 3):
            spectators.offer([log.make_entry(ME, 0, "action", {"n": n})])
        end = TranscriptEnd("aborted", None, (), "test")
        await spectators.finish(end, [log.next_seq(0)])
        nursery.cancel_scope.cancel()
    got = [Entry.from_wire(decode(f[4:])).seq for f in conn.frames]
    assert got == list(range(ENTRIES + 3))
    assert conn.sent[-1]["op"] == "ended"


async def test_what_a_spectator_was_sent_is_kept_in_a_byte_an_entry():
    # Up to 16 spectators each remember which entries they got (so that none goes twice): a
    # set of (seat, seq) pairs cost ~90 bytes an entry each, 16 x a long match's log.
    import tracemalloc

    log = Log(bytes(16), {"t": 1}, [ME.public])
    for n in range(3000):
        log.make_entry(ME, 0, "action", {"n": n})
    spectators = Spectators({"t": 1}, lambda: log)
    conn = StuckConn(takes=10**6)
    tracemalloc.start()
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(spectators.serve, conn, "s")
            while len(conn.frames) < 3000:
                await trio.sleep(0.01)
            conn.frames.clear()  # (what the test kept, not the seat)
            kept, _ = tracemalloc.get_traced_memory()
            nursery.cancel_scope.cancel()
    finally:
        tracemalloc.stop()
    assert kept < 40_000, kept


async def test_an_entry_taken_back_during_a_catch_up_ends_nothing():
    # Our own last entry is retracted (our journal could not take it) while a spectator is
    # being caught up from a count taken before: it is not sent, and nothing fails.
    log, store = a_long_log()
    spectators = Spectators({"t": 1}, lambda: log)
    conn = StuckConn(takes=1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(spectators.serve, conn, "s")
        await trio.sleep(0.05)
        log.retract(log.entry(0, ENTRIES - 1))
        conn.give(10 * ENTRIES)
        await trio.sleep(0.2)
        assert spectators.watchers  # still served
        nursery.cancel_scope.cancel()
    got = [Entry.from_wire(decode(f[4:])).seq for f in conn.frames]
    assert got == list(range(ENTRIES - 1))

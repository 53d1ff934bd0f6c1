"""Catching up on a live Peer, in process (protocol/table.md sections 3 and 4): what a peer
asks for when a connection comes up, what it leaves out of an answer, and when it asks for
entries a held entry waits for."""

from __future__ import annotations

import trio

from p2pcards.wire.log import Log

from .peer_support import IDS, TABLE, Recorder, fetched, make_peer


def test_a_fetch_is_not_answered_with_what_already_went_out_on_that_connection():
    async def main():
        peer = make_peer()
        old, new = Recorder(), Recorder()
        peer.attach(1, old)
        for i in range(3):
            await peer.publish("chat", {"text": f"line {i}"})
        peer.attach(2, new)  # connected after our entries went out
        fetch = {"type": "fetch", "table": TABLE, "seat": 0, "start": 0}
        await peer.deliver(1, fetch, old)
        await peer.deliver(2, fetch, new)
        assert len(old.frames) == 3  # the three entries, once, not again for the fetch
        assert len(new.frames) == 3 and new.frames == old.frames  # all of them
        assert old.messages == new.messages == [fetched(3)]

    trio.run(main)


def test_a_new_connection_asks_for_its_seat_and_for_seats_we_are_not_connected_to():
    async def main():
        peer = make_peer()
        peer.attach(2, Recorder())
        conn = Recorder()
        await peer.serve_connection(1, conn)
        # Seat 2 sends us its entries itself: only seat 1's chain is asked of seat 1.
        assert [(m["type"], m["seat"]) for m in conn.messages] == [("fetch", 1)]
        lone = make_peer()
        conn = Recorder()
        await lone.serve_connection(1, conn)
        assert [(m["type"], m["seat"]) for m in conn.messages] == [("fetch", 1), ("fetch", 2)]

    trio.run(main)


def test_what_a_connected_seat_did_not_send_us_is_asked_for_after_a_while():
    async def main():
        peer = make_peer()
        one, two = Recorder(), Recorder()
        peer.attach(1, one)
        peer.attach(2, two)
        log = Log(TABLE, peer.header_wire, [i.public for i in IDS])
        log.make_entry(IDS[1], 1, "chat", {"text": "to some"})  # seat 1 does not send it to us
        seen_it = log.make_entry(IDS[2], 2, "chat", {"text": "I saw it"})
        await peer.deliver(2, seen_it.to_wire(), two)
        assert two.messages == []  # seat 1 is connected: its entry should be on its way
        async with trio.open_nursery() as nursery:
            nursery.start_soon(peer.run_background)
            with trio.fail_after(2):
                while not two.messages:
                    await trio.sleep(0.05)
            nursery.cancel_scope.cancel()
        assert two.messages[0] == {"type": "fetch", "table": TABLE, "seat": 1, "start": 0}
        assert one.messages == []

    trio.run(main)


def test_a_fetch_of_a_spilled_chain_reads_it_back_as_it_is_sent():
    # A hostile seat fetches our whole chain from 0 and then reads slowly (or fetches again
    # and again): the answer reads the spilled entries one by one as they go out, never the
    # whole chain at once into memory (issue 23), and gives every entry in order.
    from p2pcards.wire.framing import decode
    from p2pcards.wire.messages import Entry
    from p2pcards.wire.spill import MemorySpill

    class CountingSpill(MemorySpill):
        reads = 0

        def get(self, seat, seq):
            self.reads += 1
            return super().get(seat, seq)

    class Slow(Recorder):
        async def send_frame(self, frame):
            self.frames.append(frame)
            if len(self.frames) >= 2:
                await trio.sleep_forever()

    async def main():
        peer = make_peer()
        store = CountingSpill()
        peer.log.spill_to(store, keep=2)
        for i in range(60):
            await peer.publish("chat", {"text": f"line {i}"})
        slow, full = Slow(), Recorder()
        peer.attach(1, slow)
        peer.attach(2, full)
        fetch = {"type": "fetch", "table": TABLE, "seat": 0, "start": 0}
        store.reads = 0
        async with trio.open_nursery() as nursery:
            nursery.start_soon(peer.deliver, 1, fetch, slow)
            await trio.sleep(0.1)
            assert store.reads <= 3, store.reads
            nursery.cancel_scope.cancel()
        await peer.deliver(2, fetch, full)
        assert [Entry.from_wire(decode(f[4:])).seq for f in full.frames] == list(range(60))
        assert full.messages == [fetched(60)]
        # The same fetch again and again on that connection (a hostile seat in a loop): what
        # went out on it is neither sent nor read back again.
        store.reads = 0
        for _ in range(20):
            await peer.deliver(2, fetch, full)
        assert store.reads == 0 and len(full.frames) == 60 and full.messages == [fetched(60)] * 21

    trio.run(main)


class _Broken:
    """A spill store whose file went bad after ``room`` entries were written."""

    def __init__(self):
        from p2pcards.wire.spill import MemorySpill

        self.inner, self.broken = MemorySpill(), False

    def put(self, seat, seq, data):
        self.inner.put(seat, seq, data)

    def get(self, seat, seq):
        from p2pcards.wire.spill import SpillError

        if self.broken:
            raise SpillError("the spill file was deleted")
        return self.inner.get(seat, seq)

    def close(self):
        self.inner.close()


def test_a_rival_of_a_spilled_entry_with_our_spill_gone_names_nobody_and_crashes_nothing():
    # Seat 1 signs a second version of its long-spilled entry #0 while our spill file is
    # unreadable: we cannot hold the two side by side (the proof), so we name nobody for it,
    # and the peer goes on (the rival is refused: our log keeps the version it had).
    async def main():
        peer = make_peer()
        store = _Broken()
        peer.log.spill_to(store, keep=2)
        theirs = Log(TABLE, peer.header_wire, [i.public for i in IDS])
        one = Recorder()
        peer.attach(1, one)
        for i in range(10):
            entry = theirs.make_entry(IDS[1], 1, "chat", {"text": f"line {i}"})
            await peer.deliver(1, entry.to_wire(), one)
        assert peer.log.spilled >= 5
        other = Log(TABLE, peer.header_wire, [i.public for i in IDS])
        rival = other.make_entry(IDS[1], 1, "chat", {"text": "another line 0"})
        store.broken = True
        await peer.deliver(1, rival.to_wire(), one)
        assert peer.log.next_seq(1) == 10 and peer.log.head(1) == theirs.head(1)
        assert peer.protocol.blames == []

    trio.run(main)

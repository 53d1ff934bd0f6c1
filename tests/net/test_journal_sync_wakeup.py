"""keep_journal_synced sleeps until an entry of ours is written (Peer._unsynced_written) and
replaces that event as an fsync starts: an entry written while the fsync runs in its thread
must still get an fsync of its own (no lost wake-up)."""

from __future__ import annotations

import threading
import time

import trio

from p2pcards.wire.transcript import TranscriptHeader, TranscriptWriter

from .peer_support import IDS, TABLE, make_peer


# Real time (1.6 s of it): the fsync must run in a worker thread while the loop goes on, and
# on a virtual clock the peer runs it in the loop instead (net/threads.py).
def test_an_entry_written_while_the_journal_is_fsynced_gets_the_next_fsync(tmp_path):
    async def main():
        peer = make_peer()
        header = TranscriptHeader(
            TABLE,
            tuple(i.public for i in IDS),
            ("p0", "p1", "p2"),
            "cals-bs",
            peer.header.rules_version,
            dict(peer.header.options),
            peer.header_wire,
        )
        peer.journal = TranscriptWriter.create(tmp_path / "journal.p2pt", header)
        fsync = peer.journal.fsync
        started = threading.Event()
        covered: list[int] = []  # the records flushed when each fsync began

        def slow_fsync():  # in a worker thread (off_the_loop): slow, as a busy disk
            covered.append(peer.journal.whole_records)
            started.set()
            time.sleep(0.3)
            fsync()

        peer.journal.fsync = slow_fsync
        async with trio.open_nursery() as nursery:
            nursery.start_soon(peer.keep_journal_synced)
            await peer.publish("chat", {"text": "first"})
            with trio.fail_after(2):
                while not started.is_set():
                    await trio.sleep(0.005)
            await peer.publish("chat", {"text": "during the fsync"})  # while it runs
            written = peer.journal.whole_records
            await trio.sleep(1.0)
            assert len(covered) == 2, covered
            assert covered[1] >= written > covered[0], covered
            # Then it sleeps: no fsync while nothing new is written.
            await trio.sleep(0.3)
            assert len(covered) == 2, covered
            nursery.cancel_scope.cancel()

    trio.run(main)

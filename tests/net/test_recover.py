"""A seat's journal and its recovery (protocol/table.md section 6), on a live Peer in process:
own entries are in the journal's file when they are sent and on disk soon after; a seat coming
back after a crash takes back, from the other seats, its own entries that its journal lost
(written and sent, not yet on disk, at a power cut). A whole game over loopback with a cut
journal is in test_reconnect.py."""

from __future__ import annotations

import threading
import time

import trio

from p2pcards.net.peer import Peer
from p2pcards.wire.log import Log
from p2pcards.wire.messages import Entry, Fetched, sign_entry
from p2pcards.wire.transcript import read_transcript

from .peer_support import IDS, TABLE, Recorder, fetched, make_journal, make_peer


def own_chain(peer: Peer, count: int) -> list[Entry]:
    """Seat 0's first ``count`` entries, as it signed them before the crash."""
    log = Log(TABLE, peer.header_wire, [i.public for i in IDS])
    return [log.make_entry(IDS[0], 0, "chat", {"text": f"line {i}"}) for i in range(count)]


def own_deck_message(peer: Peer) -> Entry:
    """Seat 0's first entry, a deck message: the replay makes it again (a chat line it re-uses
    from the journal by itself)."""
    log = Log(TABLE, peer.header_wire, [i.public for i in IDS])
    return log.make_entry(IDS[0], 0, "deck", {"msg": {"type": "commit", "op": 0}})


def test_lost_entries_come_back_and_nothing_is_acted_on_until_every_seat_answered():
    async def main():
        peer = make_peer()
        chain = own_chain(peer, 3)
        peer.load_journal(chain[:1])  # the journal kept only the first
        assert peer.recovering and peer.missing_answers() == [1, 2]
        for entry in chain[1:]:
            await peer.deliver(1, entry.to_wire())
        await peer.deliver(1, fetched(3))
        await peer.deliver(2, chain[1].to_wire())  # a copy: nothing new
        assert peer.recovering and peer.missing_answers() == [2]
        await peer.deliver(2, fetched(2))
        assert not peer.recovering
        assert list(peer.protocol.replay_own) == chain  # re-used as the game reaches them, never re-made
        assert peer.blames == []

    trio.run(main)


def test_a_version_of_our_entry_we_did_not_sign_is_refused_and_its_sender_named():
    async def main():
        peer = make_peer()
        chain = own_chain(peer, 2)
        peer.load_journal(chain[:1])
        forged = sign_entry(IDS[2], table=TABLE, sender=0, seq=1, kind="chat", prev=chain[0].hash, body=chain[1].body)
        await peer.deliver(2, forged.to_wire())
        assert list(peer.protocol.replay_own) == chain[:1]
        assert any("did not sign" in b and "seat 2" in b for b in peer.blames)
        # A seat that claims more of our chain than it sent is named too.
        await peer.deliver(2, fetched(5))
        assert any("says it holds 5" in b for b in peer.blames)

    trio.run(main)


def test_entries_of_others_wait_while_we_recover():
    async def main():
        peer = make_peer()
        peer.load_journal([])
        other = Log(TABLE, peer.header_wire, [i.public for i in IDS]).make_entry(IDS[1], 1, "chat", {"text": "hi"})
        chats = []
        peer.session.subscribe(lambda event: chats.append(event) if event.kind == "chat" else None)
        await peer.deliver(1, other.to_wire())
        assert peer.log.next_seq(1) == 1 and chats == []  # kept, not acted on
        await peer.deliver(1, fetched(0))
        await peer.deliver(2, fetched(0))
        await peer.recover_own()
        assert [e.text for e in chats] == ["p1: hi"]

    trio.run(main)


def test_own_entries_are_in_the_file_when_sent_and_on_disk_once_the_table_is_quiet(tmp_path):
    async def main():
        peer = make_peer()
        path = tmp_path / "journal.p2pt"
        make_journal(peer, path)
        fsyncs = []
        fsync = peer.journal.fsync
        peer.journal.fsync = lambda: (fsyncs.append(time.monotonic()), fsync())  # in a thread
        async with trio.open_nursery() as nursery:
            nursery.start_soon(peer.keep_journal_synced)
            sent = time.monotonic()
            entry = await peer.publish("chat", {"text": "hello"})
            assert read_transcript(path, allow_torn=True).entries == [entry]  # before any fsync
            assert fsyncs == []
            await trio.sleep(0.3)
            assert len(fsyncs) == 1 and fsyncs[0] - sent >= 0.05  # after a quiet moment
            nursery.cancel_scope.cancel()

    trio.run(main)


# keep_journal_synced sleeps until an entry of ours is written and replaces that event as an
# fsync starts: an entry written while the fsync runs in its thread gets an fsync of its own
# (no lost wake-up). Real time (under a second): the fsync must run in a worker thread while
# the loop goes on, and on a virtual clock the peer runs it in the loop (net/threads.py).
def test_an_entry_written_while_the_journal_is_fsynced_gets_the_next_fsync(tmp_path):
    async def main():
        peer = make_peer()
        make_journal(peer, tmp_path / "journal.p2pt")
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
            with trio.move_on_after(2):
                while len(covered) < 2:
                    await trio.sleep(0.01)
            assert len(covered) == 2, covered
            assert covered[1] >= written > covered[0], covered
            # Then it sleeps: no fsync while nothing new is written.
            await trio.sleep(0.3)
            assert len(covered) == 2, covered
            nursery.cancel_scope.cancel()

    trio.run(main)


def test_a_held_entry_waiting_for_one_of_ours_goes_on_once_the_replay_remakes_it():
    async def main():
        peer = make_peer()
        own = own_deck_message(peer)
        peer.load_journal([own])
        log = Log(TABLE, peer.header_wire, [i.public for i in IDS])
        log.append(own)
        after_ours = log.make_entry(IDS[1], 1, "chat", {"text": "after yours"})  # it saw our #0
        chats = []
        peer.session.subscribe(lambda event: chats.append(event.text) if event.kind == "chat" else None)
        await peer.deliver(1, after_ours.to_wire())
        for seat in (1, 2):
            await peer.deliver(seat, fetched(1))
        await peer.recover_own()
        assert chats == []  # it waits for our #0, which the replay has not re-made yet
        async with trio.open_nursery() as nursery:
            nursery.start_soon(peer.run_background)
            assert await peer.publish("deck", {"msg": {"type": "commit", "op": 0}}) is own  # re-used
            with trio.fail_after(1):
                while not chats:
                    await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
        assert chats == ["p1: after yours"]

    trio.run(main)


def test_while_we_recover_a_seat_that_restarted_too_gets_its_entries_from_our_journal():
    """Two seats back from one power cut: each may hold what the other's journal lost, so
    our journal's entries of others answer fetches before we have recovered."""

    async def main():
        peer = make_peer()
        log = Log(TABLE, peer.header_wire, [i.public for i in IDS])
        theirs = [log.make_entry(IDS[1], 1, "chat", {"text": f"line {i}"}) for i in range(2)]
        peer.load_journal(theirs)
        await peer.replay()
        assert peer.recovering
        conn = Recorder()
        await peer.deliver(1, {"type": "fetch", "table": TABLE, "seat": 1, "start": 0}, conn)
        assert len(conn.frames) == 2 and conn.messages == [Fetched(TABLE, 1, 2).to_wire()]

    trio.run(main)


def test_a_seat_being_played_is_locked_and_not_offered_for_resume(tmp_path):
    """While a program plays a seat it holds the seat's lock: 'resume' neither finds it nor
    may play it a second time (its moves would be signed twice); a dead program's lock is gone."""
    import pytest

    from p2pcards.net.store import SeatInUse, SeatLock, SeatState, save_seat_state, seat_folder, unfinished_seats

    folder = seat_folder(bytes(16), 1, tmp_path)
    lock = SeatLock(folder)
    save_seat_state(folder, SeatState({"table": bytes(16)}, 1, b"\x01" * 32, IDS[1], "random"))
    assert unfinished_seats(tmp_path) == []
    with pytest.raises(SeatInUse, match="another program is playing the seat"):
        SeatLock(folder)
    lock.release()  # as when the program ends
    assert unfinished_seats(tmp_path) == [folder]
    SeatLock(folder).release()


def test_our_chat_lines_and_statements_in_the_journal_come_back_by_themselves():
    """The replay makes our deck messages and moves again, but not a chat line (nobody types it
    again) nor an absent statement (it depends on who was connected then): those are re-used
    as soon as they come next, so the entries after them are not held up."""

    async def main():
        peer = make_peer()
        log = Log(TABLE, peer.header_wire, [i.public for i in IDS])
        chat = log.make_entry(IDS[0], 0, "chat", {"text": "hi"})
        statement = log.make_entry(IDS[0], 0, "absent", {"turn": 3, "seat": 2})
        commit = log.make_entry(IDS[0], 0, "deck", {"msg": {"type": "commit", "op": 0}})
        peer.load_journal([chat, statement, commit])
        for seat in (1, 2):
            await peer.deliver(seat, fetched(3))
        await peer.recover_own()
        assert await peer.publish("deck", {"msg": {"type": "commit", "op": 0}}) is commit
        assert peer.log.entries(0) == [chat, statement, commit]
        assert peer.stated_absent(3, 2)

    trio.run(main)


def test_our_own_entries_from_the_network_wait_for_the_replay_and_are_never_asked_for():
    """Issue 23: after a restart the others' entries echo our chain far beyond what the replay
    has re-made. Our chain is not asked of anyone (only its recovery, beyond the journal), and
    a copy of one of our entries that comes anyway does not enter the log ahead of the replay:
    it would release at once the entries of others that wait for it, to be acted on before the
    replay reached the point where we first did."""

    async def main():
        peer = make_peer()
        log = Log(TABLE, peer.header_wire, [i.public for i in IDS])
        ours = [log.make_entry(IDS[0], 0, "deck", {"msg": {"type": "commit", "op": n}}) for n in range(2)]
        theirs = log.make_entry(IDS[1], 1, "chat", {"text": "after yours"})  # it saw both of ours
        peer.load_journal(ours)
        conn = Recorder()
        peer.attach(1, conn)
        for seat in (1, 2):
            await peer.deliver(seat, fetched(2))
        await peer.recover_own()
        chats = []
        peer.session.subscribe(lambda event: chats.append(event.text) if event.kind == "chat" else None)
        await peer.deliver(1, theirs.to_wire(), conn)
        assert not any(m.get("seat") == 0 for m in conn.messages if m.get("type") == "fetch")
        assert peer.protocol.overdue_fetches(1e9, 0.0) == []  # nor later, while it is held
        for entry in ours:  # as a fetch or a relay would bring them back
            await peer.deliver(2, entry.to_wire(), conn)
        assert peer.log.next_seq(0) == 0 and chats == [] and peer.blames == []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(peer.run_background)
            for n, entry in enumerate(ours):
                assert chats == []  # still waiting for our second
                assert await peer.publish("deck", {"msg": {"type": "commit", "op": n}}) is entry
            with trio.fail_after(1):
                while not chats:
                    await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
        assert chats == ["p1: after yours"] and peer.blames == []

    trio.run(main)


def test_a_version_of_our_entry_ahead_of_the_replay_that_we_did_not_sign_names_its_sender():
    async def main():
        peer = make_peer()
        chain = own_chain(peer, 2)
        peer.load_journal(chain)
        for seat in (1, 2):
            await peer.deliver(seat, fetched(2))
        await peer.recover_own()
        forged = sign_entry(IDS[2], table=TABLE, sender=0, seq=0, kind="chat", prev=chain[0].prev, body=chain[0].body)
        await peer.deliver(2, forged.to_wire())
        assert peer.log.next_seq(0) == 0
        assert len(peer.blames) == 1 and peer.blames[0].startswith("seat 2 (p2)")

    trio.run(main)

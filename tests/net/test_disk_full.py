"""A seat that cannot write (a full disk, lost permissions) says so in one line and leaves with a
signed ``bye`` giving the true reason; nothing already signed is lost; a torn or closed journal is
resumed or finished, never a traceback (issue 23). Disk-full is injected at the writer's file
object (no tmpfs needed): a write that does not fit writes what fits, then fails with ENOSPC.
Every table is on 127.0.0.1."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
import trio

from p2pcards.net import table as net_table
from p2pcards.net.peer import CannotWrite, Peer
from p2pcards.net.runner import play_local_table
from p2pcards.net.store import journal_path, unfinished_seats
from p2pcards.table import verdict
from p2pcards.table.timeouts import Timeouts
from p2pcards.testing.loopback import LOOPBACK, _agents, _host_for
from p2pcards.verify import EXIT_LEFT, verify_file
from p2pcards.wire.transcript import read_transcript

GRACE = 60.0  # far longer than a test may take: nobody may wait it out


class FullDisk:
    """A file on a disk with ``room`` bytes left."""

    def __init__(self, handle, room: int = 0, error: int = errno.ENOSPC):
        self.handle, self.room, self.error = handle, room, error

    def write(self, data) -> int:
        if len(data) <= self.room:
            self.room -= len(data)
            return self.handle.write(data)
        if self.room:
            self.handle.write(bytes(data[: self.room]))  # a torn record, as a full disk leaves
            self.room = 0
        raise OSError(self.error, os.strerror(self.error))

    def __getattr__(self, name):
        return getattr(self.handle, name)


def fill_disk_after(seat: int, moves: int, room: int = 0):
    """An ``on_peer`` that fills the disk under ``seat``'s journal once ``moves`` were made."""

    def on_peer(peer: Peer) -> None:
        if peer.seat != seat:
            return
        seen = []

        def watch(event) -> None:
            if event.kind == "action":
                seen.append(event)
                if len(seen) == moves and peer.journal is not None:
                    peer.journal._handle = FullDisk(peer.journal._handle, room)

        peer.session.subscribe(watch)

    return on_peer


async def play(tmp_path: Path, on_peer, *, persist: bool = False, players: int = 3):
    host, game = _host_for("cals-bs")
    options = game.resolve_options({"match_target": 3}, players)
    with trio.fail_after(45):  # the grace is 60 s: nobody may wait it out
        return await play_local_table(
            host,
            game.id,
            players=players,
            options=options,
            agents=_agents(host, game, "random", players, 0, 0.0),
            interface=LOOPBACK,
            timeouts=Timeouts(deck=20, turn=20, grace=GRACE),
            transcript_dir=tmp_path / "transcripts",
            linger=5.0,
            on_peer=on_peer,
            persist=persist,
            state_home=tmp_path / "home" if persist else None,
        )


def assert_left_for_the_others(outcomes, seat: int, reason: str) -> None:
    """The others ended the game naming ``seat`` as having left (not as a cheater), and their
    transcripts verify as a game abandoned by it."""
    for other, outcome in enumerate(outcomes):
        if other == seat:
            continue
        assert outcome.aborted is not None and outcome.aborted.seat == seat
        # Our words only (a verdict never repeats a peer's); its reason is shown apart.
        assert outcome.aborted.reason == f"player {seat} left the table (a signed goodbye)"
        assert outcome.peer.left.get(seat) == verdict.peer_words(reason)
        report = verify_file(outcome.transcript)
        assert report.end_status == "abandoned"
        assert report.status == EXIT_LEFT and report.problem.seat == seat  # it left: not a fault
        assert report.problem.reason == f"player {seat} left the table (a signed goodbye)"


def assert_nothing_signed_is_lost(outcomes, seat: int, journal: Path) -> None:
    """What the full seat's journal kept is whole and matches what the others hold."""
    kept = read_transcript(journal, allow_torn=True)
    assert kept.truncated_at is None  # cut back to its last whole record, not torn
    theirs = outcomes[(seat + 1) % len(outcomes)].peer.log
    for entry in kept.entries:
        assert theirs.entries(entry.sender)[entry.seq].signed_bytes == entry.signed_bytes


@pytest.mark.slow  # a real-time game, 6 s; the torn-journal test and test_transcript.py's ENOSPC stay fast
def test_a_seat_whose_journal_fills_the_disk_mid_game_leaves_with_a_bye_naming_why(tmp_path):
    outcomes = trio.run(play, tmp_path, fill_disk_after(1, 4, room=300))
    full = outcomes[1]
    assert isinstance(full.aborted, CannotWrite)
    assert full.aborted.reason == "cannot write its journal: disk full"
    assert "disk full" in full.aborted.detail and "journal" in full.aborted.detail
    assert full.peer.write_failure is not None
    bye = [e for e in full.peer.log.entries(1) if e.kind == "bye"]
    assert len(bye) == 1 and bye[0].body["reason"] == "cannot write its journal: disk full"
    assert_left_for_the_others(outcomes, 1, "cannot write its journal: disk full")
    # Its own transcript is written from memory (another folder may have room): the same story.
    report = verify_file(full.transcript)
    assert report.end_status == "abandoned" and report.problem.seat == 1
    journal = next((tmp_path / "transcripts").glob("*seat1.journal"), None)
    assert journal is None  # the transcript was saved: the journal went with the game


@pytest.mark.slow  # a real-time game, 6 s; the torn-journal test and test_transcript.py's ENOSPC stay fast
def test_a_full_data_folder_keeps_the_journal_whole_and_resume_says_what_it_can(tmp_path):
    """The data folder (journal) full, the transcript folder not: the seat leaves, its journal
    is whole up to what it could keep, and it matches what the others hold."""
    kept: dict[str, Path] = {}

    def on_peer(peer: Peer) -> None:
        fill_disk_after(2, 6, room=0)(peer)
        if peer.seat == 2:
            kept["journal"] = Path(peer.journal.path)

    real_finish = net_table._finish

    def finish(peer, transcript_dir, folder, end):
        if peer.seat == 2:  # look at the journal before its folder is removed with the game
            kept["copy"] = tmp_path / "journal-copy.p2pt"
            kept["copy"].write_bytes(kept["journal"].read_bytes())
        return real_finish(peer, transcript_dir, folder, end)

    net_table._finish = finish
    try:
        outcomes = trio.run(lambda: play(tmp_path, on_peer, persist=True))
    finally:
        net_table._finish = real_finish
    assert isinstance(outcomes[2].aborted, CannotWrite)
    assert_left_for_the_others(outcomes, 2, "cannot write its journal: disk full")
    assert_nothing_signed_is_lost(outcomes, 2, kept["copy"])
    assert unfinished_seats(tmp_path / "home") == []  # every transcript saved: nothing to resume


@pytest.mark.slow  # a game, stopped and resumed, in real time
def test_a_full_transcript_folder_says_where_the_game_is_and_resume_saves_it(tmp_path, monkeypatch):
    """The game finishes, but one seat cannot write its transcript: one line says so and where
    the game is kept; no torn .p2pt is left; a later resume of that seat writes the transcript
    from its journal (before: "the transcript is already closed" on every resume)."""
    real_write = net_table.write_transcript
    failed = []

    def write_transcript(path, *args):
        if path.name.endswith("seat1.p2pt") and not failed:
            failed.append(path)
            with open(path.with_name(path.name + ".tmp"), "wb") as torn:
                torn.write(b"\x89p2pcards")  # what a full disk leaves of it
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real_write(path, *args)

    monkeypatch.setattr(net_table, "write_transcript", write_transcript)
    outcomes = trio.run(lambda: play(tmp_path, None, persist=True))
    assert all(outcome.result is not None for outcome in outcomes)
    stuck = outcomes[1]
    assert stuck.transcript is None
    assert "cannot write the transcript" in stuck.problem and "disk full" in stuck.problem
    assert "journal.p2pt" in stuck.problem and "p2pcards resume" in stuck.problem
    assert not failed[0].exists()  # no torn transcript under its name
    (folder,) = unfinished_seats(tmp_path / "home")
    assert read_transcript(journal_path(folder)).end.status == "finished"

    monkeypatch.setattr(net_table, "write_transcript", real_write)
    host, _ = _host_for("cals-bs")
    with pytest.raises(net_table.GameEnded) as ended:  # at once: the game is over
        trio.run(
            lambda: net_table.resume_seat(
                folder, host, lambda *a: None, transcript_dir=tmp_path / "transcripts", state_home=tmp_path / "home"
            )
        )
    saved = ended.value.transcript
    assert saved is not None and "has ended" in ended.value.reason
    assert saved.read_bytes() == outcomes[0].transcript.read_bytes()  # canonical: identical
    assert unfinished_seats(tmp_path / "home") == []


def test_resume_cuts_a_torn_journal_starts_a_lost_one_anew_and_names_a_damaged_one(tmp_path):
    """After a full disk or a crash mid-write: a torn tail is cut to the last whole record; a
    journal with no whole header (the disk was full as the game began) is started anew (the
    other seats send back what it lacks); other damage is one line saying what to do."""
    import pytest

    from p2pcards.net.lobby import LobbyError
    from p2pcards.wire.log import Log
    from p2pcards.wire.transcript import TranscriptWriter

    from .peer_support import IDS, TABLE, make_peer

    peer = make_peer()
    path = tmp_path / "journal.p2pt"
    log = Log(TABLE, peer.header_wire, [i.public for i in IDS])
    chain = [log.make_entry(IDS[0], 0, "chat", {"text": f"line {i}"}) for i in range(3)]
    with TranscriptWriter.create(path, net_table.transcript_header(peer)) as writer:
        writer.append_entries(chain)
    whole = path.read_bytes()
    path.write_bytes(whole + whole[16:40])  # a torn record (the start of one)
    writer, entries = net_table._reopen_journal(peer, path)
    writer.close()
    assert entries == chain and path.read_bytes() == whole

    for lost in (b"", whole[:10], whole[:30]):  # nothing, part of the signature, part of the header
        path.write_bytes(lost)
        writer, entries = net_table._reopen_journal(peer, path)
        writer.close()
        assert entries == [] and read_transcript(path).header == net_table.transcript_header(peer)

    damaged = bytearray(whole)
    damaged[len(whole) // 2] ^= 1
    path.write_bytes(bytes(damaged))
    with pytest.raises(LobbyError, match="is damaged .*move it away and resume again"):
        net_table._reopen_journal(peer, path)

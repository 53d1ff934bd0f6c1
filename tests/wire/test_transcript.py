import random

import pytest

from p2pcards import PROTOCOL_VERSION
from p2pcards.wire.framing import FrameError, encode
from p2pcards.wire.log import Blame, Log, Rejected
from p2pcards.wire.messages import Entry
from p2pcards.wire.transcript import (
    MAGIC,
    TornTranscript,
    TranscriptEnd,
    TranscriptError,
    TranscriptWriter,
    read_transcript,
    roster_header,
)

TABLE = bytes(range(16))  # the table id of new_log (conftest.py)
LOBBY = {"game": "highcard", "seats": 3}


@pytest.fixture
def header(roster):
    return roster_header(
        TABLE,
        [(n, k) for n, k in zip(["ann", "bob", "cy"], roster)],
        game="highcard",
        rules="1",
        options={"rounds": 3},
        lobby=LOBBY,
    )


END = TranscriptEnd("finished", {"winners": [1]})


def write_game(path, header, players, n=12, end=True):
    """A game of ``n`` entries, seats in turn, journaled as they are made."""
    log = Log(header.table, header.lobby, header.roster)
    with TranscriptWriter.create(path, header) as writer:
        for i in range(n):
            seat = i % 3
            entry = log.make_entry(players[seat], seat, "action", {"i": i, "pad": b"x" * i})
            writer.append_entry(entry)
        if end:
            writer.write_end(END)
    return log


def test_round_trip(tmp_path, header, players):
    path = tmp_path / "game.p2pt"
    log = write_game(path, header, players)
    transcript = read_transcript(path)
    assert transcript.complete
    assert transcript.header == header
    assert transcript.entries == [
        e for i in range(4) for e in (log.entries(0)[i], log.entries(1)[i], log.entries(2)[i])
    ]
    assert transcript.end == END and "seeds" not in END.to_wire()  # (none revealed: version 12)
    assert transcript.log().seen() == log.seen()


def test_entry_records_embed_the_entry_bytes_canonically(tmp_path, header, players):
    """An entry record is assembled around the entry's kept bytes: it must be exactly the
    canonical encoding of the record map, for a signed entry and for one read back."""
    path = tmp_path / "game.p2pt"
    log = write_game(path, header, players, n=3)
    signed = log.entries(1)[0]
    fresh = Entry.from_wire(signed.to_wire())
    assert signed.signed_bytes == fresh.signed_bytes  # kept from signing, not re-encoded
    assert signed.wire_bytes == fresh.wire_bytes == encode(signed.to_wire())
    data = path.read_bytes()
    record = encode({"type": "entry", "entry": signed.to_wire()})
    assert len(record).to_bytes(4, "big") + record in data


def concurrent_round(header, players):
    """Three seats that each sign two entries at once, then receive the others' (in different
    orders): returns the entries and each seat's log with its journal (arrival order)."""
    logs = [Log(header.table, header.lobby, header.roster) for _ in range(3)]
    journals = [[] for _ in range(3)]
    made = []
    for step in range(2):
        batch = [logs[s].make_entry(players[s], s, "deck", {"step": step, "s": s}) for s in range(3)]
        for s in range(3):
            journals[s].append(batch[s])
            for other in batch[s + 1 :] + batch[:s]:  # each seat hears the others in its order
                assert logs[s].append(other, via=other.sender)
                journals[s].append(other)
        made += batch
    return made, logs, journals


def test_journal_in_arrival_order_verifies_and_canonical_transcripts_are_identical(tmp_path, header, players):
    made, logs, journals = concurrent_round(header, players)
    assert journals[0] != journals[1]
    canonical = []
    for s in range(3):
        journal = tmp_path / f"journal{s}.p2pt"
        with TranscriptWriter.create(journal, header) as writer:
            writer.append_entries(journals[s])
        transcript = read_transcript(journal)
        assert transcript.entries == journals[s]
        assert transcript.log().seen() == logs[0].seen()
        final = tmp_path / f"final{s}.p2pt"
        with TranscriptWriter.create(final, header) as writer:
            writer.append_entries(logs[s].canonical())
            writer.write_end(END)
        canonical.append(final.read_bytes())
    assert canonical[0] == canonical[1] == canonical[2]
    assert read_transcript(canonical[0]).entries == list(logs[2].canonical())


def test_duplicate_entry_record_is_refused(tmp_path, header, players):
    path = tmp_path / "game.p2pt"
    log = write_game(path, header, players, end=False)
    transcript = read_transcript(path)
    record, _ = _record(transcript.last_check, {"type": "entry", "entry": log.entries(1)[0].to_wire()})
    with pytest.raises(TranscriptError, match="appears twice"):
        read_transcript(path.read_bytes() + record)
    transcript = read_transcript(path.read_bytes() + record, verify=False)
    with pytest.raises(TranscriptError, match="appears twice"):
        transcript.log()


def test_blame_records_must_be_backed_by_evidence(tmp_path, header, players, roster):
    path = tmp_path / "game.p2pt"
    log = write_game(path, header, players, end=False)
    other = Log(header.table, header.lobby, header.roster)
    twin = other.make_entry(players[0], 0, "action", {"i": "other"})
    with pytest.raises(Rejected) as info:
        log.append(twin, via=2)
    blame = info.value.blame
    assert blame.provable and blame.verify(header.table, roster)
    transcript = read_transcript(path)
    record, _ = _record(transcript.last_check, {"type": "blame", "blame": blame.to_wire()})
    assert read_transcript(path.read_bytes() + record).blames == [blame]
    bogus = Blame(1, "equivocation", "made up", blame.evidence, True)
    record, _ = _record(transcript.last_check, {"type": "blame", "blame": bogus.to_wire()})
    with pytest.raises(TranscriptError, match="not backed by its evidence"):
        read_transcript(path.read_bytes() + record)


def test_existing_file_is_never_overwritten(tmp_path, header, players):
    path = tmp_path / "game.p2pt"
    write_game(path, header, players)
    with pytest.raises(FileExistsError):
        TranscriptWriter.create(path, header)


def test_unfinished_is_readable_but_not_complete(tmp_path, header, players):
    path = tmp_path / "game.p2pt"
    write_game(path, header, players, end=False)
    transcript = read_transcript(path)
    assert transcript.end is None and not transcript.complete


def test_torn_tail_is_reported_at_every_cut(tmp_path, header, players):
    path = tmp_path / "game.p2pt"
    write_game(path, header, players)
    data = path.read_bytes()
    whole = read_transcript(data)
    clean_cuts = []
    # Every cut inside the records after the header is a torn tail, never a clean file.
    # (verify=False: signatures do not change with the cut, and it keeps the test fast.)
    header_end = None
    for cut in range(len(MAGIC) + 1, len(data)):
        try:
            t = read_transcript(data[:cut], verify=False)
        except TornTranscript as exc:
            assert exc.offset < cut and exc.transcript.truncated_at == exc.offset
            assert f"intact up to byte {exc.offset}" in str(exc)
            relaxed = read_transcript(data[:cut], allow_torn=True, verify=False)
            assert relaxed.truncated_at == exc.offset and not relaxed.complete
            continue
        except TranscriptError:
            assert header_end is None  # only cuts inside the header are plain errors
            continue
        header_end = header_end or cut
        clean_cuts.append(cut)
        assert not t.complete
    assert len(clean_cuts) == whole.records - 1  # only between records


def test_zero_filled_tail_is_torn(tmp_path, header, players):
    path = tmp_path / "game.p2pt"
    write_game(path, header, players, end=False)
    data = path.read_bytes() + b"\x00" * 300
    with pytest.raises(TornTranscript):
        read_transcript(data)


def test_resume_cuts_the_torn_tail_and_continues(tmp_path, header, players):
    path = tmp_path / "game.p2pt"
    log = write_game(path, header, players, end=False)
    intact = path.stat().st_size
    with open(path, "ab") as handle:
        handle.write(b"\x00\x00\x01\x00partial")
    writer, transcript = TranscriptWriter.resume(path)
    assert transcript.truncated_at == intact and len(transcript.entries) == 12
    with writer:
        entry = log.make_entry(players[0], 0, "action", {"after": "restart"})
        writer.append_entry(entry)
        writer.write_end(TranscriptEnd("abandoned", None, (2,), "seat 2 never came back"))
    again = read_transcript(path)
    assert again.complete and again.entries[-1] == entry and again.end.absent == (2,)
    with pytest.raises(TranscriptError, match="already closed"):
        TranscriptWriter.resume(path)


def test_every_single_byte_flip_in_a_sample_is_detected(tmp_path, header, players):
    path = tmp_path / "game.p2pt"
    write_game(path, header, players)
    data = path.read_bytes()
    positions = list(range(len(data)))
    random.Random(8).shuffle(positions)
    for pos in positions[:400] + [0, len(data) - 1]:
        for bit in (0x01, 0x80):
            flipped = bytearray(data)
            flipped[pos] ^= bit
            with pytest.raises(TranscriptError):
                read_transcript(bytes(flipped))


def _record(check, obj):
    """Append a record with a correct check value (a forger can always do that)."""
    import hashlib

    body = encode(obj)
    length = len(body).to_bytes(4, "big")
    new = hashlib.sha256(check + length + body).digest()[:16]
    return length + body + new, new


def test_forged_entry_with_valid_checks_fails_signature_verification(tmp_path, header, players):
    path = tmp_path / "game.p2pt"
    write_game(path, header, players, end=False)
    transcript = read_transcript(path)
    good = transcript.entries[-1]
    forged = Entry(
        good.table,
        0,
        transcript.entries[-1].seq + 1 if good.sender == 0 else 4,
        "action",
        good.hash,
        {"i": "forged"},
        good.sig,
    )
    record, _ = _record(transcript.last_check, {"type": "entry", "entry": forged.to_wire()})
    with pytest.raises(TranscriptError) as info:
        read_transcript(path.read_bytes() + record)
    assert info.value.blame is not None and info.value.blame.code == "bad-signature"
    # Without verification the structure alone is fine.
    assert len(read_transcript(path.read_bytes() + record, verify=False).entries) == 13


def test_structure_errors(tmp_path, header, players):
    path = tmp_path / "game.p2pt"
    write_game(path, header, players)
    data = path.read_bytes()
    start = data[: len(MAGIC)]
    from p2pcards.wire.transcript import FIRST_CHECK

    for obj, match in [
        ({"type": "entry", "entry": {}}, "first record"),
        ({**header.to_wire(), "format": 9}, "unsupported transcript format 9"),
        ({**header.to_wire(), "protocol": PROTOCOL_VERSION + 1}, f"unsupported protocol {PROTOCOL_VERSION + 1}"),
        ({**header.to_wire(), "genesis": b"\x00" * 32}, "genesis"),
        ({**header.to_wire(), "roster": []}, "malformed"),
    ]:
        record, _ = _record(FIRST_CHECK, obj)
        with pytest.raises(TranscriptError, match=match):
            read_transcript(start + record)
    with pytest.raises(TranscriptError, match="not a p2pcards transcript"):
        read_transcript(b"hello world" * 3)
    with pytest.raises(TranscriptError, match="no header"):
        read_transcript(MAGIC)
    with pytest.raises(TranscriptError, match="cannot read"):
        read_transcript(tmp_path / "missing")
    with pytest.raises(TranscriptError, match="not a regular file"):
        read_transcript(tmp_path)
    import os

    os.mkfifo(tmp_path / "fifo")  # opening it would wait for a writer forever
    with pytest.raises(TranscriptError, match="not a regular file"):
        read_transcript(tmp_path / "fifo")
    whole = read_transcript(data)
    record, _ = _record(whole.last_check, {"type": "entry", "entry": {}})
    with pytest.raises(TranscriptError, match="after the end"):
        read_transcript(data + record)


def test_an_entry_map_that_breaks_the_entry_schema_is_a_reading_failure(tmp_path, header, players):
    """transcript.md section 4: an entry record's map is read with wire.md 4.3's schema before
    any log sees it; one that breaks it (a field missing, of the wrong type or range, one too
    many) is refused as the record's reading, with no blame: no seat's log accepts such an entry,
    so the bytes are not one a seat signed and sent (verify: unreadable, exit 2)."""
    path = tmp_path / "game.p2pt"
    write_game(path, header, players, end=False)
    whole = read_transcript(path)
    good = whole.entries[-1].to_wire()
    for bent in (
        {**good, "seq": -1},
        {**good, "kind": "Action"},
        {**good, "prev": b"\x00" * 31},
        {**good, "extra": 1},
        {k: v for k, v in good.items() if k != "sig"},
        {**good, "type": "fetch"},
    ):
        record, _ = _record(whole.last_check, {"type": "entry", "entry": bent})
        for verify in (True, False):
            with pytest.raises(TranscriptError, match="log entry|entry") as info:
                read_transcript(path.read_bytes() + record, verify=verify)
            assert info.value.blame is None and info.value.record == whole.records


@pytest.mark.parametrize(
    "end, seat",
    [
        (TranscriptEnd("abandoned", None, (3,)), 3),
        (TranscriptEnd("aborted", None, (0, 15)), 15),
        (TranscriptEnd("abandoned", None, (1, 7)), 7),
    ],
)
def test_an_end_record_naming_a_seat_not_at_the_table_is_refused(tmp_path, header, players, end, seat):
    """transcript.md section 2: the end record's absent seats are seats of the roster. No
    writer puts another there: the unsigned record was altered, and the file is refused as
    malformed (a reading failure)."""
    path = tmp_path / "game.p2pt"
    write_game(path, header, players, end=False)
    whole = read_transcript(path)
    record, _ = _record(whole.last_check, end.to_wire())
    with pytest.raises(TranscriptError, match=f"end: seat {seat} is not at the table"):
        read_transcript(path.read_bytes() + record)
    # The seats of the table, some of them or none, are read as they are.
    fine = TranscriptEnd("aborted", None, (1,))
    record, _ = _record(whole.last_check, fine.to_wire())
    assert read_transcript(path.read_bytes() + record).end == fine


def test_a_file_of_too_many_lists_and_maps_is_refused(tmp_path, header, players, monkeypatch):
    """A forged file of tiny containers would decode to a hundred times its size: every list
    and map of the file counts against one budget (4,194,304; lowered here to 40, which the
    header and the first entries already use up)."""
    from p2pcards.wire import transcript

    path = tmp_path / "game.p2pt"
    write_game(path, header, players)
    monkeypatch.setattr(transcript, "MAX_CONTAINERS", 40)
    with pytest.raises(TranscriptError, match="the file holds more than 40 lists and maps") as caught:
        read_transcript(path)
    assert 0 < caught.value.record < 12


class FullDisk:
    """A file on a disk with ``room`` bytes left: a write that does not fit writes what fits
    (a torn record), then fails with ENOSPC."""

    def __init__(self, handle, room):
        self.handle, self.room = handle, room

    def write(self, data):
        import errno
        import os

        if len(data) <= self.room:
            self.room -= len(data)
            return self.handle.write(data)
        if self.room:
            self.handle.write(bytes(data[: self.room]))
            self.room = 0
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name):
        return getattr(self.handle, name)


@pytest.mark.parametrize("room", [0, 1, 5, 60, 300])
def test_a_full_disk_leaves_the_file_at_its_last_whole_record(tmp_path, header, players, room):
    """A write that fails mid-record (a full disk) is cut back out of the file: the file reads
    whole up to the last record that was flushed, never torn, and ``whole_records`` says how
    many; the writer then refuses every write; a later resume carries on from there."""
    path = tmp_path / "journal.p2pt"
    log = Log(header.table, header.lobby, header.roster)
    writer = TranscriptWriter.create(path, header)
    first = [log.make_entry(players[0], 0, "action", {"i": i}) for i in range(3)]
    writer.append_entries(first)
    writer.flush()
    assert writer.whole_records == 4  # the header and three entries
    writer._handle = FullDisk(writer._handle, room)
    more = [log.make_entry(players[0], 0, "action", {"i": i, "pad": b"x" * 50}) for i in range(3, 6)]
    with pytest.raises(OSError) as failure:
        writer.append_entries(more)
        writer.flush()
    assert failure.value.errno == 28 and writer.failed is not None
    kept = read_transcript(path, allow_torn=True)
    assert kept.truncated_at is None and kept.entries == first[: writer.whole_records - 1]
    with pytest.raises(OSError):
        writer.append_entry(more[0])
    writer.close()  # closes without trying again
    writer, again = TranscriptWriter.resume(path)
    with writer:
        writer.append_entries(more)
        writer.write_end(END)
    assert read_transcript(path).complete


def test_a_transcript_that_cannot_be_written_leaves_no_file(tmp_path, header, players, monkeypatch):
    """write_transcript writes beside the file and renames it into place: a full disk leaves no
    torn transcript under its name (nor the file beside it)."""
    from p2pcards.wire import transcript

    log = write_game(tmp_path / "journal.p2pt", header, players)
    path = tmp_path / "game.p2pt"
    real_create = TranscriptWriter.create

    def create(where, head, **kw):
        writer = real_create(where, head, **kw)
        writer._handle = FullDisk(writer._handle, 200)
        return writer

    monkeypatch.setattr(transcript.TranscriptWriter, "create", staticmethod(create))
    with pytest.raises(OSError):
        transcript.write_transcript(path, header, log.canonical(), [], END)
    assert list(tmp_path.iterdir()) == [tmp_path / "journal.p2pt"]
    monkeypatch.undo()
    transcript.write_transcript(path, header, log.canonical(), [], END)
    assert read_transcript(path).complete


def _deepest_body(players, header, seat: int) -> dict:
    """The deepest body an entry may carry: one more list and signing refuses it."""
    body: dict = {"x": []}
    for _ in range(64):
        deeper = {"x": [body["x"]]}
        try:
            Log(header.table, header.lobby, header.roster).make_entry(players[seat], seat, "action", deeper)
        except FrameError:
            return body
        body = deeper
    raise AssertionError("no nesting limit")


def test_entries_and_evidence_as_deep_as_a_frame_allows_read_back(tmp_path, header, players, roster):
    """A record holds an entry one level deeper than its frame did, and a blame record holds two
    entries three levels deeper: an entry a peer may send at the nesting limit must not make our
    transcript (or the journal we recover from) unreadable (issue 28: it did)."""
    path = tmp_path / "game.p2pt"
    log = Log(header.table, header.lobby, header.roster)
    body = _deepest_body(players, header, 0)
    assert len(repr(body)) > 60  # (about 30 lists deep)
    entry = log.make_entry(players[0], 0, "action", body)
    twin = Log(header.table, header.lobby, header.roster).make_entry(players[0], 0, "action", {**body, "y": 1})
    with pytest.raises(Rejected) as info:
        log.append(twin, via=2)
    blame = info.value.blame
    assert blame.provable and blame.verify(header.table, roster)
    with TranscriptWriter.create(path, header) as writer:
        writer.append_entry(entry)
        writer.append_blame(blame)
        writer.write_end(END)
    transcript = read_transcript(path, verify=True)
    assert transcript.entries == [entry] and transcript.blames == [blame]

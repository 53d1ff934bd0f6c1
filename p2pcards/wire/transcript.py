"""Transcript files: everything needed to re-check a table offline, written as it happens.

Layout (protocol/transcript.md is the normative description)::

    MAGIC (16 bytes)
    record*    where record = length (4 bytes, big-endian) || body (msgpack map) || check (16 bytes)

``check`` chains the records: check_i = SHA-256(check_(i-1) || length || body)[:16], starting
from SHA-256(MAGIC)[:16]. A record that is cut short, a changed byte anywhere, a record removed,
repeated or moved: each breaks the chain or the framing, and the reader says at which byte.
The checks guard against accidents and truncation; against deliberate forgery the signatures of
the entries and the commitments of the deck protocol do the work (verify checks both).

Records, in order: one ``header`` (table, roster and keys, game, rules version, options,
protocol version, the lobby header), then ``entry`` records (every signed log entry once, in the
order the writer accepted them: any interleaving of the seats' chains that keeps each seat's
entries in ``seq`` order) and ``blame`` records (evidence found during play) as they happen, then
at most one ``end`` (status, result, absent seats). Peers that
write their entries in the log's canonical order (:meth:`~p2pcards.wire.log.Log.canonical`:
seat, then seq) and the same other records write byte-identical files.

A crash mid-write leaves a *torn tail*: the last record incomplete (or zero-filled, as some file
systems leave it). The reader reports it (:class:`TornTranscript`, or ``truncated_at`` with
``allow_torn=True``) and never takes it for a whole transcript; :meth:`TranscriptWriter.resume`
cuts it off explicitly and carries on.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from .. import PROTOCOL_VERSION, __version__
from . import framing
from .errors import ProtocolError, SchemaError
from .files import fsync_dir
from .identity import PublicIdentity, verify_many
from .log import LOG_BYTES, LOG_CONTAINERS, LOG_ENTRIES, MAX_BLAMES, Blame, Log, Rejected
from .messages import GAME_ID_PATTERN, MAX_SEATS, TABLE_ID_SIZE, Entry, genesis_hash
from .schema import AnyData, Bytes, Int, ListOf, MapOf, Nullable, Record, Str, Text

__all__ = [
    "MAGIC",
    "Transcript",
    "TranscriptEnd",
    "TranscriptError",
    "TranscriptHeader",
    "TranscriptWriter",
    "TornTranscript",
    "TranscriptSummary",
    "read_summary",
    "read_transcript",
    "write_transcript",
]

MAGIC = b"\x89p2pcards-tr\r\n\x1a\n"  # PNG-style: catches text-mode and 7-bit mangling
assert len(MAGIC) == 16
FORMAT_VERSION = 1
LENGTH_SIZE = 4
CHECK_SIZE = 16
MAX_RECORD = 4 << 20
MAX_FILE = 128 << 20  # a 7-player Cal's BS match to 99 hands could reach about 100 MiB
# Lists and maps in the whole file (a whole Calypso game holds about 6,000): decoding them costs
# up to a hundred times their bytes, so a forged file of empty maps is refused, not decoded.
MAX_CONTAINERS = 4 << 20
# A record nests what it holds deeper than the frame that brought it: an entry record one level
# (the record's map), a blame record three (the record, the blame, its list of entries). An
# entry as deep as a frame lets through must not make our own file, or the journal we recover
# from, unreadable (issue 28: a peer's accusation nested 31 deep did).
RECORD_DEPTH = framing.DEFAULT_LIMITS.max_depth + 4
RECORD_LIMITS = framing.Limits(max_frame=MAX_RECORD, max_bin_len=MAX_RECORD, max_depth=RECORD_DEPTH)
# An entry record is a map of two keys: what comes before and after the entry's own bytes.
#: Signatures checked at once by :meth:`Transcript.log` (over the cores).
SIGNATURES_AT_ONCE = 1024
_ENTRY_RECORD = (b"\x82" + framing.encode("entry"), framing.encode("type") + framing.encode("entry"))
END_STATUSES = ("finished", "abandoned", "aborted")


def _budget_fits() -> bool:
    """Every seat's log budget together (wire/log.py) fits in a file a reader accepts: the
    signed bytes, each entry's record around them (length, check, the record map, the entry's
    type and signature), and room for a header record, the blame records and the end."""
    sample = Entry(bytes(16), 0, 0, "deck", bytes(32), {}, bytes(64))
    per_entry = (
        LENGTH_SIZE + CHECK_SIZE + sum(map(len, _ENTRY_RECORD)) + len(sample.wire_bytes) - len(sample.signed_bytes)
    )
    blames = MAX_BLAMES * (CHECK_SIZE + LENGTH_SIZE + 2 * framing.DEFAULT_LIMITS.max_frame + 4096)
    records = 2 * (MAX_RECORD + LENGTH_SIZE + CHECK_SIZE)  # the header and the end
    containers = MAX_BLAMES * 2 * framing.DEFAULT_LIMITS.max_containers + 2 * 16_384
    return (
        LOG_BYTES + LOG_ENTRIES * per_entry + blames + records <= MAX_FILE
        and LOG_CONTAINERS + containers <= MAX_CONTAINERS
    )


assert _budget_fits(), "the log budget (wire/log.py) must fit in MAX_FILE and MAX_CONTAINERS"


class TranscriptError(ValueError):
    """The file is not a whole, intact transcript. ``offset`` is the byte where the problem
    starts, ``record`` the record's index, ``blame`` a :class:`Blame` when a signed entry in it
    does not verify (tampering or cheating rather than damage)."""

    def __init__(
        self, reason: str, *, offset: int | None = None, record: int | None = None, blame: Blame | None = None
    ):
        where = []
        if record is not None:
            where.append(f"record {record}")
        if offset is not None:
            where.append(f"byte {offset}")
        super().__init__(f"{', '.join(where)}: {reason}" if where else reason)
        self.reason = reason
        self.offset = offset
        self.record = record
        self.blame = blame


class TornTranscript(TranscriptError):
    """The file ends inside a record (a crash mid-write). ``transcript`` holds every whole
    record before ``offset``."""

    def __init__(self, reason: str, *, offset: int, record: int, transcript: Transcript):
        super().__init__(reason, offset=offset, record=record)
        self.transcript = transcript


# ------------------------------------------------------------------------------------------
# Records.

_ROSTER_ITEM = Record({"name": Text(64), "ed25519": Bytes(32), "x25519": Bytes(32)})
HEADER = Record(
    {
        "type": Str(16),
        "format": Int(0, 1 << 16),
        "protocol": Int(0, 1 << 31),
        "program": Str(64),
        "table": Bytes(TABLE_ID_SIZE),
        "roster": ListOf(_ROSTER_ITEM, MAX_SEATS, min_len=1),
        "game": Str(64, GAME_ID_PATTERN),
        "rules": Str(64),
        "options": MapOf(Str(64), AnyData(), 256),
        "lobby": AnyData(),
        "genesis": Bytes(32),
    },
)
ENTRY = Record({"type": Str(16), "entry": AnyData()})
BLAME = Record({"type": Str(16), "blame": AnyData()})
END = Record(
    {
        "type": Str(16),
        "status": Str(16),
        "result": Nullable(AnyData()),
        "absent": ListOf(Int(0, MAX_SEATS - 1), MAX_SEATS),
        "note": Str(1000),
    }
)


@dataclass(frozen=True)
class TranscriptHeader:
    """The first record. ``lobby`` is the plain-data lobby header the session agreed on; the
    log's genesis hash commits to it, so ``genesis`` is derived, not chosen."""

    table: bytes
    roster: tuple[PublicIdentity, ...]
    names: tuple[str, ...]
    game: str
    rules: str
    options: Mapping[str, Any]
    lobby: Any = None
    protocol: int = PROTOCOL_VERSION
    program: str = __version__

    @property
    def genesis(self) -> bytes:
        return genesis_hash(self.table, self.lobby)

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": "header",
            "format": FORMAT_VERSION,
            "protocol": self.protocol,
            "program": self.program,
            "table": self.table,
            "roster": [{"name": n, **k.to_wire()} for n, k in zip(self.names, self.roster)],
            "game": self.game,
            "rules": self.rules,
            "options": dict(self.options),
            "lobby": self.lobby,
            "genesis": self.genesis,
        }

    @classmethod
    def from_wire(cls, obj: Any) -> TranscriptHeader:
        if isinstance(obj, dict):
            # Versions first, so that a newer file is "unsupported", not "malformed".
            if isinstance(obj.get("format"), int) and obj["format"] != FORMAT_VERSION:
                raise TranscriptError(
                    f"unsupported transcript format {obj['format']} (this program reads {FORMAT_VERSION})"
                )
            if isinstance(obj.get("protocol"), int) and obj["protocol"] != PROTOCOL_VERSION:
                raise TranscriptError(
                    f"unsupported protocol {obj['protocol']} (this program speaks {PROTOCOL_VERSION})"
                )
        _check(HEADER, obj, "header")
        header = cls(
            obj["table"],
            tuple(PublicIdentity(r["ed25519"], r["x25519"]) for r in obj["roster"]),
            tuple(r["name"] for r in obj["roster"]),
            obj["game"],
            obj["rules"],
            obj["options"],
            obj["lobby"],
            obj["protocol"],
            obj["program"],
        )
        if header.genesis != obj["genesis"]:
            raise TranscriptError("header: genesis hash does not match the lobby header")
        return header


@dataclass(frozen=True)
class TranscriptEnd:
    """The last record: how the table ended (not signed). No deck seed is in it: none is
    revealed since protocol version 12."""

    status: str
    result: Any = None
    absent: tuple[int, ...] = ()
    note: str = ""

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": "end",
            "status": self.status,
            "result": self.result,
            "absent": list(self.absent),
            "note": self.note,
        }

    @classmethod
    def from_wire(cls, obj: Any) -> TranscriptEnd:
        _check(END, obj, "end")
        if obj["status"] not in END_STATUSES:
            raise TranscriptError(f"end: unknown status {obj['status']!r}")
        return cls(
            obj["status"],
            obj["result"],
            tuple(obj["absent"]),
            obj["note"],
        )


def _check(spec: Record, obj: Any, what: str) -> None:
    try:
        spec.check(obj, what)
    except SchemaError as exc:
        raise TranscriptError(f"malformed {exc}") from None


def _next_check(previous: bytes, length: bytes, body: bytes) -> bytes:
    return hashlib.sha256(previous + length + body).digest()[:CHECK_SIZE]


FIRST_CHECK = hashlib.sha256(MAGIC).digest()[:CHECK_SIZE]


# ------------------------------------------------------------------------------------------
# Reading.


@dataclass
class Transcript:
    header: TranscriptHeader
    entries: list[Entry] = field(default_factory=list)
    blames: list[Blame] = field(default_factory=list)
    end: TranscriptEnd | None = None
    #: Byte offset where a torn tail begins (only with ``allow_torn=True``), else ``None``.
    truncated_at: int | None = None
    #: Bytes of whole records (where the next record would go) and the chain value there.
    valid_size: int = 0
    records: int = 0
    last_check: bytes = FIRST_CHECK

    @property
    def complete(self) -> bool:
        return self.end is not None and self.truncated_at is None

    def log(self) -> Log:
        """The table log rebuilt from the entries, every signature and link re-checked;
        raises :class:`TranscriptError` (with ``blame``) at the first entry that fails."""
        log = Log(self.header.table, self.header.lobby, self.header.roster)
        # The signatures first, over the cores, a slice of the entries at a time; the log then
        # checks the rest in order (an entry from beyond the roster is left to it: it names the
        # stranger). The signed bytes made for a slice go once it is checked: a long match's
        # all at once were as many bytes as the file.
        roster = self.header.roster
        for start in range(0, len(self.entries), SIGNATURES_AT_ONCE):
            part = self.entries[start : start + SIGNATURES_AT_ONCE]
            seated = [0 <= e.sender < len(roster) for e in part]
            signatures = iter(
                verify_many([(roster[e.sender], e.sig, e.signed_bytes) for e, ok in zip(part, seated) if ok])
            )
            for offset, entry in enumerate(part):
                index = start + offset
                try:
                    fresh = log.append(entry, signature_ok=next(signatures) if seated[offset] else None)
                except Rejected as exc:
                    raise TranscriptError(f"log entry {index}: {exc}", blame=exc.blame) from None
                if not fresh:
                    raise TranscriptError(f"log entry {index}: seat {entry.sender}'s entry #{entry.seq} appears twice")
                entry.forget_encoding()  # (made again, the same, if ever asked for)
        return log


def _read_file(source: str | os.PathLike[str]) -> bytes:
    """The bytes of the regular file ``source``, at most ``MAX_FILE + 1`` of them (the caller
    checks the size). Raises :class:`TranscriptError` when it cannot be read or is not a
    regular file."""
    try:
        # Not open() first: opening a FIFO would wait for a writer.
        if not stat.S_ISREG(os.stat(source).st_mode):
            raise TranscriptError(f"cannot read {source}: not a regular file")
        with open(source, "rb") as handle:
            return handle.read(MAX_FILE + 1)
    except OSError as exc:
        raise TranscriptError(f"cannot read {source}: {exc.strerror or exc}") from None


def read_transcript(
    source: str | os.PathLike[str] | bytes, *, allow_torn: bool = False, verify: bool = True
) -> Transcript:
    """Read and check a transcript (a path or the file's bytes).

    Raises :class:`TranscriptError` for anything but a whole, intact file, and
    :class:`TornTranscript` when it ends inside a record, unless ``allow_torn`` (then the
    transcript of the whole records comes back with ``truncated_at`` set). With ``verify`` the
    log's signatures and hash chains and the provable blames are checked too."""
    data = bytes(source) if isinstance(source, (bytes, bytearray, memoryview)) else _read_file(source)
    if len(data) > MAX_FILE:
        raise TranscriptError(f"file larger than {MAX_FILE} bytes")
    return _parse(data, allow_torn=allow_torn, verify=verify)


def _parse(data: bytes, *, allow_torn: bool, verify: bool) -> Transcript:
    if not data.startswith(MAGIC):
        if MAGIC.startswith(data):
            raise TranscriptError("file ends inside the signature bytes (empty transcript)", offset=len(data))
        raise TranscriptError("not a p2pcards transcript (bad signature bytes)", offset=0)
    pos, check, index = len(MAGIC), FIRST_CHECK, 0
    transcript: Transcript | None = None
    log: Log | None = None
    size = len(data)
    zeros_from = len(data.rstrip(b"\x00"))  # where a tail of zero bytes begins, computed once
    budget = framing.ContainerBudget(MAX_CONTAINERS, "the file")

    while pos < size:
        start = pos
        remaining = size - pos

        def torn(reason: str) -> Transcript:
            if transcript is None:
                raise TranscriptError(f"{reason}; no whole header", offset=start, record=index)
            transcript.truncated_at = start
            if allow_torn:
                return transcript
            raise TornTranscript(
                f"torn tail: {reason} (a crash mid-write?); the file is intact up to byte {start}",
                offset=start,
                record=index,
                transcript=transcript,
            )

        if start >= zeros_from:
            return torn(f"{remaining} zero bytes at the end")
        if remaining < LENGTH_SIZE:
            return torn(f"{remaining} bytes of a record length")
        length_bytes = data[start : start + LENGTH_SIZE]
        length = int.from_bytes(length_bytes, "big")
        if not 1 <= length <= MAX_RECORD:
            raise TranscriptError(f"impossible record length {length}", offset=start, record=index)
        if remaining < LENGTH_SIZE + length + CHECK_SIZE:
            return torn(f"record of {length} bytes cut short at {remaining - LENGTH_SIZE} bytes")
        body_at = start + LENGTH_SIZE
        body = data[body_at : body_at + length]
        stored = data[body_at + length : body_at + length + CHECK_SIZE]
        check = _next_check(check, length_bytes, body)
        if stored != check:
            raise TranscriptError(
                "checksum mismatch: the record was changed, or a record before it was removed or reordered",
                offset=start,
                record=index,
            )
        pos = start + LENGTH_SIZE + length + CHECK_SIZE

        try:
            obj = framing.decode(body, RECORD_LIMITS, budget)
        except framing.FrameError as exc:
            raise TranscriptError(f"undecodable record: {exc.reason}", offset=start, record=index) from None
        kind = obj.get("type") if isinstance(obj, dict) else None
        try:
            if transcript is None:
                if kind != "header":
                    raise TranscriptError(f"first record is {kind!r}, not the header")
                transcript = Transcript(TranscriptHeader.from_wire(obj))
                if verify:
                    h = transcript.header
                    log = Log(h.table, h.lobby, h.roster)
            elif transcript.end is not None:
                raise TranscriptError(f"{kind!r} record after the end record")
            elif kind == "entry":
                _check(ENTRY, obj, "entry record")
                entry = Entry.from_wire(obj["entry"], "transcript")
                if log is not None and not log.append(entry):
                    raise TranscriptError(f"seat {entry.sender}'s entry #{entry.seq} appears twice")
                transcript.entries.append(entry)
            elif kind == "blame":
                _check(BLAME, obj, "blame record")
                blame = Blame.from_wire(obj["blame"], "transcript")
                if verify and blame.provable:
                    h = transcript.header
                    if not blame.verify(h.table, h.roster, log):
                        raise TranscriptError(
                            f"blame of seat {blame.seat} ({blame.code}) is not backed by its evidence"
                        )
                transcript.blames.append(blame)
            elif kind == "end":
                end = TranscriptEnd.from_wire(obj)
                players = len(transcript.header.roster)
                strangers = sorted({s for s in end.absent if s >= players})
                if strangers:
                    # No writer puts them there: an unsigned record that was altered, or not
                    # written by a table.
                    raise TranscriptError(
                        f"end: seat {strangers[0]} is not at the table (its roster has {players} seats)"
                    )
                transcript.end = end
            else:
                raise TranscriptError(f"unknown record type {str(kind)[:40]!r}")
        except Rejected as exc:
            raise TranscriptError(
                f"log entry {0 if transcript is None else len(transcript.entries)}: {exc}",
                offset=start,
                record=index,
                blame=exc.blame,
            ) from None
        except ProtocolError as exc:
            raise TranscriptError(exc.reason, offset=start, record=index) from None
        except TranscriptError as exc:
            if exc.offset is not None:
                raise
            raise TranscriptError(exc.reason, offset=start, record=index, blame=exc.blame) from None
        index += 1
        transcript.records = index
        transcript.valid_size = pos
        transcript.last_check = check

    if transcript is None:
        raise TranscriptError("no header record", offset=len(MAGIC))
    return transcript


@dataclass(frozen=True)
class TranscriptSummary:
    """What :func:`read_summary` reads of a transcript: its header and end record, and how
    many records lie between them."""

    header: TranscriptHeader
    end: TranscriptEnd | None
    records: int
    size: int


def read_summary(source: str | os.PathLike[str]) -> TranscriptSummary:
    """The header and the end record of a whole transcript, at once: every record's framing and
    the checksum chain are checked (SHA-256 over the file, some 50 ms for 20 MB), but only the
    first and the last record are decoded, so none of the entries, signatures or the deck is
    checked (that is :func:`read_transcript` and ``p2pcards verify``). ``end`` is ``None`` when
    the last whole record is not an end record. Raises :class:`TranscriptError` for a file that
    is not whole (a torn tail included)."""
    data = _read_file(source)
    size = len(data)
    if size > MAX_FILE:
        raise TranscriptError(f"file larger than {MAX_FILE} bytes")
    if not data.startswith(MAGIC):
        raise TranscriptError("not a p2pcards transcript (bad signature bytes)", offset=0)
    view = memoryview(data)
    pos, check, index = len(MAGIC), FIRST_CHECK, 0
    first = last = None
    while pos < size:
        if size - pos < LENGTH_SIZE:
            raise TranscriptError("torn tail: a record length cut short", offset=pos, record=index)
        length_bytes = data[pos : pos + LENGTH_SIZE]
        length = int.from_bytes(length_bytes, "big")
        if not 1 <= length <= MAX_RECORD:
            raise TranscriptError(f"impossible record length {length}", offset=pos, record=index)
        body_at = pos + LENGTH_SIZE
        if size - body_at < length + CHECK_SIZE:
            raise TranscriptError(f"torn tail: record of {length} bytes cut short", offset=pos, record=index)
        body = view[body_at : body_at + length]
        chained = hashlib.sha256(check)
        chained.update(length_bytes)
        chained.update(body)
        check = chained.digest()[:CHECK_SIZE]
        if view[body_at + length : body_at + length + CHECK_SIZE] != check:
            raise TranscriptError(
                "checksum mismatch: the record was changed, or a record before it was removed or reordered",
                offset=pos,
                record=index,
            )
        if first is None:
            first = bytes(body)
        last = body
        pos = body_at + length + CHECK_SIZE
        index += 1
    if first is None or last is None:
        raise TranscriptError("no header record", offset=len(MAGIC))
    try:
        header = TranscriptHeader.from_wire(framing.decode(first, RECORD_LIMITS))
        end = None
        if index > 1:
            obj = framing.decode(bytes(last), RECORD_LIMITS)
            if isinstance(obj, dict) and obj.get("type") == "end":
                end = TranscriptEnd.from_wire(obj)
    except framing.FrameError as exc:
        raise TranscriptError(f"undecodable record: {exc.reason}") from None
    except ProtocolError as exc:
        raise TranscriptError(exc.reason) from None
    return TranscriptSummary(header, end, index, size)


# ------------------------------------------------------------------------------------------
# Writing.


class TranscriptWriter:
    """Appends records to a transcript file. ``sync=True`` fsyncs after every record;
    otherwise call :meth:`flush` (the records survive this program being killed) or :meth:`sync`
    (they survive a power cut too) before sending anything that depends on what was written.

    A write that fails (a full disk, lost permissions) raises its :class:`OSError` and leaves
    the file at its last whole record: what was handed over since the last successful
    :meth:`flush` is cut off, never left torn (``whole_records`` counts what is in the file).
    From then on the writer is ``failed``: every write raises again."""

    def __init__(self, handle: BinaryIO, path: Path, check: bytes, *, sync: bool, ended: bool, size: int, records: int):
        self._handle = handle
        self.path = path
        self._check = check
        self._sync_each = sync
        self.ended = ended
        self._pending = bytearray()  # whole records not yet written to the file
        self._pending_records = 0
        # The file as far as it holds whole records: its size, the chain value there, records.
        self._whole = (size, check)
        self.whole_records = records
        #: The write that failed, once one has (nothing more is written).
        self.failed: OSError | None = None

    @classmethod
    def create(cls, path: str | os.PathLike[str], header: TranscriptHeader, *, sync: bool = False) -> TranscriptWriter:
        """Start a new transcript (the file must not exist). If even the header cannot be
        written, the file is removed again."""
        path = Path(path)
        handle = open(path, "xb", buffering=0)  # noqa: SIM115 - the writer owns it and closes it
        try:
            writer = cls(handle, path, FIRST_CHECK, sync=sync, ended=False, size=0, records=0)
            writer._pending += MAGIC  # written with the header record
            writer._write(header.to_wire())
            writer.sync()
            fsync_dir(path.parent)
        except BaseException:
            handle.close()
            path.unlink(missing_ok=True)
            raise
        return writer

    @classmethod
    def resume(cls, path: str | os.PathLike[str], *, sync: bool = False) -> tuple[TranscriptWriter, Transcript]:
        """Reopen a transcript after a restart, to append to it. A torn tail is cut off (the
        returned transcript's ``truncated_at`` says where); any other damage raises
        :class:`TranscriptError`, as does a transcript that already has its end record."""
        path = Path(path)
        transcript = read_transcript(path, allow_torn=True, verify=True)
        if transcript.end is not None:
            raise TranscriptError(f"{path}: the transcript is already closed")
        handle = open(path, "r+b", buffering=0)  # noqa: SIM115 - the writer owns it and closes it
        try:
            if os.fstat(handle.fileno()).st_size != transcript.valid_size:
                # (Only then: an intact file keeps its modification time, which tells how
                # long ago its program last wrote to it.)
                handle.truncate(transcript.valid_size)
            handle.seek(transcript.valid_size)
            os.fsync(handle.fileno())
        except BaseException:
            handle.close()
            raise
        writer = cls(
            handle,
            path,
            transcript.last_check,
            sync=sync,
            ended=False,
            size=transcript.valid_size,
            records=transcript.records,
        )
        return writer, transcript

    def _write(self, obj: dict[str, Any]) -> None:
        self._write_body(framing.encode(obj, RECORD_LIMITS))

    def _write_body(self, body: bytes) -> None:
        if self.failed is not None:
            raise OSError(self.failed.errno, self.failed.strerror, str(self.path))
        if self.ended:
            raise TranscriptError("the transcript is already closed")
        if len(body) > MAX_RECORD:
            raise TranscriptError(f"record of {len(body)} bytes exceeds {MAX_RECORD}")
        length = len(body).to_bytes(LENGTH_SIZE, "big")
        self._check = _next_check(self._check, length, body)
        self._pending += length + body + self._check
        self._pending_records += 1
        if self._sync_each:
            self.sync()
        elif len(self._pending) >= io.DEFAULT_BUFFER_SIZE:
            self.flush()

    def append_entry(self, entry: Entry) -> None:
        # The canonical encoding of {"type": "entry", "entry": entry.to_wire()} (keys in
        # byte order), around the entry's bytes as they were already encoded.
        self._write_body(_ENTRY_RECORD[0] + entry.encoded() + _ENTRY_RECORD[1])

    def append_entries(self, entries: Iterable[Entry]) -> None:
        for entry in entries:
            self.append_entry(entry)

    def append_blame(self, blame: Blame) -> None:
        self._write({"type": "blame", "blame": blame.to_wire()})

    def write_end(self, end: TranscriptEnd) -> None:
        self._write(end.to_wire())
        self.sync()
        self.ended = True

    def flush(self) -> None:
        """Hand what was written to the operating system: it survives this program being
        killed, not yet a power cut (:meth:`fsync`). If that fails, the file is cut back to
        its last whole record and the error raised."""
        if self.failed is not None:
            raise OSError(self.failed.errno, self.failed.strerror, str(self.path))
        if not self._pending:
            return
        failure = None
        with memoryview(self._pending) as data:
            done = 0
            try:
                while done < len(data):  # an unbuffered file: a write may take only part
                    with data[done:] as rest:
                        done += self._handle.write(rest) or 0
            except OSError as exc:
                failure = exc
        if failure is not None:
            self._fail(failure)
            raise failure
        self._whole = (self._whole[0] + len(self._pending), self._check)
        self.whole_records += self._pending_records
        self._pending.clear()
        self._pending_records = 0

    def _fail(self, exc: OSError) -> None:
        """A write failed: no more writes, and the file back to its last whole record (a
        partial one would read as a torn tail; a whole one that the caller is told failed
        must not be in the file either)."""
        self.failed = exc
        self._pending.clear()
        self._pending_records = 0
        size, self._check = self._whole
        try:
            self._handle.truncate(size)
            self._handle.seek(size)
        except OSError:  # pragma: no cover - a file system that refuses even that
            pass

    def fsync(self) -> None:
        """Make what was flushed durable. Only touches the file descriptor, so another thread
        may run it while this one goes on writing (a record written meanwhile may or may not
        be covered: flush and fsync again for it). A failure marks the writer failed."""
        try:
            os.fsync(self._handle.fileno())
        except OSError as exc:
            if self.failed is None:
                self.failed = exc
            raise

    def sync(self) -> None:
        """Flush and fsync: after this returns, what was written survives a crash."""
        self.flush()
        self.fsync()

    def close(self) -> None:
        """Write what is left and close the file (closed even if that write fails)."""
        if self._handle.closed:
            return
        try:
            if self.failed is None:
                self.sync()
        finally:
            self._handle.close()

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_transcript(
    path: Path, header: TranscriptHeader, entries: Iterable[Entry], blames: Iterable[Blame], end: TranscriptEnd
) -> None:
    """Write a whole transcript to ``path`` at once: to a file beside it first, renamed into
    place when complete, so that ``path`` never holds a torn transcript (a full disk leaves
    nothing, or an older file, and raises its :class:`OSError`)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    try:
        with TranscriptWriter.create(tmp, header) as final:
            final.append_entries(entries)
            for blame in blames:
                final.append_blame(blame)
            final.write_end(end)
        os.replace(tmp, path)
        fsync_dir(path.parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def roster_header(
    table: bytes,
    players: Sequence[tuple[str, PublicIdentity]],
    *,
    game: str,
    rules: str,
    options: Mapping[str, Any],
    lobby: Any = None,
) -> TranscriptHeader:
    """Convenience: a header from (name, keys) pairs in seat order."""
    return TranscriptHeader(
        table, tuple(k for _, k in players), tuple(n for n, _ in players), game, rules, dict(options), lobby
    )

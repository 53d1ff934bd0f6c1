"""Where a table log keeps the encoded bytes of its older entries (issue 23: memory bounded
whatever a match's length).

A :class:`~p2pcards.wire.log.Log` given a store keeps in memory, per seat, only the last
entries of the chain decoded (and every entry's hash and head-echo counts); the older ones go
to the store as their wire bytes, and come back, decoded anew, for what asks for old entries
(a fetch's answer, the final transcript, a spectator's catch-up, an over-budget proof). The log
checks every entry it reads back against the hash it kept.

* :class:`MemorySpill` keeps the bytes in memory (tests, and logs that must not touch a disk).
* :class:`FileSpill` appends them to a file: a peer's spill lives in its seat's data folder, as
  an unnamed file (removed by the system when the program ends, however it ends: a resumed seat
  rebuilds its log from its journal, which holds every entry anyway, so the spill is a cache and
  never needs to survive the program). Each record carries a keyed checksum (a key this program
  drew at random), so a record that was cut short, changed or moved reads as a
  :class:`SpillError` saying so, never as another entry.

A store raises :class:`SpillError` (an :class:`OSError`) for anything it cannot give back; a
write that fails raises its :class:`OSError` and leaves the store as it was (the log then keeps
the entry in memory: nothing signed is lost).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import tempfile
from array import array

__all__ = ["FileSpill", "MemorySpill", "SpillError"]

_LENGTH = 4  # bytes of a record's length
_CHECK = 16  # bytes of a record's keyed checksum
MAX_RECORD = 1 << 20  # an entry's wire bytes: 4x the largest a log accepts


class SpillError(OSError):
    """An entry the store cannot give back (a torn, changed or missing spill file)."""


class MemorySpill:
    """Keeps the spilled bytes in memory: for tests and for logs without a disk."""

    def __init__(self) -> None:
        self._data: dict[tuple[int, int], bytes] = {}

    def put(self, seat: int, seq: int, data: bytes) -> None:
        self._data[seat, seq] = bytes(data)

    def get(self, seat: int, seq: int) -> bytes:
        try:
            return self._data[seat, seq]
        except KeyError:
            raise SpillError(f"seat {seat}'s entry #{seq} was never spilled") from None

    def close(self) -> None:
        self._data.clear()


class FileSpill:
    """Appends spilled entries to a file: ``[length][bytes][keyed checksum]`` a record, and
    8 bytes of memory an entry (its offset). Not thread-safe; not durable (no fsync: the
    journal is the durable copy)."""

    def __init__(self, fd: int, where: str):
        self._fd: int | None = fd
        self.where = where
        self._key = secrets.token_bytes(32)
        self._size = 0
        self._offsets: dict[int, array[int]] = {}  # seat -> offset of each spilled entry, by seq

    @classmethod
    def create(cls, path: str | os.PathLike[str]) -> FileSpill:
        """A spill in a file of its own at ``path`` (made anew, mode 0600)."""
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o600)
        return cls(fd, str(path))

    @classmethod
    def unnamed(cls, folder: str | os.PathLike[str] | None = None) -> FileSpill:
        """A spill in a file with no name in ``folder`` (the system's temporary folder if
        ``None``): nothing is left behind when the program ends, however it ends."""
        handle = tempfile.TemporaryFile(dir=folder, prefix="p2pcards-spill-")  # noqa: SIM115 - fd kept
        fd = os.dup(handle.fileno())
        handle.close()
        return cls(fd, f"a spill file in {folder or tempfile.gettempdir()}")

    def _check(self, seat: int, seq: int, data: bytes) -> bytes:
        tag = seat.to_bytes(2, "big") + seq.to_bytes(8, "big")
        return hashlib.blake2b(tag + data, key=self._key, digest_size=_CHECK).digest()

    def put(self, seat: int, seq: int, data: bytes) -> None:
        if self._fd is None:
            raise SpillError(f"{self.where} is closed")
        offsets = self._offsets.setdefault(seat, array("Q"))
        if seq != len(offsets):
            raise ValueError(f"seat {seat}'s entries are spilled in order: #{len(offsets)} next, not #{seq}")
        if len(data) > MAX_RECORD:
            raise ValueError(f"an entry of {len(data)} bytes is past what a spill keeps")
        record = len(data).to_bytes(_LENGTH, "big") + data + self._check(seat, seq, data)
        done = 0
        try:
            os.lseek(self._fd, self._size, os.SEEK_SET)
            while done < len(record):  # (not os.pwrite: Windows has none)
                written = os.write(self._fd, record[done:])
                if written <= 0:  # pragma: no cover - a file system that writes nothing
                    raise OSError(f"cannot write {self.where}")
                done += written
        except OSError:
            try:
                os.ftruncate(self._fd, self._size)
            except OSError:  # pragma: no cover - the record is not indexed: never read back
                pass
            raise
        offsets.append(self._size)
        self._size += len(record)

    def get(self, seat: int, seq: int) -> bytes:
        offsets = self._offsets.get(seat)
        if offsets is None or not 0 <= seq < len(offsets):
            raise SpillError(f"seat {seat}'s entry #{seq} was never spilled to {self.where}")
        if self._fd is None:
            raise SpillError(f"{self.where} is closed")
        at = offsets[seq]
        what = f"seat {seat}'s entry #{seq} in {self.where} (offset {at})"
        try:
            os.lseek(self._fd, at, os.SEEK_SET)
            head = self._read(_LENGTH)
            length = int.from_bytes(head, "big")
            if len(head) == _LENGTH and length > MAX_RECORD:
                raise SpillError(f"{what} has an impossible length ({length} bytes): the spill file was changed")
            expected = _LENGTH + length + _CHECK
            record = head + self._read(length + _CHECK) if len(head) == _LENGTH else head
        except SpillError:
            raise
        except OSError as exc:
            raise SpillError(f"cannot read {what}: {exc.strerror or exc}") from None
        if len(head) < _LENGTH or len(record) < expected:
            raise SpillError(f"{what} is cut short: the spill file is torn")
        data = record[_LENGTH : _LENGTH + length]
        if record[_LENGTH + length :] != self._check(seat, seq, data):
            raise SpillError(f"{what} does not match its checksum: the spill file was changed")
        return data

    def _read(self, size: int) -> bytes:
        """Up to ``size`` bytes from where the file is (fewer only at its end)."""
        assert self._fd is not None
        parts, left = [], size
        while left > 0:
            part = os.read(self._fd, left)
            if not part:
                break
            parts.append(part)
            left -= len(part)
        return b"".join(parts)

    def __del__(self) -> None:
        # A peer's log is dropped with its peer (a rematch makes a new one): its file goes too.
        self.close()

    def close(self) -> None:
        fd = getattr(self, "_fd", None)  # (None too if __init__ never ran)
        if fd is not None:
            self._fd = None
            try:
                os.close(fd)
            except OSError:  # pragma: no cover
                pass

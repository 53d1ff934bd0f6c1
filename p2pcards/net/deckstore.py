"""A peer's store of finished hands' deck messages, in a file beside its journal (issue 23).

The deck party (:mod:`p2pcards.deck.party`) hands over the messages of each finished hand (its
passes, re-handlings and broadcast openings) and keeps in memory only what the light audit and
the reuse check need; the full audit at the end of the match reads them back from here. The
file is this process's scratch copy, not a record: an anonymous temporary file (deleted by the
system when the process ends, crash or not) in the folder of the seat's journal, or the system's
temporary folder when the seat keeps no journal. A resumed seat replays its journal and fills a
new one.

Read defensively: memory keeps each hand's offset, length and digest, and bytes that do not
match (the file gone, truncated or altered) are a :class:`~p2pcards.deck.store.StoreError`,
which leaves the audit incomplete and names nobody. A hand that cannot be written (a full disk)
stays in memory instead, so nothing is lost.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from ..deck.store import Record, StoreError, pack_records, unpack_records

__all__ = ["FileDeckStore", "journal_folder"]


class FileDeckStore:
    """``folder()``: where to put the file, asked at the first hand stored (the peer's journal
    is opened after its party is made); None: the system's temporary folder."""

    def __init__(self, folder: Callable[[], Path | None] = lambda: None):
        self._folder = folder
        self._file: IO[bytes] | None = None
        self._size = 0
        self._where: dict[int, tuple[int, int, bytes]] = {}  # hand -> offset, length, digest
        self._kept: dict[int, dict[int, Record]] = {}  # hands that could not be written
        #: Why the file could not be written, if it could not (the hands stay in memory).
        self.problem: str | None = None

    def _open(self) -> IO[bytes]:
        if self._file is None:
            folder = self._folder()
            # Unbuffered: what is read is what the file holds now, not a copy read earlier.
            self._file = tempfile.TemporaryFile(prefix="p2pcards-deck-", dir=folder, buffering=0)  # noqa: SIM115
        return self._file

    def put(self, hand: int, records: dict[int, Record]) -> None:
        data, digest = pack_records(records)
        try:
            handle = self._open()
            handle.seek(self._size)
            view = memoryview(data)
            while view:
                written = handle.write(view)
                if not written:
                    raise OSError("nothing written")
                view = view[written:]
        except OSError as exc:
            self.problem = f"{exc.strerror or exc}"
            self._kept[hand] = records
            return
        self._where[hand] = (self._size, len(data), digest)
        self._size += len(data)

    def get(self, hand: int) -> dict[int, Record]:
        if hand in self._kept:
            return self._kept[hand]
        where = self._where.get(hand)
        if where is None or self._file is None:
            raise StoreError(f"hand {hand} was never stored")
        offset, length, digest = where
        try:
            self._file.seek(offset)
            data = self._file.read(length)
        except (OSError, ValueError) as exc:  # ValueError: the file was closed
            raise StoreError(f"cannot read the deck store: {exc}") from None
        if len(data) != length:
            raise StoreError(f"the deck store is cut short ({len(data)} of {length} bytes of hand {hand})")
        return unpack_records(data, digest)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


def journal_folder(journal: object) -> Path | None:
    """The folder of a peer's journal (a ``TranscriptWriter``), if it keeps one."""
    path = getattr(journal, "path", None)
    return Path(path).parent if path is not None else None

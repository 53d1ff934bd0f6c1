"""What a seat keeps on disk so that it can come back after a crash.

A seat's folder (``<data dir>/tables/<table id>-seat<k>/``, mode 0700) holds:

``seat.bin``
    the table header, the seat, this seat's deck seed, its identity keys and who plays the seat
    (a bot's name, or a person). Written and fsynced before the seat's first deck message (the
    seed commitment) is sent: a seat that lost its seed could never open its cards again.
``journal.p2pt``
    every log entry in the order this seat accepted it (a transcript without its end record).
    The seat's own entries are written to it before they are sent (they survive the program
    being killed) and fsynced when the table is quiet (at most a second later); after a power
    cut, the ones that were not on disk yet are taken back from the other seats
    (protocol/table.md section 6).

After the game the folder is removed: the final transcript holds everything worth keeping.

While a program plays the seat it holds an exclusive lock on ``seat.lock`` in the folder (an
``flock``, on Windows a byte-range lock, which the system drops when the program dies):
``p2pcards resume`` never brings back a seat that is still playing, which would sign its moves
twice.
"""

from __future__ import annotations

import os
import shutil
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..wire import framing
from ..wire.files import try_lock, write_private
from ..wire.identity import Identity, data_dir

__all__ = [
    "SeatInUse",
    "SeatLock",
    "SeatState",
    "load_seat_state",
    "save_seat_state",
    "seat_folder",
    "unfinished_seats",
]

STATE_FILE = "seat.bin"
JOURNAL_FILE = "journal.p2pt"
LOCK_FILE = "seat.lock"


class SeatInUse(RuntimeError):
    """Another program is playing this seat."""


class SeatLock:
    """The lock a program holds on a seat's folder while it plays the seat (see the module doc);
    :meth:`release` it, or let the program end."""

    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._fd: int | None = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
        if not try_lock(self._fd):
            os.close(self._fd)
            self._fd = None
            raise SeatInUse(f"another program is playing the seat in {folder}") from None

    def release(self) -> None:
        if self._fd is not None:
            with suppress(OSError):
                os.close(self._fd)  # closing drops the lock
            self._fd = None


def seat_in_use(folder: Path) -> bool:
    """A program holds the seat's lock now."""
    try:
        SeatLock(folder).release()
    except SeatInUse:
        return True
    return False


@dataclass(frozen=True)
class SeatState:
    header: dict[str, Any]
    seat: int
    seed: bytes
    identity: Identity
    bot: str | None  # None: a person plays this seat

    @property
    def table(self) -> bytes:
        return self.header["table"]


def seat_folder(table: bytes, seat: int, home: str | os.PathLike[str] | None = None) -> Path:
    return data_dir(home) / "tables" / f"{table.hex()[:12]}-seat{seat}"


def save_seat_state(folder: Path, state: SeatState) -> None:
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    data = framing.encode(
        {
            "header": state.header,
            "seat": state.seat,
            "seed": state.seed,
            "identity": state.identity.to_file_bytes(),
            "bot": state.bot,
        }
    )
    write_private(folder / STATE_FILE, data)


def load_seat_state(folder: Path) -> SeatState:
    raw = framing.decode((folder / STATE_FILE).read_bytes())
    identity = Identity.from_file_bytes(raw["identity"], str(folder / STATE_FILE))
    return SeatState(raw["header"], raw["seat"], raw["seed"], identity, raw["bot"])


def journal_path(folder: Path) -> Path:
    return folder / JOURNAL_FILE


def unfinished_seats(home: str | os.PathLike[str] | None = None) -> list[Path]:
    """Seat folders of games that did not finish and that no program is playing, newest first."""
    root = data_dir(home) / "tables"
    if not root.is_dir():
        return []
    found = [p for p in root.iterdir() if (p / STATE_FILE).is_file() and not seat_in_use(p)]
    return sorted(found, key=lambda p: (p / STATE_FILE).stat().st_mtime, reverse=True)


def remove_seat_folder(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)

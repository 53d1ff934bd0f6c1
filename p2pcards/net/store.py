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
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..wire import framing
from ..wire.files import write_private
from ..wire.identity import Identity, data_dir

__all__ = ["SeatState", "load_seat_state", "save_seat_state", "seat_folder", "unfinished_seats"]

STATE_FILE = "seat.bin"
JOURNAL_FILE = "journal.p2pt"


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
    """Seat folders of games that did not finish, newest first."""
    root = data_dir(home) / "tables"
    if not root.is_dir():
        return []
    found = [p for p in root.iterdir() if (p / STATE_FILE).is_file()]
    return sorted(found, key=lambda p: (p / STATE_FILE).stat().st_mtime, reverse=True)


def remove_seat_folder(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)

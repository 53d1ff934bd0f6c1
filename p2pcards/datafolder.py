"""Which programs use the data folder now: a hint when two programs on one computer share it.

Each program that plays (``host``, ``join``, ``play``, ``resume``) marks itself in the data
folder's ``running/`` folder with a file named after its process id, locked for as long as it runs
(:func:`~p2pcards.wire.files.try_lock`: the system drops the lock when the program ends, however
it ends, so a file left behind is never taken for a live program, and its pid being reused does
not matter). A file whose lock is free is left over from a program that ended, and is removed.

Sharing the folder is safe: the identity file is created once, atomically; each seat's folder is
locked by the program that plays it (:mod:`.net.store`); the history database takes one writer at
a time (:mod:`.history`). But both programs then play with the same key: they are the same player
to everyone else, and a table seats a key once. So the second program is not refused, it is told
how to play as someone else: give it a data folder of its own with ``P2PCARDS_HOME``.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

from .wire.files import try_lock
from .wire.identity import data_dir

__all__ = ["FolderUse", "claim_data_folder", "shared_folder_hint"]

RUNNING = "running"


class FolderUse:
    """This program's mark in the data folder (see the module doc); :meth:`release` it, or let
    the program end. ``others``: the process ids of the other programs using the folder."""

    def __init__(self, folder: Path, fd: int | None, path: Path | None, others: list[int]):
        self.folder = folder
        self._fd = fd
        self._path = path
        self.others = others

    def release(self) -> None:
        if self._fd is not None:
            with suppress(OSError):
                os.close(self._fd)
            self._fd = None
        if self._path is not None:
            with suppress(OSError):  # (another program may be looking at it: it finds it free)
                self._path.unlink()
            self._path = None


def claim_data_folder(home: str | os.PathLike[str] | None = None, *, name: str | None = None) -> FolderUse:
    """Mark this program as using the data folder (``home``, else the usual one) and find the
    other programs that use it. ``name`` is this program's mark (default: its process id; tests
    use two in one process). Never raises: a folder that cannot be written gets no mark."""
    folder = data_dir(home)
    running = folder / RUNNING
    fd = path = None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        running.mkdir(mode=0o700, exist_ok=True)
        path = running / f"{name or os.getpid()}.pid"
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        if try_lock(fd):
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        else:  # our own mark, taken by this program already
            os.close(fd)
            fd = path = None
    except OSError:
        if fd is not None:
            os.close(fd)
        fd = path = None
    return FolderUse(folder, fd, path, _others(running, path))


def _others(running: Path, mine: Path | None) -> list[int]:
    """The pids in the marks of ``running`` that a live program holds; stale marks removed."""
    found = []
    try:
        marks = sorted(running.glob("*.pid"))
    except OSError:
        return []
    for mark in marks:
        if mine is not None and mark.name == mine.name:
            continue
        try:
            fd = os.open(mark, os.O_RDWR)
        except OSError:
            continue
        try:
            live = not try_lock(fd)
        finally:
            os.close(fd)
        if not live:
            with suppress(OSError):
                mark.unlink()  # left by a program that ended
            continue
        try:
            found.append(int(mark.name.removesuffix(".pid")))
        except ValueError:
            found.append(0)  # a mark of another name (tests): a live program all the same
    return found


def shared_folder_hint(use: FolderUse) -> str | None:
    """One line for the person, if another program uses the same data folder, else ``None``."""
    if not use.others:
        return None
    pids = ", ".join(str(pid) for pid in use.others if pid) or "?"
    one = len(use.others) == 1
    programs = "another p2pcards program" if one else f"{len(use.others)} other p2pcards programs"
    return (
        f"hint: {programs} (pid {pids}) use{'s' if one else ''} the data folder {use.folder} too: all play "
        "as one player (one key), and a table seats a key once. To play as another player on this computer, "
        "set P2PCARDS_HOME to a different folder for this program"
    )

"""Small file helpers for data that must survive a crash (identity keys, transcripts, seat state)."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

__all__ = ["fsync_dir", "try_lock", "write_private", "write_problem"]

_PROBLEMS = {
    errno.ENOSPC: "disk full",
    errno.EDQUOT: "disk quota exceeded",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "read-only file system",
    errno.EIO: "input/output error",
}


def write_problem(exc: OSError) -> str:
    """What went wrong with a write, in a few words a player can act on ("disk full")."""
    return _PROBLEMS.get(exc.errno or 0) or exc.strerror or str(exc) or type(exc).__name__


def fsync_dir(folder: Path) -> None:
    """Make a file's creation or rename in ``folder`` durable (fsync the directory itself)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def write_private(path: Path, data: bytes) -> None:
    """Replace ``path`` atomically with ``data``, readable by this user only (mode 0600), and
    durable once this returns."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def try_lock(fd: int) -> bool:
    """Take an exclusive lock on the open file ``fd`` without waiting: ``True`` if this open
    file now holds it, ``False`` if another does (in this program or another). The system drops
    it when the file is closed or the program dies, so a lock left behind never goes stale. An
    ``flock`` on Linux and macOS; on Windows a byte-range lock on the file's first byte (which
    leaves the file readable)."""
    if sys.platform == "win32":
        import msvcrt

        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True

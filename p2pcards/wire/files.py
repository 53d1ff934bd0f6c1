"""Small file helpers for data that must survive a crash (identity keys, transcripts, seat state)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

__all__ = ["fsync_dir", "write_private", "write_problem"]

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

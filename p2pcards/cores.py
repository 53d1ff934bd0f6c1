"""Work spread over this machine's cores, in threads: for C code that releases the GIL while it
runs (libsodium's scalar multiplications and signature checks). One pool for the process."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

__all__ = ["WORKERS", "ahead", "pool", "shares"]

#: Threads that share one batch of work: this machine's cores, at most four.
WORKERS = max(1, min(4, os.cpu_count() or 1))
_pool: ThreadPoolExecutor | None = None
_ahead: ThreadPoolExecutor | None = None
_made = threading.Lock()  # (pool() is asked from several threads at once)


def pool() -> ThreadPoolExecutor:
    """The process's helper threads (WORKERS - 1 of them: the calling thread takes a share)."""
    global _pool
    with _made:
        if _pool is None:
            _pool = ThreadPoolExecutor(max(1, WORKERS - 1), thread_name_prefix="p2pcards-core")
        return _pool


def shares(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` consecutive ``(start, end)`` ranges covering ``range(n)``, as even as can be."""
    bounds = [n * w // parts for w in range(parts + 1)]
    return list(zip(bounds, bounds[1:]))


def ahead() -> ThreadPoolExecutor:
    """Threads for whole checks run ahead of the thread that reads their verdicts (``p2pcards
    verify``'s proof checks, one per core): apart from :func:`pool`, which they may use in turn,
    so a check that waits on its own share of work never waits behind another check."""
    global _ahead
    with _made:
        if _ahead is None:
            _ahead = ThreadPoolExecutor(WORKERS, thread_name_prefix="p2pcards-ahead")
        return _ahead

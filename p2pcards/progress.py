"""A progress bar on stderr for work that a person waits for (``verify``, ``replay``, the
pending verifications of ``history``): drawn only on a terminal, and only once the work has
taken :data:`SHOW_AFTER` seconds, so quick runs and piped or ``--json`` output look as before."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["SHOW_AFTER", "ProgressBar"]

#: Seconds of work before the bar appears.
SHOW_AFTER = 1.0
#: Seconds between redraws.
REDRAW = 0.1
WIDTH = 30


class ProgressBar:
    """``update(done)`` with ``done`` from 0 to 1; ``close()`` (or the ``with`` block's end)
    erases the bar. Writes nothing unless ``stream`` is a terminal."""

    def __init__(self, label: str, stream: TextIO | None = None, *, show_after: float = SHOW_AFTER):
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.enabled = _is_tty(self.stream)
        self.started = time.monotonic()
        self.show_after = show_after
        self.drawn = 0.0  # when it was last drawn (0: never)
        self.done = 0.0

    def update(self, done: float, label: str | None = None) -> None:
        if label is not None:
            self.label = label
        self.done = min(1.0, max(0.0, done))
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.started < self.show_after or now - self.drawn < REDRAW:
            return
        self.drawn = now
        filled = int(self.done * WIDTH)
        bar = "#" * filled + "-" * (WIDTH - filled)
        elapsed = now - self.started
        self.stream.write(f"\r\x1b[K{self.label} [{bar}] {self.done * 100:3.0f}%  {elapsed:.0f} s")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
        self.drawn = 0.0

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False

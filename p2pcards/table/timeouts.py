"""Step timeouts of a table, agreed in the lobby and bound into its header."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

__all__ = ["MAX_SECONDS", "Timeouts", "check_seconds"]

#: The longest each wait may be: a header from a host is untrusted, and a timeout of ``inf`` or
#: 1e300 seconds would let a table wait forever on a seat that is gone (protocol/table.md).
MAX_SECONDS = {"deck": 600.0, "turn": 3600.0, "grace": 3600.0}


def check_seconds(name: str, value: object) -> float:
    """``value`` as a timeout called ``name``: a finite number of seconds above 0 and at most
    :data:`MAX_SECONDS`; raises ValueError saying which bound it misses."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"the {name} timeout must be a positive number of seconds, not {value!r}")
    if value > MAX_SECONDS[name]:
        raise ValueError(f"the {name} timeout is at most {MAX_SECONDS[name]:g} s, not {value:g}")
    return float(value)


@dataclass(frozen=True)
class Timeouts:
    """Seconds. ``deck``: one deck step; ``turn``: a connected player's move; ``grace``: how
    long a disconnected player may take to come back before the game ends as abandoned."""

    deck: float = 30.0
    turn: float = 600.0
    grace: float = 90.0

    def __post_init__(self) -> None:
        for f in fields(self):
            check_seconds(f.name, getattr(self, f.name))

    def describe(self) -> str:
        """For a joiner, before it sits: what the table will wait for."""
        return f"a deck step {self.deck:g} s, a move {self.turn:g} s, a dropped player {self.grace:g} s to come back"

    def to_wire(self) -> dict[str, float]:
        return {"deck": self.deck, "turn": self.turn, "grace": self.grace}

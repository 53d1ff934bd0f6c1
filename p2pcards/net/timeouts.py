"""Step timeouts of a table, agreed in the lobby and bound into its header."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Timeouts"]


@dataclass(frozen=True)
class Timeouts:
    """Seconds. ``deck``: one deck step; ``turn``: a connected player's move; ``grace``: how
    long a disconnected player may take to come back before the game ends as abandoned."""

    deck: float = 30.0
    turn: float = 600.0
    grace: float = 90.0

    def to_wire(self) -> dict[str, float]:
        return {"deck": self.deck, "turn": self.turn, "grace": self.grace}

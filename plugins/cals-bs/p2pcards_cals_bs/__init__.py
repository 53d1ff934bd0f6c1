"""Cal's BS for p2pcards: a bluffing shedding game for 3-7 players with 54 cards (jokers wild),
an optional quads variant and a match of several hands. See docs/games/cals-bs.md."""

from .rules import CalsBS, timeout_action
from .state import BSState

__all__ = ["BSState", "CalsBS", "timeout_action"]

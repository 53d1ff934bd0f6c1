"""No-Limit Texas Hold'em for p2pcards: a match of hands, 2 to 9 players, until one player has
every chip. See docs/games/holdem.md. Hands are ranked by pokerkit (pinned)."""

from .rules import Holdem, make_pots, split
from .state import HoldemState

__all__ = ["Holdem", "HoldemState", "make_pots", "split"]

"""Crazy Eights for p2pcards: match the top card's suit or rank, eights are wild, draw from
the stock when you cannot play. See docs/games/crazy-eights.md."""

from .rules import CrazyEights, EightsState

__all__ = ["CrazyEights", "EightsState"]

"""Calypso for p2pcards: the four-trump partnership game of R. W. Willis, with solo and
three-player modes (rules.md Part II). The entry point is :mod:`p2pcards_calypso.plugin`.

:func:`score_deal` scores a finished game from plain counts (see docs/games/calypso.md)."""

from .rules import Calypso
from .state import CalypsoState
from .tricks import PlayerCounts, score_deal

__all__ = ["Calypso", "CalypsoState", "PlayerCounts", "score_deal"]

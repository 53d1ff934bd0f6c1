"""Calypso for p2pcards: the four-trump partnership game of R. W. Willis, with solo and
three-player modes (rules.md Part II). The entry point is :mod:`p2pcards_calypso.plugin`."""

from .game import Calypso, CalypsoState

__all__ = ["Calypso", "CalypsoState"]

"""Bots that play any game. Games register stronger ones of their own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .cards import Card
from .game import Action, Bot

__all__ = ["RandomBot"]


class RandomBot(Bot):
    """Picks uniformly among the game's legal actions."""

    name = "random"

    def choose(self, state: Any, known: Mapping[int, Card]) -> Action:
        actions = self.game.legal_actions(state, self.seat, known)
        if not actions:
            raise RuntimeError(f"{self.game.id}: no legal action for seat {self.seat}")
        return self.rng.choice(list(actions))

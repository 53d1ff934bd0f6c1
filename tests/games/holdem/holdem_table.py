"""A Hold'em table for scenario tests: :class:`p2pcards.testing.ScenarioTable` with the first
hand's hole cards and board stated, the button drawn where the test says, and stacks that a
test may set before the first action."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p2pcards.testing import ScenarioTable, load_game

GAME_ID = "holdem"


def the_game():
    return load_game(GAME_ID)


class Table(ScenarioTable):
    """Deals ``hands`` (seat -> two cards), leaves ``board`` (flop, turn, river) on top of the
    stock, and gives the button to ``button``. ``behind`` sets chips behind per seat after the
    blinds are posted (the stacks a hand starts with, less the blinds)."""

    def __init__(
        self,
        hands: Mapping[int, str],
        board: str,
        *,
        button: int = 0,
        behind: Mapping[int, int] | None = None,
        **options: Any,
    ):
        super().__init__(GAME_ID, len(hands), options, hands=hands, then=board, coins={"button": button})
        for seat, chips in (behind or {}).items():
            self.state.stacks[seat] = chips
        self.first_hole = [list(h) for h in self.state.hole]  # the next hand deals new ones

    def stacks(self) -> list[int]:
        """Each seat's chips, counting what it has put in the hand being played: after a hand
        the table deals the next at once, and this is what each seat started it with."""
        return [s + t for s, t in zip(self.state.stacks, self.state.total, strict=True)]

    def hole_shown(self, seat: int) -> bool:
        """Whether any reveal opened one of ``seat``'s hole cards of the first hand."""
        hole = set(self.first_hole[seat])
        return any(hole & set(handles) for handles, _ in self.reveals)

"""The public state of a Hold'em match: stacks, the button, the hand being played.

Public information only: handles, chips, the board's faces and the faces of hands shown at a
showdown. A hole card's face is never here unless its holder showed it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from p2pcards.cards import Card
from p2pcards.game import Result

#: Streets by number: betting rounds 0 to 3.
STREETS = ("preflop", "flop", "turn", "river")
#: How many board cards each street turns (none before the flop).
BOARD_CARDS = (0, 3, 1, 1)


@dataclass
class Pot:
    """A pot of chips and the seats that may win it (still in the hand, in for its level)."""

    amount: int
    eligible: list[int]

    def to_data(self) -> dict[str, Any]:
        return {"amount": self.amount, "eligible": list(self.eligible)}


@dataclass
class HoldemState:
    players: int
    small_blind: int
    big_blind: int
    blinds_up_every: int
    hand_limit: int
    stacks: list[int]  # chips behind (not yet in front of the seat this hand)
    phase: str = "button"  # button, shuffle, deal, betting, board, showdown, over
    button: int | None = None
    hand: int = 0  # the number of the hand being played (1 for the first)
    level: int = 0  # blind level: the blinds are doubled this many times
    sb: int = 0  # the blinds of this hand
    bb: int = 0
    sb_seat: int | None = None
    bb_seat: int | None = None
    seated: list[int] = field(default_factory=list)  # seats dealt in this hand, from the button's left
    out: list[int] = field(default_factory=list)  # busted seats, in the order they went out
    stock: list[int] = field(default_factory=list)
    hole: list[list[int]] = field(default_factory=list)  # per seat, its two handles this hand
    board: list[int] = field(default_factory=list)
    faces: dict[int, Card] = field(default_factory=dict)  # board cards and hands shown
    folded: set[int] = field(default_factory=set)
    mucked: set[int] = field(default_factory=set)
    shown: set[int] = field(default_factory=set)
    street: int = 0
    bets: list[int] = field(default_factory=list)  # in front of each seat this betting round
    total: list[int] = field(default_factory=list)  # put in by each seat this hand
    current: int = 0  # the bet to match this round
    min_raise: int = 0  # the smallest raise increment (the last full bet or raise)
    acted_at: dict[int, int] = field(default_factory=dict)  # seat -> the bet it last acted against
    put: dict[int, int] = field(default_factory=dict)  # seat -> chips its last call or all in put in (the log's)
    turn: int | None = None
    aggressor: int | None = None  # last seat to bet or raise (fully or not) this round
    tabled: bool = False  # all-in and no more betting: every hand is turned up (rule 11)
    reveal: list[tuple[int | None, tuple[int, ...]]] = field(default_factory=list)  # pending: (seat, handles)
    pots: list[Pot] = field(default_factory=list)  # at the showdown
    order: list[int] = field(default_factory=list)  # showdown order
    locked: dict[int, int] = field(default_factory=dict)  # pot index -> seat that won it unshown
    story: list[dict[str, Any]] = field(default_factory=list)
    result: Result | None = None

    # -- who is where -------------------------------------------------------------------------

    def playing(self) -> list[int]:
        """Seats still in the match (not busted), in seat order."""
        return [s for s in range(self.players) if s not in self.out]

    def live(self) -> list[int]:
        """Seats of this hand that have not folded, from the button's left."""
        return [s for s in self.seated if s not in self.folded]

    def all_in(self, seat: int) -> bool:
        return seat in self.seated and self.stacks[seat] == 0 and seat not in self.folded

    def can_act(self) -> list[int]:
        """Live seats with chips behind: those who may still bet, from the button's left."""
        return [s for s in self.live() if self.stacks[s] > 0]

    def after(self, seat: int, among: list[int]) -> int:
        """The first seat of ``among`` clockwise after ``seat``."""
        for step in range(1, self.players + 1):
            nxt = (seat + step) % self.players
            if nxt in among:
                return nxt
        raise ValueError("no seat to move to")

    def to_call(self, seat: int) -> int:
        return min(self.current - self.bets[seat], self.stacks[seat])

    def pot_total(self) -> int:
        return sum(self.total)

    def may_raise(self, seat: int) -> bool:
        """Whether ``seat`` may (re)raise: it has not acted this round, or the bet has gone up by
        at least a full raise since it did (an all-in short of a full raise does not reopen the
        betting: docs/games/holdem.md, rule 7). It must also have more
        chips than a call takes, and someone else must be able to answer."""
        if self.stacks[seat] <= self.current - self.bets[seat]:
            return False
        if not any(s != seat for s in self.can_act()):
            return False
        if seat not in self.acted_at:
            return True
        return self.current - self.acted_at[seat] >= self.min_raise

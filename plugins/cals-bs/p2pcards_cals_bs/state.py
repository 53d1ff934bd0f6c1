"""Cal's BS public state: what every peer holds alike, and the option values and bounds the
rules, the view text and the bots share.

:class:`BSState` holds handles only; ``faces`` holds every face revealed to all. The state
machine in :mod:`p2pcards_cals_bs.rules` changes it; the view in :mod:`p2pcards_cals_bs.text`
and the bots only read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from p2pcards.cards import Card, Rank
from p2pcards.game import Result, Step

__all__ = ["BSState", "PlacedSet", "PlayRecord"]

FACE_UP = "face_up_must_be_true"
CHALLENGEABLE = "challengeable"
CLOCKWISE, FREE = "clockwise", "free"  # turn_mode (rules 12 and 29)
BY_LOT = -1  # first_dealer: no volunteer (rule 5)
MAX_SET = 6
#: How many public events ``view`` shows.
RECENT_EVENTS = 12


@dataclass
class PlacedSet:
    """One set on the pile (rule 8)."""

    owner: int
    handles: tuple[int, ...]
    rank: Rank | None  # declared rank; None for quads and "+N" sets
    plus: int | None = None  # N of a "+N" set
    quads: bool = False
    index: int = 0  # its action's index in the game log

    def claim(self) -> str:
        if self.quads:
            return "quads"
        if self.plus is not None:
            return f"+{self.plus}"
        assert self.rank is not None, "a set that is neither quads nor +N declares a rank"
        return f"{len(self.handles)}x{self.rank.symbol}"


@dataclass
class PlayRecord:
    """What the audit needs about one placed set: the hand held when it was placed."""

    index: int
    seat: int
    handles: tuple[int, ...]
    hand: tuple[int, ...]
    rank: Rank | None
    plus: int | None
    quads: bool
    going_out: bool
    must_be_truthful: bool  # a face-up going-out play the player could check (rules 23-25)


@dataclass
class BSState:
    players: int
    quads: bool
    going_out: str
    match_target: int
    # coin (none with a volunteer) -> shuffle -> deal -> play -> (shuffle ...) -> done
    phase: str = "coin"
    dealer: int | None = None
    hand_number: int = 0
    scores: list[int] = field(default_factory=list)
    hand_winners: list[int] = field(default_factory=list)
    stock: list[int] = field(default_factory=list)
    hands: list[list[int]] = field(default_factory=list)
    pile: list[PlacedSet] = field(default_factory=list)
    turn: int = 0
    must_lead: bool = True  # the table is open (rule 22)
    current_rank: Rank | None = None
    passes: int = 0  # passes in a row since the last set was placed
    quads_set: int | None = None  # pile index of the quads set while its context lasts
    plus: int | None = None  # N once fixed by the first reply (rule 32)
    provisional: int | None = None  # challengeable mode: the seat provisionally out (rule 27)
    free: bool = False  # turn_mode free: followers respond to a set in any order (rule 29)
    passed: list[int] = field(default_factory=list)  # free order: who passed on the top set
    pending: list[Step] = field(default_factory=list)  # reveals and transfers still to do
    resolving: dict[str, Any] | None = None  # what the pending reveals decide
    faces: dict[int, Card] = field(default_factory=dict)  # every face revealed to all
    records: list[PlayRecord] = field(default_factory=list)
    actions_applied: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)
    story: list[dict[str, Any]] = field(default_factory=list)  # every outcome told (Game.story)
    result: Result | None = None
    out: list[int] = field(default_factory=list)  # seats that dropped out, in order (issue 30)
    set_aside: list[int] = field(default_factory=list)  # their cards: face down, never opened

    def left(self, seat: int) -> int:
        """The next seat clockwise that still plays (a seat that dropped out is skipped)."""
        nxt = (seat + 1) % self.players
        while nxt in self.out:
            nxt = (nxt + 1) % self.players
        return nxt

    @property
    def playing(self) -> int:
        """How many seats still play (every seat but those that dropped out)."""
        return self.players - len(self.out)

    def order_from(self, seat: int) -> list[int]:
        """The seats still playing, clockwise, starting with ``seat`` (which must play)."""
        order = [seat]
        while len(order) < self.playing:
            order.append(self.left(order[-1]))
        return order

    @property
    def top(self) -> PlacedSet | None:
        return self.pile[-1] if self.pile else None

    # Where the rules already know a value is set, these say so (and let the type checker know).

    def top_set(self) -> PlacedSet:
        """The set on top of the pile (there is one to follow, doubt or reveal)."""
        top = self.top
        assert top is not None, "the pile has a set"
        return top

    def dealer_seat(self) -> int:
        assert self.dealer is not None, "the dealer was chosen"
        return self.dealer

    def rank_to_follow(self) -> Rank:
        assert self.current_rank is not None, "the leader declared a rank"
        return self.current_rank

    def quads_base(self) -> PlacedSet:
        """The quads set that the "+N" sets of this context are counted from."""
        assert self.quads_set is not None, "in a quads context"
        return self.pile[self.quads_set]

    @property
    def in_quads_context(self) -> bool:
        return self.quads_set is not None

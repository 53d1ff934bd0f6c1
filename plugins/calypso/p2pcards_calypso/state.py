"""Calypso's public state: the phases, what a game remembers, and the facts read from it.

:class:`CalypsoState` is what every peer holds alike (hands are handles; ``faces`` holds every
face shown so far). The state machine in :mod:`p2pcards_calypso.rules` changes it; the view and
the console grammar in :mod:`p2pcards_calypso.text` and the bots only read it. The functions at
the end answer questions about a state that more than one of those modules asks (whose revoke
may still be corrected, what a correct set-aside is).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from p2pcards.cards import Card, Suit
from p2pcards.game import Action, Result

from .tricks import PARTNERSHIP, REVOKE_PENALTY, SUITS, Revoke, Tableau, player_points, suit_of

CUT = "cut"
RANDOM = "random"

#: ``removed_suit=random``: a public coin picks the suit (three-player mode).
RANDOM_SUIT = "random"
REMOVED_SUIT_COIN = "removed-suit"

# Phases of a game, in order. SORTING only with removed_suit=random: after each deal the
# players set aside the cards of the removed suit and are dealt replacements.
CUTTING, CHOOSING, SHUFFLING, DEALING, SORTING, PLAYING, FINISHED = (
    "cutting",
    "choosing",
    "shuffling",
    "dealing",
    "sorting",
    "playing",
    "finished",
)


@dataclass
class DealRecord:
    """What each seat was dealt and the tricks played, for revoke checks once faces are open."""

    hands: dict[int, list[int]]
    tricks: list[list[tuple[int, int, int]]] = field(default_factory=list)  # (seat, handle, action)


@dataclass
class ClosedTrick:
    """The last trick as it was before it was gathered, kept while a revoke in it may still be
    corrected (rule 30): its plays and what gathering it changed."""

    number: int
    plays: list[tuple[int, int]]  # (seat, handle) in playing order
    leader: int
    last_trick_winner: int | None
    tableaux: dict[int, Tableau]

    def card_of(self, seat: int) -> int | None:
        return next((h for s, h in self.plays if s == seat), None)


@dataclass(frozen=True)
class Declaration:
    """A player owned to a revoke of theirs as it became established (rule 30)."""

    seat: int
    deal: int
    trick: int
    handle: int  # the revoking card
    action_index: int  # the action that owned to it


@dataclass(frozen=True)
class Correction:
    """A player took back a card of the last trick and played ``card`` instead (rule 30)."""

    seat: int
    deal: int
    trick: int
    taken_back: int
    card: int
    action_index: int
    led: Suit


@dataclass
class CalypsoState:
    """Public state. Hands are handles only; ``faces`` holds every face that has been shown."""

    mode: str
    trump_lead_rule: str
    allow_revoke: bool
    seating: str
    removed_suit: Suit | None  # None until the coin with removed_suit=random
    players: int
    phase: str = CUTTING
    # -- removed_suit=random: the deck holds all four suits; the coin picks the one set aside --
    removed_by_coin: bool = False
    sorting: list[int] = field(default_factory=list)  # seats still to set aside, this round
    aside_pending: tuple[int, tuple[int, ...]] | None = None  # (seat, handles) awaiting Reveal
    aside: list[int] = field(default_factory=list)  # cards of the removed suit, set aside
    aside_log: list[tuple[int, int, int]] = field(default_factory=list)  # (seat, handle, action)
    # -- the cut --
    cuts: dict[int, list[int]] = field(default_factory=dict)  # seat -> cut ranks, one per round
    cut_round: int = 1
    cutters: list[int] = field(default_factory=list)  # seats still to cut this round
    ranking: list[int] = field(default_factory=list)  # highest cutter first
    # -- seating and suits --
    order: list[int] = field(default_factory=list)  # seats clockwise; order[0] deals first
    # seat -> place at the table: 0 is the first dealer's, then clockwise (1 at its left, who
    # leads first). Chosen by the cutters in solo and three with seating=cut, else from order.
    places: dict[int, int] = field(default_factory=dict)
    trump: dict[int, Suit] = field(default_factory=dict)
    choosers: list[int] = field(default_factory=list)  # seats still to choose, in order
    # -- deals --
    deals_total: int = 4
    deal_number: int = 0  # deals started so far
    dealer_position: int = 0  # index into order
    stock: list[int] = field(default_factory=list)
    hands: dict[int, list[int]] = field(default_factory=dict)
    faces: dict[int, Card] = field(default_factory=dict)
    # -- play --
    leader: int = 0
    trick_number: int = 0  # 1..13 within the deal
    trick: list[tuple[int, int]] = field(default_factory=list)  # (seat, handle) in playing order
    unrevealed: int | None = None  # the card just played, waiting for its Reveal
    last_trick_winner: int | None = None
    tableaux: dict[int, Tableau] = field(default_factory=dict)
    deals: list[DealRecord] = field(default_factory=list)
    revokes: list[Revoke] = field(default_factory=list)  # on record in honour mode
    # -- honour mode: correcting a revoke before it is established (rule 30) --
    closed: ClosedTrick | None = None  # the last trick, while it may still be reopened
    unsettled: list[int] = field(default_factory=list)  # its followers still to have a last chance
    declarations: list[Declaration] = field(default_factory=list)
    corrections: list[Correction] = field(default_factory=list)
    actions_applied: int = 0
    story: list[dict[str, Any]] = field(default_factory=list)  # every outcome told (Game.story)
    result: Result | None = None

    # -- derived facts --------------------------------------------------------------------

    def position(self, seat: int) -> int:
        return self.order.index(seat)

    def partner(self, seat: int) -> int | None:
        if self.mode != PARTNERSHIP:
            return None
        return self.order[(self.position(seat) + 2) % 4]

    def side(self, seat: int) -> tuple[int, ...]:
        partner = self.partner(seat)
        return (seat,) if partner is None else tuple(sorted((seat, partner)))

    def to_play(self) -> int:
        return self.order[(self.position(self.leader) + len(self.trick)) % self.players]

    def removed(self) -> Suit:
        """The suit taken out of the deck (set once it is chosen, before sorting)."""
        assert self.removed_suit is not None, "the removed suit was chosen"
        return self.removed_suit

    def led_suit(self) -> Suit | None:
        return self.faces[self.trick[0][1]].suit if self.trick else None

    def suits_in_play(self) -> list[Suit]:
        return [s for s in SUITS if s != self.removed_suit]

    def available_suits(self) -> list[Suit]:
        taken = set(self.trump.values())
        return [s for s in self.suits_in_play() if s not in taken]

    def chooses_places(self) -> bool:
        """Solo and three with ``seating=cut``: the cutters draw "for seats and trump suits"
        (rules 12-13), so each chooses its place with its suit. Partnership seats follow the
        cut (rule 10), and ``seating=random`` seats by the coin."""
        return self.seating == CUT and self.mode != PARTNERSHIP

    def places_open(self) -> list[int]:
        """The places the next chooser may take. The highest cutter's is 0: it deals first and
        the others choose where to sit around it; after that, any place nobody has taken."""
        if not self.places:
            return [0]
        taken = set(self.places.values())
        return [p for p in range(self.players) if p not in taken]

    def penalties(self) -> dict[int, int]:
        penalty = {seat: 0 for seat in range(self.players)}
        for revoke in self.revokes:
            if revoke.established:
                penalty[revoke.seat] += REVOKE_PENALTY
        return penalty

    def totals(self) -> dict[int, int]:
        """Each player's points so far (rule 28), less revoke penalties (rule 30)."""
        penalty = self.penalties()
        return {s: player_points(self.tableaux[s]) - penalty[s] for s in range(self.players)}


# --------------------------------------------------------------------------------------------
# Facts about a state that the rules, the view and the grammar share.


def closed_led_suit(state: CalypsoState) -> Suit:
    assert state.closed is not None
    return suit_of(state.faces[state.closed.plays[0][1]])


def may_declare(state: CalypsoState, seat: int) -> bool:
    """Public facts allow ``seat`` to own to a revoke now: this is its last chance for the last
    trick, and its card there did not follow suit."""
    if not state.allow_revoke or state.closed is None or seat not in state.unsettled:
        return False
    handle = state.closed.card_of(seat)
    assert handle is not None, "an unsettled seat played in the last trick"
    return state.faces[handle].suit != closed_led_suit(state)


def may_correct(state: CalypsoState, seat: int) -> bool:
    """As :func:`may_declare`, and ``seat`` has not corrected the last trick before."""
    if not may_declare(state, seat):
        return False
    assert state.closed is not None, "may_declare checked it"
    closed = state.closed
    return not any(
        c.seat == seat and c.deal == state.deal_number and c.trick == closed.number for c in state.corrections
    )


def pending_revoke(state: CalypsoState, seat: int, known: Mapping[int, Card]) -> bool:
    """``seat`` (which sees ``known``) revoked in the last trick and this is its last chance to
    correct it: it still holds the led suit it did not follow (the hand has only lost that card
    since)."""
    if not may_declare(state, seat):
        return False
    led = closed_led_suit(state)
    return any(known[h].suit == led for h in state.hands[seat] if h in known)


def set_aside_action(state: CalypsoState, seat: int, known: Mapping[int, Card]) -> Action:
    """The one correct set-aside: every card of the removed suit in the seat's hand."""
    return {
        "type": "set_aside",
        "cards": sorted(h for h in state.hands[seat] if h in known and known[h].suit == state.removed_suit),
    }

"""Calypso's tricks over faces: partner suits, who wins a trick, building calypsos, scoring,
finding revokes.

Everything here is a pure function of faces and seats (rules.md Part II, rules 2, 18-30); the
state machine in :mod:`p2pcards_calypso.rules` feeds it the cards once they are public.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from p2pcards.cards import Card, Rank, Suit
from p2pcards.game import Result

PARTNERSHIP = "partnership"
SOLO = "solo"
THREE = "three"
MODES = (PARTNERSHIP, SOLO, THREE)

BEAT_THE_LEADER = "BEAT_THE_LEADER"
ANY_RUFF_BEATS_TRUMP_LEAD = "ANY_RUFF_BEATS_TRUMP_LEAD"
TRUMP_LEAD_RULES = (BEAT_THE_LEADER, ANY_RUFF_BEATS_TRUMP_LEAD)

#: Rule 2: spades pair with hearts, diamonds with clubs.
PARTNER_SUIT = {
    Suit.SPADES: Suit.HEARTS,
    Suit.HEARTS: Suit.SPADES,
    Suit.DIAMONDS: Suit.CLUBS,
    Suit.CLUBS: Suit.DIAMONDS,
}
#: Order in which suits are offered and printed.
SUITS = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)

CALYPSO_SIZE = 13
TRICKS_PER_DEAL = 13
#: Rule 30: an established revoke costs the offending side this much.
REVOKE_PENALTY = 260
#: Rule 30: a revoke in this trick of a deal is never established.
UNESTABLISHED_TRICK = 12


# --------------------------------------------------------------------------------------------
# Who wins a trick (rules 18-22).


def suit_of(card: Card) -> Suit:
    """A card's suit (Calypso plays without jokers, so every card has one)."""
    assert card.suit is not None, "Calypso has no jokers"
    return card.suit


def rank_of(card: Card) -> Rank:
    """A card's rank (Calypso plays without jokers, so every card has one)."""
    assert card.rank is not None, "Calypso has no jokers"
    return card.rank


def is_ruff(card: Card, trump: Suit | None, led: Suit) -> bool:
    """Rule 18: a follower's card of their own suit that does not follow the led suit."""
    return card.suit == trump and card.suit != led


def trick_winner(plays: Sequence[tuple[int, Card]], trump_of: Mapping[int, Suit | None], rule: str) -> int:
    """The index into ``plays`` (``(seat, card)`` in playing order) of the winning card."""
    led = suit_of(plays[0][1])
    trump_lead = plays[0][1].suit == trump_of[plays[0][0]]
    ruffs = [i for i, (seat, card) in enumerate(plays) if i and is_ruff(card, trump_of[seat], led)]
    if rule == BEAT_THE_LEADER:
        trumps = ([0] if trump_lead else []) + ruffs
        if trumps:
            return _first_highest(plays, trumps)
    elif rule == ANY_RUFF_BEATS_TRUMP_LEAD:
        if ruffs:
            return _first_highest(plays, ruffs)
        if trump_lead:
            return 0
    else:
        raise ValueError(f"unknown trump_lead_rule {rule!r}")
    return _first_highest(plays, [i for i, (_, card) in enumerate(plays) if card.suit == led])


def _first_highest(plays: Sequence[tuple[int, Card]], candidates: Sequence[int]) -> int:
    """The highest rank among ``candidates``; on equal ranks the first played (rule 22)."""
    best = candidates[0]
    for i in candidates[1:]:
        if rank_of(plays[i][1]) > rank_of(plays[best][1]):
            best = i
    return best


# --------------------------------------------------------------------------------------------
# Building calypsos (rules 23-27).


@dataclass
class Tableau:
    """One player's cards won so far: the calypso in progress (face up, by rank), the completed
    calypsos and the face-down trick pile. Cards are kept as handles so that every physical
    card can be accounted for at the end."""

    current: dict[Rank, int] = field(default_factory=dict)
    completed: list[list[int]] = field(default_factory=list)
    pile: list[int] = field(default_factory=list)

    def add(self, rank: Rank, handle: int) -> None:
        """Put a card into the calypso in progress; at 13 ranks it is complete and a new one
        starts at once (rule 26c)."""
        self.current[rank] = handle
        if len(self.current) == CALYPSO_SIZE:
            self.completed.append(list(self.current.values()))
            self.current = {}

    def card_count(self) -> int:
        return CALYPSO_SIZE * len(self.completed) + len(self.current) + len(self.pile)


def allocate_trick(
    trick: Sequence[tuple[int, int, Card]],
    winner: int,
    trump_of: Mapping[int, Suit | None],
    partner_of: Callable[[int], int | None],
    tableaux: Mapping[int, Tableau],
) -> None:
    """Rule 26's algorithm: place the won cards ``(seat, handle, card)``, in playing order.

    Cards of the winner's suit go to the winner's calypso, cards of the partner's suit to the
    partner's (partnership only), a rank already there is tried again after the others (it may
    start the next calypso after a completion in this trick), and everything else goes to the
    winner's pile, dead for good."""
    placed: set[int] = set()
    builders = [winner]
    partner = partner_of(winner)
    if partner is not None:
        builders.append(partner)
    for builder in builders:
        tableau = tableaux[builder]
        deferred = []
        for _, handle, card in trick:
            if card.suit != trump_of[builder]:
                continue
            if card.rank not in tableau.current:
                tableau.add(rank_of(card), handle)
                placed.add(handle)
            else:
                deferred.append((handle, card))
        for handle, card in deferred:
            if card.rank not in tableau.current:
                tableau.add(rank_of(card), handle)
                placed.add(handle)
    for _, handle, _ in trick:
        if handle not in placed:
            tableaux[winner].pile.append(handle)


# --------------------------------------------------------------------------------------------
# Scoring (rules 28-30).


def calypso_points(completed: int) -> int:
    """Rule 28: the first calypso 500, the second 750, every further one 1000."""
    points = 0
    for ordinal in range(completed):
        points += 500 if ordinal == 0 else 750 if ordinal == 1 else 1000
    return points


def player_points(tableau: Tableau) -> int:
    """Rule 28 for one player, before revoke penalties."""
    return PlayerCounts.of(tableau).points()


@dataclass(frozen=True)
class PlayerCounts:
    """What one player has at the end of the last deal, as plain counts (rules 28 and 30).

    ``calypsos``: completed calypsos; ``in_progress``: cards of the unfinished calypso;
    ``pile``: cards in the face-down trick pile; ``revokes``: established revokes charged to
    this player (honour mode), 260 points each."""

    calypsos: int = 0
    in_progress: int = 0
    pile: int = 0
    revokes: int = 0

    @classmethod
    def of(cls, tableau: Tableau, revokes: int = 0) -> PlayerCounts:
        return cls(len(tableau.completed), len(tableau.current), len(tableau.pile), revokes)

    @property
    def penalty(self) -> int:
        return REVOKE_PENALTY * self.revokes

    def points(self) -> int:
        """Rule 28 less rule 30: 500/750/1000 per calypso, 20 per card in progress, 10 per
        pile card, less 260 per established revoke."""
        return calypso_points(self.calypsos) + 20 * self.in_progress + 10 * self.pile - self.penalty


def score_deal(counts: Sequence[PlayerCounts], sides: Sequence[Sequence[int]] | None = None) -> Result:
    """The result of a finished game of Calypso from each seat's counts after its last deal
    (``counts[seat]``; calypsos, cards and piles carry over between deals, rule 27, so the last
    deal's counts are the whole game's). Rules 28-30.

    ``sides`` lists the two partnerships as seat numbers in partnership mode (e.g.
    ``[[0, 2], [1, 3]]``); ``None`` scores every player for themselves (solo, three).

    Partnership: the side with the higher total wins, equal totals are a draw; ``details`` has
    ``sides`` and ``difference``. Otherwise the top total wins (a tie at the top is shared;
    everyone equal is a draw); ``details`` has ``ranking`` and the pairwise ``differences``.
    ``details["players"]`` holds each seat's counts, ``penalty`` and ``total`` by ``str(seat)``,
    and ``scores`` are the totals by seat."""
    totals = [c.points() for c in counts]
    seats = range(len(counts))
    details: dict[str, Any] = {
        "players": {
            str(seat): {
                "calypsos": c.calypsos,
                "in_progress": c.in_progress,
                "pile": c.pile,
                "penalty": c.penalty,
                "total": totals[seat],
            }
            for seat, c in enumerate(counts)
        },
    }
    scores = tuple(float(t) for t in totals)
    if sides is not None:
        ordered = sorted(tuple(sorted(side)) for side in sides)
        if len(ordered) != 2 or sorted(s for side in ordered for s in side) != list(seats):
            raise ValueError(f"sides must split seats {list(seats)} in two, not {sides!r}")
        side_totals = [sum(totals[s] for s in side) for side in ordered]
        details["sides"] = [{"seats": list(side), "total": t} for side, t in zip(ordered, side_totals)]
        details["difference"] = abs(side_totals[0] - side_totals[1])
        if side_totals[0] == side_totals[1]:
            return Result((), scores, f"a draw at {side_totals[0]} each", details)
        best = 0 if side_totals[0] > side_totals[1] else 1
        winners = ordered[best]
        summary = (
            f"seats {' and '.join(map(str, winners))} win {side_totals[best]} to "
            f"{side_totals[1 - best]} (by {details['difference']})"
        )
        return Result(winners, scores, summary, details)
    ranking = sorted(seats, key=lambda s: -totals[s])
    details["ranking"] = ranking
    details["differences"] = {f"{a}-{b}": totals[a] - totals[b] for a in seats for b in seats if a < b}
    top = totals[ranking[0]]
    winners = tuple(s for s in ranking if totals[s] == top)
    if len(winners) == len(counts):
        winners = ()
    summary = ", ".join(f"seat {s} {totals[s]}" for s in ranking)
    return Result(winners, scores, summary, details)


# --------------------------------------------------------------------------------------------
# Revokes (rules 16, 17, 30): found once the faces of a deal are known.


@dataclass(frozen=True)
class Revoke:
    seat: int
    deal: int  # 1-based
    trick: int  # 1-based within the deal
    handle: int
    action_index: int
    led: Suit
    #: Put on record by the offender's own client when it was established (rule 30).
    declared: bool = False

    @property
    def established(self) -> bool:
        """Rule 30: established once the offending side plays to the next trick, which every
        player always does with one card a turn; a revoke in the 12th trick never is (and one
        in the 13th is impossible: the last card follows suit if it can)."""
        return self.trick != UNESTABLISHED_TRICK


def find_revokes(
    deal: int,
    hands: Mapping[int, Sequence[int]],
    tricks: Sequence[Sequence[tuple[int, int, int]]],
    faces: Mapping[int, Card],
) -> list[Revoke]:
    """Every card of ``tricks`` (``(seat, handle, action_index)`` in playing order) that failed to
    follow the led suit while its player still held a card of that suit. ``hands`` is what each
    seat was dealt in this deal."""
    holding = {seat: set(handles) for seat, handles in hands.items()}
    found = []
    for number, trick in enumerate(tricks, start=1):
        if trick[0][1] not in faces:
            continue  # never shown (a deal a seat dropped out of): nothing to check
        led = suit_of(faces[trick[0][1]])
        for seat, handle, index in trick[1:]:
            if handle not in faces or faces[handle].suit == led:
                continue
            # Only a card shown at the table proves the player held the led suit (every card
            # of a finished deal is played face up by its end, issue 32).
            if any(h in faces and faces[h].suit == led for h in holding.get(seat, ())):
                found.append(Revoke(seat, deal, number, handle, index, led))
        for seat, handle, _ in trick:
            holding[seat].discard(handle)
    return found

"""Cal's BS bots: the strategic bot, and the truthful script it is measured against.

The strategic bot remembers every face it has seen (its deals, cards it picked up, every
reveal) and, since handles keep their names within a hand, knows where each of those cards sits
now: in its own hand, in an opponent's hand, or inside a set on the pile. It also learns, per
opponent, from what that opponent does in front of it:

* **honesty**: the share of their sets it has seen face up (a doubt's reveal, or the sets of a
  pile it picked up) that were true, small sets (1-2 cards) and large ones apart, with a prior
  of 3 in 4;
* **doubting**: how often they doubted, passed or played on a turn where a doubt was allowed,
  again by the size of the set on top, with a prior of 1 doubt and 2 passes in 5 turns.

It doubts a claim that its cards show cannot be true (an off-rank card of the set seen, or more
cards claimed than the rank's naturals and jokers not known to be elsewhere), never one that
they show must be true, and otherwise when the owner's honesty for sets of that size (lowered
for a claim only a very unlikely hand could make) is below 0.45, or 0.6 when the owner is about
to go out.

It plays truthfully whenever it holds the rank, keeps its largest group and its jokers for
going out, leads quads (which cannot be doubted) when it holds them, and adds off-rank cards to
a set (a bluff) only as many as pay: the expected change in its hand size, with the chance the
set is doubted before someone covers it (the next player doubts, or passes and the next one
doubts, ...) and the pile it would take back if caught.
"""

from __future__ import annotations

from collections.abc import Mapping
from math import comb
from typing import Any

from p2pcards.cards import Card, Rank
from p2pcards.game import Action, Bot, IllegalAction

from .choices import MAX_SET, rank_groups
from .rules import CalsBS, plus_rank
from .state import BSState, PlacedSet

GOOD_PER_RANK = 6  # four naturals and two jokers
#: A claim whose cards a hand held with less than this chance is that much more suspect.
UNLIKELY = 0.03
MAX_SEATS = CalsBS.max_players


def at_least(pool: int, good: int, draws: int, need: int) -> float:
    """P(X >= need) for X ~ Hypergeometric(pool, good, draws)."""
    if need <= 0:
        return 1.0
    draws = min(draws, pool)
    good = min(good, pool)
    if need > min(good, draws):
        return 0.0
    total = comb(pool, draws)
    hits = sum(comb(good, x) * comb(pool - good, draws - x) for x in range(need, min(good, draws) + 1))
    return hits / total


class StrategicBot(Bot):
    name = "strategic"

    #: Prior for each opponent's honesty: as if it had shown this many true sets out of
    #: ``PRIOR_SHOWN``. Every set of theirs this bot sees face up (a doubt's reveal, a pile it
    #: picked up) updates it.
    PRIOR_TRUE, PRIOR_SHOWN = 3.0, 4.0
    #: Prior for what each opponent does on a turn where a doubt is allowed: this many doubts
    #: and passes in ``PRIOR_CHANCES`` such turns. Every such turn it sees updates it.
    PRIOR_DOUBTS, PRIOR_PASSES, PRIOR_CHANCES = 1.0, 2.0, 5.0

    def __init__(self, game, seat, options, rng):
        super().__init__(game, seat, options, rng)
        self.seen: dict[int, Card] = {}
        # Per seat, per kind of set (1-2 cards, 3 or more): [true sets seen, sets seen].
        self.shown = [[[self.PRIOR_TRUE, self.PRIOR_SHOWN] for _ in range(2)] for _ in range(MAX_SEATS)]
        # Per seat, per size of the set on top (1-2 cards, 3 or more): [doubts, passes, turns].
        self.doubts = [
            [[self.PRIOR_DOUBTS, self.PRIOR_PASSES, self.PRIOR_CHANCES] for _ in range(2)] for _ in range(MAX_SEATS)
        ]
        # The pile as it stood after the last action (sets by owner, handles and claim), and
        # the sets already counted for honesty (by their action index).
        self._pile: list[PlacedSet] = []
        self._counted: set[int] = set()
        self._could_doubt = False  # whether the seat to act could doubt the top set
        self._top_size = 0  # and how many cards that set has

    # -- memory -----------------------------------------------------------------------------

    def observe(self, state: Any, event: Mapping[str, Any], known: Mapping[int, Card]) -> None:
        kind = event.get("kind")
        if kind == "shuffle":
            self.seen.clear()  # new handles for a new hand
            self._pile, self._counted = [], set()
        elif kind == "reveal":
            self.seen.update(event["faces"])
            self._learn_honesty(self.seen)
        elif kind == "action":
            action = event["action"]
            seat = event["seat"]
            if self._could_doubt and seat != self.seat and action.get("type") in ("pass", "doubt", "play"):
                counts = self.doubts[seat][self._top_size > 2]
                counts[0] += action.get("type") == "doubt"
                counts[1] += action.get("type") == "pass"
                counts[2] += 1
            self._pile = list(state.pile)
        elif kind == "deal" or (kind == "transfer" and event["to"] == self.seat):
            self.seen.update((h, known[h]) for h in event["handles"] if h in known)
            if kind == "transfer":
                # The pile it took: every set in it is now known, the old handles too.
                self._learn_honesty(known)
                self._pile = []
        top = state.top if state.phase == "play" else None
        self._could_doubt = bool(top is not None and not state.must_lead and not top.quads and not state.pending)
        self._top_size = len(top.handles) if top is not None else 0

    def _learn_honesty(self, faces: Mapping[int, Card]) -> None:
        for placed in self._pile:
            if placed.index in self._counted or placed.owner == self.seat or placed.rank is None:
                continue  # "+N" sets need B; they are rare enough to skip
            if not all(h in faces for h in placed.handles):
                continue
            self._counted.add(placed.index)
            truthful = all(faces[h].is_joker or faces[h].rank == placed.rank for h in placed.handles)
            counts = self.shown[placed.owner][len(placed.handles) > 2]
            counts[0] += truthful
            counts[1] += 1

    def honesty(self, seat: int, size: int = 1) -> float:
        """The share of ``seat``'s sets of about ``size`` cards seen to be true (small sets
        and large ones apart: players bluff with few cards)."""
        true, shown = self.shown[seat][size > 2]
        return true / shown

    def doubt_rate(self, seat: int, size: int = 1) -> float:
        """How often ``seat`` doubted a set of about ``size`` cards when it could."""
        doubts, _, chances = self.doubts[seat][size > 2]
        return doubts / chances

    def pass_rate(self, seat: int, size: int = 1) -> float:
        _, passes, chances = self.doubts[seat][size > 2]
        return passes / chances

    def _doubt_risk(self, state: BSState, size: int) -> float:
        """How likely a set placed now is doubted before anyone covers it: the next player
        doubts, or passes and the one after doubts, and so on, each at the rates they have
        shown so far."""
        risk, reach = 0.0, 1.0
        for seat in state.order_from(self.seat)[1:]:  # the seats still playing, clockwise
            risk += reach * self.doubt_rate(seat, size)
            reach *= self.pass_rate(seat, size)
        return risk

    # -- estimating claims ------------------------------------------------------------------

    def _unknown_pool(self, state: BSState) -> int:
        """Cards it cannot place: unseen ones in hands and on the pile, and the hands set
        aside by seats that dropped out (never shown to anyone)."""
        live = sum(len(h) for h in state.hands) + sum(len(p.handles) for p in state.pile)
        return live - sum(1 for h in self._live_handles(state) if h in self.seen) + len(state.set_aside)

    @staticmethod
    def _live_handles(state: BSState):
        for hand in state.hands:
            yield from hand
        for placed in state.pile:
            yield from placed.handles

    def _truth_chance(self, state: BSState, placed: PlacedSet, target: Rank | None) -> float:
        """How likely the placer's cards allowed ``placed`` to be true if the claimed rank is
        ``target``: 0 when it cannot be, 1 when every card of it is known to fit."""
        unknown = [h for h in placed.handles if h not in self.seen]
        for h in placed.handles:
            card = self.seen.get(h)
            if card is not None and not (card.is_joker or card.rank == target):
                return 0.0
        if not unknown:
            return 1.0
        placed_set = set(placed.handles)
        good_elsewhere = sum(
            1
            for h in self._live_handles(state)
            if h not in placed_set and h in self.seen and (self.seen[h].is_joker or self.seen[h].rank == target)
        )
        good_known_in_set = len(placed.handles) - len(unknown)
        good_unknown = GOOD_PER_RANK - good_elsewhere - good_known_in_set
        if good_unknown < len(unknown):
            return 0.0
        pool = self._unknown_pool(state)  # the set's unknown cards are in the pool too
        owner_unknown = sum(1 for h in state.hands[placed.owner] if h not in self.seen)
        draws = owner_unknown + len(unknown)
        chance = at_least(pool, good_unknown, draws, len(unknown))
        if placed.rank is not None and state.pile and placed is state.pile[0]:
            chance = min(1.0, chance + 0.3)  # a leader picks a rank they hold
        return chance

    def _base_candidates(self, state: BSState) -> list[Rank]:
        """Ranks the current quads set could be: all four naturals must be unseen elsewhere."""
        base = state.quads_base()
        known = [self.seen[h] for h in base.handles if h in self.seen]
        if known and known[0].rank is not None:  # (a joker in quads would be a cheat: guess then)
            return [known[0].rank]
        elsewhere = {
            self.seen[h].rank
            for h in self._live_handles(state)
            if h in self.seen and h not in base.handles and not self.seen[h].is_joker
        }
        return [r for r in Rank if r not in elsewhere] or list(Rank)

    def _claim_chance(self, state: BSState, placed: PlacedSet) -> float:
        """The chance the set is true: could it be (from the cards), and would its owner lie
        (from the sets of theirs seen so far)."""
        if placed.plus is None:
            possible = self._truth_chance(state, placed, placed.rank)
        else:
            candidates = self._base_candidates(state)
            possible = sum(self._truth_chance(state, placed, plus_rank(b, placed.plus)) for b in candidates) / len(
                candidates
            )
        if possible >= 1.0 or possible <= 0.0:
            return possible
        # How often this player's sets of this size were true is the best guide; the cards
        # speak only against a claim that needed an unlikely hand.
        honest = self.honesty(placed.owner, len(placed.handles))
        return honest * min(1.0, possible / UNLIKELY)

    def _should_doubt(self, state: BSState) -> bool:
        top = state.top
        if top is None or top.owner == self.seat or top.quads:
            return False
        chance = self._claim_chance(state, top)
        if chance <= 0.0:
            return True
        threshold = 0.45
        if len(state.hands[top.owner]) <= 2 or state.provisional == top.owner:
            threshold += 0.15  # a lie that stands brings them close to going out
        pile = sum(len(p.handles) for p in state.pile)
        if pile >= 10 and len(state.hands[self.seat]) <= 4:
            threshold -= 0.15  # taking a big pile now would cost a likely win
        return chance < threshold

    # -- choosing ---------------------------------------------------------------------------

    def choose(self, state: BSState, known: Mapping[int, Card]) -> Action:
        for h in state.hands[self.seat]:
            if h in known:
                self.seen.setdefault(h, known[h])
        action = self._decide(state, known)
        try:
            self.game.check_own(state, self.seat, action, known)
        except IllegalAction:
            # A gap in the heuristics must never stall a game: fall back to any legal move.
            action = self.game.legal_actions(state, self.seat, known)[0]
        return action

    def _decide(self, state: BSState, known: Mapping[int, Card]) -> Action:
        hand = state.hands[self.seat]
        groups, jokers = rank_groups(hand, known)
        if state.must_lead:
            return self._lead(state, groups, jokers)
        if state.in_quads_context:
            return self._follow_quads(state, groups, jokers)
        rank = state.rank_to_follow()
        mine = groups.get(rank, [])
        if len(mine) + len(jokers) == len(hand) <= MAX_SET:
            return self._play(hand, rank)  # go out
        if self._should_doubt(state):
            return {"type": "doubt"}
        junk = self._junk_cards(groups, keep={rank})
        extra = self._bluff_size(state, len(mine), len(junk), len(hand))
        cards = mine[:MAX_SET] + junk[:extra]
        if cards:
            return self._play(cards, rank)
        return {"type": "pass"}

    @staticmethod
    def _play(cards: list[int], rank: Rank) -> Action:
        return {"type": "play", "cards": list(cards), "rank": rank.symbol}

    @staticmethod
    def _keep_rank(groups: dict[Rank, list[int]]) -> Rank | None:
        """The group it saves to go out with: the largest (jokers join it at the end)."""
        if not groups:
            return None
        return max(groups.items(), key=lambda item: (len(item[1]), -item[0].value))[0]

    def _junk_cards(self, groups: dict[Rank, list[int]], keep: set[Rank]) -> list[int]:
        """Cards it would shed in a bluff, the least useful first: singletons before pairs,
        never the group kept for going out nor the jokers."""
        saved = self._keep_rank(groups)
        spare = [(rank, hs) for rank, hs in groups.items() if rank not in keep and rank != saved]
        spare.sort(key=lambda item: (len(item[1]), item[0].value))
        return [h for _, hs in spare for h in hs]

    def _bluff_size(self, state: BSState, true_cards: int, junk: int, hand_size: int) -> int:
        """How many off-rank cards to add to ``true_cards`` true ones: the count whose expected
        change in hand size is best, given how likely the set is doubted and what a caught lie
        costs (the whole pile)."""
        room = min(junk, MAX_SET - true_cards, hand_size - 1 - true_cards)
        if room <= 0:
            return 0
        pile = sum(len(p.handles) for p in state.pile)
        best, best_value = 0, float(true_cards)
        for extra in range(1, room + 1):
            placed = true_cards + extra
            risk = self._doubt_risk(state, placed)
            # A caught lie: the placer takes back its set and the pile, and loses the lead.
            value = (1.0 - risk) * placed - risk * (pile + 2.0)
            # Claims beyond a few cards draw doubt from anyone who counts.
            if placed > 3:
                value -= (placed - 3) * 0.5
            if value > best_value + 0.25:
                best, best_value = extra, value
        return best

    def _lead(self, state: BSState, groups: dict[Rank, list[int]], jokers: list[int]) -> Action:
        hand = state.hands[self.seat]
        if len(groups) <= 1 and len(hand) <= MAX_SET:
            rank = next(iter(groups), Rank.ACE)
            return self._play(hand, rank)  # go out
        if state.quads:
            for handles in groups.values():
                if len(handles) == 4 and len(hand) > 4:
                    return {"type": "quads", "cards": list(handles)}
        # Keep the group that best finishes the hand (the largest, with the jokers) for last,
        # and lead the next largest truthfully, with off-rank cards when they are likely to pass.
        keep_rank = self._keep_rank(groups)
        rest = sorted(
            ((r, hs) for r, hs in groups.items() if r != keep_rank), key=lambda item: (-len(item[1]), item[0].value)
        )
        if not rest:  # one rank and jokers, more than six cards: lead the naturals
            assert keep_rank is not None
            return self._play(groups[keep_rank][:MAX_SET], keep_rank)
        rank, handles = rest[0]
        cards = list(handles[:MAX_SET])
        junk = self._junk_cards(groups, keep={rank})
        extra = self._bluff_size(state, len(cards), len(junk), len(hand))
        return self._play(cards + junk[:extra], rank)

    def _follow_quads(self, state: BSState, groups: dict[Rank, list[int]], jokers: list[int]) -> Action:
        hand = state.hands[self.seat]
        top = state.top_set()
        if state.plus is not None and not top.quads and self._should_doubt(state):
            return {"type": "doubt"}
        candidates = self._base_candidates(state)
        ns = [state.plus] if state.plus is not None else range(1, 13)
        best: tuple[float, int, list[int]] | None = None
        for n in ns:
            targets = [plus_rank(b, n) for b in candidates]
            for rank, handles in groups.items():
                chance = targets.count(rank) / len(targets)
                cards = handles[:MAX_SET]
                score = chance * len(cards)
                if best is None or score > best[0]:
                    best = (score, n, cards)
        pile = sum(len(p.handles) for p in state.pile)
        if best is None:
            if jokers and state.plus is not None and len(jokers) < len(hand):
                return {"type": "play", "cards": jokers[:1], "plus": state.plus}
            return {"type": "pass"}
        score, n, cards = best
        chance = score / len(cards)
        going_out = len(cards) == len(hand)
        if going_out and chance < 0.5:
            return {"type": "pass"}  # a false face-up going-out play takes the whole pile
        if chance >= 0.5 or pile <= 6:
            return {"type": "play", "cards": cards, "plus": n}
        return {"type": "pass"}


class TruthfulBot(Bot):
    """A script that never lies and never doubts: the baseline the strategic bot must beat.

    Leading, it places every natural card of its largest rank group (up to six, the lowest rank
    first among equals), adding its jokers only when that empties its hand. Following, it
    places every natural card of the rank to follow that it holds (with the jokers when that
    empties its hand), or passes. It keeps its jokers for going out, so every set it places is
    true. After quads it cannot know the target rank, so it passes; it leads quads when it may
    and holds four of a kind. It never doubts.
    """

    name = "truthful"

    def choose(self, state: BSState, known: Mapping[int, Card]) -> Action:
        hand = state.hands[self.seat]
        groups, jokers = rank_groups(hand, known)
        if state.must_lead:
            if not groups:
                return {"type": "play", "cards": jokers[:MAX_SET], "rank": Rank.ACE.symbol}
            if state.quads:
                for handles in groups.values():
                    if len(handles) == 4 and len(hand) > 4:
                        return {"type": "quads", "cards": list(handles)}
            rank, handles = max(groups.items(), key=lambda item: (len(item[1]), -item[0].value))
            return self._set(hand, handles, jokers, rank)
        if state.in_quads_context:
            return {"type": "pass"}
        rank = state.rank_to_follow()
        naturals = groups.get(rank, [])
        if naturals or (jokers and len(jokers) == len(hand)):
            return self._set(hand, naturals, jokers, rank)
        return {"type": "pass"}

    @staticmethod
    def _set(hand: list[int], naturals: list[int], jokers: list[int], rank: Rank) -> Action:
        cards = list(naturals[:MAX_SET])
        if len(cards) + len(jokers) == len(hand) <= MAX_SET:
            cards += jokers  # going out: the jokers finish the hand
        return {"type": "play", "cards": cards, "rank": rank.symbol}

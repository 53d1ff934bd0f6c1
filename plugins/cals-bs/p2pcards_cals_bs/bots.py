"""The strategic Cal's BS bot.

It remembers every face it has seen (its deals, cards it picked up, every reveal) and, since
handles keep their names within a hand, knows where each of those cards sits now: in its own
hand, in an opponent's hand, or inside a set on the pile. From that it estimates how likely a
claim is to be true:

* certainly false when a card of the set is known to be off-rank, or when more cards are claimed
  than the good cards (that rank plus jokers) not known to be elsewhere;
* otherwise the chance that the placer's unknown cards held that many good cards
  (hypergeometric over the cards it cannot place), times that player's honesty so far: the
  share of their doubted sets it has seen turn up true (a prior of 3 in 4).

It plays truthfully whenever it can, keeps jokers for going out, leads quads (which cannot be
doubted) when it holds them, bluffs small when it must and the pile is cheap, and doubts when
a claim is impossible or unlikely.
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
MAX_SEATS = CalsBS.max_players


def at_least(pool: int, good: int, draws: int, need: int) -> float:
    """P(X >= need) for X ~ Hypergeometric(pool, good, draws)."""
    if need <= 0:
        return 1.0
    draws = min(draws, pool)
    if need > min(good, draws):
        return 0.0
    total = comb(pool, draws)
    hits = sum(comb(good, x) * comb(pool - good, draws - x) for x in range(need, min(good, draws) + 1))
    return hits / total


class StrategicBot(Bot):
    name = "strategic"

    #: Doubt when a claim is less likely than this to be true (raised when the pile is small or
    #: the placer is about to go out).
    doubt_threshold = 0.3

    #: Prior for each opponent's honesty: as if it had shown this many true sets out of
    #: ``PRIOR_SHOWN``. Every doubted set this bot sees turned up updates it.
    PRIOR_TRUE, PRIOR_SHOWN = 3.0, 4.0

    def __init__(self, game, seat, options, rng):
        super().__init__(game, seat, options, rng)
        self.seen: dict[int, Card] = {}
        self.shown = [[self.PRIOR_TRUE, self.PRIOR_SHOWN] for _ in range(MAX_SEATS)]
        self.doubted: tuple[int, tuple[int, ...], Rank] | None = None

    # -- memory -----------------------------------------------------------------------------

    def observe(self, state: Any, event: Mapping[str, Any], known: Mapping[int, Card]) -> None:
        kind = event.get("kind")
        if kind == "shuffle":
            self.seen.clear()  # new handles for a new hand
        elif kind == "reveal":
            self.seen.update(event["faces"])
            self._learn_honesty(event["faces"])
        elif kind == "action" and event["action"].get("type") == "doubt":
            top = state.top
            if top.rank is not None:  # "+N" sets need B; they are rare enough to skip
                self.doubted = (top.owner, top.handles, top.rank)
        elif kind == "deal" or (kind == "transfer" and event["to"] == self.seat):
            self.seen.update((h, known[h]) for h in event["handles"] if h in known)

    def _learn_honesty(self, faces: Mapping[int, Card]) -> None:
        if self.doubted is None or not set(self.doubted[1]) <= set(faces):
            return
        owner, handles, rank = self.doubted
        self.doubted = None
        truthful = all(faces[h].is_joker or faces[h].rank == rank for h in handles)
        self.shown[owner][0] += truthful
        self.shown[owner][1] += 1

    def honesty(self, seat: int) -> float:
        true, shown = self.shown[seat]
        return true / shown

    # -- estimating claims ------------------------------------------------------------------

    def _unknown_pool(self, state: BSState) -> int:
        live = sum(len(h) for h in state.hands) + sum(len(p.handles) for p in state.pile)
        return live - sum(1 for h in self._live_handles(state) if h in self.seen)

    @staticmethod
    def _live_handles(state: BSState):
        for hand in state.hands:
            yield from hand
        for placed in state.pile:
            yield from placed.handles

    def _truth_chance(self, state: BSState, placed: PlacedSet, target: Rank | None) -> float:
        """How likely ``placed`` is truthful if the claimed rank is ``target``."""
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
        pool = self._unknown_pool(state) + 0  # the set's unknown cards are in the pool too
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
        """The chance the set could be true, times how honest its owner has shown itself."""
        if placed.plus is None:
            possible = self._truth_chance(state, placed, placed.rank)
        else:
            candidates = self._base_candidates(state)
            possible = sum(self._truth_chance(state, placed, plus_rank(b, placed.plus)) for b in candidates) / len(
                candidates
            )
        if possible >= 1.0:
            return 1.0  # every card of it is known to fit
        return possible * self.honesty(placed.owner)

    def _should_doubt(self, state: BSState) -> bool:
        top = state.top
        if top is None or top.owner == self.seat or top.quads:
            return False
        chance = self._claim_chance(state, top)
        threshold = self.doubt_threshold
        pile = sum(len(p.handles) for p in state.pile)
        if pile <= 3:
            threshold += 0.15
        if len(state.hands[top.owner]) <= 2 or state.provisional == top.owner:
            threshold += 0.25
        if len(state.hands[self.seat]) <= 3:
            threshold -= 0.1  # taking a pile now would cost a likely win
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
        if mine:
            return self._play(mine[:MAX_SET], rank)
        return self._bluff_or_pass(state, groups, rank)

    @staticmethod
    def _play(cards: list[int], rank: Rank) -> Action:
        return {"type": "play", "cards": list(cards), "rank": rank.symbol}

    def _junk(self, groups: dict[Rank, list[int]]) -> int | None:
        """The card it misses least: one from its smallest group."""
        if not groups:
            return None
        return min(groups.values(), key=lambda hs: (len(hs), hs[0]))[0]

    def _bluff_or_pass(self, state: BSState, groups: dict[Rank, list[int]], rank: Rank) -> Action:
        pile = sum(len(p.handles) for p in state.pile)
        junk = self._junk(groups)
        hand_size = len(state.hands[self.seat])
        if junk is not None and hand_size > 1 and pile <= 5 and self.rng.random() < 0.5:
            return self._play([junk], rank)
        return {"type": "pass"}

    def _lead(self, state: BSState, groups: dict[Rank, list[int]], jokers: list[int]) -> Action:
        hand = state.hands[self.seat]
        if len(groups) <= 1 and len(hand) <= MAX_SET:
            rank = next(iter(groups), Rank.ACE)
            return self._play(hand, rank)  # go out
        if state.quads:
            for handles in groups.values():
                if len(handles) == 4:
                    return {"type": "quads", "cards": list(handles)}
        # Keep the group that best finishes the hand (the largest, with the jokers) for last,
        # and lead the next largest truthfully; lead everything of it so it is gone.
        order = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0].value))
        keep_rank = order[0][0]
        rest = [item for item in order if item[0] != keep_rank]
        rank, handles = rest[0] if rest else order[0]
        cards = list(handles[:MAX_SET])
        pile = sum(len(p.handles) for p in state.pile)
        junk = next((hs[0] for r, hs in reversed(rest) if r != rank and len(hs) == 1), None)
        if junk is not None and len(cards) < MAX_SET and pile <= 4 and len(hand) > 6 and self.rng.random() < 0.4:
            cards.append(junk)  # a small bluff on a cheap pile
        return self._play(cards, rank)

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

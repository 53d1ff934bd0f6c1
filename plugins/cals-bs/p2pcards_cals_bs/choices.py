"""``legal_actions`` for Cal's BS: a representative list, not every subset of the hand.

Any 1-6 cards of a hand may be placed, so the full space is combinatorial. The list always
contains every *kind* of action that is legal now:

* PASS and DOUBT when allowed;
* truthful plays: for the relevant rank (every rank when leading) the first 1..6 naturals held,
  and those naturals topped up with each possible number of jokers;
* bluffs: one card of each other rank group played under the claim, and the whole truthful
  group plus one off-rank card;
* a jokers-only set when only jokers are held (declared "A" when leading);
* quads (option on): every natural four of a kind held;
* after quads: for every allowed N, each rank group (up to 6 cards) and the jokers, as "+N".

Every listed action passes ``check_own``, so an untruthful going-out play never appears. The
full test of any other combination is ``check_own``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p2pcards.cards import Card, Rank
from p2pcards.game import Action, IllegalAction, Turn

MAX_SET = 6


def rank_groups(hand: list[int], known: Mapping[int, Card]) -> tuple[dict[Rank, list[int]], list[int]]:
    """Natural cards by rank (in hand order) and the jokers."""
    groups: dict[Rank, list[int]] = {}
    jokers: list[int] = []
    for handle in hand:
        card = known.get(handle)
        if card is None:
            continue
        if card.is_joker:
            jokers.append(handle)
        else:
            groups.setdefault(card.rank, []).append(handle)
    return groups, jokers


def _truthful_sets(naturals: list[int], jokers: list[int]) -> list[list[int]]:
    sets = [naturals[:k] for k in range(1, min(len(naturals), MAX_SET) + 1)]
    base = naturals[:MAX_SET]
    for j in range(1, len(jokers) + 1):
        if len(base) + j <= MAX_SET:
            sets.append(base + jokers[:j])
    return sets


def _bluff_sets(
    claim: Rank | None, groups: dict[Rank, list[int]], jokers: list[int]
) -> list[list[int]]:
    sets = []
    for rank, handles in groups.items():
        if rank != claim:
            sets.append(handles[:1])
    own = groups.get(claim, [])[: MAX_SET - 1] if claim is not None else []
    if own:
        off = next((hs[0] for r, hs in groups.items() if r != claim), None)
        if off is not None:
            sets.append(own + [off])
    return sets


def representative_actions(game: Any, state: Any, seat: int, known: Mapping[int, Card]) -> list[Action]:
    if game.next_step(state) != Turn(seat):
        return []
    groups, jokers = rank_groups(state.hands[seat], known)
    candidates: list[Action] = []
    if state.must_lead:
        for rank, handles in groups.items():
            for cards in _truthful_sets(handles, jokers):
                candidates.append({"type": "play", "cards": cards, "rank": rank.symbol})
        for rank in Rank:
            if rank not in groups and groups:
                smallest = min(groups.values(), key=len)
                candidates.append({"type": "play", "cards": smallest[:1], "rank": rank.symbol})
        if jokers and not groups:
            candidates.append({"type": "play", "cards": jokers[:MAX_SET], "rank": Rank.ACE.symbol})
        if state.quads:
            for handles in groups.values():
                if len(handles) == 4:
                    candidates.append({"type": "quads", "cards": list(handles)})
    else:
        candidates.append({"type": "pass"})
        top = state.top
        if top.owner != seat and not top.quads:
            candidates.append({"type": "doubt"})
        if state.in_quads_context:
            ns = [state.plus] if state.plus is not None else range(1, 13)
            sets = [handles[:MAX_SET] for handles in groups.values()]
            if jokers:
                sets.append(jokers)
            for n in ns:
                for cards in sets:
                    candidates.append({"type": "play", "cards": cards, "plus": n})
        else:
            rank = state.current_rank
            sets = _truthful_sets(groups.get(rank, []), jokers) + _bluff_sets(rank, groups, jokers)
            if jokers and rank not in groups:
                sets.append(jokers[:1])
            for cards in sets:
                candidates.append({"type": "play", "cards": cards, "rank": rank.symbol})

    legal, seen = [], set()
    for action in candidates:
        key = (action["type"], tuple(action.get("cards", ())), action.get("rank"), action.get("plus"))
        if key in seen:
            continue
        seen.add(key)
        try:
            game.check_own(state, seat, action, known)
        except IllegalAction:
            continue
        legal.append(action)
    return legal

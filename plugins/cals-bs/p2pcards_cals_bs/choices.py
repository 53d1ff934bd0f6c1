"""``legal_actions`` for Cal's BS: a representative list, not every subset of the hand.

Any 1-6 cards of a hand may be placed, so the full space is combinatorial. The list always
contains every *kind* of action that is legal now:

* PASS and DOUBT when allowed;
* truthful plays: for the relevant rank (every rank when leading) the first 1..6 naturals held,
  and those naturals topped up with each possible number of jokers;
* bluffs: one card of each other rank group played under the claim, and the whole truthful
  group plus one off-rank card;
* a jokers-only set when only jokers are held (declared "A" when leading; when following,
  the jokers are among the truthful sets);
* quads (option on): every natural four of a kind held;
* after quads: the first reply offers every N from 1 to 12 (each with one rank group, up to 6
  cards, or the jokers, in turn); once N is fixed, each rank group and the jokers as "+N".

Every listed action passes ``check_own``, so an untruthful going-out play never appears. The
full test of any other combination is ``check_own``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p2pcards.cards import Card, Rank
from p2pcards.game import Action

MAX_SET = 6


def rank_groups(hand: list[int], known: Mapping[int, Card]) -> tuple[dict[Rank, list[int]], list[int]]:
    """Natural cards by rank (in hand order) and the jokers."""
    groups: dict[Rank, list[int]] = {}
    jokers: list[int] = []
    for handle in hand:
        card = known.get(handle)
        if card is None:
            continue
        rank = card.rank
        if rank is None:
            jokers.append(handle)
        elif rank in groups:
            groups[rank].append(handle)
        else:
            groups[rank] = [handle]
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
    if state.phase != "play" or state.pending or state.turn != seat:
        return []
    hand = state.hands[seat]
    groups, jokers = rank_groups(hand, known)
    actions: list[Action] = []
    if state.must_lead:
        for rank, handles in groups.items():
            for cards in _truthful_sets(handles, jokers):
                actions.append({"type": "play", "cards": cards, "rank": SYMBOL[rank]})
        if groups:
            smallest = min(groups.values(), key=len)
            single = smallest[:1]
            for rank in ALL_RANKS:
                if rank not in groups:
                    actions.append({"type": "play", "cards": single, "rank": SYMBOL[rank]})
        elif jokers:
            actions.append({"type": "play", "cards": jokers[:MAX_SET], "rank": Rank.ACE.symbol})
        if state.quads:
            for handles in groups.values():
                if len(handles) == 4:
                    actions.append({"type": "quads", "cards": list(handles)})
    else:
        actions.append({"type": "pass"})
        top = state.top
        if top.owner != seat and not top.quads:
            actions.append({"type": "doubt"})
        if state.in_quads_context:
            sets = [handles[:MAX_SET] for handles in groups.values()]
            if jokers:
                sets.append(jokers)
            if state.plus is not None:
                actions += [{"type": "play", "cards": cards, "plus": state.plus} for cards in sets]
            elif sets:
                # The first reply: every N once, each with a different group in turn.
                actions += [
                    {"type": "play", "cards": sets[n % len(sets)], "plus": n} for n in range(1, 13)
                ]
        else:
            symbol = state.current_rank.symbol
            sets = _truthful_sets(groups.get(state.current_rank, []), jokers)
            sets += _bluff_sets(state.current_rank, groups, jokers)
            actions += [{"type": "play", "cards": cards, "rank": symbol} for cards in sets]

    # Candidates are legal by construction (cards from the hand, 1-6 of them, the right kind of
    # claim); only a going-out play still has to be truthful. The tests check every listed
    # action against check_own; doing that here would triple the cost of a simulation.
    if len(hand) <= MAX_SET and game.must_be_truthful(state):
        size = len(hand)
        actions = [a for a in actions if not _untruthful_exit(a, size, known)]
    return actions


def _untruthful_exit(action: Action, hand_size: int, known: Mapping[int, Card]) -> bool:
    cards = action.get("cards")
    if not cards or len(cards) != hand_size or "rank" not in action:
        return False
    rank = RANK_BY_SYMBOL[action["rank"]]
    return not all(known[h].is_joker or known[h].rank == rank for h in cards)


ALL_RANKS = tuple(Rank)
SYMBOL = {rank: rank.symbol for rank in Rank}
RANK_BY_SYMBOL = {rank.symbol: rank for rank in Rank}

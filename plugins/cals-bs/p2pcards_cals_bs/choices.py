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
    get = known.get
    for handle in hand:
        card = get(handle)
        if card is None:
            continue
        rank = card.rank
        if rank is None:
            jokers.append(handle)
        else:
            group = groups.get(rank)
            if group is None:
                groups[rank] = [handle]
            else:
                group.append(handle)
    return groups, jokers


def _truthful_sets(naturals: list[int], jokers: list[int]) -> list[list[int]]:
    sets = [naturals[:k] for k in range(1, min(len(naturals), MAX_SET) + 1)]
    if jokers:
        base = naturals[:MAX_SET]
        room = MAX_SET - len(base)
        sets += [base + jokers[:j] for j in range(1, min(len(jokers), room) + 1)]
    return sets


def _bluff_sets(claim: Rank | None, groups: dict[Rank, list[int]], jokers: list[int]) -> list[list[int]]:
    sets = [handles[:1] for rank, handles in groups.items() if rank != claim]
    own = groups.get(claim) if claim is not None else None
    if own and sets:  # the first other group's first card is the off-rank card
        sets.append(own[: MAX_SET - 1] + sets[0])
    return sets


def representative_actions(game: Any, state: Any, seat: int, known: Mapping[int, Card]) -> list[Action]:
    if state.phase != "play" or state.pending:
        return []
    if state.free and not state.must_lead:
        if seat == state.top.owner or seat in state.passed:
            return []  # free order (rule 29): not in this round
    elif state.turn != seat:
        return []
    hand = state.hands[seat]
    groups, jokers = rank_groups(hand, known)
    actions: list[Action]
    if state.must_lead:
        actions = [
            {"type": "play", "cards": cards, "rank": SYMBOL[rank]}
            for rank, handles in groups.items()
            for cards in _truthful_sets(handles, jokers)
        ]
        if groups:
            single = min(groups.values(), key=len)[:1]
            actions += [
                {"type": "play", "cards": single, "rank": SYMBOL[rank]} for rank in ALL_RANKS if rank not in groups
            ]
        elif jokers:
            actions.append({"type": "play", "cards": jokers[:MAX_SET], "rank": Rank.ACE.symbol})
        if state.quads:
            actions += [{"type": "quads", "cards": list(hs)} for hs in groups.values() if len(hs) == 4]
    else:
        top = state.top
        if top.owner != seat and not top.quads:
            actions = [{"type": "pass"}, {"type": "doubt"}]
        else:
            actions = [{"type": "pass"}]
        if state.in_quads_context:
            sets = [handles[:MAX_SET] for handles in groups.values()]
            if jokers:
                sets.append(jokers)
            plus = state.plus
            if plus is not None:
                actions += [{"type": "play", "cards": cards, "plus": plus} for cards in sets]
            elif sets:
                # The first reply: every N once, each with a different group in turn.
                count = len(sets)
                actions += [{"type": "play", "cards": sets[n % count], "plus": n} for n in range(1, 13)]
        else:
            claim = state.current_rank
            symbol = SYMBOL[claim]
            own = groups.get(claim)
            sets = _truthful_sets(own, jokers) if own else _truthful_sets([], jokers)
            sets += _bluff_sets(claim, groups, jokers)
            actions += [{"type": "play", "cards": cards, "rank": symbol} for cards in sets]

    # Candidates are legal by construction (cards from the hand, 1-6 of them, the right kind of
    # claim); only a going-out play still has to be truthful. The tests check every listed
    # action against check_own; doing that here would triple the cost of a simulation.
    size = len(hand)
    if size <= MAX_SET and game.must_be_truthful(state):
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

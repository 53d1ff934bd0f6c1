"""Hold'em bots: ``strategic`` (hand strength and pot odds) and ``calling`` (the script it is
measured against: it checks or calls whatever the bet, and never raises).

The strategic bot estimates its chance to win at a showdown (its *equity*) by dealing the
unseen cards at random ``SAMPLES`` times: the opponents still in the hand get two each, the
board is completed, and the hands are ranked. It then

* bets or raises (about two thirds of the pot) with equity above ``VALUE``, and goes all in
  with more than ``SHOVE`` when a raise would commit most of its chips anyway;
* calls when its equity beats the pot odds (the share of the pot after calling that the call
  costs) by a margin, or checks when it may;
* otherwise folds, except that now and then (``BLUFF``) it bets when nobody has.

It ranks the sampled hands with a small evaluator of its own (:func:`rank7`), because pokerkit's
``from_game`` takes about 0.4 ms a hand and a decision ranks thousands: the rules themselves
rank every showdown with pokerkit, and the tests check that :func:`rank7` orders hands exactly
as pokerkit does. It only ever uses cards its seat has seen.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from p2pcards.cards import Card, build_deck
from p2pcards.game import Action, Bot

from .state import HoldemState

SAMPLES = 160
VALUE = 0.62
SHOVE = 0.78
MARGIN = 0.04
BLUFF = 0.06
MAX_OPPONENTS = 4  # equity against more is estimated as against this many


def rank7(cards: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    """The strength of the best five of ``cards`` ((rank 2-14, suit 0-3) pairs) as a tuple that
    orders hands as poker does: category first (8 straight flush ... 0 high card), then ranks."""
    ranks = sorted((r for r, _ in cards), reverse=True)
    suits = Counter(s for _, s in cards)
    flush_suit = next((s for s, n in suits.items() if n >= 5), None)
    if flush_suit is not None:
        flush = sorted((r for r, s in cards if s == flush_suit), reverse=True)
        high = _straight_high(flush)
        if high:
            return (8, high)
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    if groups[0][1] == 4:
        quad = groups[0][0]
        return (7, quad, max(r for r in ranks if r != quad))
    if groups[0][1] == 3 and len(groups) > 1 and groups[1][1] >= 2:
        return (6, groups[0][0], groups[1][0])
    if flush_suit is not None:
        return (5, *flush[:5])
    high = _straight_high(ranks)
    if high:
        return (4, high)
    if groups[0][1] == 3:
        trip = groups[0][0]
        return (3, trip, *[r for r in ranks if r != trip][:2])
    if groups[0][1] == 2 and len(groups) > 1 and groups[1][1] == 2:
        top, low = groups[0][0], groups[1][0]
        return (2, top, low, max(r for r in ranks if r not in (top, low)))
    if groups[0][1] == 2:
        pair = groups[0][0]
        return (1, pair, *[r for r in ranks if r != pair][:3])
    return (0, *ranks[:5])


def _straight_high(ranks: Sequence[int]) -> int:
    distinct = set(ranks)
    if 14 in distinct:
        distinct.add(1)  # the wheel: A-2-3-4-5
    for high in range(14, 4, -1):
        if all(high - i in distinct for i in range(5)):
            return high
    return 0


def _pair(card: Card) -> tuple[int, int]:
    assert card.rank is not None and card.suit is not None
    return int(card.rank), "cdhs".index(card.suit.value)


def equity(hole: Sequence[Card], board: Sequence[Card], opponents: int, samples: int, rng: Any) -> float:
    """The chance ``hole`` wins at a showdown against ``opponents`` random hands (a tie counts
    as a share), with the board completed at random."""
    seen = {(c.rank, c.suit) for c in (*hole, *board)}
    rest = [_pair(c) for c in build_deck() if (c.rank, c.suit) not in seen]
    mine = [_pair(c) for c in hole]
    known_board = [_pair(c) for c in board]
    need = 5 - len(known_board)
    opponents = max(1, min(opponents, MAX_OPPONENTS))
    won = 0.0
    for _ in range(samples):
        drawn = rng.sample(rest, need + 2 * opponents)
        full = known_board + drawn[:need]
        me = rank7(mine + full)
        best, ties = True, 0
        for i in range(opponents):
            other = rank7(drawn[need + 2 * i : need + 2 * i + 2] + full)
            if other > me:
                best = False
                break
            ties += other == me
        if best:
            won += 1 / (ties + 1)
    return won / samples


class StrategicBot(Bot):
    name = "strategic"

    def choose(self, state: HoldemState, known: Mapping[int, Card]) -> Action:
        seat = self.seat
        legal = self.game.legal_actions(state, seat, known)
        kinds = {a["type"]: a for a in legal}
        if state.phase == "showdown":
            return self._showdown(state, known, kinds)
        hole = [known[h] for h in state.hole[seat]]
        board = [state.faces[h] for h in state.board]
        opponents = len(state.live()) - 1
        win = equity(hole, board, opponents, SAMPLES, self.rng)
        owe = state.current - state.bets[seat]
        pot = state.pot_total()
        odds = owe / (pot + owe) if owe > 0 else 0.0
        everything = state.bets[seat] + state.stacks[seat]
        sizes = sorted(a["to"] for a in legal if a["type"] in ("bet", "raise"))
        if win >= VALUE and (sizes or "all-in" in kinds):
            target = state.current + owe + (2 * (pot + owe)) // 3
            fitting = [to for to in sizes if to >= target] or sizes[-1:]
            if (not fitting or fitting[0] * 2 >= everything) and win >= SHOVE and "all-in" in kinds:
                return kinds["all-in"]
            if fitting:
                return {"type": "bet" if state.current == 0 else "raise", "to": max(fitting[0], sizes[0])}
        if owe <= 0:
            if sizes and win < 0.3 and self.rng.random() < BLUFF:
                return {"type": "bet" if state.current == 0 else "raise", "to": sizes[0]}
            return kinds["check"]
        if win >= odds + MARGIN:
            return kinds.get("call") or kinds["all-in"]
        return kinds["fold"]

    def _showdown(self, state: HoldemState, known: Mapping[int, Card], kinds: Mapping[str, Action]) -> Action:
        """Show a hand that may win something; muck one beaten by a hand already shown in
        every pot it is in."""
        from .hands import best_hand

        mine = best_hand([known[h] for h in state.hole[self.seat]], [state.faces[h] for h in state.board])
        for pot in state.pots:
            if self.seat not in pot.eligible:
                continue
            shown = [s for s in pot.eligible if s in state.shown]
            others = [best_hand([state.faces[h] for h in state.hole[s]], [state.faces[h] for h in state.board])
                      for s in shown]  # fmt: skip
            if not others or not any(o > mine for o in others):
                return kinds["show"]
        return kinds["muck"]


class CallingBot(Bot):
    """The script: checks when it may, else calls (all in if calling takes every chip); at a
    showdown it always shows."""

    name = "calling"

    def choose(self, state: HoldemState, known: Mapping[int, Card]) -> Action:
        kinds = {a["type"]: a for a in self.game.legal_actions(state, self.seat, known)}
        for kind in ("show", "check", "call", "all-in"):
            if kind in kinds:
                return kinds[kind]
        return kinds["fold"]

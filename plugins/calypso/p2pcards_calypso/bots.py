"""Calypso bots. The core's random bot plays any game through ``legal_actions``; the strategic
bot here plays one card ahead with a simple model of who will take the trick.

For every card it may play it estimates, from the cards it cannot see, how likely each later
player is to beat the card currently winning, and scores each possible taker by what the
trick's cards would be worth to its own side minus the others' (rules 24-28). So it

* keeps what it needs: a card of its own (or its partner's) suit that its calypso still lacks
  is worth keeping unless the trick is likely its side's;
* feeds opponents duplicates: when an opponent will take the trick, it gives a card the
  opponent cannot use (10 points in their pile) rather than one for their calypso;
* knows which cards are dead: copies already in trick piles can never come back, so a calypso
  whose missing rank has no live copy left gets no credit for progress, and the odds of being
  beaten count only the copies still unseen.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p2pcards.cards import Card, Rank, Suit
from p2pcards.game import Action, Bot

from .tricks import (
    ANY_RUFF_BEATS_TRUMP_LEAD,
    THREE,
    Tableau,
    allocate_trick,
    is_ruff,
    player_points,
    rank_of,
    suit_of,
    trick_winner,
)

#: Extra worth of a card in a calypso that can still be completed (the 500+ waits at 13).
PROGRESS_BONUS = 15
#: What holding a card of one's own suit is worth for later: a sure lead or ruff.
KEEP_OWN_NEEDED = 25
KEEP_OWN_SPARE = 8
KEEP_PARTNER_NEEDED = 10


class StrategicBot(Bot):
    name = "strategic"

    def choose(self, state: Any, known: Mapping[int, Card]) -> Action:
        actions = self.game.legal_actions(state, self.seat, known)
        if not actions:
            raise RuntimeError(f"calypso: no legal action for seat {self.seat}")
        if actions[0]["type"] != "play" or len(actions) == 1:
            return self.rng.choice(actions)
        # It follows suit, so it never has a revoke to correct; plays are all it weighs.
        actions = [a for a in actions if a["type"] == "play"]
        model = _TableModel(state, self.seat, known)
        scored = [(model.expected_value(known[a["card"]], a["card"]), i) for i, a in enumerate(actions)]
        best = max(value for value, _ in scored)
        # Break exact ties at random so the bot is not predictable.
        return actions[self.rng.choice([i for value, i in scored if value == best])]


class _TableModel:
    """What one seat can infer at one moment: unseen cards, live ranks, the trick so far."""

    def __init__(self, state: Any, seat: int, known: Mapping[int, Card]):
        self.state = state
        self.seat = seat
        packs = 3 if state.mode == THREE else 4
        self.unseen: dict[tuple[Suit, Rank], int] = {(s, r): packs for s in state.suits_in_play() for r in Rank}
        dead: dict[tuple[Suit, Rank], int] = {}
        in_piles = {h for t in state.tableaux.values() for h in t.pile}
        for handle, card in state.faces.items():
            if (card.suit, card.rank) not in self.unseen:
                continue  # a card of the removed suit, set aside (removed_suit=random)
            self.unseen[(suit_of(card), rank_of(card))] -= 1
            if handle in in_piles:
                dead[(card.suit, card.rank)] = dead.get((card.suit, card.rank), 0) + 1
        for handle in state.hands[seat]:
            card = known[handle]
            self.unseen[(suit_of(card), rank_of(card))] -= 1
        self.unseen_total = max(1, sum(self.unseen.values()))
        # A calypso is still completable while every missing rank has a copy out of the piles.
        self.completable = {}
        for player, tableau in state.tableaux.items():
            suit = state.trump[player]
            self.completable[player] = all(dead.get((suit, r), 0) < packs for r in Rank if r not in tableau.current)
        self.trick = [(s, h, state.faces[h]) for s, h in state.trick]
        position = state.position(seat)
        self.later = [state.order[(position + k) % state.players] for k in range(1, state.players - len(state.trick))]

    # -- worth of outcomes ----------------------------------------------------------------

    def _worth(self, player: int, tableau: Tableau) -> float:
        bonus = PROGRESS_BONUS if self.completable[player] else 0
        return player_points(tableau) + bonus * len(tableau.current)

    def _utility(self, taker: int, cards: list[tuple[int, int, Card]]) -> float:
        """My side's gain minus the average other player's (or the other side's) gain."""
        state = self.state
        before = {p: state.tableaux[p] for p in range(state.players)}
        after = {p: Tableau(dict(t.current), [[]] * len(t.completed), [0] * len(t.pile)) for p, t in before.items()}
        allocate_trick(cards, taker, state.trump, state.partner, after)
        gain = {
            p: self._worth(p, after[p]) - self._worth(p, before[p])
            for p in (taker, state.partner(taker))
            if p is not None
        }
        mine = state.side(self.seat)
        ours = sum(g for p, g in gain.items() if p in mine)
        theirs = sum(g for p, g in gain.items() if p not in mine)
        others = state.players - len(mine)
        return ours - (theirs if state.partner(self.seat) is not None else theirs / others * 1.5)

    def _keep_value(self, card: Card) -> float:
        state = self.state
        if card.suit == state.trump[self.seat]:
            needed = card.rank not in state.tableaux[self.seat].current
            return KEEP_OWN_NEEDED if needed else KEEP_OWN_SPARE
        partner = state.partner(self.seat)
        if partner is not None and card.suit == state.trump[partner]:
            if card.rank not in state.tableaux[partner].current:
                return KEEP_PARTNER_NEEDED
        return rank_of(card) / 14  # a high card is a little more useful later

    # -- who takes the trick --------------------------------------------------------------

    def _chance_to_hold(self, count: int, size: int) -> float:
        """Chance that a hand of ``size`` unseen cards holds at least one of ``count``."""
        if count <= 0 or size <= 0:
            return 0.0
        miss = 1.0 - min(1.0, count / self.unseen_total)
        return 1.0 - miss**size

    def _beat_chance(self, player: int, plays: list[tuple[int, Card]]) -> float:
        """Rough chance that ``player``, playing next, beats the current best of ``plays``."""
        state = self.state
        led = suit_of(plays[0][1])
        best = trick_winner(plays, state.trump, state.trump_lead_rule)
        best_seat, best_card = plays[best]
        size = len(state.hands[player])
        own = state.trump[player]
        led_left = sum(self.unseen[(led, r)] for r in Rank if (led, r) in self.unseen)
        void = 1.0 - self._chance_to_hold(led_left, size)
        winning_is_trump = (best == 0 and best_card.suit == state.trump[best_seat]) or (
            best > 0 and is_ruff(best_card, state.trump[best_seat], led)
        )
        if winning_is_trump:
            if state.trump_lead_rule == ANY_RUFF_BEATS_TRUMP_LEAD and best == 0:
                higher = sum(self.unseen.get((own, r), 0) for r in Rank)
            else:
                higher = sum(self.unseen.get((own, r), 0) for r in Rank if r > rank_of(best_card))
            return void * self._chance_to_hold(higher, size) if own != led else 0.0
        follow_higher = sum(self.unseen[(led, r)] for r in Rank if r > rank_of(best_card))
        ruff = 0.0 if own == led else void * self._chance_to_hold(sum(self.unseen.get((own, r), 0) for r in Rank), size)
        return min(1.0, self._chance_to_hold(follow_higher, size) + ruff)

    def expected_value(self, card: Card, handle: int) -> float:
        state = self.state
        cards = self.trick + [(self.seat, handle, card)]
        plays = [(s, c) for s, _, c in cards]
        taker = plays[trick_winner(plays, state.trump, state.trump_lead_rule)][0]
        hold = 1.0
        value = 0.0
        for player in self.later:
            beat = hold * self._beat_chance(player, plays)
            value += beat * self._utility(player, cards)
            hold -= beat
        value += hold * self._utility(taker, cards)
        return value - self._keep_value(card)


class SimpleBot(Bot):
    """The naive script a strategic bot must beat: it plays its highest legal card (by rank,
    a card of its own trump suit first among equals), whether leading, following or ruffing."""

    name = "simple"

    def choose(self, state: Any, known: Mapping[int, Card]) -> Action:
        actions = self.game.legal_actions(state, self.seat, known)
        if not actions:
            raise RuntimeError(f"calypso: no legal action for seat {self.seat}")
        plays = [a for a in actions if a["type"] == "play"]
        if not plays:
            return actions[0]
        own = state.trump[self.seat]
        return max(plays, key=lambda a: (rank_of(known[a["card"]]), known[a["card"]].suit == own))

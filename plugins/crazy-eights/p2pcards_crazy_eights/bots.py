"""A simple Crazy Eights bot that beats random play.

It plays whenever it can and draws only when it must. Of the cards it may play it prefers one
that leaves it holding many cards of the suit to follow next, and among those the one worth the
most penalty points. It keeps its eights until nothing else fits, then names its longest suit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from p2pcards.cards import Card, Rank
from p2pcards.game import Action, Bot

from .rules import EightsState, can_play, penalty


class StrategicBot(Bot):
    name = "strategic"

    def choose(self, state: EightsState, known: Mapping[int, Card]) -> Action:
        hand = state.hands[self.seat]
        playable = [h for h in hand if can_play(known[h], state.top, state.suit)]
        plain = [h for h in playable if known[h].rank != Rank.EIGHT]
        suits = Counter(known[h].suit for h in hand if known[h].rank != Rank.EIGHT)
        if plain:
            best = max(plain, key=lambda h: (suits[known[h].suit] - 1, penalty(known[h])))
            return {"type": "play", "card": best}
        eights = [h for h in playable if known[h].rank == Rank.EIGHT]
        if eights:
            eight = eights[0]
            longest = max(suits, key=lambda s: (suits[s], s.value)) if suits else known[eight].suit
            return {"type": "play", "card": eight, "suit": longest.value}
        if state.stock and not state.drew:
            return {"type": "draw"}
        return {"type": "pass"}


class SimpleBot(Bot):
    """The naive script a strategic bot must beat: it plays the first card of its hand that
    fits (an eight too, naming the suit of its first other card), draws when none fits, and
    passes when it may not draw."""

    name = "simple"

    def choose(self, state: EightsState, known: Mapping[int, Card]) -> Action:
        hand = state.hands[self.seat]
        for h in hand:
            card = known[h]
            if can_play(card, state.top, state.suit):
                if card.rank != Rank.EIGHT:
                    return {"type": "play", "card": h}
                other = next((known[o].suit for o in hand if o != h), card.suit)
                return {"type": "play", "card": h, "suit": other.value}
        if state.stock and not state.drew:
            return {"type": "draw"}
        return {"type": "pass"}

"""Crazy Eights bots: the strategic bot, and the simple script it is measured against.

The strategic bot plays whenever it can and draws only when it must. It weighs each card it may
play (and, for an eight, each suit it may name) by

* what it leaves itself: cards of the suit to follow next and of the same rank (to switch
  suits later), so that it can play again next turn;
* what it leaves the next player: the chance that they can play on it, from the cards it has
  not seen (their hand is drawn from those) and from what their draws gave away (a player who
  drew had nothing of the suit to follow, the top card's rank, or an eight, at least until the
  cards they drew since); the closer they are to going out, the more this counts;
* the eights: one is worth keeping, as the card that always fits, until it goes out with it
  or nothing else fits; and, all else equal, it sheds the cards worth the most penalty points.

The best few candidates by that measure are then played out to the end of the hand
``ROLLOUTS`` times, each time on a guess of the hidden cards dealt from the cards it has not
seen (keeping out of a hand the suits that hand's draws showed it lacked), every seat playing a
fast greedy policy; it plays the candidate that won most often. The guesses come from the bot's
own ``rng``, so a seeded game replays exactly. It never looks at a card its seat has not seen.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from math import comb
from typing import Any

from p2pcards.cards import Card, Rank, Suit, build_deck
from p2pcards.game import Action, Bot

from .rules import EightsState, can_play, penalty

#: What keeping an eight is worth, in the units of one card of the suit to follow.
EIGHT_KEPT = 2.5
#: How much a drawn card weakens the evidence of a void: the chance it is not of that suit.
VOID_DECAY = 0.75
#: How much the next player's chance to play on the card counts (more as they near going out).
NEXT_WEIGHT = 1.5
#: Look-ahead: how many guessed deals it plays out, for how many of the best candidates.
ROLLOUTS = 80
LOOK_AT = 6


def none_in(pool: int, good: int, draws: int) -> float:
    """Chance that ``draws`` cards from ``pool`` (``good`` of them good) hold no good card."""
    if draws <= 0:
        return 1.0
    if draws > pool - good:
        return 0.0
    return comb(pool - good, draws) / comb(pool, draws)


class StrategicBot(Bot):
    name = "strategic"

    def __init__(self, game, seat, options, rng):
        super().__init__(game, seat, options, rng)
        # Per seat: suit -> how many cards that seat has drawn since it showed it had none.
        self.voids: list[dict[Suit, int]] = [{} for _ in range(game.max_players)]

    def observe(self, state: Any, event: Mapping[str, Any], known: Mapping[int, Card]) -> None:
        if event.get("kind") != "action" or event["seat"] == self.seat:
            return
        seat, action = event["seat"], event["action"]
        voids = self.voids[seat]
        if action.get("type") == "draw":
            for suit in voids:
                voids[suit] += 1
            if state.suit is not None:
                voids[state.suit] = 0  # nothing of it before this card
        elif action.get("type") == "play":
            card = known.get(action.get("card"))
            if card is not None:
                voids.pop(card.suit, None)

    def choose(self, state: EightsState, known: Mapping[int, Card]) -> Action:
        hand = state.hands[self.seat]
        playable = [h for h in hand if can_play(known[h], state.top, state.suit)]
        if not playable:
            if state.stock and not state.drew:
                return {"type": "draw"}
            return {"type": "pass"}
        unseen = self._unseen(state, known)
        scored: list[tuple[float, int, Action]] = []
        for order, h in enumerate(playable):
            card = known[h]
            options = []
            for suit in list(Suit) if card.rank == Rank.EIGHT else [card.suit]:
                action: Action = {"type": "play", "card": h}
                if card.rank == Rank.EIGHT:
                    action["suit"] = suit.value
                options.append((self._value(state, known, hand, h, card, suit, unseen), order, action))
            options.sort(key=lambda item: -item[0])
            scored += options[:2]  # for an eight, the two best suits to name
        scored.sort(key=lambda item: (-item[0], item[1]))
        if len(scored) > 1 and ROLLOUTS:
            return self._look_ahead(state, known, scored[:LOOK_AT], unseen)
        return scored[0][2]

    def _look_ahead(self, state: EightsState, known, scored, unseen: Counter) -> Action:
        """Play the hand out ``ROLLOUTS`` times on guessed hidden cards for each candidate (the
        same guesses for all), and take the one that wins most; the heuristic breaks ties."""
        suits = list(Suit)
        pool = [
            (suits.index(c.suit), int(c.rank))
            for c, n in sorted(unseen.items(), key=lambda i: i[0].sort_key())
            for _ in range(n)
        ]
        mine = [(suits.index(known[h].suit), int(known[h].rank)) for h in state.hands[self.seat]]
        players = state.players
        wins = [0] * len(scored)
        for _ in range(ROLLOUTS):
            hands, stock = self._guess(state, pool, suits)
            for i, (_, _, action) in enumerate(scored):
                card = known[action["card"]]
                played = (suits.index(card.suit), int(card.rank))
                hand = list(mine)
                hand.remove(played)
                if not hand:
                    wins[i] += 1
                    continue
                table = [list(hs) for hs in hands]
                table[self.seat] = hand
                suit = suits.index(Suit(action["suit"])) if "suit" in action else played[0]
                nxt = _next_playing(state, self.seat)
                winner = rollout(table, list(stock), played[1], suit, nxt, state.draw_until_playable, out=state.out)
                wins[i] += winner == self.seat
        best = max(range(len(scored)), key=lambda i: (wins[i] + 0.01 * scored[i][0], -i))
        return scored[best][2]

    def _guess(self, state: EightsState, pool: list[tuple[int, int]], suits: list[Suit]):
        """Hidden hands and stock dealt from the unseen cards, with the voids it has seen."""
        cards = list(pool)
        self.rng.shuffle(cards)
        hands: list[list[tuple[int, int]]] = [[] for _ in range(state.players)]
        for seat in range(state.players):
            if seat == self.seat or seat in state.out:
                continue
            size = len(state.hands[seat])
            void = {suits.index(s) for s, drawn in self.voids[seat].items() if drawn == 0}
            fits = [c for c in cards if c[0] not in void and c[1] != _EIGHT] if void else cards
            take = fits[:size] if len(fits) >= size else cards[:size]
            for c in take:
                cards.remove(c)
            hands[seat] = take
        return hands, cards[: len(state.stock)]  # the rest: hands set aside by seats that dropped out

    def _unseen(self, state: EightsState, known: Mapping[int, Card]) -> Counter:
        """Cards this seat has not seen: in other hands or in the stock."""
        seen = {known[h] for h in state.hands[self.seat]} | {state.faces[h] for h in state.pile}
        return Counter(c for c in build_deck() if c not in seen)

    def _value(self, state, known, hand, h, card: Card, suit: Suit, unseen: Counter) -> float:
        rest = [known[o] for o in hand if o != h]
        if not rest:
            return 1000.0  # out
        plain = [c for c in rest if c.rank != Rank.EIGHT]
        eights = len(rest) - len(plain)
        same_suit = sum(1 for c in plain if c.suit == suit)
        same_rank = sum(1 for c in plain if c.rank == card.rank and c.suit != suit)
        value = min(same_suit, 3) + 0.4 * max(same_suit - 3, 0) + 0.5 * min(same_rank, 1)
        if card.rank == Rank.EIGHT:
            value -= EIGHT_KEPT if len(rest) > 1 else 0.5
        elif eights and not same_suit and not same_rank:
            value -= 0.5  # the next turn would likely need the eight
        # The next player: how likely they can play on it.
        nxt = _next_playing(state, self.seat)
        size = len(state.hands[nxt])
        pool = sum(unseen.values())
        good = sum(n for c, n in unseen.items() if c.suit == suit or c.rank == Rank.EIGHT or c.rank == card.rank)
        can = 1.0 - none_in(pool, good, size)
        drawn = self.voids[nxt].get(suit)
        if drawn is not None:
            can *= 1.0 - 0.8 * VOID_DECAY**drawn
        weight = NEXT_WEIGHT * (1.0 + (2.0 if size <= 2 else 0.7 if size <= 4 else 0.0))
        value -= weight * can
        return value + penalty(card) / 100


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


def _next_playing(state: EightsState, seat: int) -> int:
    """The next seat that still plays (those that dropped out are skipped)."""
    nxt = (seat + 1) % state.players
    while nxt in state.out and nxt != seat:
        nxt = (nxt + 1) % state.players
    return nxt


# -- look-ahead: the rest of the hand played out on guessed cards --------------------------------

_EIGHT = 8


def _greedy(hand: list[tuple[int, int]], top_rank: int, suit: int) -> tuple[int, int] | None:
    """The rollout policy: the fitting plain card of the suit it holds most of, else an eight
    naming that suit; ``(index in hand, suit to follow)`` or None."""
    counts = [0, 0, 0, 0]
    for s, r in hand:
        if r != _EIGHT:
            counts[s] += 1
    best = -1
    best_count = -1
    eight = -1
    for i, (s, r) in enumerate(hand):
        if r == _EIGHT:
            eight = i
        elif (s == suit or r == top_rank) and counts[s] > best_count:
            best, best_count = i, counts[s]
    if best >= 0:
        return best, hand[best][0]
    if eight >= 0:
        return eight, max(range(4), key=counts.__getitem__)
    return None


def rollout(
    hands: list[list[tuple[int, int]]],
    stock: list[tuple[int, int]],
    top_rank: int,
    suit: int,
    turn: int,
    until_playable: bool,
    limit: int = 300,
    out: Sequence[int] = (),
) -> int:
    """Play the hand out with every seat on the greedy policy (seats in ``out`` dropped out
    and do not play); the seat that wins (out first, or the lowest count of cards when
    blocked)."""
    players = len(hands)
    playing = [s for s in range(players) if s not in out]
    passes = 0
    for _ in range(limit):
        while turn in out:
            turn = (turn + 1) % players
        hand = hands[turn]
        move = _greedy(hand, top_rank, suit)
        while move is None and stock:
            hand.append(stock.pop())
            move = _greedy(hand, top_rank, suit)
            if not until_playable:
                break
        if move is None:
            passes += 1
            if passes >= len(playing):
                return min(playing, key=lambda s: len(hands[s]))
        else:
            passes = 0
            index, suit = move
            top_rank = hand.pop(index)[1]
            if not hand:
                return turn
        turn = (turn + 1) % players
    return min(playing, key=lambda s: len(hands[s]))

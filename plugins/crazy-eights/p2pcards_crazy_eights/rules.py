"""Crazy Eights as a p2pcards game: the public state machine.

One hand, 2 to 5 players, one 52-card pack. Each turn a player plays one card face up that
matches the top card of the pile by suit or by rank, or plays an eight (always allowed) and names
the suit to follow. A player who cannot or will not play draws from the stock. The first player
out of cards wins; if the stock runs out and nobody can play, the lowest hand wins.

How the game uses the deck: a :class:`Coin` picks the dealer, a :class:`Shuffle` makes the stock,
one :class:`Deal` gives out the hands, a :class:`Reveal` with no owner turns the starter, each
play is a :class:`Reveal` owned by its player, each draw is a :class:`Deal` of one handle from the
stock to one seat, and at the end every hand is revealed by its holder to count penalty points.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from p2pcards.cards import SUIT_NAMES, Card, CardParseError, Rank, Suit, build_deck, parse_card, parse_suit
from p2pcards.game import (
    Action,
    Coin,
    Deal,
    Done,
    Game,
    IllegalAction,
    Option,
    OptionError,
    Result,
    Reveal,
    Shuffle,
    Step,
    Turn,
    Violation,
    agree,
)


#: Crazy Eights goes on after a seat drops out only with at least this many players left (its
#: own minimum; docs/games/crazy-eights.md, "A player drops out").
MIN_STAYING = 2


def can_play(card: Card, top: Card, suit: Suit) -> bool:
    """May ``card`` go on ``top`` when ``suit`` is the suit to follow?"""
    return card.rank == Rank.EIGHT or card.suit == suit or card.rank == top.rank


def penalty(card: Card) -> int:
    """Penalty points of a card left in hand: eight 50, pictures 10, ace 1, others face value."""
    if card.rank == Rank.EIGHT:
        return 50
    if card.rank in (Rank.JACK, Rank.QUEEN, Rank.KING):
        return 10
    if card.rank == Rank.ACE:
        return 1
    return card.rank.value


def deal_size(options: Mapping[str, Any], players: int) -> int:
    """Cards per hand: the ``hand_size`` option, or 7 for two players and 5 for more."""
    return options["hand_size"] or (7 if players == 2 else 5)


def _named_suit(value: Any) -> Suit | None:
    """The suit an action names, or None when it names none (or nonsense)."""
    if not isinstance(value, str):
        return None
    try:
        return parse_suit(value)
    except CardParseError:
        return None


def _play_problem(card: Card, top: Card, suit: Suit, named: Any) -> str | None:
    """Why playing ``card`` (naming ``named``) on ``top`` breaks the rules, or None."""
    if not can_play(card, top, suit):
        return f"{card} matches neither the suit to follow ({SUIT_NAMES[suit]}) nor the rank of {top}"
    if card.rank == Rank.EIGHT and _named_suit(named) is None:
        return f"played {card} without naming a suit"
    if card.rank != Rank.EIGHT and named is not None:
        return f"named a suit with {card}, which is not an eight"
    return None


@dataclass
class Snapshot:
    """The public facts an action was taken under, kept so the audit can re-check it."""

    top: int  # handle of the top card of the pile
    suit: Suit  # the suit to follow
    hand: tuple[int, ...]  # the actor's hand, for a pass that claims "I cannot play"
    must_be_unable: bool  # True for a pass with an empty stock before drawing


@dataclass
class EightsState:
    """Public information only: handles, counts and face-up cards."""

    players: int
    hand_size: int
    draw_until_playable: bool
    dealer: int | None = None
    stock: list[int] | None = None  # face-down handles, the next to draw first
    dealt: bool = False
    hands: list[list[int]] = field(default_factory=list)
    pile: list[int] = field(default_factory=list)  # face-up handles, the top card last
    faces: dict[int, Card] = field(default_factory=dict)  # every face-up card
    suit: Suit | None = None  # the suit to follow; None until a starter that is not an eight
    turn: int = 0
    drew: bool = False  # draw-one rule: the player to act has drawn this turn
    passes: int = 0  # passes in a row by players unable to play or draw
    playing: tuple[int, int, str | None] | None = None  # (handle, seat, named suit) to reveal
    drawing: int | None = None  # the seat waiting for a card from the stock
    ending: str | None = None  # "out" or "blocked" once the play is over
    shown: set[int] = field(default_factory=set)  # seats that have shown their hand at the end
    out: list[int] = field(default_factory=list)  # seats that dropped out (docs: "A player drops out")
    set_aside: dict[int, int] = field(default_factory=dict)  # seat -> how many cards it set aside
    history: list[Snapshot] = field(default_factory=list)  # one per action

    @property
    def top(self) -> Card | None:
        return self.faces[self.pile[-1]] if self.pile else None


class CrazyEights(Game[EightsState]):
    id = "crazy-eights"
    name = "Crazy Eights"
    # 2: a handle is an int, never a bool or a float that equals one; draw and pass take no
    # other field (issue 28).
    rules_version = "2"
    lists_every_action = True
    min_players = 2
    max_players = 5
    options = (
        Option("hand_size", int, 0, "cards dealt to each player; 0: 7 for two players, 5 for more",
               minimum=0, maximum=10, label="hand size",
               values=((0, "by table size", "7 cards for two players, 5 for more"),)),
        Option("draw_until_playable", bool, True,
               "draw as many cards as you like; off: draw one card, then play or pass",
               label="drawing",
               values=((True, "until you can play", "draw as many cards as you like"),
                       (False, "one card", "draw one card, then play or pass"))),
    )
    variants = {"draw-one": {"draw_until_playable": False}, "seven-cards": {"hand_size": 7}}
    summary = (
        "Play a card matching the top card's suit or rank; eights are wild and name the next "
        "suit. Draw from the stock when you cannot play. First out of cards wins."
    )

    def deck(self, options: Mapping[str, Any], players: int) -> Sequence[Card]:
        return build_deck()

    def validate_options(self, options: Mapping[str, Any], players: int) -> None:
        # Leave at least five cards for the starter: four eights may be turned before it.
        if deal_size(options, players) * players > 47:
            raise OptionError(f"option hand_size: too many cards for {players} players (at most 47 dealt)")

    def new_state(self, options: Mapping[str, Any], players: int) -> EightsState:
        return EightsState(
            players=players,
            hand_size=deal_size(options, players),
            draw_until_playable=options["draw_until_playable"],
            hands=[[] for _ in range(players)],
        )

    # -- the state machine --------------------------------------------------------------------

    def next_step(self, state: EightsState) -> Step:
        if state.dealer is None:
            return Coin("dealer", state.players)
        if state.stock is None:
            return Shuffle()
        if not state.dealt:
            # One card at a time from the dealer's left.
            count = state.hand_size * state.players
            first = state.dealer + 1
            return Deal({h: (first + i) % state.players for i, h in enumerate(state.stock[:count])})
        if state.drawing is not None:
            return Deal({state.stock[0]: state.drawing})
        if state.playing is not None:
            handle, seat, _ = state.playing
            return Reveal((handle,), seat)
        if state.suit is None:
            return Reveal((state.stock[0],), None)  # turn the starter (again, after an eight)
        if state.ending is not None:
            for seat in range(state.players):
                if seat not in state.shown and state.hands[seat]:
                    return Reveal(tuple(state.hands[seat]), seat)
            return Done(self._result(state))
        return Turn(state.turn)

    def on_coin(self, state: EightsState, label: str, value: int) -> None:
        state.dealer = value
        state.turn = (value + 1) % state.players

    def on_shuffled(self, state: EightsState, handles: Sequence[int]) -> None:
        state.stock = list(handles)

    def on_dealt(self, state: EightsState, deal: Deal) -> None:
        for handle, seat in deal.to.items():
            state.hands[seat].append(handle)
            state.stock.remove(handle)
        if not state.dealt:
            state.dealt = True
            return
        state.drawing = None
        state.drew = not state.draw_until_playable

    def on_reveal(self, state: EightsState, faces: Mapping[int, Card]) -> None:
        state.faces.update(faces)
        if state.ending is not None:
            state.shown.update(s for s in range(state.players) if set(state.hands[s]) <= set(faces))
        elif state.playing is not None:
            self._finish_play(state)
        else:
            starter = state.stock.pop(0)
            state.pile.append(starter)
            if state.faces[starter].rank != Rank.EIGHT:
                state.suit = state.faces[starter].suit
            # An eight as starter stays under the pile and the next card is turned.

    def _finish_play(self, state: EightsState) -> None:
        handle, seat, named = state.playing
        state.playing = None
        state.pile.append(handle)
        card = state.faces[handle]
        # A modified client may name no suit for an eight: the eight's own suit then counts,
        # and the audit names the player.
        state.suit = (_named_suit(named) or card.suit) if card.rank == Rank.EIGHT else card.suit
        if not state.hands[seat]:
            state.ending = "out"
        else:
            self._next_turn(state)

    def _next_turn(self, state: EightsState) -> None:
        state.turn = (state.turn + 1) % state.players
        while state.turn in state.out:
            state.turn = (state.turn + 1) % state.players
        state.drew = False

    # -- dropping out (issue 30) --------------------------------------------------------------

    def drop_out_refusal(self, state: EightsState, seat: int) -> str | None:
        if not 0 <= seat < state.players or seat in state.out:
            return "that seat no longer plays"
        if not state.dealt or state.suit is None or state.ending is not None:
            return "a player can drop out only while the hand is being played"
        if state.playing is not None or state.drawing is not None:
            return "not while a card is being played or drawn"
        if state.players - len(state.out) - 1 < MIN_STAYING:
            return f"Crazy Eights goes on without a player only while at least {MIN_STAYING} others still play"
        return None

    def drop_out(self, state: EightsState, seat: int) -> None:
        refusal = self.drop_out_refusal(state, seat)
        if refusal is not None:
            raise IllegalAction(refusal)
        state.out.append(seat)
        state.set_aside[seat] = len(state.hands[seat])
        state.hands[seat] = []  # set aside face down: never shown, never scored
        state.passes = 0  # the count of passes in a row starts afresh
        if state.turn == seat:
            self._next_turn(state)

    # -- turns ------------------------------------------------------------------------------

    def legal_actions(self, state: EightsState, seat: int, known: Mapping[int, Card]) -> list[Action]:
        actions: list[Action] = []
        for handle in state.hands[seat]:
            card = known[handle]
            if can_play(card, state.top, state.suit):
                if card.rank == Rank.EIGHT:
                    actions += [{"type": "play", "card": handle, "suit": s.value} for s in Suit]
                else:
                    actions.append({"type": "play", "card": handle})
        if self._may_draw(state):
            actions.append({"type": "draw"})
        elif state.drew or not actions:
            actions.append({"type": "pass"})
        return actions

    def _may_draw(self, state: EightsState) -> bool:
        return bool(state.stock) and not state.drew

    def check(self, state: EightsState, seat: int, action: Action) -> None:
        kind = action.get("type")
        if kind == "play":
            if set(action) - {"type", "card", "suit"}:
                raise IllegalAction("a play names a card and, for an eight, a suit")
            # A handle is an int and nothing that equals one: True is 1 to Python (and to a
            # list's ``in``), 1.0 too (rules version 2; version 1 took them for handle 1).
            card = action.get("card")
            if type(card) is not int or card not in state.hands[seat]:
                raise IllegalAction("play one of your own cards")
            if "suit" in action and _named_suit(action["suit"]) is None:
                raise IllegalAction("name a suit: clubs, diamonds, hearts or spades")
        elif kind in ("draw", "pass") and set(action) != {"type"}:
            raise IllegalAction(f"{kind} takes nothing else")  # (rules version 2)
        elif kind == "draw":
            if not state.stock:
                raise IllegalAction("the stock is empty: play a card, or pass if you cannot")
            if state.drew:
                raise IllegalAction("you have drawn your card this turn: play or pass")
        elif kind == "pass":
            if self._may_draw(state):
                raise IllegalAction("you may not pass while you can draw: play a card or draw")
        else:
            raise IllegalAction("unknown action: expected play, draw or pass")  # (never the peer's words)

    def check_own(self, state: EightsState, seat: int, action: Action, known: Mapping[int, Card]) -> None:
        self.check(state, seat, action)
        if action["type"] == "play":
            card = known[action["card"]]
            problem = _play_problem(card, state.top, state.suit, action.get("suit"))
            if problem:
                raise IllegalAction(problem)
        elif action["type"] == "pass" and not state.drew:
            playable = [known[h] for h in state.hands[seat] if can_play(known[h], state.top, state.suit)]
            if playable:
                raise IllegalAction(f"you cannot pass: you can play {playable[0]}")

    def apply(self, state: EightsState, seat: int, action: Action) -> None:
        kind = action["type"]
        state.history.append(
            Snapshot(state.pile[-1], state.suit, tuple(state.hands[seat]),
                     kind == "pass" and not state.drew)
        )
        # Passes in a row by players who could neither draw nor play; any other action resets.
        state.passes = state.passes + 1 if state.history[-1].must_be_unable else 0
        if kind == "play":
            state.hands[seat].remove(action["card"])
            state.playing = (action["card"], seat, action.get("suit"))
        elif kind == "draw":
            state.drawing = seat
        elif state.passes == state.players - len(state.out):
            state.ending = "blocked"  # nobody can play and nobody can draw
        else:
            self._next_turn(state)

    # -- the end ----------------------------------------------------------------------------

    def _result(self, state: EightsState) -> Result:
        points = [sum(penalty(state.faces[h]) for h in hand) for hand in state.hands]
        playing = [s for s in range(state.players) if s not in state.out]  # a seat out never wins
        if state.ending == "out":
            winners = tuple(s for s in playing if not state.hands[s])
        else:
            low = min(points[s] for s in playing)
            winners = tuple(s for s in playing if points[s] == low)
        won = sum(p for s, p in enumerate(points) if s not in winners)
        scores = tuple(float(won) if s in winners else 0.0 for s in range(state.players))
        names = ", ".join(f"seat {s}" for s in winners)
        if state.ending == "out":
            summary = f"{names} went out and scores {won}"
        else:
            summary = f"blocked: {names} with the lowest hand ({low}) scores {won}"
        details: dict[str, Any] = {"ending": state.ending, "penalties": points}
        if state.out:  # their cards were set aside unseen and count for nobody
            details["out"] = list(state.out)
            summary += "; " + ", ".join(f"seat {s}" for s in state.out) + " dropped out"
        return Result(winners, scores, summary, details)

    def audit(self, state: EightsState, actions: Sequence[tuple[int, Action]], faces: Mapping[int, Card]) -> list[Violation]:
        found = []
        for index, ((seat, action), seen) in enumerate(zip(actions, state.history)):
            top = faces[seen.top]
            if action["type"] == "play":
                problem = _play_problem(faces[action["card"]], top, seen.suit, action.get("suit"))
                if problem:
                    found.append(Violation(seat, index, problem))
            elif action["type"] == "pass" and seen.must_be_unable:
                if any(h not in faces for h in seen.hand):
                    continue  # a seat that dropped out later: its hand was never opened
                playable = [faces[h] for h in seen.hand if can_play(faces[h], top, seen.suit)]
                if playable:
                    found.append(Violation(seat, index, f"passed while holding {playable[0]}, which could be played"))
        return found

    # -- for people and bots ----------------------------------------------------------------

    def view(self, state: EightsState, seat: int | None, known: Mapping[int, Card]) -> dict[str, Any]:
        hand = [] if seat is None else [known[h] for h in state.hands[seat] if h in known]
        seats: list[dict[str, Any]] = [
            {"cards": len(h), **({"dropped out": True} if s in state.out else {})} for s, h in enumerate(state.hands)
        ]
        if state.dealer is not None:
            seats[state.dealer]["dealer"] = "D"
        table = []
        if state.top is not None:
            line = f"pile: {state.top.unicode()}"
            if state.suit is not None and state.suit != state.top.suit:
                line += f" (play {SUIT_NAMES[state.suit]})"
            table.append(line)
        if state.stock is not None:
            table.append(f"stock: {len(state.stock)} cards")
        return {
            "hand": sorted(hand, key=lambda c: (c.suit.value, c.rank)),
            "seats": seats,
            "table": table,
            "status": self._status(state, seat),
        }

    def _status(self, state: EightsState, seat: int | None) -> str:
        if state.ending is not None:
            return "the hand is over"
        if state.suit is None:
            return "dealing"
        who = "you" if seat == state.turn else f"seat {state.turn}"
        suit, rank = SUIT_NAMES[state.suit][:-1], state.top.rank
        if rank == Rank.EIGHT:
            play = f"play a {suit} or an 8"
        else:
            play = f"play a {suit}, {'an' if rank == Rank.ACE else 'a'} {rank.symbol} or an 8"
        return f"{who} to play: {play}, or {'draw' if self._may_draw(state) else 'pass'}"

    def format_action(self, state: EightsState, seat: int, action: Action, faces: Mapping[int, Card]) -> str:
        kind = action.get("type")
        if kind != "play":
            return str(kind)
        card = faces.get(action["card"])
        text = f"play {card}" if card else "play a card"
        suit = _named_suit(action.get("suit"))
        # No comma: what 'legal' lists is what a player types ("play 8c naming spades"), the
        # same words the refusals and the help suggest.
        return f"{text} naming {SUIT_NAMES[suit]}" if suit else text

    def parse_action(self, state: EightsState, seat: int, text: str, known: Mapping[int, Card]) -> Action:
        words = text.lower().replace(",", " ").split()
        if any(_names_a_joker(word) for word in words):
            raise IllegalAction("Crazy Eights is played without jokers: the deck is the 52 cards; eights are wild")
        if words in (["draw"], ["d"]):
            return {"type": "draw"}
        if words in (["pass"], ["p"]):
            return {"type": "pass"}
        if words and words[0] == "play":
            words = words[1:]
        words = [w for w in words if w not in ("suit", "naming")]
        if not 1 <= len(words) <= 2:
            raise IllegalAction("expected: play CARD, play 8x naming SUIT, draw or pass")
        try:
            card = parse_card(words[0])
            suit = parse_suit(words[1]) if len(words) == 2 else None
        except CardParseError as exc:
            raise IllegalAction(str(exc)) from None
        handle = next((h for h in state.hands[seat] if h in known and known[h].face == card), None)
        if handle is None:
            raise IllegalAction(f"you do not hold {card}")
        if card.rank == Rank.EIGHT and suit is None:
            raise IllegalAction(f"name the suit to follow, e.g. play {card} naming spades")
        if card.rank != Rank.EIGHT and suit is not None:
            raise IllegalAction("only an eight names a suit")
        action: Action = {"type": "play", "card": handle}
        if suit is not None:
            action["suit"] = suit.value
        return action

    def commands_help(self) -> str:
        return "\n".join([
            "play CARD            play a card matching the pile's suit or rank, e.g. play 9h",
            "play 8x naming SUIT  play an eight and name the suit to follow, e.g. play 8h naming spades",
            "draw                 take the top card of the stock",
            "pass                 when you cannot draw (or have drawn your one card)",
        ])

    # -- the story of the game ----------------------------------------------------------------

    def story(self, state: EightsState) -> list[dict[str, Any]]:
        told: list[dict[str, Any]] = []
        if state.dealer is not None:
            told.append({"event": "dealer", "seat": state.dealer})
        told += [{"event": "dropped out", "seat": s, "cards": state.set_aside.get(s, 0)} for s in state.out]
        if state.ending == "out":
            seat = next(s for s in range(state.players) if not state.hands[s] and s not in state.out)
            told.append({"event": "out", "seat": seat, "card": str(state.faces[state.pile[-1]])})
        elif state.ending == "blocked":
            told.append({"event": "blocked"})
        return told

    def tell(self, state: EightsState, entry: Mapping[str, Any], names: Sequence[str]) -> str:
        event = entry["event"]
        if event == "blocked":
            return "blocked: nobody can play or draw, so the lowest hand wins"
        who = names[entry["seat"]]
        if event == "dealer":
            return f"{who} {agree(who, 'deals')} (drawn by lot)"
        if event == "dropped out":
            count = entry.get("cards", 0)
            return f"{who} dropped out; {count} card{'' if count == 1 else 's'} set aside unseen"
        return f"{who} {agree(who, 'goes')} out with {entry['card']}"


def _names_a_joker(word: str) -> bool:
    """``JK``, ``joker``, ``jokers?``: a question about jokers, which this game has none of."""
    if word.strip("?!.").rstrip("s") == "joker":
        return True
    try:
        return parse_card(word).is_joker
    except CardParseError:
        return False

"""No-Limit Texas Hold'em as a p2pcards game: a match of hands until one player has every chip.

The rules are in docs/games/holdem.md, with their sources (Robert's Rules of Poker, the Poker
TDA rules). How the game uses the deck, for each hand: a :class:`Shuffle`, one :class:`Deal`
of two hole cards to each seat (only the holder learns them), the board as :class:`Reveal`\\ s
of stock cards with no owner (flop, turn, river), and at a showdown a :class:`Reveal` owned by
each player who shows. A folded or mucked hand is never revealed, and neither is a hand that
wins uncontested. The first button is a :class:`Coin`.

Actions: ``{"type": "fold" | "check" | "call" | "all-in" | "show" | "muck"}`` and
``{"type": "bet" | "raise", "to": N}``, where ``N`` is the seat's whole bet in this betting
round ("raise to 120").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from p2pcards.cards import Card, build_deck
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
)

from . import text
from .hands import best_hand, describe, kicker
from .state import BOARD_CARDS, HoldemState, Pot

BETTING = ("fold", "check", "call", "bet", "raise", "all-in")
SHOWDOWN = ("show", "muck")


def make_pots(total: Sequence[int], live: Sequence[int]) -> list[Pot]:
    """The main pot and the side pots from what each seat put in (``total``, uncalled bets
    already returned) and the seats still in the hand (``live``): one pot per all-in level of
    a live seat, each won only by live seats that put in at least that level. Chips of folded
    seats go to the pots up to their level; any above the highest live level go to the last
    pot."""
    levels = sorted({total[s] for s in live})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = sum(min(t, level) - min(t, previous) for t in total)
        eligible = [s for s in live if total[s] >= level]
        if pots and eligible == pots[-1].eligible:
            pots[-1].amount += amount  # same contenders: one pot
        else:
            pots.append(Pot(amount, eligible))
        previous = level
    above = sum(t - previous for t in total if t > previous)
    if pots and above:
        pots[-1].amount += above
    return [pot for pot in pots if pot.amount]


def split(amount: int, winners: Sequence[int], button: int, players: int) -> dict[int, int]:
    """Share ``amount`` among ``winners``; the odd chips go one each to the winners nearest
    the button's left (docs/games/holdem.md, rule 14)."""
    share, odd = divmod(amount, len(winners))
    order = sorted(winners, key=lambda s: (s - button - 1) % players)
    return {s: share + (1 if i < odd else 0) for i, s in enumerate(order)}


class Holdem(Game[HoldemState]):
    id = "holdem"
    name = "Texas Hold'em"
    rules_version = "2"  # 2: going heads-up, the last big blind takes the button
    lists_every_action = False  # bet and raise amounts: a few sizes are listed, any is allowed
    min_players = 2
    max_players = 9
    options = (
        Option("starting_stack", int, 1500, "chips each player starts the match with",
               minimum=2, maximum=10_000_000, label="starting stack"),
        Option("small_blind", int, 10, "the small blind of the first hand", minimum=1, maximum=1_000_000,
               label="small blind"),
        Option("big_blind", int, 20, "the big blind of the first hand (also the smallest bet)",
               minimum=2, maximum=1_000_000, label="big blind"),
        Option("blinds_up_every", int, 0, "double both blinds every this many hands; 0: never",
               minimum=0, maximum=1000, label="blinds rise",
               values=((0, "never", "the blinds stay as they start"),)),
        Option("hand_limit", int, 0, "end the match after this many hands, most chips winning; 0: no limit",
               minimum=0, maximum=100_000, label="hand limit",
               values=((0, "none", "play until one player has every chip"),)),
    )  # fmt: skip
    variants = {
        "home-game": {"starting_stack": 1000, "small_blind": 5, "big_blind": 10},
        "rising-blinds": {"blinds_up_every": 10},
        "fifty-hands": {"hand_limit": 50},
    }
    summary = (
        "No-Limit Texas Hold'em: two hole cards each, five on the board; bet, raise, call or "
        "fold in four rounds. Best five-card hand wins the pot. The match ends when one player "
        "has every chip."
    )

    # -- options and setup ------------------------------------------------------------------

    def deck(self, options: Mapping[str, Any], players: int) -> list[Card]:
        return build_deck()

    def validate_options(self, options: Mapping[str, Any], players: int) -> None:
        if options["small_blind"] > options["big_blind"]:
            raise OptionError("option small_blind: must not be more than the big blind")
        if options["starting_stack"] < options["big_blind"]:
            raise OptionError("option starting_stack: must be at least the big blind")

    def new_state(self, options: Mapping[str, Any], players: int) -> HoldemState:
        return HoldemState(
            players=players,
            small_blind=options["small_blind"],
            big_blind=options["big_blind"],
            blinds_up_every=options["blinds_up_every"],
            hand_limit=options["hand_limit"],
            stacks=[options["starting_stack"]] * players,
            hole=[[] for _ in range(players)],
            bets=[0] * players,
            total=[0] * players,
        )

    def result_text(self, result: Result) -> str:
        return result.summary

    # -- the state machine ------------------------------------------------------------------

    def next_step(self, state: HoldemState) -> Step:
        if state.reveal:
            seat, handles = state.reveal[0]
            return Reveal(handles, seat)
        if state.phase == "over":
            assert state.result is not None
            return Done(state.result)
        if state.phase == "button":
            return Coin("button", state.players)  # the first button is drawn by lot (rule 2)
        if state.phase == "shuffle":
            return Shuffle()
        if state.phase == "deal":
            # One card at a time, twice round, from the button's left (heads-up: the big blind).
            seats = state.seated
            return Deal({h: seats[i % len(seats)] for i, h in enumerate(state.stock[: 2 * len(seats)])})
        assert state.turn is not None, f"no turn in phase {state.phase}"
        return Turn(state.turn)

    def on_coin(self, state: HoldemState, label: str, value: int) -> None:
        state.button = value % state.players
        state.story.append({"event": "button", "seat": state.button})
        state.phase = "shuffle"
        state.hand = 0

    def on_shuffled(self, state: HoldemState, handles: Sequence[int]) -> None:
        self._start_hand(state, list(handles))

    def on_dealt(self, state: HoldemState, deal: Deal) -> None:
        for handle, seat in deal.to.items():
            state.hole[seat].append(handle)
        state.stock = state.stock[len(deal.to) :]
        state.phase = "betting"
        self._next_turn(state, state.bb_seat if state.bb_seat is not None else 0)

    def on_reveal(self, state: HoldemState, faces: Mapping[int, Card]) -> None:
        state.faces.update(faces)
        seat, handles = state.reveal.pop(0)
        if seat is None:
            state.board += list(handles)
            state.story.append(
                {"event": "board", "street": state.street, "cards": [str(faces[h]) for h in handles],
                 "board": [str(state.faces[h]) for h in state.board]}
            )  # fmt: skip
        else:
            state.shown.add(seat)
            if len(state.board) == 5:  # (the table itself says which cards were shown)
                state.story.append({"event": "show", "seat": seat, "hand": describe(self._hand_of(state, seat))})
        if state.reveal:
            return
        if state.phase == "showdown":
            self._next_shower(state)
        elif state.tabled:
            self._run_out(state)
        else:
            self._start_round(state)

    # -- a hand from start to end -----------------------------------------------------------

    def _start_hand(self, state: HoldemState, stock: list[int]) -> None:
        playing = state.playing()
        state.hand += 1
        if state.hand > 1:
            assert state.button is not None
            last_bb = state.bb_seat
            state.button = state.after(state.button, playing)
            if len(playing) == 2 and last_bb in playing and state.button != last_bb:
                # Starting heads-up, nobody posts the big blind twice in a row: the last big
                # blind takes the button (docs/games/holdem.md, rule 3). Heads-up the blinds
                # alternate anyway, so this only ever moves the button when play goes to two.
                state.button = last_bb
        elif state.button not in playing:
            state.button = state.after(state.button or 0, playing)
        button = state.button
        assert button is not None
        level = (state.hand - 1) // state.blinds_up_every if state.blinds_up_every else 0
        if level != state.level:
            state.level = level
            state.story.append({"event": "blinds", "hand": state.hand,
                                "sb": state.small_blind << level, "bb": state.big_blind << level})  # fmt: skip
        state.sb, state.bb = state.small_blind << level, state.big_blind << level
        state.seated = [state.after(button, playing)]
        while len(state.seated) < len(playing):
            state.seated.append(state.after(state.seated[-1], playing))
        if len(playing) == 2:
            # Heads-up the button posts the small blind and acts first before the flop
            # (docs/games/holdem.md, rule 3).
            state.sb_seat, state.bb_seat = button, state.seated[0]
        else:
            state.sb_seat, state.bb_seat = state.seated[0], state.seated[1]
        state.stock = stock
        state.hole = [[] for _ in range(state.players)]
        state.board = []
        state.faces = {}
        state.folded, state.mucked, state.shown = set(), set(), set()
        state.street = 0
        state.bets = [0] * state.players
        state.total = [0] * state.players
        state.acted_at = {}
        state.aggressor = None
        state.tabled = False
        state.pots, state.order, state.locked = [], [], {}
        sb = self._put(state, state.sb_seat, state.sb)
        bb = self._put(state, state.bb_seat, state.bb)
        # A short big blind still makes the full big blind the bet to call.
        state.current = state.bb
        state.min_raise = state.bb
        state.story.append(
            {"event": "hand", "hand": state.hand, "button": button, "sb_seat": state.sb_seat, "sb": sb,
             "bb_seat": state.bb_seat, "bb": bb}
        )  # fmt: skip
        state.phase = "deal"
        state.turn = None

    @staticmethod
    def _put(state: HoldemState, seat: int, amount: int) -> int:
        amount = min(amount, state.stacks[seat])
        state.stacks[seat] -= amount
        state.bets[seat] += amount
        state.total[seat] += amount
        return amount

    def _next_turn(self, state: HoldemState, after: int) -> None:
        """Give the turn to the next seat after ``after`` that must act, or end the round."""
        if len(state.live()) > 1:
            can = state.can_act()
            needs = [s for s in can if s not in state.acted_at or state.bets[s] < state.current]
            if len(can) == 1 and state.bets[can[0]] >= state.current:
                needs = []  # nobody left to answer a bet
            if needs:
                state.turn = state.after(after, needs)
                return
        state.turn = None
        self._end_round(state)

    def _end_round(self, state: HoldemState) -> None:
        # An uncalled bet (or the part nobody matched) goes back (rule 8).
        order = sorted(range(state.players), key=lambda s: state.bets[s], reverse=True)
        top, second = order[0], order[1]
        if state.bets[top] > state.bets[second]:
            back = state.bets[top] - state.bets[second]
            state.bets[top] -= back
            state.total[top] -= back
            state.stacks[top] += back
            state.story.append({"event": "returned", "seat": top, "amount": back})
        live = state.live()
        if len(live) == 1:
            winner = live[0]
            won = state.pot_total()
            state.stacks[winner] += won
            state.story.append({"event": "uncontested", "seat": winner, "amount": won})
            self._finish_hand(state)
            return
        state.bets = [0] * state.players
        if state.street == 3:
            self._start_showdown(state)
            return
        if len(state.can_act()) <= 1 and not state.tabled:
            # No more betting with an all-in: every hand is turned up now (rule 11).
            state.tabled = True
            for seat in self._show_order(state):
                state.reveal.append((seat, tuple(state.hole[seat])))
        self._deal_board(state)

    def _deal_board(self, state: HoldemState) -> None:
        state.street += 1
        count = BOARD_CARDS[state.street]
        # No burn cards: with a deck nobody can mark or peek at, a burn protects nothing.
        state.reveal.append((None, tuple(state.stock[:count])))
        state.stock = state.stock[count:]
        state.phase = "board"

    def _run_out(self, state: HoldemState) -> None:
        """All in, no more betting: deal the rest of the board, then the showdown."""
        if state.street < 3:
            self._deal_board(state)
        else:
            self._start_showdown(state)

    def _start_round(self, state: HoldemState) -> None:
        state.phase = "betting"
        state.current = 0
        state.min_raise = state.bb
        state.acted_at = {}
        state.aggressor = None
        assert state.button is not None
        self._next_turn(state, state.button)

    # -- the showdown -----------------------------------------------------------------------

    def _show_order(self, state: HoldemState) -> list[int]:
        """The last aggressor of the last betting round first, else the first live seat left of
        the button; then clockwise (docs/games/holdem.md, rule 12)."""
        live = state.live()
        assert state.button is not None
        first = state.aggressor if state.aggressor in live else state.after(state.button, live)
        start = live.index(first)
        return live[start:] + live[:start]

    def _start_showdown(self, state: HoldemState) -> None:
        state.phase = "showdown"
        state.pots = make_pots(state.total, state.live())
        state.order = self._show_order(state)
        self._next_shower(state)

    def contests(self, state: HoldemState, seat: int) -> bool:
        """Whether ``seat`` still contests a pot with someone who has not mucked."""
        return any(
            seat in pot.eligible and any(o != seat and o not in state.mucked for o in pot.eligible)
            for pot in state.pots
        )

    def _next_shower(self, state: HoldemState) -> None:
        while state.order:
            seat = state.order[0]
            if seat in state.shown or seat in state.mucked or not self.contests(state, seat):
                state.order.pop(0)  # shown already, or every other contender mucked: wins unshown
                continue
            state.turn = seat
            return
        state.turn = None
        self._settle(state)

    def _hand_of(self, state: HoldemState, seat: int) -> Any:
        return best_hand([state.faces[h] for h in state.hole[seat]], [state.faces[h] for h in state.board])

    def _settle(self, state: HoldemState) -> None:
        button = state.button
        assert button is not None
        hands = {s: self._hand_of(state, s) for s in state.shown}
        if state.tabled:  # turned up before the board was out: what each one made, now
            for seat in state.live():
                state.story.append({"event": "show", "seat": seat, "hand": describe(hands[seat])})
        many = len(state.pots) > 1
        for index, pot in enumerate(state.pots):
            if index in state.locked:
                winners = [state.locked[index]]
            else:
                contenders = [s for s in pot.eligible if s not in state.mucked]
                if len(contenders) > 1:
                    best = max(hands[s] for s in contenders)
                    winners = [s for s in contenders if hands[s] == best]
                else:
                    winners = contenders
            shares = split(pot.amount, winners, button, state.players)  # in odd-chip order
            for seat, chips in shares.items():
                state.stacks[seat] += chips
            entry: dict[str, Any] = {
                "event": "pot", "pot": index if many else None, "amount": pot.amount,
                "winners": list(shares), "shares": list(shares.values()),
            }  # fmt: skip
            if winners[0] in hands:
                entry["hand"] = describe(hands[winners[0]])
                # Beaten by a kicker: say it, or "wins with a pair of twos" over another pair
                # of twos reads as a mistake.
                beaten = [hands[s] for s in pot.eligible if s not in winners and s in hands and s not in state.mucked]
                close = max((h for h in beaten if describe(h) == entry["hand"]), default=None)
                decider = kicker(hands[winners[0]], close) if len(winners) == 1 and close is not None else None
                if decider:
                    entry["hand"] += f", {decider}"
            state.story.append(entry)
        self._finish_hand(state)

    def _finish_hand(self, state: HoldemState) -> None:
        state.turn = None
        state.reveal = []
        busted = [s for s in state.seated if state.stacks[s] == 0]
        # Several out in one hand: who started it with more chips finishes higher (rule 15).
        # Two who started it with as many chips tie for the higher place (TDA).
        left = len(state.playing()) - len(busted)
        for seat in sorted(busted, key=lambda s: state.total[s]):
            state.out.append(seat)
            place = left + 1 + sum(state.total[o] > state.total[seat] for o in busted)
            state.story.append({"event": "busted", "seat": seat, "place": place})
        playing = state.playing()
        if len(playing) == 1 or (state.hand_limit and state.hand >= state.hand_limit):
            self._end_match(state)
        else:
            state.phase = "shuffle"

    def _end_match(self, state: HoldemState) -> None:
        playing = state.playing()
        most = max(state.stacks[s] for s in playing)
        winners = tuple(s for s in playing if state.stacks[s] == most)
        chips = sum(state.stacks)
        names = " and ".join(f"seat {s}" for s in winners)
        if len(playing) == 1:
            summary = f"{names} wins the match with all {chips} chips after {state.hand} hands"
        elif len(winners) == 1:
            summary = f"{names} wins the match with {most} of {chips} chips after {state.hand} hands"
        else:
            summary = f"{names} share the most chips, {most} each of {chips}, after {state.hand} hands"
        state.result = Result(
            winners=winners,
            scores=tuple(float(s) for s in state.stacks),
            summary=summary,
            details={"hands": state.hand, "stacks": list(state.stacks), "out": list(state.out)},
        )
        state.story.append({"event": "match", "winners": list(winners), "hands": state.hand})
        state.phase = "over"

    # -- turns ------------------------------------------------------------------------------

    def legal_actions(self, state: HoldemState, seat: int, known: Mapping[int, Card]) -> list[Action]:
        if state.turn != seat:
            return []
        if state.phase == "showdown":
            return [{"type": "show"}, {"type": "muck"}]
        owe = state.current - state.bets[seat]
        everything = state.bets[seat] + state.stacks[seat]
        actions: list[Action] = []
        if owe > 0:
            actions.append({"type": "fold"})
            if state.stacks[seat] > owe:
                actions.append({"type": "call"})
        else:
            actions.append({"type": "check"})
        if state.may_raise(seat):
            kind = "bet" if state.current == 0 else "raise"
            least = state.current + state.min_raise if state.current else state.min_raise
            pot = state.pot_total() + owe  # a pot-sized raise: the pot after calling, on top
            for to in sorted({least, state.current + pot, 2 * least + state.current}):
                if least <= to < everything:
                    actions.append({"type": kind, "to": to})
        if everything <= state.current or state.may_raise(seat):
            actions.append({"type": "all-in"})
        return actions

    def check(self, state: HoldemState, seat: int, action: Action) -> None:
        if state.turn != seat:
            raise IllegalAction("it is not your turn")
        kind = action.get("type")
        if state.phase == "showdown":
            if kind not in SHOWDOWN or set(action) != {"type"}:
                raise IllegalAction("at the showdown: show or muck")
            return
        if kind not in BETTING:
            raise IllegalAction("expected fold, check, call, bet, raise or all in")
        if kind in ("bet", "raise"):
            if set(action) != {"type", "to"}:
                raise IllegalAction(f"a {kind} says how much: {kind} AMOUNT")
        elif set(action) != {"type"}:
            raise IllegalAction(f"{kind} takes no amount")
        owe = state.current - state.bets[seat]
        everything = state.bets[seat] + state.stacks[seat]
        if kind == "check" and owe > 0:
            raise IllegalAction(f"you cannot check: {owe} to call")
        if kind == "call":
            if owe <= 0:
                raise IllegalAction("nothing to call: check or bet")
            if state.stacks[seat] <= owe:
                raise IllegalAction("calling takes all your chips: say all in")
        if kind == "all-in" and everything > state.current and not state.may_raise(seat):
            raise IllegalAction(self._no_raise_reason(state, seat))
        if kind in ("bet", "raise"):
            to = action["to"]
            if type(to) is not int:
                raise IllegalAction(f"a {kind} is a whole number of chips")
            if kind == "bet" and state.current > 0:
                raise IllegalAction(f"there is a bet already: call {owe}, raise or fold")
            if kind == "raise" and state.current == 0:
                raise IllegalAction("there is no bet to raise: bet instead")
            if not state.may_raise(seat):
                raise IllegalAction(self._no_raise_reason(state, seat))
            least = state.current + state.min_raise if state.current else state.min_raise
            if to >= everything:
                raise IllegalAction(f"that is all your chips ({everything}): say all in")
            if to < least:
                word = "raise to" if kind == "raise" else "bet"
                raise IllegalAction(f"the smallest you may {word} is {least} (or all in)")

    @staticmethod
    def _no_raise_reason(state: HoldemState, seat: int) -> str:
        if state.stacks[seat] <= state.current - state.bets[seat]:
            return "you have too few chips to raise"
        if not any(s != seat for s in state.can_act()):
            return "nobody left could call a raise: call or fold"
        return "an all-in short of a full raise does not reopen the betting: call or fold"

    def apply(self, state: HoldemState, seat: int, action: Action) -> None:
        kind = action["type"]
        if kind == "show":
            state.turn = None
            state.order.pop(0)
            state.reveal.append((seat, tuple(state.hole[seat])))
            return
        if kind == "muck":
            state.mucked.add(seat)
            state.order.pop(0)
            for index, pot in enumerate(state.pots):
                if seat in pot.eligible and all(o == seat or o in state.mucked for o in pot.eligible):
                    state.locked[index] = seat  # every other contender mucked first: it stays won
            self._next_shower(state)
            return
        if kind == "fold":
            state.folded.add(seat)
        elif kind == "call":
            state.put[seat] = self._put(state, seat, state.current - state.bets[seat])
        elif kind != "check":
            to = state.bets[seat] + state.stacks[seat] if kind == "all-in" else action["to"]
            if to > state.current:
                if to - state.current >= state.min_raise:
                    state.min_raise = to - state.current  # a full raise: the new smallest raise
                state.current = to
                state.aggressor = seat
            state.put[seat] = self._put(state, seat, to - state.bets[seat])
        state.acted_at[seat] = state.current
        self._next_turn(state, seat)

    def idle_action(self, state: HoldemState, seat: int, known: Mapping[int, Card]) -> Action | None:
        """A player who lets the time run out checks if they may, else folds (mucks at a
        showdown): a hand whose clock runs out is dead (docs/games/holdem.md, rule 16)."""
        if state.turn != seat:
            return None
        if state.phase == "showdown":
            return {"type": "muck"}
        return {"type": "check"} if state.current == state.bets[seat] else {"type": "fold"}

    def audit(
        self, state: HoldemState, actions: Sequence[tuple[int, Action]], faces: Mapping[int, Card]
    ) -> list[Violation]:
        # Every rule of betting is checked on public information as the action comes in, and a
        # hand is ranked only from faces its holder opened: nothing is left for the end.
        return []

    # -- for people ---------------------------------------------------------------------------

    def view(self, state: HoldemState, seat: int | None, known: Mapping[int, Card]) -> dict[str, Any]:
        return text.view(self, state, seat, known)

    def story(self, state: HoldemState) -> Sequence[Mapping[str, Any]]:
        return state.story

    def tell(self, state: HoldemState, entry: Mapping[str, Any], names: Sequence[str]) -> str:
        return text.tell(entry, names)

    def format_action(self, state: HoldemState, seat: int, action: Action, faces: Mapping[int, Card]) -> str:
        return text.format_action(action, text.put_in(state, seat, action))

    def parse_action(self, state: HoldemState, seat: int, text_: str, known: Mapping[int, Card]) -> Action:
        return text.parse_action(state, seat, text_)

    def commands_help(self) -> str:
        return text.COMMANDS

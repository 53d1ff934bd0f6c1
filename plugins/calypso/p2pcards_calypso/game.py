"""Calypso as a p2pcards game: the public state machine (rules.md Part II).

The game knows cards by handle. A played card is turned face up by a :class:`Reveal` step owned
by its player, so every peer learns it before the next card; the duty to follow suit depends on
the hidden hand and is checked by the player's own client (:meth:`Calypso.check_own`) and, once
every face is open, by :meth:`Calypso.audit`. In honour mode (``allow_revoke``) revokes are
allowed and found from public information at the end of each deal: every card of a deal is
played, so every face of the deal is public by then.

Steps of a game: the cut (public :class:`Coin` steps, recut on ties), the suit choices (a
:class:`Turn` per choosing cutter, or coins with ``seating=random``), one :class:`Shuffle`,
then per deal one :class:`Deal` of 13 cards per player from the stock and 13 tricks of
``Turn`` + ``Reveal`` pairs, and :class:`Done` after the last deal.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from p2pcards.cards import Card, Suit, build_deck, parse_suit
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
from .rules import (
    ANY_RUFF_BEATS_TRUMP_LEAD,
    BEAT_THE_LEADER,
    MODES,
    PARTNER_SUIT,
    PARTNERSHIP,
    REVOKE_PENALTY,
    SOLO,
    SUITS,
    THREE,
    TRICKS_PER_DEAL,
    TRUMP_LEAD_RULES,
    PlayerCounts,
    Revoke,
    Tableau,
    allocate_trick,
    find_revokes,
    player_points,
    score_deal,
    trick_winner,
)

CUT = "cut"
RANDOM = "random"
SUIT_NAMES = {Suit.SPADES: "spades", Suit.HEARTS: "hearts", Suit.DIAMONDS: "diamonds", Suit.CLUBS: "clubs"}

# Phases of a game, in order.
CUTTING, CHOOSING, SHUFFLING, DEALING, PLAYING, FINISHED = (
    "cutting", "choosing", "shuffling", "dealing", "playing", "finished",
)


@dataclass
class DealRecord:
    """What each seat was dealt and the tricks played, for revoke checks once faces are open."""

    hands: dict[int, list[int]]
    tricks: list[list[tuple[int, int, int]]] = field(default_factory=list)  # (seat, handle, action)


@dataclass
class CalypsoState:
    """Public state. Hands are handles only; ``faces`` holds every face that has been shown."""

    mode: str
    trump_lead_rule: str
    allow_revoke: bool
    seating: str
    removed_suit: Suit | None
    players: int
    phase: str = CUTTING
    # -- the cut --
    cuts: dict[int, list[int]] = field(default_factory=dict)  # seat -> cut ranks, one per round
    cut_round: int = 1
    cutters: list[int] = field(default_factory=list)  # seats still to cut this round
    ranking: list[int] = field(default_factory=list)  # highest cutter first
    # -- seating and suits --
    order: list[int] = field(default_factory=list)  # seats clockwise; order[0] deals first
    trump: dict[int, Suit] = field(default_factory=dict)
    choosers: list[int] = field(default_factory=list)  # seats still to choose, in order
    # -- deals --
    deals_total: int = 4
    deal_number: int = 0  # deals started so far
    dealer_position: int = 0  # index into order
    stock: list[int] = field(default_factory=list)
    hands: dict[int, list[int]] = field(default_factory=dict)
    faces: dict[int, Card] = field(default_factory=dict)
    # -- play --
    leader: int = 0
    trick_number: int = 0  # 1..13 within the deal
    trick: list[tuple[int, int]] = field(default_factory=list)  # (seat, handle) in playing order
    unrevealed: int | None = None  # the card just played, waiting for its Reveal
    last_trick_winner: int | None = None
    tableaux: dict[int, Tableau] = field(default_factory=dict)
    deals: list[DealRecord] = field(default_factory=list)
    revokes: list[Revoke] = field(default_factory=list)  # found in honour mode
    actions_applied: int = 0
    result: Result | None = None

    # -- derived facts --------------------------------------------------------------------

    def position(self, seat: int) -> int:
        return self.order.index(seat)

    def partner(self, seat: int) -> int | None:
        if self.mode != PARTNERSHIP:
            return None
        return self.order[(self.position(seat) + 2) % 4]

    def side(self, seat: int) -> tuple[int, ...]:
        partner = self.partner(seat)
        return (seat,) if partner is None else tuple(sorted((seat, partner)))

    def to_play(self) -> int:
        return self.order[(self.position(self.leader) + len(self.trick)) % self.players]

    def led_suit(self) -> Suit | None:
        return self.faces[self.trick[0][1]].suit if self.trick else None

    def suits_in_play(self) -> list[Suit]:
        return [s for s in SUITS if s != self.removed_suit]

    def available_suits(self) -> list[Suit]:
        taken = set(self.trump.values())
        return [s for s in self.suits_in_play() if s not in taken]

    def penalties(self) -> dict[int, int]:
        penalty = {seat: 0 for seat in range(self.players)}
        for revoke in self.revokes:
            if revoke.established:
                penalty[revoke.seat] += REVOKE_PENALTY
        return penalty

    def totals(self) -> dict[int, int]:
        """Each player's points so far (rule 28), less revoke penalties (rule 30)."""
        penalty = self.penalties()
        return {s: player_points(self.tableaux[s]) - penalty[s] for s in range(self.players)}


class Calypso(Game[CalypsoState]):
    id = "calypso"
    name = "Calypso"
    rules_version = "1"
    min_players = 3
    max_players = 4
    summary = text.SUMMARY
    options = (
        Option("mode", str, PARTNERSHIP, "partnership (4 players, two sides), solo (4, each for "
               "themselves) or three (3 players, 3 packs less one suit)", choices=MODES),
        Option("trump_lead_rule", str, BEAT_THE_LEADER, "a led own trump loses only to a strictly "
               "higher ruff (BEAT_THE_LEADER) or to any ruff (ANY_RUFF_BEATS_TRUMP_LEAD)",
               choices=TRUMP_LEAD_RULES),
        Option("allow_revoke", bool, False, "honour mode: revokes are allowed and cost 260 points"),
        Option("seating", str, CUT, "cut for seats and suits (the highest chooses) or assign at "
               "random", choices=(CUT, RANDOM)),
        Option("removed_suit", str, "clubs", "three-player mode: the suit taken out of all three "
               "packs (the deck is fixed before the cut, so it is chosen here)",
               choices=tuple(SUIT_NAMES[s] for s in SUITS)),
    )
    variants = {
        "solo": {"mode": SOLO},
        "three": {"mode": THREE},
        "any-ruff": {"trump_lead_rule": ANY_RUFF_BEATS_TRUMP_LEAD},
        "honour": {"allow_revoke": True},
    }

    # -- options and setup ----------------------------------------------------------------

    def player_counts(self, options: Mapping[str, Any]) -> range:
        return range(3, 4) if options.get("mode") == THREE else range(4, 5)

    def validate_options(self, options: Mapping[str, Any], players: int) -> None:
        if players not in self.player_counts(options):
            wanted = self.player_counts(options).start
            raise OptionError(f"Calypso mode {options['mode']} takes {wanted} players, not {players}")

    def deck(self, options: Mapping[str, Any], players: int) -> list[Card]:
        if options.get("mode") == THREE:
            return build_deck(packs=3, without_suits=[parse_suit(options["removed_suit"])])
        return build_deck(packs=4)

    def new_state(self, options: Mapping[str, Any], players: int) -> CalypsoState:
        mode = options.get("mode", PARTNERSHIP)
        if players not in self.player_counts({"mode": mode}):
            raise OptionError(f"Calypso mode {mode} cannot seat {players} players")
        state = CalypsoState(
            mode=mode,
            trump_lead_rule=options.get("trump_lead_rule", BEAT_THE_LEADER),
            allow_revoke=bool(options.get("allow_revoke", False)),
            seating=options.get("seating", CUT),
            removed_suit=parse_suit(options.get("removed_suit", "clubs")) if mode == THREE else None,
            players=players,
            deals_total=3 if mode == THREE else 4,
        )
        state.cutters = list(range(players))
        state.hands = {s: [] for s in range(players)}
        state.tableaux = {s: Tableau() for s in range(players)}
        return state

    # -- the state machine ----------------------------------------------------------------

    def next_step(self, state: CalypsoState) -> Step:
        if state.phase == CUTTING:
            if state.seating == RANDOM:
                return Coin("seating", math.factorial(state.players))
            return Coin(f"cut{state.cut_round}/seat{state.cutters[0]}", 13)
        if state.phase == CHOOSING:
            chooser = state.choosers[0]
            if state.seating == RANDOM:
                return Coin(f"suit/seat{chooser}", len(state.available_suits()))
            return Turn(chooser)
        if state.phase == SHUFFLING:
            return Shuffle()
        if state.phase == DEALING:
            dealer = state.dealer_position
            batch = state.stock[: 13 * state.players]
            return Deal({h: state.order[(dealer + 1 + i) % state.players] for i, h in enumerate(batch)})
        if state.phase == PLAYING:
            if state.unrevealed is not None:
                return Reveal((state.unrevealed,), state.trick[-1][0])
            return Turn(state.to_play())
        assert state.result is not None
        return Done(state.result)

    def on_coin(self, state: CalypsoState, label: str, value: int) -> None:
        if state.phase == CUTTING and state.seating == RANDOM:
            state.ranking = _permutation(list(range(state.players)), value)
            self._seat_players(state)
        elif state.phase == CUTTING:
            seat = state.cutters.pop(0)
            state.cuts.setdefault(seat, []).append(value + 2)  # a rank 2..14 (rule 10a)
            if not state.cutters:
                self._finish_cut_round(state)
        elif state.phase == CHOOSING:
            self._choose(state, state.choosers[0], state.available_suits()[value])

    def _finish_cut_round(self, state: CalypsoState) -> None:
        """Rank the cutters; seats with equal cuts so far cut again among themselves (rule 10b)."""
        by_cut: dict[tuple[int, ...], list[int]] = {}
        for seat, cuts in state.cuts.items():
            by_cut.setdefault(tuple(cuts), []).append(seat)
        tied = sorted(seat for seats in by_cut.values() if len(seats) > 1 for seat in seats)
        if tied:
            state.cut_round += 1
            state.cutters = tied
            return
        state.ranking = sorted(state.cuts, key=lambda seat: state.cuts[seat], reverse=True)
        self._seat_players(state)

    def _seat_players(self, state: CalypsoState) -> None:
        """Seats and the order of choosing from the ranking (rules 10, 12, 13). The highest
        cutter deals first. In partnership the two highest are partners and sit opposite; the
        third-highest sits at the first dealer's left (our choice: the seat is not chosen)."""
        r = state.ranking
        state.order = [r[0], r[2], r[1], r[3]] if state.mode == PARTNERSHIP else list(r)
        state.choosers = list(r)
        state.phase = CHOOSING
        self._settle_choices(state)

    def _choose(self, state: CalypsoState, seat: int, suit: Suit) -> None:
        state.trump[seat] = suit
        state.choosers.remove(seat)
        partner = state.partner(seat)
        if partner is not None and partner not in state.trump:
            state.trump[partner] = PARTNER_SUIT[suit]  # rule 10: the partner takes the partner suit
            state.choosers.remove(partner)
        self._settle_choices(state)

    def _settle_choices(self, state: CalypsoState) -> None:
        """The last chooser gets the suit that is left without choosing."""
        if len(state.choosers) == 1 and len(state.available_suits()) == 1:
            self._choose(state, state.choosers[0], state.available_suits()[0])
        elif not state.choosers:
            state.phase = SHUFFLING

    def on_shuffled(self, state: CalypsoState, handles: Sequence[int]) -> None:
        state.stock = list(handles)
        state.phase = DEALING

    def on_dealt(self, state: CalypsoState, deal: Deal) -> None:
        dealt: dict[int, list[int]] = {s: [] for s in range(state.players)}
        for handle, seat in deal.to.items():
            dealt[seat].append(handle)
            state.hands[seat].append(handle)
        state.stock = state.stock[len(deal.to):]  # the rest passes to the next dealer
        state.deals.append(DealRecord(dealt))
        state.deal_number += 1
        state.leader = state.order[(state.dealer_position + 1) % state.players]  # rule 14
        state.trick_number = 1
        state.phase = PLAYING

    def on_reveal(self, state: CalypsoState, faces: Mapping[int, Card]) -> None:
        state.faces.update(faces)
        if state.unrevealed in faces:
            state.unrevealed = None
            if len(state.trick) == state.players:
                self._finish_trick(state)

    def _finish_trick(self, state: CalypsoState) -> None:
        plays = [(seat, state.faces[h]) for seat, h in state.trick]
        winner = state.trick[trick_winner(plays, state.trump, state.trump_lead_rule)][0]
        allocate_trick(
            [(seat, h, state.faces[h]) for seat, h in state.trick],
            winner, state.trump, state.partner, state.tableaux,
        )
        state.trick = []
        state.last_trick_winner = winner
        state.leader = winner
        state.trick_number += 1
        if state.trick_number > TRICKS_PER_DEAL:
            self._finish_deal(state)

    def _finish_deal(self, state: CalypsoState) -> None:
        if state.allow_revoke:
            # Every face of the deal is public now, so everyone can see (and claim) revokes.
            record = state.deals[-1]
            state.revokes += find_revokes(state.deal_number, record.hands, record.tricks, state.faces)
        if state.deal_number == state.deals_total:
            state.phase = FINISHED
            state.result = self._result(state)
        else:
            state.dealer_position = (state.dealer_position + 1) % state.players  # rule 9
            state.phase = DEALING

    # -- actions --------------------------------------------------------------------------

    def legal_actions(self, state: CalypsoState, seat: int, known: Mapping[int, Card]) -> list[Action]:
        step = self.next_step(state)
        if not isinstance(step, Turn) or step.seat != seat:
            return []
        if state.phase == CHOOSING:
            return [{"type": "choose_suit", "suit": s.value} for s in state.available_suits()]
        playable = _follow_suit_cards(state, seat, known)
        # Copies of one face are interchangeable: offer one handle per face.
        by_face: dict[Card, int] = {}
        for handle in sorted(playable):
            by_face.setdefault(known[handle].face, handle)
        return [{"type": "play", "card": h} for h in by_face.values()]

    def check(self, state: CalypsoState, seat: int, action: Action) -> None:
        kind = action.get("type")
        if state.phase == CHOOSING and state.seating == CUT:
            if kind != "choose_suit":
                raise IllegalAction("choose your trump suit first, e.g. 'trump hearts'")
            if seat != state.choosers[0]:
                raise IllegalAction("it is not your turn to choose a suit")
            suit = _suit_of_action(action)
            if suit not in state.available_suits():
                names = ", ".join(SUIT_NAMES[s] for s in state.available_suits())
                raise IllegalAction(f"{SUIT_NAMES.get(suit, suit)} is not available (left: {names})")
            return
        if state.phase != PLAYING or state.unrevealed is not None:
            raise IllegalAction("no card can be played now")
        if kind != "play":
            raise IllegalAction("play a card, e.g. 'play Qh'")
        if seat != state.to_play():
            raise IllegalAction("it is not your turn")
        handle = action.get("card")
        if not isinstance(handle, int) or isinstance(handle, bool) or handle not in state.hands[seat]:
            raise IllegalAction("that card is not in your hand")

    def check_own(self, state: CalypsoState, seat: int, action: Action, known: Mapping[int, Card]) -> None:
        self.check(state, seat, action)
        if action["type"] != "play" or state.allow_revoke or not state.trick:
            return
        led = state.led_suit()
        card = known.get(action["card"])
        if card is not None and card.suit != led and any(
            known[h].suit == led for h in state.hands[seat] if h in known
        ):
            raise IllegalAction(f"you must follow suit: you hold {SUIT_NAMES[led]}")

    def apply(self, state: CalypsoState, seat: int, action: Action) -> None:
        index = state.actions_applied
        state.actions_applied += 1
        if action["type"] == "choose_suit":
            self._choose(state, seat, _suit_of_action(action))
            return
        handle = action["card"]
        state.hands[seat].remove(handle)
        state.trick.append((seat, handle))
        record = state.deals[-1]
        if len(state.trick) == 1:
            record.tricks.append([])
        record.tricks[-1].append((seat, handle, index))
        state.unrevealed = handle

    # -- the end --------------------------------------------------------------------------

    def _result(self, state: CalypsoState) -> Result:
        accounted = sum(t.card_count() for t in state.tableaux.values())
        deck_size = 117 if state.mode == THREE else 208
        if accounted != deck_size:  # every card ends in exactly one place (rule 29)
            raise RuntimeError(f"calypso: {accounted} cards accounted for, not {deck_size}")
        penalties = state.penalties()
        counts = [PlayerCounts.of(state.tableaux[s], penalties[s] // REVOKE_PENALTY)
                  for s in range(state.players)]
        sides = sorted({state.side(s) for s in range(4)}) if state.mode == PARTNERSHIP else None
        scored = score_deal(counts, sides)
        details: dict[str, Any] = {
            "mode": state.mode,
            "players": {seat: {"trump": state.trump[int(seat)].value, **numbers}
                        for seat, numbers in scored.details["players"].items()},
            "cards_accounted": accounted,
            "revokes": [
                {"seat": r.seat, "deal": r.deal, "trick": r.trick, "established": r.established}
                for r in state.revokes
            ],
        }
        details.update((k, v) for k, v in scored.details.items() if k != "players")
        return Result(scored.winners, scored.scores, scored.summary, details)

    def audit(self, state: CalypsoState, actions: Sequence[tuple[int, Action]],
              faces: Mapping[int, Card]) -> list[Violation]:
        violations = []
        for number, record in enumerate(state.deals, start=1):
            for seat, handle, index in (p for trick in record.tricks for p in trick):
                if handle in state.faces and faces.get(handle) != state.faces[handle]:
                    violations.append(Violation(seat, index, f"card {handle} was shown as "
                                                f"{state.faces[handle]} but is {faces.get(handle)}"))
            if state.allow_revoke:
                continue  # honour mode: revokes are legal and already penalised in the result
            for revoke in find_revokes(number, record.hands, record.tricks, faces):
                violations.append(Violation(
                    revoke.seat, revoke.action_index,
                    f"revoke: played {faces[revoke.handle]} to a {SUIT_NAMES[revoke.led]} lead "
                    f"(deal {revoke.deal}, trick {revoke.trick}) while holding {SUIT_NAMES[revoke.led]}",
                ))
        return violations

    # -- for people and bots --------------------------------------------------------------

    def view(self, state: CalypsoState, seat: int | None, known: Mapping[int, Card]) -> dict[str, Any]:
        return text.view(self, state, seat, known)

    def format_action(self, state: CalypsoState, seat: int, action: Action, faces: Mapping[int, Card]) -> str:
        return text.format_action(state, seat, action, faces)

    def parse_action(self, state: CalypsoState, seat: int, line: str, known: Mapping[int, Card]) -> Action:
        return text.parse_action(state, seat, line, known)

    def commands_help(self) -> str:
        return text.COMMANDS_HELP


# --------------------------------------------------------------------------------------------


def _follow_suit_cards(state: CalypsoState, seat: int, known: Mapping[int, Card]) -> list[int]:
    """The handles ``seat`` may play under rule 16: any card when leading, else the led suit if
    it holds one, else any card."""
    hand = [h for h in state.hands[seat] if h in known]
    led = state.led_suit()
    if led is None:
        return hand
    following = [h for h in hand if known[h].suit == led]
    return following or hand


def _suit_of_action(action: Action) -> Suit | None:
    try:
        return parse_suit(str(action.get("suit", "")))
    except ValueError:
        return None


def _permutation(items: list[int], index: int) -> list[int]:
    """The ``index``-th permutation of ``items`` (factorial number system)."""
    items = list(items)
    out = []
    for size in range(len(items), 0, -1):
        position, index = divmod(index, math.factorial(size - 1))
        out.append(items.pop(position))
    return out

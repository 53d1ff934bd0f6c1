"""Calypso as a p2pcards game: the public state machine (rules.md Part II).

The game knows cards by handle. A played card is turned face up by a :class:`Reveal` step owned
by its player, so every peer learns it before the next card; the duty to follow suit depends on
the hidden hand and is checked by the player's own client (:meth:`Calypso.check_own`) and, once
every face is open, by :meth:`Calypso.audit`. In honour mode (``allow_revoke``) revokes are
allowed and found from public information at the end of each deal: every card of a deal is
played, so every face of the deal is public by then.

Honour mode also lets a revoke be corrected until it is established (rule 30, seed-CY l.145:
until a player of the offending side plays to the next trick). Only the offender can know of
a revoke, so the game offers every follower of the last trick a *last chance* that leaks
nothing: its own first play to the next trick when it plays before its partner, else a
``let_stand`` turn just before its partner's first play. There it may ``correct`` (take its
card back, play one of the led suit; every card played after it returns to its player's hand
and is played again), or go on, and an honest client then owns to the revoke it leaves
(``declare_revoke``), which puts it on record at once. Once the deal's faces are public every
peer checks the declarations, and the audit names a hidden or false one.

Steps of a game: the cut (public :class:`Coin` steps, recut on ties), the suit choices (a
:class:`Turn` per choosing cutter, or coins with ``seating=random``; in solo and three-player
each cutter chooses its place at the table with its suit), one :class:`Shuffle`,
then per deal one :class:`Deal` of 13 cards per player from the stock and 13 tricks of
``Turn`` + ``Reveal`` pairs, and :class:`Done` after the last deal.

With ``removed_suit=random`` (three players) a :class:`Coin` picks the removed suit first, the
deck holds three whole packs, and after each deal every player in turn sets aside (a ``Turn``,
then a ``Reveal`` of those cards) the cards of the removed suit it was dealt; a ``Deal`` of
replacements and another round follow until every hand holds 13 cards of the suits in play.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from p2pcards.cards import SUIT_NAMES, Card, Suit, build_deck, parse_suit
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

from . import story, text
from .state import (
    CHOOSING,
    CUT,
    CUTTING,
    DEALING,
    FINISHED,
    PLAYING,
    RANDOM,
    RANDOM_SUIT,
    REMOVED_SUIT_COIN,
    SHUFFLING,
    SORTING,
    CalypsoState,
    ClosedTrick,
    Correction,
    DealRecord,
    Declaration,
    closed_led_suit,
    may_correct,
    may_declare,
    pending_revoke,
    set_aside_action,
)
from .tricks import (
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
    UNESTABLISHED_TRICK,
    PlayerCounts,
    Revoke,
    Tableau,
    allocate_trick,
    find_revokes,
    score_deal,
    trick_winner,
)


class Calypso(Game[CalypsoState]):
    id = "calypso"
    name = "Calypso"
    # 2: honour-mode corrections; removed_suit=random and set_aside. 3: solo and three-player
    # cutters choose their places (choose_suit carries "place").
    rules_version = "3"
    # Every proper move (copies of one face count once; an honour-mode revoke is a fault the
    # rules tolerate, not a move they offer).
    lists_every_action = True
    min_players = 3
    max_players = 4
    summary = text.SUMMARY
    options = (
        Option(
            "mode",
            str,
            PARTNERSHIP,
            "partnership (4 players, two sides), solo (4, each for "
            "themselves) or three (3 players, 3 packs less one suit)",
            choices=MODES,
            label="mode",
            values=(
                (PARTNERSHIP, "partnership", "4 players in two sides of two"),
                (SOLO, "solo", "4 players, each for themselves"),
                (THREE, "three players", "3 players, 3 packs less one suit"),
            ),
        ),
        Option(
            "trump_lead_rule",
            str,
            BEAT_THE_LEADER,
            "a led own trump loses only to a strictly "
            "higher ruff (BEAT_THE_LEADER) or to any ruff (ANY_RUFF_BEATS_TRUMP_LEAD)",
            choices=TRUMP_LEAD_RULES,
            label="led trump",
            values=(
                (BEAT_THE_LEADER, "beaten by a higher ruff", "a led own trump loses only to a strictly higher ruff"),
                (ANY_RUFF_BEATS_TRUMP_LEAD, "beaten by any ruff", "a led own trump loses to any ruff"),
            ),
        ),
        Option(
            "allow_revoke",
            bool,
            False,
            "honour mode: revokes are allowed and cost 260 points",
            label="honour mode",
            values=(
                (False, "off", "a card that does not follow suit is refused"),
                (True, "on", "revokes are allowed and cost 260 points"),
            ),
        ),
        Option(
            "seating",
            str,
            CUT,
            "cut for seats and suits (the highest chooses) or assign at random",
            choices=(CUT, RANDOM),
            label="seating",
            values=(
                (CUT, "cut for seats", "the highest cut chooses seat and suit"),
                (RANDOM, "at random", "seats and suits are assigned at random"),
            ),
        ),
        Option(
            "removed_suit",
            str,
            "clubs",
            "three-player mode: the suit taken out of all three "
            "packs, or random (a public coin picks it; its cards are set aside face up as "
            "they are dealt)",
            choices=(*(SUIT_NAMES[s] for s in SUITS), RANDOM_SUIT),
            label="removed suit",
            values=(
                *((SUIT_NAMES[s], SUIT_NAMES[s], f"three players: no {SUIT_NAMES[s]} in the packs") for s in SUITS),
                (RANDOM_SUIT, "random", "a public coin picks the suit; its cards are set aside face up"),
            ),
        ),
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
        if options.get("mode") == THREE and options.get("removed_suit") == RANDOM_SUIT:
            return build_deck(packs=3)  # all four suits: the coin's suit is set aside in play
        if options.get("mode") == THREE:
            return build_deck(packs=3, without_suits=[parse_suit(options["removed_suit"])])
        return build_deck(packs=4)

    def new_state(self, options: Mapping[str, Any], players: int) -> CalypsoState:
        mode = options.get("mode", PARTNERSHIP)
        if players not in self.player_counts({"mode": mode}):
            raise OptionError(f"Calypso mode {mode} cannot seat {players} players")
        removed = options.get("removed_suit", "clubs")
        by_coin = mode == THREE and removed == RANDOM_SUIT
        state = CalypsoState(
            mode=mode,
            trump_lead_rule=options.get("trump_lead_rule", BEAT_THE_LEADER),
            allow_revoke=bool(options.get("allow_revoke", False)),
            seating=options.get("seating", CUT),
            removed_suit=parse_suit(removed) if mode == THREE and not by_coin else None,
            removed_by_coin=by_coin,
            players=players,
            deals_total=3 if mode == THREE else 4,
        )
        state.cutters = list(range(players))
        state.hands = {s: [] for s in range(players)}
        state.tableaux = {s: Tableau() for s in range(players)}
        return state

    # -- the state machine ----------------------------------------------------------------

    def next_step(self, state: CalypsoState) -> Step:
        if state.removed_by_coin and state.removed_suit is None:
            return Coin(REMOVED_SUIT_COIN, len(SUITS))  # first: the suits to choose from hang on it
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
        if state.phase == SORTING:
            if state.aside_pending is not None:
                seat, handles = state.aside_pending
                return Reveal(handles, seat)
            if state.sorting:
                return Turn(state.sorting[0])
            return Deal(_replacements(state))
        if state.phase == PLAYING:
            if state.unrevealed is not None:
                return Reveal((state.unrevealed,), state.trick[-1][0])
            player = state.to_play()
            # A partner's play would establish a revoke of this follower of the last trick:
            # give it its last chance first (rule 30).
            for seat in state.unsettled:
                if seat != player and seat in state.side(player):
                    return Turn(seat)
            return Turn(player)
        assert state.result is not None
        return Done(state.result)

    def on_coin(self, state: CalypsoState, label: str, value: int) -> None:
        if label == REMOVED_SUIT_COIN:
            state.removed_suit = SUITS[value]
        elif state.phase == CUTTING and state.seating == RANDOM:
            state.ranking = _permutation(list(range(state.players)), value)
            state.story.append({"event": "seating", "ranking": list(state.ranking)})
            self._seat_players(state)
        elif state.phase == CUTTING:
            seat = state.cutters.pop(0)
            state.cuts.setdefault(seat, []).append(value + 2)  # a rank 2..14 (rule 10a)
            state.story.append({"event": "cut", "seat": seat, "rank": value + 2, "round": state.cut_round})
            if not state.cutters:
                self._finish_cut_round(state)
        elif state.phase == CHOOSING:
            chooser, suit = state.choosers[0], state.available_suits()[value]
            state.story.append({"event": "trump", "seat": chooser, "suit": suit.value, "why": "drawn"})
            self._choose(state, chooser, suit)

    def _finish_cut_round(self, state: CalypsoState) -> None:
        """Rank the cutters; seats with equal cuts so far cut again among themselves (rule 10b)."""
        by_cut: dict[tuple[int, ...], list[int]] = {}
        for seat, cuts in state.cuts.items():
            by_cut.setdefault(tuple(cuts), []).append(seat)
        tied = sorted(seat for seats in by_cut.values() if len(seats) > 1 for seat in seats)
        if tied:
            state.story.append({"event": "recut", "seats": list(tied), "round": state.cut_round + 1})
            state.cut_round += 1
            state.cutters = tied
            return
        state.ranking = sorted(state.cuts, key=lambda seat: state.cuts[seat], reverse=True)
        state.story.append({"event": "cut won", "ranking": list(state.ranking)})
        self._seat_players(state)

    def _seat_players(self, state: CalypsoState) -> None:
        """Seats and the order of choosing from the ranking (rules 10, 12, 13). The highest
        cutter deals first. In partnership the two highest are partners and sit opposite; the
        third-highest sits at the first dealer's left (our choice: the seat is not chosen).

        Solo and three with ``seating=cut`` (rules 12-13: "players draw for seats and trump
        suits: the highest chooses, the lowest gets what is left"): each cutter in turn, from
        the highest, chooses its place with its suit, in one ``choose_suit`` turn carrying
        ``"place"``, and the last gets the last place and suit. The order is known only then.
        One turn rather than a seat turn and a suit turn: the seed draws for both at once and
        rule 10 has the highest choose "a seat and a personal trump suit" together; nothing is
        learnt between the two, and it is one round trip per cutter instead of two. Places are
        counted from the highest cutter's, since only places relative to one another matter:
        it keeps its own (0) and deals first as in partnership (rule 10d), so the cutter who
        takes its left (1) leads first (rule 14)."""
        r = state.ranking
        state.choosers = list(r)
        state.phase = CHOOSING
        if state.chooses_places():
            state.order = []  # built from the places once everyone has one
        else:
            state.order = [r[0], r[2], r[1], r[3]] if state.mode == PARTNERSHIP else list(r)
            state.places = {seat: place for place, seat in enumerate(state.order)}
        self._settle_choices(state)

    def _choose(self, state: CalypsoState, seat: int, suit: Suit, place: int | None = None) -> None:
        state.trump[seat] = suit
        if place is not None:
            state.places[seat] = place
        state.choosers.remove(seat)
        partner = state.partner(seat)
        if partner is not None and partner not in state.trump:
            state.trump[partner] = PARTNER_SUIT[suit]  # rule 10: the partner takes the partner suit
            state.choosers.remove(partner)
            state.story.append(
                {
                    "event": "trump",
                    "seat": partner,
                    "suit": PARTNER_SUIT[suit].value,
                    "why": "partner",
                    "of": seat,
                    "of_suit": suit.value,
                }
            )
        self._settle_choices(state)

    def _settle_choices(self, state: CalypsoState) -> None:
        """The last chooser gets the suit (and the place) that is left without choosing."""
        if len(state.choosers) == 1 and len(state.available_suits()) == 1:
            place = state.places_open()[0] if state.chooses_places() else None
            last, suit = state.choosers[0], state.available_suits()[0]
            state.story.append({"event": "trump", "seat": last, "suit": suit.value, "why": "last"})
            self._choose(state, last, suit, place)
        elif not state.choosers:
            if state.chooses_places():
                state.order = sorted(state.places, key=state.places.__getitem__)
            state.phase = SHUFFLING

    def on_shuffled(self, state: CalypsoState, handles: Sequence[int]) -> None:
        state.stock = list(handles)
        state.phase = DEALING

    def on_dealt(self, state: CalypsoState, deal: Deal) -> None:
        if state.phase != SORTING:  # a new deal, not replacements for set-aside cards
            state.deals.append(DealRecord({s: [] for s in range(state.players)}))
            state.deal_number += 1
        dealt = state.deals[-1].hands
        for handle, seat in deal.to.items():
            dealt[seat].append(handle)
            state.hands[seat].append(handle)
        state.stock = state.stock[len(deal.to) :]  # the rest passes to the next dealer
        if state.removed_by_coin:
            # Only a receiver knows whether it was dealt cards of the removed suit: each in turn
            # from the dealer's left sets them aside (possibly none), face up.
            received = set(deal.to.values())
            state.sorting = [s for s in _from_dealers_left(state) if s in received]
            state.phase = SORTING
        else:
            self._start_play(state)

    def _start_play(self, state: CalypsoState) -> None:
        state.leader = state.order[(state.dealer_position + 1) % state.players]  # rule 14
        state.trick_number = 1
        state.phase = PLAYING

    def _sorted_one(self, state: CalypsoState) -> None:
        """A seat has set its cards aside: the next seat, else replacements, else play. The
        stock always holds enough: 117 cards of the other suits, and 13 are kept per deal."""
        if not state.sorting and not _replacements(state):
            self._start_play(state)

    def on_reveal(self, state: CalypsoState, faces: Mapping[int, Card]) -> None:
        state.faces.update(faces)
        if state.aside_pending is not None:
            seat, handles = state.aside_pending
            state.aside_pending = None
            for handle in handles:
                if faces[handle].suit == state.removed_suit:
                    state.aside.append(handle)
                    state.deals[-1].hands[seat].remove(handle)
                else:  # a cheat, now face up: the card stays in play and the audit names it
                    state.hands[seat].append(handle)
            self._sorted_one(state)
            return
        if state.unrevealed in faces:
            state.unrevealed = None
            self._card_shown(state)

    def _card_shown(self, state: CalypsoState) -> None:
        if len(state.trick) == state.players:
            self._finish_trick(state)

    def _finish_trick(self, state: CalypsoState) -> None:
        closed = None
        if state.allow_revoke and state.trick_number < UNESTABLISHED_TRICK:
            # Kept so that a revoke in this trick can still be corrected (rule 30); a revoke in
            # the 12th trick is never established and the trick stands.
            closed = ClosedTrick(
                state.trick_number,
                list(state.trick),
                state.leader,
                state.last_trick_winner,
                copy.deepcopy(state.tableaux),
            )
        plays = [(seat, state.faces[h]) for seat, h in state.trick]
        won_by = trick_winner(plays, state.trump, state.trump_lead_rule)
        winner = state.trick[won_by][0]
        completed = {s: len(t.completed) for s, t in state.tableaux.items()}
        allocate_trick(
            [(seat, h, state.faces[h]) for seat, h in state.trick],
            winner,
            state.trump,
            state.partner,
            state.tableaux,
        )
        state.story.append(story.trick_entry(state, plays, won_by))
        for seat, tableau in sorted(state.tableaux.items()):
            for number in range(completed[seat] + 1, len(tableau.completed) + 1):
                state.story.append({"event": "calypso", "seat": seat, "number": number})
        state.closed = closed
        owned = {d.seat for d in state.declarations if d.deal == state.deal_number and d.trick == state.trick_number}
        state.unsettled = [seat for seat, _ in state.trick[1:] if seat not in owned] if closed else []
        state.trick = []
        state.last_trick_winner = winner
        state.leader = winner
        state.trick_number += 1
        if state.trick_number > TRICKS_PER_DEAL:
            self._finish_deal(state)

    def _finish_deal(self, state: CalypsoState) -> None:
        if state.allow_revoke:
            # Every face of the deal is public now, so every peer finds the revokes; those
            # owned to stay on record, a hidden one is added (and named by the audit) and a
            # declaration that no face bears out is dropped.
            record = state.deals[-1]
            number = state.deal_number
            owned = {(d.seat, d.trick, d.handle) for d in state.declarations if d.deal == number}
            found = [
                replace(r, declared=(r.seat, r.trick, r.handle) in owned)
                for r in find_revokes(number, record.hands, record.tricks, state.faces)
            ]
            state.revokes = [r for r in state.revokes if r.deal != number] + found
        state.story.append(story.deal_entry(state))
        if state.deal_number == state.deals_total:
            state.phase = FINISHED
            state.result = self._result(state)
        else:
            state.dealer_position = (state.dealer_position + 1) % state.players  # rule 9
            state.phase = DEALING
            state.story.append(
                {
                    "event": "summary",
                    "deal": state.deal_number + 1,
                    "of": state.deals_total,
                    "dealer": state.order[state.dealer_position],
                    "leader": state.order[(state.dealer_position + 1) % state.players],
                }
            )

    # -- actions --------------------------------------------------------------------------

    def legal_actions(self, state: CalypsoState, seat: int, known: Mapping[int, Card]) -> list[Action]:
        step = self.next_step(state)
        if not isinstance(step, Turn) or step.seat != seat:
            return []
        if state.phase == CHOOSING:
            suits = [s.value for s in state.available_suits()]
            if state.chooses_places():
                return [{"type": "choose_suit", "suit": s, "place": p} for s in suits for p in state.places_open()]
            return [{"type": "choose_suit", "suit": s} for s in suits]
        if state.phase == SORTING:
            return [set_aside_action(state, seat, known)]
        corrections = []
        if may_correct(state, seat):
            led = closed_led_suit(state)
            following = [h for h in state.hands[seat] if h in known and known[h].suit == led]
            corrections = [{"type": "correct", "card": h} for h in _one_per_face(following, known)]
        owning = {"declare_revoke": True} if pending_revoke(state, seat, known) else {}
        if seat != state.to_play():
            return [{"type": "let_stand", **owning}, *corrections]
        playable = _follow_suit_cards(state, seat, known)
        return [{"type": "play", "card": h, **owning} for h in _one_per_face(playable, known)] + corrections

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
                shown = SUIT_NAMES[suit] if suit is not None else suit
                raise IllegalAction(f"{shown} is not available (left: {names})")
            _check_place(state, action)
            return
        if state.phase == SORTING:
            self._check_set_aside(state, seat, action)
            return
        if kind == "set_aside":
            raise IllegalAction("nothing is set aside now")
        if state.phase != PLAYING or state.unrevealed is not None:
            raise IllegalAction("no card can be played now")
        step = self.next_step(state)
        if not isinstance(step, Turn) or step.seat != seat:
            raise IllegalAction("it is not your turn")
        if kind == "correct":
            self._check_correction(state, seat, action)
            return
        owning = action.get("declare_revoke", False)
        if type(owning) is not bool:
            raise IllegalAction("declare_revoke must be true or false")
        if owning and not may_declare(state, seat):
            raise IllegalAction("you have no revoke in the last trick to own to")
        if seat != state.to_play():  # the last chance before the partner plays (rule 30)
            if kind != "let_stand":
                raise IllegalAction("let the last trick stand ('stand') or correct your revoke in it ('correct Qh')")
            return
        if kind != "play":
            raise IllegalAction("play a card, e.g. 'play Qh'")
        _check_in_hand(state, seat, action.get("card"))

    def _check_correction(self, state: CalypsoState, seat: int, action: Action) -> None:
        """Public checks of a correction (rule 30); that the new card follows suit, and so that
        the old one was a revoke, shows when it is turned up (checked by the audit)."""
        if not state.allow_revoke:
            raise IllegalAction("revokes are not allowed at this table, so there is none to correct")
        closed = state.closed
        if closed is None or seat not in state.unsettled:
            raise IllegalAction("you have no card in the last trick that you may still take back")
        taken_back = closed.card_of(seat)
        assert taken_back is not None, "an unsettled seat played in the last trick"
        if state.faces[taken_back].suit == closed_led_suit(state):
            raise IllegalAction("your card in the last trick followed suit: there is no revoke to correct")
        if any(c.seat == seat and c.deal == state.deal_number and c.trick == closed.number for c in state.corrections):
            raise IllegalAction("you have corrected that trick once already")
        _check_in_hand(state, seat, action.get("card"))

    def _check_set_aside(self, state: CalypsoState, seat: int, action: Action) -> None:
        if state.aside_pending is not None or not state.sorting:
            raise IllegalAction("no cards can be set aside now")
        if action.get("type") != "set_aside":
            raise IllegalAction("set aside your cards of the removed suit first: 'aside'")
        if seat != state.sorting[0]:
            raise IllegalAction("it is not your turn to set cards aside")
        handles = action.get("cards")
        if (
            not isinstance(handles, list)
            or len(set(handles)) != len(handles)
            or any(isinstance(h, bool) or not isinstance(h, int) for h in handles)
            or not set(handles) <= set(state.hands[seat])
        ):
            raise IllegalAction("set aside a list of distinct cards from your hand")

    def check_own(self, state: CalypsoState, seat: int, action: Action, known: Mapping[int, Card]) -> None:
        self.check(state, seat, action)
        if action["type"] == "set_aside":
            if sorted(action["cards"]) != set_aside_action(state, seat, known)["cards"]:
                suit = SUIT_NAMES[state.removed()]
                raise IllegalAction(f"set aside every card of the removed suit ({suit}) and nothing else")
            return
        if state.phase == PLAYING and state.allow_revoke:
            if action["type"] == "correct":
                led = closed_led_suit(state)
                card = known.get(action["card"])
                if card is not None and card.suit != led:
                    raise IllegalAction(f"correct with a card of the led suit, {SUIT_NAMES[led]}")
                return
            owning = bool(action.get("declare_revoke"))
            if pending_revoke(state, seat, known) and not owning:
                raise IllegalAction(
                    "your revoke in the last trick is established now: own to it (declare_revoke) or correct it"
                )
            if owning and not pending_revoke(state, seat, known):
                raise IllegalAction("you made no revoke in the last trick")
            return
        if action["type"] != "play" or state.allow_revoke or not state.trick:
            return
        trick_led = state.led_suit()
        assert trick_led is not None, "the trick has a card"
        card = known.get(action["card"])
        if (
            card is not None
            and card.suit != trick_led
            and any(known[h].suit == trick_led for h in state.hands[seat] if h in known)
        ):
            raise IllegalAction(f"you must follow suit: you hold {SUIT_NAMES[trick_led]}")

    def drop_out_refusal(self, state: CalypsoState, seat: int) -> str | None:
        """Never (issue 30; docs/games/calypso.md, "Nobody drops out"): every trick takes a card
        from every player, every deal gives each 13, and a partnership or a personal trump suit
        is fixed for the whole game, so the game cannot go on with a seat missing."""
        if state.mode == PARTNERSHIP:
            return (
                "Calypso cannot go on without a player: partnerships are fixed for the whole game "
                "and every trick takes a card from each of the four players"
            )
        return "Calypso cannot go on without a player: every trick takes a card from each player"

    def apply(self, state: CalypsoState, seat: int, action: Action) -> None:
        index = state.actions_applied
        state.actions_applied += 1
        if action["type"] == "choose_suit":
            suit = _suit_of_action(action)
            assert suit is not None, "check() accepted the suit"
            self._choose(state, seat, suit, action.get("place"))
            return
        if action["type"] == "set_aside":
            state.sorting.pop(0)
            handles = tuple(action["cards"])
            for handle in handles:
                state.hands[seat].remove(handle)
                state.aside_log.append((seat, handle, index))
            if handles:
                state.aside_pending = (seat, handles)  # turned face up next
            else:
                self._sorted_one(state)
            return
        if action["type"] == "correct":
            self._correct(state, seat, action["card"], index)
            return
        if action.get("declare_revoke"):
            self._declare(state, seat, index)
        if seat in state.unsettled:
            state.unsettled.remove(seat)
            if not state.unsettled:
                state.closed = None  # every revoke of the last trick is established now
        if action["type"] == "play":
            self._play(state, seat, action["card"], index)

    def _play(self, state: CalypsoState, seat: int, handle: int, index: int) -> None:
        state.hands[seat].remove(handle)
        state.trick.append((seat, handle))
        record = state.deals[-1]
        if len(state.trick) == 1:
            record.tricks.append([])
        record.tricks[-1].append((seat, handle, index))
        if handle in state.faces:  # a card taken back after a correction is face up already
            self._card_shown(state)
        else:
            state.unrevealed = handle

    def _declare(self, state: CalypsoState, seat: int, index: int) -> None:
        """Put ``seat``'s revoke in the last trick on record as it becomes established."""
        closed = state.closed
        assert closed is not None
        handle = closed.card_of(seat)
        assert handle is not None, "the seat played in the last trick"
        record = state.deals[-1]
        play_index = next(i for s, h, i in record.tricks[closed.number - 1] if h == handle)
        state.declarations.append(Declaration(seat, state.deal_number, closed.number, handle, index))
        state.revokes.append(
            Revoke(seat, state.deal_number, closed.number, handle, play_index, closed_led_suit(state), declared=True)
        )

    def _correct(self, state: CalypsoState, seat: int, card: int, index: int) -> None:
        """Rule 30: reopen the last trick at ``seat``'s card. That card and every card played
        after it (in the last trick and the current one) go back to their players' hands, face
        up; ``seat`` plays ``card`` instead and the others play again."""
        closed = state.closed
        assert closed is not None
        record = state.deals[-1]
        number = state.deal_number
        for player, handle in state.trick:
            state.hands[player].append(handle)
        if state.trick:
            record.tricks.pop()
        position = [s for s, _ in closed.plays].index(seat)
        taken = closed.plays[position:]
        for player, handle in taken:
            state.hands[player].append(handle)
        record.tricks[closed.number - 1] = record.tricks[closed.number - 1][:position]
        gone = {handle for _, handle in taken}  # revokes taken back are no longer on record
        state.declarations = [
            d for d in state.declarations if not (d.deal == number and d.trick == closed.number and d.handle in gone)
        ]
        state.revokes = [
            r for r in state.revokes if not (r.deal == number and r.trick == closed.number and r.handle in gone)
        ]
        state.corrections.append(
            Correction(seat, number, closed.number, closed.plays[position][1], card, index, closed_led_suit(state))
        )
        state.story.append({"event": "reopened", "seat": seat, "deal": number, "trick": closed.number})
        state.tableaux = closed.tableaux
        state.leader = closed.leader
        state.last_trick_winner = closed.last_trick_winner
        state.trick_number = closed.number
        state.trick = closed.plays[:position]
        state.closed = None
        state.unsettled = []
        self._play(state, seat, card, index)

    def idle_action(self, state: CalypsoState, seat: int, known: Mapping[int, Card]) -> Action | None:
        """What the seat's own client does for an idle player when only one thing can happen:
        setting aside (decided by the cards), and at a last chance to correct a revoke, letting
        the last trick stand (owning to a revoke if it made one)."""
        step = self.next_step(state)
        if not (isinstance(step, Turn) and step.seat == seat):
            return None
        if state.phase == SORTING:
            return set_aside_action(state, seat, known)
        if state.phase == PLAYING and seat != state.to_play():
            owning = {"declare_revoke": True} if pending_revoke(state, seat, known) else {}
            return {"type": "let_stand", **owning}
        return None

    # -- the end --------------------------------------------------------------------------

    def _result(self, state: CalypsoState) -> Result:
        accounted = sum(t.card_count() for t in state.tableaux.values())
        # Every card dealt and not set aside (208, or 117 in three) ends in exactly one place
        # (rule 29).
        kept = sum(len(hand) for record in state.deals for hand in record.hands.values())
        if accounted != kept:
            raise RuntimeError(f"calypso: {accounted} cards accounted for, not {kept}")
        penalties = state.penalties()
        counts = [PlayerCounts.of(state.tableaux[s], penalties[s] // REVOKE_PENALTY) for s in range(state.players)]
        sides = sorted({state.side(s) for s in range(4)}) if state.mode == PARTNERSHIP else None
        scored = score_deal(counts, sides)
        details: dict[str, Any] = {
            "mode": state.mode,
            "players": {
                seat: {"trump": state.trump[int(seat)].value, **numbers}
                for seat, numbers in scored.details["players"].items()
            },
            "cards_accounted": accounted,
            "revokes": [
                {"seat": r.seat, "deal": r.deal, "trick": r.trick, "established": r.established, "declared": r.declared}
                for r in state.revokes
            ],
        }
        details.update((k, v) for k, v in scored.details.items() if k != "players")
        return Result(scored.winners, scored.scores, scored.summary, details)

    def audit(
        self, state: CalypsoState, actions: Sequence[tuple[int, Action]], faces: Mapping[int, Card]
    ) -> list[Violation]:
        violations = self._audit_removed_suit(state, faces)
        for number, record in enumerate(state.deals, start=1):
            for seat, handle, index in (p for trick in record.tricks for p in trick):
                # (Moot on the mental-poker deck, whose audit faces are those shown: kept for
                # the open-faced dealer's.)
                if handle in state.faces and handle in faces and faces[handle] != state.faces[handle]:
                    violations.append(
                        Violation(
                            seat, index, f"card {handle} was shown as {state.faces[handle]} but is {faces.get(handle)}"
                        )
                    )
            if state.allow_revoke:  # honour mode: revokes are legal; check what was said of them
                violations += _honour_violations(state, number, record, faces)
                continue
            for revoke in find_revokes(number, record.hands, record.tricks, faces):
                violations.append(
                    Violation(
                        revoke.seat,
                        revoke.action_index,
                        f"revoke: played {faces[revoke.handle]} to a {SUIT_NAMES[revoke.led]} lead "
                        f"(deal {revoke.deal}, trick {revoke.trick}) while holding {SUIT_NAMES[revoke.led]}",
                    )
                )
        return violations

    def _audit_removed_suit(self, state: CalypsoState, faces: Mapping[int, Card]) -> list[Violation]:
        """``removed_suit=random``: a set-aside card of another suit (seen at its Reveal, kept in
        play) and a card of the removed suit played instead of set aside."""
        if not state.removed_by_coin or state.removed_suit is None:
            return []
        removed = SUIT_NAMES[state.removed_suit]
        found = [
            Violation(seat, index, f"set aside {faces.get(handle)}, not a card of the removed suit ({removed})")
            for seat, handle, index in state.aside_log
            if handle in faces and _suit_of(faces, handle) != state.removed_suit
        ]
        for number, record in enumerate(state.deals, start=1):
            for seat, handle, index in (p for trick in record.tricks for p in trick):
                if _suit_of(faces, handle) == state.removed_suit:
                    found.append(
                        Violation(
                            seat,
                            index,
                            f"played {faces[handle]} in deal {number}: a card "
                            f"of the removed suit ({removed}) must be set aside",
                        )
                    )
        return found

    # -- for people and bots --------------------------------------------------------------

    def view(self, state: CalypsoState, seat: int | None, known: Mapping[int, Card]) -> dict[str, Any]:
        return text.view(self, state, seat, known)

    def story(self, state: CalypsoState) -> Sequence[Mapping[str, Any]]:
        return state.story

    def tell(self, state: CalypsoState, entry: Mapping[str, Any], names: Sequence[str]) -> str:
        return story.tell(entry, names)

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


def _one_per_face(handles: Sequence[int], known: Mapping[int, Card]) -> list[int]:
    """Copies of one face are interchangeable: one handle per face, the lowest."""
    by_face: dict[Card, int] = {}
    for handle in sorted(handles):
        by_face.setdefault(known[handle].face, handle)
    return list(by_face.values())


def _check_in_hand(state: CalypsoState, seat: int, handle: Any) -> None:
    if not isinstance(handle, int) or isinstance(handle, bool) or handle not in state.hands[seat]:
        raise IllegalAction("that card is not in your hand")


def _honour_violations(
    state: CalypsoState, deal: int, record: DealRecord, faces: Mapping[int, Card]
) -> list[Violation]:
    """Honour mode (rule 30), from the faces shown at the table: an established revoke its player did not
    own to, a revoke owned to that was none, and a correction whose new card does not follow
    suit (so the card taken back was no revoke, or the new one is one)."""
    violations = []
    found = find_revokes(deal, record.hands, record.tricks, faces)
    owned = [d for d in state.declarations if d.deal == deal]
    owned_keys = {(d.seat, d.trick, d.handle) for d in owned}
    for revoke in found:
        if revoke.established and (revoke.seat, revoke.trick, revoke.handle) not in owned_keys:
            violations.append(
                Violation(
                    revoke.seat,
                    revoke.action_index,
                    f"hid a revoke: played {faces[revoke.handle]} to a {SUIT_NAMES[revoke.led]} lead "
                    f"(deal {deal}, trick {revoke.trick}) while holding {SUIT_NAMES[revoke.led]}, and "
                    "did not own to it when it was established",
                )
            )
    found_keys = {(r.seat, r.trick, r.handle) for r in found}
    for d in owned:
        if (d.seat, d.trick, d.handle) not in found_keys:
            violations.append(
                Violation(d.seat, d.action_index, f"owned to a revoke it did not make (deal {deal}, trick {d.trick})")
            )
    for c in state.corrections:
        if c.deal == deal and c.card in faces and faces[c.card].suit != c.led:
            violations.append(
                Violation(
                    c.seat,
                    c.action_index,
                    f"corrected its card in trick {c.trick} "
                    f"of deal {deal} with {faces[c.card]}, which does not follow "
                    f"{SUIT_NAMES[c.led]}",
                )
            )
    return violations


def _from_dealers_left(state: CalypsoState) -> list[int]:
    """The seats in dealing order: clockwise from the dealer's left, the dealer last."""
    first = state.dealer_position + 1
    return [state.order[(first + i) % state.players] for i in range(state.players)]


def _replacements(state: CalypsoState) -> dict[int, int]:
    """``removed_suit=random``: the Deal that brings every hand back to 13 cards, one card at a
    time from the top of the stock to the seats still short, clockwise from the dealer's left.
    The non-removed cards of a shuffled stock are in a uniformly random order whatever the
    removed suit's positions are, so the hands are dealt exactly as from a 117-card stock."""
    short = {s: TRICKS_PER_DEAL - len(state.hands[s]) for s in range(state.players)}
    stock = iter(state.stock)
    to: dict[int, int] = {}
    while any(need > 0 for need in short.values()) and len(to) < len(state.stock):
        for seat in _from_dealers_left(state):
            if short[seat] > 0 and len(to) < len(state.stock):
                to[next(stock)] = seat
                short[seat] -= 1
    return to


def _suit_of(faces: Mapping[int, Card], handle: int) -> Suit | None:
    card = faces.get(handle)
    return card.suit if card is not None else None


def _check_place(state: CalypsoState, action: Action) -> None:
    """A ``choose_suit`` names an open place exactly when the cutters choose places."""
    if not state.chooses_places():
        if "place" in action:
            raise IllegalAction("the cut sets the seats here: choose only a suit, e.g. 'trump hearts'")
        return
    place = action.get("place")
    open_places = state.places_open()
    if isinstance(place, bool) or not isinstance(place, int) or place not in open_places:
        raise IllegalAction(f"choose a place at the table too: {text.places_text(state, open_places)}")


def _suit_of_action(action: Action) -> Suit | None:
    suit = action.get("suit")
    if not isinstance(suit, str):  # a suit is named by a string, nothing made into one
        return None
    try:
        return parse_suit(suit)
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

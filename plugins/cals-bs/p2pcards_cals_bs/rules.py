"""Cal's BS rules (shared/rules.md Part I) as a p2pcards game: the state machine over the public
state of :mod:`p2pcards_cals_bs.state`; the view is in :mod:`p2pcards_cals_bs.text`, the action
grammar in :mod:`p2pcards_cals_bs.grammar`.

The state holds handles only. A face enters it only through ``on_reveal`` (a doubted top set, a
face-up going-out play, the quads set behind a "+N" claim). What public information cannot check
(a quads lead really is four of a kind; a face-up going-out play is truthful) is checked by the
actor's own client in :meth:`CalsBS.check_own`, by every peer when the cards are revealed (a
quads lead by its proof, :meth:`CalsBS.hidden_claim`), and by :meth:`CalsBS.audit` from the
faces shown at the table.

Actions (plain data, see ``p2pcards.game``)::

    {"type": "play", "cards": [h, ...], "rank": "7"}   # lead, or follow with the current rank
    {"type": "play", "cards": [h, ...], "plus": 2}     # reply to quads: "+2"
    {"type": "quads", "cards": [h1, h2, h3, h4]}       # quads lead (option quads)
    {"type": "pass"}
    {"type": "doubt"}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from p2pcards.cards import Card, CardParseError, Rank, Suit, build_deck, parse_rank
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
    Round,
    Shuffle,
    Step,
    Transfer,
    Turn,
    Violation,
)

from . import grammar, story, text
from .choices import representative_actions
from .state import (
    BY_LOT,
    CHALLENGEABLE,
    CLOCKWISE,
    FACE_UP,
    FREE,
    MAX_SET,
    RECENT_EVENTS,
    BSState,
    PlacedSet,
    PlayRecord,
)

__all__ = ["CalsBS", "is_truthful", "plus_rank", "timeout_action"]


def plus_rank(base: Rank, plus: int) -> Rank:
    """B+N with cyclic rank order, 2 after A (rule 31, Q-BS-17)."""
    return Rank((base.value - 2 + plus) % 13 + 2)


def is_truthful(cards: Sequence[Card], rank: Rank | None) -> bool:
    """Rule 10: every card is a joker or of ``rank``. With ``rank`` None (unknowable), only an
    all-joker set is truthful."""
    return all(c.is_joker or c.rank == rank for c in cards)


#: What a quads lead claims of its four cards (rule 30): all in one of these sets, the four
#: cards of a rank (copy 0: the deck is one pack), jokers in none.
QUADS_SETS = [[Card(rank, suit) for suit in Suit] for rank in Rank]


def is_valid_quads(cards: Sequence[Card]) -> bool:
    """Rule 30: exactly four naturals of one rank, no joker."""
    return len(cards) == 4 and not any(c.is_joker for c in cards) and len({c.rank for c in cards}) == 1


def quads_base(cards: Sequence[Card]) -> Rank | None:
    """B of a (revealed) quads set: its most common natural rank; None if it holds no natural.
    Only a cheater's quads are ever not four of one rank, and the audit names them."""
    ranks = Counter(c.rank for c in cards if not c.is_joker)
    return ranks.most_common(1)[0][0] if ranks else None


def timeout_action(state: BSState, seat: int) -> Action | None:
    """Rule 28 / Q-BS-19: what the table does for a follower who timed out (PASS). A lead
    player cannot be played for here (their own client must choose a card); returns None."""
    if state.phase != "play" or state.pending or state.must_lead:
        return None
    if seat in _round(state).seats if state.free else state.turn == seat:
        return {"type": "pass"}
    return None


def _round(state: BSState) -> Round:
    """Free order (rule 29): the followers who may still respond to the top set, from the
    placer's left; the placer may not follow its own set (PAGAT-BS rule 4)."""
    placer = state.top_set().owner
    seats = tuple(s for s in state.order_from(placer)[1:] if s not in state.passed)
    return Round(seats, placer)


def _event(state: BSState, event: dict[str, Any]) -> None:
    events = state.events
    events.append(event)
    if len(events) > RECENT_EVENTS:
        del events[0]


def _handles(action: Action) -> list[int]:
    cards = action.get("cards")
    # type(h) is int: a handle is a plain int (a bool is not one).
    if type(cards) is not list or not all(type(h) is int for h in cards):
        if not isinstance(cards, list) or not all(isinstance(h, int) and not isinstance(h, bool) for h in cards):
            raise IllegalAction("cards must be a list of card handles")
    if len(set(cards)) != len(cards):
        raise IllegalAction("the same card is listed twice")
    return cards


#: Cal's BS goes on after a seat drops out only with at least this many players left (rule 3's
#: minimum; docs/games/cals-bs.md, "A player drops out").
MIN_STAYING = 3
_RANK_BY_SYMBOL = {rank.symbol: rank for rank in Rank}
_TURNS = tuple(Turn(seat) for seat in range(7))  # max_players seats; Turn is immutable


def _declared_rank(action: Action) -> Rank:
    text = action.get("rank")
    # A string first: a list or a map is no key of a dict (looking it up raised TypeError and
    # stopped every seat, issue 28).
    if not isinstance(text, str):
        raise IllegalAction("a play must declare a rank (2-10, J, Q, K or A)")
    if text in _RANK_BY_SYMBOL:  # the canonical spelling every client sends
        return _RANK_BY_SYMBOL[text]
    try:
        return parse_rank(text)
    except CardParseError:  # (its message quotes the peer's text: never repeated)
        raise IllegalAction("a play must declare a rank (2-10, J, Q, K or A)") from None


class CalsBS(Game[BSState]):
    id = "cals-bs"
    name = "Cal's BS"
    #: 2: with going_out=challengeable a doubted true final set hands the pile to the doubter,
    #: and a play on top of a final set is placed before the hand ends (rule 27).
    rules_version = "2"
    min_players = 3
    max_players = 7
    options = (
        Option(
            "quads",
            bool,
            False,
            "quads variant: lead four of a kind, replies claim +N (rules 30-35)",
            label="quads",
            values=(
                (False, "off", "sets of 1-6 cards claiming one rank"),
                (True, "on", "lead four of a kind, replies claim +N"),
            ),
        ),
        Option(
            "going_out",
            str,
            FACE_UP,
            "last cards go face up and must be true, or are a normal face-down set that may be doubted",
            choices=(FACE_UP, CHALLENGEABLE),
            label="going out",
            values=(
                (FACE_UP, "face up, must be true", "your last cards go face up and must be what you claim"),
                (CHALLENGEABLE, "face down, may be doubted", "your last cards are a normal set anyone may doubt"),
            ),
        ),
        Option(
            "match_target",
            int,
            3,
            "hand wins needed to win the match (1: a single hand)",
            minimum=1,
            maximum=99,
            label="hands to win",
            values=((1, "1 (a single hand)", "the first hand won wins the match"),),
        ),
        Option(
            "turn_mode",
            str,
            CLOCKWISE,
            "clockwise turns, or free order: once a set is placed every other player may pass, "
            "follow or doubt at any moment, and who acts first counts (rule 29)",
            choices=(CLOCKWISE, FREE),
            label="turn order",
            values=(
                (CLOCKWISE, "clockwise", "each player in turn passes, follows or doubts"),
                (FREE, "free order", "after a set, every other player answers at once; who acts first counts"),
            ),
        ),
        Option(
            "first_dealer",
            int,
            BY_LOT,
            "the seat that volunteered to deal first; -1: nobody did, the first dealer is drawn by lot (rule 5)",
            minimum=BY_LOT,
            maximum=max_players - 1,  # the table's own count is checked in validate_options
            label="first dealer",
            values=((BY_LOT, "by lot", "nobody volunteered: the first dealer is drawn by lot"),),
            seat=True,  # a smaller rematch: the same volunteer's new seat, or by lot if it left
        ),
    )
    variants = {
        "quads": {"quads": True},
        "classic-cheat": {"going_out": CHALLENGEABLE},
        "single-hand": {"match_target": 1},
        "free-order": {"turn_mode": FREE},
    }
    summary = (
        "Cal's BS: shed all your cards. The leader places 1-6 cards face down and names any rank; "
        "each player in turn passes, places 1-6 cards claiming that rank, or doubts the top set. "
        "A doubt turns the top set up: whoever was wrong takes the whole pile and whoever was "
        "right leads. Jokers are wild. Your last cards go face up and must be true (with the "
        "option 'going out: face down, may be doubted' they go face down and may be doubted). "
        "First to win the set number of hands wins the match. The first dealer is drawn by "
        "lot unless a player volunteered to deal first; the deal then passes left each hand."
    )

    # -- setup ------------------------------------------------------------------------------

    def result_text(self, result: Result) -> str:
        """ "seat 2 wins the match (hands: seat 0 won 2, seat 1 won 0, seat 2 won 3)": each count
        next to its seat (the summary's "2-0-3" left the reader to count seats), with a verb
        between name and count ("strategic bot 1 1" read as one name)."""
        winners, scores = result.winners, result.scores
        if len(winners) != 1 or not isinstance(winners[0], int) or not scores:
            return result.summary
        if not all(isinstance(v, (int, float)) and float(v).is_integer() for v in scores):
            return result.summary
        out = result.details.get("out") if isinstance(result.details, Mapping) else None
        out = [s for s in out if isinstance(s, int)] if isinstance(out, list) else []
        hands = ", ".join(
            f"seat {seat} won {int(v)}{' (dropped out)' if seat in out else ''}" for seat, v in enumerate(scores)
        )
        return f"seat {winners[0]} wins the match (hands: {hands})"

    def validate_options(self, options: Mapping[str, Any], players: int) -> None:
        volunteer = options["first_dealer"]
        if volunteer >= players:
            raise OptionError(
                f"option first_dealer: there is no seat {volunteer} at a table of "
                f"{players} (seats 0 to {players - 1}, or {BY_LOT}: by lot)"
            )

    def check_table_options(self, options: Mapping[str, Any], players: int) -> None:
        # A header written before first_dealer existed (under the same rules 2) does not name
        # it. Such a table drew its first dealer by lot, which is what new_state does without
        # the option, so its transcripts still verify and its tables can still be joined.
        if "first_dealer" not in options:
            options = {**options, "first_dealer": BY_LOT}
        super().check_table_options(options, players)

    def deck(self, options: Mapping[str, Any], players: int) -> list[Card]:
        return build_deck(jokers=2)  # rule 1

    def new_state(self, options: Mapping[str, Any], players: int) -> BSState:
        state = BSState(
            players=players,
            quads=bool(options.get("quads", False)),
            going_out=options.get("going_out", FACE_UP),
            match_target=int(options.get("match_target", 3)),
            free=options.get("turn_mode", CLOCKWISE) == FREE,
            scores=[0] * players,
            hands=[[] for _ in range(players)],
        )
        volunteer = int(options.get("first_dealer", BY_LOT))
        if volunteer != BY_LOT:  # seed-BS l.11: the lot only when nobody volunteers
            state.dealer, state.phase = volunteer, "shuffle"
        return state

    # -- steps ------------------------------------------------------------------------------

    def next_step(self, state: BSState) -> Step:
        # Pending steps first: the hand that ends the match may still hand the pile to a
        # doubter (rule 27) before the game is done.
        if state.pending:
            return state.pending[0]
        if state.phase == "done":
            assert state.result is not None, "a done game has its result"
            return Done(state.result)
        if state.phase == "coin":
            return Coin("first-dealer", state.players)  # rule 5: by lot, nobody volunteered
        if state.phase == "shuffle":
            return Shuffle()
        if state.phase == "deal":
            # Rule 6: one at a time, clockwise from the dealer's left, every card.
            # Seats that dropped out get nothing (issue 30): the deal goes round those playing.
            order = state.order_from(state.left(state.dealer_seat()))
            return Deal({h: order[i % len(order)] for i, h in enumerate(state.stock)})
        if state.free and not state.must_lead:
            return _round(state)
        return _TURNS[state.turn]  # Turn(state.turn), built once per seat

    def on_coin(self, state: BSState, label: str, value: int) -> None:
        state.dealer = value % state.players
        state.phase = "shuffle"
        state.story.append({"event": "first dealer", "seat": state.dealer})

    def on_shuffled(self, state: BSState, handles: Sequence[int]) -> None:
        state.stock = list(handles)
        state.phase = "deal"

    def on_dealt(self, state: BSState, deal: Deal) -> None:
        state.hands = [[] for _ in range(state.players)]
        for handle in state.stock:
            state.hands[deal.to[handle]].append(handle)
        state.stock = []
        state.hand_number += 1
        state.pile = []
        state.turn = state.left(state.dealer_seat())  # rule 12
        state.must_lead = True
        state.current_rank = None
        state.passes = 0
        state.passed = []
        state.quads_set = state.plus = state.provisional = None
        state.phase = "play"
        _event(state, {"event": "deal", "hand": state.hand_number, "dealer": state.dealer})

    def on_reveal(self, state: BSState, faces: Mapping[int, Card]) -> None:
        state.faces.update(faces)
        state.pending.pop(0)
        _event(state, {"event": "reveal", "cards": [str(faces[h]) for h in sorted(faces)]})
        if not any(isinstance(step, Reveal) for step in state.pending):
            self._resolve(state)

    def on_transferred(self, state: BSState, transfer: Transfer, new_handles: Sequence[int] | None = None) -> None:
        # The pile comes back under new handles: once mixed into the taker's hand, nobody who
        # placed a card can tell it apart (the audit reads faces of old and new handles alike).
        # A deck that keeps the old handles (None) still works.
        state.hands[transfer.to].extend(transfer.handles if new_handles is None else new_handles)
        state.pending.pop(0)

    # -- checking ---------------------------------------------------------------------------

    def check(self, state: BSState, seat: int, action: Action) -> None:
        self._check_public(state, seat, action)
        # Faces already public (cards revealed earlier) must not contradict the play either.
        self._check_faces(state, seat, action, state.faces, complete=False)

    def hidden_claim(self, state: BSState, seat: int, action: Action) -> tuple[list[int], list[list[Card]]] | None:
        """A quads lead (rule 30) claims its four cards are of one rank, no joker: proven at
        the lead, without showing the rank (deck protocol 3; every seat checks the proof before
        the lead stands, a false one is refused like an illegal move)."""
        if action.get("type") != "quads":
            return None
        return list(_handles(action)), QUADS_SETS

    def check_own(self, state: BSState, seat: int, action: Action, known: Mapping[int, Card]) -> None:
        self._check_public(state, seat, action)
        self._check_faces(state, seat, action, known, complete=True)

    def _check_public(self, state: BSState, seat: int, action: Action) -> None:
        if state.phase != "play" or state.pending:
            raise IllegalAction("no one may act now")
        if state.free and not state.must_lead:
            if seat not in _round(state).seats:
                raise IllegalAction(
                    "you placed the top set" if seat == state.top_set().owner else "you have passed on this set already"
                )
        elif seat != state.turn:
            raise IllegalAction(f"it is seat {state.turn}'s turn, not seat {seat}'s")
        kind = action.get("type")
        if kind == "pass":
            if state.must_lead:
                raise IllegalAction("the lead player must place cards; passing is not allowed")
        elif kind == "doubt":
            if state.must_lead:
                raise IllegalAction("the lead player must place cards; there is nothing to doubt")
            top = state.top_set()
            if top.owner == seat:
                raise IllegalAction("you cannot doubt your own set")
            if top.quads:
                raise IllegalAction("quads cannot be doubted; pass or reply with +N")
        elif kind == "quads":
            if not state.quads:
                raise IllegalAction("quads are not played at this table (option quads is off)")
            if not state.must_lead:
                raise IllegalAction("only the lead player may lead quads")
            cards = _handles(action)
            if len(cards) != 4:
                raise IllegalAction("quads are exactly 4 cards")
            self._check_in_hand(state, seat, cards)
        elif kind == "play":
            cards = _handles(action)
            if not 1 <= len(cards) <= MAX_SET:
                raise IllegalAction(f"place 1 to {MAX_SET} cards, not {len(cards)}")
            self._check_in_hand(state, seat, cards)
            has_rank, has_plus = "rank" in action, "plus" in action
            if state.must_lead:
                if has_plus:
                    raise IllegalAction("a lead declares a rank, not +N")
                _declared_rank(action)
            elif state.in_quads_context:
                if has_rank or not has_plus:
                    raise IllegalAction("after quads, declare +N (1-12), not a rank")
                plus = action["plus"]
                if not isinstance(plus, int) or isinstance(plus, bool) or not 1 <= plus <= 12:
                    raise IllegalAction("+N takes N from 1 to 12")
                if state.plus is not None and plus != state.plus:
                    raise IllegalAction(f"the first reply fixed +{state.plus}; declare +{state.plus}")
            else:
                if has_plus:
                    raise IllegalAction("+N is only declared after quads")
                rank = _declared_rank(action)
                if rank != state.current_rank:
                    raise IllegalAction(f"followers must declare the current rank, {state.rank_to_follow().symbol}")
        else:
            raise IllegalAction("unknown action (expected play, quads, pass or doubt)")  # never the peer's words

    @staticmethod
    def _check_in_hand(state: BSState, seat: int, cards: Sequence[int]) -> None:
        hand = state.hands[seat]  # at most 6 cards to look for: a scan beats building a set
        missing = [h for h in cards if h not in hand]
        if missing:
            raise IllegalAction(f"card(s) {missing} are not in seat {seat}'s hand")

    def _check_faces(
        self, state: BSState, seat: int, action: Action, faces: Mapping[int, Card], *, complete: bool
    ) -> None:
        """The rules that depend on faces: a quads lead is four of a kind (rule 30) and a
        going-out play is truthful (rules 23-25), unless that cannot be known (+N, rule 35) or
        need not be (challengeable, rule 27). With ``complete`` False only the faces given are
        judged."""
        kind = action.get("type")
        if kind not in ("play", "quads"):
            return
        cards = [faces[h] for h in action["cards"] if h in faces]
        if complete and len(cards) < len(action["cards"]):
            raise IllegalAction("you do not know the faces of some of those cards")
        if kind == "quads":
            if any(c.is_joker for c in cards) or len({c.rank for c in cards}) > 1:
                raise IllegalAction("quads are four cards of one rank, with no joker")
            return
        going_out = len(action["cards"]) == len(state.hands[seat])
        if going_out and self.must_be_truthful(state) and "rank" in action:
            if not is_truthful(cards, _declared_rank(action)):
                raise IllegalAction("your last cards go face up and must all be the declared rank (or jokers)")

    @staticmethod
    def must_be_truthful(state: BSState) -> bool:
        """Whether a going-out play now must be truthful for its maker to check (rule 24)."""
        return state.going_out == FACE_UP and (state.must_lead or not state.in_quads_context)

    # -- applying ---------------------------------------------------------------------------

    def apply(self, state: BSState, seat: int, action: Action) -> None:
        index = state.actions_applied
        state.actions_applied += 1
        kind = action["type"]
        if kind == "pass":
            self._apply_pass(state, seat)
        elif kind == "doubt":
            self._apply_doubt(state, seat)
        else:
            self._apply_place(state, seat, action, index)

    def _apply_pass(self, state: BSState, seat: int) -> None:
        state.passes += 1
        state.passed.append(seat)
        _event(state, {"event": "pass", "seat": seat})
        if state.passes < state.playing - 1:
            state.turn = state.left(seat)
            return
        self._all_passed(state)

    def _all_passed(self, state: BSState) -> None:
        # Rule 19 / 34: everyone else passed; the last placer leads again on top of the pile.
        placer = state.top_set().owner
        if state.provisional == placer:
            self._win_hand(state, placer, how="undoubted")  # rule 27: nobody doubted the final set
            return
        state.turn = placer
        state.must_lead = True
        state.passes = 0
        state.passed = []
        state.current_rank = None
        state.quads_set = state.plus = None

    # -- dropping out (issue 30; docs/games/cals-bs.md, "A player drops out") ------------------

    def drop_out_refusal(self, state: BSState, seat: int) -> str | None:
        if not 0 <= seat < state.players or seat in state.out:
            return "that seat no longer plays"
        if state.phase != "play" or state.pending or state.resolving is not None:
            return (
                "a player can drop out only while a hand is being played, "
                "not while cards are dealt, turned up or handed over"
            )
        if state.playing - 1 < MIN_STAYING:
            return f"Cal's BS goes on without a player only while at least {MIN_STAYING} others still play"
        if any(placed.owner == seat for placed in state.pile):
            return (
                "not while a set of yours is on the pile: only your program can turn those cards up or "
                "hand them to whoever takes the pile (you can drop out once the pile is taken)"
            )
        if state.free and not state.must_lead:
            return "in free order, only while the table is open (not while a set is being answered)"
        return None

    def drop_out(self, state: BSState, seat: int) -> None:
        refusal = self.drop_out_refusal(state, seat)
        if refusal is not None:
            raise IllegalAction(refusal)
        count = len(state.hands[seat])
        state.set_aside.extend(state.hands[seat])
        state.hands[seat] = []
        state.out.append(seat)
        _event(state, {"event": "dropped out", "seat": seat, "cards": count})
        state.story.append({"event": "dropped out", "seat": seat, "cards": count})
        if seat in state.passed:  # its pass no longer counts among "everyone else passed"
            state.passed.remove(seat)
            state.passes -= 1
        if state.turn == seat:
            state.turn = state.left(seat)  # the lead too, when it was its to lead
        if not state.must_lead and state.passes >= state.playing - 1:
            self._all_passed(state)  # it was the last one who had not passed

    def _apply_doubt(self, state: BSState, seat: int) -> None:
        top = state.top_set()
        _event(state, {"event": "doubt", "seat": seat, "of": top.owner})
        state.resolving = {"kind": "doubt", "doubter": seat}
        self._queue_reveals(state, top)

    def _queue_reveals(self, state: BSState, top: PlacedSet) -> None:
        """Reveal the top set, and for a "+N" set first the quads set that fixes B (rule 33)."""
        if top.plus is not None:
            base = state.quads_base()
            if any(h not in state.faces for h in base.handles):
                state.pending.append(Reveal(base.handles, base.owner))
        state.pending.append(Reveal(top.handles, top.owner))

    def _apply_place(self, state: BSState, seat: int, action: Action, index: int) -> None:
        cards = tuple(action["cards"])
        quads = action["type"] == "quads"
        rank = None if quads or "plus" in action else _declared_rank(action)
        plus = action.get("plus")
        hand = tuple(state.hands[seat])
        going_out = len(cards) == len(hand)
        was_lead = state.must_lead

        state.records.append(
            PlayRecord(
                index, seat, cards, hand, rank, plus, quads, going_out, going_out and self.must_be_truthful(state)
            )
        )
        placed_handles = set(cards)
        state.hands[seat] = [h for h in hand if h not in placed_handles]
        placed = PlacedSet(seat, cards, rank, plus, quads, index=index)
        state.pile.append(placed)
        _event(
            state, {"event": "lead" if was_lead else "play", "seat": seat, "count": len(cards), "claim": placed.claim()}
        )

        if was_lead:
            state.current_rank = rank
            state.quads_set = len(state.pile) - 1 if quads else None
            state.plus = None
        elif plus is not None:
            state.plus = plus
        state.must_lead = False
        state.passes = 0
        state.passed = []
        state.turn = state.left(seat)

        if state.provisional is not None:
            # Rule 27: a play on top of the final set means nobody doubted it: that player won.
            # The play is placed first (it is on the pile and in the audit), then the hand ends;
            # it cannot be a second winner, even if those were the follower's last cards.
            self._win_hand(state, state.provisional, how="played on")
            return
        if going_out:
            if state.going_out == CHALLENGEABLE:
                state.provisional = seat  # face down like any set; see _apply_pass and _resolve
            else:  # rules 23, 35: placed face up and checked by everyone
                state.resolving = {"kind": "going_out", "seat": seat}
                self._queue_reveals(state, placed)

    # -- resolving reveals ------------------------------------------------------------------

    def _set_truthful(self, state: BSState, placed: PlacedSet) -> bool:
        cards = [state.faces[h] for h in placed.handles]
        if placed.quads:
            return is_valid_quads(cards)
        if placed.plus is not None:
            base = quads_base([state.faces[h] for h in state.quads_base().handles])
            return is_truthful(cards, None if base is None else plus_rank(base, placed.plus))
        return is_truthful(cards, placed.rank)

    def _resolve(self, state: BSState) -> None:
        resolving, state.resolving = state.resolving, None
        assert resolving is not None, "reveals resolve what queued them"
        top = state.top_set()
        truthful = self._set_truthful(state, top)
        told = self._shown_set(state, top)
        if resolving["kind"] == "going_out":
            seat = resolving["seat"]
            _event(state, {"event": "going out", "seat": seat, "true": truthful})
            state.story.append({"event": "going out", "seat": seat, "true": truthful, **told})
            if truthful:
                self._win_hand(state, seat, how="true")
            else:
                # Rule 35 (and a false face-up play from a modified client, which the audit
                # also names): the player takes the whole pile; the next player leads.
                self._take_pile(state, taker=seat, leader=state.left(seat))
            return
        doubter, placer = resolving["doubter"], top.owner
        _event(
            state, {"event": "doubt result", "seat": placer, "true": truthful, "taker": doubter if truthful else placer}
        )
        state.story.append(
            {
                "event": "doubt",
                "doubter": doubter,
                "seat": placer,
                "true": truthful,
                "taker": doubter if truthful else placer,
                **told,
            }
        )
        if truthful:  # rule 20: the one who was wrong takes the pile, the one who was right leads
            self._take_pile(state, taker=doubter, leader=placer)
        else:
            self._take_pile(state, taker=placer, leader=doubter)
        if state.provisional == placer:
            state.provisional = None
            if truthful:
                # Rule 27 and the seed's doubt rule: the doubter still takes the pile (the
                # transfer above stays pending), and the player's true final set wins the hand.
                self._win_hand(state, placer, how="doubted true")

    def _shown_set(self, state: BSState, placed: PlacedSet) -> dict[str, Any]:
        """What the story says of a set just turned face up: its cards, the rank it claimed
        (``None`` when unknowable: quads, or "+N" on quads without a natural), the cards
        that are not of it, and how many cards the pile holds (what a loser takes)."""
        cards = [state.faces[h] for h in placed.handles]
        rank: Rank | None = placed.rank
        if placed.plus is not None:
            base = quads_base([state.faces[h] for h in state.quads_base().handles])
            rank = None if base is None else plus_rank(base, placed.plus)
        if placed.quads:
            rank = None
            wrong = [] if is_valid_quads(cards) else [c for c in cards if c.is_joker or c.rank != quads_base(cards)]
        else:
            wrong = [c for c in cards if not (c.is_joker or c.rank == rank)]
        return {
            "cards": [str(c) for c in cards],
            "claim": placed.claim(),
            "rank": rank.symbol if rank is not None else None,
            "wrong": [str(c) for c in wrong],
            "pile": sum(len(p.handles) for p in state.pile),
        }

    def _take_pile(self, state: BSState, *, taker: int, leader: int) -> None:
        # Every handle goes in one hidden transfer: the lower sets stay unseen (rule 21), and all
        # the cards, revealed ones included, come back under new handles (on_transferred).
        handles = tuple(h for placed in state.pile for h in placed.handles)
        state.pending.append(Transfer(handles, taker))
        state.pile = []
        state.turn = leader
        state.must_lead = True
        state.passes = 0
        state.passed = []
        state.current_rank = None
        state.quads_set = state.plus = None

    def _win_hand(self, state: BSState, seat: int, *, how: str) -> None:
        state.scores[seat] += 1
        state.hand_winners.append(seat)
        state.provisional = None
        _event(state, {"event": "hand won", "seat": seat, "scores": list(state.scores)})
        if how != "true":  # a face-up set told its own story ("bob goes out: ... were true")
            state.story.append({"event": "going out", "seat": seat, "true": True, "how": how})
        state.story.append(
            {
                "event": "hand won",
                "hand": state.hand_number,
                "seat": seat,
                "scores": list(state.scores),
                "target": state.match_target,
            }
        )
        if state.scores[seat] >= state.match_target:
            state.phase = "done"
            score_text = "-".join(map(str, state.scores))
            details: dict[str, Any] = {"hand_winners": list(state.hand_winners), "hands": state.hand_number}
            dropped = ""
            if state.out:  # ranked below every seat that played to the end (docs/games/cals-bs.md)
                details["out"] = list(state.out)
                dropped = "; " + ", ".join(f"seat {s}" for s in state.out) + " dropped out"
            state.result = Result(
                winners=(seat,),
                scores=tuple(float(s) for s in state.scores),
                summary=f"seat {seat} wins the match ({score_text} in hands won{dropped})",
                details=details,
            )
        else:
            state.dealer = state.left(state.dealer_seat())  # rule 5
            state.phase = "shuffle"  # a fresh shuffle for every hand
            state.story.append(
                {
                    "event": "summary",
                    "hand": state.hand_number + 1,
                    "scores": list(state.scores),
                    "target": state.match_target,
                    "dealer": state.dealer,
                    "leader": state.left(state.dealer),
                }
            )

    # -- audit ------------------------------------------------------------------------------

    def audit(
        self, state: BSState, actions: Sequence[tuple[int, Action]], faces: Mapping[int, Card]
    ) -> list[Violation]:
        violations = []
        for record in state.records:

            def violation(message: str) -> None:
                violations.append(Violation(record.seat, record.index, message))

            if any(h not in record.hand for h in record.handles):
                violation("placed cards it did not hold")
                continue
            if any(h not in faces for h in record.handles):
                # Never shown at the table (an undoubted set, a quads lead proven when it was
                # made, the hand of a seat that dropped out): nothing to check (issue 32).
                continue
            cards = [faces[h] for h in record.handles]
            if record.quads:
                if not is_valid_quads(cards):
                    violation(f"led quads that were not four of one rank without jokers: {' '.join(map(str, cards))}")
            elif record.must_be_truthful and not is_truthful(cards, record.rank):
                violation(
                    f"went out face up with {' '.join(map(str, cards))}, "
                    f"declared as {record.rank.symbol if record.rank else '?'}"
                )
        return violations

    # -- for people and bots ----------------------------------------------------------------

    def legal_actions(self, state: BSState, seat: int, known: Mapping[int, Card]) -> list[Action]:
        return representative_actions(self, state, seat, known)

    def absent_action(self, state: BSState, seat: int) -> Action | None:
        """Rule 28: a follower whose client is gone passes; a lead player cannot be played for."""
        return timeout_action(state, seat)

    def idle_action(self, state: BSState, seat: int, known: Mapping[int, Card]) -> Action | None:
        """Rule 28: an idle follower passes; an idle lead player's client leads one card as its
        true rank (a joker as the current rank, or A). The rules draw no random numbers, so the
        card is the lowest-ranked one (jokers last) rather than one chosen at random."""
        action = timeout_action(state, seat)
        if action is not None or state.phase != "play" or state.pending or state.turn != seat or not state.must_lead:
            return action
        hand = [h for h in state.hands[seat] if h in known]
        if not state.must_lead or not hand:
            return None
        # One card led as its own rank is truthful, so this is legal even as a going-out play.
        card = min(hand, key=lambda h: (known[h].is_joker, known[h].rank or 0, known[h].sort_key()))
        face = known[card]
        rank = face.rank or state.current_rank or Rank.ACE
        return {"type": "play", "cards": [card], "rank": rank.symbol}

    def view(self, state: BSState, seat: int | None, known: Mapping[int, Card]) -> dict[str, Any]:
        return text.view(self, state, seat, known)

    def story(self, state: BSState) -> Sequence[Mapping[str, Any]]:
        return state.story

    def tell(self, state: BSState, entry: Mapping[str, Any], names: Sequence[str]) -> str:
        return story.tell(entry, names)

    def format_action(self, state: BSState, seat: int, action: Action, faces: Mapping[int, Card]) -> str:
        return grammar.format_action(action, faces)

    def parse_action(self, state: BSState, seat: int, text: str, known: Mapping[int, Card]) -> Action:
        return grammar.parse_action(state, seat, text, known)

    def commands_help(self) -> str:
        return grammar.COMMANDS_HELP

"""The engine: runs any game to the end against any deck backend.

The engine sits between a game's pure rules and a deck that turns handles into faces. It does
not know which deck it has: the local open-faced dealer (:mod:`p2pcards.dealer`) for tests, bots
and simulations, or the mental-poker deck for real play. A deck backend is anything with the
methods of :class:`DeckBackend`.

:class:`Replica` holds one copy of a game's public state and its ordered log of actions; it is
what every peer keeps in step. :func:`play` drives a replica with bots until the game is done,
then runs the game's audit over the faces the deck gives at the end (the ones shown at the table,
on the mental-poker deck).

Events shown to bots (``Bot.observe``) are plain dicts:

* ``{"kind": "shuffle", "handles": [...]}``
* ``{"kind": "coin", "label": str, "value": int}``
* ``{"kind": "deal", "handles": [...]}`` (the handles dealt to the observing seat)
* ``{"kind": "reveal", "faces": {handle: Card}}``
* ``{"kind": "transfer", "handles": [...], "to": seat}`` (the moved cards' new handles)
* ``{"kind": "action", "seat": seat, "action": {...}, "index": i}``
* ``{"kind": "dropped", "seat": seat}`` (a seat dropped out: :data:`DROP_OUT`)

A seat drops out (issue 30) with the table's own move :data:`DROP_OUT` at its turn, never a
game's: the engine applies it with :meth:`Replica.turn_drop` and the deck's ``drop_out``.
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, overload

from .cards import Card
from .game import (
    Action,
    Bot,
    Coin,
    Deal,
    Done,
    Game,
    IllegalAction,
    Result,
    Reveal,
    Round,
    Shuffle,
    Step,
    Transfer,
    Turn,
    Violation,
)
from .wire.framing import FrameError, check_value, decode, encode

__all__ = [
    "DECK_STEPS",
    "DROP_OUT",
    "DeckBackend",
    "GameRecord",
    "PlayerError",
    "Replica",
    "carry_out",
    "deal_events",
    "deck_call",
    "is_drop_out",
    "learn",
    "order_round",
    "play",
]

#: The type of the table's own move by which a seat drops out at its turn (protocol/table.md
#: section 4, "Dropping out"; protocol version 10): ``{"type": "drop out"}`` and nothing else.
#: No game's action has this type (the type has a space, which no game's grammar makes).
DROP_OUT = "drop out"


def is_drop_out(action: Any) -> bool:
    """``action`` is the table's drop-out move (well formed or not: :meth:`Replica.turn_drop`
    refuses one with anything else in it)."""
    return isinstance(action, dict) and action.get("type") == DROP_OUT


#: A generous bound on steps: no shipped game comes near it; a game that does has a loop bug.
MAX_STEPS = 200_000


class DeckBackend(Protocol):
    """What the engine needs from a deck. Every method returns once the operation is complete
    for every seat."""

    def shuffle(self) -> list[int]:
        """Shuffle the whole deck afresh; return the new handles in stock order."""

    def coin(self, label: str, bound: int) -> int:
        """A public random integer in ``range(bound)`` that no player can bias."""

    def deal(self, to: Mapping[int, int]) -> None:
        """Give each handle privately to its seat."""

    def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]:
        """Open handles for everyone; return their faces."""

    def transfer(self, handles: Sequence[int], to: int) -> list[int]:
        """Move hidden handles to a new holder, who learns them; return the cards' new handles
        (one per distinct old handle, fresh numbers, in an order that reveals nothing about the
        old ones). ``known(to)`` gains their faces under the old and the new handles."""

    def known(self, seat: int) -> Mapping[int, Card]:
        """Every face ``seat`` can see: its own cards, cards it held, every public card."""

    def open_all(self) -> dict[int, Card]:
        """At the end: the faces the game's audit reads. The mental-poker deck gives the faces
        the table saw (every card opened to all, protocol/deck.md §7); the open-faced local
        dealer, which hides nothing from itself, every face of every handle ever used."""


#: The steps a deck carries out (the others are a seat's turn and the end).
DECK_STEPS = (Shuffle, Coin, Deal, Reveal, Transfer)


def deck_call(step: Step) -> tuple[str, tuple[Any, ...]]:
    """The deck method that carries out a deck step, and its arguments. The same names serve a
    :class:`DeckBackend` and the session's awaitable deck."""
    if isinstance(step, Shuffle):
        return "shuffle", ()
    if isinstance(step, Coin):
        return "coin", (step.label, step.bound)
    if isinstance(step, Deal):
        return "deal", (step.to,)
    if isinstance(step, Reveal):
        return "reveal", (step.handles, step.owner)
    if isinstance(step, Transfer):
        return "transfer", (step.handles, step.to)
    raise TypeError(f"{step!r} is not a deck step")


def learn(game: Game, state: Any, step: Step, outcome: Any) -> dict[str, Any]:
    """Tell the game what a deck step produced (``outcome``: what :func:`deck_call`'s method
    returned); returns the event shown to bots (a deal's goes to each seat separately, see
    :func:`deal_events`)."""
    if isinstance(step, Shuffle):
        game.on_shuffled(state, outcome)
        return {"kind": "shuffle", "handles": list(outcome)}
    if isinstance(step, Coin):
        game.on_coin(state, step.label, outcome)
        return {"kind": "coin", "label": step.label, "value": outcome}
    if isinstance(step, Deal):
        game.on_dealt(state, step)
        return {"kind": "deal", "to": dict(step.to)}
    if isinstance(step, Reveal):
        game.on_reveal(state, outcome)
        return {"kind": "reveal", "faces": outcome}
    if isinstance(step, Transfer):
        game.on_transferred(state, step, outcome)
        return {"kind": "transfer", "handles": list(outcome), "to": step.to}
    raise TypeError(f"{step!r} is not a deck step")


def carry_out(game: Game, state: Any, step: Step, deck: DeckBackend) -> dict[str, Any]:
    """Have a synchronous deck carry out a deck step and tell the game; returns the event."""
    name, args = deck_call(step)
    return learn(game, state, step, getattr(deck, name)(*args))


def deal_events(deal: Deal) -> dict[int, dict[str, Any]]:
    """What each receiving seat is told of a deal: only its own handles."""
    events: dict[int, dict[str, Any]] = {}
    for handle, seat in deal.to.items():
        events.setdefault(seat, {"kind": "deal", "handles": []})["handles"].append(handle)
    return events


class PlayerError(RuntimeError):
    """A seat's agent produced an action the rules refuse (a bug in a bot or a cheating peer)."""

    def __init__(self, seat: int, action: Any, reason: str):
        super().__init__(f"seat {seat} made an illegal move {action!r}: {reason}")
        self.seat = seat
        self.action = action
        self.reason = reason


class ActionLog(Sequence[tuple[int, Action]]):
    """Every action of a game, in order, as ``(seat, action)``, kept encoded: a list of the
    decoded actions held about 384 bytes an action (a Cal's BS move), this about 36 (issue 23:
    a long match's actions are read only by the audit at its end). Each item is decoded anew
    when read (equal to the action appended: plain data, checked when it was applied)."""

    def __init__(self, items: Iterable[tuple[int, Action]] = ()) -> None:
        self._seats = array("H")
        self._ends = array("Q")
        self._data = bytearray()
        for seat, action in items:
            self.append((seat, action))

    def append(self, item: tuple[int, Action]) -> None:
        seat, action = item
        self._data += encode(action)
        self._seats.append(seat)
        self._ends.append(len(self._data))

    def __len__(self) -> int:
        return len(self._seats)

    def _item(self, index: int) -> tuple[int, Action]:
        start = self._ends[index - 1] if index else 0
        return self._seats[index], decode(bytes(self._data[start : self._ends[index]]))

    @overload
    def __getitem__(self, index: int) -> tuple[int, Action]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, Action]]: ...

    def __getitem__(self, index: int | slice) -> tuple[int, Action] | list[tuple[int, Action]]:
        if isinstance(index, slice):
            return [self._item(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("action index out of range")
        return self._item(index)

    def __iter__(self) -> Iterator[tuple[int, Action]]:
        return (self._item(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (ActionLog, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ActionLog({list(self)!r})"


@dataclass
class Replica:
    """One copy of a game's public state and its log of actions."""

    game: Game
    options: Mapping[str, Any]
    players: int
    state: Any = None
    actions: ActionLog = field(default_factory=ActionLog)
    #: Seats that dropped out, each with the number of actions before its drop.
    dropped: list[tuple[int, int]] = field(default_factory=list)
    #: Checks a hidden claim's proof (``Game.hidden_claim``): ``(index, seat, handles, sets,
    #: proof)`` -> why it is refused, or None. The mental-poker deck's ``check_claim``; None
    #: (the local dealer's tables): claims are not proven.
    claims: Callable[[int, int, list[int], list[list[Card]], Any], str | None] | None = None

    def __post_init__(self) -> None:
        if self.state is None:
            self.state = self.game.new_state(self.options, self.players)

    def next_step(self) -> Step:
        step = self.game.next_step(self.state)
        problem = _step_problem(step, self.players)
        if problem:
            raise TypeError(f"{self.game.id}: next_step returned {step!r}: {problem}")
        return step

    def may_act(self, seat: int) -> bool:
        """The game's next step asks ``seat`` to act (its turn, or a round it is in)."""
        step = self.game.next_step(self.state)
        return (isinstance(step, Turn) and step.seat == seat) or (isinstance(step, Round) and seat in step.seats)

    def act(self, seat: int, action: Action) -> int:
        """Check and apply an action from ``seat``; returns its index in the log.
        Raises :class:`IllegalAction` (the state is unchanged) when public rules refuse it."""
        if not self.may_act(seat):
            raise IllegalAction(f"it is not seat {seat}'s turn")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction("an action must be a mapping with a 'type'")
        try:  # what peers and transcripts carry: caught here, in local games and tests too
            check_value(action)
        except FrameError as exc:
            raise IllegalAction(f"an action must be plain data: {exc.reason}") from None
        self.game.check(self.state, seat, action)
        if self.claims is not None:
            claim = self.game.hidden_claim(self.state, seat, action)
            if claim is not None:
                reason = self.claims(len(self.actions), seat, claim[0], claim[1], action.get("proof"))
                if reason is not None:
                    raise IllegalAction(f"a hidden claim refused: {reason}")
        self.game.apply(self.state, seat, action)
        self.actions.append((seat, action))
        return len(self.actions) - 1

    def drop_out(self, seat: int) -> None:
        """``seat`` drops out of the game (issue 30), where the game's rules allow it now
        (:meth:`Game.drop_out_refusal`): its cards are set aside unseen and the game goes on
        without it. Raises :class:`IllegalAction` (the state is unchanged) where they don't.
        The action log is unchanged: a drop is not a move of the game."""
        if type(seat) is not int or not 0 <= seat < self.players:
            raise IllegalAction("no such seat")
        refusal = self.game.drop_out_refusal(self.state, seat)
        if refusal is not None:
            raise IllegalAction(refusal)
        self.game.drop_out(self.state, seat)
        self.dropped.append((seat, len(self.actions)))

    def turn_drop(self, seat: int, action: Action) -> None:
        """``seat``'s move at its turn is the table's drop-out move (:data:`DROP_OUT`): apply
        the drop, or raise :class:`IllegalAction` (the state is unchanged) when it is not
        ``seat``'s turn (a free-order round's response never is one), the move carries anything
        but its type, or the game's rules refuse the drop now."""
        step = self.game.next_step(self.state)
        if not (isinstance(step, Turn) and step.seat == seat):
            raise IllegalAction(f"seat {seat} may drop out only at its own turn")
        if set(action) != {"type"}:
            raise IllegalAction("a drop-out move is {'type': 'drop out'} and nothing else")
        self.drop_out(seat)

    def in_round(self, seat: int, round_: Round) -> bool:
        """``round_`` is still going on (the game's next step is that round: opened by the same
        seat, not decided) and ``seat`` may still respond to it."""
        step = self.game.next_step(self.state)
        return isinstance(step, Round) and step.after == round_.after and seat in step.seats

    def respond(self, round_: Round, ordered: Sequence[tuple[int, Action]]) -> list[int | None]:
        """Apply ``round_``'s responses in the table's order while the round goes on; the index
        in the log of each, or ``None`` for one that came after the round was decided (void).
        Raises :class:`IllegalAction` for a response the public rules refuse."""
        return [self.act(seat, action) if self.in_round(seat, round_) else None for seat, action in ordered]


def order_round(
    responses: Mapping[int, Action], saw: Mapping[int, set[int]], after: int, players: int
) -> list[tuple[int, Action]]:
    """The one order of a :class:`Round`'s responses (protocol/table.md section 9): a response
    comes after every response its author had seen (``saw[seat]``: the seats whose responses
    it had); among responses none of which waits on another, the one whose seat is nearest
    ``after``'s left comes first. Claims that contradict each other (each saw the other) are
    broken by the same seat order."""
    remaining, ordered = set(responses), []
    while remaining:
        ready = [seat for seat in remaining if not (saw.get(seat, set()) & remaining)]
        seat = min(ready or remaining, key=lambda s: (s - after - 1) % players)
        ordered.append((seat, responses[seat]))
        remaining.remove(seat)
    return ordered


@dataclass
class GameRecord:
    """What :func:`play` returns."""

    result: Result
    violations: list[Violation]
    actions: Sequence[tuple[int, Action]]
    faces: dict[int, Card]
    steps: int


def play(
    game: Game,
    options: Mapping[str, Any],
    players: int,
    deck: DeckBackend,
    bots: Sequence[Bot],
    *,
    check_own: bool = True,
    round_order: Callable[[Round, dict[int, Action]], list[tuple[int, Action]]] | None = None,
    replica: Replica | None = None,
    on_step: Callable[[Step], None] | None = None,
    prove_claims: bool = True,
) -> GameRecord:
    """Run one whole game with ``bots[seat]`` choosing for each seat.

    ``check_own=False`` skips the actor's own-cards check, which lets a test bot cheat the
    way a modified client would, so the audit can be shown to catch it. ``round_order`` puts a
    free-order round's responses in order (``p2pcards verify``: by their signed head echoes);
    by default the bot with the shorter reaction time acted first.

    ``replica`` plays on from a game already under way (a test's scenario, whose ``deck`` is
    the one it was dealt with) instead of a new one; the bots are told only what happens from
    then on. ``on_step`` is called with every step before it is carried out or answered (a
    test's record of the game, :mod:`p2pcards.testing`).

    With a deck that proves hidden claims (the mental-poker deck's ``check_claim`` and
    ``prove_claim``), the replica checks every claim (``Game.hidden_claim``), and with
    ``prove_claims`` a bot's claim is proven by its seat's party before it is acted on (one it
    cannot prove, a false one, goes without a proof and is refused). ``p2pcards verify`` plays
    the signed moves, proofs included: ``prove_claims=False``."""
    if replica is None:
        replica = Replica(game, options, players, claims=getattr(deck, "check_claim", None))
    state = replica.state
    # Only bots that override Bot.observe (a no-op) need to be told anything.
    watching = [seat for seat in range(players) if _observes(bots[seat])]

    def tell(event: dict[str, Any], seats: Sequence[int] | None = None) -> None:
        for seat in watching if seats is None else (s for s in seats if s in watching):
            bots[seat].observe(state, event, deck.known(seat))

    for steps in range(MAX_STEPS):
        step = replica.next_step()
        if on_step is not None:
            on_step(step)
        if isinstance(step, Turn):
            seat = step.seat
            known = deck.known(seat)
            action = bots[seat].choose(state, known)
            if is_drop_out(action):
                try:
                    replica.turn_drop(seat, action)
                except IllegalAction as exc:
                    raise PlayerError(seat, action, str(exc)) from None
                drop_out = getattr(deck, "drop_out", None)
                if drop_out is not None:  # (the open-faced dealer keeps no keys to publish)
                    drop_out(seat)
                tell({"kind": "dropped", "seat": seat})
                continue
            if prove_claims:
                action = with_claim_proof(game, replica, deck, seat, action)
            try:
                if check_own:
                    game.check_own(state, seat, action, known)
                index = replica.act(seat, action)
            except IllegalAction as exc:
                raise PlayerError(seat, action, str(exc)) from None
            tell({"kind": "action", "seat": seat, "action": action, "index": index})
        elif isinstance(step, Round):
            # Every seat of the round chooses against the same state; the bot that reacts
            # sooner acted first (it had not seen the slower ones), as at a table.
            responses, times = {}, {}
            for seat in step.seats:
                known = deck.known(seat)
                responses[seat] = action = bots[seat].choose(state, known)
                times[seat] = bots[seat].reaction_time(state, known, action)
                if check_own:
                    try:
                        game.check_own(state, seat, action, known)
                    except IllegalAction as exc:
                        raise PlayerError(seat, action, str(exc)) from None
            if round_order is not None:
                ordered = round_order(step, responses)
            else:
                saw = {s: {t for t in step.seats if times[t] < times[s]} for s in step.seats}
                ordered = order_round(responses, saw, step.after, players)
            for seat, action in ordered:
                if not replica.in_round(seat, step):
                    continue  # void: the round was decided before it
                try:
                    index = replica.act(seat, action)
                except IllegalAction as exc:
                    raise PlayerError(seat, action, str(exc)) from None
                tell({"kind": "action", "seat": seat, "action": action, "index": index})
        elif isinstance(step, DECK_STEPS):
            event = carry_out(game, state, step, deck)
            if isinstance(step, Deal):  # each seat is told only of its own cards
                for seat, own in deal_events(step).items():
                    tell(own, [seat])
            else:
                tell(event)
        elif isinstance(step, Done):
            faces = deck.open_all()
            violations = game.audit(state, replica.actions, faces)
            return GameRecord(step.result, violations, replica.actions, faces, steps)
        else:  # pragma: no cover - Replica.next_step refuses anything that is not a Step
            raise TypeError(f"{game.id}: next_step returned {step!r}, not a Step")
    raise RuntimeError(f"{game.id}: no result after {MAX_STEPS} steps (a loop in the rules?)")


def with_claim_proof(game: Game, replica: Replica, deck: Any, seat: int, action: Action) -> Action:
    """``action`` with the proof of its hidden claim (``Game.hidden_claim``) made by ``seat``'s
    side of ``deck`` (its ``prove_claim``), where it makes one and the deck proves claims; the
    action unchanged otherwise, and where it cannot be proven (a false claim, a move the public
    rules refuse, a plugin that fails on it: the table's own checks then refuse it, or stop on
    the plugin, as they would without a claim)."""
    prove = getattr(deck, "prove_claim", None)
    if prove is None or not isinstance(action, dict) or "proof" in action:
        return action
    try:
        claim = game.hidden_claim(replica.state, seat, action)
    except Exception:  # noqa: BLE001 - a move the rules refuse, or a plugin bug: the table's checks say which
        return action
    if claim is None:
        return action
    try:
        return {**action, "proof": prove(seat, len(replica.actions), claim[0], claim[1])}
    except ValueError:
        return action


def _step_problem(step: Any, players: int) -> str | None:
    """Why ``step`` cannot be carried out at a table of ``players`` seats, or None."""
    if not isinstance(step, (*DECK_STEPS, Turn, Round, Done)):
        return "not a Step (Shuffle, Coin, Deal, Reveal, Transfer, Turn, Round or Done)"
    seats = []
    if isinstance(step, Turn):
        seats = [step.seat]
    elif isinstance(step, Round):
        if not step.seats or len(set(step.seats)) != len(step.seats):
            return "a Round needs one or more distinct seats"
        seats = [*step.seats, step.after]
    elif isinstance(step, Deal):
        seats = list(step.to.values())
    elif isinstance(step, Reveal) and step.owner is not None:
        seats = [step.owner]
    elif isinstance(step, Transfer):
        seats = [step.to]
    for seat in seats:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            return f"seat {seat!r} is not one of 0..{players - 1}"
    return None


def _observes(bot: Bot) -> bool:
    return getattr(bot.observe, "__func__", None) is not Bot.observe


def seeded_rng(seed: int | str, *parts: Any) -> random.Random:
    """A reproducible RNG for bots and the local dealer, independent per ``parts``."""
    return random.Random(f"{seed}/" + "/".join(map(str, parts)))

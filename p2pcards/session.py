"""The table session: one seat's view of a running game, and the only thing a console talks to.

A :class:`TableSession` runs the engine's loop asynchronously (under trio) for one *local* seat:

* every turn is answered by that seat's :class:`SeatAgent`: a :class:`HumanSeat` fed by the
  console, a :class:`BotSeat`, or (in network play) a remote seat whose signed actions arrive
  over the wire;
* every deck step is carried out by an :class:`AsyncDeck`: the local open-faced dealer or the
  in-process mental-poker deck wrapped by :class:`SyncDeck`, or the networked deck;
* every change is published as a plain-data :class:`TableEvent` to subscribers (console views,
  bots, transcript writers).

The console calls :meth:`TableSession.submit` with what the player typed (parsed by the game's
own grammar) and renders :meth:`TableSession.view`; it never touches the engine, the deck or the
network directly.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import trio

from .cards import Card
from .engine import (
    DECK_STEPS,
    DROP_OUT,
    MAX_STEPS,
    DeckBackend,
    Replica,
    deal_events,
    deck_call,
    is_drop_out,
    learn,
    order_round,
)
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
    agree,
    result_words,
)
from .table.protocol import MAX_CHAT
from .text import name_seats, printable

__all__ = [
    "AsyncDeck",
    "BotSeat",
    "DroppingOut",
    "HumanSeat",
    "SeatAgent",
    "SeatPresence",
    "SyncDeck",
    "TableEvent",
    "TableSession",
]

#: The events a session keeps (``TableSession.history``); past it, the oldest half goes. A
#: Cal's BS hand at 3 players publishes about 200 (issue 23: a long match's grew without end).
HISTORY_EVENTS = 4096


@dataclass(frozen=True)
class TableEvent:
    """Something that happened at the table, as the local seat may see it.

    ``kind`` is one of ``phase``, ``shuffle``, ``coin``, ``deal``, ``reveal``, ``transfer``,
    ``action``, ``story``, ``chat``, ``progress``, ``connection``, ``error``, ``done``. ``text``
    is a line for people; ``data`` is plain data for programs.

    A ``story`` event is an outcome the game tells (:meth:`~p2pcards.game.Game.story`: a trick
    won, a doubt settled, a hand over), ``data["entry"]`` its plain data; a coin's story is the
    coin's own text (its entries in ``data["story"]``). A play whose cards are turned face up
    at once is told in one line: its ``action`` event has ``data["reveal_follows"]``, and the
    ``reveal`` that follows says the move with its faces (``data["seat"]``, ``data["action"]``,
    ``data["index"]``); a console shows that line alone."""

    kind: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SeatPresence:
    """Whether a seat's player is connected, as the local seat knows it: ``online``; ``away``
    (its connection dropped: ``grace_left`` seconds remain before the table gives up on it);
    or ``gone`` (it left, stopped its game, or stayed away past the grace period)."""

    state: str
    grace_left: float | None = None


class AsyncDeck(Protocol):
    """The engine's :class:`~p2pcards.engine.DeckBackend`, with awaitable operations."""

    async def shuffle(self) -> list[int]: ...
    async def coin(self, label: str, bound: int) -> int: ...
    async def deal(self, to: Mapping[int, int]) -> None: ...
    async def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]: ...
    async def transfer(self, handles: Sequence[int], to: int) -> list[int]: ...
    def known(self, seat: int) -> Mapping[int, Card]: ...
    async def open_all(self) -> dict[int, Card]: ...
    async def drop_out(self, seat: int) -> None: ...


class SyncDeck:
    """Adapts a synchronous in-process deck backend (local dealer, in-process mental poker).

    ``cost`` says whether operations take long enough (real crypto) to run in a worker thread,
    keeping the console responsive while the deck is shuffled."""

    def __init__(self, backend: DeckBackend, *, in_thread: bool = False):
        self.backend = backend
        self.in_thread = in_thread

    async def _run(self, fn: Callable, *args: Any) -> Any:
        if self.in_thread:
            return await trio.to_thread.run_sync(fn, *args)
        await trio.lowlevel.checkpoint()
        return fn(*args)

    async def shuffle(self) -> list[int]:
        return await self._run(self.backend.shuffle)

    async def coin(self, label: str, bound: int) -> int:
        return await self._run(self.backend.coin, label, bound)

    async def deal(self, to: Mapping[int, int]) -> None:
        await self._run(self.backend.deal, to)

    async def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]:
        return await self._run(self.backend.reveal, handles, owner)

    async def transfer(self, handles: Sequence[int], to: int) -> list[int]:
        return await self._run(self.backend.transfer, handles, to)

    def known(self, seat: int) -> Mapping[int, Card]:
        return self.backend.known(seat)

    async def open_all(self) -> dict[int, Card]:
        return await self._run(self.backend.open_all)

    async def drop_out(self, seat: int) -> None:
        drop_out = getattr(self.backend, "drop_out", None)
        if drop_out is not None:  # (the open-faced dealer keeps no keys to publish)
            await self._run(drop_out, seat)


class SeatAgent(Protocol):
    """Who answers a seat's turns."""

    async def choose(self, session: TableSession, seat: int) -> Action: ...


class BotSeat:
    """A bot in a seat; ``delay`` seconds of thinking time make a game watchable. In a free-order
    round it also takes its human-like reaction time (``Bot.reaction_time``) times
    ``reaction``: who responds first wins a race."""

    def __init__(self, bot: Bot, *, delay: float = 0.0, reaction: float = 1.0):
        self.bot = bot
        self.delay = delay
        self.reaction = reaction

    async def choose(self, session: TableSession, seat: int) -> Action:
        if self.delay:
            await trio.sleep(self.delay)
        state, known = session.replica.state, session.deck.known(seat)
        action = self.bot.choose(state, known)
        if isinstance(session.step, Round) and self.reaction:
            await trio.sleep(self.bot.reaction_time(state, known, action) * self.reaction)
        return action

    def observe(self, session: TableSession, seat: int, event: Mapping[str, Any]) -> None:
        self.bot.observe(session.replica.state, event, session.deck.known(seat))


#: Wakes a person's seat whose turn the table is asking for when a bot takes it over.
_HANDED_OVER: Action = {"type": "handed over"}


class HumanSeat:
    """A seat played by a person: :meth:`TableSession.submit` hands actions to it. It takes one
    action each time the session asks (a second one typed quickly, or one typed as a free-order
    round is decided for the person, is refused rather than kept for the next turn)."""

    def __init__(self) -> None:
        self._send, self._receive = trio.open_memory_channel[Action](math.inf)
        self.waiting = False  # the session asks for an action and none was put yet
        #: Once the person left the table and let a bot finish the seat (:meth:`hand_over`).
        self.bot: SeatAgent | None = None

    async def choose(self, session: TableSession, seat: int) -> Action:
        if self.bot is not None:
            return await self.bot.choose(session, seat)
        self.waiting = True
        try:
            action = await self._receive.receive()
        finally:
            self.waiting = False
        if action is _HANDED_OVER:  # the person left while the table asked: the bot answers
            assert self.bot is not None, "set before the wake-up is sent"
            return await self.bot.choose(session, seat)
        return action

    def hand_over(self, bot: SeatAgent) -> None:
        """The person leaves: ``bot`` plays the seat from now on (the turn the table is asking
        for, if any, too). Nothing the person types is taken any more."""
        self.bot = bot
        if self.waiting:
            self.waiting = False
            self._send.send_nowait(_HANDED_OVER)

    def observe(self, session: TableSession, seat: int, event: Mapping[str, Any]) -> None:
        """Once a bot plays the seat, it is told what the seat sees from then on."""
        observe = getattr(self.bot, "observe", None)
        if observe is not None:
            observe(session, seat, event)

    def put(self, action: Action) -> None:
        if self.bot is not None:
            raise IllegalAction("a bot plays your seat now: you left the table")
        if not self.waiting:
            raise IllegalAction("wait: the table is not asking for your move now")
        self.waiting = False
        self._send.send_nowait(action)


class DroppingOut:
    """The seat of a player who drops out (issue 30): at its first turn where the game's rules
    allow it, the table's drop-out move; until then ``bot`` plays it (the player has left)."""

    def __init__(self, bot: SeatAgent):
        self.bot = bot
        self._told: str | None = None  # the last reason told why not yet

    async def choose(self, session: TableSession, seat: int) -> Action:
        if isinstance(session.step, Turn):
            refusal = session.game.drop_out_refusal(session.state, seat)
            if refusal is None:
                return {"type": DROP_OUT}
            if refusal != self._told:  # once a reason: the player's screen says why it waits
                self._told = refusal
                session.publish("notice", f"you do not drop out yet: {refusal}; a bot plays meanwhile", seat=seat)
        return await self.bot.choose(session, seat)

    def observe(self, session: TableSession, seat: int, event: Mapping[str, Any]) -> None:
        observe = getattr(self.bot, "observe", None)
        if observe is not None:
            observe(session, seat, event)


class TableSession:
    """One table, run for the local seat ``me`` (``None`` for a spectator or a bots-only run)."""

    def __init__(
        self,
        game: Game,
        options: Mapping[str, Any],
        players: int,
        deck: AsyncDeck,
        seats: Sequence[SeatAgent],
        *,
        me: int | None = None,
        names: Sequence[str] | None = None,
    ):
        if len(seats) != players:
            raise ValueError(f"{players} players need {players} seat agents, not {len(seats)}")
        self.game = game
        self.options = dict(options)
        self.players = players
        self.deck = deck
        self.seats = list(seats)
        self.me = me
        self.names = list(names) if names else [f"seat {i}" for i in range(players)]
        self.replica = Replica(game, self.options, players, claims=getattr(deck, "check_claim", None))
        self.step: Step | None = None
        self.phase = "starting"
        self.result: Result | None = None
        self.violations: list[Violation] = []
        self.faces: dict[int, Card] = {}
        #: Where this seat's transcript goes; ``transcript_saved`` once it is there (after the
        #: game, when every seat's result is in: net/table.py publishes a ``saved`` event).
        self.transcript_path: str | None = None
        self.transcript_saved = False
        #: The events published so far, the newest last: at most the last HISTORY_EVENTS.
        self.history: list[TableEvent] = []
        #: Events published so far, ever: a cache key (the history's length, once trimmed,
        #: comes back to values it had before, at another moment of the game).
        self.published = 0
        #: How many of the game's story entries have been published.
        self.told = 0
        #: Every handle turned face up so far (a transfer says how many of its cards were seen).
        self._shown: set[int] = set()
        #: A play whose own cards the next step turns face up: (seat, action, index).
        self._revealing: tuple[int, Action, int] | None = None
        self._subscribers: list[Callable[[TableEvent], None]] = []
        #: Called with each line the local player says (the network peer sends it on).
        self.on_say: Callable[[str], None] | None = None
        #: The seats whose response to the current free-order round is in, in arrival order.
        self._answered: list[int] = []
        #: How a free-order round's responses are ordered: by default as they arrived here
        #: (each had seen those before it); a networked peer orders them by their signed head
        #: echoes instead (protocol/table.md section 9).
        self.round_order: Callable[[Round, dict[int, Action], list[int]], list[tuple[int, Action]]] = (
            self._arrival_order
        )
        #: A networked table seals free-order responses (protocol/table.md section 9): each
        #: seat's agent returns its response once it is committed to (another seat's as
        #: ``rounds.SEALED``: nobody knows it yet), and once every follower's commitment is in
        #: this opens them all (the peer signs our opening and waits for the others'). ``None``
        #: (a table in this process): responses are known as they come.
        self.open_round: Callable[[Round, dict[int, Action]], Awaitable[dict[int, Action]]] | None = None
        #: Seconds a connected player has for a move, when the table limits it (a networked
        #: table's turn timeout); ``None``: no limit.
        self.turn_limit: float | None = None
        #: Where :meth:`presence` asks about a seat's connection (the network peer sets it);
        #: ``None`` at a table played in this process, where every seat is always here.
        self.presence_of: Callable[[int], SeatPresence] | None = None
        #: Who says a line typed at a session without a seat (a spectator's console).
        self.spectator_name = "spectator"
        #: At a networked table where a person plays the local seat: the person leaves and
        #: lets ``bot`` finish the seat (the network peer sets it; it tells the table).
        self.leave_to_bot: Callable[[SeatAgent], None] | None = None
        #: At a networked table where a person plays the local seat: the person leaves and
        #: drops out (issue 30) at the seat's first turn where the rules allow it, ``bot``
        #: playing until then (the network peer sets it).
        self.leave_to_drop_out: Callable[[SeatAgent], None] | None = None
        #: The seat whose move is being applied (an :class:`IllegalAction` out of :meth:`run`
        #: is that seat's: in a free-order round, the opened response the rules refused).
        self.acting: int | None = None

    # -- for the console ------------------------------------------------------------------

    @property
    def state(self) -> Any:
        return self.replica.state

    def known(self) -> Mapping[int, Card]:
        return self.deck.known(self.me) if self.me is not None else {}

    def view(self) -> dict[str, Any]:
        return self.game.view(self.state, self.me, self.known())

    @property
    def my_turn(self) -> bool:
        """The local seat may act now: its turn, or a free-order round it has not answered."""
        if isinstance(self.step, Turn):
            return self.step.seat == self.me
        return isinstance(self.step, Round) and self.me in self.step.seats and self.me not in self._answered

    def presence(self) -> list[SeatPresence] | None:
        """Each seat's connection state (see :class:`SeatPresence`), or ``None`` when the table
        has no connections to speak of (every seat plays in this process)."""
        if self.presence_of is None:
            return None
        return [self.presence_of(seat) for seat in range(self.players)]

    def legal_actions(self) -> Sequence[Action]:
        if not self.my_turn or self.me is None:  # (my_turn is False when watching)
            return []
        return self.game.legal_actions(self.state, self.me, self.known())

    def parse(self, text: str) -> Action:
        """What the local player typed, as an action; :class:`IllegalAction` says what's wrong."""
        if self.me is None:
            raise IllegalAction("you are watching, not playing")
        return self.game.parse_action(self.state, self.me, text, self.known())

    def submit(self, action: Action) -> None:
        """Play an action for the local seat now, or raise :class:`IllegalAction`."""
        if not self.my_turn or self.me is None:  # (my_turn is False when watching)
            raise IllegalAction("it is not your turn")
        self.game.check_own(self.state, self.me, action, self.known())
        # A HumanSeat, or a seat that wraps one (the network's LocalSeat signs and sends the
        # move): either takes the action through put().
        put = getattr(self.seats[self.me], "put", None)
        if not callable(put):
            raise IllegalAction("this seat is played by a bot")
        put(action)

    def describe(self, seat: int, action: Action) -> str:
        return self.game.format_action(self.state, seat, action, self.known())

    def subscribe(self, callback: Callable[[TableEvent], None]) -> None:
        self._subscribers.append(callback)

    def say(self, text: str) -> None:
        """Chat from the local seat, published as a ``chat`` event; at a networked table the
        peer (``on_say``) also sends it to the other seats as a signed entry."""
        # One line, and nothing a terminal acts on: what the others see is what was typed.
        text = printable(" ".join(text.split()))[:MAX_CHAT]
        if not text:
            return
        who = self.names[self.me] if self.me is not None else self.spectator_name
        self.publish("chat", f"{who}: {text}", seat=self.me, message=text)
        if self.on_say is not None:
            self.on_say(text)

    # -- running --------------------------------------------------------------------------

    def publish(self, kind: str, text: str, **data: Any) -> None:
        """Record an event and tell every subscriber. The session publishes the game's own
        events; the driver of a networked seat adds ``progress``, ``connection``, ``chat`` and
        ``error`` events."""
        event = TableEvent(kind, text, data)
        self.history.append(event)
        self.published += 1
        if len(self.history) > HISTORY_EVENTS:
            # A long match: the oldest half goes (the console keeps its own log lines).
            del self.history[: HISTORY_EVENTS // 2]
        for callback in list(self._subscribers):
            callback(event)

    def _tell_bots(self, event: dict[str, Any], only: Sequence[int] | None = None) -> None:
        """Tell every seat's bot an event its seat may see: a :class:`BotSeat`, also inside a
        networked table's own seat (net/seats.py ``LocalSeat`` hands ``observe`` on to the
        agent it wraps) or a person's seat a bot plays now (:meth:`HumanSeat.hand_over`)."""
        for seat, agent in enumerate(self.seats):
            observe = getattr(agent, "observe", None)
            if observe is not None and (only is None or seat in only):
                observe(self, seat, event)

    def _set_phase(self, phase: str) -> None:
        if phase != self.phase:
            self.phase = phase
            self.publish("phase", phase, phase=phase)

    def _deck_text(self, step: Step, event: dict[str, Any]) -> str:
        kind = event["kind"]
        if kind == "shuffle":
            return "the deck is shuffled"
        if kind == "coin":  # what it decides is the game's to tell (see _carry_out)
            return f"coin {event['label']}: {event['value']}"
        if kind == "deal":
            count, seats = len(event["to"]), set(event["to"].values())
            cards = _count(count, "card")
            if len(seats) == 1 and len(self.names) > 1:  # a draw: say who took it
                return f"{cards} dealt to {self.names[seats.pop()]}"
            return f"{cards} dealt"
        if kind == "reveal":
            faces = " ".join(face.unicode() for face in event["faces"].values())
            owner = step.owner if isinstance(step, Reveal) else None
            if owner is not None and 0 <= owner < len(self.names):
                return f"{self.names[owner]} {agree(self.names[owner], 'shows')} {faces}"
            return f"turned face up from the stock: {faces}"  # (nobody holds them: Reveal)
        assert isinstance(step, Transfer)
        # The new holder takes them hidden from the others; some may have been face up before
        # (a doubted set in the pile): those are no secret, and the line does not call them so.
        count, seen = len(set(step.handles)), len(set(step.handles) & self._shown)
        to = self.names[event["to"]]
        if not seen:
            return f"{_count(count, 'hidden card')} {'go' if count != 1 else 'goes'} to {to}"
        if seen == count:
            return f"{_count(count, 'card')} {'go' if count != 1 else 'goes'} to {to} (seen face up)"
        return f"{_count(count, 'card')} go to {to} ({seen} of them seen face up)"

    def _new_story(self) -> list[tuple[Mapping[str, Any], str]]:
        """The game's story entries not published yet, each with its line."""
        story = self.game.story(self.state)
        # Only the new entries: copying the whole story at each step grew with the match.
        entries = list(story[self.told :] if isinstance(story, Sequence) else list(story)[self.told :])
        self.told += len(entries)
        return [(entry, self._tell(entry)) for entry in entries]

    def _tell(self, entry: Mapping[str, Any]) -> str:
        try:
            return self.game.tell(self.state, entry, self.names)
        except Exception as exc:  # a game's text bug must not stop the table
            return f"({self.game.id} could not tell {entry.get('event', 'an event')}: {exc})"

    def _publish_story(self) -> None:
        for entry, line in self._new_story():
            if line:
                self.publish("story", line, entry=dict(entry))

    def _publish_action(self, seat: int, action: Action, index: int, **extra: Any) -> None:
        """An applied action, and what it made the game tell. A play whose own cards the next
        step turns face up is said with them once they are (see :class:`TableEvent`)."""
        follows = self._reveals_own_cards(action)
        if follows:
            extra["reveal_follows"] = True
            self._revealing = (seat, action, index)
        text = f"{self.names[seat]} {self.describe(seat, action)}"
        self.publish("action", text, seat=seat, action=action, index=index, **extra)
        self._publish_story()

    def _reveals_own_cards(self, action: Action) -> bool:
        """Whether the next step turns up cards of ``action`` (its ``card`` or ``cards``) alone."""
        step = self.replica.next_step()
        if not isinstance(step, Reveal) or not step.handles:
            return False
        named = action.get("cards")
        handles = set(named) if isinstance(named, list) else set()
        if isinstance(action.get("card"), int):
            handles.add(action["card"])
        return set(step.handles) <= handles

    async def run(self) -> Result:
        """Play the game to the end and run the audit; returns the result."""
        game, state = self.game, self.replica.state
        for _ in range(MAX_STEPS):
            self.step = step = self.replica.next_step()
            if isinstance(step, Turn):
                self._set_phase("playing")
                self.publish("turn", f"{self.names[step.seat]} to play", seat=step.seat)
                action = await self.seats[step.seat].choose(self, step.seat)
                self.acting = step.seat
                if is_drop_out(action):
                    try:
                        await self._drop_out(step.seat, action)
                    except IllegalAction as exc:
                        if step.seat == self.me:  # (a local seat checks first: not expected)
                            self.publish("error", str(exc))
                            continue
                        raise
                    continue
                try:
                    index = self.replica.act(step.seat, action)
                except IllegalAction as exc:
                    if step.seat == self.me:
                        self.publish("error", str(exc))
                        continue
                    raise
                event = {"kind": "action", "seat": step.seat, "action": action, "index": index}
                self._tell_bots(event)
                self._publish_action(step.seat, action, index)
            elif isinstance(step, Round):
                self._set_phase("playing")
                await self._play_round(step)
            elif isinstance(step, DECK_STEPS):
                if isinstance(step, (Shuffle, Deal)):
                    self._set_phase("shuffling" if isinstance(step, Shuffle) else "dealing")
                name, args = deck_call(step)
                event = learn(game, state, step, await getattr(self.deck, name)(*args))
                if isinstance(step, Deal):  # each seat's bot is told only of its own cards
                    for seat, own in deal_events(step).items():
                        self._tell_bots(own, [seat])
                else:
                    self._tell_bots(event)
                self._publish_deck_step(step, event)
            elif isinstance(step, Done):
                self._set_phase("auditing")
                self.faces = await self.deck.open_all()
                self.violations = game.audit(state, self.replica.actions, self.faces)
                self.result = step.result
                self._set_phase("done")
                self.publish(
                    "done",
                    name_seats(result_words(game, step.result), self.names),  # "seat 2 wins" -> "bob wins"
                    result=step.result.to_wire(),
                    violations=[v.to_wire() for v in self.violations],
                )
                return step.result
        raise RuntimeError(f"{game.id}: no result after {MAX_STEPS} steps")

    async def _drop_out(self, seat: int, action: Action) -> None:
        """``seat``'s move at its turn is the table's drop-out move (issue 30): the rules set its
        cards aside and go on without it (:class:`IllegalAction` where they refuse: the move is
        that seat's fault), then every seat's deck runs the drop (protocol/deck.md §4.6)."""
        self.replica.turn_drop(seat, action)
        await self.deck.drop_out(seat)
        self._tell_bots({"kind": "dropped", "seat": seat})
        name = self.names[seat]
        text = (
            "you dropped out; your cards are set aside unseen"
            if seat == self.me
            else (f"{name} dropped out; {name}'s cards are set aside unseen")
        )
        self.publish("dropped", text, seat=seat)
        for entry, line in self._new_story():  # what follows from it (the game's line for the
            if line and entry.get("event") != "dropped out":  # drop itself says the same)
                self.publish("story", line, entry=dict(entry))

    def _publish_deck_step(self, step: Step, event: dict[str, Any]) -> None:
        text, data = self._deck_text(step, event), _event_data(event)
        revealing, self._revealing = self._revealing, None
        if isinstance(step, Transfer):
            data["shown"] = len(set(step.handles) & self._shown)  # how many were seen face up
        if isinstance(step, Reveal):
            self._shown.update(event["faces"])
            data["owner"] = step.owner
            if revealing is not None:  # the play that turned them up, said with its faces
                seat, action, index = revealing
                faces = {**self.known(), **event["faces"]}
                text = f"{self.names[seat]} {self.game.format_action(self.state, seat, action, faces)}"
                data.update(seat=seat, action=action, index=index)
        if isinstance(step, Coin):
            # A coin is told by the game ("bob cuts a 7", "alice deals first"), not by its label.
            told = self._new_story()
            lines = [line for _, line in told if line]
            if lines:
                text = "; ".join(lines)
            data["story"] = [dict(entry) for entry, _ in told]
            self.publish("coin", text, **data)
            return
        self.publish(str(event["kind"]), text, **data)
        self._publish_story()

    async def _play_round(self, step: Round) -> None:
        """A free-order round: every seat of it responds once, at any moment. Once a response
        that is not a pass is in, a local seat that has not answered passes at once (its
        answer would come after that one). Then the responses are applied in the table's
        order while the round goes on; the rest are void.

        Sealed (``open_round`` set: a networked table): every follower's player answers, each
        answer is shown only as "has answered" until every follower's is in, then they are
        opened, shown, and applied in the order of their commitments."""
        self._answered = []
        names = ", ".join(self.names[s] for s in step.seats)
        self.publish("turn", f"free order: {names} may respond", seats=list(step.seats))
        responses: dict[int, Action] = {}
        decided = trio.Event()
        scopes: dict[int, trio.CancelScope] = {}
        sealed = self.open_round is not None

        async def respond(seat: int) -> None:
            with trio.CancelScope() as scopes[seat]:
                action = await self.seats[seat].choose(self, seat)
            self._answered.append(seat)  # (first: a person's late input is refused from here on)
            if scopes[seat].cancelled_caught:  # decided before this seat acted: it passes
                action = await self._pass_late(seat)
            responses[seat] = action
            if sealed:  # what it answered is nobody's to know until the round is sealed
                self.publish("answered", f"{self.names[seat]} has answered", seat=seat)
                return
            self.publish("responded", f"{self.names[seat]} {self.describe(seat, action)}", seat=seat, action=action)
            if action.get("type") != "pass" and not decided.is_set():
                decided.set()
                for other, scope in scopes.items():
                    if other != seat and self._passes_for(other):
                        scope.cancel()

        try:
            async with trio.open_nursery() as nursery:
                for seat in step.seats:
                    nursery.start_soon(respond, seat)
        except BaseExceptionGroup as group:
            # One seat's failure (a remote seat's fault, a seat gone) ends the round: raise it as
            # a turn's would be, not wrapped in the group trio makes of the seats' tasks.
            raise _first_failure(group) from None
        if self.open_round is not None:
            responses = await self.open_round(step, responses)
        ordered = self.round_order(step, responses, list(self._answered))
        if sealed:  # the opened responses, in the round's order (a console shows them now)
            for seat, action in ordered:
                self.publish("responded", f"{self.names[seat]} {self.describe(seat, action)}", seat=seat, action=action)
        acted = [seat for seat, action in ordered if action.get("type") != "pass"]
        if len(acted) > 1:  # a race: say who was first
            self.publish(
                "notice",
                f"{self.names[acted[0]]} was first; {', '.join(self.names[s] for s in acted[1:])} too late",
                seats=acted,
                turn=len(self.replica.actions),  # the race's move number (the first response's)
            )
        for seat, action in ordered:
            if not self.replica.in_round(seat, step):
                continue  # void: the round was decided before it
            self.acting = seat
            try:
                index = self.replica.act(seat, action)
            except IllegalAction as exc:
                if seat == self.me:
                    self.publish("error", str(exc))
                raise
            event = {"kind": "action", "seat": seat, "action": action, "index": index}
            self._tell_bots(event)
            # in_round: a console has shown it as it came ("responded"); this is its place in order.
            self._publish_action(seat, action, index, in_round=True)
        self._answered = []

    def _passes_for(self, seat: int) -> bool:
        """Whether this session answers for ``seat`` (its agent is here: a bot, a person)."""
        return hasattr(self.seats[seat], "pass_late") or isinstance(self.seats[seat], (BotSeat, HumanSeat))

    async def _pass_late(self, seat: int) -> Action:
        action: Action = {"type": "pass"}
        pass_late = getattr(self.seats[seat], "pass_late", None)
        if pass_late is not None:  # a networked seat signs and sends it
            await pass_late(self, seat, action)
        return action

    def _arrival_order(self, step: Round, responses: dict[int, Action], arrived: list[int]) -> list[tuple[int, Action]]:
        saw = {seat: set(arrived[:i]) for i, seat in enumerate(arrived)}
        return order_round(responses, saw, step.after, self.players)


def clean_audit_words(session: TableSession) -> str:
    """What the end screen says of an audit that found nothing: it read every card shown at the
    table (no seed is revealed since protocol version 12: a card never shown is never decoded,
    deck.md §7), and at a game a seat dropped out of, its cards stayed face down for good."""
    if session.replica.dropped:
        return "audit: clean (the cards set aside by a player who dropped out stay face down)"
    return "audit: clean, every card shown checked"


def _first_failure(group: BaseExceptionGroup) -> BaseException:
    """The first exception of a nursery's group that is not a cancellation (trio's Cancelled
    must never be re-raised out of its scope), else the first."""
    leaves = []

    def walk(exc: BaseException) -> None:
        if isinstance(exc, BaseExceptionGroup):
            for inner in exc.exceptions:
                walk(inner)
        else:
            leaves.append(exc)

    walk(group)
    return next((exc for exc in leaves if not isinstance(exc, trio.Cancelled)), leaves[0])


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def _event_data(event: dict[str, Any]) -> dict[str, Any]:
    """The data a deck event is published with (as before: a shuffle says how many cards)."""
    data = {k: v for k, v in event.items() if k != "kind"}
    if event["kind"] == "shuffle":
        return {"cards": len(data["handles"])}
    if event["kind"] == "deal":
        return {"handles": list(data["to"]), "seats": sorted(set(data["to"].values()))}
    return data


def local_session(
    host: Any,
    game_id: str,
    *,
    players: int | None = None,
    options: Mapping[str, Any] | None = None,
    me: int | None = 0,
    bot: str = "strategic",
    bot_delay: float = 0.0,
    bot_reaction: float = 1.0,
    deck: str = "mental-poker",
    seed: int | str | None = None,
    names: Sequence[str] | None = None,
) -> TableSession:
    """A table in this process: a person in seat ``me`` (``None``: bots only) and bots in the
    other seats, with the mental-poker deck (every party in-process) or the local dealer.

    ``bot`` falls back to ``random`` when the game registers no bot of that name."""
    import secrets

    from .dealer import LocalDealer
    from .engine import seeded_rng

    game = host.game(game_id)
    players = players or game.default_players(options or {})
    resolved = game.resolve_options(options or {}, players)
    seed = secrets.token_hex(8) if seed is None else seed
    available = host.bots_for(game_id)
    bot_cls = available.get(bot) or available["random"]
    agents: list[SeatAgent] = []
    for seat in range(players):
        if seat == me:
            agents.append(HumanSeat())
        else:
            rng = seeded_rng(seed, "bot", seat)
            agents.append(BotSeat(bot_cls(game, seat, resolved, rng), delay=bot_delay, reaction=bot_reaction))
    if deck == "local":
        backend: DeckBackend = LocalDealer(game.deck(resolved, players), players, seeded_rng(seed, "deck"))
        async_deck = SyncDeck(backend)
    elif deck == "mental-poker":
        from .deck.backend import mental_poker_factory

        backend = mental_poker_factory(seed)(game, resolved, players, 0)
        async_deck = SyncDeck(backend, in_thread=True)
    else:
        raise ValueError(f"unknown deck {deck!r} (local or mental-poker)")
    if names is None:
        names = ["you" if s == me else f"{bot_cls.name} bot {s}" for s in range(players)]
    return TableSession(game, resolved, players, async_deck, agents, me=me, names=names)

"""``check_game``: whole games between bots, with every step checked against the contract."""

from __future__ import annotations

import copy
import dataclasses
import enum
import pickle
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..bots import RandomBot
from ..cards import Card
from ..dealer import LocalDealer
from ..engine import DECK_STEPS, GameRecord, PlayerError, Replica, learn, play, seeded_rng
from ..game import Action, Bot, Done, Game, IllegalAction, OptionError, Result, Step
from ..plugins import load_plugins
from ..wire.framing import FrameError, check_value
from .scenario import load_game

__all__ = ["GameCheck", "GameCheckFailure", "check_game"]


class GameCheckFailure(AssertionError):
    """A game broke the contract in :func:`check_game`; the message says in which game (variant,
    players, seed), at which action, and what."""


@dataclass
class GameCheck:
    """One game :func:`check_game` played and checked."""

    #: The variant's name, or ``None`` for the default options.
    variant: str | None
    players: int
    #: The resolved options it was played with.
    options: dict[str, Any]
    #: The game's number among those of its variant and player count (seeds differ by it).
    index: int
    #: What :func:`p2pcards.engine.play` returned: result, audit, every action, every face.
    record: GameRecord
    #: Turns and free-order responses whose legal actions were checked.
    decisions: int
    #: Legal actions put through check, check_own, format_action and parse_action.
    actions_checked: int


def check_game(
    game: Game | str,
    *,
    variants: Iterable[str | None] | None = None,
    players: int | Iterable[int] | None = None,
    options: Mapping[str, Any] | None = None,
    games: int = 2,
    seed: int | str = 0,
    bots: Sequence[type[Bot] | str] | type[Bot] | str | None = None,
    round_trip: bool = True,
) -> list[GameCheck]:
    """Play whole games between bots on the local open-faced dealer and check, at every step,
    what a game must do for a table of peers to work. Raises :class:`GameCheckFailure` at the
    first problem; returns what it played.

    ``game`` is a :class:`~p2pcards.game.Game` or the id of an installed one (loaded through its
    entry point, as p2pcards loads it). It plays ``games`` games for each variant (``variants``:
    names of ``game.variants``, ``None`` for the default options; by default the defaults and
    every variant) and each player count the variant allows (or ``players``); ``options`` are
    added to every variant's. ``bots`` names the bot of each seat (a class, or the name of a bot
    registered for the game), or one for every seat; random bots by default, which reach the
    corners strategic bots avoid.

    Checked at every turn and free-order response, for the seat to act:

    * ``legal_actions`` offers at least one action, and each one it offers is plain data,
      accepted by ``check`` and by ``check_own``, and written by ``format_action`` as text that
      ``parse_action`` reads back as the same action;
    * ``idle_action`` and ``absent_action``, when the game has them, are accepted likewise;
    * ``drop_out_refusal`` says why not in words, or ``None``;
    * ``view`` works for the seat and for a spectator;
    * none of these changes the state (they may only read it).

    And for the whole game:

    * the options are complete and parsed (``check_table_options``);
    * a second replica, kept by a peer that sees only what every peer sees (the deck's public
      outcomes and the actions), agrees with the table's at every step and at the end, state
      and result;
    * the result names seats of the table, gives one score per seat (or none) and is plain
      data; the audit is clean;
    * the story (``Game.story``) only grows, its entries are plain data, and ``tell`` says each
      as text that names the players, never "seat 1".

    ``round_trip=False`` only asks ``format_action`` for some text, for a game that does not
    meet the text contract yet (see :class:`~p2pcards.game.Game`: ``parse_action`` reads back
    what ``format_action`` writes, phrases for the log such as "plays Q♥" included).

    A game whose ``legal_actions`` lists only a sample of the moves (``lists_every_action`` is
    false, as for Cal's BS) is checked on the sample."""
    game = load_game(game)
    names = [None, *game.variants] if variants is None else list(variants)
    checks = []
    for variant in names:
        if variant is not None and variant not in game.variants:
            raise ValueError(f"{game.id} has no variant {variant!r} (it has: {', '.join(game.variants)})")
        given = {**(game.variants[variant] if variant else {}), **(options or {})}
        counts = _player_counts(game, given, players)
        for count in counts:
            resolved = game.resolve_options(given, count)
            classes = _bot_classes(game, bots, count)
            for index in range(games):
                where = f"{game.id} ({variant or 'default options'}, {count} players, game {index}, seed {seed!r})"
                checks.append(
                    _check_one(
                        game, resolved, count, classes, (seed, variant, count, index), where, variant, index, round_trip
                    )
                )
    return checks


def _player_counts(game: Game, given: Mapping[str, Any], players: int | Iterable[int] | None) -> list[int]:
    if players is not None:
        return [players] if isinstance(players, int) else list(players)
    counts = game.player_counts(game.resolve_options(given, game.default_players(given)))
    playable = []
    for count in counts:
        try:
            game.resolve_options(given, count)
        except OptionError:
            continue
        playable.append(count)
    return playable


def _bot_classes(game: Game, bots: Any, players: int) -> list[type[Bot]]:
    if bots is None:
        return [RandomBot] * players
    chosen = [bots] * players if isinstance(bots, (str, type)) else list(bots)
    if len(chosen) == 1:
        chosen *= players
    if len(chosen) != players:
        raise ValueError(f"give one bot, or one per seat ({players}), not {len(chosen)}")
    available = None
    classes = []
    for bot in chosen:
        if isinstance(bot, str):
            available = available or load_plugins().bots_for(game.id)
            if bot not in available:
                raise LookupError(f"no bot {bot!r} for {game.id} (there are: {', '.join(sorted(available))})")
            bot = available[bot]
        classes.append(bot)
    return classes


def _check_one(
    game: Game,
    options: dict[str, Any],
    players: int,
    classes: list[type[Bot]],
    seed: tuple[Any, ...],
    where: str,
    variant: str | None,
    index: int,
    round_trip: bool,
) -> GameCheck:
    checker = _Checker(game, options, players, where, round_trip)
    try:
        game.check_table_options(options, players)
    except OptionError as exc:
        checker.fail(f"the resolved options are not complete and parsed: {exc}")
    deck = _RecordingDeck(LocalDealer(game.deck(options, players), players, seeded_rng(*seed, "deck")))
    checker.deck = deck
    bots = [
        _CheckingBot(cls(game, seat, options, seeded_rng(*seed, "bot", seat)), checker)
        for seat, cls in enumerate(classes)
    ]
    refused: PlayerError | None = None
    try:
        record = play(game, options, players, deck, bots, replica=checker.table, on_step=checker.on_step)
    except GameCheckFailure:
        raise
    except PlayerError as exc:
        refused = exc
    except Exception as exc:
        exc.add_note(f"in check_game: {checker.position()}")
        raise
    if refused is not None:  # a bot's own choice (its legal actions passed): a bug in the bot
        checker.fail(f"seat {refused.seat}'s bot chose {refused.action!r}, which the rules refuse: {refused.reason}")
    checker.finish(record)
    return GameCheck(variant, players, options, index, record, checker.decisions, checker.actions_checked)


class _RecordingDeck:
    """A deck backend that remembers what its last operation returned (for the peer)."""

    def __init__(self, inner: LocalDealer):
        self.inner = inner
        self.outcome: Any = None

    def _run(self, name: str, *args: Any) -> Any:
        self.outcome = getattr(self.inner, name)(*args)
        return self.outcome

    def shuffle(self) -> list[int]:
        return self._run("shuffle")

    def coin(self, label: str, bound: int) -> int:
        return self._run("coin", label, bound)

    def deal(self, to: Mapping[int, int]) -> None:
        return self._run("deal", to)

    def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]:
        return self._run("reveal", handles, owner)

    def transfer(self, handles: Sequence[int], to: int) -> list[int]:
        return self._run("transfer", handles, to)

    def known(self, seat: int) -> Mapping[int, Card]:
        return self.inner.known(seat)

    def open_all(self) -> dict[int, Card]:
        return self.inner.open_all()


class _CheckingBot(Bot):
    """Wraps a seat's bot: before it chooses, the seat's legal actions are checked."""

    name = "checking"

    def __init__(self, inner: Bot, checker: _Checker):
        super().__init__(inner.game, inner.seat, inner.options, inner.rng)
        self.inner = inner
        self.checker = checker

    def observe(self, state: Any, event: Mapping[str, Any], known: Mapping[int, Card]) -> None:
        self.inner.observe(state, event, known)

    def choose(self, state: Any, known: Mapping[int, Card]) -> Action:
        self.checker.decision(state, self.seat, known)
        return self.inner.choose(state, known)

    def reaction_time(self, state: Any, known: Mapping[int, Card], action: Action) -> float:
        return self.inner.reaction_time(state, known, action)


class _Checker:
    """The table's replica (where seats call the game's private methods) and a peer's replica
    (fed only with public outcomes and actions), and the checks between them."""

    def __init__(self, game: Game, options: dict[str, Any], players: int, where: str, round_trip: bool):
        self.game = game
        self.round_trip = round_trip
        self.players = players
        self.where = where
        self.table = Replica(game, options, players)
        self.peer = Replica(game, options, players)
        self.deck: _RecordingDeck | None = None
        self.pending: Step | None = None  # the deck step carried out since the last step
        self.decisions = 0
        self.actions_checked = 0
        self.told: list[Any] = []  # copies of the story entries so far

    def position(self) -> str:
        return f"{self.where}, at action {len(self.table.actions)}"

    def fail(self, problem: str) -> None:
        raise GameCheckFailure(f"{self.position()}: {problem}")

    # -- the peer's replica -------------------------------------------------------------------

    def catch_up(self) -> None:
        """Give the peer what happened since the last step: the deck's public outcome, or the
        actions applied (several for a free-order round)."""
        if self.pending is not None:
            assert self.deck is not None, "a pending deck step has its deck"
            learn(self.game, self.peer.state, self.pending, _copied(self.deck.outcome))
            self.pending = None
        for seat, action in self.table.actions[len(self.peer.actions) :]:
            try:
                self.peer.act(seat, action)
            except IllegalAction as exc:
                self.fail(f"a peer's replica refuses seat {seat}'s {action!r}, which the table's accepted: {exc}")

    def on_step(self, step: Step) -> None:
        self.catch_up()
        self.check_story()
        peer_step = self.game.next_step(self.peer.state)
        if peer_step != step:
            self.fail(f"the replicas disagree: the table's next step is {step!r}, a peer's {peer_step!r}")
        if isinstance(step, DECK_STEPS):
            self.pending = step

    # -- a seat's decision --------------------------------------------------------------------

    def decision(self, state: Any, seat: int, known: Mapping[int, Card]) -> None:
        game = self.game
        before = _frozen(state)
        self.decisions += 1
        actions = list(game.legal_actions(state, seat, known))
        if not actions:
            self.fail(f"legal_actions offers seat {seat} nothing when it must act")
        for action in actions:
            self.check_action(state, seat, known, action, "legal_actions offers")
        idle = game.idle_action(state, seat, known)
        if idle is not None:
            self.check_action(state, seat, known, idle, "idle_action plays", round_trip=False)
        absent = game.absent_action(state, seat)
        if absent is not None:
            self.check_action(state, seat, known, absent, "absent_action plays", round_trip=False, own=False)
        refusal = game.drop_out_refusal(state, seat)
        if refusal is not None and (not isinstance(refusal, str) or not refusal.strip()):
            self.fail(f"drop_out_refusal returned {refusal!r}: a sentence saying why not, or None")
        game.view(state, seat, known)
        game.view(state, None, {})
        after = _frozen(state)
        if after != before:
            self.fail(
                "legal_actions, check, check_own, format_action, parse_action, idle_action, "
                "absent_action, drop_out_refusal or view changed the state (they may only read it): "
                + difference(_thawed(before), _thawed(after))
            )

    def check_action(
        self,
        state: Any,
        seat: int,
        known: Mapping[int, Card],
        action: Action,
        source: str,
        *,
        round_trip: bool = True,
        own: bool = True,
    ) -> None:
        game = self.game
        self.actions_checked += 1
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            self.fail(f"{source} {action!r}: an action is a dict with a 'type'")
        try:
            check_value(action)
        except FrameError as exc:
            self.fail(f"{source} {action!r}, which is not plain data: {exc.reason}")
        try:
            game.check(state, seat, action)
            if own:
                game.check_own(state, seat, action, known)
        except IllegalAction as exc:
            self.fail(f"{source} seat {seat} {action!r}, but the rules refuse it: {exc}")
        if not round_trip:
            return
        text = game.format_action(state, seat, action, known)
        if not isinstance(text, str) or not text.strip():
            self.fail(f"format_action writes {text!r} for {action!r}")
        if not self.round_trip:
            return
        try:
            parsed = game.parse_action(state, seat, text, known)
        except IllegalAction as exc:
            self.fail(f"format_action writes {action!r} as {text!r}, which parse_action refuses: {exc}")
        if parsed != action:
            self.fail(f"format_action writes {action!r} as {text!r}, which parse_action reads as {parsed!r}")

    # -- the end ------------------------------------------------------------------------------

    def check_story(self) -> None:
        """The story only grows, its entries are plain data, and ``tell`` says each new one as
        a line that names the players by name ("never seat 1")."""
        entries = list(self.game.story(self.table.state))
        if len(entries) < len(self.told) or (self.told and entries[len(self.told) - 1] != self.told[-1]):
            self.fail("story() dropped or changed an entry it had told (the story may only grow)")
        names = [f"player{seat}" for seat in range(self.players)]
        for entry in entries[len(self.told) :]:
            try:
                check_value(dict(entry))
            except (FrameError, TypeError, ValueError) as exc:
                self.fail(f"the story entry {entry!r} is not plain data: {exc}")
            line = self.game.tell(self.table.state, entry, names)
            if not isinstance(line, str):
                self.fail(f"tell() gave {line!r} for {entry!r}, not text")
            if _SEAT_NUMBER.search(line):
                self.fail(f"tell() names a seat by number, not by name: {line!r}")
            self.told.append(copy.deepcopy(entry))

    def finish(self, record: GameRecord) -> None:
        self.catch_up()
        self.check_story()
        if list(self.game.story(self.table.state)) != self.told:
            self.fail("story() changed an entry it had told (the story may only grow)")
        result = record.result
        if not isinstance(result, Result):
            self.fail(f"the game ended with {result!r}, not a Result")
        seats = range(self.players)
        if len(set(result.winners)) != len(result.winners) or not set(result.winners) <= set(seats):
            self.fail(f"the result's winners {result.winners!r} are not distinct seats of the table")
        if len(result.scores) not in (0, self.players):
            self.fail(f"the result has {len(result.scores)} scores for {self.players} seats")
        try:
            check_value(result.to_wire())
        except FrameError as exc:
            self.fail(f"the result is not plain data: {exc.reason}")
        peer_step = self.game.next_step(self.peer.state)
        if not isinstance(peer_step, Done) or peer_step.result != result:
            self.fail(f"a peer's replica ends with {peer_step!r}, the table's with {result!r}")
        mine, theirs = snapshot(self.table.state), snapshot(self.peer.state)
        if mine != theirs:
            self.fail("the replicas' final states differ: " + difference(mine, theirs))
        if record.violations:
            listed = "; ".join(f"action {v.action_index} (seat {v.seat}): {v.message}" for v in record.violations)
            self.fail(f"the audit found violations in a game between honest bots: {listed}")


_SEAT_NUMBER = re.compile(r"\bseats? \d")


def _copied(outcome: Any) -> Any:
    """A deck outcome for the peer: its own copy, so that no two states share a list or dict."""
    if isinstance(outcome, dict):
        return dict(outcome)
    if isinstance(outcome, list):
        return list(outcome)
    return outcome


def _frozen(state: Any) -> Any:
    """The state as it is now, cheaply: its pickle (fast), or its snapshot when it does not
    pickle (a class defined in a function)."""
    try:
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return snapshot(state)


def _thawed(frozen: Any) -> Any:
    return snapshot(pickle.loads(frozen)) if isinstance(frozen, bytes) else frozen


_ATOMS = (bool, int, float, str, bytes, type(None), Card, enum.Enum)


def snapshot(value: Any, _path: frozenset[int] = frozenset()) -> Any:
    """A game state as nested plain values (dicts, lists), to compare two replicas' states
    whatever classes the game uses: a dataclass or an object becomes a dict of its fields
    (with its class name under ``"__class__"``), a set a sorted list."""
    if isinstance(value, _ATOMS):
        return value
    if id(value) in _path:
        return "<cycle>"
    inner = _path | {id(value)}
    if isinstance(value, Mapping):
        return {key: snapshot(item, inner) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [snapshot(item, inner) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted((snapshot(item, inner) for item in value), key=repr)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: snapshot(getattr(value, f.name), inner) for f in dataclasses.fields(value)}
        return {"__class__": type(value).__qualname__, **fields}
    if hasattr(value, "__dict__") and not isinstance(value, type):
        fields = {name: snapshot(item, inner) for name, item in vars(value).items()}
        return {"__class__": type(value).__qualname__, **fields}
    slots = [name for cls in type(value).__mro__ for name in getattr(cls, "__slots__", ())]
    if slots:
        fields = {name: snapshot(getattr(value, name, None), inner) for name in slots}
        return {"__class__": type(value).__qualname__, **fields}
    return value


def difference(a: Any, b: Any, path: str = "state") -> str:
    """Where two snapshots first differ, for a message."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{path}[{key!r}] is only in one"
            if a[key] != b[key]:
                inner = f"{path}.{key}" if isinstance(key, str) else f"{path}[{key!r}]"
                return difference(a[key], b[key], inner)
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path} has {len(a)} items, then {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return difference(x, y, f"{path}[{i}]")
    return f"{path} was {_short(a)}, then {_short(b)}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."

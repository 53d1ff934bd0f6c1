"""The contract a game implements: the one module a game plugin imports (with ``p2pcards.cards``).

A game is a pure, deterministic state machine over *public* information. It never does IO, never
draws a random number and never sees a face it is not entitled to. Cards are known to it by
**handle**: an integer naming one position of the shuffled deck. The deck layer (the local
open-faced dealer in tests and simulations, the mental-poker deck in real play) turns handles into
faces for whoever may see them; the game only ever learns faces that are public (``on_reveal``),
and a seat's own faces are passed in separately as ``known`` where the seat acts.

What happens next is the game's :meth:`Game.next_step`, in the style of OpenSpiel's chance nodes:

* :class:`Shuffle` -- the deck layer shuffles the whole deck afresh; ``on_shuffled`` gets the
  handles (the stock, in deal order).
* :class:`Coin` -- a public random number that no player can bias (``on_coin``).
* :class:`Deal` -- handles go privately to seats; only the receiver learns the faces.
* :class:`Reveal` -- handles are turned face up for everyone (``on_reveal``).
* :class:`Transfer` -- handles move hidden to a new holder, who learns the faces. The moved cards
  get **new handles** (``on_transferred``), in an order that says nothing about the old ones, so
  earlier holders cannot follow them; the old handles are not used again.
* :class:`Turn` -- a seat must act. ``legal_actions`` lists its choices, ``check`` validates an
  action with public information (every peer runs it), ``check_own`` with the actor's own faces
  (the actor's client runs it), and ``apply`` performs it.
* :class:`Round` -- several seats may act at once, in free order (a Cal's BS set on top): each
  responds once, the table puts the responses in one order (who acted first; ties to the seat
  nearest the opener's left: protocol/table.md section 9), and they are applied in that order
  while the game's next step is still a :class:`Round` listing their seat; the rest are void.
* :class:`Done` -- the game is over, with a :class:`Result`.

Once the game is done every face becomes known and :meth:`Game.audit` re-checks what public
information could not (a Cal's BS quads lead, a Calypso follower's duty to follow suit).

Actions are plain data: a ``dict`` with a ``"type"`` key and msgpack-serialisable values (ints,
strings, lists of handles). Peers exchange them, transcripts store them, ``p2pcards verify``
replays them, so a game must never put objects in them.

The state object is the game's own class; it holds public information only, so it may be shown to
bots and console views of any seat. Engines treat it as opaque except through the methods here.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from .cards import Card

__all__ = [
    "Action",
    "Bot",
    "Coin",
    "Deal",
    "Done",
    "Game",
    "IllegalAction",
    "Option",
    "OptionError",
    "seat_options",
    "Result",
    "options_words",
    "result_words",
    "Reveal",
    "Shuffle",
    "Step",
    "Round",
    "Transfer",
    "Turn",
    "Violation",
    "agree",
]

Action = dict[str, Any]
"""A move: plain data with a ``"type"`` key, e.g. ``{"type": "play", "cards": [3, 17]}``."""

S = TypeVar("S")


class IllegalAction(ValueError):
    """An action the rules do not allow, with a message fit to show to the player."""


class OptionError(ValueError):
    """An option value that is unknown or out of range, with a message naming the option."""


def seat_options(game: Any) -> dict[str, Any]:
    """The game's options whose value names a seat (:attr:`Option.seat`), with their defaults."""
    return {o.name: o.default for o in getattr(game, "options", ()) if getattr(o, "seat", False)}


# --------------------------------------------------------------------------------------------
# Steps: what the game needs next.


@dataclass(frozen=True, slots=True)
class Shuffle:
    """Shuffle every card of the deck afresh (at the start, or for a new hand of a match)."""


@dataclass(frozen=True, slots=True)
class Coin:
    """A public random integer in ``range(bound)``; ``label`` must be unique within the game.

    With the mental-poker deck the value is a function of the game's id (fixed once every seat
    has joined) and ``label``: a label used twice gives the same value twice, and every seat can
    work out any coin from the start of the game. Nobody can bias a coin, but a coin is not a
    secret: do not use one for a draw the players must not know in advance."""

    label: str
    bound: int


@dataclass(frozen=True, slots=True)
class Deal:
    """Give handles privately to seats: ``{handle: seat}``."""

    to: Mapping[int, int]


@dataclass(frozen=True, slots=True)
class Reveal:
    """Turn handles face up for everyone. ``owner`` is the seat the game believes holds them,
    or ``None`` for cards nobody holds (the stock). It is informational: the deck keeps its own
    record of holders (from deals and transfers) and has the real holder open the cards."""

    handles: tuple[int, ...]
    owner: int | None


@dataclass(frozen=True, slots=True)
class Transfer:
    """Move hidden handles to ``to``, who learns their faces; nobody else learns anything. The
    cards come back under new handles (see :meth:`Game.on_transferred`)."""

    handles: tuple[int, ...]
    to: int


@dataclass(frozen=True, slots=True)
class Turn:
    """``seat`` must act."""

    seat: int


@dataclass(frozen=True, slots=True)
class Round:
    """Each of ``seats`` may act now, in any order; ``after`` is the seat whose action opened
    the round (concurrent responses go to the seat nearest its left). A response is checked
    and applied like a :class:`Turn`'s action; after each, the game's next step says whether
    the round goes on (a :class:`Round` that still lists the next response's seat) or was
    decided (anything else: the responses left are void).

    A game that uses rounds must accept ``{"type": "pass"}`` from every seat of a round (it
    keeps the round open for the others), and treats any other response as one that may
    decide it: once one is in, a table answers ``pass`` at once for its local seats that have
    not acted (their answers would come after it)."""

    seats: tuple[int, ...]
    after: int


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended. ``winners`` may be empty (a draw); ``scores`` is per seat; ``summary``
    is one line for people; ``details`` is plain data for programs (JSON and msgpack safe)."""

    winners: tuple[int, ...]
    scores: tuple[float, ...] = ()
    summary: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_wire(self) -> dict[str, Any]:
        return {
            "winners": list(self.winners),
            "scores": list(self.scores),
            "summary": self.summary,
            "details": dict(self.details),
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Result:
        return cls(tuple(data["winners"]), tuple(data["scores"]), data["summary"], data.get("details", {}))


@dataclass(frozen=True, slots=True)
class Done:
    result: Result


Step = Shuffle | Coin | Deal | Reveal | Transfer | Turn | Round | Done


@dataclass(frozen=True, slots=True)
class Violation:
    """A breach of the rules found by the end-of-game audit: who, at which action, and what."""

    seat: int
    action_index: int
    message: str

    def to_wire(self) -> dict[str, Any]:
        return {"seat": self.seat, "action_index": self.action_index, "message": self.message}


# --------------------------------------------------------------------------------------------
# Options.

_TRUE = {"1", "on", "yes", "true", "y"}
_FALSE = {"0", "off", "no", "false", "n"}


class OptionWords:
    """An option's words for people, from its ``name``, ``label`` and ``values`` (``(value,
    label, description)``): shared by :class:`Option` and the lobby form's option."""

    __slots__ = ()
    name: str
    label: str
    values: tuple[tuple[Any, str, str], ...]

    @property
    def title(self) -> str:
        """The option's name for people: its label, or its name with spaces."""
        return self.label or self.name.replace("_", " ")

    def _word(self, value: Any) -> tuple[str, str] | None:
        for known, label, description in self.values:
            if known == value and type(known) is type(value):
                return label, description
        return None

    def value_text(self, value: Any) -> str:
        """A value as a person reads it: its label ("by lot"), else on/off or the value."""
        word = self._word(value)
        if word is not None:
            return word[0]
        if isinstance(value, bool):
            return "on" if value else "off"
        return str(value)

    def value_help(self, value: Any) -> str:
        """The one-line description of a value, or ``""``."""
        word = self._word(value)
        return word[1] if word is not None else ""


@dataclass(frozen=True, slots=True)
class Option(OptionWords):
    """A typed game option with a default and help text.

    ``type`` is ``bool``, ``int`` or ``str``. ``choices`` restricts a ``str`` option to a set of
    values; ``minimum``/``maximum`` bound an ``int`` option.

    Words for people (optional: a plugin without them still works, and screens fall back to
    the name and the raw value): ``label`` names the option ("first dealer"), ``values`` gives
    ``(value, label, description)`` for the values worth a word (every choice; an ``int``'s
    special values such as ``-1``: "by lot"), as a lobby form, ``--help`` and ``plugins``
    show them.
    """

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    label: str = ""
    values: tuple[tuple[Any, str, str], ...] = ()
    #: An ``int`` option whose value names a seat (0 to players - 1; any other value names
    #: none, such as Cal's BS's ``first_dealer`` -1, "by lot"). A rematch without some of the
    #: last game's seats gives it the same player's seat at the smaller table, or the default
    #: if that player left (:func:`seat_options`; protocol/table.md section 2, "A rematch").
    seat: bool = False

    def parse(self, value: Any) -> Any:
        """Turn text (from a command line) or a plain value into a valid value, or raise
        :class:`OptionError` naming the option and what it accepts."""
        if self.type is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
            raise OptionError(f"option {self.name}: expected on or off, got {value!r}")
        if self.type is int:
            try:
                number = int(value) if not isinstance(value, bool) else None
            except (TypeError, ValueError):
                number = None
            if number is None:
                raise OptionError(f"option {self.name}: expected a whole number, got {value!r}")
            if self.minimum is not None and number < self.minimum:
                raise OptionError(f"option {self.name}: must be at least {self.minimum}")
            if self.maximum is not None and number > self.maximum:
                raise OptionError(f"option {self.name}: must be at most {self.maximum}")
            return number
        text = str(value).strip()
        if self.choices:
            for choice in self.choices:
                if text.lower() == choice.lower():
                    return choice
            raise OptionError(f"option {self.name}: expected one of {', '.join(self.choices)}, got {value!r}")
        return text

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "type": self.type.__name__,
            "default": self.default,
            "help": self.help,
            "label": self.title,
        }
        if self.values:
            out["values"] = [
                {"value": value, "label": label, "help": description} for value, label, description in self.values
            ]
        if self.choices:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.seat:
            out["names_a_seat"] = True  # follows its player to a smaller rematch
        return out


# --------------------------------------------------------------------------------------------
# The game.


class Game(abc.ABC, Generic[S]):
    """Base class of every game. Subclass it, fill in the class attributes, implement the
    abstract methods, and register an instance from a ``register_games`` hook.

    All methods are pure functions of their arguments except that ``apply`` and the ``on_*``
    methods update ``state`` in place. None may do IO or draw random numbers.

    Text and actions round-trip: for every action :meth:`legal_actions` offers a seat,
    :meth:`parse_action` reads what :meth:`format_action` writes for it (with that seat's faces)
    back as the same action.
    """

    #: Short stable identifier used on the wire and on the command line (``cals-bs``).
    id: ClassVar[str]
    #: Display name.
    name: ClassVar[str]
    #: Bumped whenever a change could make two peers disagree; peers must match exactly.
    rules_version: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: The options this game takes.
    options: ClassVar[tuple[Option, ...]] = ()
    #: Named presets of options, e.g. ``{"quads": {"quads": True}}``.
    variants: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    #: A one-paragraph summary shown by ``help`` in the console.
    summary: ClassVar[str] = ""
    #: Whether :meth:`legal_actions` lists every move a player may make (not a representative
    #: set): only then may a console call a lone one the player's only move and play it on an
    #: empty Enter.
    lists_every_action: ClassVar[bool] = False

    # -- options and setup ----------------------------------------------------------------

    def result_text(self, result: Result) -> str:
        """The result in words for people (the end panel, the replay, ``host``'s last line),
        naming seats "seat N" as the rest of the game's text does. The default is
        ``result.summary``; a game may say more, such as each seat's score next to its seat,
        without changing the summary (the transcript records it and verify compares it). The
        result may come from a file: read it defensively."""
        return result.summary

    def resolve_options(self, given: Mapping[str, Any], players: int) -> dict[str, Any]:
        """Defaults merged with ``given`` (text or plain values), each validated; then
        :meth:`validate_options` for rules that tie options to each other or to ``players``."""
        known = {o.name: o for o in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            names = ", ".join(known) or "none"
            raise OptionError(f"{self.id} has no option {unknown[0]!r} (its options: {names})")
        values = {name: opt.default for name, opt in known.items()}
        for name, raw in given.items():
            values[name] = known[name].parse(raw)
        if not self.min_players <= players <= self.max_players:
            raise OptionError(f"{self.name} takes {self.min_players} to {self.max_players} players, not {players}")
        self.validate_options(values, players)
        return values

    def check_table_options(self, options: Mapping[str, Any], players: int) -> None:
        """Raise :class:`OptionError` unless ``options`` (a table header's, from another peer or
        a transcript) are exactly what :meth:`resolve_options` makes of them: every option
        present, valid and parsed. The rules then never meet a missing or unparsed option."""
        resolved = self.resolve_options(options, players)
        if resolved != dict(options):
            wrong = sorted(
                name
                for name, value in resolved.items()
                if name not in options or options[name] != value or type(options[name]) is not type(value)
            )
            raise OptionError(
                f"{self.id}: the table's options are not complete and parsed (look at: {', '.join(wrong)})"
            )

    def validate_options(self, options: Mapping[str, Any], players: int) -> None:
        """Raise :class:`OptionError` if the combination is not playable."""

    def player_counts(self, options: Mapping[str, Any]) -> range:
        """The player counts allowed with these options (a mode may fix the count)."""
        return range(self.min_players, self.max_players + 1)

    def default_players(self, given: Mapping[str, Any]) -> int:
        """The smallest player count that the ``given`` options allow (a mode may fix it)."""
        for count in range(self.min_players, self.max_players + 1):
            try:
                resolved = self.resolve_options(given, count)
            except OptionError:
                continue
            if count in self.player_counts(resolved):
                return count
        return self.min_players

    @abc.abstractmethod
    def deck(self, options: Mapping[str, Any], players: int) -> Sequence[Card]:
        """Every physical card used, each exactly once (copies differ by ``Card.pack``)."""

    @abc.abstractmethod
    def new_state(self, options: Mapping[str, Any], players: int) -> S:
        """The public state before anything happens."""

    # -- the state machine ----------------------------------------------------------------

    @abc.abstractmethod
    def next_step(self, state: S) -> Step:
        """What must happen next."""

    def on_shuffled(self, state: S, handles: Sequence[int]) -> None:
        """The deck was shuffled; ``handles`` are the new cards, in stock order."""

    def on_coin(self, state: S, label: str, value: int) -> None:
        """A public coin asked for by :class:`Coin` came up ``value``."""

    def on_dealt(self, state: S, deal: Deal) -> None:
        """A :class:`Deal` was carried out."""

    def on_reveal(self, state: S, faces: Mapping[int, Card]) -> None:
        """A :class:`Reveal` was carried out; ``faces`` maps every revealed handle to its face."""

    def on_transferred(self, state: S, transfer: Transfer, new_handles: Sequence[int]) -> None:
        """A :class:`Transfer` was carried out. The moved cards now have ``new_handles`` (one per
        distinct handle of ``transfer.handles``, never used before), in an order unrelated to the
        old handles: only the new holder knows which is which. The old handles must not be used
        again; their faces (and the new ones') are still in the audit's ``faces``."""

    @abc.abstractmethod
    def legal_actions(self, state: S, seat: int, known: Mapping[int, Card]) -> Sequence[Action]:
        """The actions ``seat`` may take now, given the faces it can see (``known``: its own
        hand and every public card). When the choices are combinatorial (any 1-6 cards of a
        hand), a game may list a representative set that contains every *kind* of action;
        it must say so in its docs, and :meth:`check_own` remains the full test."""

    @abc.abstractmethod
    def check(self, state: S, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` unless public information allows ``action`` now.
        Every peer runs this on every action it receives."""

    def check_own(self, state: S, seat: int, action: Action, known: Mapping[int, Card]) -> None:
        """Raise :class:`IllegalAction` unless the actor's own cards allow ``action`` (must
        follow suit, must go out truthfully ...). Run by the acting client only; the audit
        catches a client that skips it. Defaults to :meth:`check`."""
        self.check(state, seat, action)

    def hidden_claim(self, state: S, seat: int, action: Action) -> tuple[list[int], list[list[Card]]] | None:
        """The claim about hidden cards that ``action`` makes, proven when it is made (deck
        protocol 3, issue 32), or ``None`` (the default): ``(handles, sets)``, saying that the
        cards ``handles`` (the actor's) all lie in one of ``sets`` (lists of faces), without
        saying which set (Cal's BS quads: four cards of one rank, the 13 ranks' four suits).
        Public information only (every seat and ``p2pcards verify`` compute it alike). At a
        table with the mental-poker deck the actor's client adds the proof to the action
        (``"proof"``) and every seat checks it before the move stands: a missing or false
        proof is refused like an illegal move. Asked only of actions :meth:`check` allowed."""
        return None

    def idle_action(self, state: S, seat: int, known: Mapping[int, Card]) -> Action | None:
        """What ``seat``'s own client plays for a player who lets the turn time run out, where
        the game's rules say what happens then (Cal's BS rule 28: a follower passes). ``None``
        (the default): nothing; the other seats name the player when the turn timeout passes.
        Only the seat's own client ever uses it, so there is never a second author of a move."""
        return None

    def absent_action(self, state: S, seat: int) -> Action | None:
        """What the table does for ``seat`` when its client is gone, where the game's rules
        allow it (Cal's BS rule 28: a follower passes): every other seat states that it holds
        no move of the seat, and this action is applied in its place (protocol/table.md section
        9, "Absent followers"). It may depend on public state only (every seat and ``p2pcards
        verify`` compute it alike) and must be legal. ``None`` (the default): the table waits
        for the seat to come back, then abandons the game."""
        return None

    def drop_out_refusal(self, state: S, seat: int) -> str | None:
        """Why ``seat`` may not drop out of the game now, as a sentence for people, or ``None``
        where the game's rules allow it (issue 30; docs/games say each game's rule).

        A seat that drops out leaves the game for good: the cards it holds are set aside face
        down, never opened by anyone (the deck cannot open them without that seat's key, and it
        never publishes it), and the game goes on without it. So a game may allow it only where
        nothing it will ever need opens one of those cards or asks the seat to act again. It
        may depend on public state only (every seat and ``p2pcards verify`` decide alike).
        The default: never ("this game has no rule for a player dropping out")."""
        return "this game has no rule for a player dropping out"

    def drop_out(self, state: S, seat: int) -> None:
        """Apply ``seat``'s dropping out, which :meth:`drop_out_refusal` allowed: set its cards
        aside, take it out of the turn order and of the result. Never called otherwise."""
        raise IllegalAction(self.drop_out_refusal(state, seat) or "this game has no rule for a player dropping out")

    @abc.abstractmethod
    def apply(self, state: S, seat: int, action: Action) -> None:
        """Perform an action that passed :meth:`check`."""

    def audit(self, state: S, actions: Sequence[tuple[int, Action]], faces: Mapping[int, Card]) -> list[Violation]:
        """At the game's end: re-check what the public rules could not as the moves came.

        ``faces`` are the faces the table saw: on the mental-poker deck every card opened to all
        (a reveal), never a card only its holder saw (protocol/deck.md §7, issue 32); the
        open-faced local dealer gives every face. An audit checks what those faces show and
        names nobody for a card whose face it lacks: a hidden claim is proven when it is made
        (``hidden_claim``), not after the game.

        ``actions`` is every action of the game, in order, as ``(seat, action)``; a violation's
        ``action_index`` indexes it. ``state`` is the final state. Lying where the rules allow
        it (a Cal's BS claim) is not a violation."""
        return []

    # -- for people and bots --------------------------------------------------------------

    def view(self, state: S, seat: int | None, known: Mapping[int, Card]) -> dict[str, Any]:
        """What ``seat`` sees (``None``: a spectator), as plain data for consoles and bots.

        The console renders these keys for any game (all optional; more keys are allowed):

        * ``"hand"``: the seat's own cards as faces (``Card``), in the order to show them;
        * ``"seats"``: one dict per seat of public facts, shown as columns next to the seat's
          name, e.g. ``{"cards": 11, "trump": "♥", "score": 2}`` (values are short text or ints;
          ``True`` is a mark shown by its key alone, e.g. ``{"dropped out": True}``);
        * ``"table"``: lines describing the middle of the table (the pile, the current trick);
        * ``"status"``: one line: whose turn it is and what they may do.
        """
        return {}

    def story(self, state: S) -> Sequence[Mapping[str, Any]]:
        """The story of the game so far: one entry per outcome people want told as it happens
        (a trick won and why, a doubt settled, a hand or a deal over, a card cut for the dealer),
        in order. Entries are plain data (JSON and msgpack safe, seats as numbers, faces only
        once public); a game appends one as the outcome is decided (in ``apply`` or an ``on_*``
        method) and never changes or drops it. The default tells no story.

        The table session publishes each new entry as a ``story`` event, after the step that
        told it, with :meth:`tell`'s line; a coin's entries are the coin's own line. A replay
        replays the game and reads them the same way."""
        return ()

    def tell(self, state: S, entry: Mapping[str, Any], names: Sequence[str]) -> str:
        """One :meth:`story` entry as a line for people ("bob takes trick 3 with 9♠ (own
        trump)"), naming seats by ``names`` (never "seat 1"; a console names its own player
        "you": :func:`agree` puts a verb in the right person). ``state`` is the state now, which
        may be later than the entry: the entry itself must hold what the line needs."""
        return ""

    @abc.abstractmethod
    def format_action(self, state: S, seat: int, action: Action, faces: Mapping[int, Card]) -> str:
        """The action as a person would say it, after the seat's name in the table's log;
        ``faces`` holds whatever faces the viewer may see (a face-down play is shown without its
        faces). It may be a command ("play Q♥") or a phrase ("plays Q♥"), but for a legal action
        written with the acting seat's own faces, :meth:`parse_action` must read it back as the
        same action: what the log shows, a player can type
        (:func:`p2pcards.testing.check_game` checks it)."""

    @abc.abstractmethod
    def parse_action(self, state: S, seat: int, text: str, known: Mapping[int, Card]) -> Action:
        """Read what a player typed into an action, or raise :class:`IllegalAction` saying
        what was expected. Cards are typed by face; map them to the seat's handles. Besides
        the game's commands it accepts whatever :meth:`format_action` writes for a legal action
        of ``seat`` given ``known``, and returns that action."""

    def commands_help(self) -> str:
        """The console commands of this game, one per line."""
        return ""


_IRREGULAR = {"is": "are", "was": "were", "has": "have", "does": "do", "goes": "go"}


def agree(name: str, verb: str) -> str:
    """``verb`` (third person: "takes") as it goes after ``name``: "bob takes", but "you take"
    (a console names its own player "you"). For :meth:`Game.tell` lines."""
    if name != "you":
        return verb
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith(("sses", "shes", "ches", "xes")):
        return verb[:-2]
    return verb[:-1] if verb.endswith("s") and not verb.endswith("ss") else verb


# --------------------------------------------------------------------------------------------
# Bots.


class Bot(abc.ABC):
    """A policy for one seat. It sees only what that seat may see: the public state, the
    faces in ``known``, and the events it is shown through :meth:`observe`.

    Bots may use randomness, but only the ``rng`` they are given, so that a seeded simulation
    replays exactly.
    """

    #: Name used with ``--bot`` and in listings.
    name: ClassVar[str]

    def __init__(self, game: Game, seat: int, options: Mapping[str, Any], rng: random.Random):
        self.game = game
        self.seat = seat
        self.options = options
        self.rng = rng

    def observe(self, state: Any, event: Mapping[str, Any], known: Mapping[int, Card]) -> None:  # noqa: B027 - optional hook
        """Called after every event the seat can see (an action, a reveal, a deal or a
        transfer to this seat); ``event`` is plain data, see :mod:`p2pcards.engine`."""

    @abc.abstractmethod
    def choose(self, state: Any, known: Mapping[int, Card]) -> Action:
        """Pick an action for a :class:`Turn` of this bot's seat, or its response to a
        :class:`Round`."""

    def reaction_time(self, state: Any, known: Mapping[int, Card], action: Action) -> float:
        """Seconds this bot takes to respond with ``action`` in a :class:`Round` (who acts first
        wins a race): a human-like delay drawn from ``rng``, 0.3 to 1.5 s by default."""
        return self.rng.uniform(0.3, 1.5)


def options_words(described: Iterable[OptionWords], options: Mapping[str, Any]) -> str:
    r"""A table's options in words ("quads: off, first dealer: by lot"), each by the option of
    ``described`` (a game's :class:`Option`\ s, or the lobby's choices) that has its name; an
    option none describes (a game not installed here): ``key=value`` (a bool ``on``/``off``).
    In the game's order of its options, those it does not describe last: the same at every
    seat, whatever order the table's options came in (a header's map arrives sorted by key)."""
    known = {option.name: option for option in described}
    order = {name: index for index, name in enumerate(known)}
    out = []
    for key, value in sorted(options.items(), key=lambda item: order.get(item[0], len(order))):
        option = known.get(key)
        if option is not None:
            out.append(f"{option.title}: {option.value_text(value)}")
        else:
            out.append(f"{key}={('on' if value else 'off') if isinstance(value, bool) else value}")
    return ", ".join(out)


def result_words(game: Game[Any] | None, result: Result) -> str:
    """:meth:`Game.result_text`, or the summary when there is no game or its text fails (a
    plugin's bug must not hide how the game ended)."""
    if game is None:
        return result.summary
    try:
        text = game.result_text(result)
    except Exception:
        return result.summary
    return text if isinstance(text, str) else result.summary

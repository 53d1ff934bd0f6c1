"""View models: what the table screen shows, as plain data built from a :class:`TableSession`.

Nothing here knows prompt-toolkit; the widgets in :mod:`.render` turn these into styled text.
The game's ``view()`` is read through the generic keys of the contract (``hand``, ``seats``,
``table``, ``status``, see :meth:`p2pcards.game.Game.view`), the same way for every game. A game
names seats in its text as "seat N"; the console shows the players' names instead ("you",
"bot 2"). A view without those keys still gets a screen: no seat columns, its plain scalar keys
as table lines, and every face the seat can see as its cards.

Card text in the lines is ASCII (``7h``, ``10s``) or a lone suit symbol; the renderer turns both
into symbols and colours, or keeps ASCII.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..cards import Card, CardParseError, parse_card, sort_cards
from ..game import result_words
from ..session import TableEvent, TableSession, clean_audit_words
from ..text import command_words, name_seats, printable, second_person, third_person

if TYPE_CHECKING:
    from .controller import ForcedMove

__all__ = [
    "EndModel",
    "LogLine",
    "SeatLine",
    "TableModel",
    "TableTracker",
    "acting_seat",
    "clock",
    "presence_lines",
    "turn_clock",
    "end_model",
    "forced_status",
    "hand_cards",
    "name_seats",
    "seat_facts",
    "table_lines",
    "table_model",
]


@dataclass(frozen=True)
class SeatLine:
    seat: int
    name: str
    facts: tuple[tuple[str, str], ...]
    to_act: bool
    me: bool
    #: ``online``, ``away``, ``gone`` or ``bot`` (its player left, a bot plays on) at a
    #: networked table; ``None`` when every seat plays in this process (nothing to say).
    presence: str | None = None
    #: While ``away``: whole seconds left before the table gives up on the seat.
    grace_left: int | None = None

    @property
    def presence_text(self) -> str | None:
        """The seat list's mark: "online", "away 1:05" (the grace period left), "gone"."""
        if self.presence == "bot":  # its player left; its own program plays on with a bot
            return "bot plays"
        if self.presence == "away" and self.grace_left is not None:
            return f"away {clock(self.grace_left)}"
        return self.presence


@dataclass(frozen=True)
class TableModel:
    """One frame of the table screen."""

    title: str
    seats: tuple[SeatLine, ...]
    table: tuple[str, ...]
    hand: tuple[Card, ...]
    hand_label: str
    status: str
    #: Cards of ``hand`` just picked up (a multiset: with several packs a face may repeat),
    #: shown highlighted for a moment.
    fresh: tuple[Card, ...] = ()


@dataclass(frozen=True)
class LogLine:
    kind: str
    text: str


# --------------------------------------------------------------------------------------------
# Seats.

# Keys of a per-seat dict that are structure, not facts to show.
_SEAT_SKIP = {"seat", "name"}


def _short(value: Any) -> str | None:
    """A fact as short text; ``None`` hides it."""
    if value is None or value == [] or value == {}:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return str(len(value))
    return str(value)


def seat_facts(view: Mapping[str, Any], players: int) -> list[list[tuple[str, str]]]:
    """Short ``(label, value)`` columns for each seat: the game's ``seats`` dicts, in its order
    of keys, each key its own label. A key whose value is ``True`` is a mark shown by its label
    alone (``{"dropped out": True}`` reads "dropped out", not "dropped out yes"), with the value
    ``""``; ``False`` hides it."""
    facts: list[list[tuple[str, str]]] = [[] for _ in range(players)]
    rows = view.get("seats")
    if not isinstance(rows, (list, tuple)):
        return facts
    for seat, row in enumerate(rows[:players]):
        if not isinstance(row, Mapping):
            continue
        for key, value in row.items():
            text = "" if value is True else None if value is False else _short(value)
            if key not in _SEAT_SKIP and text is not None:
                facts[seat].append((str(key), text))
    return facts


def acting_seat(view: Mapping[str, Any]) -> int | None:
    for key in ("turn", "to_act"):
        if isinstance(view.get(key), int) and not isinstance(view.get(key), bool):
            return view[key]
    return None


# --------------------------------------------------------------------------------------------
# The middle of the table.

# Keys that are structure, not news, for the scalar fallback.
_FALLBACK_SKIP = {"hand", "seats", "table", "status", "seat", "game", "result", "events"}


def table_lines(view: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """Lines for the middle of the table."""
    table = view.get("table")
    if isinstance(table, str):
        return [name_seats(line, names) for line in table.splitlines()]
    if isinstance(table, (list, tuple)):
        return [name_seats(str(line), names) for line in table]
    return [
        f"{key.replace('_', ' ')}: {_short(value)}"
        for key, value in view.items()
        if key not in _FALLBACK_SKIP and isinstance(value, (str, int, float, bool)) and _short(value) is not None
    ]


# --------------------------------------------------------------------------------------------
# The hand.


def _as_card(value: Any) -> Card | None:
    if isinstance(value, Card):
        return value
    try:
        return parse_card(str(value))
    except CardParseError:
        return None


def hand_cards(view: Mapping[str, Any], known: Mapping[int, Card]) -> tuple[list[Card], str]:
    """The local seat's cards and a label for them.

    A view with a ``hand`` gives the hand in the game's own order (Cal's BS sorts by rank); a
    game whose view has none still shows every face the seat can see, sorted, and says so."""
    if "hand" in view and isinstance(view["hand"], (list, tuple)):
        cards = [c for c in (_as_card(v) for v in view["hand"]) if c is not None]
        return cards, "your hand"
    return sort_cards(known.values()), "cards you can see"


# --------------------------------------------------------------------------------------------
# The whole screen.


HINT = "Tab lists the legal ones, F1 for help"


def forced_status(forced: ForcedMove, names: Sequence[str]) -> str:
    """The status line when the player has one legal move: what it is, and that an empty
    Enter plays it ("your turn: set aside 3♣ 5♣ (your only move): press Enter, or type 'set aside
    3♣ 5♣'")."""
    typed = f", or type '{forced.text}'" if forced.text else ""
    return f"your turn: {name_seats(forced.description, names)} (your only move): press Enter{typed}"


def your_turn(status: str) -> str:
    """One wording for the player's turn whatever the game says: "you to play: play a heart"
    (Crazy Eights' "seat 0 to play" named) reads "your turn: play a heart", as Cal's BS says."""
    return "your turn" + status[len("you to play") :] if status.startswith("you to play") else status


def _status(view: Mapping[str, Any], session: TableSession, turn: int | None, forced: ForcedMove | None = None) -> str:
    if forced is not None and session.my_turn and session.result is None:
        return forced_status(forced, session.names)
    if isinstance(view.get("status"), str) and view["status"]:
        status = your_turn(name_seats(view["status"], session.names))
        return f"{status} ({HINT})" if session.my_turn and session.result is None else status
    if session.result is not None:
        return "the game is over"
    if session.my_turn:
        return f"your turn: type a move ({HINT})"
    if turn is not None and session.phase == "playing":
        return f"{session.names[turn]} to play"
    return session.phase


def clock(seconds: float) -> str:
    """``m:ss`` (``1:05``), or ``h:mm:ss`` from an hour on."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def turn_clock(seconds: int | None, limit: float | None) -> str:
    """The toolbar's turn clock: the time taken so far, and the table's turn limit when it has
    one ("0:12 of 10:00"); empty without a turn going on."""
    if seconds is None:
        return ""
    return f"{clock(seconds)} of {clock(limit)}" if limit else clock(seconds)


def presence_lines(session: TableSession) -> list[tuple[str | None, int | None]]:
    """``(presence, grace_left)`` for each seat: plain data for :class:`SeatLine`. Nothing to
    say at a table played in this process, nor once the game is over (the others close their
    connections then: that is not "away")."""
    presence = session.presence() if session.result is None else None
    if presence is None:
        return [(None, None)] * session.players
    return [
        (p.state or None, None if p.grace_left is None else int(math.ceil(p.grace_left)))
        for p in list(presence)[: session.players]
    ] + [(None, None)] * max(0, session.players - len(presence))


def table_model(
    session: TableSession,
    turn: int | None = None,
    forced: ForcedMove | None = None,
    fresh: Sequence[Card] = (),
) -> TableModel:
    """Build one frame. ``turn`` is the seat whose turn it is as the console last heard it
    (the ``turn`` events); the view's own ``turn``/``to_act`` key wins when it has one.
    ``forced`` is the player's only legal move (see :meth:`.TableController.forced_move`):
    the status line then names it instead of the game's own status. ``fresh``: cards just
    picked up (:meth:`TableTracker.fresh_cards`)."""
    view = session.view()
    names = session.names
    acting = acting_seat(view)
    if acting is None:
        acting = turn
    if session.result is not None:
        acting = None
    facts = seat_facts(view, session.players)
    presence = presence_lines(session)
    seats = tuple(
        SeatLine(seat, names[seat], tuple(facts[seat]), seat == acting, seat == session.me, *presence[seat])
        for seat in range(session.players)
    )
    hand, label = hand_cards(view, session.known()) if session.me is not None else ([], "")
    title = session.game.name
    return TableModel(
        title=title,
        seats=seats,
        table=tuple(table_lines(view, names)),
        hand=tuple(hand),
        hand_label=label,
        status=_status(view, session, acting, forced),
        fresh=tuple(fresh),
    )


# --------------------------------------------------------------------------------------------
# What the console remembers between frames: the log, progress, the turn clock.

SHUFFLE_PHASES = {"starting", "shuffling", "dealing", "auditing"}
#: How long cards just picked up stay highlighted in the hand.
FRESH_SECONDS = 4.0
#: The log lines a tracker keeps (scroll-back); past it, the oldest half goes. A 3-seat Cal's
#: BS hand writes about 150 (issue 23: a long match's log grew without end).
LOG_LINES = 10_000
#: The events that may put cards in the local hand.
_PICKUPS = {"deal", "transfer", "reveal"}


@dataclass
class TableTracker:
    """Subscribes to a session's events and keeps what the screen needs besides ``view()``:
    the log, whose turn it is and since when, progress of the shuffle and deal, the connection
    state. ``on_change`` is called after every event (the app invalidates the screen there)."""

    session: TableSession
    on_change: Callable[[], None] = lambda: None
    clock: Callable[[], float] = time.monotonic
    log: list[LogLine] = field(default_factory=list)
    turn: int | None = None
    turn_started: float | None = None
    progress: str | None = None
    connection: str = "local table (this computer)"
    #: Called when the local seat's turn comes (the console's bell).
    on_my_turn: Callable[[], None] = lambda: None
    #: Who watches the table (``spectator`` events), as the title shows them.
    watching: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self._verbs = command_words(self.session.game.commands_help())
        self._phase: str | None = None
        self._drawing = False  # a deal in the middle of play: a draw
        self._last_mover: int | None = None
        self._stock_faces: tuple[Any, ...] = ()  # the cards the last log line turned up from the stock
        self._hand: Counter[Card] = Counter()
        self._fresh: list[tuple[float, Card]] = []  # (when picked up, card)
        for event in self.session.history:
            self._note(event)
        self._hand = self._hand_now()
        self.session.subscribe(self.on_event)

    def on_event(self, event: TableEvent) -> None:
        self._note(event)
        if event.kind in _PICKUPS:
            self._picked_up()
        elif event.kind in ("action", "responded"):
            self._hand = self._hand_now()  # (a card played is no longer fresh)
        if event.kind == "turn" and self.session.me is not None and event.data.get("seat") == self.session.me:
            self.on_my_turn()
        self.on_change()

    # -- cards just picked up -------------------------------------------------------------

    def _hand_now(self) -> Counter[Card]:
        if self.session.me is None:
            return Counter()
        try:
            return Counter(hand_cards(self.session.view(), self.session.known())[0])
        except Exception:  # a plugin's view bug: the screen says so; nothing is highlighted
            return Counter(self._hand)

    def _picked_up(self) -> None:
        """After a step that may give the local seat cards: those new in its hand are fresh,
        unless the hand was empty (a deal of a whole hand is no news card by card)."""
        before, now = self._hand, self._hand_now()
        self._hand = now
        if before:
            when = self.clock()
            self._fresh += [(when, card) for card in (now - before).elements()]

    def fresh_cards(self) -> list[Card]:
        """The cards picked up in the last :data:`FRESH_SECONDS` and still in the hand."""
        now = self.clock()
        self._fresh = [(when, card) for when, card in self._fresh if now - when < FRESH_SECONDS]
        held = Counter(self._hand)
        out: list[Card] = []
        for _, card in self._fresh:
            if held[card] > 0:
                held[card] -= 1
                out.append(card)
        return out

    def _note(self, event: TableEvent) -> None:
        kind, data = event.kind, event.data
        if kind == "action" and isinstance(data.get("seat"), int):
            self._last_mover = data["seat"]
        if kind == "turn":
            self.turn = data.get("seat")
            self.turn_started = self.clock()
            return  # the status line and the seat marker say it; the log would only repeat it
        if kind == "progress":
            self.progress = event.text
            return
        if kind == "saved":
            return  # the end panel says it
        if kind == "action" and data.get("in_round"):
            return  # a free-order response, shown as it came in ("responded")
        if kind == "action" and data.get("reveal_follows"):
            return  # a play turned face up at once: its reveal says it with the faces
        if kind == "phase":
            self.progress = None
            before, self._phase = self._phase, event.text
            # A card drawn in the middle of play is one line, the move's ("bob draws"): no
            # "-- dealing --" banner, no "1 card dealt to bob" (three lines per draw before).
            self._drawing = event.text == "dealing" and before == "playing"
            # "playing" and "done" need no banner: the turn and the result follow at once.
            if event.text not in ("playing", "done") and not self._drawing:
                self._log(LogLine("phase", f"-- {event.text} --"))
            return
        if kind == "deal" and self._drawing and data.get("seats") == [self._last_mover]:
            return

        if kind == "connection":
            self.connection = event.text
        if kind == "spectator" and isinstance(data.get("watching"), (list, tuple)):
            self.watching = tuple(printable(str(n)) for n in data["watching"])
            if not event.text:
                return  # the list only (past its lines' budget): no line in the log
        if kind == "done":
            self.turn = None
            self.turn_started = None
        text = event.text
        seat = data.get("seat")
        said = kind in ("action", "responded") or (kind == "reveal" and "action" in data)
        if said and isinstance(seat, int) and 0 <= seat < len(self.session.names):
            name = self.session.names[seat]
            if name == "you":
                text = second_person(text)
            else:
                text = third_person(text, name, self._verbs)
        if kind == "done":  # the game's own summary: "seat 2 wins the match"
            text = name_seats(text, self.session.names)
        line = LogLine("action" if said else kind, text)
        if self._says_again(kind, data, line):
            self.log[-1] = line  # one line for both: the new one says the last one's news and more
        else:
            self._log(line)
        # Cards turned up from the stock: a story line naming them all says it instead.
        faces = data.get("faces") if kind == "reveal" and data.get("owner") is None else None
        self._stock_faces = tuple(faces.values()) if isinstance(faces, Mapping) else ()

    def _says_again(self, kind: str, data: Mapping[str, Any], line: LogLine) -> bool:
        """Whether ``line`` says all the last log line said: a seat's move and then its cards
        turned up ("bob shows", then "bob shows J♦ 3♣"), or cards turned up from the stock and
        then the game's line naming them ("the flop: K♣ 5♣ 2♦")."""
        if not self.log:
            return False
        last = self.log[-1]
        if kind == "reveal" and last.kind == "action":
            return line.text.startswith(last.text + " ")
        if kind == "story" and last.kind == "reveal" and self._stock_faces:
            words = set(line.text.replace(",", " ").split())
            return all(isinstance(c, Card) and (str(c) in words or c.unicode() in words) for c in self._stock_faces)
        return False

    def note(self, kind: str, text: str) -> None:
        """A line of the console's own (a notice, a refused move)."""
        self._log(LogLine(kind, text))
        self.on_change()

    def _log(self, line: LogLine) -> None:
        self.log.append(line)
        if len(self.log) > LOG_LINES:
            del self.log[: LOG_LINES // 2]

    @property
    def busy(self) -> bool:
        """The deck is being shuffled, dealt or opened: show progress."""
        return self.session.phase in SHUFFLE_PHASES

    def busy_text(self) -> str:
        if self.progress:
            return self.progress
        return {
            "starting": "setting up the table",
            "shuffling": "shuffling the deck (every player takes part)",
            "dealing": "dealing",
            "auditing": "opening every card for the audit",
        }.get(self.session.phase, self.session.phase)

    def turn_seconds(self) -> int | None:
        if self.turn_started is None or self.session.result is not None:
            return None
        return int(self.clock() - self.turn_started)

    def turn_clock(self) -> str:
        """ "0:12 of 10:00": this turn's time so far and the table's limit (see :func:`turn_clock`)."""
        return turn_clock(self.turn_seconds(), self.session.turn_limit)


# --------------------------------------------------------------------------------------------
# The end of a game.


@dataclass(frozen=True)
class EndModel:
    result: str
    winners: str
    scores: tuple[str, ...]
    audit: tuple[str, ...]
    transcript: str | None
    verify: str | None
    #: The transcript is written (until then it waits for every seat's result).
    saved: bool = True


def end_model(session: TableSession) -> EndModel | None:
    result = session.result
    if result is None:
        return None
    names = session.names
    winners = [names[s] for s in result.winners if 0 <= s < len(names)]
    if not winners:
        who = "a draw"
    elif session.me is not None and session.me in result.winners:
        # "you and bot 3 win" (a partnership), not "winners: you, bot 3 (you too)"
        others = [names[s] for s in result.winners if s != session.me and 0 <= s < len(names)]
        who = "you win" if not others else "you and " + ", ".join(others) + " win"
    else:
        who = ("winner: " if len(winners) == 1 else "winners: ") + ", ".join(winners)
    # The winners' scores first: a short end panel leaves out its last lines (fit_lines).
    order = sorted(range(min(len(result.scores), len(names))), key=lambda s: s not in result.winners)
    scores = tuple(f"{names[s]}: {_score_text(result.scores[s])}" for s in order)
    if not session.violations:
        audit: tuple[str, ...] = (clean_audit_words(session),)
    else:
        audit = (f"audit: {len(session.violations)} violation(s) found",) + tuple(
            f"  {names[v.seat] if 0 <= v.seat < len(names) else v.seat}, action {v.action_index}: {v.message}"
            for v in session.violations
        )
    path = session.transcript_path
    return EndModel(
        result=name_seats(result_words(session.game, result), names),
        winners=who,
        scores=scores,
        audit=audit,
        transcript=path,
        verify=f"p2pcards verify {path}" if path else None,
        saved=session.transcript_saved,
    )


def _score_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"

"""View models: what the table screen shows, as plain data built from a :class:`TableSession`.

Nothing here knows prompt-toolkit; the widgets in :mod:`.render` turn these into styled text.
The game's ``view()`` is read through the generic keys of the contract (``hand``, ``seats``,
``table``, ``status``, see :meth:`p2pcards.game.Game.view`). A game that offers other, richer keys
instead still gets a useful screen: :func:`seat_facts` and :func:`table_lines` recognise a few
common shapes (a list of per-seat dicts, per-seat lists such as ``hand_sizes``, a ``pile`` of
claimed sets, a ``trick`` with trump suits and calypsos), and anything else falls back to its
plain scalar keys.

Card text in the lines is ASCII (``7h``, ``10s``) or a lone suit symbol; the renderer turns both
into symbols and colours, or keeps ASCII.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cards import Card, CardParseError, parse_card, parse_suit, sort_cards
from ..session import TableEvent, TableSession

__all__ = [
    "EndModel",
    "LogLine",
    "SeatLine",
    "TableModel",
    "TableTracker",
    "acting_seat",
    "end_model",
    "hand_cards",
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


@dataclass(frozen=True)
class TableModel:
    """One frame of the table screen."""

    title: str
    seats: tuple[SeatLine, ...]
    table: tuple[str, ...]
    hand: tuple[Card, ...]
    hand_label: str
    status: str


@dataclass(frozen=True)
class LogLine:
    kind: str
    text: str


# --------------------------------------------------------------------------------------------
# Seats.

# Per-seat dict keys worth a column, in display order, with their short labels. Bulky values
# (a calypso in progress) go to the table lines instead; ``seat`` and ``partner`` are structure.
_SEAT_KEYS: tuple[tuple[str, str], ...] = (
    ("cards", "cards"),
    ("hand_size", "cards"),
    ("trump", "trump"),
    ("completed", "calypsos"),
    ("pile", "won"),
    ("tricks", "tricks"),
    ("score", "score"),
    ("points", "points"),
)
_SEAT_SKIP = {"seat", "partner", "calypso", "name"}
# Per-seat lists at the top level of a view: key -> column label.
_PER_SEAT_LISTS = {"hand_sizes": "cards", "scores": "score", "points": "points", "tricks": "tricks"}


def _short(value: Any) -> str | None:
    """A fact as short text; ``None`` hides it."""
    if value is None or value == [] or value == {}:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return str(len(value))
    return str(value)


def _suit_text(value: Any) -> str:
    """A suit given as a letter or a name, shown as its symbol (the renderer may undo that)."""
    try:
        return parse_suit(str(value)).symbol
    except CardParseError:
        return str(value)


def seat_facts(view: Mapping[str, Any], players: int) -> list[list[tuple[str, str]]]:
    """Short ``(label, value)`` columns for each seat."""
    facts: list[list[tuple[str, str]]] = [[] for _ in range(players)]
    rows = view.get("seats")
    if not isinstance(rows, list):
        rows = view.get("players") if isinstance(view.get("players"), list) else None
    if rows and all(isinstance(r, Mapping) for r in rows):
        generic = "seats" in view
        for index, row in enumerate(rows):
            seat = row.get("seat", index) if not generic else index
            if not isinstance(seat, int) or not 0 <= seat < players:
                continue
            known = [k for k, _ in _SEAT_KEYS if k in row]
            # A game that fills "seats" chose its columns: keep them all, in its order.
            keys = [k for k in row if k not in _SEAT_SKIP] if generic else known
            labels = dict(_SEAT_KEYS)
            for key in keys:
                text = _suit_text(row[key]) if key == "trump" and row[key] else _short(row[key])
                if text is not None:
                    facts[seat].append((labels.get(key, key), text))
    for key, label in _PER_SEAT_LISTS.items():
        values = view.get(key)
        if isinstance(values, list) and len(values) == players:
            for seat, value in enumerate(values):
                if label not in dict(facts[seat]) and _short(value) is not None:
                    facts[seat].append((label, _short(value)))
    return facts


def acting_seat(view: Mapping[str, Any]) -> int | None:
    for key in ("turn", "to_act"):
        if isinstance(view.get(key), int) and not isinstance(view.get(key), bool):
            return view[key]
    return None


# --------------------------------------------------------------------------------------------
# The middle of the table.

TableRenderer = Callable[[Mapping[str, Any], Sequence[str]], list[str]]


def _pile_lines(view: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """Cards placed face down in claimed sets (Cal's BS and its kin)."""
    pile = view["pile"]
    lines: list[str] = []
    rank = view.get("current_rank")
    if not pile:
        lines.append("pile: empty" + (", a new lead" if view.get("must_lead") else ""))
    else:
        total = view.get("pile_cards", sum(s.get("count", 0) for s in pile))
        head = f"pile: {total} card{'s' * (total != 1)} in {len(pile)} set{'s' * (len(pile) != 1)}"
        if view.get("quads_context"):
            head += ", quads" + (f" +{view['plus']}" if view.get("plus") is not None else "")
        elif rank:
            head += f", claiming {rank}"
        lines.append(head)
        shown = pile[-6:]
        if len(pile) > len(shown):
            lines.append(f"  ... {len(pile) - len(shown)} earlier sets")
        for entry in shown:
            owner = entry.get("owner")
            who = names[owner] if isinstance(owner, int) and owner < len(names) else "?"
            count = entry.get("count", 0)
            text = f"  {who}: {count} card{'s' * (count != 1)}, claimed {entry.get('claim', '?')}"
            if entry.get("cards"):
                text += "  face up: " + " ".join(entry["cards"])
            lines.append(text)
    if view.get("passes"):
        lines.append(f"passes since the last set: {view['passes']}")
    out = view.get("provisionally_out")
    if isinstance(out, int) and out < len(names):
        lines.append(f"{names[out]} is out unless doubted")
    if view.get("match_target", 1) and view.get("hand_number"):
        lines.append(f"hand {view['hand_number']}, first to {view.get('match_target')} hands wins")
    return lines


def _trick_lines(view: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """A trick-taking table: the current trick, trump suits, calypsos in progress, scores."""
    lines: list[str] = []
    trick = view.get("trick") or []
    number = view.get("trick_number")
    plays = [
        f"{names[p['seat']]} {p.get('card') or '(face down)'}"
        for p in trick
        if isinstance(p, Mapping) and isinstance(p.get("seat"), int) and p["seat"] < len(names)
    ]
    label = f"trick {number}" if number else "trick"
    lines.append(f"{label}: " + (", ".join(plays) if plays else "nothing led yet"))
    winner = view.get("last_trick_winner")
    if isinstance(winner, int) and winner < len(names):
        lines.append(f"last trick won by {names[winner]}")
    players = view.get("players") or view.get("seats") or []
    trumps = [
        f"{names[p['seat']]} {_suit_text(p['trump'])}"
        for p in players
        if isinstance(p, Mapping) and p.get("trump") and isinstance(p.get("seat"), int)
    ]
    if trumps:
        lines.append("trumps: " + ", ".join(trumps))
    for p in players:
        if isinstance(p, Mapping) and p.get("calypso") and isinstance(p.get("seat"), int):
            cards = p["calypso"]
            lines.append(f"calypso {names[p['seat']]}: {' '.join(cards)} ({len(cards)}/13)")
    if view.get("deal") and view.get("deals"):
        extra = f", {view['stock']} cards in the stock" if view.get("stock") else ""
        lines.append(f"deal {view['deal']} of {view['deals']}{extra}")
    if view.get("removed_suit"):
        lines.append(f"removed suit: {_suit_text(view['removed_suit'])}")
    return lines


# A renderer applies when its key is in the view; the first match wins.
_RENDERERS: tuple[tuple[str, TableRenderer], ...] = (("pile", _pile_lines), ("trick", _trick_lines))
# Keys that are structure, not news, for the scalar fallback.
_FALLBACK_SKIP = {"hand", "seats", "table", "status", "seat", "game", "result", "events"}


def table_lines(view: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """Lines for the middle of the table."""
    table = view.get("table")
    if isinstance(table, str):
        return table.splitlines()
    if isinstance(table, (list, tuple)):
        return [str(line) for line in table]
    for key, renderer in _RENDERERS:
        if key in view:
            return renderer(view, names)
    return [
        f"{key.replace('_', ' ')}: {_short(value)}"
        for key, value in view.items()
        if key not in _FALLBACK_SKIP
        and isinstance(value, (str, int, float, bool))
        and _short(value) is not None
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


def _status(view: Mapping[str, Any], session: TableSession, turn: int | None) -> str:
    if isinstance(view.get("status"), str):
        return view["status"]
    if session.result is not None:
        return "the game is over"
    if session.my_turn:
        return "your turn: type a move (Tab lists the legal ones, F1 for help)"
    if turn is not None and session.phase == "playing":
        return f"{session.names[turn]} to play"
    return session.phase


def table_model(session: TableSession, turn: int | None = None) -> TableModel:
    """Build one frame. ``turn`` is the seat whose turn it is as the console last heard it
    (the ``turn`` events); the view's own ``turn``/``to_act`` key wins when it has one."""
    view = session.view()
    names = session.names
    acting = acting_seat(view)
    if acting is None:
        acting = turn
    if session.result is not None:
        acting = None
    facts = seat_facts(view, session.players)
    seats = tuple(
        SeatLine(seat, names[seat], tuple(facts[seat]), seat == acting, seat == session.me)
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
        status=_status(view, session, acting),
    )


# --------------------------------------------------------------------------------------------
# What the console remembers between frames: the log, progress, the turn clock.

SHUFFLE_PHASES = {"starting", "shuffling", "dealing", "auditing"}


def _second_person(text: str) -> str:
    """"you plays Q♥" -> "you play Q♥", "you passes" -> "you pass"."""
    head, verb, rest = (text.split(" ", 2) + ["", ""])[:3]
    if head != "you" or len(verb) < 4 or not verb.isalpha() or not verb.endswith("s") or verb.endswith("ss"):
        return text
    verb = verb[:-2] if verb.endswith(("sses", "shes", "ches", "xes")) else verb[:-1]
    return " ".join(w for w in ("you", verb, rest) if w)


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
    error_count: int = 0

    def __post_init__(self) -> None:
        for event in self.session.history:
            self._note(event)
        self.session.subscribe(self.on_event)

    def on_event(self, event: TableEvent) -> None:
        self._note(event)
        self.on_change()

    def _note(self, event: TableEvent) -> None:
        kind, data = event.kind, event.data
        if kind == "turn":
            self.turn = data.get("seat")
            self.turn_started = self.clock()
            return  # the status line and the seat marker say it; the log would only repeat it
        if kind == "progress":
            self.progress = event.text
            return
        if kind == "phase":
            self.progress = None
            # "playing" and "done" need no banner: the turn and the result follow at once.
            if event.text not in ("playing", "done"):
                self.log.append(LogLine("phase", f"-- {event.text} --"))
            return
        if kind == "connection":
            self.connection = event.text
        if kind == "done":
            self.turn = None
            self.turn_started = None
        if kind == "error":
            self.error_count += 1
        text = event.text
        seat = data.get("seat")
        if kind == "action" and isinstance(seat, int) and seat < len(self.session.names):
            # "bot 2 seat 2 plays Q♥" (a game that names the seat itself) -> "bot 2 plays Q♥"
            name = self.session.names[seat]
            text = text.replace(f"{name} seat {seat} ", f"{name} ", 1)
            if name == "you":
                text = _second_person(text)
        self.log.append(LogLine(kind, text))

    def note(self, kind: str, text: str) -> None:
        """A line of the console's own (a notice, a refused move)."""
        self.log.append(LogLine(kind, text))
        self.on_change()

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


def end_model(session: TableSession) -> EndModel | None:
    result = session.result
    if result is None:
        return None
    names = session.names
    winners = [names[s] for s in result.winners if 0 <= s < len(names)]
    if not winners:
        who = "a draw"
    elif session.me is not None and session.me in result.winners:
        who = "you win" if len(winners) == 1 else "winners: " + ", ".join(winners) + " (you too)"
    else:
        who = ("winner: " if len(winners) == 1 else "winners: ") + ", ".join(winners)
    scores = tuple(
        f"{names[s]}: {_score_text(v)}" for s, v in enumerate(result.scores) if s < len(names)
    )
    if not session.violations:
        audit = ("audit: clean, every card checked",)
    else:
        audit = (f"audit: {len(session.violations)} violation(s) found",) + tuple(
            f"  {names[v.seat] if 0 <= v.seat < len(names) else v.seat}, action {v.action_index}:"
            f" {v.message}"
            for v in session.violations
        )
    path = session.transcript_path
    return EndModel(
        result=result.summary,
        winners=who,
        scores=scores,
        audit=audit,
        transcript=path,
        verify=f"p2pcards verify {path}" if path else None,
    )


def _score_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"



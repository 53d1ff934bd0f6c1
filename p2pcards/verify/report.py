"""What ``p2pcards verify`` says of a transcript: the :class:`Report` (verdict, exit code, the
checks done, the timeline of the game), the :class:`Problem` that stopped it, and the
exceptions that end a check (:class:`Failed`: exit 1, or exit 3 when all it finds is a
player's signed goodbye; :class:`Unreadable`: exit 2; :class:`Stopped`: an unfinished game's
signed entries end here)."""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..cards import Card
from ..game import Result
from ..text import name_seats, printable
from ..wire.log import BAD_SIGNATURE, GAP, STRANGER, WRONG_TABLE

EXIT_VERIFIED, EXIT_FAILED, EXIT_UNREADABLE = 0, 1, 2
#: A game that ended because a player left (its signed ``bye``) and shows no fault of anyone:
#: a goodbye, not a failure, and not a verified game either (it has no result).
EXIT_LEFT = 3
#: The game plugin failed on the transcript (an exception other than its refusal of a move):
#: a bug in the plugin, not a player's fault; nobody is named and nothing is verified.
EXIT_PLUGIN = 4
#: A table whose game never started: a seat signed nothing (its program could not connect to
#: every seat, or stopped before the first step). Nobody is at fault and nothing is verified.
EXIT_NOT_STARTED = 5


VERDICTS = {
    EXIT_VERIFIED: "verified",
    EXIT_FAILED: "failed",
    EXIT_UNREADABLE: "unreadable",
    EXIT_LEFT: "left",
    EXIT_PLUGIN: "plugin-failed",
    EXIT_NOT_STARTED: "not-started",
}

#: How the step of a :class:`Problem` that is a signed goodbye begins (verify/stops.py).
GOODBYE_STEP = "bye entry of seat "


#: Log refusals that say nothing about the claimed signer (the file was altered).
UNSIGNED_FAULTS = (BAD_SIGNATURE, WRONG_TABLE, STRANGER, GAP)


#: Keys of an action whose values are handles of the actor's cards (shown with their faces).
HANDLE_KEYS = ("card", "cards", "handle", "handles")


@dataclass(frozen=True)
class Problem:
    """Why verification stopped: at which ``step`` (an entry, a turn, a deck operation), and
    the seat to blame when the fault is a seat's (``None`` for damage to unsigned parts)."""

    step: str
    reason: str
    seat: int | None = None
    #: An unfinished game's replay stopped waiting for this seat (its move or message never
    #: came), and ``seat`` is what the one stall verdict says of it (verify/stops.py);
    #: ``None`` for any other problem. Not in the report: the live table's own check of its
    #: transcript reads it (net/table.py, ``_judge_the_stopper``).
    waited_on: int | None = None


class Watch(Protocol):
    """Follows the replay as it runs (``p2pcards replay``, :mod:`p2pcards.replay`): told of
    every event of the report's timeline (with handles, before :func:`with_faces`), with the
    game's state just after it and the faces each seat knew then (``known[seat]``), and of the
    faces the end-of-game audit opened. ``state`` and ``known`` are live: copy what is kept."""

    def step(self, event: Mapping[str, Any], state: Any, known: Sequence[Mapping[int, Card]]) -> None: ...

    def opened(self, faces: Mapping[int, Card]) -> None: ...


class Unreadable(Exception):
    """Exit 2: the file cannot be checked here."""


class Failed(Exception):
    """Exit 1: the file shows tampering or cheating."""

    def __init__(self, step: str, reason: str, seat: int | None = None, *, waited_on: int | None = None):
        super().__init__(reason)
        self.problem = Problem(step, reason, seat, waited_on)


class NotStarted(Exception):
    """Exit 5: the game never started (:data:`EXIT_NOT_STARTED`): nobody is named."""

    def __init__(self, step: str, reason: str):
        super().__init__(reason)
        self.problem = Problem(step, reason, None)


class PluginFailed(Exception):
    """Exit 4: the game plugin raised something else than a refusal while the file was replayed
    (``reason``: :func:`p2pcards.plugins.plugin_failure`'s words). Nobody is named."""

    def __init__(self, step: str, reason: str):
        super().__init__(reason)
        self.problem = Problem(step, reason, None)


def illegal_move(turn: int, seat: int, reason: str) -> Failed:
    """The verdict on a signed move the rules refuse: it names the mover, in the rules' words
    (escaped and cut short: a third-party game may quote the move). The move itself is not
    quoted: it is the signer's data, not a reason (a ``type`` may read "verified")."""
    return Failed(f"turn {turn}", f"illegal move: {printable(reason)[:300]}", seat)


class Stopped(Exception):
    """An unfinished game: the signed entries end here (``seat`` owed ``what``, at ``step``)."""

    def __init__(self, step: str, seat: int, what: str):
        super().__init__(what)
        self.step, self.seat, self.what = step, seat, what


@dataclass
class Report:
    """What ``p2pcards verify`` found. ``timeline`` (deals, reveals, transfers, coins and every
    move, with faces) is what ``--show-hands`` prints."""

    file: str
    status: int = EXIT_UNREADABLE
    problem: Problem | None = None
    game: dict[str, str] = field(default_factory=dict)
    table: str = ""
    players: list[dict[str, Any]] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    #: The options in the game's words (:func:`~p2pcards.game.options_words`): for people.
    options_text: str = ""
    end_status: str | None = None
    result: Result | None = None
    #: The result in the game's own words (:func:`~p2pcards.game.result_words`), seats by
    #: number: shown named; "" when the game gives none (then the summary).
    result_text: str = ""
    checked: dict[str, int] = field(default_factory=dict)
    violations: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Seats that dropped out of the game (issue 30), in the order they did.
    dropped: list[int] = field(default_factory=list)
    timeline: list[dict[str, Any]] = field(default_factory=list)
    #: Each seat whose player left and let a bot play the seat to the end (its own signed
    #: chat line, table.protocol.LEFT_TO_BOT): the turn of the first move the bot signed
    #: (``None``: it signed none). An honest seat: a fact for people, never a fault.
    left_to_bot: dict[int, int | None] = field(default_factory=dict)
    #: The cards whose face the table saw (issue 32): each card opened to all during the game,
    #: by handle, and the seats that saw it (every seat at the table then). ``None``: the
    #: replay did not reach the game's end.
    faces_shown: dict[int, tuple[Card, tuple[int, ...]]] | None = None
    #: The cards whose face anyone holding the transcript can decode (every seat's transcript
    #: put together): verify uses no seed, so these are the openings to all, equal to
    #: ``faces_shown`` (issue 32); kept apart so that a program can check they are equal.
    faces_decodable: dict[int, Card] | None = None
    seconds: float = 0.0
    size: int = 0

    @property
    def verdict(self) -> str:
        return VERDICTS[self.status]

    def names(self) -> list[str]:
        """Each seat's player as the text names it: the roster's name, with the seat number
        only where a name is empty or shared (blame must name one player, never two)."""
        names = [str(p.get("name") or "") for p in self.players]
        return [
            name if name and names.count(name) == 1 else f"{name or 'nameless'} (seat {seat})"
            for seat, name in enumerate(names)
        ]

    def name(self, seat: int | None) -> str:
        if seat is None:
            return ""
        if 0 <= seat < len(self.players):
            return self.names()[seat]
        return f"seat {seat}"

    def named(self, text: str) -> str:
        """``text`` (a step, a reason, a note, a summary: "seat 2's entry #5") with every seat
        of the roster named ("bob's entry #5")."""
        return name_seats(text, self.names()) if self.players else text

    def left_line(self) -> str:
        """A goodbye (:data:`EXIT_LEFT`): ``LEFT: bob left the table: quit before the game
        ended (a signed goodbye); the game did not finish: no result to verify``."""
        p = self.problem
        reason = self.named(p.reason) if p is not None else "a player left the table"
        return f"LEFT: {reason}; the game did not finish: no result to verify"

    def not_started_line(self) -> str:
        """:data:`EXIT_NOT_STARTED`: ``NOT STARTED: bob and carol signed nothing at this table
        (...); nobody is to blame``."""
        p = self.problem
        return f"NOT STARTED: {self.named(p.reason) if p is not None else 'the game never started'}"

    def problem_line(self) -> str:
        p = self.problem
        if p is None:
            return ""
        blame = f"; to blame: {self.name(p.seat)}" if p.seat is not None else ""
        return f"{self.named(p.step)}: {self.named(p.reason)}{blame}"

    # -- output -------------------------------------------------------------------------------

    def to_json(self, *, show_hands: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file": self.file,
            "verdict": self.verdict,
            "exit": self.status,
            "problem": None
            if self.problem is None
            else {
                "step": self.problem.step,
                "reason": self.problem.reason,
                "seat": self.problem.seat,
                "name": self.name(self.problem.seat) or None,
            },
            "game": self.game,
            "table": self.table,
            "players": self.players,
            "options": self.options,
            "end": self.end_status,
            "result": None if self.result is None else self._named_result(),
            "winner_names": None if self.result is None else [self.name(seat) for seat in self.result.winners],
            "result_text": None if self.result is None else self.named(self.result_text or self.result.summary),
            "checked": self.checked,
            "violations": [{**v, "name": self.name(v.get("seat"))} for v in self.violations],
            "notes": self.notes,
            "dropped": [{"seat": seat, "name": self.name(seat)} for seat in self.dropped],
            "left_to_bot": [
                {"seat": seat, "name": self.name(seat), "from_turn": turn}
                for seat, turn in sorted(self.left_to_bot.items())
            ],
            "faces_shown": None
            if self.faces_shown is None
            else [
                {"handle": h, "card": card.label(), "seen_by": list(seen)}
                for h, (card, seen) in sorted(self.faces_shown.items())
            ],
            "faces_decodable": None
            if self.faces_decodable is None
            else [{"handle": h, "card": card.label()} for h, card in sorted(self.faces_decodable.items())],
            "seconds": round(self.seconds, 3),
            "bytes": self.size,
        }
        if show_hands:
            out["timeline"] = self.timeline
        return _plain(out)

    def _named_result(self) -> dict[str, Any]:
        """The result for programs and people: ``winners`` and ``scores`` stay by seat (the
        machine fields), its ``summary`` is the game's words with the players named ("bob wins
        the match (hands won: alice 1, bob 2)"), as ``history --json`` says it."""
        assert self.result is not None
        out = self.result.to_wire()
        out["summary"] = self.named(self.result_text or self.result.summary)
        return out

    def to_text(self, *, show_hands: bool = False) -> str:
        lines = [f"transcript: {self.file}"]
        if self.status == EXIT_VERIFIED:
            dropped = "".join(f"; {self.name(seat)} dropped out" for seat in self.dropped)
            lines.append(f"verdict: VERIFIED{dropped}")
        elif self.status == EXIT_FAILED:
            lines.append(f"verdict: FAILED at {self.problem_line()}")
        elif self.status == EXIT_LEFT:
            lines.append(f"verdict: {self.left_line()}")
        elif self.status == EXIT_PLUGIN:
            lines.append(f"verdict: PLUGIN FAILED at {self.problem_line()}")
        elif self.status == EXIT_NOT_STARTED:
            lines.append(f"verdict: {self.not_started_line()}")
        else:
            lines.append(f"verdict: UNREADABLE: {self.problem_line()}")
        if self.game:
            lines.append(f"game: {self.game['name']} ({self.game['id']}, rules {self.game['rules']})")
        if self.options:
            lines.append("options: " + (self.options_text or ", ".join(f"{k}={v}" for k, v in self.options.items())))
        if self.players:
            lines.append(f"table {self.table}, {len(self.players)} players, in seat order:")
            for p in self.players:
                lines.append(f"  {p['name']:<20} key {p['fingerprint']}")
        if self.result is not None:
            lines.append(f"result: {self.named(self.result_text or self.result.summary)}")
        elif self.end_status:
            lines.append(f"end: {self.end_status} (no result)")
        for v in self.violations:
            lines.append(f"violation: turn {v['action_index']}, {self.name(v['seat'])}: {self.named(v['message'])}")
        if self.checked:
            before = "" if self.status == EXIT_VERIFIED else " (before it stopped)"
            lines.append(f"checked{before}: " + _describe_checks(self.checked))
        if self.faces_shown is not None and self.faces_decodable is not None:
            hidden = len(self.faces_decodable) - len(self.faces_shown)
            lines.append(
                f"faces: {len(self.faces_shown)} cards shown at the table; "
                + (f"{hidden} more decodable from this file" if hidden else "no other decodable")
            )
        for note in self.notes:
            lines.append(f"note: {self.named(note)}")
        if show_hands and self.timeline:
            lines.append("what happened (with the faces the table saw):")
            lines.extend(f"  {line}" for line in self._timeline_lines())
        lines.append(f"({self.size} bytes, {self.seconds:.2f} s)")
        # Names, notes, reasons, options and moves come from the file, written by the players:
        # each line is made printable, so none can hold a line break or a terminal escape and
        # print a line of its own ("verdict: VERIFIED") under a failing verdict.
        return "\n".join(printable(line) for line in lines)

    def _timeline_lines(self) -> list[str]:
        lines = []
        shown: list[str] = []  # the cards of the last move line
        for event in self.timeline:
            kind = event["kind"]
            if kind == "reveal" and set(event["cards"]) <= set(shown):
                continue  # a card the move line just showed face up
            shown = event.get("cards", []) if kind == "move" else []
            if kind == "shuffle":
                lines.append(f"shuffle ({event['cards']} cards)")
            elif kind == "coin":
                lines.append(f"coin {event['label']}: {event['value']}")
            elif kind == "deal":
                lines.append("deal:")
                for seat, cards in event["hands"].items():
                    lines.append(f"  {self.name(int(seat))}: {' '.join(cards)}")
            elif kind == "reveal":
                lines.append(f"revealed: {' '.join(event['cards'])}")
            elif kind == "transfer":
                lines.append(f"{len(event['cards'])} cards go to {self.name(event['to'])}: {' '.join(event['cards'])}")
            elif kind == "move":
                lines.append(f"turn {event['turn']}, {self.name(event['seat'])}: {event['text']}")
        return lines


_CHECKS = {
    "entries": "signed entries (signatures, per-seat hash chains)",
    "seeds": "seeds against their commitments",
    "public": "public deck messages followed and checked (proofs, openings)",
    "private": "private deck messages (recipient only; sealed boxes cannot be opened without the recipients' keys)",
    "operations": "deck operations",
    "moves": "moves replayed with the rules",
    "cards": "cards shown at the table",
    "results": "signed results",
}


#: The same checks, for a count of one ("1 seed against its commitment", not "1 seeds").
_CHECK = {
    "entries": "signed entry (signature, per-seat hash chain)",
    "seeds": "seed against its commitment",
    "public": "public deck message followed and checked (proofs, openings)",
    "private": "private deck message (recipient only; a sealed box cannot be opened without the recipient's key)",
    "operations": "deck operation",
    "moves": "move replayed with the rules",
    "cards": "card shown at the table",
    "results": "signed result",
}


def _describe_checks(checked: Mapping[str, int]) -> str:
    """The checks that ran (a run that stopped early lists only those it reached)."""
    return "; ".join(
        f"{checked[key]} {_CHECK[key] if checked[key] == 1 else what}"
        for key, what in _CHECKS.items()
        if key in checked
    )


def describe_seats(seats: set[int]) -> str:
    """ "seat 2", "seats 1 and 3", "seats 0, 1 and 3" (a report names each player)."""
    ordered = [str(s) for s in sorted(seats)]
    if len(ordered) == 1:
        return f"seat {ordered[0]}"
    return f"seats {', '.join(ordered[:-1])} and {ordered[-1]}"


def _plain(value: Any) -> Any:
    """JSON-safe: bytes as hex, tuples as lists, map keys as strings."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    return value


def same_data(a: Any, b: Any) -> bool:
    """Equal as signed data: the canonical encoding (protocol/wire.md section 2) of each would
    be the same bytes. Compared structurally, without encoding either: a bool is not an int, an
    int is not a float, floats compare by their bits, a tuple is a list, maps in any order;
    anything but plain data is never the same."""
    kind = type(a)
    if kind is list or kind is tuple:
        if type(b) is not list and type(b) is not tuple or len(a) != len(b):
            return False
        if all(type(x) is bytes or type(x) is str for x in a):  # a deck pass: compare in C
            return list(a) == list(b)  # bytes and str are never equal to anything else
        return all(same_data(x, y) for x, y in zip(a, b))
    if kind is dict:
        return type(b) is dict and a.keys() == b.keys() and all(same_data(a[k], b[k]) for k in a)
    if kind is float:
        return type(b) is float and struct.pack(">d", a) == struct.pack(">d", b)
    if kind in (bool, int, str, bytes, type(None)):
        return type(b) is kind and a == b
    return False


def difference(got: Any, want: Any, path: str = "") -> str:
    """Where ``got`` first differs from ``want``, as a path like ``points[3]``."""
    if isinstance(got, dict) and isinstance(want, dict):
        for key in sorted(set(got) | set(want)):
            if key not in got or key not in want or not same_data(got[key], want[key]):
                if key in got and key in want:
                    return difference(got[key], want[key], f"{path}.{key}" if path else key)
                return f"{path}.{key}" if path else str(key)
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        for i, (a, b) in enumerate(zip(got, want)):
            if not same_data(a, b):
                return difference(a, b, f"{path}[{i}]")
    return path or "the message"


def plugin_failed(exc: BaseException, game: Any, turn: int) -> None:
    """Raise :class:`PluginFailed` if ``exc``, raised while the file was replayed at ``turn``,
    is ``game``'s plugin failing (:func:`p2pcards.plugins.plugin_failure`), as the live table
    stops on it; else return (the replay's own verdict on it stands)."""
    from ..plugins import plugin_failure

    why = plugin_failure(exc, game)
    if why is not None:
        raise PluginFailed(f"turn {turn}", why) from None

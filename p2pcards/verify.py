"""``p2pcards verify``: re-check a whole table from its transcript, on any machine, offline.

A transcript (protocol/transcript.md) holds every signed log entry of a table and, in its end
record, every seat's deck seed. With the seeds, each seat's side of the deck protocol is fully
determined, so the table can be played again here:

1. read the file (torn tail, checksums, schema) and rebuild the table log: every signature and
   every seat's hash chain (:meth:`~p2pcards.wire.transcript.Transcript.log`);
2. take the game, its rules version and options from the lobby header the log is bound to, and
   load the game from the installed plugins (:func:`~p2pcards.plugins.load_plugins`);
3. re-simulate the deck: one :class:`~p2pcards.deck.party.Party` per seat from its revealed seed
   and the lobby header, in the in-process :class:`~p2pcards.deck.backend.MentalPokerDeck`.
   Every message a re-simulated seat sends must be that seat's next signed ``deck`` entry: a
   public one byte for byte (canonical encoding), a private one addressed to the same seat (its
   sealed box opens only with the recipient's key, so its content is not checked here: the
   recipient checked it at the table, and the deck audit below re-derives what it carried);
4. replay the game with :func:`~p2pcards.engine.play`, the engine's step loop (the one
   :class:`~p2pcards.session.TableSession` runs asynchronously), each seat's moves taken from
   its signed ``action`` entries in order, each for the turn it names;
5. run the deck's end-of-game audit (every card decoded from the seeds) and the game's audit,
   and recompute the result; compare it with every seat's signed ``result`` entry and the end
   record.

If every public deck message is the one its seat's seed derives, the shuffles, re-locks,
openings and re-handlings in the file are exactly an honest run of the protocol from those seeds:
the full audit of protocol/deck.md section 7, done by recomputation. The first entry that differs
names its seat.

A game that did not finish (aborted, abandoned) is checked as far as its signed entries go
(:func:`_verify_unfinished`): provable blames; the seeds revealed in signed ``seed`` messages
(every honest seat reveals its seed when a game stops) or the end record, each against its
commitment; with every seed, the replay above until the entries end, judging signed
accusations (a private message is opened with the message key the accusation reveals) and
moves signed out of turn, then naming the seat the game waited for; without every seed, the
public checks of the shuffle passes and a replay of the moves with the public rules only.
The unsigned end record (status, note, absent seats) is reported, never trusted. Such a game
is never verified: exit 1, naming a seat only for what the signed entries prove.

The exit status is 0 (verified), 1 (verification failed: tampering or cheating
found, with the step and the seat to blame) or 2 (an unreadable, incomplete or unsupported file,
for example a game or rules version that is not installed).
"""

from __future__ import annotations

import random
import struct
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, TypeGuard

from .cards import Card, sort_cards
from .deck.audit import final_order, revealed_secrets
from .deck.backend import MentalPokerDeck
from .deck.derive import (
    card_table,
    coin_value,
    context_digest,
    game_id_of,
    nonce_commitment,
    seed_commitment,
)
from .deck.group import PARALLEL_WORKERS, batch_invert, is_valid_point, scalar_product
from .deck.local import DeckFault, SharedProducts, multiplier
from .deck.party import FIRST_REHANDLED, MESSAGE_TYPES, PUBLIC_STEPS, AuditOp, Output, Party, Send
from .deck.passes import PassError, check_pass, check_pass_shape, check_rehandle, pass_order
from .deck.public import NotOpened, PublicCards
from .engine import PlayerError, Replica, play
from .game import Action, Bot, Game, OptionError, Result, Round
from .plugins import load_plugins
from .table.absence import Absences, absent_body
from .table.header import TableHeader
from .table.protocol import plays_on
from .table.rounds import order_by_echoes
from .text import name_seats, printable
from .wire.errors import ProtocolError
from .wire.log import BAD_SIGNATURE, GAP, STALE_PREV, STRANGER, WRONG_TABLE, Blame, encode_header
from .wire.messages import Entry
from .wire.sealed import open_revealed, recipients
from .wire.transcript import TornTranscript, Transcript, TranscriptError, read_transcript

__all__ = ["EXIT_FAILED", "EXIT_UNREADABLE", "EXIT_VERIFIED", "Problem", "Report", "Watch", "verify_file"]

EXIT_VERIFIED, EXIT_FAILED, EXIT_UNREADABLE = 0, 1, 2
VERDICTS = {EXIT_VERIFIED: "verified", EXIT_FAILED: "failed", EXIT_UNREADABLE: "unreadable"}

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


class Watch(Protocol):
    """Follows the replay as it runs (``p2pcards replay``, :mod:`p2pcards.replay`): told of
    every event of the report's timeline (with handles, before :func:`_with_faces`), with the
    game's state just after it and the faces each seat knew then (``known[seat]``), and of the
    faces the end-of-game audit opened. ``state`` and ``known`` are live: copy what is kept."""

    def step(self, event: Mapping[str, Any], state: Any, known: Sequence[Mapping[int, Card]]) -> None: ...

    def opened(self, faces: Mapping[int, Card]) -> None: ...


class _Unreadable(Exception):
    """Exit 2: the file cannot be checked here."""


class _Failed(Exception):
    """Exit 1: the file shows tampering or cheating."""

    def __init__(self, step: str, reason: str, seat: int | None = None):
        super().__init__(reason)
        self.problem = Problem(step, reason, seat)


class _Stopped(Exception):
    """An unfinished game: the signed entries end here (``seat`` owed ``what``, at ``step``)."""

    def __init__(self, step: str, seat: int, what: str):
        super().__init__(what)
        self.step, self.seat, self.what = step, seat, what


def _public(entry: Entry, kind: str) -> bool:
    """A public deck entry carrying a message of type ``kind``."""
    msg = entry.body.get("msg") if isinstance(entry.body, dict) else None
    return isinstance(msg, dict) and msg.get("type") == kind


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
    end_status: str | None = None
    result: Result | None = None
    checked: dict[str, int] = field(default_factory=dict)
    violations: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    timeline: list[dict[str, Any]] = field(default_factory=list)
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
            "result": None if self.result is None else self.result.to_wire(),
            "winner_names": None if self.result is None else [self.name(seat) for seat in self.result.winners],
            "checked": self.checked,
            "violations": [{**v, "name": self.name(v.get("seat"))} for v in self.violations],
            "notes": self.notes,
            "seconds": round(self.seconds, 3),
            "bytes": self.size,
        }
        if show_hands:
            out["timeline"] = self.timeline
        return _plain(out)

    def to_text(self, *, show_hands: bool = False) -> str:
        lines = [f"transcript: {self.file}"]
        if self.status == EXIT_VERIFIED:
            lines.append("verdict: VERIFIED")
        elif self.status == EXIT_FAILED:
            lines.append(f"verdict: FAILED at {self.problem_line()}")
        else:
            lines.append(f"verdict: UNREADABLE: {self.problem_line()}")
        if self.game:
            lines.append(f"game: {self.game['name']} ({self.game['id']}, rules {self.game['rules']})")
        if self.options:
            lines.append("options: " + ", ".join(f"{k}={v}" for k, v in self.options.items()))
        if self.players:
            lines.append(f"table {self.table}, {len(self.players)} players:")
            for p in self.players:
                lines.append(f"  seat {p['seat']}  {p['name']:<20} key {p['fingerprint']}")
        if self.result is not None:
            lines.append(f"result: {self.named(self.result.summary)}")
        elif self.end_status:
            lines.append(f"end: {self.end_status} (no result)")
        for v in self.violations:
            lines.append(f"violation: turn {v['action_index']}, {self.name(v['seat'])}: {self.named(v['message'])}")
        if self.checked:
            before = "" if self.status == EXIT_VERIFIED else " (before it stopped)"
            lines.append(f"checked{before}: " + _describe_checks(self.checked))
        for note in self.notes:
            lines.append(f"note: {self.named(note)}")
        if show_hands and self.timeline:
            lines.append("what happened (every face, from the audit):")
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
    "public": "public deck messages recomputed byte for byte",
    "private": "private deck messages (recipient only; sealed boxes cannot be opened without the recipients' keys)",
    "operations": "deck operations",
    "moves": "moves replayed with the rules",
    "cards": "card handles decoded by the audit",
    "results": "signed results",
}


def _describe_checks(checked: Mapping[str, int]) -> str:
    """The checks that ran (a run that stopped early lists only those it reached)."""
    return "; ".join(f"{checked[key]} {what}" for key, what in _CHECKS.items() if key in checked)


def _seats(seats: set[int]) -> str:
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


def _same(a: Any, b: Any) -> bool:
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
        return all(_same(x, y) for x, y in zip(a, b))
    if kind is dict:
        return type(b) is dict and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if kind is float:
        return type(b) is float and struct.pack(">d", a) == struct.pack(">d", b)
    if kind in (bool, int, str, bytes, type(None)):
        return type(b) is kind and a == b
    return False


def _difference(got: Any, want: Any, path: str = "") -> str:
    """Where ``got`` first differs from ``want``, as a path like ``points[3]``."""
    if isinstance(got, dict) and isinstance(want, dict):
        for key in sorted(set(got) | set(want)):
            if key not in got or key not in want or not _same(got[key], want[key]):
                if key in got and key in want:
                    return _difference(got[key], want[key], f"{path}.{key}" if path else key)
                return f"{path}.{key}" if path else str(key)
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        for i, (a, b) in enumerate(zip(got, want)):
            if not _same(a, b):
                return _difference(a, b, f"{path}[{i}]")
    return path or "the message"


# ------------------------------------------------------------------------------------------
# The replay.


class _SeatEntries:
    """One seat's signed entries, by kind, consumed in order as the replay needs them.
    ``delivered``: how many of them a seat could act on (_delivered); the replay reads no
    further, and ``held`` is the first it could not."""

    def __init__(self, seat: int, entries: Sequence[Entry], delivered: int | None = None):
        self.seat = seat
        self.entries = list(entries)
        usable = self.entries[:delivered]
        self.held = self.entries[len(usable)] if len(usable) < len(self.entries) else None
        self.deck = [e for e in usable if e.kind == "deck"]
        self.actions = [e for e in usable if e.kind == "action"]
        self.results = [e for e in usable if e.kind == "result"]
        self.chats = sum(e.kind == "chat" for e in entries)
        self.next_deck = 0
        self.boxes_left: set[int] = set()  # in a private entry to several seats: seats not yet met
        self.next_action = 0
        self.passed: set[int] = set()  # turns the table passed for it (absent): its moves for them are void

    def skip_void(self) -> None:
        """Past its moves signed for a turn the table passed for it (absence.py)."""
        while self.next_action < len(self.actions) and self.actions[self.next_action].body.get("turn") in self.passed:
            self.next_action += 1


class _Replay:
    """Drives the re-simulated deck and the game from one transcript, checking as it goes."""

    def __init__(
        self,
        game: Game,
        options: Mapping[str, Any],
        names: Sequence[str],
        seats: Sequence[_SeatEntries],
        seeds: Sequence[bytes],
        header: bytes,
        *,
        log: Any = None,
        unfinished: bool = False,
        watch: Watch | None = None,
    ):
        self.game = game
        self.watch = watch
        self.watched = 0  # timeline events the watch was told of
        self.replica: Replica | None = None  # the game's state, once the replay runs
        self.known_of: Callable[[int], Mapping[int, Card]] = lambda seat: {}
        self.log = log
        # An aborted or abandoned game: where the signed entries end, the replay stops
        # (_Stopped) instead of failing; what comes after is judged by _verify_unfinished.
        self.unfinished = unfinished
        # (seat, seq, recipient) -> private payload
        self.derived: dict[tuple[int, int, int], dict[str, Any]] = {}
        self.options = options
        self.names = names
        self.seats = seats
        self.seeds = seeds
        self.header = header
        self.public = self.private = 0
        self.timeline: list[dict[str, Any]] = []
        self.reached = 0  # deck operations completed at every seat
        self.turn = 0  # moves applied so far
        self.pending: tuple[int, int] | None = None  # (turn, seat) of a move being applied
        self.last_entry: dict[int, Entry | None] = {}  # seat -> the entry of its last move read
        # Signed accusations about an operation their seat had not begun: kept aside, as every
        # seat's party keeps them (protocol/deck.md section 6), while the replay goes on.
        self.kept_aside: list[tuple[int, Entry]] = []
        self.deck: MentalPokerDeck | None = None
        self.absences = Absences(len(seats))
        self.statements_used: list[Entry] = []  # the absent statements that passed for a seat
        # (turn, seat): a follower's move read while seats had stated it absent (and may wait)
        self.read_while_stated: set[tuple[int, int]] = set()
        self.pending_round: set[int] = set()  # the seats of the round being read, if one is
        # Only statements a seat could act on (Log.closed): a held one passes for nobody.
        for entry in log.closed() if log is not None else ():
            if entry.kind == "absent":
                self.absences.add(entry)

    def show(self, step: Any = None) -> None:
        """Tell the watch of the timeline's new events, with the state after them (called
        before each step of the engine, after each move, and at the end)."""
        if self.watch is None or self.replica is None:
            return
        while self.watched < len(self.timeline):
            known = [self.known_of(seat) for seat in range(len(self.seats))]
            self.watch.step(self.timeline[self.watched], self.replica.state, known)
            self.watched += 1

    def round_order(self, step: Round, responses: dict[int, Action]) -> list[tuple[int, Action]]:
        """A free-order round's responses in the order their signed head echoes give, as at
        the table (protocol/table.md section 9)."""
        return order_by_echoes(step, responses, {s: self.last_entry[s] for s in responses}, len(self.seats))

    # -- deck -----------------------------------------------------------------------------

    def party(self, seat: int, *args: Any, **kwargs: Any) -> Party:
        return _CheckedParty(seat, *args, replay=self, **kwargs)

    def sent(self, party: Party, send: Send) -> None:
        """``party`` (re-simulated from its seed) sends ``send``: it must be its seat's next
        signed deck entry."""
        seat, message = party.seat, send.message
        mine = self.seats[seat]
        what = self._what(party, message)
        if mine.next_deck >= len(mine.deck):
            _held_back(mine, self.names, f"deck, {what}")
            _not_in_file(self.log, seat, f"deck, {what}")
            if self.unfinished:
                raise _Stopped(f"deck, {what}", seat, what)
            raise _Failed(
                f"deck, {what}",
                f"{self.names[seat]} signed no deck entry where the protocol requires this message",
                seat,
            )
        entry = mine.deck[mine.next_deck]
        kind = message.get("type")
        if _public(entry, "accuse") and kind != "accuse":
            # It accused someone where its seed derives another message: judge the accusation.
            self.judge(seat, entry)
            accused_op = entry.body["msg"].get("op")
            if not (isinstance(accused_op, int) and accused_op >= len(party.ops)):
                raise _Stopped(
                    f"deck, {what}",
                    seat,
                    f"{what} (it accused a seat instead, and the accusation cannot be judged here)",
                )
            # About an operation it had not begun: kept aside, and its next entry is this message.
            self.kept_aside.append((seat, entry))
            mine.next_deck += 1
            self.sent(party, send)
            return
        step = f"deck entry #{mine.next_deck} of seat {seat} (log #{entry.seq}), {what}"
        if self.unfinished and _public(entry, "seed") and kind != "seed":
            # It revealed its seed as the game stopped, instead of going on.
            raise _Stopped(f"deck, {what}", seat, what)
        body = entry.body
        boxes = recipients(body)  # seat -> box, if it is a private entry
        if send.to is None:
            if mine.boxes_left:
                raise _Failed(
                    step,
                    f"the rest of a private entry to several seats (boxes to "
                    f"{_seats(mine.boxes_left)}) where the protocol sends a public "
                    f"message",
                    seat,
                )
            mine.next_deck += 1
            if set(body) != {"msg", "seen"}:
                raise _Failed(
                    step,
                    "expected a public deck message, found " + ("a private one" if boxes else "a malformed entry"),
                    seat,
                )
            if not _same(body["msg"], message):
                raise _Failed(step, self._deviation(message, body["msg"]), seat)
            self.public += 1
        else:
            # One entry may carry the private messages the protocol sends together, one box
            # to each seat: they are matched to its boxes by seat, in any order.
            if not boxes:  # recipients() accepts a well-formed private body only
                mine.next_deck += 1
                raise _Failed(
                    step,
                    f"expected a private deck message to seat {send.to}, found "
                    + ("a public one" if "msg" in body else "a malformed entry"),
                    seat,
                )
            if not mine.boxes_left:
                mine.boxes_left = set(boxes)
            if send.to not in mine.boxes_left:
                raise _Failed(
                    step,
                    f"the private messages go to {_seats(mine.boxes_left)}, the protocol sends one to seat {send.to}",
                    seat,
                )
            mine.boxes_left.discard(send.to)
            if not mine.boxes_left:
                mine.next_deck += 1
            self.derived[(seat, entry.seq, send.to)] = message
            self.private += 1

    def _what(self, party: Party, message: Mapping[str, Any]) -> str:
        kind = message.get("type")
        op = message.get("op")
        if isinstance(op, int) and 0 <= op < len(party.ops):
            name = type(party.ops[op]).__name__.removesuffix("Op").lower()
            return f"{kind} message of deck operation {op} ({name}, before turn {self.turn})"
        return f"{kind} message"

    def judge(self, accuser: int, entry: Entry) -> None:
        """A signed deck accusation (protocol/deck.md section 6): raise _Failed naming the
        accused if the transcript proves it, the accuser if it proves the accusation false;
        return when it cannot tell (what is accused was not replayed)."""
        message = entry.body["msg"]
        accused, evidence = message.get("seat"), message.get("evidence")
        step = f"accusation by seat {accuser} (log #{entry.seq})"
        if message.get("step") == "open" and isinstance(evidence, dict) and "scalar" not in evidence:
            if "message" in evidence or not {"sender", "entry", "key"} <= set(evidence):
                raise _Failed(
                    step,
                    "its evidence about a private message is not the signed "
                    "entry that carried it and its message key (wire.md section 8): "
                    "a plaintext copy anyone could make up",
                    accuser,
                )
            sender, seq = evidence["sender"], evidence["entry"]
            target = None
            if isinstance(sender, int) and isinstance(seq, int) and seq >= 0 and self.log:
                found = self.log.entries(sender, seq)[:1]
                target = found[0] if found else None
            if target is None or target.kind != "deck" or accuser not in recipients(target.body):
                raise _Failed(step, "its evidence names no private deck message to the accuser", accuser)
            try:
                payload = open_revealed(target, evidence["key"], accuser)
            except (ProtocolError, TypeError):
                raise _Failed(
                    step, f"the message key it reveals does not open seat {sender}'s entry #{seq}", accuser
                ) from None
            if not isinstance(payload, dict) or payload.get("op") != message.get("op"):
                raise _Failed(
                    step,
                    f"seat {sender}'s entry #{seq} is not its private message of operation {message.get('op')}",
                    accuser,
                )
            want = self.derived.get((sender, seq, accuser))
            if want is None:
                return
            if _same(payload, want):
                raise _Failed(
                    step,
                    f"false accusation: seat {sender}'s private message (log "
                    f"#{seq}, opened with the revealed key) is the one its seed "
                    f"derives",
                    accuser,
                )
            raise _Failed(
                f"deck entry of seat {sender} (log #{seq}), opened with the key seat {accuser} revealed",
                "its private message differs from the one its "
                f"revealed seed derives (first difference: "
                f"{_difference(payload, want)}): a deviation from the deck protocol",
                sender,
            )
        op = message.get("op")
        if message.get("step") in PUBLIC_STEPS and evidence is None and isinstance(accused, int):
            # Every seat judges it on its own copy as it arrives (protocol/deck.md section 6): a
            # message the accuser had not received when it signed cannot be what it accuses.
            seen = entry.body["seen"][accused][0] if 0 <= accused < len(self.seats) else 0
            if not any(
                _public(e, message.get("step")) and e.body["msg"].get("op") == op
                for e in self.seats[accused].deck
                if e.seq < seen
            ):
                raise _Failed(
                    step,
                    f"it accuses a {message.get('step')} message of seat "
                    f"{accused} in operation {op} that it had not received (its head "
                    f"echo)",
                    accuser,
                )
        elif message.get("step") == "open" and not isinstance(evidence, dict):
            raise _Failed(step, "an accusation about a private message without evidence", accuser)
        checked = isinstance(op, int) and 0 <= op < self.ops_reached()
        if checked and isinstance(accused, int):
            # Every public deck message up to here is the one its seat's seed derives.
            raise _Failed(
                step,
                f"false accusation against seat {accused} "
                f"({message.get('step')}): every deck message of that operation is "
                f"the one its seed derives",
                accuser,
            )

    def ops_reached(self) -> int:
        return self.reached

    @staticmethod
    def _deviation(want: Mapping[str, Any], got: Any) -> str:
        kind = want.get("type")
        if kind == "commit":
            return (
                "its signed seed commitment does not open with the seed the end record "
                "reveals for it (the end record was altered, or the seat revealed another "
                "seed than it committed to)"
            )
        if kind == "seed":
            return "the seed it revealed at the table differs from the end record's"
        return (
            f"its signed {kind} message differs from the one its revealed seed derives "
            f"(first difference: {_difference(got, want)}): a deviation from the deck "
            f"protocol"
        )

    # -- moves ----------------------------------------------------------------------------

    def next_action(self, seat: int, state: Any) -> Action:
        mine = self.seats[seat]
        turn = self.turn
        self.pending = (turn, seat)
        next_step = self.game.next_step(state)
        self.pending_round = set(next_step.seats) if isinstance(next_step, Round) else set()
        absent = self.game.absent_action(state, seat)
        if (
            absent is not None
            and self.log is not None
            and len(self.log.entries(seat)) < self.absences.counted(turn, seat)
        ):
            _not_in_file(self.log, seat, f"turn {turn}")  # the statements saw entries not here
        if absent is not None and self.log is not None and self.absences.passed(turn, seat, self.log.entries(seat)):
            mine.passed.add(turn)  # every other seat stated it absent, none holding its move
            self.last_entry[seat] = None
            self.statements_used += self.absences.statements(turn, seat)
            return absent
        mine.skip_void()
        if mine.next_action >= len(mine.actions):
            _held_back(mine, self.names, f"turn {turn}")
            _not_in_file(self.log, seat, f"turn {turn}")
            if self.unfinished:
                raise _Stopped(f"turn {turn}", seat, f"move for turn {turn}")
            raise _Failed(f"turn {turn}", f"{self.names[seat]} is to move and signed no move for turn {turn}", seat)
        entry = mine.actions[mine.next_action]
        mine.next_action += 1
        self.last_entry[seat] = entry
        if absent is not None and self.absences.stated(turn, seat):
            self.read_while_stated.add((turn, seat))  # seats that stated may wait on the others
        body = entry.body
        step = f"turn {turn} (log #{entry.seq} of seat {seat})"
        if (
            set(body) != {"turn", "action", "seen"}
            or not isinstance(body["action"], dict)
            or not isinstance(body["turn"], int)
            or isinstance(body["turn"], bool)
        ):
            raise _Failed(step, "malformed action entry", seat)
        if body["turn"] != turn:
            raise _Failed(step, f"its next signed move is for turn {body['turn']}", seat)
        return body["action"]

    def moved(self, state: Any, seat: int, action: Action, known: Mapping[int, Card]) -> None:
        try:
            text = self.game.format_action(state, seat, action, known)
        except Exception:  # without the faces (an unfinished game without every seed)
            text = repr(action)
        cards = [known[h] for h in _handles(action) if h in known]
        unseen = [c for c in cards if str(c) not in text and c.unicode() not in text]
        if unseen:
            text += f"  [cards: {' '.join(c.unicode() for c in cards)}]"
        self.timeline.append(
            {
                "kind": "move",
                "turn": self.turn,
                "seat": seat,
                "text": text,
                "action": action,
                "cards": [c.unicode() for c in cards],
            }
        )
        self.turn += 1
        self.pending = None
        self.pending_round = set()
        self.show()

    # -- running --------------------------------------------------------------------------

    def run(self) -> tuple[Any, MentalPokerDeck]:
        cards = self.game.deck(self.options, len(self.seats))
        # Every pass is recomputed: spread the multiplications over the cores (libsodium
        # releases the GIL). A card revealed to all is decoded by every re-simulated seat:
        # the parties share their products, so it is multiplied once.
        self.products = SharedProducts(multiplier(PARALLEL_WORKERS))
        deck = MentalPokerDeck(
            cards,
            len(self.seats),
            self.seeds,
            header=self.header,
            full_audit="none",
            party_factory=self.party,
            multiply_many=self.products,
        )
        self.deck = deck
        bots = [_SignedMoves(self.game, s, self.options, self) for s in range(len(self.seats))]
        noting = _NotingDeck(deck, self)
        self.replica = Replica(self.game, self.options, len(self.seats))
        self.known_of = noting.known
        record = play(
            self.game,
            self.options,
            len(self.seats),
            noting,
            bots,
            check_own=False,
            round_order=self.round_order,
            replica=self.replica,
            on_step=self.show,
        )
        return record, deck


class _CheckedParty(Party):
    """A seat's deck party re-simulated from its seed; every message it sends is checked
    against the next deck entry its seat signed."""

    def __init__(self, *args: Any, replay: _Replay, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._replay = replay

    def _checked(self, out: Output) -> Output:
        for send in out.sends:
            self._replay.sent(self, send)
        return out

    def start(self) -> Output:
        return self._checked(super().start())

    def begin(self, op: Any) -> Output:
        return self._checked(super().begin(op))

    def receive(self, sender: int, message: Any) -> Output:
        return self._checked(super().receive(sender, message))


class _SignedMoves(Bot):
    """A seat whose moves are the ones it signed, in order."""

    name = "transcript"

    def __init__(self, game: Game, seat: int, options: Mapping[str, Any], replay: _Replay):
        super().__init__(game, seat, options, random.Random(0))
        self.replay = replay

    def choose(self, state: Any, known: Mapping[int, Card]) -> Action:
        return self.replay.next_action(self.seat, state)

    def observe(self, state: Any, event: Mapping[str, Any], known: Mapping[int, Card]) -> None:
        if event["kind"] == "action" and event["seat"] == self.seat:
            self.replay.moved(state, self.seat, event["action"], known)


class _NotingDeck:
    """The engine's deck: the re-simulated parties, noting what happens for the report."""

    def __init__(self, deck: MentalPokerDeck, replay: _Replay):
        self.deck = deck
        self.replay = replay
        self.timeline = replay.timeline

    def _done(self, value: Any) -> Any:
        self.replay.reached += 1
        return value

    def shuffle(self) -> list[int]:
        handles = self._done(self.deck.shuffle())
        self.timeline.append({"kind": "shuffle", "cards": len(handles)})
        self._known_decodings(handles)
        return handles

    def _known_decodings(self, handles: Sequence[int]) -> None:
        """Tell the replayed seats' shared multiplier what decoding each card of this shuffle
        gives, so no seat multiplies to decode. Sound because every pass of the shuffle was
        just recomputed from the seeds and matched byte for byte: each final point is the
        product of every seat's key for its handle and its card's point, and the seeds'
        permutations say which card that is."""
        party = self.deck.parties[0]
        secrets = [revealed_secrets(seed, party.game_id) for seed in self.replay.seeds]
        epoch, n = handles[0] // party.n, party.n
        order = final_order(secrets, epoch, n)
        products = [scalar_product(sec.card_key(h) for sec in secrets) for h in handles]
        for handle, inverse, card in zip(handles, batch_invert(products), order):
            self.replay.products.remember(inverse, party.cards_by_handle[handle].point, party.table[card])

    def coin(self, label: str, bound: int) -> int:
        value = self._done(self.deck.coin(label, bound))
        self.timeline.append({"kind": "coin", "label": label, "value": value})
        return value

    def deal(self, to: Mapping[int, int]) -> None:
        self.deck.deal(to)
        self._done(None)
        self.timeline.append({"kind": "deal", "to": dict(to)})

    def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]:
        faces = self._done(self.deck.reveal(handles, owner))
        self.timeline.append({"kind": "reveal", "handles": list(handles)})
        return faces

    def transfer(self, handles: Sequence[int], to: int) -> list[int]:
        new = self._done(self.deck.transfer(handles, to))
        self.timeline.append({"kind": "transfer", "to": to, "handles": list(new)})
        return new

    def known(self, seat: int) -> Mapping[int, Card]:
        return self.deck.known(seat)

    def open_all(self) -> dict[int, Card]:
        faces = self._done(self.deck.open_all())
        if self.replay.watch is not None:
            self.replay.watch.opened(faces)
        return faces


def _handles(action: Action) -> list[int]:
    found: list[int] = []
    for key in HANDLE_KEYS:
        value = action.get(key)
        items = value if isinstance(value, list) else [value]
        found += [h for h in items if isinstance(h, int) and not isinstance(h, bool)]
    return found


def _with_faces(timeline: list[dict[str, Any]], faces: Mapping[int, Card]) -> list[dict[str, Any]]:
    """The report's timeline: handles replaced by the faces the audit derived."""

    def show(handles: Sequence[int]) -> list[str]:
        return [faces[h].unicode() if h in faces else f"#{h}" for h in handles]

    out = []
    for event in timeline:
        kind = event["kind"]
        if kind == "deal":
            hands: dict[int, list[int]] = {}
            for handle, seat in event["to"].items():
                hands.setdefault(seat, []).append(handle)
            shown = {
                seat: [c.unicode() for c in sort_cards(faces[h] for h in hs if h in faces)]
                for seat, hs in sorted(hands.items())
            }
            out.append({"kind": "deal", "hands": shown})
        elif kind in ("reveal", "transfer"):
            rest = {k: v for k, v in event.items() if k != "handles"}
            out.append({**rest, "cards": show(event["handles"])})
        else:
            out.append(event)
    return out


# ------------------------------------------------------------------------------------------
# Verification.


def verify_file(path: str | Path, *, watch: Watch | None = None) -> Report:
    """Verify the transcript at ``path``; never raises for anything in the file. ``watch``
    follows the replay (see :class:`Watch`)."""
    report = Report(str(path))
    began = time.perf_counter()
    try:
        report.size = Path(path).stat().st_size
    except OSError:
        pass
    try:
        _verify(path, report, watch)
    except _Unreadable as exc:
        report.status, report.problem = EXIT_UNREADABLE, Problem("reading", str(exc))
    except _Failed as exc:
        report.status, report.problem = EXIT_FAILED, exc.problem
    else:
        report.status = EXIT_VERIFIED
    report.seconds = time.perf_counter() - began
    return report


def _read(path: str | Path) -> tuple[Transcript, Any]:
    try:
        transcript = read_transcript(path, verify=False)
    except TornTranscript as exc:
        raise _Unreadable(f"incomplete: {exc}") from None
    except TranscriptError as exc:
        raise _Unreadable(str(exc)) from None
    if transcript.end is None:
        raise _Unreadable(
            "incomplete: no end record (the game did not finish, or the file was cut after a whole record)"
        )
    _table_header(transcript)  # the roster the log is checked with must be the lobby's
    try:
        log = transcript.log()
    except TranscriptError as exc:
        blame = exc.blame
        # A bad signature, a stranger, a gap: the bytes are not what the seat signed, so the
        # file was altered; the other refusals concern what the seat itself signed. An entry
        # #0 that does not start from the seat genesis proves nothing against its seat: the
        # genesis comes from the file's lobby header, which is not signed.
        if blame is not None and blame.code == STALE_PREV and not blame.provable:
            raise _Failed(
                "log", f"{exc.reason} (the file's lobby header is not the one the seats signed for: it was altered)"
            ) from None
        if blame is not None and blame.code not in UNSIGNED_FAULTS:
            raise _Failed("log", exc.reason, blame.seat) from None
        raise _Failed("log", f"{exc.reason} (the file was altered after signing)") from None
    return transcript, log


def _check_echoes(log: Any) -> None:
    for entry in log.canonical():
        for mismatch in log.check_seen(entry):
            raise _Failed(
                f"head echo of seat {entry.sender}'s entry #{entry.seq}",
                f"it saw seat {mismatch.seat}'s entry #{mismatch.seq} with another hash than "
                f"the file's: seat {mismatch.seat} told peers different things, or seat "
                f"{entry.sender}'s echo is false",
            )


def _check_complete(log: Any) -> None:
    """A finished game's file holds every entry its head echoes count (protocol/transcript.md
    section 5): one that counts more of a seat's entries than the file holds shows signed
    entries cut from the file (a seat's last result, say), or an echo of entries never signed;
    the file cannot tell which, so it names nobody."""
    for entry in log.canonical():
        for seat, (count, _) in enumerate(entry.body["seen"]):
            have = len(log.entries(seat))
            if count > have:
                raise _Failed(
                    f"head echo of seat {entry.sender}'s entry #{entry.seq}",
                    f"it counts {count} entries of seat {seat}, the file holds {have}: "
                    f"signed entries were removed from the file (the file was "
                    f"altered), or the echo counts entries that were never signed",
                )


def _table_header(transcript: Transcript) -> TableHeader:
    """The lobby header (bound to every entry through the genesis hash), checked against the
    transcript header's unsigned copies of its fields."""
    h = transcript.header
    try:
        lobby = TableHeader.from_wire(h.lobby)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise _Unreadable("the lobby header is not a p2pcards table header") from None
    mismatches = [
        name
        for name, ours, theirs in (
            ("table id", h.table, lobby.table),
            ("game", h.game, lobby.game),
            ("rules version", h.rules, lobby.rules_version),
            ("options", h.options, dict(lobby.options)),
            ("roster keys", list(h.roster), [s.keys for s in lobby.seats]),
            ("player names", list(h.names), [s.name for s in lobby.seats]),
        )
        if not (ours == theirs if name == "roster keys" else _same(ours, theirs))
    ]
    if mismatches:
        raise _Failed(
            "header",
            f"the transcript header's {', '.join(mismatches)} differ from "
            f"the signed lobby header (the file was altered)",
        )
    return lobby


def _load_game(lobby: TableHeader) -> Game:
    host = load_plugins()
    game = host.games.get(lobby.game)
    if game is None:
        have = ", ".join(f"{g} (rules {v})" for g, v in host.rules_versions().items()) or "none"
        raise _Unreadable(
            f"the game {lobby.game!r} (rules {lobby.rules_version}) is not installed here (installed: {have})"
        )
    if game.rules_version != lobby.rules_version:
        raise _Unreadable(
            f"game {lobby.game}: the transcript needs rules "
            f"{lobby.rules_version}, this machine has rules {game.rules_version}"
        )
    try:
        game.check_table_options(lobby.options, lobby.players)
    except OptionError as exc:
        raise _Unreadable(f"game {lobby.game}: the table's options do not fit the installed game: {exc}") from None
    return game


def _verify(path: str | Path, report: Report, watch: Watch | None = None) -> None:
    transcript, log = _read(path)
    end = transcript.end
    assert end is not None, "_read refuses a transcript without its end record"
    report.end_status = end.status
    report.checked["entries"] = len(transcript.entries)
    lobby = _table_header(transcript)
    report.table = lobby.table.hex()[:12]
    report.players = [{"seat": i, "name": s.name, "fingerprint": s.keys.fingerprint} for i, s in enumerate(lobby.seats)]
    report.options = dict(lobby.options)
    report.game = {"id": lobby.game, "name": lobby.game, "rules": lobby.rules_version}
    game = _load_game(lobby)
    report.game["name"] = game.name
    names = [s.name for s in lobby.seats]

    _check_blames(transcript, log, lobby)
    _check_echoes(log)
    _check_after_stops(log, names)
    _check_absent_entries(log, names)
    if end.status != "finished":
        _verify_unfinished(transcript, log, lobby, game, names, report, watch)
        return

    _check_complete(log)
    # A seed revealed in a signed seed message (checked against its commitment) is the seat's;
    # the end record is not signed: where it says otherwise, the file was altered, and a seed
    # of it that does not open its seat's signed commitment is not used (transcript.md
    # section 5). Its status is not signed either: a file lacking a seat's seed is checked as a
    # game that did not finish, so that the status never decides whom the file names.
    signed = _revealed_seeds(log, lobby, game, replace(end, seeds={}), Report(report.file))
    revealed = _revealed_seeds(log, lobby, game, end, Report(report.file))
    for seat in range(lobby.players):
        seed = end.seeds.get(seat)
        if seat in signed and seed != signed[seat]:
            raise _Failed(
                "end record",
                f"the deck seed of {names[seat]} is not the one it "
                f"revealed in its signed seed message (the end record is not signed: "
                f"it was altered)",
            )
        if seed is not None and seat not in revealed and _commitment(log, seat) is not None:
            raise _Failed(
                "end record",
                f"the deck seed of {names[seat]} does not open the seed "
                f"commitment it signed (the end record is not signed: it was altered)",
            )
    missing = [s for s in range(lobby.players) if s not in revealed]
    if missing:
        report.notes.append(
            f"the end record says the game finished, but no seed of "
            f"{', '.join(names[s] for s in missing)} is revealed: checked as a "
            f"game that did not finish (the end record is not signed)"
        )
        _verify_unfinished(transcript, log, lobby, game, names, report, watch)
        return
    seeds = [revealed[seat] for seat in range(lobby.players)]

    seats = [_SeatEntries(s, log.entries(s)) for s in range(lobby.players)]
    replay = _Replay(
        game, lobby.options, names, seats, seeds, encode_header(transcript.header.lobby), log=log, watch=watch
    )
    try:
        record, deck = replay.run()
    except _Failed:
        raise
    except PlayerError as exc:
        raise _Failed(f"turn {replay.turn}", f"illegal move {exc.action!r}: {exc.reason}", exc.seat) from None
    except DeckFault as exc:  # the re-simulation disagrees with itself: not expected
        raise _Failed("deck", str(exc), exc.blame.seat) from None
    except Exception as exc:  # the rules or the deck refused what the signed entries ask
        turn, stopped_seat = replay.pending if replay.pending is not None else (replay.turn, None)
        raise _Failed(f"turn {turn}", f"the replay stopped: {type(exc).__name__}: {exc}", stopped_seat) from None
    report.checked.update(
        seeds=len(seeds),
        public=replay.public,
        private=replay.private,
        operations=len(deck.parties[0].ops),
        moves=replay.turn,
        cards=len(record.faces),
    )
    report.timeline = _with_faces(replay.timeline, record.faces)

    for accuser, entry in replay.kept_aside:  # never reached: the game is over
        raise _Failed(
            f"accusation by seat {accuser} (log #{entry.seq})",
            f"it accuses about deck operation {entry.body['msg'].get('op')}, which the game never reached",
            accuser,
        )
    for mine in seats:
        if mine.boxes_left:
            entry = mine.deck[mine.next_deck]
            raise _Failed(
                f"deck entry #{mine.next_deck} of seat {mine.seat} (log #{entry.seq})",
                f"private messages to {_seats(mine.boxes_left)} the protocol never called for",
                mine.seat,
            )
        if mine.next_deck < len(mine.deck):
            entry = mine.deck[mine.next_deck]
            raise _Failed(
                f"deck entry #{mine.next_deck} of seat {mine.seat} (log #{entry.seq})",
                "a deck message the protocol never called for",
                mine.seat,
            )
        mine.skip_void()
        if mine.next_action < len(mine.actions):
            entry = mine.actions[mine.next_action]
            raise _Failed(f"log #{entry.seq} of seat {mine.seat}", "a move signed after the game was over", mine.seat)

    report.violations = [v.to_wire() for v in record.violations]
    if record.violations:
        v = record.violations[0]
        raise _Failed(f"turn {v.action_index} (game audit)", v.message, v.seat)

    result = record.result
    report.result = result
    violations: list[Any] = []
    results_signed = 0
    for mine in seats:
        if not mine.results:
            report.notes.append(f"{names[mine.seat]} signed no result")
        for entry in mine.results:
            body = entry.body
            got = body.get("result") if isinstance(body, dict) else None
            step = f"result (log #{entry.seq} of seat {mine.seat})"
            if not _same(got, result.to_wire()):
                raise _Failed(
                    step,
                    f"its signed result differs from the recomputed one (first "
                    f"difference: {_difference(got, result.to_wire())})",
                    mine.seat,
                )
            if not _same(body.get("violations"), violations):
                raise _Failed(step, "its signed result lists rule violations the audit does not find", mine.seat)
            results_signed += 1
    report.checked["results"] = results_signed
    if end.status != "finished":
        report.notes.append(
            f"the end record says {end.status!r} ({end.note}), yet the signed entries hold a whole game"
        )
    elif not _same(end.result, result.to_wire()):
        raise _Failed(
            "end record", "its result differs from the recomputed one (the end record is not signed: it was altered)"
        )
    report.notes.append(
        "private deck messages are checked by recipient only: a sealed box "
        "opens only with its recipient's key; the deck audit re-derives what "
        "each carried from the seeds"
    )


# ------------------------------------------------------------------------------------------
# Blames, and games that did not finish.


def _check_blames(transcript: Transcript, log: Any, lobby: TableHeader) -> None:
    """The provable blames: the file's blame records and every seat's signed ``blame``
    entries (wire.md section 7). A proven one names its seat; a signed one that proves nothing
    names its signer."""
    for blame in transcript.blames:
        # The blame record is not signed: only its evidence can name a seat.
        proven = blame.provable and blame.verify(lobby.table, log.roster, log)
        raise _Failed(
            f"blame record ({blame.code})",
            f"{blame.reason} ("
            + (
                "proven by signed evidence"
                if proven
                else "its evidence does not prove it: the record is not signed, so it names nobody"
            )
            + ")",
            blame.seat if proven else None,
        )
    for entry in log.canonical():
        if entry.kind != "blame":
            continue
        step = f"blame entry of seat {entry.sender} (log #{entry.seq})"
        try:
            blame = Blame.from_wire(entry.body.get("blame"))
            proven = blame.provable and blame.verify(lobby.table, log.roster, log)
        except (ProtocolError, AttributeError, TypeError, ValueError, KeyError):
            proven = False
        if proven:
            raise _Failed(
                f"{step} ({blame.code})", f"{blame.reason} (proven by the signed evidence it publishes)", blame.seat
            )
        raise _Failed(step, "it publishes evidence that proves nothing", entry.sender)


def _revealed_seeds(log: Any, lobby: TableHeader, game: Game, end: Any, report: Report) -> dict[int, bytes]:
    """Every seed that opens its seat's signed commitment: revealed in a signed ``seed`` deck
    message (at the audit, or as the game stopped) or found in the end record (unsigned, but a
    seed that opens its commitment is the seat's, wherever it comes from)."""
    context = _deck_context(lobby, game)
    seeds: dict[int, bytes] = {}
    for seat in range(lobby.players):
        deck = [e for e in log.entries(seat) if e.kind == "deck"]
        commit = _commitment(log, seat)
        if commit is None:
            continue
        for entry in deck:
            if _public(entry, "seed"):
                seed = entry.body["msg"].get("seed")
                if seed_commitment(context, seat, seed) != commit.get("seed") if isinstance(seed, bytes) else True:
                    raise _Failed(
                        f"seed of seat {seat} (log #{entry.seq})",
                        "the seed it revealed does not open its signed commitment",
                        seat,
                    )
                seeds[seat] = seed
        seed = end.seeds.get(seat)
        if seat not in seeds and isinstance(seed, bytes):
            if seed_commitment(context, seat, seed) == commit.get("seed"):
                seeds[seat] = seed
            else:
                report.notes.append(
                    f"the end record's seed of seat {seat} does not open its "
                    f"commitment (the end record is not signed); not used"
                )
    return seeds


def _commitment(log: Any, seat: int) -> dict[str, Any] | None:
    """The seed and nonce commitment ``seat`` signed: its first deck message."""
    first = next((e for e in log.entries(seat) if e.kind == "deck"), None)
    return first.body["msg"] if first is not None and _public(first, "commit") else None


def _check_after_stops(log: Any, names: Sequence[str]) -> None:
    """From its ``stop`` entry on, a seat signs no move, result or deck step but its seed reveal
    (protocol/table.md section 5): one it did sign is its fault, proven by its own chain, and
    it may have made another seat's wait look like a stall (the seats that stopped for it had
    stopped acting)."""
    for seat in range(len(names)):
        stopped = None
        for entry in log.entries(seat):
            if entry.kind == "stop" and stopped is None:
                stopped = entry
            elif stopped is not None and plays_on(entry.kind, entry.body):
                raise _Failed(
                    f"log #{entry.seq} of seat {seat}",
                    f"{names[seat]} signed a "
                    f"{entry.kind} entry after its own stop entry (log #{stopped.seq}): a "
                    f"seat that stops signs nothing for the game but its evidence and "
                    f"its seed",
                    seat,
                )


def _check_absent_entries(log: Any, names: Sequence[str]) -> None:
    """An ``absent`` statement (protocol/table.md section 9) names a turn and another seat."""
    for entry in log.canonical():
        if entry.kind == "absent" and absent_body(entry.body, len(names), entry.sender) is None:
            raise _Failed(f"log #{entry.seq} of seat {entry.sender}", "malformed absent entry", entry.sender)


def _verify_unfinished(
    transcript: Transcript,
    log: Any,
    lobby: TableHeader,
    game: Game,
    names: Sequence[str],
    report: Report,
    watch: Watch | None = None,
) -> None:
    """An aborted or abandoned game: check what the signed entries prove, in order, and name a
    seat only for what they prove. The end record is not signed: its note and absent list are
    reported as what the table recorded, never taken as proof."""
    end = transcript.end
    assert end is not None, "_read refuses a transcript without its end record"
    recorded = f"the table recorded: {end.status}"
    if end.absent:
        recorded += f", absent: {', '.join(report.name(s) for s in end.absent)}"
    if end.note:
        recorded += f" ({end.note})"
    report.notes.append(recorded + " (the end record is not signed: information only)")
    seeds = _revealed_seeds(log, lobby, game, end, report)
    report.checked["seeds"] = len(seeds)
    delivered = _delivered(log, lobby.players)
    seats = [_SeatEntries(s, log.entries(s), delivered[s]) for s in range(lobby.players)]
    missing = [s for s in range(lobby.players) if s not in seeds]
    _invalid_public_points(seats)
    if missing:
        report.notes.append(
            "no revealed seed for "
            + ", ".join(names[s] for s in missing)
            + ": the deck cannot be re-derived, and the moves are checked with "
            "the public rules only"
        )
        _withheld_after_accusation(seats, missing)
        _public_setup(log, lobby, game)
        replay = _Replay(game, lobby.options, names, seats, [], b"", log=log, unfinished=True, watch=watch)
        _public_moves(replay, lobby, game, report, unrevealed=missing)
        raise _Failed(
            "end record",
            f"{end.status}; not verified: the game did not finish, and the transcript proves no fault by any seat",
        )
    replay = _Replay(
        game,
        lobby.options,
        names,
        seats,
        [seeds[s] for s in range(lobby.players)],
        encode_header(transcript.header.lobby),
        log=log,
        unfinished=True,
        watch=watch,
    )
    try:
        record, deck = replay.run()
    except _Stopped as stop:
        report.checked.update(public=replay.public, private=replay.private, moves=replay.turn)
        _after_stop(replay, seats, stop)
        _stopped_by_accusation(seats, stop.step)
        raise _stall_verdict(
            replay,
            stop,
            f"the game stopped waiting for {names[stop.seat]}'s "
            f"{stop.what}, which it never signed while every message it needed is "
            f"in the transcript (a stall or a lost connection: the transcript "
            f"cannot tell which)",
        ) from None
    except _Failed:
        raise
    except PlayerError as exc:
        raise _Failed(f"turn {replay.turn}", f"illegal move {exc.action!r}: {exc.reason}", exc.seat) from None
    except DeckFault as exc:
        raise _Failed("deck", str(exc), exc.blame.seat) from None
    except Exception as exc:
        turn, stopped_seat = replay.pending if replay.pending is not None else (replay.turn, None)
        raise _Failed(f"turn {turn}", f"the replay stopped: {type(exc).__name__}: {exc}", stopped_seat) from None
    report.checked.update(public=replay.public, private=replay.private, moves=replay.turn, cards=len(record.faces))
    report.result = record.result
    raise _Failed(
        "end record",
        f"{end.status}, yet the signed entries hold a whole game with "
        f"its result; not verified: the game did not finish at the table",
    )


def _delivered(log: Any, players: int) -> list[int]:
    """How many of each seat's entries the seats could act on: an entry is handed to the game
    only once every entry its head echo counts has been (protocol/table.md section 4), so one
    that counts entries the file lacks, and every later entry of its seat, never were (the
    table stops on it, naming nobody): what :meth:`Log.closed` keeps."""
    counts = [0] * players
    for entry in log.closed():
        counts[entry.sender] += 1
    return counts


def _held_back(mine: _SeatEntries, names: Sequence[str], step: str) -> None:
    """The replay needs an entry of ``mine`` past one that no seat could act on: whose fault
    that is the file cannot tell."""
    entry = mine.held
    if entry is None:
        return
    raise _Failed(
        step,
        f"{names[mine.seat]}'s entry #{entry.seq} counts entries of other seats "
        f"that are not in the file, so no seat could act on it or on what {names[mine.seat]} "
        f"signed after it: its echo counts entries never signed, or they were withheld "
        f"from the seat that wrote this file; the file cannot tell which",
    )


def _after_stop(replay: _Replay, seats: Sequence[_SeatEntries], stop: _Stopped) -> None:
    """Where the signed entries end: judge the accusations signed after what the replay used,
    and moves signed for a turn that was not the signer's."""
    for mine in seats:
        for entry in mine.deck[mine.next_deck :]:
            if _public(entry, "accuse"):
                replay.judge(mine.seat, entry)
    _out_of_turn(replay, seats)
    # Kept aside until their operation: one at or past the end of the game (its audit),
    # where nobody accuses, is its accuser's fault, as at every seat.
    ops = replay.deck.parties[0].ops if replay.deck is not None else []
    end = next((i for i, op in enumerate(ops) if isinstance(op, AuditOp)), None)
    for accuser, entry in replay.kept_aside:
        replay.judge(accuser, entry)
        op = entry.body["msg"].get("op")
        if end is not None and op >= end:
            raise _Failed(
                f"accusation by seat {accuser} (log #{entry.seq})",
                f"it accuses about deck operation {op}, at or past the end of the game",
                accuser,
            )


def _out_of_turn(replay: _Replay, seats: Sequence[_SeatEntries]) -> None:
    # Whose move the game waited for: one seat, or any seat of a free-order round (its
    # responses are read in seat order, so a later seat's may wait unread).
    to_move = (replay.pending_round or {replay.pending[1]}) if replay.pending is not None else set()
    for mine in seats:
        mine.skip_void()
        for entry in mine.actions[mine.next_action :]:
            turn = entry.body.get("turn") if isinstance(entry.body, dict) else None
            if not isinstance(turn, int) or isinstance(turn, bool):
                raise _Failed(f"log #{entry.seq} of seat {mine.seat}", "malformed action entry", mine.seat)
            if turn < replay.turn or (turn == replay.turn and to_move and mine.seat not in to_move):
                raise _Failed(
                    f"turn {turn} (log #{entry.seq} of seat {mine.seat})",
                    "a move signed for a turn that was not its own (out of turn)",
                    mine.seat,
                )


def _signed_goodbye(log: Any, names: Sequence[str]) -> _Failed | None:
    """A seat that signed a ``bye`` entry left the table before the end (protocol/table.md
    section 5): the game stopped because of it, whoever it was waiting for."""
    for entry in log.canonical():
        if entry.kind == "bye":
            reason = entry.body.get("reason")
            reason = reason if isinstance(reason, str) else "no reason given"
            return _Failed(
                f"bye entry of seat {entry.sender} (log #{entry.seq})",
                f"{names[entry.sender]} left the table before the end: {reason} (its signed goodbye)",
                entry.sender,
            )
    return None


def _stall_verdict(replay: _Replay, stop: _Stopped, stalled: str) -> _Failed:
    """The game stopped waiting for ``stop.seat``: whom the transcript names. A seat that
    signed a goodbye left, and the game stopped for that. A waiting seat that stopped (it
    revealed its seed, as every seat does at a stop) with a head echo showing that it never
    received an entry the game had reached, or an entry that one the game used had seen (a seat
    hands an entry on only after everything its author had seen, protocol/table.md section 4),
    is not named: another seat may have withheld it from that seat alone, echoed entries that
    were never signed, or a link failed, and the transcript cannot tell which. Otherwise the
    seat stalled (``stalled`` says so)."""
    left = _signed_goodbye(replay.log, replay.names)
    if left is not None:
        return left
    seat, log = stop.seat, replay.log
    last = log.entries(seat)[-1] if log is not None and log.entries(seat) else None
    if last is not None and last.kind == "deck" and _public(last, "seed"):
        used = [
            e for mine in replay.seats for e in mine.deck[: mine.next_deck] + mine.actions[: mine.next_action]
        ] + replay.statements_used
        # What it held when its game stopped: the echo of its stop entry (signed before its
        # seed), if it signed one after what the game used of it. What reached it after that
        # it no longer acted on.
        after = max((e.seq for e in used if e.sender == seat), default=-1)
        last = next((e for e in log.entries(seat) if e.seq > after and e.kind == "stop"), last)
        for other in range(len(replay.seats)):
            if other == seat:
                continue
            had = last.body["seen"][other][0]
            mine = [e for e in used if e.sender == other]
            reached = max((e.seq for e in mine), default=-1) + 1
            if had < reached:
                why = "which the game had reached"
            else:
                echo = max(used, key=lambda e: e.body["seen"][other][0], default=None)
                if echo is None or had >= echo.body["seen"][other][0]:
                    continue
                reached = echo.body["seen"][other][0]
                why = (
                    f"which {replay.names[echo.sender]}'s entry #{echo.seq}, used by the game, "
                    f"had seen (an entry is handed on only after what its author had seen)"
                )
            return _Failed(
                stop.step,
                f"the game stopped waiting for {replay.names[seat]}'s "
                f"{stop.what}, but its {'stop' if last.kind == 'stop' else 'last signed'} entry "
                f"(log #{last.seq}) shows it "
                f"never received {replay.names[other]}'s entry #{reached - 1}, {why}: "
                f"it may have been withheld from that seat alone, echoed without being "
                f"signed, or a link failed; the transcript cannot tell which",
                None,
            )
    waiting = _waiting_on_statements(replay, stop)
    if waiting is not None:
        return waiting
    return _Failed(stop.step, stalled, seat)


def _waiting_on_statements(replay: _Replay, stop: _Stopped) -> _Failed | None:
    """The stalled seat stated a follower absent at a turn that the game then went past on that
    follower's own move, and the other seats' statements on it are not all in the transcript:
    a seat that has stated acts on that move only once the statements decide whether it
    stands (protocol/table.md section 9), so it is still waiting. Whoever did not state (a seat
    that withheld its answer, or a link) the transcript cannot tell: nobody is named."""
    seat, names = stop.seat, replay.names
    mine = replay.seats[seat]
    for turn, other in replay.absences.by(seat):
        # Only a statement about a follower the game waited on at that turn, whose move it
        # read while the statements were open; signed before any later move or stop reached
        # the seat (its echo shows it was still at that turn), not counting the move it
        # waits on; and the seat signed no move the game used after that turn.
        if (turn, other) not in replay.read_while_stated:
            continue
        statement = next(e for e in replay.absences.statements(turn, other) if e.sender == seat)
        if not _still_at(replay, statement, turn, other):
            continue
        if any(e.body.get("turn", -1) > turn for e in mine.actions[: mine.next_action]):
            continue
        if replay.absences.passed(turn, other, replay.log.entries(other)) is None:
            missing = sorted(set(range(len(names))) - {other} - replay.absences.stated(turn, other))
            return _Failed(
                stop.step,
                f"the game stopped waiting for {names[seat]}'s {stop.what}, but "
                f"{names[seat]} had stated {names[other]} absent at turn {turn} and waits for "
                f"the other seats' statements on whether its move stands, and "
                f"{', '.join(names[s] for s in missing)} never signed theirs (withheld, or a "
                f"link failed: the transcript cannot tell which)",
                None,
            )
    return None


def _still_at(replay: _Replay, statement: Entry, turn: int, follower: int) -> bool:
    """``statement``'s echo shows its author still waiting at ``turn``: it counts no move of
    ``follower`` for that turn, no move of any seat for a later turn, and no ``stop``."""
    seen = statement.body["seen"]
    for other, (count, _) in enumerate(seen):
        for entry in replay.log.entries(other)[:count]:
            if entry.kind == "stop":
                return False
            if entry.kind == "action" and isinstance(entry.body, dict):
                moved = entry.body.get("turn")
                if isinstance(moved, int) and (moved > turn or (moved == turn and other == follower)):
                    return False
    return True


def _stopped_by_accusation(seats: Sequence[_SeatEntries], step: str) -> None:
    """A table stops on a signed accusation: when the transcript cannot judge it, the seat the
    replay was waiting for is not at fault for not going on."""
    for mine in seats:
        for entry in mine.deck:
            if _public(entry, "accuse"):
                raise _Failed(
                    step,
                    f"the game stopped after seat {mine.seat}'s signed accusation "
                    f"(log #{entry.seq}), which the transcript cannot judge (not every "
                    f"seed is revealed, or it concerns a step not replayed)",
                )


def _not_in_file(log: Any, seat: int, step: str) -> None:
    """The replay needs an entry of ``seat`` past the end of its chain in the file: if another
    entry's head echo saw more of that chain, the file lacks entries the seat did sign."""
    if log is None:
        return
    have = len(log.entries(seat))
    for entry in log.canonical():
        count = entry.body["seen"][seat][0]
        if count > have:
            raise _Failed(
                step,
                f"the file holds {have} entries of seat {seat}, but seat "
                f"{entry.sender}'s entry #{entry.seq} had seen {count}: entries were "
                f"removed from the file (or never reached the seat that wrote it)",
            )


def _invalid_public_points(seats: Sequence[_SeatEntries]) -> None:
    """A point outside the group in a signed public pass or re-handling is its signer's fault,
    proven by the message itself (no seed needed; the pass's proof fails too, protocol/deck.md
    section 5, and a game stops on it before every seed is revealed)."""
    for mine in seats:
        for entry in mine.entries:  # those no seat could act on too: the signature proves it
            msg = entry.body.get("msg") if isinstance(entry.body, dict) and entry.kind == "deck" else None
            if not (isinstance(msg, dict) and msg.get("type") in ("shuffle", "relock", "rehandle")):
                continue
            points = msg.get("points")
            bad = (
                next((j for j, p in enumerate(points) if not is_valid_point(p)), None)
                if isinstance(points, list)
                else 0
            )
            if bad is not None:
                raise _Failed(
                    f"deck, {msg['type']} message of operation {msg.get('op')} (log #{entry.seq} of seat {mine.seat})",
                    f"invalid point at position {bad}: not a point of "
                    f"the prime-order group, which no honest seat ever sends",
                    mine.seat,
                )


def _withheld_after_accusation(seats: Sequence[_SeatEntries], missing: Sequence[int]) -> None:
    """After a signed accusation every seat reveals its seed (protocol/deck.md section 6): a
    seat that did not, while the others did, withheld it, if it signed something after the
    accusation had reached it (its head echo shows it) and so was there to reveal it. A seat
    that signed nothing after it may have crashed or lost its link: not named for that."""
    accusations = [(mine.seat, e) for mine in seats for e in mine.deck if _public(e, "accuse")]
    if not accusations or len(missing) == len(seats):
        return
    accuser, entry = accusations[0]
    accused = entry.body["msg"].get("seat")

    def informed(seat: int) -> bool:
        return any(later.body["seen"][accuser][0] > entry.seq for later in seats[seat].entries)

    withheld = [s for s in missing if informed(s)]
    if not withheld:
        return
    seat = accused if accused in withheld else withheld[0]
    raise _Failed(
        f"seeds after seat {accuser}'s accusation (log #{entry.seq})",
        "it withheld its deck seed: every seat reveals it after an accusation, so that the deck can be re-checked",
        seat,
    )


def _stopped_while_others_kept_seeds(replay: _Replay, seat: int, unrevealed: Sequence[int]) -> bool:
    """The seat the game waited on signed a ``stop`` past everything the game used of it and
    revealed its seed, while other seats never revealed theirs: a seat stops when another is
    gone past its grace period (protocol/table.md section 5), and whether one was, or a link
    failed, the transcript cannot tell; so the waiting seat is not named as a staller."""
    mine = replay.seats[seat]
    if seat in unrevealed or not unrevealed or replay.log is None:
        return False
    used = max((e.seq for e in mine.deck[: mine.next_deck] + mine.actions[: mine.next_action]), default=-1)
    return any(e.kind == "stop" and e.seq > used for e in replay.log.entries(seat))


class _NeedsFaces(Exception):
    """The seedless replay reached a step that needs the faces of cards."""


class _Handles:
    """The engine's deck without seeds: only the public numbering of handles (shuffle epoch e
    is ``e*n .. e*n+n-1``, moved cards count up from FIRST_REHANDLED); a step that needs faces
    (or a coin, which needs every nonce) ends the replay."""

    def __init__(self, n: int, game_id: bytes | None, log: Any = None, cards: PublicCards | None = None):
        self.n, self.epochs, self.next = n, 0, FIRST_REHANDLED
        self.game_id = game_id
        self.log, self.cards = log, cards
        self.steps = 0  # deck steps so far (each is one deck operation)

    def shuffle(self) -> list[int]:
        self.steps += 1
        base, self.epochs = self.epochs * self.n, self.epochs + 1
        return list(range(base, base + self.n))

    def coin(self, label: str, bound: int) -> int:
        if self.game_id is None:
            raise _NeedsFaces(f"coin {label} (not every nonce was revealed)")
        self.steps += 1
        return coin_value(self.game_id, label, bound)

    def deal(self, to: Mapping[int, int]) -> None:
        self.steps += 1

    def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]:
        """Faces turned up for everyone, from the reveal's signed public openings."""
        if self.cards is None or self.log is None:
            raise _NeedsFaces("a reveal")
        op = self.steps
        # Only entries a seat could act on (Log.closed): one held back never opened anything.
        openings = [e.body["msg"] for e in self.log.closed() if _public(e, "open") and e.body["msg"].get("op") == op]
        try:
            faces = self.cards.opened(handles, openings)
        except NotOpened:
            raise _NeedsFaces("a reveal") from None
        self.steps += 1
        return faces

    def transfer(self, handles: Sequence[int], to: int) -> list[int]:
        op = self.steps
        self.steps += 1
        moved = sorted(set(handles))
        new = list(range(self.next, self.next + len(moved)))
        self.next += len(moved)
        self._rehandled(op, moved, to, new)
        return new

    def _rehandled(self, op: int, moved: list[int], to: int, new: list[int]) -> None:
        """Tell the public cards of the transfer's new handles from the re-handling that its
        receiver ``to`` signed for this operation, if it checks out over the moved cards: the
        game's rules say which transfer it is, which the passes alone do not (a re-handling
        signed for another operation, or by another seat, would number the cards otherwise,
        and an opening through it could decode a handle as another card)."""
        if self.cards is None or self.log is None or self.game_id is None or not new:
            return
        msg = next(
            (
                e.body["msg"]
                for e in self.log.closed()
                if e.sender == to and _public(e, "rehandle") and e.body["msg"].get("op") == op
            ),
            None,
        )
        if msg is None or not all(h in self.cards.points for h in moved):
            return
        try:
            check_rehandle(self.game_id, op, to, msg, moved, [self.cards.points[h] for h in moved])
        except PassError:
            return
        self.cards.rehandled(new[0], msg["points"], msg["key"], moved)

    def known(self, seat: int) -> Mapping[int, Card]:
        return {}

    def open_all(self) -> dict[int, Card]:
        raise _NeedsFaces("the audit")


def _deck_context(lobby: TableHeader, game: Game) -> bytes:
    """The deck's context (protocol/deck.md section 2): the lobby header and the cards."""
    cards = game.deck(lobby.options, lobby.players)
    return context_digest(encode_header(lobby.to_wire()), lobby.players, [c.label() for c in cards])


def _public_game_id(log: Any, lobby: TableHeader, game: Game) -> bytes | None:
    """The deck's game id from the signed commitments and nonces (public), for the coins."""
    context = _deck_context(lobby, game)
    commits, nonces = [], []
    for seat in range(lobby.players):
        deck = [e for e in log.entries(seat) if e.kind == "deck"][:2]
        if len(deck) < 2 or not (_public(deck[0], "commit") and _public(deck[1], "nonce")):
            return None
        commits.append(deck[0].body["msg"])
        nonces.append(deck[1].body["msg"].get("nonce"))
    try:
        return game_id_of(context, [c["seed"] for c in commits], [c["nonce"] for c in commits], nonces)
    except (KeyError, TypeError, ValueError):
        return None


def _public_setup(log: Any, lobby: TableHeader, game: Game) -> None:
    """The checks every seat makes on the public deck messages that need no seed (protocol/deck.md
    section 2): each is a map of a known type; a seat's first is its commitment, two 32-byte
    values; its second, if a nonce, opens the nonce commitment. A signed message that fails them
    is its signer's fault, as it was at the table."""
    context = _deck_context(lobby, game)
    for seat in range(lobby.players):
        deck = [e for e in log.entries(seat) if e.kind == "deck"]
        for index, entry in enumerate(deck):
            if recipients(entry.body):
                continue  # private: only its recipients can read it
            msg = entry.body.get("msg") if isinstance(entry.body, dict) else None
            what = f"deck entry #{entry.seq} of seat {seat}"
            if not isinstance(msg, dict) or msg.get("type") not in MESSAGE_TYPES:
                raise _Failed(what, "a public deck message of no known type", seat)
            if index == 0 and not (
                msg["type"] == "commit" and _is_hash(msg.get("seed")) and _is_hash(msg.get("nonce"))
            ):
                raise _Failed(
                    what, "its first deck message is not a commitment to a seed and a nonce (32 bytes each)", seat
                )
            if index == 1 and msg["type"] == "nonce":
                nonce = msg.get("nonce")
                if not _is_hash(nonce) or nonce_commitment(context, seat, nonce) != deck[0].body["msg"]["nonce"]:
                    raise _Failed(what, "its nonce does not open its signed commitment", seat)


def _is_hash(value: Any) -> TypeGuard[bytes]:
    return isinstance(value, bytes) and len(value) == 32


def _public_passes(log: Any, lobby: TableHeader, game: Game) -> PublicCards:
    """Every shuffle, re-lock and re-handling checked as every seat checks it on arrival
    (protocol/deck.md sections 4 and 5), in the order of the deck operations: its shape and its
    proof over the points it was made from (the pass before it, the card table, or the moved
    cards, which a re-handling names). No seed is needed: a pass or re-handling that copies,
    drops, tags or substitutes a card names its author here. Returns what the checked passes
    tell of every handle (none of it without the game id, which the proofs need)."""
    game_id = _public_game_id(log, lobby, game)
    cards = game.deck(lobby.options, lobby.players)
    n = len(cards)
    table = card_table(_deck_context(lobby, game), tuple(c.label() for c in cards))
    public = PublicCards(game_id, table, cards)
    by_op: dict[int, dict[tuple[str, int], Entry]] = {}
    for entry in log.canonical():
        if entry.kind != "deck" or not any(_public(entry, t) for t in ("shuffle", "relock", "rehandle")):
            continue
        msg = entry.body["msg"]
        what = f"{msg['type']} message of seat {entry.sender} (log #{entry.seq})"
        if type(msg.get("op")) is not int:
            raise _Failed(what, "a deck message for no operation (its op is not a number)", entry.sender)
        by_op.setdefault(msg["op"], {}).setdefault((msg["type"], entry.sender), entry)
    points: dict[int, bytes] = {}  # handle -> point, as the seats numbered them
    retired: dict[int, int] = {}  # moved handle -> the seat whose re-handling moved it
    epochs, next_handle = 0, FIRST_REHANDLED
    for op in sorted(by_op):
        messages = by_op[op]
        rehandles = [(seat, e) for (kind, seat), e in messages.items() if kind == "rehandle"]
        if len(rehandles) > 1 or (rehandles and len(messages) > 1):
            # Only the transfer's receiver re-handles, and a transfer has no passes: without
            # the game's rules, which message is the operation's the passes cannot tell.
            return public
        if rehandles:
            seat, entry = rehandles[0]
            msg = entry.body["msg"]
            what = f"rehandle message of seat {seat} for deck operation {op} (log #{entry.seq})"
            moved = msg.get("moved")
            if not (isinstance(moved, list) and all(type(h) is int for h in moved) and moved == sorted(set(moved))):
                raise _Failed(what, "it names no moved cards of this game", seat)
            others = {retired[h] for h in moved if h not in points and h in retired} - {seat}
            if others:
                # A card another seat's re-handling moved already: one of the two re-handled
                # cards it did not receive, and without the game's rules the passes cannot
                # tell which (a re-handling signed for an operation that moved nothing).
                return public
            if not all(h in points for h in moved):
                raise _Failed(what, "it names no moved cards of this game", seat)
            if game_id is not None:
                try:
                    check_rehandle(game_id, op, seat, msg, moved, [points[h] for h in moved])
                except PassError as exc:
                    raise _Failed(what, f"{exc}: not the moved cards re-handled", seat) from None
            for h in moved:
                del points[h]
                retired[h] = seat
            for point in msg["points"]:
                points[next_handle] = point
                next_handle += 1
            continue
        deck, keys, locks = list(table), dict[int, bytes](), dict[int, list[bytes]]()
        for kind, seat in pass_order(lobby.players):
            entry = messages.get((kind, seat))
            if entry is None:
                return public  # the game stopped here: what came after is judged elsewhere
            msg = entry.body["msg"]
            what = f"{kind} pass of seat {seat} for deck operation {op} (log #{entry.seq})"
            try:
                if game_id is None:
                    check_pass_shape(kind, msg, n)
                else:
                    check_pass(game_id, op, kind, seat, msg, deck, keys)
            except PassError as exc:
                raise _Failed(
                    what, f"{exc}: the pass is not the one before it honestly shuffled or re-locked", seat
                ) from None
            deck = msg["points"]
            if kind == "shuffle":
                keys[seat] = msg["key"]
            else:
                locks[seat] = msg["keys"]
        points.update({epochs * n + j: point for j, point in enumerate(deck)})
        if game_id is not None:
            public.shuffled(epochs * n, deck, [locks[s] for s in range(lobby.players)])
        epochs += 1
    return public


def _public_moves(
    replay: _Replay, lobby: TableHeader, game: Game, report: Report, *, unrevealed: Sequence[int] = ()
) -> None:
    """Without every seed: replay the signed moves with the game's public rules (turn order,
    handles held, every public check) as far as no face is needed. ``unrevealed``: the seats
    that never revealed their seed."""
    n = len(game.deck(lobby.options, lobby.players))
    cards = _public_passes(replay.log, lobby, game)
    deck = _Handles(n, _public_game_id(replay.log, lobby, game), replay.log, cards)
    bots = [_SignedMoves(game, s, lobby.options, replay) for s in range(lobby.players)]
    moved_at = [-1]  # deck steps before the last move
    observe = replay.moved

    def moved(state: Any, seat: int, action: Action, known: Mapping[int, Card]) -> None:
        observe(state, seat, action, known)
        moved_at[0] = deck.steps

    replay.moved = moved  # type: ignore[method-assign]
    replay.replica = Replica(game, lobby.options, lobby.players)
    replay.known_of = deck.known
    stop: _Stopped | None = None
    try:
        play(
            game,
            lobby.options,
            lobby.players,
            deck,
            bots,
            check_own=False,
            round_order=replay.round_order,
            replica=replay.replica,
            on_step=replay.show,
        )
    except _NeedsFaces as exc:
        report.notes.append(f"the public replay stops at turn {replay.turn}: {exc} needs the faces of cards")
        replay.pending = None
    except _Stopped as exc:
        stop = exc
    except PlayerError as exc:
        raise _Failed(f"turn {replay.turn}", f"illegal move {exc.action!r}: {exc.reason}", exc.seat) from None
    except _Failed:
        raise
    except Exception as exc:
        seat: int | None
        turn, seat = replay.pending or (replay.turn, None)
        raise _Failed(f"turn {turn}", f"the replay stopped: {type(exc).__name__}: {exc}", seat) from None
    report.checked["moves"] = replay.turn
    _out_of_turn(replay, replay.seats)
    if stop is not None and _stopped_while_others_kept_seeds(replay, stop.seat, unrevealed):
        report.notes.append(
            f"the game stopped at turn {replay.turn}, waiting for {replay.names[stop.seat]}, "
            f"which signed its stop and revealed its seed instead; "
            f"{', '.join(replay.names[s] for s in unrevealed)} never revealed theirs "
            f"(gone, or a lost connection: the transcript cannot tell which)"
        )
        stop = None
    if stop is not None and moved_at[0] == deck.steps:
        _stopped_by_accusation(replay.seats, stop.step)
        # The turn came right after a signed move, with no deck step between: every other
        # seat had what it needed; this one never signed its move.
        raise _stall_verdict(
            replay,
            stop,
            f"the game stopped waiting for {replay.names[stop.seat]}'s "
            f"{stop.what}, right after the signed move before it (a stall or a lost "
            f"connection: the transcript cannot tell which)",
        )
    left = _signed_goodbye(replay.log, replay.names)
    if left is not None:
        raise left
    if stop is not None and stop.seat in unrevealed and len(unrevealed) < lobby.players:
        # Every seat reveals its seed when a game stops; the one the game waited on did not,
        # while others did: it left (protocol/table.md section 5), and that counts against it.
        _stopped_by_accusation(replay.seats, stop.step)
        raise _Failed(
            stop.step,
            f"the game stopped waiting for {replay.names[stop.seat]}'s "
            f"{stop.what}, which it never signed, and it never revealed its deck seed "
            f"as every seat does when a game stops: it left the table",
            stop.seat,
        )
    if stop is not None:
        report.notes.append(
            f"the game stopped at turn {replay.turn}, waiting for "
            f"{replay.names[stop.seat]} after a deck step that cannot be "
            f"checked without every seed"
        )

"""The deck's passes as the public record shows them: every shuffle, re-lock and re-handling
checked with its proof as every seat checked it on arrival (:func:`public_passes`), and the
public values they hang on (the deck's context and game id, the seats that dropped out).

The proof checks are most of a long match's verify (issue 31), and none depends on another's
outcome: the points a pass is checked over are the ones the pass before it *claims*, whether or
not its proof holds. So the walk over the operations starts each check on the machine's cores
as it reaches it (:class:`Pending`) and reads the verdicts in the order it started them: the
first failure raised is the one a check-as-you-go walk would have met first, and what the walk
itself finds (a malformed message, a reused key) is raised only after every check started
before it held.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from .. import cores
from ..deck.derive import card_table, context_digest, game_id_of
from ..deck.party import FIRST_REHANDLED, ONE, public_key_reuse
from ..deck.passes import (
    PassError,
    ShuffleStatement,
    check_pass,
    check_pass_shape,
    check_rehandle,
    check_rehandle_shape,
    check_together,
    pass_order,
    rehandle_memo,
    rehandle_statement,
    shuffle_statements,
)
from ..deck.public import PublicCards
from ..game import Game
from ..table.header import TableHeader
from ..wire.log import encode_header
from ..wire.messages import Entry
from .replay import public_message
from .report import Failed

__all__ = ["Pending", "deck_context", "dropped_at", "public_game_id", "public_passes", "shuffling", "start_passes"]


def deck_context(lobby: TableHeader, game: Game) -> bytes:
    """The deck's context (protocol/deck.md section 2): the lobby header and the cards."""
    cards = game.deck(lobby.options, lobby.players)
    return context_digest(encode_header(lobby.to_wire()), lobby.players, [c.label() for c in cards])


def public_game_id(log: Any, lobby: TableHeader, game: Game) -> bytes | None:
    """The deck's game id from the signed commitments and nonces (public), for the coins."""
    context = deck_context(lobby, game)
    commits, nonces = [], []
    for seat in range(lobby.players):
        deck = [e for e in log.entries(seat) if e.kind == "deck"][:2]
        if len(deck) < 2 or not (public_message(deck[0], "commit") and public_message(deck[1], "nonce")):
            return None
        commits.append(deck[0].body["msg"])
        nonces.append(deck[1].body["msg"].get("nonce"))
    try:
        return game_id_of(context, [c["seed"] for c in commits], [c["nonce"] for c in commits], nonces)
    except (KeyError, TypeError, ValueError):
        return None


Position = tuple[int, int]
"""Where a check stands in a check-as-you-go walk: (deck operation, pass index in it)."""


class _Found(Exception):
    """What the walk itself found wrong at ``position``."""

    def __init__(self, position: Position, failed: Failed):
        super().__init__(failed)
        self.position, self.failed = position, failed


_Finding = tuple[Position, Failed] | None


class Pending:
    """Checks started ahead on the cores (:func:`p2pcards.cores.ahead`), their verdicts taken in
    the order they were started. A check returns ``None`` or the :class:`Failed` it found with
    its position (a check of several passes: its first that fails)."""

    def __init__(self) -> None:
        self._started: list[Future[_Finding]] = []
        #: Told each time a verdict is read (a progress bar), on the reading thread.
        self.on_verdict: Callable[[], None] | None = None

    def share_done(self) -> float:
        """The share of the checks started that are done (1 with none started)."""
        if not self._started:
            return 1.0
        return sum(future.done() for future in self._started) / len(self._started)

    def start(self, check: Callable[[], _Finding]) -> None:
        self._started.append(cores.ahead().submit(check))

    def cancel(self) -> None:
        """Forget the checks started (their verdicts are not wanted: the caller is stopping)."""
        for future in self._started:
            future.cancel()
        self._started = []

    def first_failure(self, up_to: Position | None = None) -> None:
        """Wait for the checks started so far and raise the first failure (at ``up_to`` or
        before it, if given: one found later than what the walk found there is not reached);
        cancel what is left either way."""
        try:
            for future in self._started:
                found = future.result()
                if self.on_verdict is not None:
                    self.on_verdict()
                if found is not None and (up_to is None or found[0] <= up_to):
                    raise found[1]
        finally:
            self.cancel()


_Pass = tuple[str, int, Any, list[bytes], dict[int, bytes], str]  # kind, seat, message, deck, keys, what


@dataclass(frozen=True)
class _Passes:
    """An operation's passes, in pass order (:func:`check_pass` on each)."""

    op: int
    passes: list[_Pass]

    def statements(self, game_id: bytes, table: Sequence[bytes]) -> list[tuple[bytes, ShuffleStatement]]:
        return shuffle_statements(game_id, self.op, [(kind, seat, msg) for kind, seat, msg, *_ in self.passes], table)

    def check(self, game_id: bytes, known: set[bytes]) -> _Finding:
        for index, (kind, seat, msg, deck, keys, what) in enumerate(self.passes):
            try:
                check_pass(game_id, self.op, kind, seat, msg, deck, keys, known=known)
            except PassError as exc:
                reason = f"{exc}: the pass is not the one before it honestly shuffled or re-locked"
                return (self.op, index), Failed(what, reason, seat)
        return None


@dataclass(frozen=True)
class _Rehandle:
    """A transfer's re-handling by its receiver ``seat`` (:func:`check_rehandle`)."""

    op: int
    seat: int
    msg: Any
    moved: list[int]
    points: list[bytes]
    what: str

    def statements(self, game_id: bytes, table: Sequence[bytes]) -> list[tuple[bytes, ShuffleStatement]]:
        statement = rehandle_statement(game_id, self.op, self.seat, self.msg, self.moved, self.points)
        return [] if statement is None else [statement]

    def check(self, game_id: bytes, known: set[bytes]) -> _Finding:
        try:
            check_rehandle(game_id, self.op, self.seat, self.msg, self.moved, self.points, known=known)
        except PassError as exc:
            return (self.op, 0), Failed(self.what, f"{exc}: not the moved cards re-handled", self.seat)
        return None


class _Window:
    """The checks of a few hands' operations, started as one (:class:`Pending`): their shuffle
    proofs in one batch first (:func:`check_together`: the generators and the card table
    multiplied once for them all, not once a proof), then each check in order, which finds
    those proofs checked (or, if the batch failed, checks each one alone and names the first
    that fails, as it would have)."""

    HANDS = 4  # shuffles a window holds: a long match has some 30 windows for two cores

    def __init__(self, checks: Pending) -> None:
        self._checks = checks
        self._items: list[_Passes | _Rehandle] = []
        self._hands = 0
        self._game_id = b""
        self._table: Sequence[bytes] = ()
        self._known: set[bytes] = set()

    def begin(self, game_id: bytes, table: Sequence[bytes], known: set[bytes]) -> None:
        self._game_id, self._table, self._known = game_id, table, known

    def add(self, item: _Passes | _Rehandle) -> None:
        self._items.append(item)
        if isinstance(item, _Passes):
            self._hands += 1
            if self._hands >= self.HANDS:
                self.flush()

    def flush(self) -> None:
        if not self._items:
            return
        game_id, table, items, known = self._game_id, self._table, self._items, self._known
        self._items, self._hands = [], 0

        def check() -> _Finding:
            check_together([statement for item in items for statement in item.statements(game_id, table)], known)
            for item in items:
                found = item.check(game_id, known)
                if found is not None:
                    return found
            return None

        self._checks.start(check)


def public_passes(log: Any, lobby: TableHeader, game: Game, checked: set[bytes] | None = None) -> PublicCards:
    """Every shuffle, re-lock and re-handling checked as every seat checks it on arrival
    (protocol/deck.md sections 4 and 5), in the order of the deck operations: its shape and its
    proof over the points it was made from (the pass before it, the card table, or the moved
    cards, which a re-handling names). No seed is needed: a pass or re-handling that copies,
    drops, tags or substitutes a card names its author here. Returns what the checked passes
    tell of every handle (none of it without the game id, which the proofs need). ``checked``:
    what an earlier call over the same game found holding (a spectator's, at every hand), not
    checked again, and where what holds now is added."""
    public, pending = start_passes(log, lobby, game, checked)
    pending.first_failure()
    return public


def start_passes(
    log: Any, lobby: TableHeader, game: Game, checked: set[bytes] | None = None
) -> tuple[PublicCards, Pending]:
    """:func:`public_passes` with its proof checks still running: the caller may go on (the
    replay of the moves) and must ask :meth:`Pending.first_failure` before it concludes
    anything, or raises anything of its own. What the walk itself finds is raised here (after
    the checks started before it). The re-handlings whose checks are running are in the
    result's ``started``."""
    checks = Pending()
    window = _Window(checks)
    try:
        public = _walk(log, lobby, game, window, checked)
    except _Found as found:
        window.flush()
        checks.first_failure(up_to=found.position)  # a proof that failed at or before it first
        raise found.failed from None
    window.flush()
    return public, checks


def _walk(log: Any, lobby: TableHeader, game: Game, window: _Window, checked: set[bytes] | None) -> PublicCards:
    game_id = public_game_id(log, lobby, game)
    cards = game.deck(lobby.options, lobby.players)
    n = len(cards)
    table = card_table(deck_context(lobby, game), tuple(c.label() for c in cards))
    public = PublicCards(game_id, table, cards)
    if checked is not None:
        public.checked = checked
    if game_id is not None:
        window.begin(game_id, table, public.checked)
    drops = dropped_at(log)
    by_op: dict[int, dict[tuple[str, int], Entry]] = {}
    for entry in log.canonical():
        if entry.kind != "deck" or not any(public_message(entry, t) for t in ("shuffle", "relock", "rehandle")):
            continue
        msg = entry.body["msg"]
        what = f"{msg['type']} message of seat {entry.sender} (log #{entry.seq})"
        if type(msg.get("op")) is not int or msg["op"] < 0:
            # (every seat refused it as "for no operation in progress"; a negative one, kept,
            # would sort first and end these checks before any real pass)
            reason = "a deck message for no operation (its op is not a non-negative number)"
            raise _Found((-1, 0), Failed(what, reason, entry.sender))
        by_op.setdefault(msg["op"], {}).setdefault((msg["type"], entry.sender), entry)
    points: dict[int, bytes] = {}  # handle -> point, as the seats numbered them
    # Every per-card public key published so far (the reuse rule every seat applies to a
    # re-lock pass: deck.party.public_key_reuse): this hand's and the last one's, and the
    # finished hands' (a hand is finished once the next one's shuffle is complete).
    seen_keys: dict[bytes, tuple[int, int]] = {}
    old_keys: set[bytes] = set()
    retired: dict[int, int] = {}  # moved handle -> the seat whose re-handling moved it
    # Every per-card public key published so far -> (seat, handle, epoch): one published again
    # names the later pass's author, as every seat names it (Party._note_public_keys). The seeded
    # replay found it as a pass its seed does not derive; no seed is revealed since version 12.
    card_keys: dict[bytes, tuple[int, int, int]] = {}
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
                raise _Found((op, 0), Failed(what, "it names no moved cards of this game", seat))
            others = {retired[h] for h in moved if h not in points and h in retired} - {seat}
            if others:
                # A card another seat's re-handling moved already: one of the two re-handled
                # cards it did not receive, and without the game's rules the passes cannot
                # tell which (a re-handling signed for an operation that moved nothing).
                return public
            if not all(h in points for h in moved):
                raise _Found((op, 0), Failed(what, "it names no moved cards of this game", seat))
            if game_id is not None:
                moved_points = [points[h] for h in moved]
                try:
                    # Its shape now, as its check would first (the handles below are numbered
                    # from its points, which nothing else has checked while the check runs).
                    check_rehandle_shape(msg, moved, len(moved_points))
                except PassError as exc:
                    raise _Found((op, 0), Failed(what, f"{exc}: not the moved cards re-handled", seat)) from None
                public.started.add(rehandle_memo(game_id, op, seat, msg, moved_points))
                window.add(_Rehandle(op, seat, msg, moved, moved_points, what))
            for h in moved:
                del points[h]
                retired[h] = seat
            for point in msg["points"]:
                points[next_handle] = point
                next_handle += 1
            continue
        deck, keys, locks = list(table), dict[int, bytes](), dict[int, list[bytes]]()
        # The seats that dropped out before this shuffle take no part in it (deck.md §4.6).
        seats = shuffling(lobby.players, drops, op)
        passes: list[_Pass] = []  # their proofs checked ahead, in a window (see _Window)
        try:
            for index, (kind, seat) in enumerate(pass_order(lobby.players, seats)):
                entry = messages.get((kind, seat))
                if entry is None:
                    return public  # the game stopped here: what came after is judged elsewhere
                msg = entry.body["msg"]
                what = f"{kind} pass of seat {seat} for deck operation {op} (log #{entry.seq})"
                try:
                    check_pass_shape(kind, msg, n)
                except PassError as exc:
                    reason = f"{exc}: the pass is not the one before it honestly shuffled or re-locked"
                    raise _Found((op, index), Failed(what, reason, seat)) from None
                passes.append((kind, seat, msg, deck, dict(keys), what))
                if kind == "relock":
                    reused = public_key_reuse(seat, epochs * n, msg["keys"], seen_keys, old_keys)
                    if reused is not None:
                        reason = f"{reused}: a per-card key is never used twice in a game"
                        raise _Found((op, index), Failed(what, reason, seat))
                deck = msg["points"]
                if kind == "shuffle":
                    keys[seat] = msg["key"]
                else:
                    locks[seat] = msg["keys"]
                    for j, key in enumerate(msg["keys"]):
                        first = card_keys.get(key)
                        if first is not None:
                            reused = (
                                "a per-card key of a finished hand"
                                if first[2] < epochs - 1
                                else f"the per-card key of seat {first[0]} at handle {first[1]}"
                            )
                            raise _Found((op, index), Failed(what, f"position {j} reuses {reused}", seat))
                        card_keys[key] = (seat, epochs * n + j, epochs)
        finally:
            if game_id is not None and passes:
                window.add(_Passes(op, passes))
        points.update({epochs * n + j: point for j, point in enumerate(deck)})
        if epochs:  # the hand before is finished: its keys checked as a finished hand's
            finished = range((epochs - 1) * n, epochs * n)
            old_keys.update(key for key, (_, handle) in seen_keys.items() if handle in finished)
            seen_keys = {key: at for key, at in seen_keys.items() if at[1] not in finished}
        if game_id is not None:
            public.shuffled(epochs * n, deck, [locks.get(s) for s in range(lobby.players)], ONE)
        epochs += 1
    for seat, (_, message) in drops.items():
        public.dropped(seat, message)
    return public


def dropped_at(log: Any) -> dict[int, tuple[int, dict[str, Any]]]:
    """Each seat that sent a ``drop`` deck message (protocol/deck.md §4.6), a seat a table let
    act on: the operation it dropped out at, and the message (its first)."""
    drops: dict[int, tuple[int, dict[str, Any]]] = {}
    for entry in log.closed():
        if public_message(entry, "drop") and entry.sender not in drops:
            op = entry.body["msg"].get("op")
            if type(op) is int and op >= 0:
                drops[entry.sender] = (op, entry.body["msg"])
    return drops


def shuffling(players: int, drops: Mapping[int, tuple[int, Any]], op: int) -> list[int]:
    """The seats that take part in the shuffle at deck operation ``op``: every seat but those
    that dropped out at an earlier operation."""
    return [s for s in range(players) if not (s in drops and drops[s][0] < op)]

"""Passing for an absent follower (Cal's BS rule 28; protocol/table.md section 9), decided
from the signed log alone, the same at every seat and in ``p2pcards verify``.

Seat *s* waits on follower *f*'s move for turn *t* (a clockwise turn, or a response in a
free-order round) and *f*'s client is gone: *s* signs an ``absent`` entry ``{"turn": t,
"seat": f}``, a statement that, as of its head echo, it holds no move of *f* for that turn. A
seat that holds that move answers another's statement with its own at once (its echo then
counts the move). One statement that counts a move of *f* for turn *t* settles it: that move
stands. Once **every seat but f** has stated and none counts one, *f* was absent to everyone
and passes; a move of it for that turn, signed before but delivered
later, is void. One seat alone cannot void a move (every other seat must state too, and one
that holds the move states that it does), so no seat can make a present player's doubt
vanish. A seat that has stated acts on *f*'s move for that turn only once the statements
decide (it may be void)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..wire.messages import Entry

__all__ = ["NO_TURN", "Absences", "absent_body", "move_turn", "moved_in", "settling"]


def absent_body(body: Any, players: int, sender: int) -> tuple[int, int] | None:
    """``(turn, seat)`` of a well-formed ``absent`` body signed by ``sender``, else ``None``."""
    if not isinstance(body, dict) or set(body) != {"turn", "seat", "seen"}:
        return None
    turn, seat = body["turn"], body["seat"]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (turn, seat)):
        return None
    if turn < 0 or not 0 <= seat < players or seat == sender:
        return None
    return turn, seat


class Absences:
    """The ``absent`` statements delivered so far, and what they decide."""

    def __init__(self, players: int):
        self.players = players
        # (turn, seat) -> stating seat -> its first statement (a second one changes nothing)
        self._stated: dict[tuple[int, int], dict[int, Entry]] = {}
        #: Seats that dropped out (protocol/table.md section 4, "Dropping out"): they state
        #: nothing, and no decision waits for them.
        self.gone: set[int] = set()

    def add(self, entry: Entry) -> bool:
        """A delivered ``absent`` entry: whether it is a new statement (not malformed, which is
        its signer's fault, nor a second one of its signer about that turn and seat)."""
        key = absent_body(entry.body, self.players, entry.sender)
        if key is None or entry.sender in self._stated.get(key, {}):
            return False
        self._stated.setdefault(key, {})[entry.sender] = entry
        return True

    def stated(self, turn: int, seat: int) -> set[int]:
        """The seats that stated ``seat`` absent for ``turn``."""
        return set(self._stated.get((turn, seat), {}))

    def statements(self, turn: int, seat: int) -> list[Entry]:
        """Their statements (the first of each seat)."""
        return list(self._stated.get((turn, seat), {}).values())

    def missing(self, turn: int, seat: int) -> set[int]:
        """The seats still in the game, other than ``seat``, that have not stated ``seat``
        absent for ``turn``."""
        return set(range(self.players)) - {seat} - self.gone - self.stated(turn, seat)

    def by(self, signer: int) -> list[tuple[int, int]]:
        """The ``(turn, seat)`` pairs ``signer`` stated absent."""
        return [key for key, stated in self._stated.items() if signer in stated]

    def counted(self, turn: int, seat: int) -> int:
        """How many of ``seat``'s entries the statements about it at ``turn`` count, at most
        (the entries a reader must hold to decide)."""
        return max((e.body["seen"][seat][0] for e in self._stated.get((turn, seat), {}).values()), default=0)

    def passed(self, turn: int, seat: int, chain: Sequence[Entry]) -> bool | None:
        """Whether ``seat`` is passed for at ``turn`` (``chain``: its entries, at least as many
        as the statements count): ``False`` as soon as one statement's echo counts a move of it
        for that turn (that statement can never be taken back: the move stands); else ``None``
        while some other seat has not stated, and ``True`` once all have."""
        return self.decide(turn, seat, len(chain), lambda count: any(_move_for(e, turn) for e in chain[:count]))

    def decide(self, turn: int, seat: int, held: int, moved: Callable[[int], bool]) -> bool | None:
        """:meth:`passed`, for a reader that holds ``held`` entries of ``seat`` and answers
        ``moved(count)``: is a move of ``seat`` for ``turn`` among its first ``count``
        entries (without reading the chain: a long one may be on disk)."""
        counted = self.counted(turn, seat)
        if held < counted:
            raise ValueError(f"the statements count {counted} entries of seat {seat}; {held} are here")
        if moved(counted):
            return False
        if self.missing(turn, seat):
            return None
        return True


#: :func:`move_turn` of an entry that is no move.
NO_TURN = -1
_TURNS = 1 << 63


def move_turn(entry: Entry) -> int:
    """The turn ``entry`` is a move for, as :func:`_move_for` compares it (a number equal to
    a turn: an ``int``, a ``bool`` or a whole ``float``), or :data:`NO_TURN`: for
    :meth:`~p2pcards.wire.log.Log.column`."""
    if entry.kind != "action" or not isinstance(entry.body, dict):
        return NO_TURN
    turn = entry.body.get("turn")
    if isinstance(turn, float) and turn.is_integer():
        turn = int(turn)
    return int(turn) if isinstance(turn, int) and 0 <= turn < _TURNS else NO_TURN


def moved_in(turns: Sequence[int], turn: int, count: int) -> bool | None:
    """Whether ``turn`` is among the first ``count`` of ``turns`` (a :func:`move_turn`
    column); ``None`` for a turn a column cannot hold."""
    if not 0 <= turn < _TURNS:
        return None
    try:
        turns.index(turn, 0, count)
    except ValueError:
        return False
    return True


def _move_for(entry: Entry, turn: int) -> bool:
    return entry.kind == "action" and isinstance(entry.body, dict) and entry.body.get("turn") == turn


def settling(
    absences: Absences,
    seat: int,
    seen: Sequence[Sequence[Any]] | None,
    turns: int,
    decided: Callable[[int, int], bool],
) -> bool:
    """Whether ``seat`` may be waiting on absent statements (table/referee.py, ``Wait.look``:
    only such a seat's claim to wait on statements counts, and a deck step's shorter timeout
    does not charge it meanwhile). It must have stated a follower absent itself, at the turn
    we are at (``turns``, the moves made so far) or the one just played; and either those
    statements do not decide yet (``decided(turn, follower)`` is False, also when we lack the
    entries they count), or one of them, by a seat other than it and the follower, is one it
    had not seen as of its last signed entry (``seen``: that entry's head echo; ``None``: no
    entry of it here, so it stated nothing). Pure: the same facts give the same answer."""
    if seen is None:
        return False
    for turn, follower in absences.by(seat):
        if turn < turns - 1:
            continue
        if not decided(turn, follower):
            return True
        for entry in absences.statements(turn, follower):
            if entry.sender in (seat, follower):
                continue
            echo = seen[entry.sender] if 0 <= entry.sender < len(seen) else None
            if not isinstance(echo, (list, tuple)) or not echo or entry.seq >= echo[0]:
                return True
    return False

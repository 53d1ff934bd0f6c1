"""The one verdict on a stall: a wait on a seat ended without what it owed; whom that names
(protocol/table.md section 5, "Timeouts, absence and blame" and "Stops in the transcript").

Sans-IO and pure. The live table (:class:`p2pcards.table.referee.Wait`, when a deck step's or a
turn's wait runs out) and ``p2pcards verify`` (:mod:`p2pcards.verify.stops` and the replay, when
a transcript stops where a seat owed an entry) each gather the facts they can see into
:class:`StallFacts` and call :func:`decide`, so that both name the same seat for the same
reason, in the same words. A fact one side cannot know it leaves at its "not known" value; the
rule never names a seat on a fact it was not given. In order:

1. a seat that signed a ``bye`` left, and the game stopped for that: its author is named;
1b. a seat signed a ``bye``, but another seat's ``stop`` entry does not count it (that seat's
   game had stopped without it: :func:`p2pcards.table.verdict.goodbye_overtaken`): nobody
   (verify only; a live seat acts on a goodbye only before its own stop);
2. the waited-on seat's entries are here but wait for entries of other seats that never came
   (its echo counts entries never signed, or they were withheld from us): nobody;
3. its ``stop`` (or last) entry's head echo shows it never received an entry the game had
   reached, or one that an entry the game used had seen: nobody (withheld from it alone,
   echoed without being signed, or a link: nobody can tell which);
4. it stated a follower absent and waits for the other seats' statements on whether that
   follower's move stands, and some have not stated: nobody (withheld, or a link);
4b. it is a follower that some seat stated absent at the turn waited on, and not every other
   seat has: the statements decide whether its move stands or it is passed for, and they did
   not all come: nobody (section 9; the seat that stated stops naming nobody, and whether the
   follower left or a statement was withheld or lost, nothing signed tells apart);
4c. another seat stated a follower absent and waits for the statements on whether its move
   stands, and the waited-on seat's statement is one that never came: nobody (that seat's
   game stopped on them, naming nobody; verify only, as a file does not say which seat wrote
   it, and a seat that stalled after it is then named by nobody rather than by some files);
5. its ``stop`` entry was the first thing it signed after private deck entries to it (a box
   only it can open, and one that does not open proves nothing to anyone): nobody (the live
   table names nobody for a stop either; only the receiver names the sender);
6. its own ``links`` notice says it waits on a seat away from it, or on a seat's statement,
   past the wait's last call (live only; a file holds no notices): nobody, as its word cannot
   name anyone and a link cannot be told from a stall (once its stop comes, verify of our file
   may bear the word out and name a seat it named: net/table._judge_the_stopper);
6b. it signed a ``stop`` where it owed (its own game stopped: a plugin that failed at that seat
   only, say): it is named, as the seat whose game ended this one, with its stop's words shown
   as its words, not as one that stalled (verify only: live, a seat we wait on that stops ends
   our wait on its stop, and its file's verdict is then taken: net/table._judge_the_stopper);
7. otherwise it stalled: it is named ("did not move in time", "did not send its deck message
   in time"; for the opening of a sealed free-order response, which its client signs by
   itself once the round is sealed, "withheld the opening": protocol/table.md section 9).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from . import verdict

__all__ = ["Stall", "StallFacts", "Statements", "StoppedOnPrivate", "Unreceived", "decide"]


@dataclass(frozen=True)
class Unreceived:
    """The waited-on seat's ``stop`` entry (``stop``; else its last signed entry), number
    ``last``, has a head echo that counts fewer than ``entry + 1`` entries of seat ``other``:
    it never received ``other``'s entry #``entry``, which the game had reached (``seen_by``
    ``None``) or which entry #``seen_by[1]`` of seat ``seen_by[0]``, used by the game, had seen
    (an entry is handed on only after what its author had seen)."""

    other: int
    entry: int
    last: int
    stop: bool = True
    seen_by: tuple[int, int] | None = None


@dataclass(frozen=True)
class Statements:
    """The waited-on seat stated ``follower`` absent at ``turn`` and waits for the other
    seats' statements on it; ``missing``: the seats (other than the follower) that have not
    stated, as far as this side holds."""

    turn: int
    follower: int
    missing: frozenset[int]


@dataclass(frozen=True)
class StoppedOnPrivate:
    """The waited-on seat's ``stop`` entry, number ``stop``, was the first thing it signed
    after the private deck entries ``entries`` to it, as (sender, seq)
    (:func:`p2pcards.table.verdict.stopped_on_private`)."""

    stop: int
    entries: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class StallFacts:
    """What one side knows when its wait on ``seat`` ended without ``what`` it owed.

    ``phase``: ``"deck"`` (a deck message), ``"turn"`` (a move) or ``"open"`` (the opening of
    its sealed response to a free-order round). The other fields are the
    facts of the rules above, each at its "not known / none" value by default:
    ``goodbye``: ``(author, body)`` of a signed ``bye`` entry; ``held_back``: the seats whose
    entries its entries here wait for; ``unreceived``, ``statements``: as their classes say;
    ``waits_on``: what its fresh ``links`` notice says it waits on, as ``(seat, why)`` with
    ``why`` ``"away"`` or ``"statements"`` (``None``: no notice is known, as in a file)."""

    seat: int
    phase: str
    what: str
    goodbye: tuple[int, Any] | None = None
    held_back: frozenset[int] = frozenset()
    unreceived: Unreceived | None = None
    statements: Statements | None = None
    waits_on: tuple[tuple[int, str], ...] | None = None
    stopped_on_private: StoppedOnPrivate | None = None
    #: The statements about the waited-on seat's own move (``follower`` is ``seat``) at the
    #: turn waited on: some seat stated it absent; ``missing``: the other seats that have not.
    statements_on_it: Statements | None = None
    #: ``(waiting, statements)``: seat ``waiting`` stated ``statements.follower`` absent and
    #: waits on the statements, and the waited-on seat is among ``statements.missing``.
    statement_owed: tuple[int, Statements] | None = None
    #: ``(author, bye seq, stopper, stop seq)``: a signed ``bye`` that a ``stop`` entry of
    #: another seat does not count (``goodbye`` is then None).
    goodbye_overtaken: tuple[int, int, int, int] | None = None
    #: ``(seq, reason)``: the waited-on seat's own ``stop`` entry, signed where it owed (its
    #: game stopped instead of going on); ``reason`` as it wrote it (its words).
    own_stop: tuple[int, str] | None = None


@dataclass(frozen=True)
class Stall:
    """The verdict: the seat named (``None``: nobody) and why, in the one wording."""

    seat: int | None
    reason: str


def _list(names: Sequence[str], seats: Collection[int]) -> str:
    return ", ".join(names[s] for s in sorted(seats))


def decide(facts: StallFacts, names: Sequence[str]) -> Stall:
    """Whom a wait on ``facts.seat`` that ended names, and why (the rules of the module)."""
    if facts.phase not in ("deck", "turn", "open"):
        raise ValueError(f"no stall of phase {facts.phase!r}")
    seat = facts.seat
    name = names[seat]
    if facts.goodbye is not None:
        author, body = facts.goodbye
        return Stall(author, verdict.goodbye(names[author], body))
    if facts.goodbye_overtaken is not None:
        author, bye, stopper, stop = facts.goodbye_overtaken
        return Stall(None, verdict.goodbye_overtaken_reason(names[author], bye, names[stopper], stop))
    if facts.held_back:
        return Stall(
            None,
            f"{name}'s entries are here but wait for entries of {_list(names, facts.held_back)} that never "
            f"came: its echo counts entries never signed, or they were withheld from this seat; "
            f"nobody can tell which",
        )
    if facts.unreceived is not None:
        u = facts.unreceived
        if u.seen_by is None:
            why = "which the game had reached"
        else:
            by, number = u.seen_by
            why = (
                f"which {names[by]}'s entry #{number}, used by the game, had seen "
                f"(an entry is handed on only after what its author had seen)"
            )
        return Stall(
            None,
            f"the game waited on {name}, but its "
            f"{'stop' if u.stop else 'last signed'} entry (#{u.last}) shows it never received "
            f"{names[u.other]}'s entry #{u.entry}, {why}: it may have been withheld from {name} "
            f"alone, echoed without being signed, or a link failed; nobody can tell which",
        )
    if facts.statements is not None and facts.statements.missing:
        s = facts.statements
        return Stall(
            None,
            f"the game waited on {name}, but {name} had stated "
            f"{names[s.follower]} absent at turn {s.turn} and waits for the other seats' "
            f"statements on whether its move stands, and {_list(names, s.missing)} never signed "
            f"theirs (withheld, or a link failed: nobody can tell which)",
        )
    if facts.statements_on_it is not None:
        s = facts.statements_on_it
        missing = f" (missing: {_list(names, s.missing)})" if s.missing else ""
        return Stall(
            None,
            f"the statements on whether {names[s.follower]}'s move for turn {s.turn} stands did not all come{missing}",
        )
    if facts.statement_owed is not None:
        waiting, s = facts.statement_owed
        return Stall(
            None,
            f"the game waited on {name}, but {names[waiting]} had stated {names[s.follower]} "
            f"absent at turn {s.turn} and waits for the statements on whether its move stands, "
            f"and {_list(names, s.missing)} never signed theirs (withheld, or a link failed: "
            f"nobody can tell which)",
        )
    if facts.stopped_on_private is not None:
        p = facts.stopped_on_private
        listed = [(names[sender], seq) for sender, seq in p.entries]
        return Stall(None, verdict.stopped_on_private_reason(name, facts.what, p.stop, listed))
    if facts.waits_on:
        other, why = facts.waits_on[0]
        what = "is away from it" if why == "away" else "has not stated"
        return Stall(None, f"{name} waits on {names[other]}, who {what} (its own word), past the last call")
    if facts.own_stop is not None:
        number, words = facts.own_stop
        owed = {"turn": "move", "open": "opening"}.get(facts.phase, "deck message")
        return Stall(
            seat,
            f"{name} stopped its own game where it owed its {owed} (its stop entry #{number}; "
            f"it said: {verdict.peer_words(words)})",
        )
    if facts.phase == "turn":
        return Stall(seat, f"{name} did not move in time")
    if facts.phase == "open":
        return Stall(seat, verdict.withheld_opening(name, facts.what))
    return Stall(seat, f"{name} (seat {seat}) did not send its deck message in time ({facts.what})")

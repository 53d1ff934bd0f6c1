"""Why an unfinished game stopped where its signed entries end, and which seat, if any, that
names: a seat that stalled at its turn, moved out of turn, signed a goodbye, was accused, or
withheld a message; never a seat whose stop the signed entries excuse."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..deck.group import is_valid_point
from ..table import stall, verdict
from ..table.dropouts import is_drop_out_entry
from ..table.stall import StallFacts, Statements, StoppedOnPrivate, Unreceived
from ..wire.messages import Entry
from ..wire.sealed import recipients
from .replay import Replay, SeatEntries, provable_accusation, public_message
from .report import Failed, Stopped


def after_stop(replay: Replay, seats: Sequence[SeatEntries], stop: Stopped) -> None:
    """Where the signed entries end: judge the accusations signed after what the replay used,
    and moves signed for a turn that was not the signer's."""
    for mine in seats:
        for entry in mine.deck[mine.next_deck :]:
            if public_message(entry, "accuse"):
                replay.judge(mine.seat, entry)
    out_of_turn(replay, seats)
    # Kept aside until their operation: judged if the replay reached it.
    for accuser, entry in replay.kept_aside:
        replay.judge(accuser, entry)


def out_of_turn(replay: Replay, seats: Sequence[SeatEntries]) -> None:
    # Whose move the game waited for: one seat, or any seat of a free-order round (its
    # responses are read in seat order, so a later seat's may wait unread).
    to_move = (replay.pending_round or {replay.pending[1]}) if replay.pending is not None else set()
    for mine in seats:
        mine.skip_void()
        for entry in mine.actions[mine.next_action :]:
            turn = entry.body.get("turn") if isinstance(entry.body, dict) else None
            if not isinstance(turn, int) or isinstance(turn, bool):
                raise Failed(f"log #{entry.seq} of seat {mine.seat}", "malformed action entry", mine.seat)
            if turn < replay.turn or (turn == replay.turn and to_move and mine.seat not in to_move):
                raise Failed(
                    f"turn {turn} (log #{entry.seq} of seat {mine.seat})",
                    "a move signed for a turn that was not its own (out of turn)",
                    mine.seat,
                )


def signed_goodbye(log: Any, names: Sequence[str]) -> Failed | None:
    """A seat that signed a ``bye`` entry left the table before the end (protocol/table.md
    section 5): the game stopped because of it, whoever it was waiting for. Only a goodbye a
    seat could act on counts (``Log.closed``: one whose echo counts entries the file lacks
    waited, unread, for what never came, as the table holds it: issue 28); and only if no other
    seat's ``stop`` entry shows that seat stopped without it (then nobody is named:
    :func:`p2pcards.table.verdict.goodbye_overtaken`)."""
    found = _goodbye_entry(log)
    if found is None:
        return None
    entry, overtaken = found
    step = f"bye entry of seat {entry.sender} (log #{entry.seq})"
    if overtaken is not None:
        stopper, stop = overtaken
        reason = verdict.goodbye_overtaken_reason(names[entry.sender], entry.seq, names[stopper], stop)
        return Failed(step, reason)
    return Failed(step, verdict.goodbye(names[entry.sender], entry.body), entry.sender)


def _goodbye_entry(log: Any) -> tuple[Any, tuple[int, int] | None] | None:
    """The first signed ``bye`` entry a seat could act on, and the other seat's ``stop`` that
    does not count it, if any."""
    if log is None:
        return None
    dropped: set[int] = set()  # seats whose drop-out move came first: their goodbye ends nothing
    entry = None
    for e in log.closed():
        if is_drop_out_entry(e):
            dropped.add(e.sender)
        elif e.kind == "bye" and e.sender not in dropped:
            entry = e
            break
    if entry is None:
        return None
    stops = [(e.sender, e.seq, e.body["seen"][entry.sender][0]) for e in log.closed() if e.kind == "stop"]
    return entry, verdict.goodbye_overtaken(entry.sender, entry.seq, stops)


def stall_verdict(replay: Replay, stop: Stopped) -> Failed:
    """The game stopped waiting for ``stop.seat``: whom the transcript names, by the one stall
    verdict (p2pcards/table/stall.py) on the facts the transcript shows: a signed goodbye; the
    echo of the waiting seat's ``stop`` entry (if it stopped); the absent statements it waits
    on. It holds no ``links`` notices: that fact is left unknown."""
    facts = StallFacts(
        stop.seat,
        "turn" if stop.step.startswith("turn") else "open" if stop.step.startswith("opening") else "deck",
        stop.what,
        goodbye=_goodbye(replay.log),
        goodbye_overtaken=_overtaken(replay.log),
        unreceived=_unreceived(replay, stop.seat),
        statements=_awaited_statements(replay, stop.seat),
        stopped_on_private=_stopped_on_private(replay, stop.seat),
        statements_on_it=statements_on(replay, stop),
        statement_owed=statement_owed(replay, stop.seat),
        own_stop=_own_stop(replay, stop.seat),
    )
    found = stall.decide(facts, replay.names)
    if facts.goodbye is not None:
        author = facts.goodbye[0]
        bye = next(e for e in replay.log.entries(author) if e.kind == "bye")
        return Failed(f"bye entry of seat {author} (log #{bye.seq})", found.reason, found.seat)
    return Failed(stop.step, found.reason, found.seat, waited_on=stop.seat)


def _goodbye(log: Any) -> tuple[int, Any] | None:
    """``(author, body)`` of the first signed ``bye`` entry a seat could act on, if no other
    seat's ``stop`` shows it stopped without it."""
    found = _goodbye_entry(log)
    if found is None or found[1] is not None:
        return None
    return found[0].sender, found[0].body


def _overtaken(log: Any) -> tuple[int, int, int, int] | None:
    """That goodbye's ``(author, seq)`` and the ``(stopper, seq)`` of a ``stop`` that does
    not count it."""
    found = _goodbye_entry(log)
    if found is None:
        return None
    entry, overtaken = found
    if overtaken is None:
        return None
    stopper, stop = overtaken
    return entry.sender, entry.seq, stopper, stop


def _unreceived(replay: Replay, seat: int) -> Unreceived | None:
    """A waiting seat that stopped (it signed its ``stop`` or ``bye``, as every seat does when
    its game stops): what its head echo shows it never received, an entry the game had reached
    or an entry that one the game used had seen (a seat hands an entry on only after
    everything its author had seen, protocol/table.md section 4). Its echo is that of its stop
    entry, if it signed one after what the game used of it (what reached it after that it no
    longer acted on), else of its last stop or bye."""
    log = replay.log
    endings = [e for e in log.entries(seat) if e.kind in ("stop", "bye")] if log is not None else []
    if log is None or not endings:
        return None
    last = endings[-1]
    used = _used(replay)
    after = max((e.seq for e in used if e.sender == seat), default=-1)
    last = next((e for e in log.entries(seat) if e.seq > after and e.kind == "stop"), last)
    for other in range(len(replay.seats)):
        if other == seat:
            continue
        had = last.body["seen"][other][0]
        reached = max((e.seq for e in used if e.sender == other), default=-1) + 1
        if had < reached:
            return Unreceived(other, reached - 1, last.seq, last.kind == "stop")
        echo = max(used, key=lambda e: e.body["seen"][other][0], default=None)
        if echo is None or had >= echo.body["seen"][other][0]:
            continue
        count = echo.body["seen"][other][0]
        return Unreceived(other, count - 1, last.seq, last.kind == "stop", (echo.sender, echo.seq))
    return None


def _own_stop(replay: Replay, seat: int) -> tuple[int, str] | None:
    """The waited-on seat's ``stop`` entry, signed after everything the game used of it (it
    stopped its game where it owed), with its reason as it wrote it."""
    log = replay.log
    if log is None:
        return None
    after = max((e.seq for e in _used(replay) if e.sender == seat), default=-1)
    stop = next((e for e in log.entries(seat) if e.seq > after and e.kind == "stop"), None)
    if stop is None:
        return None
    reason = stop.body.get("reason")
    return stop.seq, reason if isinstance(reason, str) else "no reason given"


def _used(replay: Replay) -> list[Entry]:
    """Every entry the replay used: deck messages, moves, openings and absent statements."""
    return [
        e
        for mine in replay.seats
        for e in mine.deck[: mine.next_deck] + mine.actions[: mine.next_action] + mine.opens[: mine.next_open]
    ] + replay.statements_used


def _stopped_on_private(replay: Replay, seat: int) -> StoppedOnPrivate | None:
    """Its ``stop`` entry was the first thing it signed after private deck entries to it
    (p2pcards.table.verdict.stopped_on_private): which, with the stop's number."""
    log = replay.log
    entries = log.entries(seat) if log is not None else []
    stop_entry = next((e for e in reversed(entries) if e.kind == "stop"), None)
    if stop_entry is None:
        return None
    players = len(replay.seats)
    mine = [e for e in entries if e.seq < stop_entry.seq]
    before = [mine[-1].body["seen"][s][0] for s in range(players)] if mine else [0] * players
    after = [stop_entry.body["seen"][s][0] for s in range(players)]
    private = [
        (e.sender, e.seq, set(recipients(e.body)))
        for other in range(players)
        if other != seat
        for e in log.entries(other)
        if e.kind == "deck" and recipients(e.body)
    ]
    found = verdict.stopped_on_private(before, after, private, seat)
    return StoppedOnPrivate(stop_entry.seq, tuple(found)) if found else None


def _awaited_statements(replay: Replay, seat: int) -> Statements | None:
    """The waiting seat stated a follower absent at a turn that the game then went past on that
    follower's own move, and the other seats' statements on it are not all in the transcript:
    a seat that has stated acts on that move only once the statements decide whether it
    stands (protocol/table.md section 9), so it is still waiting on them."""
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
            missing = replay.absences.missing(turn, other)
            return Statements(turn, other, frozenset(missing))
    return None


def statements_on(replay: Replay, stop: Stopped) -> Statements | None:
    """The game stopped waiting for ``stop.seat``'s move at the turn the replay is at, and
    some seat stated it absent for that turn, but not every other seat: the statements were
    to decide whether its move stands or it is passed for (protocol/table.md section 9), and
    the seats that stated waited on them."""
    if replay.pending is None or not stop.step.startswith("turn"):
        return None
    turn, seat = replay.pending
    if seat != stop.seat:
        return None
    stated = replay.absences.stated(turn, seat)
    if not stated:
        return None
    missing = replay.absences.missing(turn, seat)
    return Statements(turn, seat, frozenset(missing)) if missing else None


def statement_owed(replay: Replay, seat: int) -> tuple[int, Statements] | None:
    """Another seat stated a follower absent, read its move while the statements were open,
    and waits on them still (:func:`_awaited_statements`), and ``seat``'s statement is among
    those never signed: ``(that seat, the statements)``. That seat's game stopped on them,
    naming nobody (a statement withheld or lost on a link), whatever ``seat`` did next."""
    for other in range(len(replay.names)):
        if other == seat:
            continue
        waits = _awaited_statements(replay, other)
        if waits is not None and seat in waits.missing:
            return other, waits
    return None


def _still_at(replay: Replay, statement: Entry, turn: int, follower: int) -> bool:
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


def stopped_by_accusation(seats: Sequence[SeatEntries], step: str, cards: int) -> None:
    """A table stops on a signed accusation: when the transcript cannot judge it, the seat the
    replay was waiting for is not at fault for not going on. One that every seat judges as it
    arrives without any seed (provable_accusations) names whom the table named, wherever it
    comes among them."""
    provable_accusations(seats, cards)
    for mine in seats:
        for entry in mine.deck:
            if public_message(entry, "accuse"):
                raise Failed(
                    step,
                    f"the game stopped after seat {mine.seat}'s signed accusation "
                    f"(log #{entry.seq}), which the transcript cannot judge (not every "
                    f"seed is revealed, or it concerns a step not replayed)",
                )


def provable_accusations(seats: Sequence[SeatEntries], cards: int) -> None:
    """The signed accusations that every seat judges as it arrives, without any seed
    (p2pcards.deck.judge: its form, a finished hand, a public message judged on the copy its
    echo counts), name whom the table named. ``cards``: the size of the deck."""
    for mine in seats:
        for entry in mine.deck:
            if public_message(entry, "accuse"):
                verdict = provable_accusation(seats, mine, entry, cards)
                if verdict is not None:
                    raise verdict


def invalid_public_points(seats: Sequence[SeatEntries]) -> None:
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
                raise Failed(
                    f"deck, {msg['type']} message of operation {msg.get('op')} (log #{entry.seq} of seat {mine.seat})",
                    f"invalid point at position {bad}: not a point of "
                    f"the prime-order group, which no honest seat ever sends",
                    mine.seat,
                )


def stopped_while_others_did_not(replay: Replay, seat: int, unstopped: Sequence[int]) -> bool:
    """The facts of :func:`p2pcards.table.verdict.stop_excused_by_unstopped` from the
    transcript: did ``seat`` sign a ``stop`` past everything the game used of it?"""
    mine = replay.seats[seat]
    if replay.log is None:
        return False
    used = max((e.seq for e in mine.deck[: mine.next_deck] + mine.actions[: mine.next_action]), default=-1)
    after = any(e.kind == "stop" and e.seq > used for e in replay.log.entries(seat))
    return verdict.stop_excused_by_unstopped(seat, after, unstopped)

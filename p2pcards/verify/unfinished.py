"""The checks of a game that did not finish (aborted, abandoned), and the parts every
transcript gets: provable blames, statements of absence, and the replay as far as the signed
entries go (:func:`verify_unfinished`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..game import Game
from ..table import rounds, verdict
from ..table.absence import absent_body
from ..table.header import TableHeader
from ..wire.errors import ProtocolError
from ..wire.log import Blame
from ..wire.transcript import Transcript
from .replay import Replay, SeatEntries, public_message
from .report import Failed, NotStarted, Report, Watch
from .seedless import check_deck_ends, public_moves, public_setup
from .stops import invalid_public_points, provable_accusations


def check_blames(transcript: Transcript, log: Any, lobby: TableHeader) -> None:
    """The provable blames: the file's blame records and every seat's signed ``blame``
    entries (wire.md section 7). A proven one names its seat; a signed one that proves nothing
    names its signer."""
    for blame in transcript.blames:
        # The blame record is not signed: only its evidence can name a seat.
        proven = blame.provable and blame.verify(lobby.table, log.roster, log)
        raise Failed(
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
            raise Failed(
                f"{step} ({blame.code})", f"{blame.reason} (proven by the signed evidence it publishes)", blame.seat
            )
        raise Failed(step, "it publishes evidence that proves nothing", entry.sender)


def check_after_stops(log: Any, names: Sequence[str]) -> None:
    """From its ``stop`` entry on, a seat signs no move, result or deck step (protocol/table.md
    section 5): one it did sign is its fault, proven by its own chain, and
    it may have made another seat's wait look like a stall (the seats that stopped for it had
    stopped acting). The rule is the table's (:func:`p2pcards.table.verdict.played_after_stop`),
    which a live seat that stopped naming nobody applies to its log too."""
    found = verdict.played_after_stop(len(names), log.entries)
    if found is not None:
        raise Failed(f"log #{found.seq} of seat {found.seat}", found.reason(names[found.seat]), found.seat)


def check_openings(log: Any, names: Sequence[str]) -> None:
    """An ``open`` entry that no commitment of its author awaits (protocol/table.md section
    9) is one the protocol never called for: its signer is named, as every seat names it the
    moment it is logged (the table's rule, :class:`p2pcards.table.rounds.OpeningsDue`)."""
    due = rounds.OpeningsDue()
    for entry in log.canonical():
        problem = due.note(entry)
        if problem is not None:
            raise Failed(f"log #{entry.seq} of seat {entry.sender}", f"{names[entry.sender]} {problem}", entry.sender)


def check_absent_entries(log: Any, names: Sequence[str]) -> None:
    """An ``absent`` statement (protocol/table.md section 9) names a turn and another seat."""
    for entry in log.canonical():
        if entry.kind == "absent" and absent_body(entry.body, len(names), entry.sender) is None:
            raise Failed(f"log #{entry.seq} of seat {entry.sender}", "malformed absent entry", entry.sender)


def verify_unfinished(
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
    reported as what the table recorded, never taken as proof. No seed is revealed (protocol
    version 12): the replay follows what the table saw."""
    end = transcript.end
    assert end is not None, "read_log refuses a transcript without its end record"
    recorded = f"the table recorded: {end.status}"
    if end.absent:
        recorded += f", absent: {', '.join(report.name(s) for s in end.absent)}"
    if end.note:
        recorded += f" ({end.note})"
    report.notes.append(recorded + " (the end record is not signed: information only)")
    delivered = _delivered(log, lobby.players)
    seats = [SeatEntries(s, log.entries(s), delivered[s]) for s in range(lobby.players)]
    invalid_public_points(seats)
    # What every seat checks as a public deck message arrives (its type, the commitment, the
    # nonce): a message that fails names its signer, wherever the replay stops.
    public_setup(log, lobby, game)
    provable_accusations(seats, len(game.deck(lobby.options, lobby.players)))
    replay = Replay(game, lobby.options, names, seats, log=log, unfinished=True, watch=watch)
    # Every seat signs its ``stop`` (or ``bye``) when its game stops (protocol/table.md section
    # 5; since protocol version 12 no seed follows it), or its result: the seats that signed
    # none are gone, or cut off from the seat that wrote this file. A seat that dropped out
    # stops nothing.
    unstopped = [
        s
        for s in range(lobby.players)
        if s not in replay.absences.gone and not verdict.ended_its_game(e.kind for e in log.entries(s))
    ]
    ended = public_moves(replay, lobby, game, report, unrevealed=unstopped)
    left = [e for mine in seats for e in mine.deck[mine.next_deck :]]
    if ended is not None and not any(public_message(e, "accuse") for e in left):
        # The signed moves reach the game's end (it stopped at the end-of-game checks): a deck
        # entry past the last operation is judged as in a finished game, as every seat judged
        # it there (a private box the protocol never called for, protocol/deck.md section 7).
        check_deck_ends(replay, seats)
    silent = [s for s in range(lobby.players) if not log.entries(s)]
    if silent:
        # Seats that signed nothing never joined the game: their programs could not connect
        # to every seat (a seat cut off, or one the others could not reach) or stopped
        # before the first step. Not that they left: nobody is to blame.
        shown = [names[s] for s in silent]
        who = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"
        raise NotStarted(
            "end record",
            f"{who} signed nothing at this table (could not connect to every seat, or stopped "
            f"before the first step): the game never started; nobody is to blame",
        )
    raise Failed(
        "end record",
        f"{end.status}; not verified: the game did not finish, and the transcript proves no fault by any seat",
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

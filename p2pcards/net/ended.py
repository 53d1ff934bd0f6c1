"""A saved seat whose game cannot go on: told from its journal, closed, and its folder removed.

A seat's folder (:mod:`.store`) stays on disk while its game may still go on, so that
``p2pcards resume`` can bring the seat back. Its journal alone shows when the game cannot go on:

* it already has its end record (the program stopped after closing it, before removing the
  folder);
* this seat signed its ``result`` (its game finished; ``resume`` still goes back to the table
  first, to exchange the results: ``GameOver.exchange_results``), a ``bye`` (its player left: the others
  end the game when they get it, and a seat signs nothing after its ``bye``) or a ``stop`` (its
  game stopped: it signs no move or deck step after it);
* another seat's signed ``bye`` is in it: that ends the game at every seat (protocol/table.md
  section 5), unless that seat had dropped out before it (section 4: its goodbye ends nothing).

Another seat's ``stop`` alone is not enough (a seat not waiting on the stopper plays on until it
needs it): such a seat is resumed, and the other seats' answers decide (:mod:`.table`).

:func:`close_ended_seat` writes the final transcript from the journal, as the seat would have at
the end, and removes the folder. Nothing here does network IO.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..table import verdict
from ..table.dropouts import is_drop_out_entry
from ..wire.messages import Entry
from ..wire.transcript import (
    Transcript,
    TranscriptEnd,
    TranscriptWriter,
    read_transcript,
    write_transcript,
)
from .store import SeatLock, journal_path, load_seat_state, remove_seat_folder

__all__ = ["GameOver", "close_ended_seat", "ended_game", "game_over_in", "transcript_stem"]


@dataclass(frozen=True)
class GameOver:
    """Why a saved seat's game cannot go on (``reason``, for people) and its transcript's end."""

    reason: str
    end: TranscriptEnd
    #: Our game finished (our result is signed) but the journal has no end record: the others
    #: may still wait for our result (it may not have left this program before a crash) and we
    #: for theirs. ``resume`` goes back to the table to exchange them, and closes the seat from
    #: its journal at once only if nobody answers.
    exchange_results: bool = False


def transcript_stem(table: bytes, seat: int) -> str:
    """The file name (without ``.p2pt``) of a seat's transcript: the same as the seat's folder."""
    return f"{table.hex()[:12]}-seat{seat}"


def _reason(body: object) -> str:
    reason = body.get("reason") if isinstance(body, dict) else None
    return " ".join(reason.split())[:300] if isinstance(reason, str) and reason.strip() else "no reason given"


def ended_game(entries: Sequence[Entry], me: int, names: Sequence[str]) -> GameOver | None:
    """What ``entries`` (a seat's journal, or its log) show about the end of its game, for seat
    ``me``; ``None`` if the game may still go on. (No deck seed goes in its end record: none is
    revealed since protocol version 12.)"""
    own = [e for e in entries if e.sender == me]
    for entry in own:
        if entry.kind == "result":
            body = entry.body if isinstance(entry.body, dict) else {}
            return GameOver(
                "the game is over: this seat already has its result",
                TranscriptEnd("finished", body.get("result")),
                exchange_results=True,
            )
    for entry in own:
        if entry.kind == "bye":
            why = _reason(entry.body)
            return GameOver(
                f"you left this game ({why}): it ended for everyone at the table",
                TranscriptEnd("abandoned", None, (me,), f"{names[me]} left the table: {why}"[:1000]),
            )
        if entry.kind == "stop":
            why = _reason(entry.body)
            return GameOver(f"this seat's game had stopped: {why}", TranscriptEnd("aborted", None, (), why[:1000]))
    dropped = {e.sender: e.seq for e in reversed(entries) if is_drop_out_entry(e)}  # (the first of each)
    for entry in entries:
        if entry.kind == "bye" and entry.seq > dropped.get(entry.sender, entry.seq):
            continue  # a seat that dropped out: its goodbye ends nothing (table.md section 4)
        if entry.kind == "bye" and entry.sender != me and 0 <= entry.sender < len(names):
            text = verdict.goodbye(names[entry.sender], entry.body)
            return GameOver(
                f"the game has ended: {text}", TranscriptEnd("abandoned", None, (entry.sender,), text[:1000])
            )
    return None


def _read_journal(folder: Path) -> Transcript:
    return read_transcript(journal_path(folder), allow_torn=True, verify=True)


def game_over_in(folder: Path) -> GameOver | None:
    """Whether the game saved in ``folder`` cannot go on, from its journal alone. Raises
    :class:`OSError`, :class:`ValueError` (a damaged file) or :class:`KeyError` as
    :func:`~.store.load_seat_state` does."""
    state = load_seat_state(folder)
    journal = _read_journal(folder)
    names = journal.header.names
    if journal.end is not None:
        return GameOver("the game has ended: its journal is closed", journal.end)
    return ended_game(journal.entries, state.seat, names)


def close_ended_seat(folder: Path, over: GameOver, transcript_dir: Path | None, *, locked: bool = False) -> Path | None:
    """Write the final transcript of the ended game saved in ``folder`` (in ``transcript_dir``,
    unless one is there already) and remove the folder. Returns the transcript's path (``None``
    without ``transcript_dir``: then the folder stays, its journal closed). Raises
    :class:`~.store.SeatInUse` if a program plays the seat now (``locked``: the caller holds
    the seat's lock)."""
    lock = None if locked else SeatLock(folder)
    try:
        state = load_seat_state(folder)
        journal = _read_journal(folder)
        if journal.end is None:
            writer, journal = TranscriptWriter.resume(journal_path(folder))
            with writer:
                writer.write_end(over.end)
        if transcript_dir is None:
            return None
        transcript_dir.mkdir(parents=True, exist_ok=True)
        path = transcript_dir / f"{transcript_stem(state.table, state.seat)}.p2pt"
        if not path.exists():
            log = journal.log()
            entries = log.closed() if over.end.status == "finished" else log.canonical()
            write_transcript(path, journal.header, entries, [*journal.blames, *log.blames], over.end)
        remove_seat_folder(folder)
        return path
    finally:
        if lock is not None:
            lock.release()

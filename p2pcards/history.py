"""The game history: every finished table, recorded from its transcript in an SQLite database.

The database is ``history.sqlite3`` in the user's data folder
(:func:`~p2pcards.wire.identity.data_dir`). A game is recorded from its transcript file alone,
read and verified as ``p2pcards verify`` does (:func:`~p2pcards.verify.verify_file`), so the
record says what ``verify`` says: the table and game, options, every player by name and key
fingerprint, how the table ended, the result, the verdict (with the failed step and the seat to
blame) and where the transcript is. One row per table and seat of ours: recording a transcript
again updates its row (a game not installed at the first check may verify later).

Two programs sharing a data folder may record at once: the database is in WAL mode, every
write is one short ``BEGIN IMMEDIATE`` transaction, and a writer waits for the other
(:data:`BUSY_SECONDS`) instead of failing. The schema has a version (``PRAGMA user_version``)
and upgrades itself step by step (:data:`MIGRATIONS`); a database from a newer program is
refused, never changed. Recording at the end of a game (:func:`record_finished_game`) never
raises: a damaged database costs a warning, never the game.

A game played here is recorded the moment it ends, from what the seat established live (every
proof and signature was checked as it arrived): its header and end record, with the verdict
``pending`` (:data:`PENDING`), which says the transcript has not been fully verified yet. The
full verification of a long match takes seconds of CPU, which neither the end screen nor the
next game (a rematch) should wait on or share the machine with, so it runs at the next
``p2pcards history`` (:func:`verify_pending`, with its progress shown), which replaces the
verdict with what ``verify`` says.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .text import name_seats, printable

__all__ = [
    "DB_FILE",
    "SCHEMA_VERSION",
    "GameRecord",
    "History",
    "HistoryError",
    "PlayerRecord",
    "PENDING",
    "read_record",
    "record_finished_game",
    "record_transcript",
    "verify_pending",
]

DB_FILE = "history.sqlite3"
#: How long a write waits for another program's transaction on the same database.
BUSY_SECONDS = 15.0
#: ``our_seat`` of a table we did not play at (a transcript someone else gave us).
NOT_OURS = -1
#: The verdict of a game recorded as it ended, from what its seat checked live, whose
#: transcript :func:`verify_pending` has not fully verified yet.
PENDING = "pending"

#: Statements that take the schema from version ``i`` to ``i + 1`` (``MIGRATIONS[i]``), run in
#: one transaction with the new ``user_version``. Append; never change a released step.
MIGRATIONS: list[tuple[str, ...]] = [
    (
        """CREATE TABLE games (
            id INTEGER PRIMARY KEY,
            table_id TEXT NOT NULL,          -- the whole table id, hex
            our_seat INTEGER NOT NULL,       -- the seat we played, -1: not at this table
            game TEXT NOT NULL,              -- game id
            game_name TEXT NOT NULL,
            rules TEXT NOT NULL,             -- rules version
            options TEXT NOT NULL,           -- JSON object
            status TEXT NOT NULL,            -- finished, aborted or abandoned (the end record)
            result TEXT,                     -- JSON {winners, scores, summary, details} or NULL
            verdict TEXT NOT NULL,           -- verified, failed, left, plugin-failed, unreadable or pending
            problem_step TEXT,
            problem_reason TEXT,
            blamed_seat INTEGER,
            ended_at REAL NOT NULL,          -- when the transcript was written (Unix time)
            recorded_at REAL NOT NULL,
            transcript TEXT NOT NULL,        -- absolute path when recorded
            UNIQUE (table_id, our_seat)
        )""",
        """CREATE TABLE players (
            game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            seat INTEGER NOT NULL,
            name TEXT NOT NULL,
            key TEXT NOT NULL,               -- Ed25519 public key, hex
            fingerprint TEXT NOT NULL,       -- as 'p2pcards verify' shows it
            won INTEGER,                     -- 1 or 0 with a result, else NULL
            score REAL,
            PRIMARY KEY (game, seat)
        )""",
        "CREATE INDEX games_by_end ON games (ended_at)",
        "CREATE INDEX players_by_key ON players (key)",
    ),
]
SCHEMA_VERSION = len(MIGRATIONS)


class HistoryError(Exception):
    """The history database or a transcript cannot be used; the message says why."""


@dataclass(frozen=True)
class PlayerRecord:
    seat: int
    name: str
    key: str  # hex
    fingerprint: str
    won: bool | None = None
    score: float | None = None


@dataclass
class GameRecord:
    """One table as its transcript and ``verify`` describe it."""

    table_id: str
    our_seat: int | None
    game: str
    game_name: str
    rules: str
    options: dict[str, Any]
    players: list[PlayerRecord]
    status: str
    result: dict[str, Any] | None
    verdict: str
    problem_step: str | None = None
    problem_reason: str | None = None
    blamed_seat: int | None = None
    ended_at: float = 0.0
    transcript: str = ""
    recorded_at: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        """The record as :meth:`History.games` gives it back."""
        return {
            "table": self.table_id,
            "game": {"id": self.game, "name": self.game_name, "rules": self.rules},
            "options": self.options,
            "our_seat": self.our_seat,
            "players": [
                {
                    "seat": p.seat,
                    "name": p.name,
                    "fingerprint": p.fingerprint,
                    "key": p.key,
                    "won": p.won,
                    "score": p.score,
                }
                for p in self.players
            ],
            "status": self.status,
            "result": self._named_result(),
            "verdict": self.verdict,
            "problem": None
            if self.verdict in ("verified", PENDING)
            else {"step": self.problem_step, "reason": self.problem_reason, "seat": self.blamed_seat},
            "ended": _iso(self.ended_at),
            "recorded": _iso(self.recorded_at),
            "transcript": self.transcript,
        }

    def _named_result(self) -> dict[str, Any] | None:
        """The result for people and programs: ``winners`` stay seat numbers (the machine
        field), ``winner_names`` and ``summary`` name the players ("bob wins the match", not
        "seat 2 wins the match")."""
        return _named_result(self.result, {p.seat: p.name for p in self.players})


# -- reading a transcript ---------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """JSON-safe plain data (options and results come from the file: bytes become hex)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def _named_result(result: dict[str, Any] | None, by_seat: dict[int, str]) -> dict[str, Any] | None:
    """``result`` with ``winner_names`` added and its ``summary`` naming the players."""
    if result is None:
        return None
    names = [by_seat.get(seat, f"seat {seat}") for seat in range(max(by_seat, default=-1) + 1)]
    out = dict(result)
    winners = out.get("winners") or []
    out["winner_names"] = [by_seat.get(w, f"seat {w}") for w in winners if isinstance(w, int)]
    if isinstance(out.get("summary"), str):
        out["summary"] = name_seats(out["summary"], names)
    return out


def _result(data: Any, players: int) -> dict[str, Any] | None:
    """The result as plain data, if it has the shape of one (an unverified end record may hold
    anything)."""
    from .game import Result

    if data is None:
        return None
    if isinstance(data, Result):
        data = data.to_wire()
    try:
        result = Result.from_wire(data)
        winners = sorted({int(s) for s in result.winners if 0 <= int(s) < players})
        scores = [float(s) if math.isfinite(float(s)) else None for s in result.scores]
        details = _plain(result.details if isinstance(result.details, dict) else {})
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError, RecursionError):
        return None
    return {"winners": winners, "scores": scores, "summary": str(result.summary), "details": details}


def _installed_game(game_id: str) -> Any:
    """The installed plugin's game, or ``None`` (not installed, or a broken plugin: that costs
    words only)."""
    from .plugins import load_plugins

    try:
        return load_plugins().games.get(game_id)
    except Exception:
        return None


def _game_name(reported: dict[str, str], game_id: str) -> str:
    """The game's name as verify found it, else as the installed plugin gives it (verify stops
    before it loads the game when the log is bad), else its id."""
    if reported.get("name") and reported["name"] != game_id:
        return reported["name"]
    game = _installed_game(game_id)
    return game.name if game is not None else game_id


def _result_words(report: Any, game_id: str, result: dict[str, Any]) -> str:
    """The result in the game's words: verify's, else the installed game's for a record not
    verified yet, else the summary."""
    if report is not None and report.result_text:
        return str(report.result_text)
    from .game import Result, result_words

    return result_words(_installed_game(game_id), Result.from_wire(result))


def read_record(
    path: str | os.PathLike[str],
    *,
    our_seat: int | None = None,
    our_key: bytes | None = None,
    progress: Callable[[float], None] | None = None,
) -> GameRecord:
    """Read and verify the transcript at ``path``. ``our_seat`` is the seat we played; else
    the seat whose key is ``our_key``, if any. Raises :class:`HistoryError` for a file that is
    not a whole transcript (no header, or no end record: not a game that ended). ``progress``
    gets the share of the verification done (0 to 1) as it goes."""
    from .verify import verify_file

    header, end = _summary(path)
    report = verify_file(Path(path), progress=progress)
    return _game_record(path, header, end, report, our_seat=our_seat, our_key=our_key)


def _summary(path: str | os.PathLike[str]) -> tuple[Any, Any]:
    """The header and end record of a whole transcript (not verified); raises HistoryError."""
    from .wire.transcript import TranscriptError, read_summary

    try:
        summary = read_summary(path)
    except TranscriptError as exc:
        raise HistoryError(f"{path}: {exc}") from None
    if summary.end is None:
        raise HistoryError(f"{path}: incomplete (no end record: the game did not end, or the file was cut)")
    return summary.header, summary.end


def live_record(path: str | os.PathLike[str], our_seat: int) -> GameRecord:
    """The record of a game that just ended at ``our_seat`` here, at once: its transcript's
    header and end record (the result our seat signed, every seat's result having been
    checked live against it), verdict :data:`PENDING`. Raises :class:`HistoryError`."""
    header, end = _summary(path)
    return _game_record(path, header, end, None, our_seat=our_seat)


def _game_record(
    path: str | os.PathLike[str],
    header: Any,
    end: Any,
    report: Any,
    *,
    our_seat: int | None = None,
    our_key: bytes | None = None,
) -> GameRecord:
    """The record of a transcript from its header and end record and, once verified, verify's
    ``report`` (``None``: not verified yet, the verdict is :data:`PENDING`)."""
    if our_seat is None and our_key is not None:
        our_seat = next((seat for seat, keys in enumerate(header.roster) if keys.ed25519 == our_key), None)
    verified = report is not None and report.verdict == "verified"
    # What verify recomputed, when it did; else the end record's claim (unsigned: shown marked;
    # before verification, our own seat's).
    recomputed = report.result if report is not None else None
    result = _result(recomputed if recomputed is not None else end.result, len(header.roster))
    if result is not None:  # the game's own words ("hands: seat 0 won 2, ..."), named when shown
        result["summary"] = _result_words(report, header.game, result)
        left = sorted(getattr(report, "left_to_bot", None) or {})
        if left:  # who left and let a bot finish the seat, as the table said it (verify's word)
            result["left_to_bot"] = [s for s in left if 0 <= s < len(header.roster)]
        dropped = getattr(report, "dropped", None) or []
        if dropped:  # who dropped out, in the order they did (verify's word)
            result["dropped"] = [s for s in dropped if type(s) is int and 0 <= s < len(header.roster)]
    winners = set(result["winners"]) if result else set()
    scores = result["scores"] if result else []
    players = [
        PlayerRecord(
            seat,
            name,
            keys.ed25519.hex(),
            keys.fingerprint,
            None if result is None or end.status != "finished" else seat in winners,
            scores[seat] if seat < len(scores) else None,
        )
        for seat, (name, keys) in enumerate(zip(header.names, header.roster))
    ]
    try:
        options = _plain(dict(header.options))
    except RecursionError:  # only a hand-made file nests that deep; verify has said so
        options = {}
    problem = report.problem if report is not None else None
    try:
        ended_at = os.stat(path).st_mtime
    except OSError:
        ended_at = time.time()
    return GameRecord(
        table_id=header.table.hex(),
        our_seat=our_seat,
        game=header.game,
        game_name=_game_name(report.game if report is not None else {}, header.game),
        rules=header.rules,
        options=options,
        players=players,
        status=end.status,
        result=result,
        verdict=PENDING if report is None else "verified" if verified else report.verdict,
        problem_step=None if problem is None else problem.step,
        problem_reason=None if problem is None else problem.reason,
        blamed_seat=None if problem is None else problem.seat,
        ended_at=ended_at,
        transcript=str(Path(path).resolve()),
    )


# -- the database -----------------------------------------------------------------------------


def _iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


class History:
    """The history database of one data folder. Open with :meth:`open`; use as a context
    manager or :meth:`close`. One connection per thread (sqlite3's rule)."""

    def __init__(self, conn: sqlite3.Connection, path: Path):
        self.conn = conn
        self.path = path

    # -- opening ----------------------------------------------------------------------------

    @classmethod
    def path_in(cls, home: str | os.PathLike[str] | None = None) -> Path:
        from .wire.identity import data_dir

        return data_dir(home) / DB_FILE

    @classmethod
    def open(cls, home: str | os.PathLike[str] | None = None, *, create: bool = True) -> History | None:
        """The history of the data folder ``home`` (default: the user's), made on first use
        (``create``); ``None`` if there is none yet and ``create`` is false."""
        path = cls.path_in(home)
        if not path.exists():
            if not create:
                return None
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            try:  # private like the rest of the data folder; sqlite makes -wal and -shm alike
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
            except OSError as exc:
                raise HistoryError(f"cannot create {path}: {exc.strerror or exc}") from None
        try:
            conn = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
        except sqlite3.Error as exc:
            raise HistoryError(f"cannot open {path}: {exc}") from None
        history = cls(conn, path)
        try:
            history._prepare_when_free()
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise HistoryError(
                f"{path} is not a usable history database ({exc}); move it away to start a new history"
            ) from None
        except BaseException:
            conn.close()
            raise
        return history

    def _prepare_when_free(self) -> None:
        """:meth:`_prepare`, again while another program holds a lock it needs, up to
        :data:`BUSY_SECONDS`: switching a new file to WAL takes an exclusive lock, and SQLite
        may refuse it at once ("database is locked") rather than wait its busy timeout (two
        programs recording their first game at once: test_two_programs_writing_at_once failed
        1 run in 8)."""
        deadline = time.monotonic() + BUSY_SECONDS
        while True:
            try:
                self._prepare()
                return
            except sqlite3.OperationalError as exc:
                busy = "locked" in str(exc) or "busy" in str(exc)
                if not busy or time.monotonic() >= deadline:
                    raise
            time.sleep(0.05)

    def _prepare(self) -> None:
        conn = self.conn
        conn.execute("PRAGMA foreign_keys = ON")
        if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")  # kept in the file: set once
        conn.execute("PRAGMA synchronous = NORMAL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise HistoryError(
                f"{self.path} was written by a newer p2pcards (history version {version}, this one "
                f"knows {SCHEMA_VERSION}): update p2pcards, or set P2PCARDS_HOME to another folder"
            )
        if version < SCHEMA_VERSION:
            self._migrate()

    def _migrate(self) -> None:
        with self._write():
            # Read again inside the write lock: another program may have just done it.
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]
            for step in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[step]:
                    self.conn.execute(statement)
                self.conn.execute(f"PRAGMA user_version = {step + 1}")

    def _write(self) -> _Transaction:
        return _Transaction(self.conn)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    # -- writing ----------------------------------------------------------------------------

    def record(self, rec: GameRecord) -> bool:
        """Record ``rec``; True if it is new, False if it updated the same table and seat."""
        seat = NOT_OURS if rec.our_seat is None else rec.our_seat
        values = (
            rec.game,
            rec.game_name,
            rec.rules,
            json.dumps(rec.options, sort_keys=True),
            rec.status,
            None if rec.result is None else json.dumps(rec.result, sort_keys=True),
            rec.verdict,
            rec.problem_step,
            rec.problem_reason,
            rec.blamed_seat,
            rec.ended_at,
            rec.transcript,
        )
        with self._write():
            row = self.conn.execute(
                "SELECT id FROM games WHERE table_id = ? AND our_seat = ?", (rec.table_id, seat)
            ).fetchone()
            if row is None:
                game_id = self.conn.execute(
                    "INSERT INTO games (game, game_name, rules, options, status, result, verdict, problem_step,"
                    " problem_reason, blamed_seat, ended_at, transcript, table_id, our_seat, recorded_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*values, rec.table_id, seat, rec.recorded_at),
                ).lastrowid
            else:
                game_id = row[0]
                self.conn.execute(
                    "UPDATE games SET game = ?, game_name = ?, rules = ?, options = ?, status = ?, result = ?,"
                    " verdict = ?, problem_step = ?, problem_reason = ?, blamed_seat = ?, ended_at = ?,"
                    " transcript = ? WHERE id = ?",
                    (*values, game_id),
                )
                self.conn.execute("DELETE FROM players WHERE game = ?", (game_id,))
            self.conn.executemany(
                "INSERT INTO players (game, seat, name, key, fingerprint, won, score) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (game_id, p.seat, p.name, p.key, p.fingerprint, None if p.won is None else int(p.won), p.score)
                    for p in rec.players
                ],
            )
        return row is None

    # -- reading ----------------------------------------------------------------------------

    def games(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The recorded games, newest first, as plain data (what ``history --json`` prints)."""
        rows = self.conn.execute(
            "SELECT id, table_id, our_seat, game, game_name, rules, options, status, result, verdict,"
            " problem_step, problem_reason, blamed_seat, ended_at, recorded_at, transcript"
            " FROM games ORDER BY ended_at DESC, id DESC LIMIT ?",
            (-1 if limit is None else limit,),
        ).fetchall()
        players: dict[int, list[dict[str, Any]]] = {row[0]: [] for row in rows}
        if rows:
            marks = ",".join("?" * len(rows))
            for game, seat, name, key, fp, won, score in self.conn.execute(
                f"SELECT game, seat, name, key, fingerprint, won, score FROM players WHERE game IN ({marks})"
                " ORDER BY game, seat",
                list(players),
            ):
                players[game].append(
                    {
                        "seat": seat,
                        "name": name,
                        "fingerprint": fp,
                        "key": key,
                        "won": None if won is None else bool(won),
                        "score": score,
                    }
                )
        out = []
        for (
            gid,
            table,
            our_seat,
            game,
            game_name,
            rules,
            options,
            status,
            result,
            verdict,
            step,
            reason,
            blamed,
            ended,
            recorded,
            transcript,
        ) in rows:
            out.append(
                {
                    "table": table,
                    "game": {"id": game, "name": game_name, "rules": rules},
                    "options": json.loads(options),
                    "our_seat": None if our_seat == NOT_OURS else our_seat,
                    "players": players[gid],
                    "status": status,
                    "result": _named_result(
                        None if result is None else json.loads(result), {p["seat"]: p["name"] for p in players[gid]}
                    ),
                    "verdict": verdict,
                    "problem": None
                    if verdict in ("verified", PENDING)
                    else {"step": step, "reason": reason, "seat": blamed},
                    "ended": _iso(ended),
                    "recorded": _iso(recorded),
                    "transcript": transcript,
                }
            )
        return out

    def opponents(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Everyone we played with, by key, most recently played first: the last name seen,
        games together and how they ended. Wins and losses count finished games whose
        transcript verified only (``won``: we won; ``lost``: they won and we did not; ``other``:
        neither of us won); ``unverified`` counts the games whose transcript did not verify."""
        rows = self.conn.execute(
            """
            SELECT o.key, o.fingerprint, o.name, MAX(g.ended_at) AS last, COUNT(*),
                SUM(g.verdict = 'verified' AND g.status = 'finished' AND me.won = 1),
                SUM(g.verdict = 'verified' AND g.status = 'finished' AND me.won = 0 AND o.won = 1),
                SUM(g.verdict = 'verified' AND g.status = 'finished' AND me.won = 0 AND o.won = 0),
                SUM(g.status != 'finished'),
                SUM(g.verdict != 'verified')
            FROM games g
            JOIN players me ON me.game = g.id AND me.seat = g.our_seat
            JOIN players o ON o.game = g.id AND o.seat != g.our_seat AND o.key != me.key
            GROUP BY o.key
            ORDER BY last DESC
            LIMIT ?
            """,
            (-1 if limit is None else limit,),
        ).fetchall()
        # With MAX(), SQLite takes the bare columns (fingerprint, name) from the row of the
        # latest game: the name is the last one seen.
        return [
            {
                "key": key,
                "fingerprint": fp,
                "name": name,
                "last_played": _iso(last),
                "games": games,
                "won": won or 0,
                "lost": lost or 0,
                "other": other or 0,
                "unfinished": unfinished or 0,
                "unverified": unverified or 0,
            }
            for key, fp, name, last, games, won, lost, other, unfinished, unverified in rows
        ]


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on an error): one short write, which
    waits for another program's instead of failing (the connection's busy timeout)."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        if kind is None:
            self.conn.execute("COMMIT")
        else:
            self.conn.execute("ROLLBACK")


# -- recording ----------------------------------------------------------------------------------


def _our_key(home: str | os.PathLike[str] | None) -> bytes | None:
    """This data folder's identity's signing key, if it has one that we may read."""
    from .wire.identity import IDENTITY_FILE, IdentityError, data_dir, load_identity

    path = data_dir(home) / IDENTITY_FILE
    if not path.exists():
        return None
    try:
        return load_identity(path).public.ed25519
    except (IdentityError, OSError):
        return None


def record_transcript(
    path: str | os.PathLike[str],
    *,
    our_seat: int | None = None,
    home: str | os.PathLike[str] | None = None,
    history: History | None = None,
) -> tuple[GameRecord, bool]:
    """Verify and record one transcript in the history of ``home`` (or the open ``history``):
    the record and whether it is new. Our seat is ``our_seat``, else the seat of the data
    folder's identity, if it sat at the table. Raises :class:`HistoryError`."""
    if history is not None and home is None:
        home = history.path.parent
    rec = read_record(path, our_seat=our_seat, our_key=None if our_seat is not None else _our_key(home))
    if history is not None:
        return rec, _record(history, rec)
    opened = History.open(home)
    assert opened is not None, "History.open creates the database"
    with opened:
        return rec, _record(opened, rec)


def _record(history: History, rec: GameRecord) -> bool:
    try:
        return history.record(rec)
    except sqlite3.DatabaseError as exc:
        raise HistoryError(f"{history.path}: {exc}") from None


def record_finished_game(
    path: str | os.PathLike[str], our_seat: int, home: str | os.PathLike[str] | None = None
) -> str | None:
    """Record the transcript of a table that just ended here (at ``our_seat``), at once and
    :data:`PENDING` its full verification (:func:`live_record`); never raises. Returns a
    warning for the player if the game could not be recorded, else ``None``."""
    try:
        rec = live_record(path, our_seat)
        opened = History.open(home)
        assert opened is not None, "History.open creates the database"
        with opened:
            _record(opened, rec)
    except HistoryError as exc:
        return f"the game was not recorded in the history: {exc}"
    except Exception as exc:  # a damaged database, a full disk ...: the game goes on
        return f"the game was not recorded in the history: {type(exc).__name__}: {exc}"
    return None


def verify_pending(
    history: History,
    *,
    progress: Callable[[int, int, dict[str, Any], float], None] | None = None,
) -> int:
    """Fully verify every game recorded :data:`PENDING` (as it ended, from what its seat
    checked live) and record what ``verify`` says instead; returns how many were verified.
    ``progress(index, count, game, done)`` is told of each game's verification as it goes
    (``done`` from 0 to 1). A transcript that can no longer be read is recorded
    ``unreadable``, with the reason."""
    pending = [game for game in history.games() if game["verdict"] == PENDING]
    for index, game in enumerate(pending):
        path = game["transcript"]

        def step(done: float, index: int = index, game: dict[str, Any] = game) -> None:
            if progress is not None:
                progress(index, len(pending), game, done)

        step(0.0)
        try:
            rec = read_record(path, our_seat=game["our_seat"], progress=step)
        except HistoryError as exc:
            _mark_unreadable(history, game, str(exc))
        else:
            if rec.table_id == game["table"]:
                _record(history, rec)
            else:  # another table's file now lies there: this game's transcript is gone
                _mark_unreadable(history, game, f"{path} now holds another table's transcript")
        step(1.0)
    return len(pending)


def _mark_unreadable(history: History, game: dict[str, Any], reason: str) -> None:
    seat = NOT_OURS if game["our_seat"] is None else game["our_seat"]
    try:
        with history._write():
            history.conn.execute(
                "UPDATE games SET verdict = 'unreadable', problem_step = 'reading', problem_reason = ?"
                " WHERE table_id = ? AND our_seat = ? AND verdict = ?",
                (reason, game["table"], seat, PENDING),
            )
    except sqlite3.DatabaseError as exc:
        raise HistoryError(f"{history.path}: {exc}") from None


def transcript_files(sources: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files to import: each file given, and every ``*.p2pt`` in each folder given (oldest
    first, so the history fills in the order the games were played)."""
    files: list[Path] = []
    for source in sources:
        path = Path(source)
        if path.is_dir():
            found = [p for p in path.glob("*.p2pt") if p.is_file()]
            files.extend(sorted(found, key=_mtime))
        else:
            files.append(path)
    return files


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


# -- text -----------------------------------------------------------------------------------------


def _local(iso: str | None) -> str:
    if iso is None:
        return "?"
    return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")


def _names(game: dict[str, Any], seats: Iterable[int]) -> list[str]:
    by_seat = {p["seat"]: printable(p["name"]) for p in game["players"]}
    ours = game["our_seat"]
    return ["you" if s == ours else by_seat.get(s, f"seat {s}") for s in seats]


def _joined(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def outcome_text(game: dict[str, Any]) -> str:
    """How the table ended, by name: 'you won', 'bob and carol won', 'a draw', 'aborted'."""
    if game["status"] != "finished":
        return game["status"]
    result = game["result"]
    if result is None:
        return "finished"
    if not result["winners"]:
        return "a draw"
    return _joined(_names(game, result["winners"])) + " won"


def left_to_bot_text(game: dict[str, Any]) -> str:
    """Who left the game and let a bot play the seat to the end, as the table said it live
    ("bob left; a bot plays bob's seat to the end"; "you left; a bot played your seat ..."),
    then who dropped out ("carol dropped out; carol's cards were set aside unseen")."""
    from .table.protocol import left_to_bot_words

    result = game.get("result") or {}
    seats = result.get("left_to_bot") if isinstance(result, dict) else None
    lines = []
    for seat in seats if isinstance(seats, list) else []:
        if not isinstance(seat, int) or isinstance(seat, bool):
            continue
        if seat == game["our_seat"]:
            lines.append("you left; a bot played your seat to the end")
        else:
            lines.append(left_to_bot_words(_names(game, [seat])[0]))
    dropped = result.get("dropped") if isinstance(result, dict) else None
    for seat in dropped if isinstance(dropped, list) else []:
        if not isinstance(seat, int) or isinstance(seat, bool):
            continue
        if seat == game["our_seat"]:
            lines.append("you dropped out; your cards were set aside unseen")
        else:
            name = _names(game, [seat])[0]
            lines.append(f"{name} dropped out; {name}'s cards were set aside unseen")
    return "\n    ".join(lines)


def verdict_mark(game: dict[str, Any]) -> tuple[str, str]:
    """A short mark for the verdict, and the line that explains it ('' when verified)."""
    if game["verdict"] == "verified":
        return "verified", ""
    if game["verdict"] == PENDING:
        return "pending", "checked live at the table; the full verification of its transcript is pending"
    problem = game["problem"] or {}
    if game["verdict"] == "left":  # a goodbye, not a fault: who left, in its own words
        seat = problem.get("seat")
        if type(seat) is int and seat == game["our_seat"]:  # our own goodbye: say "you"
            return "left", "not verified: you left the table (a signed goodbye)"
        return "left", f"not verified: {problem.get('reason') or 'a player left the table'}"
    seats = [p["seat"] for p in game["players"]]
    names = _names(game, range(max(seats, default=-1) + 1))
    if game["verdict"] == "not-started":  # nobody's fault: the table never got going
        return "not started", f"not verified: {name_seats(problem.get('reason') or 'the game never started', names)}"
    # verify names seats by number ("bye entry of seat 2"): a person reads names
    line = name_seats(f"{problem.get('step') or '?'}: {problem.get('reason') or '?'}", names)
    if problem.get("seat") is not None:
        line += f"; to blame: {_names(game, [problem['seat']])[0]}"
    if game["verdict"] == "unreadable":
        return "unchecked", f"not checked here: {problem.get('reason') or '?'}"
    if game["status"] != "finished":
        return "unfinished", f"not verified: {line}"
    return "FAILED", f"verification FAILED at {line}"


def games_text(games: Sequence[dict[str, Any]]) -> str:
    """``p2pcards history``: one line a game, newest first; a second line says why a
    transcript did not verify."""
    if not games:
        return (
            "no games recorded yet (a game played here is recorded when it ends; "
            "'p2pcards history --import' adds transcripts)"
        )
    rows = []
    for game in games:
        others = [p["seat"] for p in game["players"] if p["seat"] != game["our_seat"]]
        who = ("with " if game["our_seat"] is not None else "between ") + ", ".join(_names(game, others))
        mark, why = verdict_mark(game)
        why = "\n    ".join(line for line in [left_to_bot_text(game), why] if line)
        rows.append((_local(game["ended"]), printable(game["game"]["name"]), outcome_text(game), mark, who, why))
    width_game = min(20, max(len(r[1]) for r in rows))
    width_outcome = min(30, max(len(r[2]) for r in rows))
    lines = []
    for when, name, outcome, mark, who, why in rows:
        lines.append(f"{when}  {name:<{width_game}}  {outcome:<{width_outcome}}  {mark:<10}  {who}")
        if why:
            lines.append(f"    {why}")
    return "\n".join(printable(line) for line in lines)


def opponents_text(opponents: Sequence[dict[str, Any]]) -> str:
    """``p2pcards history --opponents``: everyone we played with, by key, with the last name seen."""
    if not opponents:
        return "no opponents recorded yet"
    width = min(24, max(8, *(len(printable(o["name"])) for o in opponents)))
    lines = [f"{'opponent':<{width}}  {'key':<14}  games  won  lost  other  unfinished  not verified  last played"]
    for o in opponents:
        lines.append(
            f"{printable(o['name']):<{width}}  {o['fingerprint']:<14}  {o['games']:>5}  {o['won']:>3}  {o['lost']:>4}"
            f"  {o['other']:>5}  {o['unfinished']:>10}  {o['unverified']:>12}  {_local(o['last_played'])}"
        )
    lines.append("(won, lost and other count finished games that verified: other is a game neither of you won)")
    return "\n".join(printable(line) for line in lines)

"""Watching a table without a seat: the spectator's side (protocol/table.md section 10).

:func:`watch_table` dials one seat's listener, says ``watch``, and keeps what it is sent: the
table header, then the public log entries as the seat accepts them, each checked as a seat
checks it (its author's signature under the header's key, this table, a chain that links up
where the entries before it are held); at the end the seat's private entries, whose boxes it
cannot open, and its end record. Then every entry goes into a :class:`~p2pcards.wire.log.Log`
(chains, head echoes, budgets: the checks every seat makes) and, with ``transcript_dir``, a
transcript is written that ``p2pcards verify`` checks like any seat's.

A spectator holds no seat key and no deck seed: it can decode only the cards turned up for
everyone (p2pcards/deck/public.py), until the seeds revealed at the end show every card.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from ..table.header import TableHeader
from ..text import printable
from ..wire.errors import ProtocolError, SchemaError
from ..wire.identity import Identity
from ..wire.log import LOG_BYTES, LOG_ENTRIES, Log, Rejected
from ..wire.messages import MAX_SPECTATOR_CHAT, MAX_WATCHER_NAME, Bye, Entry
from ..wire.schema import Record, Str, Text
from ..wire.sealed import recipients
from ..wire.transcript import TranscriptEnd, TranscriptError, roster_header, write_transcript
from .lobby import LobbyError, handshake, lobby_message
from .transport import Connection, ConnectionClosed, FrameError, connect

__all__ = ["WatchError", "Watched", "describe_entry", "watch_table"]

#: How long the seat has to answer ``watch`` with the header.
ANSWER_SECONDS = 10.0
#: The most entries, and signed bytes, a spectator keeps: what any seat's log takes at most
#: (wire/log.py budgets). A seat that sends more (its own chain, signed without end) is cut off.
MAX_ENTRIES = LOG_ENTRIES
MAX_BYTES = LOG_BYTES
_SAID = Record(
    {
        "type": Str(16),
        "op": Str(16),
        "name": Text(MAX_WATCHER_NAME, min_len=1),
        "text": Text(MAX_SPECTATOR_CHAT, min_len=1),
    }
)


class EntriesDisagree(Exception):
    """Two signed entries name different versions of one entry (someone equivocated)."""


class WatchError(LobbyError):
    """Watching failed: the seat refused, sent something no seat sends, or went away."""


@dataclass
class Watched:
    """What a spectator ended with."""

    header: TableHeader
    #: Every entry received, in the order it came (``private``: only after the game's end).
    received: list[Entry] = field(default_factory=list)
    #: How many frames came before the game's end, and their bytes (what a test inspects).
    frames: list[Any] = field(default_factory=list)
    end: TranscriptEnd | None = None
    log: Log | None = None
    transcript: Path | None = None
    #: Why watching stopped early (the seat went away, a bad entry), if it did.
    problem: str | None = None

    #: How many entries came before the seat sent the rest of the log at the end.
    _end_index: int | None = None

    @property
    def during_game(self) -> list[Entry]:
        """The entries received before the seat sent the rest of the log at the end."""
        return self.received[: self._end_index]


def describe_entry(entry: Entry, names: list[str]) -> str:
    """One line for a log entry, as a spectator sees it."""
    who = names[entry.sender] if 0 <= entry.sender < len(names) else f"seat {entry.sender}"
    body = entry.body if isinstance(entry.body, dict) else {}
    if entry.kind == "action" and "sealed" in body:
        return f"{who}: move {body.get('turn')}: a sealed response"
    if entry.kind == "open":
        action = body.get("open")
        what = action.get("type", "?") if isinstance(action, dict) else "?"
        return f"{who}: opens move {body.get('turn')}: {printable(str(what))} {printable(_short(action))}"
    if entry.kind == "action":
        action = body.get("action")
        what = action.get("type", "?") if isinstance(action, dict) else "?"
        return f"{who}: move {body.get('turn')}: {printable(str(what))} {printable(_short(action))}"
    if entry.kind == "chat":
        return f"{who} says: {printable(str(body.get('text', '')))[:500]}"
    if entry.kind == "deck":
        if recipients(body):
            return f"{who}: a private deck message (sealed)"
        msg = body.get("msg")
        kind = msg.get("type") if isinstance(msg, dict) else "?"
        return f"{who}: deck {printable(str(kind))}"
    if entry.kind == "result":
        return f"{who}: result {printable(_short(body.get('result')))}"
    if entry.kind in ("bye", "stop"):
        return f"{who}: {entry.kind}: {printable(str(body.get('reason', '')))[:200]}"
    return f"{who}: {printable(entry.kind)}"


def _short(value: Any) -> str:
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k != "type"}
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


async def watch_table(
    host: str,
    port: int,
    identity: Identity,
    *,
    name: str,
    games: Mapping[str, str],
    transcript_dir: Path | None = None,
    on_line: Callable[[str], None] | None = None,
    on_header: Callable[[TableHeader], None] | None = None,
    on_entry: Callable[[Entry], None] | None = None,
    on_said: Callable[[str, str], None] | None = None,
    say: trio.MemoryReceiveChannel[str] | None = None,
    conn: Connection | None = None,
) -> Watched:
    """Watch the table whose seat listens at ``host:port`` until its end (or the seat goes);
    ``on_line`` gets a line for each entry as it comes, ``on_entry`` the entry itself (checked
    as far as :func:`_check` can). With ``transcript_dir`` the transcript is written there at
    the end (``watch-TABLEID.p2pt``). At a table that lets spectators chat, the lines put in
    ``say`` go to the seat, and ``on_said(name, text)`` gets other spectators' lines."""
    if conn is None:
        try:
            conn = await connect(host, port)
        except ConnectionClosed as exc:
            raise WatchError(str(exc)) from None
    try:
        return await _watch(conn, identity, name, games, transcript_dir, on_line, on_header, on_entry, on_said, say)
    finally:
        await conn.aclose()


async def _watch(
    conn: Connection,
    identity: Identity,
    name: str,
    games: Mapping[str, str],
    transcript_dir: Path | None,
    on_line: Callable[[str], None] | None,
    on_header: Callable[[TableHeader], None] | None,
    on_entry: Callable[[Entry], None] | None = None,
    on_said: Callable[[str, str], None] | None = None,
    say: trio.MemoryReceiveChannel[str] | None = None,
) -> Watched:
    try:
        seat_peer = await handshake(conn, identity, name=name, games=games)
        await conn.send({"type": "lobby", "op": "watch"})
        with trio.fail_after(ANSWER_SECONDS):
            raw = await conn.receive()
        message = lobby_message(raw, "watching", seat_peer.name)
        header = TableHeader.from_wire(message["header"])
    except (ProtocolError, SchemaError, FrameError, trio.TooSlowError) as exc:
        raise WatchError(f"the seat at {conn.remote} does not let us watch: {exc}") from None
    except ConnectionClosed as exc:
        raise WatchError(f"the seat at {conn.remote} closed the connection: {exc}") from None
    if not any(s.keys == seat_peer.keys for s in header.seats):  # both keys
        raise WatchError(f"{conn.remote} is not a seat of the table it sent (no seat of its header has its keys)")
    if on_header is not None:
        on_header(header)
    names = [s.name for s in header.seats]
    watched = Watched(header)
    held: dict[tuple[int, int], Entry] = {}

    async def receive_all() -> None:
        try:
            await _receive(conn, header, seat_peer.name, names, held, watched, on_line, on_entry, on_said)
        except ConnectionClosed as exc:
            watched.problem = f"the seat closed the connection before the end: {exc}"
        except (ProtocolError, SchemaError, FrameError, TranscriptError) as exc:
            watched.problem = f"the seat sent something wrong: {exc}"
        except EntriesDisagree as exc:
            watched.problem = f"the entries disagree: {exc}"

    async with trio.open_nursery() as nursery:
        if say is not None:
            nursery.start_soon(_send_lines, conn, say)
        await receive_all()
        nursery.cancel_scope.cancel()
    if watched._end_index is None:
        watched._end_index = len(watched.received)
    watched.log = _build_log(header, held, watched)
    if watched.end is not None and watched.log is not None and transcript_dir is not None:
        transcript_dir.mkdir(parents=True, exist_ok=True)
        path = transcript_dir / f"watch-{header.table.hex()[:12]}.p2pt"
        entries = watched.log.closed() if watched.end.status == "finished" else watched.log.canonical()
        tx_header = roster_header(
            header.table,
            [(s.name, s.keys) for s in header.seats],
            game=header.game,
            rules=header.rules_version,
            options=header.options,
            lobby=header.to_wire(),
        )
        write_transcript(path, tx_header, entries, watched.log.blames, watched.end)
        watched.transcript = path
    return watched


async def _receive(
    conn: Connection,
    header: TableHeader,
    seat_name: str,
    names: list[str],
    held: dict[tuple[int, int], Entry],
    watched: Watched,
    on_line: Callable[[str], None] | None,
    on_entry: Callable[[Entry], None] | None,
    on_said: Callable[[str, str], None] | None,
) -> None:
    """What the seat sends, until the end record (or its goodbye)."""
    held_bytes = sum(len(e.signed_bytes) for e in held.values())
    echoed: dict[tuple[int, int], tuple[bytes, Entry]] = {}
    while True:
        raw = await conn.receive()
        if isinstance(raw, dict) and raw.get("type") == "entry":
            entry = Entry.from_wire(raw, conn.remote)
            _check(entry, header, held)
            if (entry.sender, entry.seq) in held:
                continue
            _check_echoes(entry, names, held, echoed)
            held_bytes += len(entry.signed_bytes)
            if len(held) >= MAX_ENTRIES or held_bytes > MAX_BYTES:
                raise ProtocolError(seat_name, f"sent more entries than a table's log holds ({len(held)})")
            private = bool(recipients(entry.body))
            if private and watched._end_index is None:
                watched._end_index = len(watched.received)  # the seat's game is over
            if watched._end_index is None:
                watched.frames.append(raw)
            held[(entry.sender, entry.seq)] = entry
            watched.received.append(entry)
            if on_line is not None and not private:
                on_line(describe_entry(entry, names))
            if on_entry is not None:
                on_entry(entry)
        elif isinstance(raw, dict) and raw.get("type") == "lobby" and raw.get("op") == "said":
            # Another spectator's chat line, as the seat relays it: shown, never trusted.
            try:
                _SAID.check(raw)
            except SchemaError:
                continue
            if header.spectator_chat and on_said is not None:
                on_said(printable(raw["name"]), printable(raw["text"]))
        elif isinstance(raw, dict) and raw.get("type") == "lobby" and raw.get("op") == "ended":
            message = lobby_message(raw, "ended", seat_name)
            watched.end = TranscriptEnd.from_wire(message["end"])
            return
        elif isinstance(raw, dict) and raw.get("type") == "bye":
            watched.problem = f"the seat left: {printable(str(Bye.from_wire(raw).reason))[:300]}"
            return
        else:
            raise ProtocolError(seat_name, "sent a spectator something no seat sends")


async def _send_lines(conn: Connection, say: trio.MemoryReceiveChannel[str]) -> None:
    """Our chat lines to the seat (at a table that lets spectators chat)."""
    async for text in say:
        text = printable(" ".join(text.split()))[:MAX_SPECTATOR_CHAT]
        if text:
            try:
                await conn.send({"type": "lobby", "op": "say", "text": text})
            except ConnectionClosed:
                return


def _check(entry: Entry, header: TableHeader, held: Mapping[tuple[int, int], Entry]) -> None:
    """An entry as a seat checks it on arrival, as far as a spectator can before the whole
    chain is in: this table, a seat of it, its author's signature; linked to the entry before
    it and the one after it where those are held."""
    if entry.table != header.table or not 0 <= entry.sender < header.players:
        raise ProtocolError("seat", f"an entry of another table or seat ({entry!r})")
    if not entry.verify(header.seats[entry.sender].keys):
        raise ProtocolError("seat", f"an entry whose signature is not its author's ({entry!r})")
    before = held.get((entry.sender, entry.seq - 1))
    after = held.get((entry.sender, entry.seq + 1))
    if (before is not None and entry.prev != before.hash) or (after is not None and after.prev != entry.hash):
        raise ProtocolError("seat", f"an entry that does not link to its author's chain ({entry!r})")
    copy = held.get((entry.sender, entry.seq))
    if copy is not None and copy != entry:
        raise ProtocolError("seat", f"a second version of an entry ({entry!r})")


def _check_echoes(
    entry: Entry,
    names: list[str],
    held: Mapping[tuple[int, int], Entry],
    echoed: dict[tuple[int, int], tuple[bytes, Entry]],
) -> None:
    """The versions signed entries name of each other agree: ``entry``'s head echo with the
    entries held, and ``entry`` with the echoes held. A seat that shows its spectators another
    version of its own move than it sent the players is found at the next entry of another seat
    that echoes it, not only at the end. Who signed two versions (or echoed one never signed)
    is the players' logs to prove: this names nobody."""
    seen = entry.body.get("seen") if isinstance(entry.body, dict) else None
    if isinstance(seen, list):
        for seat, item in enumerate(seen[: len(names)]):
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], int) and item[0] > 0):
                continue
            key = (seat, item[0] - 1)
            copy = held.get(key)
            if copy is not None and copy.hash != item[1]:
                raise EntriesDisagree(_disagree(entry, copy, names))
            echoed.setdefault(key, (item[1], entry))
    echo = echoed.get((entry.sender, entry.seq))
    if echo is not None and echo[0] != entry.hash:
        raise EntriesDisagree(_disagree(echo[1], entry, names))


def _disagree(echoing: Entry, echoed: Entry, names: list[str]) -> str:
    return (
        f"{printable(names[echoing.sender])}'s entry #{echoing.seq} names another version of "
        f"{printable(names[echoed.sender])}'s entry #{echoed.seq} than the one received: one of "
        "them signed what the other seats did not see (the players' logs will say who)"
    )


def _build_log(header: TableHeader, held: Mapping[tuple[int, int], Entry], watched: Watched) -> Log | None:
    """Every entry received, into a log that checks them as a seat does (in each seat's
    order: a spectator that got the whole chain gets it accepted whole)."""
    log = Log(header.table, header.to_wire(), [s.keys for s in header.seats])
    for seat in range(header.players):
        seq = 0
        while (seat, seq) in held:
            try:
                log.append(held[(seat, seq)])
            except Rejected as exc:
                watched.problem = watched.problem or f"the log does not check out: {exc}"
                return None
            seq += 1
    return log

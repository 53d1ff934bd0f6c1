"""One seat of a table played over the network: the game phase.

A :class:`Peer` holds its own identity and seed, a connection to every other seat (the mesh),
the table log (one signed hash chain per seat, :class:`~p2pcards.wire.log.Log`), its deck
:class:`~p2pcards.deck.party.Party`, and a :class:`~p2pcards.session.TableSession` that runs the
game's rules. Every message it sends is a signed log entry that goes to every other seat, so every
peer ends with the same log; private deck messages travel sealed to their one recipient.

Entry kinds and bodies (besides the ``seen`` head echo every entry carries):

``deck``     ``{"msg": deck message}`` for everyone, ``{"to": seat, "box": sealed msg}``, or
             ``{"boxes": [[seat, sealed msg], ...]}`` for several seats at once (a deal)
``action``   ``{"turn": n, "action": {...}}``: the seat's move on the n-th turn of the game
``chat``     ``{"text": str}``
``result``   ``{"result": {...}, "violations": [...]}``: what this seat computed at the end

Blame: anything a peer sends that the rules, the deck protocol or the log refuse names that
peer. A refused *entry* is dropped and the game goes on where it can; a provable fault (a signed
illegal move, a deck deviation, two versions of one entry) ends the game with that seat named.
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from ..cards import Card
from ..deck.party import (
    AuditOp,
    CoinOp,
    DealOp,
    Op,
    OpDone,
    Output,
    Party,
    RevealOp,
    Send,
    ShuffleOp,
    TransferOp,
)
from ..deck.party import (
    Blame as DeckBlame,
)
from ..game import Action, Game, IllegalAction
from ..session import MAX_CHAT, SeatAgent, TableSession
from ..wire.errors import ProtocolError, SchemaError
from ..wire.framing import frame_of
from ..wire.identity import Identity, PublicIdentity
from ..wire.log import GAP, Log, Rejected, encode_header
from ..wire.log import Blame as LogBlame
from ..wire.messages import Bye, Entry, Fetch, Fetched, parse_message
from ..wire.schema import AnyData, Bytes, Float, Int, ListOf, MapOf, Record, Str, Text
from ..wire.sealed import entry_message_key, open_body, open_revealed, recipients, seal_bodies, seal_body
from .recovery import OwnChainRecovery
from .timeouts import Timeouts
from .transport import SEND_SECONDS, Connection, ConnectionClosed, FrameError

__all__ = ["Peer", "TableAborted", "TableHeader", "Timeouts", "send_order"]


MAX_EARLY = 4096
#: How long a seat leaving before the end spends telling the others (``Peer.say_goodbye``).
GOODBYE_SECONDS = 1.0
#: Share of the turn timeout after which an idle player's client acts for them (rule 28).
IDLE_SHARE = 0.9
#: Seconds between checks for a seat that dropped out while we wait on it.
CHECK_EVERY = 1.0
#: The journal is fsynced once we have written nothing of ours for this long, or at the latest
#: this long after the first entry not yet on disk (Peer.keep_journal_synced).
JOURNAL_QUIET, JOURNAL_SYNC_LATEST = 0.05, 1.0
#: An entry held this long for entries of a seat we are connected to (which should have sent
#: them itself) makes us ask the seat that brought it for them.
FETCH_LATE = 0.25


def send_order(me: int, players: int, seats: Sequence[int] | Mapping[int, Any], waiting: set[int]) -> list[int]:
    """The order in which seat ``me`` writes an entry to ``seats``: first the seats whose next
    step waits on us (the next pass of a shuffle, say), then around the table from our left.
    With more peers than cores the receiver that gets a frame first usually runs first: the
    one with work to do should not be woken last (7 players on 2 cores: the next shuffle pass
    was often the sixth to get the previous one, 1.5-2 ms later than the first)."""
    return sorted(seats, key=lambda seat: (seat not in waiting, (seat - me) % players))


class TableAborted(Exception):
    """The game cannot go on; ``seat`` (if known) is to blame."""

    def __init__(self, reason: str, seat: int | None = None, step: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.seat = seat
        self.step = step


@dataclass(frozen=True)
class Seat:
    name: str
    keys: PublicIdentity
    host: str
    port: int

    def to_wire(self) -> dict[str, Any]:
        return {"name": self.name, "ed25519": self.keys.ed25519, "x25519": self.keys.x25519,
                "host": self.host, "port": self.port}

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Seat:
        return cls(data["name"], PublicIdentity(data["ed25519"], data["x25519"]), data["host"], data["port"])


_SEAT_SCHEMA = Record({"name": Text(64), "ed25519": Bytes(32), "x25519": Bytes(32), "host": Str(64),
                       "port": Int(1, 65535)})
HEADER = Record({
    "table": Bytes(16), "game": Str(64), "rules": Str(64), "options": MapOf(Str(64), AnyData(), 64),
    "seats": ListOf(_SEAT_SCHEMA, 16, 1), "protocol": Int(0, 1 << 31),
    "timeouts": Record({"deck": Float(), "turn": Float(), "grace": Float()}),
})


@dataclass(frozen=True)
class TableHeader:
    """Everything the seats agreed on in the lobby; every log entry chains back to it."""

    table: bytes
    game: str
    rules_version: str
    options: Mapping[str, Any]
    seats: tuple[Seat, ...]
    protocol: int
    timeouts: Timeouts = field(default_factory=Timeouts)

    @property
    def players(self) -> int:
        return len(self.seats)

    def to_wire(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "game": self.game,
            "rules": self.rules_version,
            "options": dict(self.options),
            "seats": [s.to_wire() for s in self.seats],
            "protocol": self.protocol,
            "timeouts": self.timeouts.to_wire(),
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> TableHeader:
        """A header from the wire (the host's ``start`` message: untrusted); raises
        :class:`~p2pcards.wire.errors.SchemaError` (a ``ValueError``) for anything malformed."""
        HEADER.check(data, "header")
        try:
            timeouts = Timeouts(**data["timeouts"])
        except ValueError as exc:
            raise SchemaError("header.timeouts", str(exc)) from None
        return cls(
            data["table"],
            data["game"],
            data["rules"],
            dict(data["options"]),
            tuple(Seat.from_wire(s) for s in data["seats"]),
            data["protocol"],
            timeouts,
        )


class NetworkDeck:
    """The engine's deck, backed by this seat's :class:`Party`; the other seats' parties are
    reached through signed log entries."""

    def __init__(self, peer: Peer, party: Party):
        self.peer = peer
        self.party = party
        self._done: dict[int, OpDone] = {}
        self._changed = trio.Condition()
        self.blame: DeckBlame | None = None
        self._started = False

    # The party is called from several tasks (each connection's receive loop, the game loop);
    # the lock keeps each call and the publishing of its output together and in order.

    async def _call(self, method: Any, *args: Any) -> None:
        async with self.peer.send_lock:
            out: Output = method(*args)
            await self.peer.publish_deck(out.sends)
            while self.party.deferred:  # our messages are out: now the work that waited
                later = self.party.proceed()
                await self.peer.publish_deck(later.sends)
                out.events += later.events
        async with self._changed:
            for event in out.events:
                if isinstance(event, OpDone):
                    self._done[event.index] = event
                elif self.blame is None:
                    self.blame = event
                    # It may come while no deck step is waiting (an accusation after the
                    # deal): stop the game here, naming the seat, not at some later timeout.
                    self.peer.abort(TableAborted(str(event), event.seat, event.step))
            self._changed.notify_all()
        self.peer.progress(self.party)

    async def start(self) -> None:
        if not self._started:
            self._started = True
            await self._call(self.party.start)

    async def receive(self, sender: int, message: Any) -> None:
        await self._call(self.party.receive, sender, message)

    async def _run(self, op: Op) -> OpDone:
        await self.start()
        index = len(self.party.ops)
        await self._call(self.party.begin, op)
        deadline = trio.current_time() + self.peer.header.timeouts.deck
        async with self._changed:
            while index not in self._done and self.blame is None:
                # Wake up every second to notice an owing seat that dropped out.
                with trio.move_on_after(min(CHECK_EVERY, max(0.0, deadline - trio.current_time()))):
                    await self._changed.wait()
                    continue
                owed = {seat for seat, _ in self.party.owed()}
                away = sorted(seat for seat in owed if not self.peer.connected(seat))
                if away:
                    if all([await self.peer.wait_for_return(seat) for seat in away]):
                        deadline = trio.current_time() + self.peer.header.timeouts.deck
                        continue
                    self.blame = self.blame or DeckBlame("connection", away[0], "left and did not come back in time")
                    break
                if trio.current_time() >= deadline:
                    blame = self.party.timeout()
                    self.blame = self.blame or blame
                    break
        if self.blame is not None:
            raise TableAborted(self._blame_text(self.blame), self.blame.seat, self.blame.step)
        return self._done[index]

    def _blame_text(self, blame: DeckBlame) -> str:
        """The deck's verdict for people: the seat by name."""
        name = self.peer.header.seats[blame.seat].name
        if blame.step == "connection":
            return f"{name} {blame.reason}"
        return f"{name} (seat {blame.seat}) broke the deck protocol at step {blame.step!r}: {blame.reason}"

    async def shuffle(self) -> list[int]:
        return list((await self._run(ShuffleOp())).handles)

    async def coin(self, label: str, bound: int) -> int:
        return (await self._run(CoinOp(label, bound))).value

    async def deal(self, to: Mapping[int, int]) -> None:
        await self._run(DealOp(dict(to)))

    async def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]:
        return dict((await self._run(RevealOp(tuple(handles), owner))).faces)

    async def transfer(self, handles: Sequence[int], to: int) -> Any:
        done = await self._run(TransferOp(tuple(handles), to))
        return list(done.handles) if done.handles else None

    def known(self, seat: int) -> Mapping[int, Card]:
        return self.party.known if seat == self.peer.seat else {}

    async def open_all(self) -> dict[int, Card]:
        return dict((await self._run(AuditOp())).faces)


class RemoteSeat:
    """A seat played on another peer: its moves arrive as signed ``action`` entries."""

    def __init__(self, peer: Peer, seat: int):
        self.peer = peer
        self.seat = seat
        self._send, self._receive = trio.open_memory_channel[tuple[int, Action]](64)

    def deliver(self, turn: int, action: Action) -> None:
        try:
            self._send.send_nowait((turn, action))
        except trio.WouldBlock:
            raise TableAborted(f"seat {self.seat} sent a flood of moves", self.seat, "action") from None

    async def choose(self, session: TableSession, seat: int) -> Action:
        deadline = trio.current_time() + self.peer.header.timeouts.turn
        while True:
            # Wake up every second to notice a seat that dropped out (it gets the grace period).
            with trio.move_on_after(min(CHECK_EVERY, max(0.0, deadline - trio.current_time()))):
                turn, action = await self._receive.receive()
                if turn != self.peer.turns:
                    raise TableAborted(
                        f"seat {seat} sent a move for turn {turn} during turn {self.peer.turns}", seat, "action"
                    )
                return action
            if not self.peer.connected(seat):
                if not await self.peer.wait_for_return(seat):
                    raise TableAborted(f"{session.names[seat]} left and did not come back in time", seat, "action")
                deadline = trio.current_time() + self.peer.header.timeouts.turn
            elif trio.current_time() >= deadline:
                raise TableAborted(f"{session.names[seat]} did not move in time", seat, "action")


class LocalSeat:
    """This peer's own seat: a person or a bot chooses, then the move is signed and sent."""

    def __init__(self, peer: Peer, agent: SeatAgent):
        self.peer = peer
        self.agent = agent

    def __getattr__(self, name: str) -> Any:  # observe(), put() of the wrapped agent
        return getattr(self.agent, name)

    async def _choose_in_time(self, session: TableSession, seat: int) -> Action:
        """The agent's choice; if the turn time is nearly up and the game says what an idle
        player does (``Game.idle_action``), that instead."""
        patience = self.peer.header.timeouts.turn * IDLE_SHARE
        with trio.move_on_after(patience):
            return await self.agent.choose(session, seat)
        idle = session.game.idle_action(session.state, seat, session.known())
        if idle is None:
            return await self.agent.choose(session, seat)
        session.publish("notice", f"time is up: {session.describe(seat, idle)} for you")
        return idle

    async def choose(self, session: TableSession, seat: int) -> Action:
        logged = self.peer.logged_action()
        if logged is not None:  # replaying our journal after a restart: the move is made
            await self.peer.publish("action", {"turn": self.peer.turns, "action": logged})
            return logged
        while True:
            action = await self._choose_in_time(session, seat)
            try:
                session.game.check(session.state, seat, action)
            except IllegalAction as exc:
                session.publish("error", str(exc))
                continue
            await self.peer.publish("action", {"turn": self.peer.turns, "action": action})
            return action


class Peer:
    """One seat at a networked table, for the game phase (after the lobby)."""

    def __init__(
        self,
        identity: Identity,
        header: TableHeader,
        seat: int,
        game: Game,
        agent: SeatAgent,
        *,
        seed: bytes | None = None,
        journal: Any = None,
    ):
        self.identity = identity
        self.header = header
        self.seat = seat
        self.game = game
        self.header_wire = header.to_wire()
        self.log = Log(header.table, self.header_wire, [s.keys for s in header.seats])
        self.connections: dict[int, Connection] = {}
        self._serving: dict[int, list[Connection]] = {}  # seat -> connections being read, newest last
        self._returned: dict[int, trio.Event] = {}
        self.left: dict[int, str] = {}  # seats that said goodbye before the game ended: their reason
        self._away_since: dict[int, float] = {}  # seat -> when its connection dropped
        self.send_lock = trio.Lock()
        self.turns = 0  # moves applied so far: binds each action entry to its turn
        self.journal = journal
        self.blames: list[str] = []
        self.aborted: TableAborted | None = None
        # After a restart: our own entries from the journal, re-used instead of re-made (a
        # re-made private entry would differ in its random nonce: two versions of one entry).
        self._replay_own: deque[Entry] = deque()
        self._replay_others: list[Entry] = []
        # After a restart, until every other seat has said what it holds of our own chain
        # beyond our journal: nothing is signed or acted on (recover_own).
        self._recovery: OwnChainRecovery | None = None
        # Journal writes not yet fsynced: (time of the first, time of the last), or None.
        self._unsynced: tuple[float, float] | None = None
        # Set when the replay put entries of ours back in the log while others' entries were
        # held: they may have waited for them (run_background hands them on).
        self._own_grew = trio.Event()
        # Entries that arrived ahead of a gap in their seat's chain, until the gap is fetched.
        self._early: dict[int, dict[int, Entry]] = {}
        # Accepted entries whose sender had seen entries we have not: handed on once we have
        # (causal order: a nonce never overtakes the commitment it answers).
        # Each with the seat that brought it and since when it waits (oldest first).
        self._held: dict[Entry, tuple[int | None, float]] = {}
        self._evidence: list[LogBlame] = []  # provable faults we found, to publish
        # (sender, deck op) -> the signed entry that carried a private deck message to us: an
        # accusation about that message reveals the entry's message key (wire.md section 8).
        self._private_in: dict[tuple[int, int], Entry] = {}
        self._echo_checks: dict[tuple[int | None, int, int], bytes] = {}  # (reporter, seat, seq)
        # connection -> {seat: (lo, hi)}: entries lo..hi-1 of that seat's chain went out on it
        # (the last run written without a gap). A fetch's answer skips them: they are ahead of
        # it on the stream.
        self._written: dict[Connection, dict[int, tuple[int, int]]] = {}
        self._last_progress = ""
        self._chat_send, self._chat_receive = trio.open_memory_channel[str](64)
        # Cancelled by abort(), which may come before play() starts (a bad entry in the mesh).
        self._abort_scope = trio.CancelScope()
        seed = seed if seed is not None else secrets.token_bytes(32)
        cards = game.deck(header.options, header.players)
        self.party = Party(seat, header.players, encode_header(self.header_wire), cards, seed, send_first=True)
        self.deck = NetworkDeck(self, self.party)
        seats: list[Any] = []
        for index in range(header.players):
            seats.append(LocalSeat(self, agent) if index == seat else RemoteSeat(self, index))
        self.session = TableSession(
            game, header.options, header.players, self.deck, seats,
            me=seat, names=[s.name for s in header.seats],
        )
        self.session.subscribe(self._count_turns)
        self.session.on_say = self._say

    # -- state ----------------------------------------------------------------------------

    def connected(self, seat: int) -> bool:
        conn = self.connections.get(seat)
        return conn is not None and not conn.closed

    def _say(self, text: str) -> None:
        """Send a chat line to every seat (from the console's thread of control: trio's)."""
        self._chat_send.send_nowait(text)

    async def _chat_loop(self) -> None:
        async for text in self._chat_receive:
            await self.publish("chat", {"text": text})

    @property
    def finished(self) -> bool:
        """Our game is over (a result or an abort)."""
        return self.aborted is not None or self.session.result is not None

    def all_finished(self) -> bool:
        """Every seat has published its result entry."""
        return all(any(e.kind == "result" for e in self.log.entries(s)) for s in range(self.header.players))

    def all_stopped(self) -> bool:
        """After the game stopped: every seat still connected has published its deck seed, the
        last entry a stopping seat signs (so nobody is cut off before it has everyone's)."""
        return all(s == self.seat or not self.connected(s) or self._revealed_seed(s)
                   for s in range(self.header.players))

    def _revealed_seed(self, seat: int) -> bool:
        return any(e.kind == "deck" and isinstance(e.body.get("msg"), dict) and e.body["msg"].get("type") == "seed"
                   for e in reversed(self.log.entries(seat)))

    def progress(self, party: Party) -> None:
        """Publish "shuffling: 2 of 4 players done" while a deck step waits on other seats."""
        if party.current >= len(party.ops):
            return
        op = party.ops[party.current]
        waiting = {seat for seat, _ in party.owed()}
        name = {"ShuffleOp": "shuffling", "DealOp": "dealing", "AuditOp": "auditing"}.get(type(op).__name__)
        if name is None or not waiting:
            return
        text = f"{name}: {self.header.players - len(waiting)} of {self.header.players} players done"
        if text != self._last_progress:
            self._last_progress = text
            self.session.publish("progress", text, waiting=sorted(waiting))

    def _count_turns(self, event: Any) -> None:
        if event.kind == "action":
            self.turns += 1

    # -- sending --------------------------------------------------------------------------

    async def publish(self, kind: str, body: dict[str, Any]) -> Entry:
        """Sign our next entry, keep it (journal first: it must survive a crash once sent),
        and send it to every connected seat."""
        (entry,) = await self._publish([(kind, lambda: body)])
        return entry

    async def publish_deck(self, sends: Sequence[Any]) -> None:
        """The deck party's messages (``Send``): each public one in an entry of its own; private
        ones that follow each other, to different seats, sealed together in one entry (a deal
        is one entry per seat, not one per seat and recipient: every peer checks every entry)."""
        groups: list[list[Any]] = []
        for send in sends:
            last = groups[-1] if groups else None
            if send.to is not None and last and last[0].to is not None \
                    and all(other.to != send.to for other in last):
                last.append(send)
            else:
                groups.append([send])
        await self._publish([("deck", lambda group=group: self._deck_body(group)) for group in groups])

    def _deck_body(self, group: Sequence[Any]) -> dict[str, Any]:
        first = group[0]
        if first.to is None:
            return {"msg": self._revealed_evidence(first.message)}
        where = {"table": self.header.table, "seat": self.seat, "seq": self.log.next_seq(self.seat),
                 "kind": "deck"}
        if len(group) == 1:
            return seal_body(self.identity, **where, to=first.to, recipient=self.header.seats[first.to].keys,
                             payload=first.message)
        return seal_bodies(self.identity, **where,
                           items=[(send.to, self.header.seats[send.to].keys, send.message) for send in group])

    async def _publish(self, items: Sequence[tuple[str, Any]]) -> list[Entry]:
        """Sign entries in order (each body is made just before its entry: a sealed body binds
        the entry's seq), journal and sync them once, then send them. While replaying the
        journal after a restart, our logged entries are used instead of new ones."""
        entries, fresh = [], []
        for kind, body in items:
            if self._replay_own:
                entries.append(self._replayed(kind))
                continue
            entry = self.log.make_entry(self.identity, self.seat, kind, body())
            entries.append(entry)
            fresh.append(entry)
        if fresh and self.journal is not None:
            for entry in fresh:
                self.journal.append_entry(entry)
            # In the file before it leaves: it survives this program being killed. The fsync
            # (a power cut) comes later (keep_journal_synced); a seat that lost it that way
            # takes it back from the others before it signs again (recover_own).
            self.journal.flush()
            now = trio.current_time()
            self._unsynced = (self._unsynced[0] if self._unsynced else now, now)
        if not entries:
            return entries
        if self._held and len(entries) > len(fresh):
            # A replayed entry of ours is in the log again: held entries of others may have
            # waited for it (a fresh one nobody can have seen yet).
            self._own_grew.set()
        # Replayed entries are sent again too: the others may have fetched from us before the
        # replay reached them (a copy they hold is ignored).
        order = self._send_order()
        for entry in entries:
            frame = frame_of(entry.wire_bytes)
            for conn in order:
                try:
                    await conn.send_frame(frame)
                except ConnectionClosed:
                    pass  # it catches up when it reconnects
                else:
                    self._note_written(conn, entry)
        return entries

    def _note_written(self, conn: Connection, entry: Entry) -> None:
        written = self._written.setdefault(conn, {})
        lo, hi = written.get(entry.sender, (0, 0))
        written[entry.sender] = (lo, hi + 1) if entry.seq == hi and hi > lo else (entry.seq, entry.seq + 1)

    def _send_order(self) -> list[Connection]:
        """Our connections in the order :func:`send_order` gives."""
        waiting = {seat for seat, _ in self.party.owed()}
        return [self.connections[s] for s in send_order(self.seat, self.header.players, self.connections, waiting)]

    def _replayed(self, kind: str) -> Entry:
        entry = self._replay_own.popleft()
        if entry.kind != kind:
            raise TableAborted(f"our journal has a {entry.kind} entry where the replay makes a {kind} one",
                               self.seat, "replay")
        self.log.append(entry)
        return entry

    def logged_action(self) -> Action | None:
        """During a replay, our next move as the journal has it."""
        if self._replay_own and self._replay_own[0].kind == "action":
            return self._replay_own[0].body["action"]
        return None

    def load_journal(self, entries: Sequence[Entry]) -> None:
        """Prepare to replay a journal written before a crash: our own entries are re-used as
        the game reaches them, everyone else's are fed back in (:meth:`replay`). Nothing is
        signed or acted on until :meth:`recover_own` is done."""
        for entry in entries:
            (self._replay_own if entry.sender == self.seat else self._replay_others).append(entry)
        self._recovery = OwnChainRecovery(self.header.table, self.seat, self.header.players,
                                          self.header.seats[self.seat].keys, list(self._replay_own),
                                          self.log.head(self.seat))

    async def recover_own(self) -> None:
        """After a restart, before the game goes on: wait until every other seat has said what
        it holds of our own chain beyond the journal, and sent it (net/recovery.py). Those
        entries are re-used like the journal's, never signed again."""
        if self._recovery is not None:
            await self._recovery.done.wait()
            self._recovery = None
        await self._dispatch_ready()

    @property
    def recovering(self) -> bool:
        return self._recovery is not None and not self._recovery.done.is_set()

    def missing_answers(self) -> list[int]:
        """While we recover: seats that have not yet said what they hold of our chain."""
        return self._recovery.missing_answers() if self._recovery is not None else []

    def _take_back_own(self, via: int, entry: Entry) -> None:
        """One of our own entries, back from seat ``via`` while we recover: kept (in the journal
        too) to be re-used as the game reaches it."""
        try:
            taken = self._recovery.take(entry)
        except ValueError as exc:
            self.blame(via, f"sent {exc}")
            return
        if taken is not None:
            if self.journal is not None:
                self.journal.append_entry(taken)
            self._replay_own.append(taken)

    def _on_fetched(self, seat: int, message: Fetched) -> None:
        if self.recovering:
            problem = self._recovery.answered(seat, message)
            if problem:
                self.blame(seat, problem)

    async def run_background(self) -> None:
        """What runs alongside the game for its whole length: the journal's fsync, handing on
        held entries once the replay has re-made the entries of ours they wait for, and asking
        for what a held entry waits for when its author did not send it to us."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.keep_journal_synced)
            nursery.start_soon(self._dispatch_when_own_grows)
            nursery.start_soon(self._fetch_what_stays_missing)

    async def _fetch_what_stays_missing(self) -> None:
        """A seat we are connected to sends us its entries itself, so an entry that others had
        seen and we lack is normally on its way (accept does not ask for it). If one held
        entry still waits after :data:`FETCH_LATE` seconds, that seat did not send it to us:
        ask the seat that brought the held entry (again every FETCH_LATE while it waits)."""
        while True:
            await trio.sleep(FETCH_LATE)
            now = trio.current_time()
            for entry, (via, since) in list(self._held.items()):
                if via is None or now - since < FETCH_LATE or entry not in self._held:
                    continue
                self._held[entry] = (via, now)
                for fetch in self.log.missing(entry):
                    await self._send_to(via, fetch)

    async def _dispatch_when_own_grows(self) -> None:
        # Its own task: dispatching takes the send lock, which the publisher holds.
        while True:
            await self._own_grew.wait()
            self._own_grew = trio.Event()
            await self._dispatch_ready()

    async def keep_journal_synced(self) -> None:
        """Run alongside the game: fsync the journal (in a worker thread) once the entries of
        ours written since the last fsync are followed by a quiet moment, or at the latest
        :data:`JOURNAL_SYNC_LATEST` seconds after the first of them. Everything we sent is
        also held by the seats we sent it to (recover_own), and a disk flush costs CPU time
        the other peers' checks wait for: an fsync after each entry, even in a thread, made a
        doubt 0.3-0.5 ms slower here. It looks every :data:`JOURNAL_QUIET` seconds, so that
        sending an entry wakes nothing up."""
        if self.journal is None:
            return
        while True:
            await trio.sleep(JOURNAL_QUIET)
            if self._unsynced is None:
                continue
            first, last = self._unsynced
            now = trio.current_time()
            if now - last >= JOURNAL_QUIET or now - first >= JOURNAL_SYNC_LATEST:
                self._unsynced = None  # what is written from here on waits for the next fsync
                await trio.to_thread.run_sync(self.journal.fsync)

    async def replay(self) -> None:
        others, self._replay_others = self._replay_others, []
        for entry in others:
            await self.accept(entry, via=None, journal=False)

    # Accusations about a private deck message (protocol/deck.md section 6, wire.md section 8).
    # The Party names the message by its plaintext; that is not signed by its sender, so on the
    # wire the evidence is the signed entry that carried it and its message key instead:
    # {"sender": seat, "entry": seq, "key": message key}. Every seat (and p2pcards verify)
    # opens that box from the log and checks what the sender really signed.

    def _revealed_evidence(self, message: dict[str, Any]) -> dict[str, Any]:
        evidence = message.get("evidence") if message.get("type") == "accuse" else None
        if not (isinstance(evidence, dict) and "message" in evidence):
            return message
        sender = evidence.get("sender")
        entry = self._private_in.get((sender, message.get("op")))
        if entry is None:  # not expected: the Party accuses only about what it received
            return {**message, "evidence": None}
        key = entry_message_key(self.identity, self.seat, entry, self.header.seats[sender].keys)
        return {**message, "evidence": {"sender": sender, "entry": entry.seq, "key": key}}

    def _opened_evidence(self, accuser: int, message: Any) -> Any:
        """An accusation about a private message, as the Party checks it: the evidence becomes
        the payload of the signed entry it names, opened with the revealed key (``None`` if
        it names no private deck entry to the accuser for that operation, or does not open)."""
        if not isinstance(message, dict) or message.get("type") != "accuse" or message.get("step") != "open":
            return message
        evidence = message.get("evidence")
        if isinstance(evidence, dict) and "scalar" in evidence:
            return message  # not about a private message (a reused key's proof is public)
        payload = sender = None
        try:
            sender, seq, key = evidence["sender"], evidence["entry"], evidence["key"]
            if not (isinstance(seq, int) and seq >= 0 and isinstance(key, bytes)):
                raise ValueError("malformed evidence")
            entry = self.log.entries(sender, seq)[0]
            if entry.kind == "deck" and accuser in recipients(entry.body):
                payload = open_revealed(entry, key, accuser)
                if not isinstance(payload, dict) or payload.get("op") != message.get("op"):
                    payload = None
        except (ProtocolError, KeyError, IndexError, TypeError, ValueError, AttributeError):
            payload = None
        return {**message, "evidence": {"sender": sender, "message": payload}}

    # -- receiving ------------------------------------------------------------------------

    def attach(self, seat: int, conn: Connection) -> None:
        """Use ``conn`` for ``seat`` from now on (a reconnecting seat replaces its old one)."""
        # A seat that stops reading must not hold us (and the seats after it) for long.
        conn.send_timeout = min(SEND_SECONDS, max(1.0, self.header.timeouts.deck / 2))
        self.connections[seat] = conn
        if seat in self._away_since:
            self.session.publish("connection", f"{self.header.seats[seat].name} is back", seat=seat)
        self._away_since.pop(seat, None)
        event = self._returned.pop(seat, None)
        if event is not None:
            event.set()

    async def serve_connection(self, seat: int, conn: Connection) -> None:
        """Read entries from ``seat`` until the connection ends. First ask it for every entry
        we lack (after a restart or a dropped connection, that is what we missed)."""
        self.attach(seat, conn)
        serving = self._serving.setdefault(seat, [])
        serving.append(conn)
        try:
            if self.recovering:  # first of all: what it holds of our own chain
                await conn.send(self._recovery.fetch().to_wire())
            for other in range(self.header.players):
                # Ours are all in our journal. A third seat we are connected to sends us its
                # entries itself: asking here too only brings copies (with seven seats, a
                # quarter of what the mesh carried during the shuffle).
                if other != self.seat and (other == seat or not self.connected(other)):
                    fetch = Fetch(self.header.table, other, self.log.next_seq(other))
                    await conn.send(fetch.to_wire())
            while True:
                try:
                    raw = await conn.receive()
                except FrameError as exc:
                    self.blame(seat, f"sent a malformed frame ({exc.reason}); connection closed")
                    await conn.aclose()
                    return
                await self._on_message(seat, conn, raw)
        except ConnectionClosed:
            failure = getattr(conn, "failure", None)  # we closed it: it stopped reading
            if failure is not None:
                self.blame(seat, f"{failure}; connection closed")
            return
        finally:
            self._written.pop(conn, None)
            serving.remove(conn)
            if self.connections.get(seat) is conn:
                conn.closed = True
                # Both seats may dial each other at once (one of them restarted): the connection
                # the other side kept may be our spare one. Use it, or that seat and we would each
                # hold a different connection and both wait for the other to come back.
                spare = next((other for other in serving if not other.closed), None)
                if spare is not None:
                    self.connections[seat] = spare
                else:
                    self._away_since.setdefault(seat, trio.current_time())
                    self.session.publish("connection", f"{self.header.seats[seat].name} disconnected", seat=seat)

    async def _on_message(self, seat: int, conn: Connection, raw: Any) -> None:
        try:
            message = parse_message(raw, f"seat {seat}")
        except ProtocolError as exc:
            self.blame(seat, str(exc))
            return
        if isinstance(message, Fetch):
            if message.table == self.header.table and not 0 <= message.seat < self.header.players:
                self.blame(seat, f"asked for the entries of seat {message.seat}, but the table has "
                                 f"{self.header.players} seats")
            elif message.table == self.header.table:
                # Entries we wrote on this connection before the fetch reach it before our
                # answer: they need not go again (on a new connection, the first entries of
                # each side cross the other side's fetches).
                lo, hi = self._written.get(conn, {}).get(message.seat, (0, 0))
                for entry in self.log.entries(message.seat, message.start):
                    if not lo <= entry.seq < hi:
                        await conn.send_frame(frame_of(entry.wire_bytes))
                        self._note_written(conn, entry)
                count = self.log.next_seq(message.seat)
                await conn.send(Fetched(self.header.table, message.seat, count).to_wire())
            return
        if isinstance(message, Fetched):
            self._on_fetched(seat, message)
            return
        if isinstance(message, Bye):
            self._on_bye(seat, conn, message)
            return
        if not isinstance(message, Entry):
            return
        if message.sender == self.seat and self.recovering:
            self._take_back_own(seat, message)
            return
        await self.accept(message, via=seat)

    async def accept(self, entry: Entry, *, via: int | None, journal: bool = True) -> None:
        try:
            fresh = self.log.append(entry, via=via)
        except Rejected as exc:
            if exc.blame.code == GAP and via is not None:
                await self._hold_early(entry, via)
            else:
                self.blame_log(exc.blame)
            return
        if not fresh:
            if self._echo_checks.pop((via, entry.sender, entry.seq), None) is not None:
                # Asked to back up its echo, the reporter sent the very version we hold.
                self.blame(via, f"its head echo names a version of seat {entry.sender}'s entry "
                                f"#{entry.seq} that it cannot show")
            return
        if journal and self.journal is not None:
            self.journal.append_entry(entry)
        for mismatch in self.log.check_seen(entry):
            # Either that seat told peers different things or the reporter echoes a lie: ask
            # the reporter for its copy; two signed versions are proof (the log then blames).
            self._echo_checks[(mismatch.reporter, mismatch.seat, mismatch.seq)] = mismatch.theirs
            await self._send_to(mismatch.reporter, Fetch(self.header.table, mismatch.seat, mismatch.seq))
        if via is not None:
            # Entries its sender had seen and we have not: a seat we are connected to sends
            # us its own (they are on the way); those of a seat we are not connected to we
            # ask for from the one that brought this entry.
            for fetch in self.log.missing(entry):
                if not self.connected(fetch.seat):
                    await self._send_to(via, fetch)
        self._held[entry] = (via, trio.current_time())
        await self._dispatch_ready()
        early = self._early.get(entry.sender)
        while early and self.log.next_seq(entry.sender) in early:
            await self.accept(early.pop(self.log.next_seq(entry.sender)), via=via)

    def _causally_ready(self, entry: Entry) -> bool:
        """We hold every entry its sender had seen when it signed it."""
        return all(count <= self.log.next_seq(seat) for seat, (count, _) in enumerate(entry.body["seen"]))

    async def _dispatch_ready(self) -> None:
        # Several receive loops run this; each entry is taken off the list before any await.
        # While we recover our own entries nothing is acted on (it could make us sign).
        while not self.recovering:
            ready = next((e for e in self._held if self._causally_ready(e)), None)
            if ready is None:
                return
            del self._held[ready]
            await self.dispatch(ready)

    async def _hold_early(self, entry: Entry, via: int) -> None:
        """An entry beyond a gap in its seat's chain (we missed some while away): keep it and
        ask for the gap. Bounded, so a peer cannot make us hoard."""
        early = self._early.setdefault(entry.sender, {})
        if len(early) >= MAX_EARLY:
            self.blame(via, f"sent more than {MAX_EARLY} entries of seat {entry.sender} ahead of a gap")
            return
        if not early:
            await self._send_to(via, Fetch(self.header.table, entry.sender, self.log.next_seq(entry.sender)))
        early[entry.seq] = entry

    async def _send_to(self, seat: int, message: Any) -> None:
        conn = self.connections.get(seat)
        if conn is not None and not conn.closed:
            try:
                await conn.send(message.to_wire())
            except ConnectionClosed:
                pass

    async def dispatch(self, entry: Entry) -> None:
        sender, body = entry.sender, entry.body
        if sender == self.seat:
            return  # our own entry coming back (a relay or a catch-up): nothing to act on
        if entry.kind == "deck":
            if "msg" in body:
                await self.deck.receive(sender, self._opened_evidence(sender, body["msg"]))
            elif self.seat in recipients(body):
                try:
                    message = open_body(self.identity, self.seat, entry, self.header.seats[sender].keys)
                except ProtocolError as exc:
                    self.abort(TableAborted(f"seat {sender} sent a private deck message that does not open: {exc}", sender, "deck"))
                    return
                if isinstance(message, dict) and isinstance(message.get("op"), int):
                    self._private_in.setdefault((sender, message["op"]), entry)
                await self.deck.receive(sender, message)
        elif entry.kind == "action":
            turn, action = body.get("turn"), body.get("action")
            if sender == self.seat or not isinstance(turn, int) or not isinstance(action, dict):
                self.blame(sender, "malformed action entry")
                return
            try:
                self.session.seats[sender].deliver(turn, action)
            except TableAborted as exc:
                self.abort(exc)
        elif entry.kind == "blame":
            self._on_evidence(sender, body)
        elif entry.kind == "chat":
            text = " ".join(str(body.get("text", "")).split())[:MAX_CHAT]
            self.session.publish("chat", f"{self.header.seats[sender].name}: {text}", seat=sender)

    def blame(self, seat: int, reason: str) -> None:
        message = f"seat {seat} ({self.header.seats[seat].name}): {reason}"
        self.blames.append(message)
        self.session.publish("error", message, seat=seat)

    def blame_log(self, blame: LogBlame) -> None:
        self.blame(blame.seat, f"{blame.code}: {blame.reason}")
        if blame.provable and self.aborted is None:
            self._evidence.append(blame)
            self.abort(TableAborted(blame.reason, blame.seat, blame.code))

    def _on_evidence(self, sender: int, body: Any) -> None:
        """Another seat proves a fault (two versions of one entry): check the proof ourselves."""
        try:
            blame = LogBlame.from_wire(body.get("blame"))
            proven = blame.provable and blame.verify(self.header.table, self.log.roster, self.log)
        except (ProtocolError, AttributeError, TypeError, ValueError, KeyError):
            proven = False
        if proven:
            self.blame(blame.seat, f"{blame.code} (proven by seat {sender}): {blame.reason}")
            self.abort(TableAborted(f"{blame.reason} (proven by seat {sender})", blame.seat, blame.code))
        else:
            self.blame(sender, "published evidence that does not prove anything")

    def abort(self, exc: TableAborted) -> None:
        if self.aborted is None:
            self.aborted = exc
            self._abort_scope.cancel()

    def _on_bye(self, seat: int, conn: Connection, message: Bye) -> None:
        """A seat that leaves on purpose says so (``quit`` in its console, Ctrl-C): nobody
        waits the grace period for a player who is not coming back. The game ends now, as
        abandoned by that seat, if it had not ended."""
        name = self.header.seats[seat].name
        if self.session.result is not None or self.aborted is not None:
            return  # over already: it is only going home
        self.left[seat] = message.reason
        if self.connections.get(seat) is conn:
            conn.closed = True  # it closes next; meanwhile it is not playing
            self._away_since.setdefault(seat, trio.current_time())
        self.session.publish("connection", f"{name} left the table: {message.reason}", seat=seat)
        self.abort(TableAborted(f"{name} left the table: {message.reason}", seat, "connection"))

    async def say_goodbye(self, reason: str) -> None:
        """Tell every connected seat that we leave before the game's end (at most a second,
        even while being cancelled): they end the game at once instead of waiting for us."""
        with trio.CancelScope(shield=True), trio.move_on_after(GOODBYE_SECONDS):
            # Every connection, even one marked closed: being cancelled, its reader marked it
            # so on the way out, while the socket itself is still open.
            for conn in list(self.connections.values()):
                try:
                    await conn.send(Bye(reason[:1000]).to_wire())
                except ConnectionClosed:
                    pass

    async def wait_for_return(self, seat: int) -> bool:
        """Wait for ``seat`` to reconnect, until the grace period since it left runs out."""
        if self.connected(seat):
            return True
        event = self._returned.setdefault(seat, trio.Event())
        left = self._away_since.setdefault(seat, trio.current_time())
        grace = self.header.timeouts.grace
        self.session.publish("connection", f"{self.header.seats[seat].name} is away; waiting up to "
                             f"{grace:g} s for them to come back", seat=seat)
        with trio.move_on_at(left + grace):
            await event.wait()
            return True
        return False

    # -- running --------------------------------------------------------------------------

    async def play(self) -> Any:
        """Run the game to the end (the connections must be served alongside)."""
        with self._abort_scope:
            failure: Exception | None = None
            async with trio.open_nursery() as chat:
                chat.start_soon(self._chat_loop)
                # Caught inside the nursery: trio would wrap it in an ExceptionGroup.
                try:
                    await self.deck.start()
                    result = await self.session.run()
                except (TableAborted, IllegalAction) as exc:
                    failure = exc
                chat.cancel_scope.cancel()
            if isinstance(failure, TableAborted):
                self.aborted = failure
            elif failure is not None:
                seat = self.session.step.seat if self.session.step is not None else None
                self.aborted = TableAborted(f"seat {seat} made an illegal move: {failure}", seat, "action")
            else:
                await self.publish("result", {"result": result.to_wire(),
                                              "violations": [v.to_wire() for v in self.session.violations]})
                return result
        await self._publish_evidence()
        await self._reveal_seed()
        raise self.aborted

    async def _reveal_seed(self) -> None:
        """The game is over without its audit: reveal our deck seed anyway (a signed public
        ``seed`` deck message, as the audit sends it), so that anyone holding the transcript
        can re-derive our side of the deck and see that it was honest (protocol/deck.md 4.3).
        The hands are over, so it gives nothing away that matters."""
        party = self.party
        if not party._started or party.seeds[self.seat] is not None:
            return  # nothing committed yet, or already revealed (the audit, a deck abort)
        message = {"type": "seed", "seed": party._seed}
        party.seeds[self.seat] = party._seed  # for our end record
        with trio.CancelScope(shield=True):
            async with self.send_lock:
                await self.publish_deck([Send(None, message)])

    async def _publish_evidence(self) -> None:
        """Tell every seat what we can prove, so they stop too and name the same seat."""
        for blame in self._evidence:
            with trio.CancelScope(shield=True):
                await self.publish("blame", {"blame": blame.to_wire()})
        self._evidence.clear()

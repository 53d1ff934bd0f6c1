"""One seat of a table played over the network: the game phase, the trio driver.

A :class:`Peer` holds its own identity and seed, a connection to every other seat (the mesh),
its :class:`~p2pcards.table.protocol.TableProtocol` (the signed log and every rule decided from
it: causal order, catch-up, echoes, evidence, blame), its deck
:class:`~p2pcards.deck.party.Party` and a :class:`~p2pcards.session.TableSession` that runs the
game's rules. It keeps what needs IO or time: connections, locks, timers, the journal's fsync
and the nursery; it feeds the protocol what arrives and carries out the effects it returns.
Every message it sends is a signed log entry that goes to every other seat, so every peer ends
with the same log; private deck messages travel sealed to their one recipient.

Entry kinds and bodies (besides the ``seen`` head echo every entry carries):

``deck``     ``{"msg": deck message}`` for everyone, ``{"to": seat, "box": sealed msg}``, or
             ``{"boxes": [[seat, sealed msg], ...]}`` for several seats at once (a deal)
``action``   ``{"turn": n, "action": {...}}``: the seat's move on the n-th turn of the game
``chat``     ``{"text": str}``
``result``   ``{"result": {...}, "violations": [...]}``: what this seat computed at the end
"""

from __future__ import annotations

import functools
import math
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import trio

from ..deck.party import Party
from ..game import Action, Game, IllegalAction, Round, Turn
from ..plugins import PLUGIN_STEP, plugin_failure
from ..session import DroppingOut, SeatAgent, SeatPresence, TableSession
from ..table import verdict
from ..table.absence import settling as absence_settling
from ..table.dropouts import is_drop_out_entry
from ..table.header import TableHeader
from ..table.protocol import (
    LEFT_TO_BOT,
    AbsentIn,
    Answer,
    ChatIn,
    DeckIn,
    Effect,
    Halted,
    Keep,
    Left,
    LinksIn,
    MoveIn,
    Named,
    OpenIn,
    SendTo,
    SpectatorSaysIn,
    Stop,
    TableAborted,
    TableProtocol,
    WatchersIn,
    left_to_bot_words,
)
from ..table.referee import CUT_OFF, Links, Report, Timings, gone_verdict, report_due
from ..table.rounds import order_by_echoes
from ..table.stall import Statements
from ..text import printable
from ..wire.files import write_problem
from ..wire.framing import frame_of
from ..wire.identity import Identity
from ..wire.log import SEEN, Log, encode_header
from ..wire.messages import Bye, Entry, Fetch, Fetched, LinksNotice, SpectatorSays, Watchers
from ..wire.sealed import seal_bodies, seal_body
from ..wire.spill import SpillError
from .hooks import PeerHooks
from .network_deck import NetworkDeck
from .seats import LocalSeat, RemoteSeat
from .spectators import OtherWatchers, RelayedChat, Spectators
from .stallclock import StallClock
from .threads import off_the_loop
from .transport import SEND_SECONDS, Connection, ConnectionClosed, FrameError, broadcast, shielded

__all__ = ["CUT_OFF", "CannotWrite", "Peer", "TableAborted", "send_order"]


#: How long a seat leaving before the end spends telling the others (``Peer.say_goodbye``).
GOODBYE_SECONDS = 1.0
#: The journal is fsynced once we have written nothing of ours for this long, or at the latest
#: this long after the first entry not yet on disk (Peer.keep_journal_synced).
JOURNAL_QUIET, JOURNAL_SYNC_LATEST = 0.05, 1.0
#: An entry held this long for entries of a seat we are connected to (which should have sent
#: them itself) makes us ask the seat that brought it for them.
FETCH_LATE = 0.25
#: The most entries of a seat's chain ``Peer.pass_on_results`` sends unasked (its result and the
#: few before it that the other had not seen); more, and the other seat fetches them.
PASS_ON_MOST = 8


class CannotWrite(TableAborted):
    """Our journal cannot be written (a full disk, lost permissions): we leave the table with a
    signed ``bye`` giving this reason (``reason``, as the others read it); ``detail`` says the
    same to our own player, with the file."""

    def __init__(self, seat: int, exc: OSError, path: object = None):
        problem = write_problem(exc)
        super().__init__(f"cannot write its journal: {problem}", seat, "journal")
        self.problem = problem
        where = f" ({path})" if path is not None else ""
        self.detail = f"cannot write our journal{where}: {problem}; we left the table"


def is_goodbye(entry: Entry) -> bool:
    """An entry of the goodbye a seat signs on its way out (its ``stop``, its ``bye``): after our
    journal failed, these are the only ones still signed, unjournaled (the seats we send them to
    keep them, and a restart takes them back, recover_own)."""
    return entry.kind in ("bye", "stop")


def send_order(me: int, players: int, seats: Sequence[int] | Mapping[int, Any], waiting: set[int]) -> list[int]:
    """The order in which seat ``me`` writes an entry to ``seats``: first the seats whose next
    step waits on us (the next pass of a shuffle, say), then around the table from our left.
    With more peers than cores the receiver that gets a frame first usually runs first: the
    one with work to do should not be woken last (7 players on 2 cores: the next shuffle pass
    was often the sixth to get the previous one, 1.5-2 ms later than the first)."""
    return sorted(seats, key=lambda seat: (seat not in waiting, (seat - me) % players))


class Peer(PeerHooks):
    """One seat at a networked table, for the game phase (after the lobby). A modified client
    deviates through the hooks it inherits (net/hooks.py)."""

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
        self.protocol = TableProtocol(identity, header, self.header_wire, seat)
        self.connections: dict[int, Connection] = {}
        self._serving: dict[int, list[Connection]] = {}  # seat -> connections being read, newest last
        self._returned: dict[int, trio.Event] = {}
        self._away_told: set[int] = set()  # seats whose wait we announced since they left
        self._away_since: dict[int, float] = {}  # seat -> when its connection dropped (self.clock)
        #: The private boxes owed to each seat that we found missing at the last look, and when
        #: (self.clock) one of them last came (Links.boxes_came).
        self._boxes_missing: dict[int, frozenset[int]] = {}
        self._boxes_came: dict[int, float] = {}
        self.clock = StallClock()  # for deadlines about other seats: stands still while we are stopped
        #: Every time the table waits by (the referee's: table/referee.py).
        self.timings = Timings.of(header.timeouts)
        self._went_silent: set[int] = set()  # seats whose last connection we closed as silent
        #: Each other seat's last ``links`` notice (a partial partition: table.md section 5).
        self._reports: dict[int, Report] = {}
        #: What our waits last said we wait on and why, and when (trio time): our notices.
        self._waits_on: tuple[tuple[tuple[int, str], ...], float] = ((), -math.inf)
        self._absence_changed = trio.Event()  # set (and replaced) at each absent statement
        self.send_lock = trio.Lock()
        self.turns = 0  # moves applied so far: binds each action entry to its turn
        self.journal = journal
        # Set once we no longer recover our own chain after a restart (recover_own waits on it).
        self._recovered = trio.Event()
        # Journal writes not yet fsynced: (time of the first, time of the last), or None; and
        # set (replaced once they are fsynced) when the first of them is written.
        self._unsynced: tuple[float, float] | None = None
        self._unsynced_written = trio.Event()
        # Set when the replay put entries of ours back in the log while others' entries were
        # held: they may have waited for them (run_background hands them on).
        self._own_grew = trio.Event()
        # connection -> {seat: (lo, hi)}: entries lo..hi-1 of that seat's chain went out on it
        # (the last run written without a gap). A fetch's answer skips them: they are ahead of
        # it on the stream.
        self._written: dict[Connection, dict[int, tuple[int, int]]] = {}
        #: While the table runs (run_background): where the rest of a send waits for room in a
        #: socket, so that whoever sends waits on no peer (issue 29).
        self._sending: trio.Nursery | None = None
        self._passed_on: set[tuple[int, int]] = set()  # (to, seat): pass_on_results did
        self._last_progress = ""
        self._chat_send, self._chat_receive = trio.open_memory_channel[str](64)
        # Cancelled by abort(), which may come before play() starts (a bad entry in the mesh).
        self._abort_scope = trio.CancelScope()
        # Our stop entry, signed the moment our game stopped and sent by _publish_stop.
        self._stop_entry: Entry | None = None
        self._stop_sent = False
        self._playing = False  # play() has begun (a stop before it signs nothing)
        #: Set when our journal could not be written: we sign nothing more but our goodbye.
        self.write_failure: CannotWrite | None = None
        self._goodbye_said = False
        seed = seed if seed is not None else secrets.token_bytes(32)
        cards = game.deck(header.options, header.players)
        self.party = Party(seat, header.players, encode_header(self.header_wire), cards, seed, send_first=True)
        self.deck = NetworkDeck(self, self.party)
        seats: list[Any] = []
        for index in range(header.players):
            seats.append(LocalSeat(self, agent) if index == seat else RemoteSeat(self, index))
        self.session = TableSession(
            game,
            header.options,
            header.players,
            self.deck,
            seats,
            me=seat,
            names=[s.name for s in header.seats],
        )
        self.session.subscribe(self._count_turns)
        self.session.turn_limit = self.timings.turn
        self.session.presence_of = self._shown_presence
        self.session.on_say = self._say
        self.session.round_order = self._round_order
        self.session.open_round = self._open_round
        #: Seats whose player left and whose own program lets a bot finish them (ours after
        #: :meth:`leave_to_bot`; another's after its signed chat line :data:`LEFT_TO_BOT`).
        self.bot_played: set[int] = set()
        if hasattr(agent, "hand_over"):  # a person plays our seat: it may leave to a bot
            self.session.leave_to_bot = self.leave_to_bot
            self.session.leave_to_drop_out = self.leave_to_drop_out
        #: People watching the table through this seat (net/spectators.py): they get the
        #: public entries only, and nothing they send is read.
        self.spectators = Spectators(
            self.header_wire,
            lambda: self.protocol.log,
            on_change=self._watchers_changed,
            chat=header.spectator_chat,
            on_say=self._spectator_said,
        )
        self._relayed = RelayedChat()
        # Per seat, the seq of its result entries and of every entry that bears on the game's
        # end: kept as entries come, so that the loops that ask (every 10 ms while lingering)
        # never read the log's spilled entries (issue 23).
        self.results = self.log.index(lambda e: e.kind == "result")
        self.endings = self.log.index(lambda e: e.kind in ("result", "bye", "stop") or is_drop_out_entry(e))
        self.first_deck = self.log.index(lambda e: e.kind == "deck", first=True)
        self._endings_read: tuple[tuple[bytes, ...], list[Entry]] | None = None
        self._watching: list[str] = []
        self._shown_watching: list[str] = []  # the list the console was last given
        #: Who watches through the other seats, as their ``watchers`` notices say.
        self.other_watchers = OtherWatchers([s.name for s in header.seats])

    # -- state ----------------------------------------------------------------------------

    @property
    def log(self) -> Log:
        return self.protocol.log

    @property
    def blames(self) -> list[str]:
        return self.protocol.blames

    @property
    def left(self) -> dict[int, str]:
        """Seats that said goodbye before the game ended: their reason."""
        return self.protocol.left

    @property
    def aborted(self) -> TableAborted | None:
        return self.protocol.aborted

    @aborted.setter
    def aborted(self, exc: TableAborted | None) -> None:
        self.protocol.aborted = exc

    def connected(self, seat: int) -> bool:
        conn = self.connections.get(seat)
        return conn is not None and not conn.closed

    def quiet(self, seat: int, due: float | None = None) -> bool:
        """Nothing has come from ``seat``'s connection for QUIET_SECONDS, or nothing since
        ``due`` (the trio time its timeout fell due): it may be cut (the referee's
        ``Links.quiet``)."""
        return self.links().quiet(seat, self.timings, due)

    def links(self) -> Links:
        """What we know of the other seats' links now, for the referee (table/referee.py). A
        seat found not connected is away from now on if we did not know since when."""
        now = self.clock.now()
        others = [s for s in range(self.header.players) if s != self.seat]
        connected = {s for s in others if self.connected(s)}
        for s in others:
            if s not in connected:
                self._away_since.setdefault(s, now)
        awaited = self.party.boxes_awaited()
        for receiver, senders in self._boxes_missing.items():
            if senders - awaited.get(receiver, frozenset()):
                self._boxes_came[receiver] = now
        self._boxes_missing = awaited
        heard: dict[int, float | None] = {}
        for s in connected:
            heard_at = getattr(self.connections[s], "heard_at", None)  # (a test's recorder has none)
            heard[s] = heard_at() if heard_at is not None else None
        return Links(
            self.seat,
            self.header.players,
            now,
            trio.current_time(),
            frozenset(connected),
            away_since={s: self._away_since[s] for s in others if s not in connected},
            heard=heard,
            halted=frozenset(self.protocol.halted),
            # A seat that dropped out is gone from the game as one that left (issue 30): no wait
            # is lengthened for it while it is away, nor waits on it.
            left=frozenset(self.left) | frozenset(self.protocol.absences.gone - {self.seat}),
            unsigned=frozenset(s for s in others if self.log.next_seq(s) == 0),
            cut_off=self.cut_off(),
            reports=dict(self._reports),
            unheard=self.protocol.unheard(),
            boxes_awaited=awaited,
            boxes_came=dict(self._boxes_came),
        )

    def cut_off(self) -> bool:
        """We are connected to no other seat, and every link we lost went silent (nothing
        came, and nobody closed it): this seat may be the one cut off (a Wi-Fi drop), and it
        can tell nothing about the others."""
        others = [s for s in range(self.header.players) if s != self.seat]
        return bool(others) and all(not self.connected(s) and s in self._went_silent for s in others)

    def gone(self, seat: int, step: str) -> TableAborted:
        """Why the game stops when ``seat`` stayed away past the grace period: it left and did
        not come back in time, or, if we were cut off from every seat, nobody is named."""
        return gone_verdict(self.links(), [s.name for s in self.header.seats], seat, step)

    def presence(self, seat: int) -> SeatPresence:
        """``seat``'s connection state for the console: ``online`` (our own seat, or a seat we
        are connected to); ``away`` with the grace period's seconds left since its connection
        dropped (or while we have not reached it yet); ``gone`` once it left, stopped its game,
        or stayed away past the grace period."""
        if seat == self.seat or self.connected(seat):
            return SeatPresence("online")
        if seat in self.left or seat in self.protocol.halted:
            return SeatPresence("gone")
        since = self._away_since.get(seat)
        if since is None:  # not connected yet: the mesh is still being built
            return SeatPresence("away")
        left = self.timings.grace - (self.clock.now() - since)
        return SeatPresence("away", left) if left > 0 else SeatPresence("gone")

    def _shown_presence(self, seat: int) -> SeatPresence:
        """:meth:`presence` as the seat list shows it: ``bot`` for a seat here whose player
        left and whose program plays on with a bot."""
        presence = self.presence(seat)
        if presence.state == "away" and self.aborted is not None:
            # Our game stopped: nobody is waited for any more, so no grace period counts down
            # ("carol away 1:27" under "the game stopped" read as if the table waited for her).
            return SeatPresence("gone")
        return SeatPresence("bot") if presence.state == "online" and seat in self.bot_played else presence

    def _watchers_changed(self, names: list[str]) -> None:
        """Tell our player who comes to watch the table through us, and who goes."""
        before, self._watching = self._watching, list(names)
        lines = [f"{name} is watching the table" for name in names if name not in before]
        lines += [f"{name} stopped watching" for name in before if name not in names]
        self._show_watchers(self.other_watchers.budget(self.seat, lines))

    def _show_watchers(self, lines: list[str]) -> None:
        """``lines`` about spectators for our player; past their budget (no lines), an event
        without text still gives the console the list of who watches as it is now."""
        watching = self.watching()
        for line in lines:
            self.session.publish("spectator", line, watching=watching)
        if not lines and watching != self._shown_watching:
            self.session.publish("spectator", "", watching=watching)
        self._shown_watching = watching

    def watching(self) -> list[str]:
        """Everyone watching the table: through us, then through the other seats (their word)."""
        return list(dict.fromkeys([*self._watching, *self.other_watchers.names()]))

    def _spectator_said(self, name: str, text: str) -> None:
        """A chat line of someone watching (through us, or relayed by another seat)."""
        self.session.publish("chat", f"{name} (watching): {text}", spectator=name)

    async def _send_watchers(self, notice: Watchers | SpectatorSays) -> None:
        for seat in range(self.header.players):
            if seat != self.seat:
                await self._send_to(seat, notice)

    def leave_to_bot(self, bot: SeatAgent) -> None:
        """Our player leaves and ``bot`` plays our seat to the end: the deck lets nobody else
        hold our hand, so this program keeps the seat (its keys, its journal) and plays on.
        The table is told with a signed chat line (:data:`LEFT_TO_BOT`): the seat stays an
        honest seat, nothing else changes."""
        if self.seat in self.bot_played or self.finished:
            return
        local = cast(LocalSeat, self.session.seats[self.seat])
        local.agent.hand_over(bot)  # type: ignore[attr-defined]  # (checked in __init__)
        self.bot_played.add(self.seat)
        self.session.publish("notice", "you left the table: a bot plays your seat to the end", seat=self.seat)
        self._say(LEFT_TO_BOT)

    def leave_to_drop_out(self, bot: SeatAgent) -> None:
        """Our player leaves and drops out (issue 30): at our first turn where the game's rules
        allow it, we sign the table's drop-out move (every seat applies it at that turn: our
        cards are set aside unseen, and the game goes on without us); ``bot`` plays until then.
        This program then follows the game to its end without a seat (it keeps the log and
        writes the transcript), and never reveals our deck seed."""
        if self.finished:
            return
        local = cast(LocalSeat, self.session.seats[self.seat])
        local.agent.hand_over(DroppingOut(bot))  # type: ignore[attr-defined]  # (checked in __init__)
        self.session.publish(
            "notice", "you left the table: you drop out at your next turn where the rules allow it", seat=self.seat
        )

    def _say(self, text: str) -> None:
        """Send a chat line to every seat (from the console's thread of control: trio's)."""
        self._chat_send.send_nowait(text)

    async def _chat_loop(self) -> None:
        async for text in self._chat_receive:
            try:
                await self.publish("chat", {"text": text})
            except TableAborted as exc:  # past our chat budget (wire.md section 7): not sent
                self.session.publish("error", f"chat line not sent: {exc.reason}")

    @property
    def finished(self) -> bool:
        """Our game is over (a result or an abort)."""
        return self.aborted is not None or self.session.result is not None

    def all_finished(self) -> bool:
        """Every seat has published its result entry."""
        return all(self.results[s] for s in range(self.header.players))

    async def pass_on_results(self) -> None:
        """After the game: to a seat whose result entry shows it had not seen another seat's
        result, send what it lacked of that seat's chain (a few entries; once a pair). The
        link between those two may be down, and a seat that has every move has no reason to
        fetch: without this it would wait out the grace period for that result, and end with
        another transcript than ours."""
        players = self.header.players
        for to in range(players):
            conn = self.connections.get(to)
            if to == self.seat or not self.results[to] or conn is None or conn.closed:
                continue
            for seat in range(players):
                if seat in (to, self.seat) or not self.results[seat] or (to, seat) in self._passed_on:
                    continue
                self._passed_on.add((to, seat))
                try:
                    echo = self.log.entry(to, self.results[to][0]).body[SEEN]
                    had = echo[seat][0]
                    if had > self.results[seat][0] or self.log.next_seq(seat) - had > PASS_ON_MOST:
                        continue  # it had that result (or lacks more than a result: it fetches)
                    for entry in self.log.entries(seat, had):
                        await conn.send_frame(frame_of(entry.encoded()))
                        self._note_written(conn, entry)
                except (ConnectionClosed, SpillError):
                    return

    def all_stopped(self) -> bool:
        """After the game stopped: every seat still connected has signed its ``stop`` (or its
        ``bye``), so nobody is cut off before it has everyone's (since protocol version 12 no
        seed follows it)."""
        return all(
            s == self.seat or not self.connected(s) or s in self.protocol.stopped or s in self.left
            for s in range(self.header.players)
        )

    def ending_entries(self) -> list[Entry]:
        """Every entry of the log that bears on the game's end (results, goodbyes, stops, each
        seat's first deck entry): what :func:`~.ended.ended_game` reads, without
        the rest of the log, in canonical order. Read again only when the log changed (asked
        every 50 ms while we recover, and the older ones come from the log's spill)."""
        counts = tuple(self.log.head(s) for s in range(self.header.players))  # (a retraction too)
        if self._endings_read is None or self._endings_read[0] != counts:
            entries = [
                self.log.entry(s, q)
                for s in range(self.header.players)
                for q in sorted({*self.endings[s], *self.first_deck[s]})
            ]
            self._endings_read = (counts, entries)
        return list(self._endings_read[1])

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

    def _net_seat(self, seat: int) -> LocalSeat | RemoteSeat:
        """A seat of the session as the network seat it is: built in __init__ (a test may swap
        in a subclass); the session itself types its seats only as agents."""
        return cast("LocalSeat | RemoteSeat", self.session.seats[seat])

    def _round_order(self, step: Round, responses: dict[int, Action], arrived: list[int]) -> list[tuple[int, Action]]:
        """A free-order round's responses in the order their signed head echoes give (the same
        at every seat, whatever order they arrived in here)."""
        entries = {seat: self._net_seat(seat).last_entry for seat in responses}
        return order_by_echoes(step, responses, entries, self.header.players)

    async def _open_round(self, step: Round, responses: dict[int, Action]) -> dict[int, Action]:
        """Every follower's commitment to free-order round ``step`` is in (the round is
        sealed here): sign our opening, then take each other follower's, checked against its
        commitment (protocol/table.md section 9). A follower the table passed for (gone:
        absence.py) committed to nothing and opens nothing."""
        turn = self.turns
        commitments = {seat: entry for seat in responses if (entry := self._net_seat(seat).last_entry) is not None}
        opened = dict(responses)
        for seat in sorted(commitments):
            net_seat = self._net_seat(seat)
            if isinstance(net_seat, LocalSeat):
                opened[seat] = await net_seat.open(turn)
        for seat in sorted(commitments):
            net_seat = self._net_seat(seat)
            if isinstance(net_seat, RemoteSeat):
                opened[seat] = await net_seat.opening(self.session, turn, commitments)
        return opened

    def _count_turns(self, event: Any) -> None:
        if event.kind == "action":
            self.turns += 1
        elif event.kind == "dropped" and event.data.get("seat") == self.seat:
            # We dropped out: from now on we sign no move, opening or statement (the other
            # seats note it as our drop-out move arrives: TableProtocol.meaning).
            self.protocol.absences.gone.add(self.seat)

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
        for send in await self.deck_output(list(sends)):
            last = groups[-1] if groups else None
            if send.to is not None and last and last[0].to is not None and all(other.to != send.to for other in last):
                last.append(send)
            else:
                groups.append([send])
        await self._publish([("deck", lambda group=group: self._deck_body(group)) for group in groups])

    def _deck_body(self, group: Sequence[Any]) -> dict[str, Any]:
        first = group[0]
        if first.to is None:
            return {"msg": self.protocol.revealed_evidence(first.message)}
        where: dict[str, Any] = {
            "table": self.header.table,
            "seat": self.seat,
            "seq": self.log.next_seq(self.seat),
            "kind": "deck",
        }
        if len(group) == 1:
            return seal_body(
                self.identity, **where, to=first.to, recipient=self.header.seats[first.to].keys, payload=first.message
            )
        return seal_bodies(
            self.identity, **where, items=[(send.to, self.header.seats[send.to].keys, send.message) for send in group]
        )

    async def _publish(self, items: Sequence[tuple[str, Any]]) -> list[Entry]:
        """Sign entries in order (each body is made just before its entry: a sealed body binds
        the entry's seq), journal and sync them once, then send them. While replaying the
        journal after a restart, our logged entries are used instead of new ones.

        From the first signature until they are handed to every connection (:meth:`_send`),
        nothing cuts this off (a cancellation of ours, a turn decided meanwhile): an entry
        signed but not sent, followed by a pass, would be two moves for one turn. The wait
        before signing (``before_signing``) stays cancellable: nothing is signed yet, and a
        hook that waits there (a client gone silent) must not hold its seat's program for as
        long as a shield may last."""
        entries, fresh = [], []
        await self.before_signing([kind for kind, _ in items])
        with shielded():
            for kind, body in items:
                entry, new = self.protocol.sign(kind, functools.partial(self._made, kind, body))
                entries.append(entry)
                if new:
                    fresh.append(entry)
            entries = await self._write_out(entries, fresh)
        return entries

    def _made(self, kind: str, body: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """The body of our next entry of ``kind``, as the ``outgoing`` hook leaves it."""
        return self.outgoing(kind, body())

    async def _write_out(self, entries: list[Entry], fresh: list[Entry]) -> list[Entry]:
        """Journal our signed ``entries`` (the ``fresh`` ones: the others are in it already),
        then send them to every connected seat."""
        failure: CannotWrite | None = None
        if fresh and self.journal is not None:
            kept = self._journal_own(fresh)
            unkept = fresh[kept:]
            if unkept and not all(is_goodbye(entry) for entry in unkept):
                # Not journaled, so not sent: taken back, as if never signed (a restart could
                # otherwise sign another entry in its place). Our goodbye goes out anyway.
                self.protocol.unsign(unkept)
                entries = entries[: len(entries) - len(unkept)]
                failure = self.write_failure
        if failure is not None:
            await self._send(entries)
            raise failure
        if not entries:
            return entries
        await self._send(entries, replayed=len(entries) > len(fresh))
        return entries

    def _journal_own(self, fresh: list[Entry]) -> int:
        """Write our new entries to the journal and hand them to the system: how many of them
        are in the file (all, unless it cannot be written: then our game is over)."""
        journal = self.journal
        if self.write_failure is not None:
            return 0
        start = journal.whole_records
        try:
            journal.flush()  # first what it holds of others' entries
            start = journal.whole_records
            for entry in fresh:
                journal.append_entry(entry)
            # In the file before it leaves: it survives this program being killed. The fsync
            # (a power cut) comes later (keep_journal_synced); a seat that lost it that way
            # takes it back from the others before it signs again (recover_own).
            journal.flush()
        except OSError as exc:
            self._journal_failed(exc)
            return max(0, min(len(fresh), journal.whole_records - start))
        now = trio.current_time()
        self._unsynced = (self._unsynced[0] if self._unsynced else now, now)
        self._unsynced_written.set()
        return len(fresh)

    def _journal_failed(self, exc: OSError) -> None:
        """Our journal cannot be written: say so, and leave the table (a game we cannot keep
        is one a crash would lose; an entry of ours not journaled could be signed twice). A
        game already over only loses its journal: the transcript is written from memory."""
        if self.write_failure is not None:
            return
        journal = self.journal
        self.write_failure = CannotWrite(self.seat, exc, getattr(journal, "path", None))
        self.session.publish("error", self.write_failure.detail)
        if not self.protocol.over and self.session.result is None:
            self.abort(self.write_failure)

    async def _send(self, entries: list[Entry], *, replayed: bool = False) -> None:
        """Send our signed ``entries`` to every connected seat."""
        if not entries:
            return
        if self.protocol.holding and replayed:
            # A replayed entry of ours is in the log again: held entries of others may have
            # waited for it (a fresh one nobody can have seen yet).
            self._own_grew.set()
        # Replayed entries are sent again too: the others may have fetched from us before the
        # replay reached them (a copy they hold is ignored).
        self.spectators.offer(entries)  # never waits: a spectator cannot slow us
        frames = [frame_of(entry.encoded()) for entry in entries]  # (a replayed old entry: not kept again)
        sends = []
        for seat, conn in self._send_order():
            wanted = [i for i, entry in enumerate(entries) if self.entry_to(seat, entry)]
            if wanted:
                written = functools.partial(self._note_sent, conn, [entries[i] for i in wanted])
                sends.append((conn, [frames[i] for i in wanted], written))
        # Each connection on its own, shielded: a seat that does not read (its program stopped
        # with its sockets open) delays no other seat's copy, and no cancellation of ours (a
        # turn's or a deck wait's scope) leaves a signed entry unsent to a seat that reads.
        # A seat that misses one anyway (its connection broke) catches up when it reconnects.
        # What a socket does not take at once goes on alongside while the table runs: we do
        # not wait on a seat that does not read either (up to its send timeout, half a deck
        # step), which a short turn timeout of the others would name us for.
        await broadcast(sends, self._sending)

    def _note_sent(self, conn: Connection, entries: list[Entry], index: int) -> None:
        self._note_written(conn, entries[index])

    def _note_written(self, conn: Connection, entry: Entry) -> None:
        written = self._written.setdefault(conn, {})
        lo, hi = written.get(entry.sender, (0, 0))
        written[entry.sender] = (lo, hi + 1) if entry.seq == hi and hi > lo else (entry.seq, entry.seq + 1)

    def _send_order(self) -> list[tuple[int, Connection]]:
        """Our connections (with their seats) in the order :func:`send_order` gives."""
        waiting = {seat for seat, _ in self.party.owed()}
        return [(s, self.connections[s]) for s in send_order(self.seat, self.header.players, self.connections, waiting)]

    def logged_action(self) -> Action | None:
        """During a replay, our next move as the journal has it."""
        return self.protocol.logged_action()

    async def replay_void_action(self, turn: int) -> None:
        """During a replay: our journal's move for a turn the table passed for us at, if any,
        goes back into our chain (and out again) without being acted on."""
        entry = self.protocol.replay_void_action(turn)
        if entry is not None:
            await self._write_out([entry], [])

    # -- after a restart ------------------------------------------------------------------

    def load_journal(self, entries: Sequence[Entry]) -> None:
        """Prepare to replay a journal written before a crash: our own entries are re-used as
        the game reaches them, everyone else's are fed back in (:meth:`replay`). Nothing is
        signed or acted on until :meth:`recover_own` is done."""
        self.protocol.load_journal(entries)

    async def recover_own(self) -> None:
        """After a restart, before the game goes on: wait until every other seat has said what
        it holds of our own chain beyond the journal, and sent it (table/recovery.py). Those
        entries are re-used like the journal's, never signed again."""
        if self.protocol.recovering:
            await self._recovered.wait()
        await self._dispatch_ready()

    @property
    def recovering(self) -> bool:
        return self.protocol.recovering

    def missing_answers(self) -> list[int]:
        """While we recover: seats that have not yet said what they hold of our chain."""
        recovery = self.protocol.recovery
        return recovery.missing_answers() if recovery is not None else []

    async def replay(self) -> None:
        await self._carry_out(self.protocol.replay_journal(trio.current_time()))
        await self._dispatch_ready()

    # -- running alongside ----------------------------------------------------------------

    async def run_background(self) -> None:
        """What runs alongside the game for its whole length: the journal's fsync, handing on
        held entries once the replay has re-made the entries of ours they wait for, and asking
        for what a held entry waits for when its author did not send it to us."""
        try:
            async with trio.open_nursery() as nursery:
                # (Sends left in it when the table ends are shielded: they end first, bounded.)
                self._sending = nursery
                nursery.start_soon(self.clock.run)
                nursery.start_soon(self.keep_journal_synced)
                nursery.start_soon(self._dispatch_when_own_grows)
                nursery.start_soon(self._fetch_what_stays_missing)
                nursery.start_soon(self._report_links)
        finally:
            self._sending = None

    def waiting_on(self, seats: tuple[tuple[int, str], ...]) -> None:
        """What a wait of ours waits on now and why (the referee's ``WaitingOn``)."""
        self._waits_on = (seats, trio.current_time())

    def links_notice(self) -> LinksNotice:
        """Our ``links`` notice now (wire.md section 4.8): whom we are connected to, and what
        our waits said, within the last two looks, that they wait on."""
        seats, when = self._waits_on
        fresh = trio.current_time() - when <= 2 * self.timings.check_every
        connected = tuple(s for s in range(self.header.players) if s != self.seat and self.connected(s))
        return LinksNotice(self.header.table, connected, seats if fresh else ())

    async def _report_links(self) -> None:
        """Every CHECK_EVERY seconds while our game runs, if a link of the table is down
        (``report_due``): our ``links`` notice on every game connection."""
        while self.aborted is None and not self.protocol.over:
            await trio.sleep(self.timings.check_every)
            notice = self.links_notice()
            if not report_due(self.links(), self.timings, bool(notice.waits_on)):
                continue
            for seat in list(self.connections):
                await self._send_to(seat, notice)

    async def _fetch_what_stays_missing(self) -> None:
        """Every :data:`FETCH_LATE` seconds: ask for what held entries still wait for
        (TableProtocol.overdue_fetches)."""
        while True:
            await trio.sleep(FETCH_LATE)
            await self._carry_out(self.protocol.overdue_fetches(trio.current_time(), FETCH_LATE))

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
        doubt 0.3-0.5 ms slower here. While entries wait for it, it looks every
        :data:`JOURNAL_QUIET` seconds, so that sending an entry wakes nothing up; while none
        do, it sleeps until the first is written (a seat that waits on a player wakes for
        nothing, and a table on a virtual clock makes no jump for it)."""
        if self.journal is None:
            return
        while True:
            await self._unsynced_written.wait()
            await trio.sleep(JOURNAL_QUIET)
            if self._unsynced is None:
                continue
            first, last = self._unsynced
            now = trio.current_time()
            if now - last >= JOURNAL_QUIET or now - first >= JOURNAL_SYNC_LATEST:
                self._unsynced = None  # what is written from here on waits for the next fsync
                self._unsynced_written = trio.Event()
                try:
                    await off_the_loop(self.journal.fsync)
                except OSError as exc:
                    self._journal_failed(exc)
                    return

    async def ask_around(self, waiting_on: set[int], *, halt: bool = True) -> None:
        """We wait on these seats: if one has stopped its game, ours stops too
        (TableProtocol.halted_among; not with ``halt`` false: a follower that may be passed
        for); otherwise ask the others for what they hold of them (TableProtocol.ask_around)."""
        halted = self.protocol.halted_among(waiting_on) if halt else None
        if halted is not None:
            raise await self._halted_by_the_absent(waiting_on, halted)
        await self._carry_out(self.protocol.ask_around(waiting_on))

    async def _halted_by_the_absent(self, waiting_on: set[int], halted: TableAborted) -> TableAborted:
        """A seat we wait on stopped its game (``halted``: naming nobody). If its stop names a
        seat that is away from us too, that seat may be why: we give it the grace period as to
        any away seat, and if it does not come back, our game ends as the stopper's did, naming
        it as gone, so that every seat that can still reach the others ends the same way (a
        seat waiting on a seat that waited on the cut one). Nobody is named on the stopper's
        word alone."""
        stopper = min(set(waiting_on) & set(self.protocol.halted))
        named = self.protocol.halted[stopper].body.get("seat")
        if (
            isinstance(named, int)
            and 0 <= named < self.header.players
            and named not in (self.seat, stopper)
            and not self.connected(named)
            and named not in self.left
            and not await self.wait_for_return(named)
            and not self.links().reached(named, self.timings)
        ):
            return self.gone(named, halted.step or "stop")
        return halted

    # -- absent followers (p2pcards/table/absence.py) -----------------------------------------

    def stated_absent(self, turn: int, seat: int) -> bool:
        """We signed that we hold no move of ``seat`` for ``turn`` (also before a restart)."""
        return self.seat in self.protocol.absences.stated(turn, seat)

    def missing_statements(self, turn: int, seat: int) -> set[int]:
        """The seats other than ``seat`` whose statement about it at ``turn`` we lack."""
        return self.protocol.absences.missing(turn, seat)

    async def state_absent(self, turn: int, seat: int) -> None:
        """Sign, once, that we hold no move of ``seat`` for ``turn`` (its client is gone, or
        our echo shows the move we hold). Not after our game's stop, nor while our journal is
        replayed (its own statements come back from it). After our game's end, yes: only an
        answer comes then (we wait on no move), and the seat that stated may have been cut
        off until our result; without our answer its game would wait on it for ever while we
        wait on its result (issue 29: a Wi-Fi cut in the last round)."""
        if self.stated_absent(turn, seat) or self.aborted is not None or self.protocol.replay_own:
            return
        if self.seat in self.protocol.absences.gone:
            return  # we dropped out: we state nothing (a statement would be our fault)
        try:
            await self.publish("absent", {"turn": turn, "seat": seat})
        except TableAborted as exc:  # past our budget: our game cannot go on
            self.abort(exc)

    def _awaiting(self, turn: int, seat: int) -> bool:
        """Our game waits now, at ``turn``, on a move of ``seat`` that may be passed for."""
        step, session = self.session.step, self.session
        waits = (isinstance(step, Turn) and step.seat == seat) or (isinstance(step, Round) and seat in step.seats)
        return turn == self.turns and waits and session.game.absent_action(session.state, seat) is not None

    def awaited_statements(self, seats: set[int]) -> dict[int, Statements]:
        """For each seat among ``seats`` that stated a follower absent, at the turn we are at
        or the one just played, on which the statements we hold decide nothing yet: the seats
        (other than the follower) whose statement we lack. A wait on it that runs out names
        nobody for it (table/stall.py): it waits on them, and who failed to sign we cannot
        tell."""
        absences = self.protocol.absences
        found: dict[int, Statements] = {}
        for seat in seats:
            for turn, follower in sorted(absences.by(seat)):
                if turn < self.turns - 1:
                    continue
                try:
                    decided = self.protocol.passed_for(turn, follower) is not None
                except ValueError:  # we lack entries of the follower the statements count
                    decided = False
                missing = self.missing_statements(turn, follower)
                if not decided and missing:
                    found[seat] = Statements(turn, follower, frozenset(missing))
                    break
        return found

    def settling(self, seats: set[int]) -> set[int]:
        """The seats among ``seats`` that stated a follower absent, at the turn we are at or
        the one just played, and had not seen, as of their last signed entry here, every
        statement about it that we hold, or that we lack statements about it too: they may
        be waiting on the statements (table/absence.py, ``settling``; table/referee.py,
        ``Wait.look``)."""
        found = set()
        for seat in seats:
            count = self.log.next_seq(seat)
            if not count or not self.protocol.absences.by(seat):
                continue
            try:
                seen = self.log.entry(seat, count - 1).body[SEEN]
            except SpillError:
                continue
            if absence_settling(self.protocol.absences, seat, seen, self.turns, self._statements_decide):
                found.add(seat)
        return found

    def _statements_decide(self, turn: int, follower: int) -> bool:
        """The absent statements about ``follower`` at ``turn`` decide on its move (we hold
        every entry they count)."""
        try:
            return self.protocol.passed_for(turn, follower) is not None
        except ValueError:  # we lack entries of the follower the statements count
            return False

    async def passed_for_us(self, turn: int) -> None:
        """Return once the other seats' statements pass for us at ``turn``."""
        while not self.protocol.passed_for(turn, self.seat):
            await self._absence_changed.wait()

    async def _on_absent(self, effect: AbsentIn) -> None:
        """Another seat stated ``effect.seat`` absent at ``effect.turn``. About us: if that
        passes for us after we signed a move for the turn, our game has gone on without it.
        About another: if we hold its move (or it is gone for us too) we state as well, so that
        the statements decide; then its seat looks again."""
        turn, seat = effect.turn, effect.seat
        self._absence_changed.set()
        self._absence_changed = trio.Event()
        if seat == self.seat:
            if self.protocol.passed_for(turn, seat) and self.protocol.holds_move(seat, turn):
                self.abort(
                    TableAborted(
                        f"the other seats passed for us at turn {turn} (we were away): our move for it came too late",
                        None,
                        "action",
                    )
                )
            return
        # We state too if we hold its move (our echo shows it), or if it is gone for us as well
        # at the turn we wait on now: never for another turn (a cheater's statements about
        # turns to come must not pass for a seat that is back by then).
        gone = not self.connected(seat) or seat in self.protocol.halted
        if self.protocol.holds_move(seat, turn) or (gone and self._awaiting(turn, seat)):
            await self.state_absent(turn, seat)
        self._net_seat(seat).wake()

    # -- receiving ------------------------------------------------------------------------

    def attach(self, seat: int, conn: Connection) -> None:
        """Use ``conn`` for ``seat`` from now on (a reconnecting seat replaces its old one)."""
        # A seat that stops reading must not hold us (and the seats after it) for long.
        conn.send_timeout = min(SEND_SECONDS, max(1.0, self.timings.deck / 2))
        self.connections[seat] = conn
        self.protocol.linked.add(seat)
        if seat in self._away_since:
            self.session.publish("connection", f"{self.header.seats[seat].name} is back", seat=seat)
        self._away_since.pop(seat, None)
        self._went_silent.discard(seat)
        self._away_told.discard(seat)
        event = self._returned.pop(seat, None)
        if event is not None:
            event.set()

    def _detach(self, seat: int) -> None:
        """``seat``'s connection is down (its reader ended, or it said goodbye)."""
        self.connections[seat].closed = True
        self.protocol.linked.discard(seat)
        self._away_since.setdefault(seat, self.clock.now())

    async def serve_connection(self, seat: int, conn: Connection) -> None:
        """Read entries from ``seat`` until the connection ends, keeping it alive meanwhile: a
        link that goes silent is closed within seconds (Connection.keep_alive), and the seat is
        then away like one whose connection dropped."""
        async with trio.open_nursery() as nursery:
            keep_alive = getattr(conn, "keep_alive", None)  # (a test's recorder has none)
            if keep_alive is not None:
                nursery.start_soon(keep_alive)
            try:
                await self._read_from(seat, conn)
            finally:
                nursery.cancel_scope.cancel()

    async def _read_from(self, seat: int, conn: Connection) -> None:
        """Read entries from ``seat`` until the connection ends. First ask it for every entry
        we lack (after a restart or a dropped connection, that is what we missed)."""
        self.attach(seat, conn)
        serving = self._serving.setdefault(seat, [])
        serving.append(conn)
        stalled = self.clock.stalled
        try:
            recovery = self.protocol.recovery
            if recovery is not None and self.recovering:  # first of all: what it holds of our own chain
                await conn.send(recovery.fetch().to_wire())
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
                    self._carry_out_now(
                        [self.protocol.name(seat, f"sent a malformed frame ({exc.reason}); connection closed")]
                    )
                    await conn.aclose()
                    return
                await self.deliver(seat, raw, conn)
        except ConnectionClosed:
            failure = getattr(conn, "failure", None)  # we closed it: it stopped reading
            if failure is not None and not getattr(conn, "silent", False):
                self._carry_out_now([self.protocol.name(seat, f"{failure}; connection closed")])
            return
        finally:
            self._written.pop(conn, None)
            serving.remove(conn)
            self.clock.now()  # (notices a stall we are just waking from)
            if getattr(conn, "silent", False) or self.clock.stalled > stalled:
                # The link went silent, or we did not run for a while (stopped, a closed lid)
                # and the other side may have closed it because we went quiet: not its doing.
                self._went_silent.add(seat)
            if self.connections.get(seat) is conn:
                conn.closed = True
                # Both seats may dial each other at once (one of them restarted): the connection
                # the other side kept may be our spare one. Use it, or that seat and we would each
                # hold a different connection and both wait for the other to come back.
                spare = next((other for other in serving if not other.closed), None)
                if spare is not None:
                    self.connections[seat] = spare
                else:
                    self._detach(seat)
                    self.session.publish("connection", f"{self.header.seats[seat].name} disconnected", seat=seat)

    async def deliver(self, seat: int, raw: Any, conn: Connection | None = None) -> None:
        """A frame from ``seat``'s connection ``conn``: through the protocol, then its effects.
        Every frame read from a connection comes here; a test calls it to have a message
        arrive as if ``seat`` had sent it (``conn``: where an answer goes, if any)."""
        failed = self.protocol.spill_failure
        effects = self.protocol.receive(seat, raw, trio.current_time())
        if self.protocol.spill_failure is not failed:
            self.session.publish("error", f"cannot read back an old entry of our log: {self.protocol.spill_failure}")
        if not self.protocol.recovering:
            self._recovered.set()
        await self._carry_out(effects, conn)
        await self._dispatch_ready()

    async def accept(self, entry: Entry, *, via: int | None) -> None:
        """An entry that did not come as a frame (tests; a relay of our own)."""
        await self._carry_out(self.protocol.accept(entry, via=via, now=trio.current_time()))
        await self._dispatch_ready()

    async def _dispatch_ready(self) -> None:
        # Several receive loops run this; each entry is taken off the held ones before any await.
        while (entry := self.protocol.next_ready()) is not None:
            await self.dispatch(entry)

    async def dispatch(self, entry: Entry) -> None:
        """Act on an entry whose author's ``seen`` we hold."""
        await self._carry_out(self.protocol.meaning(entry))

    async def _carry_out(self, effects: Sequence[Effect], conn: Connection | None = None) -> None:
        """Do what the protocol asks, in order (``conn``: the connection the message came on)."""
        for effect in effects:
            if isinstance(effect, DeckIn):
                await self.deck.receive(effect.sender, effect.message)
            elif isinstance(effect, MoveIn):
                self._net_seat(effect.sender).deliver(effect.turn, effect.action, effect.entry)
                if self.protocol.absences.stated(effect.turn, effect.sender):
                    # Another seat stated it absent for that turn: we hold the move, say so.
                    await self.state_absent(effect.turn, effect.sender)
            elif isinstance(effect, OpenIn):
                seat = self._net_seat(effect.sender)
                if isinstance(seat, RemoteSeat):
                    seat.deliver_opening(effect.entry)
            elif isinstance(effect, AbsentIn):
                await self._on_absent(effect)
            elif isinstance(effect, SendTo):
                await self._send_to(effect.seat, effect.message)
            elif isinstance(effect, Answer):
                await self._answer(effect, conn if conn is not None else self.connections.get(effect.to))
            else:
                self._carry_out_now([effect], conn)

    def _carry_out_now(self, effects: Sequence[Effect], conn: Connection | None = None) -> None:
        """The effects that need no waiting."""
        for effect in effects:
            if isinstance(effect, Keep):
                self.spectators.offer([effect.entry])
                if self.journal is not None and self.write_failure is None:
                    try:
                        self.journal.append_entry(effect.entry)
                    except OSError as exc:
                        self._journal_failed(exc)
            elif isinstance(effect, Named):
                self.session.publish("error", effect.reason, seat=effect.seat)
            elif isinstance(effect, Stop):
                self.abort(effect.aborted)
            elif isinstance(effect, Left):
                if conn is not None and self.connections.get(effect.seat) is conn:
                    self._detach(effect.seat)  # it closes next; meanwhile it is not playing
                self.session.publish(
                    "connection",
                    f"{self.header.seats[effect.seat].name} left the table (it said: {effect.reason})",
                    seat=effect.seat,
                )
            elif isinstance(effect, Halted):
                self.session.publish(
                    "connection",
                    f"{self.header.seats[effect.seat].name}'s program stopped the game (it said: {effect.reason})",
                    seat=effect.seat,
                )
            elif isinstance(effect, LinksIn):
                self._reports[effect.via] = Report(
                    effect.connected, effect.waits_on, trio.current_time(), at=self.clock.now()
                )
            elif isinstance(effect, WatchersIn):
                self._show_watchers(self.other_watchers.update(effect.via, effect.names))
            elif isinstance(effect, SpectatorSaysIn):
                # Only at a table that lets spectators chat, within the relaying seat's bounds.
                if self.header.spectator_chat and self._relayed.take(effect.via, trio.current_time()):
                    self._spectator_said(printable(effect.name), printable(effect.text))
                    self.spectators.tell(printable(effect.name), printable(effect.text))
            elif isinstance(effect, ChatIn) and effect.text == LEFT_TO_BOT and effect.sender != self.seat:
                # Its own word about its own seat only: the seat list marks it as a bot's.
                self.bot_played.add(effect.sender)
                name = self.header.seats[effect.sender].name
                self.session.publish("notice", left_to_bot_words(name), seat=effect.sender)
            elif isinstance(effect, ChatIn):
                self.session.publish(
                    "chat", f"{self.header.seats[effect.sender].name}: {effect.text}", seat=effect.sender
                )

    async def _answer(self, answer: Answer, conn: Connection | None) -> None:
        """Answer a seat's fetch on the connection it came on: the entries, then ``fetched``."""
        if conn is None or conn.closed or not self.answers_fetch(answer.to, answer.fetch):
            return
        fetch = answer.fetch
        # Entries we wrote on this connection before the fetch reach it before our answer:
        # they need not go again (on a new connection, the first entries of each side cross
        # the other side's fetches).
        lo, hi = self._written.get(conn, {}).get(fetch.seat, (0, 0))
        # Read as they go out (the older ones back from the log's spill, issue 23): a seat that
        # fetches a long chain and reads slowly, or fetches again and again, makes us hold no
        # copy of it, nor read it all at once in the event loop.
        count = self.log.next_seq(fetch.seat)
        start = max(0, count + fetch.start) if fetch.start < 0 else fetch.start
        try:
            for seq in range(start, count):
                if lo <= seq < hi:
                    continue
                if seq >= self.log.next_seq(fetch.seat):
                    break  # our own last entry, taken back meanwhile (it could not be journaled)
                entry = self.log.entry(fetch.seat, seq)
                await conn.send_frame(frame_of(entry.encoded()))
                self._note_written(conn, entry)
            await conn.send(Fetched(self.header.table, fetch.seat, self.log.next_seq(fetch.seat)).to_wire())
        except SpillError as exc:
            # Our own spill file cannot give back what it took (a disk error): we cannot
            # answer (no ``fetched``); the seat that asked asks another (every seat holds the
            # whole log).
            self.session.publish("error", f"cannot answer a fetch of old entries: {exc}")
        except ConnectionClosed:
            pass

    async def _send_to(self, seat: int, message: Any) -> None:
        conn = self.connections.get(seat)
        message = self.message_to(seat, message)
        if conn is not None and not conn.closed and message is not None:
            try:
                await conn.send(message.to_wire())
            except ConnectionClosed:
                pass

    def blame(self, seat: int, reason: str) -> None:
        """Name ``seat`` (the game goes on)."""
        self._carry_out_now([self.protocol.name(seat, reason)])

    def abort(self, exc: TableAborted) -> None:
        if self.aborted is None:
            self._stopped(exc)
            self._abort_scope.cancel()

    def _stopped(self, exc: TableAborted) -> None:
        """Our game stops now: remember why, and sign our ``stop`` entry at once (it is sent
        later, by _publish_stop). Its head echo is what we held when we stopped: an entry that
        arrives while we wind down is not one we failed to act on (protocol/table.md section 5;
        a message sent just at the timeout would otherwise show us holding it and not going on).
        The first reason stays: what fails while we wind down is a consequence of it."""
        if self.aborted is None:
            self.aborted = exc
        if self._own_fault(self.aborted):
            return  # not a stop the table caused: we leave, with a signed bye (say_goodbye)
        if self._stop_entry is not None or self.protocol.over or not self._playing:
            return
        if not self.party._started or self.protocol.recovering or self.protocol.replay_own:
            return  # nothing committed yet, or what we sign could be a second version
        try:
            self._stop_entry, _ = self.protocol.sign("stop", lambda: {"reason": exc.reason[:1000], "seat": exc.seat})
        except TableAborted:
            pass  # past our budget: the goodbye frame still says it

    def _own_fault(self, exc: TableAborted | None) -> bool:
        """A stop for a reason of our own: we cannot write, or it names us (a fault we found
        in ourselves). We leave with a signed ``bye`` that says so, not a ``stop``."""
        return isinstance(exc, CannotWrite) or (exc is not None and exc.seat == self.seat)

    @property
    def leaves(self) -> bool:
        """Our game ends for a reason of our own (our player quit, we cannot write, a fault of
        ours), not with a ``stop`` that the table caused: we sign a ``bye``."""
        # Not a stop that names no seat before any entry of it (we could not connect, say):
        # a signed bye would have verify name us as having left, while we may be the one cut
        # off; the goodbye frame still tells every connected seat (issue 23).
        return self.aborted is None or self._own_fault(self.aborted)

    async def say_goodbye(self, reason: str) -> None:
        """Tell every connected seat that we leave before the game's end (at most a second,
        even while being cancelled), once: a signed ``bye`` entry with ``reason``, so they end
        the game at once instead of waiting for us and the transcript shows who left (after a
        stop the table caused, our ``stop`` entry instead: a bye would name us in verify for
        it); then a goodbye frame with ``reason`` on every connection."""
        if self._goodbye_said:
            return
        self._goodbye_said = True
        reason = reason[:1000]
        with trio.CancelScope(shield=True), trio.move_on_after(GOODBYE_SECONDS):
            # (While we recover, what we sign could be a second version.)
            if self.seat in self.protocol.absences.gone:
                pass  # we dropped out: the game goes on without us, and our goodbye ends nothing
            elif not self.recovering and not self.protocol.over and self.leaves:
                try:
                    async with self.send_lock:
                        await self.publish("bye", {"reason": reason})
                except TableAborted:
                    pass  # past our budget: the frame still says it
            elif not self.recovering:
                await self._publish_stop()
            # Every connection, even one marked closed: being cancelled, its reader marked it
            # so on the way out, while the socket itself is still open.
            for conn in list(self.connections.values()):
                try:
                    await conn.send(Bye(reason).to_wire())
                except ConnectionClosed:
                    pass

    def note_away(self, seat: int) -> None:
        """A seat we wait on is away (the referee's ``NoteAway``): its grace period runs from
        when its connection dropped; the first time, the player is told the table waits."""
        self.grace_end(seat)

    def grace_end(self, seat: int) -> float:
        """When the grace period of ``seat``, away, runs out (a :attr:`clock` time): it runs
        from when its connection dropped, however often we look. The first look tells the
        player that the table waits for it."""
        left = self._away_since.setdefault(seat, self.clock.now())
        grace = self.timings.grace
        if seat not in self._away_told:
            self._away_told.add(seat)
            self.session.publish(
                "connection",
                f"{self.header.seats[seat].name} is away; waiting up to {grace:g} s for them to come back",
                seat=seat,
            )
        return left + grace

    async def wait_for_return(self, seat: int, *, until: float | None = None) -> bool:
        """Wait for ``seat`` to reconnect, until the grace period since it left runs out (or
        ``until``, a clock time, if that comes first)."""
        if self.connected(seat):
            return True
        event = self._returned.setdefault(seat, trio.Event())
        end = self.grace_end(seat)
        return await self.clock.wait(event, end if until is None else min(end, until))

    # -- running --------------------------------------------------------------------------

    async def play(self) -> Any:
        """Run the game to the end (the connections must be served alongside)."""
        self._playing = True
        with self._abort_scope:
            failure: TableAborted | None = None
            async with trio.open_nursery() as chat:
                chat.start_soon(self._chat_loop)
                chat.start_soon(self.spectators.announce, self._send_watchers)
                # Caught inside the nursery: trio would wrap it in an ExceptionGroup.
                try:
                    await self.deck.start()
                    result = await self.session.run()
                except TableAborted as exc:
                    failure = exc
                except IllegalAction as exc:
                    # The seat whose move was applied: at a turn, its seat; in a free-order
                    # round, the author of the opened response the rules refused.
                    step = self.session.step
                    seat = step.seat if isinstance(step, Turn) else self.session.acting
                    # The rules' words (a plugin's), escaped and cut: a third-party game may
                    # quote the move in them, and a verdict never repeats a peer's words whole.
                    why = verdict.peer_words(str(exc))
                    failure = TableAborted(f"seat {seat} made an illegal move: {why}", seat, "action")
                except Exception as exc:
                    # The game plugin raised something else than a refusal (a bug in it, or a
                    # move that trips one): the table stops here, cleanly, naming nobody, and
                    # the transcript is written as for any stop (verify says the same of it).
                    # Anything not from the plugin's code is ours, and is not hidden.
                    plugin = plugin_failure(exc, self.session.game)
                    if plugin is None:
                        raise
                    failure = TableAborted(plugin, None, PLUGIN_STEP)
                if failure is not None:
                    # At once, before the nursery ends: the deck must not act on what arrives
                    # meanwhile (NetworkDeck._call), and our stop entry echoes what we held now.
                    self._stopped(failure)
                chat.cancel_scope.cancel()
            if failure is None:
                # The private boxes the others owed are counted after our result, each seat's
                # once its own result came (Party.boxes_missing, net/table.py): no seed marks the
                # end of a chain, and waiting for the others' results before ours would deadlock.
                self.protocol.over = True
                await self.publish(
                    "result", {"result": result.to_wire(), "violations": [v.to_wire() for v in self.session.violations]}
                )
                return result
        assert self.aborted is not None, "set by _stopped"
        if self._own_fault(self.aborted):
            raise self.aborted  # we leave: the table driver says goodbye (a bye)
        await self._publish_stop()  # first: signed when we stopped, it comes before the rest
        await self._publish_evidence()
        raise self.aborted

    async def _publish_stop(self) -> None:
        """Tell every seat that our game has stopped, and why: a seat waiting on us then stops at
        once instead of waiting out a timeout and naming us for it."""
        if self._stop_entry is None or self._stop_sent:
            return
        self._stop_sent = True
        with shielded():
            await self._write_out([self._stop_entry], [self._stop_entry])

    async def _publish_evidence(self) -> None:
        """Tell every seat what we can prove, so they stop too and name the same seat."""
        evidence, self.protocol.evidence = self.protocol.evidence, []
        for blame in evidence:
            await self.publish("blame", {"blame": blame.to_wire()})  # (shielded once signed)

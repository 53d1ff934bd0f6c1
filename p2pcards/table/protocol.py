"""The table protocol of one seat, without IO: what the signed log's messages mean and who is to
blame, as h11's ``Connection`` is for HTTP (protocol/table.md sections 3-5, wire.md sections 6-7).

A :class:`TableProtocol` owns the seat's :class:`~p2pcards.wire.log.Log` and everything decided
from it alone: entries held until their author's ``seen`` is satisfied (causal order), entries
ahead of a gap, head echoes to back up, evidence of faults, accusations' evidence, the recovery
of our own chain after a restart, and blame. The driver (:class:`p2pcards.net.peer.Peer`) feeds
it what arrives (:meth:`TableProtocol.receive`, with the time, since nothing here reads a clock)
and carries out the effects it returns, in order:

* :class:`SendTo`: send a message (a ``fetch``) to one seat, if connected;
* :class:`Answer`: answer a seat's ``fetch`` (the entries, then ``fetched``);
* :class:`Keep`: a new entry to write to the journal;
* :class:`Named`: a seat misbehaved, the game goes on;
* :class:`Stop`: the game cannot go on (:class:`TableAborted`, naming a seat if one is to blame);
* :class:`Left`: a seat says it leaves (its connection goes down; signed, the game ends);
* :class:`Halted`: a seat has stopped its game (a signed ``stop`` entry): it will not act
  again, so a step that waits on it cannot complete.

Entries that are ready to act on come out of :meth:`TableProtocol.next_ready` one at a time;
:meth:`TableProtocol.meaning` says what each means (:class:`DeckIn`, :class:`MoveIn` (a
move, or a sealed response's commitment), :class:`OpenIn` (its opening), :class:`ChatIn`, or
the effects above), and the driver hands them to the deck and the seats in
that order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..deck import judge
from ..deck.evidence import wire_private_evidence
from ..wire import framing
from ..wire.errors import ProtocolError
from ..wire.identity import Identity
from ..wire.log import GAP, SEEN, Log, Rejected
from ..wire.log import Blame as LogBlame
from ..wire.messages import Bye, Entry, Fetch, Fetched, LinksNotice, Ping, SpectatorSays, Watchers, parse_message
from ..wire.sealed import entry_message_key, open_body, open_revealed, recipients
from ..wire.spill import SpillError
from . import rounds, verdict
from .absence import Absences, absent_body, move_turn, moved_in
from .dropouts import DropOuts
from .header import TableHeader
from .recovery import OwnChainRecovery
from .verdict import plays_on

__all__ = [
    "MAX_CHAT",
    "MAX_EARLY",
    "AbsentIn",
    "Answer",
    "ChatIn",
    "DeckIn",
    "Effect",
    "Halted",
    "Keep",
    "LinksIn",
    "Left",
    "MoveIn",
    "Named",
    "OpenIn",
    "SendTo",
    "Stop",
    "TableAborted",
    "TableProtocol",
    "plays_on",
]

#: Kinds of our own entries that a replay after a restart does not make again by itself: they
#: are re-used as soon as they come next in the journal.
UNPROMPTED = frozenset({"absent", "chat"})
#: Entries of one seat kept ahead of a gap in its chain, at most.
MAX_EARLY = 4096
#: The longest chat line shown (longer ones are cut).
MAX_CHAT = 500
#: The signed chat line of a seat whose player left and whose program lets a bot finish the
#: seat (net.peer.Peer.leave_to_bot): an ordinary chat entry, which players' and spectators'
#: screens show as :func:`left_to_bot_words`, and only from that seat itself.
LEFT_TO_BOT = "left the table; a bot plays this seat to the end"


def left_to_bot_words(name: str) -> str:
    """What every screen says of a seat's :data:`LEFT_TO_BOT` line."""
    return f"{name} left; a bot plays {name}'s seat to the end"


class TableAborted(Exception):
    """The game cannot go on; ``seat`` (if known) is to blame. ``stall``: the verdict of a
    wait on ``seat`` that ran out (table/stall.py), which names it for what it did not sign."""

    def __init__(self, reason: str, seat: int | None = None, step: str | None = None, *, stall: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.seat = seat
        self.step = step
        self.stall = stall
        #: Seconds to wind down for the stop of the seat named for a stall, which may have
        #: waited on an entry of ours that nobody echoed (table/referee.py, ``Wait.look``).
        self.awaits_stop = 0.0
        #: ``(seat, others)``: nobody is named only on the word of ``seat``, the seat we waited
        #: on, that it waits on ``others`` (its ``links`` notice: table/stall.py rule 6). Once
        #: its stop comes, our file's verdict on them is ours (net/table._judge_the_stopper).
        self.excused_by: tuple[int, frozenset[int]] | None = None
        #: For a stall on a move: the seats whose private boxes to the seat named had not all
        #: reached us (it may have waited on them: the keys of a card it drew). Our file's
        #: verdict is then ours when it names nobody or one of them, whether or not the named
        #: seat's stop came (net/table._judge_the_stopper).
        self.owed_by: frozenset[int] = frozenset()


@dataclass(frozen=True)
class SendTo:
    seat: int
    message: Fetch


@dataclass(frozen=True)
class Answer:
    to: int
    fetch: Fetch


@dataclass(frozen=True)
class Keep:
    entry: Entry


@dataclass(frozen=True)
class Named:
    seat: int
    reason: str


@dataclass(frozen=True)
class Stop:
    aborted: TableAborted


@dataclass(frozen=True)
class Left:
    seat: int
    reason: str


@dataclass(frozen=True)
class AbsentIn:
    """Seat ``sender`` stated that it holds no move of ``seat`` for ``turn`` (absence.py)."""

    sender: int
    turn: int
    seat: int


@dataclass(frozen=True)
class Halted:
    seat: int
    reason: str


@dataclass(frozen=True)
class DeckIn:
    sender: int
    message: Any


@dataclass(frozen=True)
class MoveIn:
    sender: int
    turn: int
    action: dict[str, Any]
    entry: Entry  # signed with its head echo: the order of a free-order round comes from it


@dataclass(frozen=True)
class OpenIn:
    """Seat ``sender``'s ``open`` entry, the opening of its sealed response to round ``turn``
    (well formed; whether it opens its commitment is judged once the round is sealed here:
    rounds.opening_problem)."""

    sender: int
    turn: int
    entry: Entry


@dataclass(frozen=True)
class ChatIn:
    sender: int
    text: str


@dataclass(frozen=True)
class WatchersIn:
    """Seat ``via`` says who watches the table through it (unsigned: text for people only)."""

    via: int
    names: tuple[str, ...]


@dataclass(frozen=True)
class SpectatorSaysIn:
    """Seat ``via`` relays a chat line of a spectator (unsigned: its word only)."""

    via: int
    name: str
    text: str


@dataclass(frozen=True)
class LinksIn:
    """Seat ``via`` says whom it is connected to and whom it waits on and why (unsigned: its
    word, which the referee lets only lengthen a wait: table/referee.py, ``Report``)."""

    via: int
    connected: frozenset[int]
    waits_on: tuple[tuple[int, str], ...]


Effect = (
    SendTo
    | Answer
    | Keep
    | Named
    | Stop
    | Left
    | Halted
    | DeckIn
    | MoveIn
    | OpenIn
    | ChatIn
    | AbsentIn
    | WatchersIn
    | SpectatorSaysIn
    | LinksIn
)


class TableProtocol:
    """Seat ``seat``'s side of the table protocol over its log (see the module doc)."""

    def __init__(self, identity: Identity, header: TableHeader, header_wire: Any, seat: int):
        self.identity = identity
        self.header = header
        self.seat = seat
        self.log = Log(header.table, header_wire, [s.keys for s in header.seats])
        # The turn each entry is a move for: holds_move and passed_for are asked at every
        # statement and wake, and must not read a long chain back from the log's spill.
        self._move_turns = self.log.column(move_turn)
        #: Seats we are connected to now (the driver keeps it up to date).
        self.linked: set[int] = set()
        #: Set by the driver when the game has its result: a goodbye after it changes nothing.
        self.over = False
        self.aborted: TableAborted | None = None
        self.blames: list[str] = []
        #: Why our log's spill could not give back an entry an arriving one was checked
        #: against (the driver tells our player); nobody is named for it.
        self.spill_failure: OSError | None = None
        self.left: dict[int, str] = {}  # seats that said goodbye before the end: their reason
        self.halted: dict[int, Entry] = {}  # seats that stopped their game: their stop entry
        #: The seq of our last move (``action`` or ``open`` entry) and of our last deck entry,
        #: and the most of our entries that any other seat's entry handed on here shows it
        #: held: whether anyone has seen them (:meth:`unheard`).
        self._last_move: int | None = None
        self._last_deck: int | None = None
        self._echo_of_us = 0
        self.absences = Absences(header.players)  # statements that a follower is gone
        #: Seats that signed the table's drop-out move (issue 30; dropouts.py): from it on a seat
        #: signs no move, opening or absent statement (its deck's `drop` message, chat and its
        #: result still come): one that does is named at once, by every seat alike.
        self.drop_outs = DropOuts()
        # Every seat whose stop entry we handed on, even after our own game stopped; and ours
        # once signed: from its stop on, a seat signs no move and no deck step (section 5).
        self._stopped: set[int] = set()
        # Entries that arrived ahead of a gap in their seat's chain, until the gap is fetched.
        self._early: dict[int, dict[int, Entry]] = {}
        # Accepted entries whose author had seen entries we have not: handed on once we have
        # (a nonce never overtakes the commitment it answers). Each with the seat that brought
        # it and since when it waits (oldest first).
        self._held: dict[Entry, tuple[int | None, float]] = {}
        # How many of each seat's entries have been delivered (handed on), in chain order: an
        # entry is delivered only after everything its author had seen, so a move never
        # overtakes the reveal it follows even when both are here at once.
        self._delivered = [0] * header.players
        self.evidence: list[LogBlame] = []  # provable faults we found, to publish
        # (sender, deck op) -> the seq of the signed entry that carried a private deck message
        # to us: an accusation about that message reveals the entry's message key (wire.md
        # section 8). The seq, not the entry: the log may have spilled it since (issue 23).
        self._private_in: dict[tuple[int, int], int] = {}
        # sender -> the seq of its first private deck entry to us that is no opening of an
        # operation (judge.is_opening): what our accusation about it reveals.
        self._private_junk: dict[int, int] = {}
        # Which `open` entry each other seat's chain calls for (rounds.OpeningsDue).
        self._openings_due = rounds.OpeningsDue()
        self._echo_checks: dict[tuple[int | None, int, int], bytes] = {}  # (reporter, seat, seq)
        # After a restart: our own entries from the journal, re-used instead of re-made (a
        # re-made private entry would differ in its random nonce: two versions of one entry).
        self.replay_own: deque[Entry] = deque()
        self.replay_others: list[Entry] = []
        # After a restart, until every other seat has said what it holds of our own chain
        # beyond our journal: nothing is signed or acted on.
        self.recovery: OwnChainRecovery | None = None

    # -- state ----------------------------------------------------------------------------

    @property
    def recovering(self) -> bool:
        return self.recovery is not None and not self.recovery.done

    @property
    def holding(self) -> bool:
        return bool(self._held)

    @property
    def stopped(self) -> frozenset[int]:
        """Every seat whose ``stop`` entry we hold, ours included, whenever it came: also one
        that came after our own game stopped, which halts nothing (not in :attr:`halted`)."""
        return frozenset(self._stopped)

    def name(self, seat: int, reason: str) -> Named:
        """Seat ``seat`` misbehaved (the game goes on): remember it and say so."""
        message = f"seat {seat} ({self.header.seats[seat].name}): {reason}"
        self.blames.append(message)
        return Named(seat, message)

    def stop(self, reason: str, seat: int | None, step: str) -> Stop:
        return Stop(TableAborted(reason, seat, step))

    # -- receiving ------------------------------------------------------------------------

    def receive(self, via: int, raw: Any, now: float) -> list[Effect]:
        """A frame's message from seat ``via``'s connection."""
        try:
            message = parse_message(raw, f"seat {via}")
        except ProtocolError as exc:
            return [self.name(via, str(exc))]
        if isinstance(message, Fetch):
            if message.table != self.header.table:
                return []
            if not 0 <= message.seat < self.header.players:
                return [
                    self.name(
                        via,
                        f"asked for the entries of seat {message.seat}, but the table has {self.header.players} seats",
                    )
                ]
            return [Answer(via, message)]
        if isinstance(message, Fetched):
            problem = self.recovery.answered(via, message) if self.recovery is not None and self.recovering else None
            return [self.name(via, problem)] if problem else []
        if isinstance(message, Bye):
            return self._on_bye(via, message)
        if isinstance(message, Ping):  # the link is alive: the driver noted that already
            return []
        if isinstance(message, Watchers):
            return [WatchersIn(via, message.names)]
        if isinstance(message, SpectatorSays):
            return [SpectatorSaysIn(via, message.name, message.text)]
        if isinstance(message, LinksNotice):
            return self._on_links(via, message)
        if not isinstance(message, Entry):  # a handshake message (hello, auth) after the handshake
            return [self.name(via, f"sent a {type(message).__name__.lower()} message during the game")]
        if message.sender == self.seat and self.recovering:
            return self._take_back_own(via, message)
        return self.accept(message, via=via, now=now)

    def _on_links(self, via: int, notice: LinksNotice) -> list[Effect]:
        """A ``links`` notice (wire.md section 4.8): each seat in it must be at the table."""
        if notice.table != self.header.table:
            return []
        seats = [*notice.connected, *(seat for seat, _ in notice.waits_on)]
        beyond = [seat for seat in seats if not 0 <= seat < self.header.players]
        if beyond:
            return [
                self.name(
                    via, f"sent a links notice about seat {beyond[0]}, but the table has {self.header.players} seats"
                )
            ]
        return [LinksIn(via, frozenset(notice.connected), notice.waits_on)]

    def accept(self, entry: Entry, *, via: int | None, now: float, journal: bool = True) -> list[Effect]:
        """An entry from seat ``via``'s connection (``None``: from our own journal)."""
        if entry.sender == self.seat and entry.seq >= self.log.next_seq(self.seat):
            return self._own_ahead(via, entry)
        effects: list[Effect] = []
        try:
            fresh = self.log.append(entry, via=via)
        except Rejected as exc:
            if exc.blame.code == GAP and via is not None:
                return self._hold_early(entry, via)
            return self._log_fault(exc.blame)
        except SpillError as exc:
            # A validly signed rival of an entry long in our log's spill, which cannot give
            # the version we hold back (our disk): without the two side by side there is no
            # proof, so nobody is named; the rival is refused (the log is unchanged), and the
            # seats that hold both prove the fork to everyone.
            self.spill_failure = self.spill_failure or exc
            return []
        if not fresh:
            if self._echo_checks.pop((via, entry.sender, entry.seq), None) is not None:
                # Asked to back up its echo, the reporter sent the very version we hold.
                assert via is not None, "echo checks are asked of a connected seat"
                return [
                    self.name(
                        via,
                        f"its head echo names a version of seat {entry.sender}'s "
                        f"entry #{entry.seq} that it cannot show",
                    )
                ]
            return []
        if journal:
            effects.append(Keep(entry))
        for mismatch in self.log.check_seen(entry):
            # Either that seat told peers different things or the reporter echoes a lie: ask
            # the reporter for its copy; two signed versions are proof (the log then blames).
            self._echo_checks[(mismatch.reporter, mismatch.seat, mismatch.seq)] = mismatch.theirs
            effects.append(SendTo(mismatch.reporter, Fetch(self.header.table, mismatch.seat, mismatch.seq)))
        if via is not None:
            # Entries its author had seen and we have not: a seat we are connected to sends
            # us its own (they are on the way); those of a seat we are not connected to we
            # ask for from the one that brought this entry.
            # Never our own chain: the log takes it from our journal's replay alone (_own_ahead).
            effects += [
                SendTo(via, fetch)
                for fetch in self.log.missing(entry)
                if fetch.seat not in self.linked and fetch.seat != self.seat
            ]
        self._held[entry] = (via, now)
        early = self._early.get(entry.sender)
        while early and self.log.next_seq(entry.sender) in early:
            effects += self.accept(early.pop(self.log.next_seq(entry.sender)), via=via, now=now, journal=journal)
        return effects

    def _own_ahead(self, via: int | None, entry: Entry) -> list[Effect]:
        """One of our own entries that our chain in the log has not reached: after a restart,
        one our replay has still to re-use (the seats we sent it to hold it, and a fetch or a
        relay brings it back). It is not taken: our chain grows only as the replay re-uses our
        journal, in order. Taken ahead of the replay, it would release at once every entry of
        others that waits for it (causal order counts our chain as delivered), and the deck
        and the seats would act on them before the replay reached the point where we first
        did: the replay would then sign in another order than the journal has (issue 23).
        Nothing is lost: the journal (and the recovery of what it lost) holds it already."""
        index = entry.seq - self.log.next_seq(self.seat)
        ours = self.replay_own[index] if index < len(self.replay_own) else None
        if ours is not None and ours.sig == entry.sig and ours.hash == entry.hash:
            return []  # a copy of the one the replay re-uses when it gets there
        if via is not None and not entry.verify(self.header.seats[self.seat].keys):
            return [self.name(via, f"sent a version of our own entry #{entry.seq} that we did not sign")]
        # Signed with our key, but not an entry we hold: no seat we know of is to blame (it
        # would be a second program playing this seat, which the seat's lock prevents).
        return []

    def _hold_early(self, entry: Entry, via: int) -> list[Effect]:
        """An entry beyond a gap in its seat's chain (we missed some while away): keep it and
        ask for the gap. Bounded, so a peer cannot make us hoard."""
        early = self._early.setdefault(entry.sender, {})
        if len(early) >= MAX_EARLY:
            return [self.name(via, f"sent more than {MAX_EARLY} entries of seat {entry.sender} ahead of a gap")]
        first = not early
        early[entry.seq] = entry
        return [SendTo(via, Fetch(self.header.table, entry.sender, self.log.next_seq(entry.sender)))] if first else []

    def _log_fault(self, blame: LogBlame) -> list[Effect]:
        effects: list[Effect] = [self.name(blame.seat, f"{blame.code}: {blame.reason}")]
        if blame.provable and self.aborted is None:
            if self._quotable(blame):
                self.evidence.append(blame)
            effects.append(self.stop(blame.reason, blame.seat, blame.code))
        return effects

    def _quotable(self, blame: LogBlame) -> bool:
        """Our ``blame`` entry quoting ``blame`` could be signed: the entries it quotes sit four
        levels deeper there than in their own frames, and two of them may be twice as large as
        an entry may be. One that could not is not published (signing it would fail as our
        game stops: issue 28); our stop entry still names the seat, and the blame goes in our
        transcript beside the entries, as every provable fault does."""
        body = {"blame": blame.to_wire(), SEEN: self.log.seen()}
        try:
            framing.check_value(body, replace(framing.DEFAULT_LIMITS, max_depth=framing.DEFAULT_LIMITS.max_depth - 1))
        except framing.FrameError:
            return False
        return len(framing.encode(body, checked=True)) + _ENTRY_OVERHEAD <= self.log.budget.entry_bytes

    def _on_bye(self, seat: int, message: Bye) -> list[Effect]:
        """A goodbye frame: the seat's connection goes down now. It is not signed, so it proves
        nothing and stops nothing: a seat that leaves on purpose signs a ``bye`` entry first
        (:meth:`meaning`), which ends the game at every seat and names it in the transcript.
        A seat that only says it here is waited for like any seat that dropped out."""
        if self.over or self.aborted is not None:
            return []  # over already: it is only going home
        self.left[seat] = message.reason
        return [Left(seat, verdict.peer_words(message.reason))]

    # -- after a restart ------------------------------------------------------------------

    def load_journal(self, entries: Sequence[Entry]) -> None:
        """Prepare to replay a journal written before a crash: our own entries are re-used as
        the game reaches them, everyone else's are fed back in (:meth:`replay_journal`).
        Nothing is signed or acted on until every other seat said what it holds of our chain."""
        for entry in entries:
            (self.replay_own if entry.sender == self.seat else self.replay_others).append(entry)
        self.recovery = OwnChainRecovery(
            self.header.table,
            self.seat,
            self.header.players,
            self.header.seats[self.seat].keys,
            list(self.replay_own),
            self.log.head(self.seat),
        )

    def replay_journal(self, now: float) -> list[Effect]:
        others, self.replay_others = self.replay_others, []
        effects: list[Effect] = []
        for entry in others:
            effects += self.accept(entry, via=None, now=now, journal=False)
        return effects

    def _take_back_own(self, via: int, entry: Entry) -> list[Effect]:
        """One of our own entries, back from seat ``via`` while we recover: kept (in the journal
        too) to be re-used as the game reaches it."""
        try:
            assert self.recovery is not None, "called only while recovering"
            taken = self.recovery.take(entry)
        except ValueError as exc:
            return [self.name(via, f"sent {exc}")]
        if taken is None:
            return []
        self.replay_own.append(taken)
        return [Keep(taken)]

    def logged_action(self) -> dict[str, Any] | None:
        """During a replay, our next move as the journal has it (a commitment to a sealed
        response: its body, whose box holds the response)."""
        self.reuse_unprompted()
        if self.replay_own and self.replay_own[0].kind == "action":
            body = self.replay_own[0].body
            return body if "sealed" in body else body["action"]
        return None

    def reuse_unprompted(self) -> list[Entry]:
        """During a replay: our journal's next entries that the replay would not make again by
        itself (``absent`` statements, which depend on who was connected then, and chat lines),
        back in our chain as signed. The caller sends them again."""
        reused = []
        while self.replay_own and self.replay_own[0].kind in UNPROMPTED:
            entry = self.replay_own.popleft()
            self.log.append(entry)
            self._signed(entry)
            reused.append(entry)
        return reused

    def replay_void_action(self, turn: int) -> Entry | None:
        """During a replay, when the table passed for us at ``turn`` (we were gone): our
        journal's move for that turn, if it has one, back in our chain as it was signed (the
        others may hold it; re-signing that place would make two versions) but not acted on."""
        self.reuse_unprompted()
        if not (
            self.replay_own and self.replay_own[0].kind == "action" and self.replay_own[0].body.get("turn") == turn
        ):
            return None
        entry = self.replay_own.popleft()
        self.log.append(entry)
        return entry

    # -- signing --------------------------------------------------------------------------

    def sign(self, kind: str, body: Callable[[], dict[str, Any]]) -> tuple[Entry, bool]:
        """Our next entry, in the log: ``(entry, fresh)``. While we replay our journal the
        logged entry is used instead of a new one (``fresh`` false); ``body`` is called only
        for a new one, just before it is signed (a sealed body binds the entry's seq)."""
        self.reuse_unprompted()
        if self.replay_own and kind in UNPROMPTED:
            # A new one now would take the place of a journaled entry still to be re-used.
            raise TableAborted(f"no {kind} entry is signed while our journal is replayed", None, "replay")
        if self.replay_own:
            entry = self.replay_own.popleft()
            if entry.kind != kind:
                # Our replay went another way than our game first went: no seat is to blame for
                # that, ours included (naming it would list it as absent in the transcript).
                raise TableAborted(
                    f"our journal has a {entry.kind} entry where the replay makes a {kind} one", None, "replay"
                )
            self.log.append(entry)
            self._signed(entry)
            self.reuse_unprompted()  # and what follows it in the journal, if the replay will not make it
            return entry, False
        made = body()
        if self.seat in self._stopped and plays_on(kind, made):
            # A move or deck step that began just before our game stopped: signed now it
            # would be a fault of ours (section 5). Nothing of it goes out.
            raise TableAborted(f"our game has stopped: no {kind} entry is signed after it", None, "stop")
        try:
            entry = self.log.make_entry(self.identity, self.seat, kind, made)
        except Rejected as exc:  # our own entry past the seat's budget (wire.md section 7)
            raise TableAborted(
                f"this game has grown past what a transcript can hold ({exc.blame.reason})", None, exc.blame.code
            ) from None
        self._signed(entry)
        return entry, True

    def unsign(self, entries: Sequence[Entry]) -> None:
        """Take back our newest ``entries`` (in the order signed), which never left this
        program: they could not be journaled, and what cannot be journaled is not sent."""
        for entry in reversed(entries):
            self.log.retract(entry)
            if entry.kind == "stop":
                self._stopped.discard(self.seat)

    def _signed(self, entry: Entry) -> None:
        """What our own entry tells our side of the protocol (it never comes to meaning())."""
        if entry.kind == "stop":
            self._stopped.add(self.seat)
        elif entry.kind in ("action", "open"):
            self._last_move = entry.seq
        elif entry.kind == "deck":
            self._last_deck = entry.seq
        elif entry.kind == "absent":
            self.absences.add(entry)

    # -- delivering -----------------------------------------------------------------------

    def _causally_ready(self, entry: Entry) -> bool:
        """Every entry its author had seen when it signed it has been delivered (ours are
        delivered as we sign them, or re-use them after a restart)."""
        return all(
            count <= (self.log.next_seq(seat) if seat == self.seat else self._delivered[seat])
            for seat, (count, _) in enumerate(entry.body["seen"])
        )

    def next_ready(self) -> Entry | None:
        """The next held entry whose author's ``seen`` we now hold, taken off the held ones;
        ``None`` if there is none. Nothing is ready while we recover our own chain (acting on
        it could make us sign)."""
        if self.recovering:
            return None
        ready = next((e for e in self._held if self._causally_ready(e)), None)
        if ready is not None:
            del self._held[ready]
            self._delivered[ready.sender] = ready.seq + 1
            self._echo_of_us = max(self._echo_of_us, ready.body["seen"][self.seat][0])
        return ready

    def meaning(self, entry: Entry) -> list[Effect]:
        """What a ready entry asks of us."""
        sender, body = entry.sender, entry.body
        if sender == self.seat:
            return []  # our own entry coming back (a relay or a catch-up): nothing to act on
        stray = self._openings_due.note(entry) if entry.kind in ("action", "open") else None
        if sender in self._stopped and plays_on(entry.kind, body):
            if self.over or self.aborted is not None:
                return []  # our game has stopped too: verify names it from the transcript
            return [
                self.name(sender, verdict.signed_after_stop(entry.kind)),
                self.stop(f"seat {sender}: {verdict.signed_after_stop(entry.kind)}", sender, "stop"),
            ]
        after_drop = self.drop_outs.note(entry)
        if after_drop is not None:
            if self.over or self.aborted is not None:
                return []  # our game has stopped: verify names it from the transcript
            return [
                self.name(sender, after_drop),
                self.stop(f"{self.header.seats[sender].name} {after_drop}", sender, "action"),
            ]
        if sender in self.drop_outs.seq:
            self.absences.gone.add(sender)  # no statement is waited for from it
        if entry.kind == "deck":
            if "msg" in body:
                try:
                    return [DeckIn(sender, self._opened_evidence(sender, body["msg"]))]
                except SpillError as exc:
                    # The entry its evidence names is in our log's spill, which cannot give it
                    # back (our disk): we cannot judge, and naming the accuser or the accused
                    # would blame on our disk. The seats that can read it judge it.
                    self.spill_failure = self.spill_failure or exc
                    return [
                        self.stop(
                            f"cannot read back the entry seat {sender}'s accusation names: {exc}; nobody is named",
                            None,
                            "deck",
                        )
                    ]
            boxes = recipients(body)
            # Every seat's deck counts the boxes of every private entry, to whomever: one the
            # protocol never called for is proven by the entry itself, at every seat alike,
            # even where only its recipient can open it (deck.md section 7; issue 28: the
            # seats it was not sealed to ignored it and finished the game, verify named it).
            counted: list[Effect] = [DeckIn(sender, judge.PrivateBoxes(tuple(sorted(boxes))))] if boxes else []
            if self.seat not in boxes:
                return counted
            try:
                message = open_body(self.identity, self.seat, entry, self.header.seats[sender].keys)
            except ProtocolError as exc:
                return [
                    self.stop(f"seat {sender} sent a private deck message that does not open: {exc}", sender, "deck")
                ]
            if not judge.is_opening(message):
                # No opening of an operation: a message of another type (only openings go to
                # one seat; a pass sent privately would be judged at its receiver only, as a
                # later shuffle makes an accusation stale: deck.md section 6), an op that is a
                # bool, None, negative or a float, or no map at all. The deck party accuses
                # with this entry's key, which proves it to every seat and to verify alike, so
                # the game stops naming the sender everywhere (issue 28: set aside and played
                # on, the receiver alone named it while verify failed the game).
                self._private_junk.setdefault(sender, entry.seq)
                return [*counted, DeckIn(sender, judge.NotAnOpening(message))]
            # Only an operation's number keys it: a bool is an int to Python, and (1, True)
            # would take the place of operation 1's real opening for an accusation about it.
            self._private_in.setdefault((sender, message["op"]), entry.seq)
            return [*counted, DeckIn(sender, message)]
        if entry.kind == "result":
            # The end of the sender's chain for the deck: every private box of it came before
            # (the deck counts them now: Party.boxes_missing; no seed marks it since version 12).
            return [DeckIn(sender, judge.ChainEnded())]
        if entry.kind == "action":
            turn, action = body.get("turn"), body.get("action")
            sealed = rounds.parse_commitment(body) if "sealed" in body else None
            if sealed is not None:  # a sealed response to a free-order round (section 9)
                return [MoveIn(sender, sealed[0], dict(rounds.SEALED), entry)]
            if (
                not isinstance(turn, int)
                or isinstance(turn, bool)
                or not isinstance(action, dict)
                or rounds.is_sealed(action)
            ):
                # Signed by its author: proof enough (protocol/table.md section 4, Turns).
                return [
                    self.name(sender, "malformed action entry"),
                    self.stop(f"seat {sender} signed a malformed action entry", sender, "action"),
                ]
            return [MoveIn(sender, turn, action, entry)]
        if entry.kind == "open":
            if stray is not None:
                # Proven by its author's own chain, at every seat alike the moment it is
                # logged, and by verify (issue 28: one outside any round was ignored).
                return [self.name(sender, stray), self.stop(f"seat {sender} {stray}", sender, "action")]
            opened = rounds.parse_opening(body)
            if opened is None:
                return [
                    self.name(sender, "malformed open entry"),
                    self.stop(f"seat {sender} signed a malformed open entry", sender, "action"),
                ]
            return [OpenIn(sender, opened[0], entry)]
        if entry.kind == "absent":
            key = absent_body(body, self.header.players, sender)
            if key is None:
                return [
                    self.name(sender, "malformed absent entry"),
                    self.stop(f"seat {sender} signed a malformed absent entry", sender, "action"),
                ]
            if not self.absences.add(entry):
                return []  # a second statement changes nothing
            return [AbsentIn(sender, *key)]
        if entry.kind == "blame":
            return self._on_evidence(sender, body)
        if entry.kind == "bye":
            return self._on_signed_bye(sender, body)
        if entry.kind == "stop":
            self._stopped.add(sender)
            # A stop ends its author's chain for the deck as a result does: it signs no deck
            # step after it, so a private box it owed a third seat in an operation begun by our
            # end is never coming, and only that seat waits for it. Counted after our result
            # (Party.boxes_missing), as verify counts it in our file (it stops there, the game
            # having waited on the stopper). Issue 29's flake hunt: a seat passed for as an
            # absent follower after its stop owed the pile's receiver its cards' keys, and a
            # seat the transfer did not wait on finished while verify of its own file did not.
            ended = DeckIn(sender, judge.ChainEnded())
            if self.over or self.aborted is not None:
                return [ended]
            self.halted[sender] = entry
            return [ended, Halted(sender, verdict.peer_words(_stop_reason(body)))]  # its words, shown as such
        if entry.kind == "chat":
            return [ChatIn(sender, " ".join(str(body.get("text", "")).split())[:MAX_CHAT])]
        return []

    def _on_signed_bye(self, sender: int, body: Any) -> list[Effect]:
        """A seat leaves before the end (its player quit) and signs it: the game ends now, as
        abandoned by that seat, at every seat and in ``p2pcards verify`` (nobody waits the
        grace period for a player who is not coming back)."""
        if self.over or self.aborted is not None:
            return []
        if sender in self.drop_outs.seq:
            return []  # it dropped out: the game goes on without it, and its goodbye ends nothing
        reason = verdict.goodbye_words(body)  # its words, shown as such (never a verdict's)
        self.left[sender] = reason
        name = self.header.seats[sender].name
        return [Left(sender, reason), self.stop(verdict.goodbye(name, body), sender, "connection")]

    def _on_evidence(self, sender: int, body: Any) -> list[Effect]:
        """Another seat proves a fault (two versions of one entry): check the proof ourselves."""
        try:
            blame = LogBlame.from_wire(body.get("blame"))
            proven = blame.provable and blame.verify(self.header.table, self.log.roster, self.log)
        except (ProtocolError, AttributeError, TypeError, ValueError, KeyError):
            proven = False
        if proven:
            return [
                self.name(blame.seat, f"{blame.code} (proven by seat {sender}): {blame.reason}"),
                self.stop(f"{blame.reason} (proven by seat {sender})", blame.seat, blame.code),
            ]
        return [self.name(sender, "published evidence that does not prove anything")]

    def unheard(self) -> str | None:
        """``"move"`` if no other seat has signed an entry that shows it received our last
        move, else ``"deck"`` if none shows our last deck entry, else ``None``: what we send
        may reach nobody (a link broken one way), and a seat whose step follows it may never
        have seen it (the referee's ``Links.unheard``)."""
        for kind, seq in (("move", self._last_move), ("deck", self._last_deck)):
            if seq is not None and self._echo_of_us <= seq:
                return kind
        return None

    def held_back(self, seat: int) -> set[int]:
        """The seats whose entries ``seat``'s entries held here wait for (empty if none of its
        entries is held): its move may be here, held until what its author had seen comes."""
        return {
            other
            for entry in self._held
            if entry.sender == seat
            for other, (count, _) in enumerate(entry.body["seen"])
            if count > (self.log.next_seq(other) if other == self.seat else self._delivered[other])
        }

    # -- absent followers (absence.py) --------------------------------------------------------

    def holds_move(self, seat: int, turn: int) -> bool:
        """A move of ``seat`` for ``turn`` has been handed on here (or signed, if ours)."""
        held = self.log.next_seq(seat) if seat == self.seat else self._delivered[seat]
        return self._moved(seat, turn, held)

    def _moved(self, seat: int, turn: int, count: int) -> bool:
        """A move of ``seat`` for ``turn`` is among its first ``count`` entries."""
        found = moved_in(self._move_turns[seat], turn, count)
        if found is None:  # (no turn a move can name: nothing to find, as the entries would say)
            return any(e.kind == "action" and e.body.get("turn") == turn for e in self.log.chain(seat)[:count])
        return found

    def passed_for(self, turn: int, seat: int) -> bool | None:
        """What the ``absent`` statements decide for ``seat`` at ``turn`` (Absences.passed)."""
        # No entry is read: the turns of the moves are kept (a long chain's older entries are
        # in the log's spill, and this is asked at every wake of a seat's wait).
        return self.absences.decide(turn, seat, self.log.next_seq(seat), lambda count: self._moved(seat, turn, count))

    # -- asking -----------------------------------------------------------------------------

    def overdue_fetches(self, now: float, late: float) -> list[Effect]:
        """A seat we are connected to sends us its entries itself, so an entry that others had
        seen and we lack is normally on its way. For each entry held ``late`` seconds or more
        that still waits, ask the seat that brought it (again each ``late`` seconds)."""
        asks: dict[tuple[int, int], SendTo] = {}  # one ask per seat and chain, the earliest start
        for entry, (via, since) in list(self._held.items()):
            if via is None or now - since < late:
                continue
            self._held[entry] = (via, now)
            for fetch in self.log.missing(entry):
                if fetch.seat != self.seat:  # ours the replay re-makes (_own_ahead)
                    asks.setdefault((via, fetch.seat), SendTo(via, fetch))
        return list(asks.values())

    def halted_among(self, waiting_on: Iterable[int]) -> TableAborted | None:
        """If a seat we wait on has stopped its game, the game cannot go on: it ends naming
        nobody. The stopper says why and whom it blames, but its word proves nothing, and
        nothing we hold can tell a staller that stops on purpose from an honest seat whose
        link to the seat it blames broke (that seat may still be connected to us): the seats
        that saw the fault themselves name it, and ``p2pcards verify`` judges the stopper by
        what its signed stop shows it held."""
        for seat in sorted(set(waiting_on) & set(self.halted)):
            return TableAborted(verdict.halted(self.header.seats[seat].name), None, "stop")
        return None

    def final_verdict(self, aborted: TableAborted) -> TableAborted:
        """Our game stopped naming nobody (``aborted``); now that no more entries come (our
        transcript is written from this log next), does the log prove a seat's fault that our
        stop did not see? A seat that signed a move, statement, result or deck step after its
        own ``stop`` entry (:func:`p2pcards.table.verdict.played_after_stop`), which came while
        we wound down: it is named, as ``p2pcards verify`` names it from our transcript (one
        rule, issue 28). Any other stop stays as it was (the first reason stays)."""
        if aborted.seat is not None:
            return aborted
        try:
            found = verdict.played_after_stop(self.header.players, self.log.chain)
        except SpillError:
            return aborted  # our spill fails: so will our transcript, which says so
        if found is None:
            return aborted
        return TableAborted(found.reason(self.header.seats[found.seat].name), found.seat, "stop")

    def ask_around(self, waiting_on: Iterable[int]) -> list[Effect]:
        """We wait on the seats ``waiting_on`` (a deck step they owe, a move): ask every other
        seat we are connected to for what it holds of their chains beyond ours. A seat may
        send its message to every seat but one, so that that one seems to stall: the others
        hold it and pass it on (protocol/table.md section 5)."""
        effects: list[Effect] = []
        for owing in sorted(set(waiting_on)):
            if owing == self.seat:
                continue
            fetch = Fetch(self.header.table, owing, self.log.next_seq(owing))
            effects += [SendTo(other, fetch) for other in sorted(self.linked) if other not in (owing, self.seat)]
        return effects

    # -- accusations about a private deck message (deck.md section 6, wire.md section 8) ------
    # The deck party names the message by its plaintext; that is not signed by its sender, so
    # on the wire the evidence is the signed entry that carried it and its message key instead:
    # {"sender": seat, "entry": seq, "key": message key}. Every seat (and p2pcards verify)
    # opens that box from the log and checks what the sender really signed.

    def revealed_evidence(self, message: dict[str, Any]) -> dict[str, Any]:
        """Our accusation about a private message, as it goes on the wire."""
        evidence = message.get("evidence") if message.get("type") == "accuse" else None
        if not (isinstance(evidence, dict) and "message" in evidence):
            return message
        sender, op = evidence.get("sender"), message.get("op")
        if judge.is_opening(evidence["message"]):
            seq = self._private_in.get((sender, op)) if isinstance(sender, int) and isinstance(op, int) else None
        else:
            seq = self._private_junk.get(sender) if isinstance(sender, int) else None
        # Not expected: the party accuses only about what it received (from a seat, by number).
        if seq is None or not isinstance(sender, int):
            return {**message, "evidence": None}
        try:
            entry = self.log.entry(sender, seq)
        except SpillError as exc:
            # Our log's spill cannot give back the entry: sent without its evidence, our
            # accusation would have us named as a false accuser. We stop, naming nobody.
            self.spill_failure = self.spill_failure or exc
            raise TableAborted(f"cannot read back seat {sender}'s entry to accuse it: {exc}", None, "deck") from None
        key = entry_message_key(self.identity, self.seat, entry, self.header.seats[sender].keys)
        return {**message, "evidence": {"sender": sender, "entry": entry.seq, "key": key}}

    def _opened_evidence(self, accuser: int, message: Any) -> Any:
        """An accusation about a private message, as the deck party checks it: the evidence
        becomes the payload of the signed entry it names, opened with the revealed key (``None``
        if it names no private deck entry to the accuser for that operation, or does not open)."""
        if not isinstance(message, dict) or message.get("type") != "accuse" or message.get("step") != "open":
            return message
        evidence = message.get("evidence")
        if isinstance(evidence, dict) and "scalar" in evidence:
            return message  # not about a private message (a reused key's proof is public)
        payload = sender = None
        try:
            checked = wire_private_evidence(evidence, self.header.players)
            if checked is None:  # (no evidence, or a sender, entry or key of another type or range)
                raise ValueError("malformed evidence")
            sender, seq, key = checked
            entry = self.log.entry(sender, seq)
            if entry.kind == "deck" and accuser in recipients(entry.body):
                payload = open_revealed(entry, key, accuser)
                if not judge.is_opening(payload):
                    # No opening of any operation: proof against its sender as it stands.
                    return {**message, "evidence": {"sender": sender, "message": judge.NotAnOpening(payload)}}
                if payload.get("op") != message.get("op"):
                    payload = None
        except (ProtocolError, KeyError, IndexError, TypeError, ValueError, AttributeError):
            payload = None
        return {**message, "evidence": {"sender": sender, "message": payload}}


#: The bytes an entry's signed form adds to its body (its table, seat, seq, kind and previous
#: hash), with a margin.
_ENTRY_OVERHEAD = 256


def _stop_reason(body: Any) -> str:
    reason = body.get("reason")
    return reason if isinstance(reason, str) else "no reason given"

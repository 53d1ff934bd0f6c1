"""The table log: one hash chain of signed entries per seat, with a head echo (sans-IO).

Several seats send at once (during the deck protocol every seat commits, every seat releases
keys), so peers receive entries in different orders. The log therefore does not put all entries
on one chain; every seat's entries form their own chain:

* entry ``seq`` of seat ``s`` has ``prev`` = the hash of seat ``s``'s entry ``seq - 1``, or for
  ``seq == 0`` the seat's genesis hash (:func:`~p2pcards.wire.messages.seat_genesis`, which binds
  the table id, the lobby header and the seat);
* every entry's body is a map that carries ``seen``, the head echo: for each seat ``j`` of the
  roster, ``[count, last]`` = how many of seat ``j``'s entries the sender had accepted when it
  signed, and the hash of the last of them (seat ``j``'s genesis hash if none). The sender's own
  item is ``[seq, prev]``.

An entry is accepted only if

* its table id is this table's,
* its sender is a seat of the roster and the signature is that seat's key,
* its ``seq`` is exactly the sender's next number (0, 1, 2 ... per seat: no gaps),
* its ``prev`` is the hash of the sender's previous entry (its seat genesis for ``seq`` 0),
* its body carries a valid ``seen``,
* its ``seen`` counts, for every seat, at least as many entries as the sender's previous entry
  did: a seat's head echo never goes backwards (what a seat has accepted stays accepted), so
  an echo that "did not see" what an earlier one of the same signer counted is a fault of its
  signer, proven by the two entries (protocol/wire.md section 6, protocol/table.md section 9).

Entries of different seats may arrive in any interleaving: a peer that received them in another
order holds the same log. Two peers' logs are equal when their :meth:`Log.seen` vectors are,
and :meth:`Log.canonical` (seat, then seq) lists a log in the same order on every peer, for
transcripts that are byte-identical. An exact copy of an entry already held (a resend after a
reconnect, a relayed or fetched copy) is accepted harmlessly and changes nothing.

Telling different peers different things is caught in two ways. Directly: two different entries
signed by one seat with one ``seq`` are proof anyone can check (:meth:`Blame.verify`); the log
keeps the first version and raises :class:`Rejected` with the proof when the second arrives.
Through the head echo: when an accepted entry's ``seen`` names, for seat ``j``'s entry ``k``, a
hash other than ours, :meth:`Log.check_seen` reports a :class:`Mismatch`; the session then
fetches seat ``j`` from ``k`` on from the entry's sender (:class:`~p2pcards.wire.messages.Fetch`,
answered with :meth:`Log.entries`), and appending the other version yields the proof. A sender
that cannot produce it lied in its echo.

Every seat has a budget (:class:`Budget`, protocol/wire.md section 7): only the table's entry
kinds (:data:`KINDS`), and per seat and game at most so many entries, bytes, lists and maps, and
chat lines, so that no seat can grow every transcript past what a reader accepts
(:data:`~p2pcards.wire.transcript.MAX_FILE`). The rule depends on the log alone (the seat's own
chain before the entry), so every peer and ``p2pcards verify`` refuse the same entry; the
signed entry over budget is the proof (:meth:`Blame.verify` with the log).

Each rejection raises :class:`Rejected` with a :class:`Blame`. ``provable`` blames carry signed
evidence; for the others (a bad signature, a stranger, a gap) the culprit is whoever delivered
the bytes, which only the caller knows: pass it as ``via``, the seat of the connection the entry
came from. Without ``via`` the entry's claimed sender is named.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, overload

from . import framing
from .errors import ProtocolError
from .identity import Identity, PublicIdentity
from .messages import HASH_SIZE, MAX_SEQ, Entry, Fetch, genesis_hash, seat_genesis, sign_entry
from .spill import SpillError

__all__ = ["KINDS", "Blame", "Budget", "Log", "Mismatch", "Rejected", "echo_went_back", "encode_header"]

# Blame codes.
WRONG_TABLE = "wrong-table"
STRANGER = "stranger"
BAD_SIGNATURE = "bad-signature"
GAP = "gap"
STALE_PREV = "stale-prev"
BAD_SEEN = "bad-seen"
EQUIVOCATION = "equivocation"
UNKNOWN_KIND = "unknown-kind"
OVER_BUDGET = "over-budget"
ECHO_BACK = "echo-backwards"
#: Blames whose proof is one signed entry checked against the signer's chain before it.
BUDGET_FAULTS = (UNKNOWN_KIND, OVER_BUDGET)

#: The entry kinds of the table protocol (protocol/table.md section 4); any other is refused.
KINDS = frozenset({"deck", "action", "open", "absent", "chat", "blame", "result", "bye", "stop"})

# The budget. Measured on honest games played by bots over loopback (issue 19), per seat, in
# signed bytes / entries / lists and maps (with the 2 of its transcript record):
#   Cal's BS, 7 players, to 5 hand wins (14 hands):  ~400 KB,  ~260 entries, ~4,300
#   Calypso, 4 players, a whole game:                  ~107 KB,  ~115 entries, ~1,540
#   the largest single entry: 29 KB (a Calypso 4-pack shuffle pass with its proofs)
# A Cal's BS hand at 7 players costs each seat ~29 KB and ~19 entries, so a 7-seat budget of
# 14 MiB fits about 500 hands (a match to 99 wins between equal players can take ~690: that
# one is past the transcript's MAX_FILE with or without a budget). Totals are split evenly
# between the seats and, with each entry's record overhead, stay below the transcript's
# limits (checked in p2pcards/wire/transcript.py).
LOG_BYTES = 100 << 20  # signed bytes of every seat's entries together
LOG_ENTRIES = 120_000  # entries of every seat together (each costs ~1-2 KB of memory held)
LOG_CONTAINERS = 3_500_000  # lists and maps of every entry (body, + 2 for entry and record)
MAX_ENTRY_BYTES = 256 << 10  # one entry's signed bytes: 9x the largest honest one
CHAT_ENTRIES = 1_000  # chat lines per seat and game: free text gets a tighter budget
CHAT_BYTES = 1 << 20  # signed bytes of one seat's chat entries
#: The last entries of each chain keep their encoded bytes beside the decoded body (they are
#: sent, journaled and resent soon); older ones drop them (Entry.forget_encoding) and make
#: them again if asked. Memory, issue 23: the bytes were a third of what an entry held.
KEEP_ENCODED = 32
#: A log with a store (:meth:`Log.spill_to`) keeps this many of the last entries of each chain
#: decoded, and spills the older ones (a Cal's BS hand is about 40 entries a seat at 3 seats,
#: 19 at 7): what the table reads soon after an entry arrives never waits for the disk.
SPILL_KEEP = 64
#: Provable blames a log keeps (one a seat): they go into the transcript beside the entries.
MAX_BLAMES = 4

SEEN = "seen"  # the body field of the head echo
#: Head echo counts are kept (for Log.closed) up to this: a count compares with chain lengths,
#: which the budget keeps far below it.
_ECHO_MAX = 0xFFFFFFFF


class EntryStore(Protocol):
    """Where a log spills its older entries (:mod:`p2pcards.wire.spill`): ``put`` is called
    once per entry, each seat's in ``seq`` order; ``get`` gives the bytes back or raises
    :class:`~p2pcards.wire.spill.SpillError`."""

    def put(self, seat: int, seq: int, data: bytes) -> None: ...

    def get(self, seat: int, seq: int) -> bytes: ...

    def close(self) -> None: ...


def encode_header(header: Any) -> bytes:
    """The canonical bytes of a lobby header: what the deck protocol binds to (the log binds
    the same header through the genesis hashes)."""
    return framing.encode(header)


@dataclass(frozen=True)
class Budget:
    """What one seat may sign in one game: the totals split evenly between the seats."""

    entries: int
    bytes: int
    containers: int
    chat_entries: int = CHAT_ENTRIES
    chat_bytes: int = CHAT_BYTES
    entry_bytes: int = MAX_ENTRY_BYTES

    @classmethod
    def for_seats(cls, seats: int) -> Budget:
        seats = max(1, seats)
        return cls(LOG_ENTRIES // seats, LOG_BYTES // seats, LOG_CONTAINERS // seats)


@dataclass
class _Spent:
    """What one seat's accepted entries have used of its budget."""

    bytes: int = 0
    containers: int = 0
    chats: int = 0
    chat_bytes: int = 0

    def add(self, entry: Entry) -> None:
        self.bytes += len(entry.signed_bytes)
        self.containers += entry_containers(entry)
        if entry.kind == "chat":
            self.chats += 1
            self.chat_bytes += len(entry.signed_bytes)

    def remove(self, entry: Entry) -> None:
        self.bytes -= len(entry.signed_bytes)
        self.containers -= entry_containers(entry)
        if entry.kind == "chat":
            self.chats -= 1
            self.chat_bytes -= len(entry.signed_bytes)


_FLAT = frozenset({bytes, str, int, bool, float, type(None)})


def entry_containers(entry: Entry) -> int:
    """Lists and maps an entry costs a transcript reader: those of its body, its own map and
    the map of its transcript record."""
    count, stack = 2, [entry.body]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            count += 1
            stack.extend(value.values())
        elif isinstance(value, list):
            count += 1
            if not _FLAT.issuperset(map(type, value)):  # a deck pass: no pushes
                stack.extend(value)
    return count


def budget_problem(budget: Budget, seq: int, spent: _Spent, entry: Entry) -> tuple[str, str] | None:
    """``(code, reason)`` if ``entry`` (the signer's entry ``seq``, after entries that spent
    ``spent``) breaks the budget rule, else ``None``. Depends on the log alone."""
    if entry.kind not in KINDS:
        return UNKNOWN_KIND, (
            f"signed entry #{seq} of unknown kind {entry.kind!r} (the table's kinds are {', '.join(sorted(KINDS))})"
        )
    size = len(entry.signed_bytes)
    what = f"entry #{seq} ({entry.kind}, {size} bytes)"
    if size > budget.entry_bytes:
        return OVER_BUDGET, f"{what} is larger than {budget.entry_bytes} bytes"
    if seq >= budget.entries:
        return OVER_BUDGET, f"{what} is over the budget of {budget.entries} entries a seat"
    if spent.bytes + size > budget.bytes:
        return OVER_BUDGET, f"{what} brings its entries over the budget of {budget.bytes} bytes"
    if spent.containers + entry_containers(entry) > budget.containers:
        return OVER_BUDGET, (f"{what} brings its entries over the budget of {budget.containers} lists and maps")
    if entry.kind == "chat":
        if spent.chats >= budget.chat_entries:
            return OVER_BUDGET, f"{what} is over the budget of {budget.chat_entries} chat lines"
        if spent.chat_bytes + size > budget.chat_bytes:
            return OVER_BUDGET, (f"{what} brings its chat over the budget of {budget.chat_bytes} bytes")
    return None


def echo_counts(entry: Entry, seats: int) -> list[int] | None:
    """The counts of ``entry``'s head echo, one per seat, or ``None`` if its body has no
    well-formed one for ``seats`` seats (evidence from a peer is checked before use)."""
    body = entry.body
    seen = body.get(SEEN) if isinstance(body, dict) else None
    if not isinstance(seen, list) or len(seen) != seats:
        return None
    counts = []
    for item in seen:
        if not (isinstance(item, list) and len(item) == 2 and type(item[0]) is int and 0 <= item[0] <= MAX_SEQ):
            return None
        counts.append(item[0])
    return counts


def echo_went_back(earlier: Entry, later: Entry, seats: int) -> int | None:
    """The first seat whose entries ``later``'s head echo counts fewer of than ``earlier``'s
    did (both signed by one seat, ``later`` after ``earlier``), or ``None`` (none, or an echo
    that is not well formed: that is another fault)."""
    before, after = echo_counts(earlier, seats), echo_counts(later, seats)
    if before is None or after is None:
        return None
    return next((seat for seat in range(seats) if after[seat] < before[seat]), None)


@dataclass(frozen=True)
class Blame:
    """Who is at fault and why. ``evidence`` holds the signed entries that show it; when
    ``provable`` is true they prove it to anyone holding the roster (:meth:`verify`)."""

    seat: int
    code: str
    reason: str
    evidence: tuple[Entry, ...] = ()
    provable: bool = False

    def __str__(self) -> str:
        return f"seat {self.seat}: {self.reason}"

    def to_wire(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "code": self.code,
            "reason": self.reason,
            "evidence": [e.to_wire() for e in self.evidence],
            "provable": self.provable,
        }

    @classmethod
    def from_wire(cls, obj: Any, peer: object = None) -> Blame:
        from .errors import SchemaError
        from .schema import AnyData, Bool, Int, ListOf, Record, Str, Text

        spec = Record(
            {
                "seat": Int(0, 1 << 16),
                "code": Str(32),
                "reason": Text(1000),
                "evidence": ListOf(AnyData(), 8),
                "provable": Bool(),
            }
        )
        try:
            spec.check(obj)
        except SchemaError as exc:
            raise ProtocolError(peer, f"bad blame record: {exc}") from None
        evidence = tuple(Entry.from_wire(e, peer) for e in obj["evidence"])
        return cls(obj["seat"], obj["code"], obj["reason"], evidence, obj["provable"])

    def verify(self, table: bytes, roster: Sequence[PublicIdentity], log: Log | None = None) -> bool:
        """True if the evidence proves that ``seat``'s chain forks at this table: two entries
        validly signed by that seat's key, either with the same ``seq`` and different contents
        (``equivocation``), or with consecutive ``seq`` where the second's ``prev`` is not the
        first's hash (``stale-prev``). An honest seat never signs either pair.

        ``echo-backwards``: two consecutive entries of the seat (the second's ``prev`` is the
        first's hash) where the second's head echo counts fewer entries of some seat than the
        first's did. An honest seat never signs that pair either.

        ``unknown-kind`` and ``over-budget``: one entry validly signed by the seat that follows
        the seat's chain in ``log`` (this table's log, holding the entries before it) and that
        the budget rule refuses there. Without ``log`` they prove nothing."""
        if not 0 <= self.seat < len(roster):
            return False
        if self.code in BUDGET_FAULTS:
            return (
                log is not None
                and log.table == table
                and tuple(log.roster) == tuple(roster)
                and len(self.evidence) == 1
                and log.proves_over_budget(self.seat, self.code, self.evidence[0])
            )
        if len(self.evidence) != 2:
            return False
        a, b = self.evidence
        if not (a.table == b.table == table and a.sender == b.sender == self.seat):
            return False
        if self.code == EQUIVOCATION:
            shape = a.seq == b.seq and a.signed_bytes != b.signed_bytes
        elif self.code == STALE_PREV:
            shape = b.seq == a.seq + 1 and b.prev != a.hash
        elif self.code == ECHO_BACK:
            shape = b.seq == a.seq + 1 and b.prev == a.hash and echo_went_back(a, b, len(roster)) is not None
        else:
            return False
        key = roster[self.seat]
        return shape and a.verify(key) and b.verify(key)


class Rejected(ProtocolError):
    """An entry the log refuses; ``blame`` says who and why."""

    def __init__(self, blame: Blame):
        super().__init__(blame.seat, blame.reason)
        self.blame = blame

    @property
    def code(self) -> str:
        return self.blame.code


@dataclass(frozen=True)
class Mismatch:
    """Seat ``reporter``'s head echo says seat ``seat``'s entry ``seq`` has hash ``theirs``,
    which is not the hash of our copy. Fetch seat ``seat`` from ``seq`` on from the reporter:
    the other version proves an equivocation by ``seat``; if the reporter cannot send one, the
    reporter lied in its echo."""

    seat: int
    seq: int
    theirs: bytes
    reporter: int


class Chain(Sequence[Entry]):
    """One seat's chain of a :class:`Log`, read on demand (:meth:`Log.chain`)."""

    def __init__(self, log: Log, seat: int):
        self._log, self._seat = log, seat

    def __len__(self) -> int:
        return self._log.next_seq(self._seat)

    @overload
    def __getitem__(self, index: int) -> Entry: ...

    @overload
    def __getitem__(self, index: slice) -> list[Entry]: ...

    def __getitem__(self, index: int | slice) -> Entry | list[Entry]:
        count = len(self)
        if isinstance(index, slice):
            start, stop, step = index.indices(count)
            if step != 1:
                return self._log.entries(self._seat)[index]
            return list(self._log._range(self._seat, start, stop)) if start < stop else []
        if index < 0:
            index += count
        return self._log.entry(self._seat, index)


class Log:
    """The verified log of one table. ``header`` is the plain-data lobby header the table
    agreed on; ``roster[seat]`` is that seat's public keys.

    By default every entry stays in memory. With a store (:meth:`spill_to`) only the last
    ``keep`` entries of each chain do; the older ones are spilled to the store and read back,
    checked against their kept hash, by what asks for them (:meth:`entries`, :meth:`entry`,
    :meth:`canonical`, :meth:`closed`, :meth:`proves_over_budget`, the evidence of an
    equivocation). Kept per spilled entry: its hash and its head echo's counts (for
    :meth:`head`, :meth:`check_seen`, :meth:`closed`), and what the store keeps (8 bytes an
    entry in a file). Nothing that runs for every entry (appending, :meth:`check_seen`,
    :meth:`missing`, :meth:`seen`) reads the store but a copy or a rival of a spilled entry.
    A store that cannot give an entry back raises :class:`~p2pcards.wire.spill.SpillError`
    (an :class:`OSError`) from the reading methods."""

    def __init__(self, table: bytes, header: Any, roster: Sequence[PublicIdentity], *, budget: Budget | None = None):
        self.table = table
        self.header = header
        self.roster = tuple(roster)
        #: :func:`~p2pcards.wire.messages.genesis_hash` of the table (the transcript header's).
        self.genesis = genesis_hash(table, header)
        self.blames: list[Blame] = []  # provable blames found so far, with their evidence
        # Per seat: the entries held decoded (the last ones of the chain, from seq _first[seat]
        # on), every entry's hash (32 bytes each) and its head echo's counts (one per seat).
        self._chains: list[list[Entry]] = [[] for _ in self.roster]
        self._first = [0 for _ in self.roster]
        self._stored = [0 for _ in self.roster]  # per seat: how many of its entries the store has
        self._hashes = [bytearray() for _ in self.roster]
        self._echoes = [array("I") for _ in self.roster]  # clamped to _ECHO_MAX
        self._store: EntryStore | None = None
        self._keep = SPILL_KEEP
        #: Why spilling stopped (a store that could not be written): the log keeps all since.
        self.spill_failure: OSError | None = None
        self._indexes: list[tuple[Callable[[Entry], bool], list[list[int]], bool]] = []
        self._columns: list[tuple[Callable[[Entry], int], list[array[int]]]] = []
        self._genesis = [seat_genesis(table, header, s) for s in range(len(self.roster))]
        # ``budget`` is for tests: a table's is always Budget.for_seats (the same everywhere).
        self.budget = budget if budget is not None else Budget.for_seats(len(self.roster))
        self._spent = [_Spent() for _ in self.roster]

    # -- spilling ---------------------------------------------------------------------------

    def spill_to(self, store: EntryStore, keep: int = SPILL_KEEP) -> None:
        """From now on keep only the last ``keep`` (at least 1) entries of each chain in
        memory and spill the older ones to ``store`` (see the class doc)."""
        self._store, self._keep = store, max(1, keep)
        for seat in range(len(self._chains)):
            self._spill(seat)

    def close(self) -> None:
        """Close the store (the log can no longer read its spilled entries)."""
        if self._store is not None:
            self._store.close()

    @property
    def spilled(self) -> int:
        """How many entries are in the store, not in memory."""
        return sum(self._first)

    def in_memory(self) -> Iterator[Entry]:
        """The entries this log holds decoded (all of them without a store), in canonical
        order: what its memory grows with."""
        for chain in self._chains:
            yield from chain

    def _spill(self, seat: int) -> None:
        """Write to the store the entries of ``seat`` that pass the last ``KEEP_ENCODED`` (while
        their bytes are still at hand: made again later they would cost an encoding each), and
        drop from memory those written that pass the last ``keep``."""
        store = self._store
        if store is None:
            return
        chain, first, count = self._chains[seat], self._first[seat], self.next_seq(seat)
        write_below = count - min(self._keep, KEEP_ENCODED)
        while self.spill_failure is None and self._stored[seat] < write_below:
            seq = self._stored[seat]
            try:
                store.put(seat, seq, chain[seq - first].encoded())
            except (OSError, ValueError) as exc:
                # Kept in memory then, and every later one too: nothing signed is lost.
                self.spill_failure = exc if isinstance(exc, OSError) else OSError(str(exc))
                break
            self._stored[seat] += 1
        drop_below = min(self._stored[seat], count - self._keep)
        if drop_below > first:
            del chain[: drop_below - first]
            self._first[seat] = drop_below

    def _load(self, seat: int, seq: int) -> Entry:
        """Seat ``seat``'s spilled entry ``seq``, read back and checked against its hash."""
        assert self._store is not None
        data = self._store.get(seat, seq)
        try:
            entry = Entry.from_wire(framing.decode(data), "spill")
        except (ProtocolError, framing.FrameError) as exc:
            raise SpillError(f"seat {seat}'s entry #{seq} read back from the spill is not an entry: {exc}") from None
        if entry.sender != seat or entry.seq != seq or entry.hash != self._hash(seat, seq):
            raise SpillError(f"seat {seat}'s entry #{seq} read back from the spill is another entry")
        # The bytes read are the entry's canonical encoding (what encoded() gave when it was
        # stored): kept on this short-lived copy, a fetch's answer, a spectator or the
        # transcript send or write them without encoding the entry again.
        entry.__dict__["wire_bytes"] = data
        return entry

    def _hash(self, seat: int, seq: int) -> bytes:
        """The hash of seat ``seat``'s entry ``seq`` (one this log holds)."""
        first = self._first[seat]
        if seq >= first:
            return self._chains[seat][seq - first].hash
        return bytes(self._hashes[seat][seq * HASH_SIZE : (seq + 1) * HASH_SIZE])

    def _range(self, seat: int, start: int, stop: int) -> Iterator[Entry]:
        """Seat ``seat``'s entries ``start`` to ``stop - 1`` (within the chain), in order."""
        # Where the chain starts in memory is looked at for each entry: a caller that streams
        # (a transcript, the spectators) may be resumed after entries came and older ones
        # spilled, and must then neither skip nor repeat one.
        for seq in range(max(0, start), stop):
            first, chain = self._first[seat], self._chains[seat]
            if seq < first:
                yield self._load(seat, seq)
            elif seq - first < len(chain):
                yield chain[seq - first]
            else:
                return  # (retracted meanwhile)

    # -- reading ----------------------------------------------------------------------------

    def __len__(self) -> int:
        return sum(self._first) + sum(len(chain) for chain in self._chains)

    def next_seq(self, seat: int) -> int:
        return self._first[seat] + len(self._chains[seat])

    def head(self, seat: int) -> bytes:
        """The hash of seat ``seat``'s last entry (its seat genesis if it has none)."""
        chain = self._chains[seat]
        if chain:
            return chain[-1].hash
        count = self._first[seat]
        return self._hash(seat, count - 1) if count else self._genesis[seat]

    def seen(self) -> list[list[Any]]:
        """The head echo of this log, ``[[count, last hash], ...]`` per seat: what our next
        entry carries. Two logs of one table are equal exactly when their echoes are."""
        return [[self.next_seq(s), self.head(s)] for s in range(len(self._chains))]

    def entries(self, seat: int, start: int = 0) -> list[Entry]:
        """Seat ``seat``'s entries from ``seq`` ``start`` on: the answer to a
        :class:`~p2pcards.wire.messages.Fetch` (none for a seat that is not at the table).
        A negative ``start`` counts from the end, as in a slice."""
        if not 0 <= seat < len(self._chains):
            return []
        count = self.next_seq(seat)
        start = max(0, count + start) if start < 0 else start
        return list(self._range(seat, start, count))

    def entry(self, seat: int, seq: int) -> Entry:
        """Seat ``seat``'s entry ``seq`` (``IndexError`` if this log does not hold it)."""
        if not (0 <= seat < len(self._chains) and 0 <= seq < self.next_seq(seat)):
            raise IndexError(f"no entry #{seq} of seat {seat}")
        first = self._first[seat]
        return self._chains[seat][seq - first] if seq >= first else self._load(seat, seq)

    def chain(self, seat: int) -> Chain:
        """Seat ``seat``'s chain as a sequence read on demand: its length costs nothing, an item
        or a slice reads only those entries (from the store if spilled)."""
        return Chain(self, seat)

    def index(self, predicate: Callable[[Entry], bool], *, first: bool = False) -> list[list[int]]:
        """Per seat, the ``seq`` of each entry ``predicate`` holds for (with ``first``, of the
        first such entry only), kept up to date as entries come (and go: :meth:`retract`): for
        a question asked often (has seat ``s`` published its result?) without reading every
        chain, or the store, each time."""
        found: list[list[int]] = [[] for _ in self._chains]
        for seat in range(len(self._chains)):
            found[seat] = [e.seq for e in self._range(seat, 0, self.next_seq(seat)) if predicate(e)]
            del found[seat][1 if first else len(found[seat]) :]
        self._indexes.append((predicate, found, first))
        return found

    def column(self, value: Callable[[Entry], int]) -> list[array[int]]:
        """Per seat, ``value`` of each of its entries, by ``seq`` (a signed 64-bit number),
        kept up to date as entries come and go (:meth:`retract`): 8 bytes an entry, for a
        question about any entry of a chain asked often (has seat ``s`` moved for turn ``t``?)
        without reading the chain, or the store, each time."""
        values = [array("q", (value(e) for e in self._range(s, 0, self.next_seq(s)))) for s in range(len(self._chains))]
        self._columns.append((value, values))
        return values

    def canonical(self) -> Iterator[Entry]:
        """Every entry, seat by seat, each seat's in ``seq`` order: the same on every peer that
        holds the same log, whatever order the entries arrived in."""
        for seat in range(len(self._chains)):
            yield from self._range(seat, 0, self.next_seq(seat))

    def closed(self) -> Iterator[Entry]:
        """:meth:`canonical` without the entries whose head echo counts entries this log does
        not hold (they arrived, but what their authors had seen did not), nor those after them
        in their chains: what a finished transcript holds, so that every echo in it is backed
        by the file (transcript.md section 5)."""
        counts = self.closed_counts()
        for seat in range(len(self._chains)):
            yield from self._range(seat, 0, counts[seat])

    def closed_counts(self) -> list[int]:
        """Per seat, how many of its entries :meth:`closed` lists (the first ones of each
        chain): for a reader that streams them on its own terms."""
        seats = len(self._chains)
        counts = [self.next_seq(seat) for seat in range(seats)]
        changed = True
        while changed:
            changed = False
            for seat, echoes in enumerate(self._echoes):
                for index in range(counts[seat]):
                    at = index * seats
                    if any(echoes[at + other] > counts[other] for other in range(seats)):
                        counts[seat], changed = index, True
                        break
        return counts

    # -- writing ----------------------------------------------------------------------------

    def make_entry(self, identity: Identity, seat: int, kind: str, body: Mapping[str, Any]) -> Entry:
        """Sign our own next entry, with the head echo added to ``body`` as ``seen``, and
        append it. The caller then sends it to every peer."""
        if SEEN in body:
            raise ValueError(f"the {SEEN!r} field of an entry body is the log's")
        seen = self.seen()
        if self.next_seq(seat):
            # After a restart the log may hold less of a seat than our last entry had seen (the
            # journal's last second was not on disk): we had accepted those entries, so the
            # echo keeps counting them (it never goes back); catch-up brings them again.
            before = self._previous_counts(seat)
            if any(item[0] < before[other] for other, item in enumerate(seen)):
                previous = self.entry(seat, self.next_seq(seat) - 1).body[SEEN]
                seen = [list(previous[other]) if item[0] < before[other] else item for other, item in enumerate(seen)]
                seen[seat] = [self.next_seq(seat), self.head(seat)]
        entry = sign_entry(
            identity,
            table=self.table,
            sender=seat,
            seq=self.next_seq(seat),
            kind=kind,
            prev=self.head(seat),
            body={**body, SEEN: seen},
        )
        # Signed here with the seat's own key: checking that signature again would only cost.
        self.append(entry, signature_ok=identity.public == self.roster[seat])
        entry.wire_bytes  # noqa: B018 - encoded once, for the journal and every connection
        return entry

    def append(self, entry: Entry, *, via: int | None = None, signature_ok: bool | None = None) -> bool:
        """Check and append the sender's next entry; ``True`` if it is new. An exact copy of
        an entry we hold returns ``False`` and changes nothing. Anything that breaks the rules
        in the module doc raises :class:`Rejected`, leaving the log unchanged.
        ``signature_ok``: the signature was already checked against the sender's roster key
        (many at once, :func:`~p2pcards.wire.identity.verify_many`)."""
        deliverer = via if via is not None else entry.sender
        if entry.table != self.table:
            raise self._reject(deliverer, WRONG_TABLE, f"entry for table {entry.table.hex()[:8]}, not this table")
        if not 0 <= entry.sender < len(self.roster):
            raise self._reject(
                deliverer, STRANGER, f"entry from seat {entry.sender}, but the table has {len(self.roster)} seats"
            )
        sender = entry.sender
        chain, first, count = self._chains[sender], self._first[sender], self.next_seq(sender)
        held = chain[entry.seq - first] if first <= entry.seq < count else None
        if held is not None and held.sig == entry.sig and held.hash == entry.hash:
            return False  # an exact copy of one we checked (a resend, a catch-up): harmless
        if entry.seq < first and signature_ok is None and self._hash(sender, entry.seq) == entry.hash:
            # A copy of a spilled entry (its signature, not kept, is checked instead: a copy
            # with the same one passes, as the held one did).
            signature_ok = entry.verify(self.roster[sender])
        if not (entry.verify(self.roster[entry.sender]) if signature_ok is None else signature_ok):
            raise self._reject(
                deliverer, BAD_SIGNATURE, f"bad signature on entry #{entry.seq} claimed by seat {entry.sender}"
            )
        # From here on the entry is genuinely signed by its sender.
        if held is None and entry.seq < first:
            if self._hash(sender, entry.seq) == entry.hash:
                return False  # a copy of a spilled entry, validly signed: harmless
            held = self._load(sender, entry.seq)  # the evidence of the fork
        if held is not None:
            if held.hash == entry.hash:
                return False  # a copy with another valid signature: harmless
            raise self._reject(
                entry.sender,
                EQUIVOCATION,
                f"signed two different entries #{entry.seq} ({held.kind} and {entry.kind}): "
                f"told different peers different things",
                (held, entry),
                provable=True,
            )
        if entry.seq > count:
            raise self._reject(deliverer, GAP, f"entry #{entry.seq} of seat {entry.sender} arrived before #{count}")
        if entry.prev != self.head(entry.sender):
            if count:
                raise self._reject(
                    entry.sender,
                    STALE_PREV,
                    f"entry #{entry.seq} ({entry.kind}) does not follow its own entry #{entry.seq - 1}",
                    (self.entry(sender, count - 1), entry),
                    provable=True,
                )
            raise self._reject(
                entry.sender, STALE_PREV, f"entry #0 ({entry.kind}) does not start from its seat genesis", (entry,)
            )
        problem = self._seen_problem(entry)
        if problem:
            raise self._reject(entry.sender, BAD_SEEN, f"entry #{entry.seq} ({entry.kind}): {problem}", (entry,))
        if count:
            self._check_echo_forward(entry)
        over = budget_problem(self.budget, entry.seq, self._spent[entry.sender], entry)
        if over:
            raise self._reject(entry.sender, *over, (entry,), provable=True)
        chain.append(entry)
        self._spent[sender].add(entry)
        self._hashes[sender] += entry.hash
        self._echoes[sender].extend(min(item[0], _ECHO_MAX) for item in entry.body[SEEN])
        self._share_echo(entry)
        for predicate, found, first_only in self._indexes:
            if not (first_only and found[sender]) and predicate(entry):
                found[sender].append(entry.seq)
        for value, values in self._columns:
            values[sender].append(value(entry))
        self._spill(sender)  # first: it writes the entry that passes KEEP_ENCODED with its bytes
        if len(chain) > KEEP_ENCODED:
            chain[-KEEP_ENCODED - 1].forget_encoding()
        return True

    def _previous_counts(self, seat: int) -> array[int]:
        """The head echo counts of ``seat``'s last entry (clamped, as kept for :meth:`closed`)."""
        seats = len(self._chains)
        return self._echoes[seat][-seats:]

    def _check_echo_forward(self, entry: Entry) -> None:
        """Refuse ``entry`` (its sender's next, with a valid echo) if its echo counts fewer
        entries of some seat than the sender's previous entry did: the pair proves it."""
        before = self._previous_counts(entry.sender)
        for seat, item in enumerate(entry.body[SEEN]):
            if min(item[0], _ECHO_MAX) < before[seat]:
                previous = self.entry(entry.sender, entry.seq - 1)
                raise self._reject(
                    entry.sender,
                    ECHO_BACK,
                    f"entry #{entry.seq} ({entry.kind}) echoes {item[0]} entries of seat {seat}, but its "
                    f"entry #{entry.seq - 1} had seen {before[seat]}: its head echo went back",
                    (previous, entry),
                    provable=True,
                )

    def _share_echo(self, entry: Entry) -> None:
        """Make the hashes of an appended entry's head echo the very objects this log holds
        (equal bytes, so the entry encodes the same): one copy of each hash, not one more per
        entry that echoes it (issue 23)."""
        for seat, item in enumerate(entry.body[SEEN]):
            count, chain, first = item[0], self._chains[seat], self._first[seat]
            if count == 0:
                item[1] = self._genesis[seat]  # checked equal by _seen_problem
            elif first < count <= first + len(chain) and chain[count - 1 - first].hash == item[1]:
                item[1] = chain[count - 1 - first].hash

    def retract(self, entry: Entry) -> None:
        """Take back ``entry``, the last of its seat's chain: our own entry that never left this
        program (it could not be journaled, so it is not sent: as if never signed)."""
        seat = entry.sender
        chain = self._chains[seat]
        if not chain or chain[-1] is not entry:
            raise ValueError(f"entry #{entry.seq} of seat {entry.sender} is not the last of its chain")
        chain.pop()
        self._spent[seat].remove(entry)
        del self._hashes[seat][-HASH_SIZE:]
        del self._echoes[seat][-len(self._chains) :]
        for _, found, _first in self._indexes:
            if found[seat] and found[seat][-1] == entry.seq:
                found[seat].pop()
        for _, values in self._columns:
            del values[seat][entry.seq :]

    def proves_over_budget(self, seat: int, code: str, entry: Entry) -> bool:
        """``entry`` is validly signed by ``seat``, continues ``seat``'s chain as this log holds
        it (its ``prev`` is the hash of the chain's entry ``seq - 1``, or the seat genesis),
        and the budget rule refuses it there with ``code``."""
        if not (entry.table == self.table and entry.sender == seat and entry.seq <= self.next_seq(seat)):
            return False
        if entry.prev != (self._hash(seat, entry.seq - 1) if entry.seq else self._genesis[seat]):
            return False
        if entry.seq < self.next_seq(seat) and entry.hash == self._hash(seat, entry.seq):
            return False  # the entry this log accepted: the rule, the log's alone, let it in
        # Checked before the chain is read (from the spill, for a long one): an entry the seat
        # did not sign, or one this log holds, offered again and again, costs no reading.
        if not entry.verify(self.roster[seat]):
            return False
        spent = _Spent()
        if entry.seq == self.next_seq(seat):
            spent = self._spent[seat]  # what the whole chain spent, kept as entries come
        else:
            for earlier in self._range(seat, 0, entry.seq):
                spent.add(earlier)
        over = budget_problem(self.budget, entry.seq, spent, entry)
        return over is not None and over[0] == code

    # -- head echo --------------------------------------------------------------------------

    def check_seen(self, entry: Entry) -> list[Mismatch]:
        """Compare an accepted entry's head echo with our chains: one :class:`Mismatch` for
        every seat whose entry the sender saw with another hash than ours. Seats where the
        sender has seen more than we hold are not mismatches (see :meth:`missing`)."""
        found = []
        for seat, (count, last) in enumerate(self._echo(entry)):
            if 0 < count <= self.next_seq(seat) and self._hash(seat, count - 1) != last:
                found.append(Mismatch(seat, count - 1, last, entry.sender))
        return found

    def missing(self, entry: Entry) -> list[Fetch]:
        """The fetches to send to ``entry``'s sender (``entry`` is an accepted one) for the
        entries it had seen and we have not."""
        return [
            Fetch(self.table, seat, self.next_seq(seat))
            for seat, (count, _) in enumerate(self._echo(entry))
            if count > self.next_seq(seat)
        ]

    def _echo(self, entry: Entry) -> list[list[Any]]:
        seat = entry.sender
        chain, first = (self._chains[seat], self._first[seat]) if 0 <= seat < len(self._chains) else ([], 0)
        if first <= entry.seq < first + len(chain) and chain[entry.seq - first] is entry:
            return entry.body[SEEN]  # appended: append() checked its echo
        problem = self._seen_problem(entry)
        if problem:
            raise self._reject(entry.sender, BAD_SEEN, f"entry #{entry.seq} ({entry.kind}): {problem}", (entry,))
        return entry.body[SEEN]

    def _seen_problem(self, entry: Entry) -> str | None:
        """Why ``entry`` (from a roster seat) has no valid head echo, or ``None``."""
        body = entry.body
        if not isinstance(body, dict) or SEEN not in body:
            return "no head echo ('seen') in the body"
        seen = body[SEEN]
        if not isinstance(seen, list) or len(seen) != len(self.roster):
            return f"the head echo must list every seat ({len(self.roster)})"
        for seat, item in enumerate(seen):
            if not (
                isinstance(item, list)
                and len(item) == 2
                and isinstance(item[0], int)
                and not isinstance(item[0], bool)
                and 0 <= item[0] <= MAX_SEQ
                and isinstance(item[1], bytes)
                and len(item[1]) == HASH_SIZE
            ):
                return f"head echo of seat {seat} is not [count, hash]"
            if item[0] == 0 and item[1] != self._genesis[seat]:
                return f"head echo of seat {seat}: no entries, but not its seat genesis"
        if seen[entry.sender] != [entry.seq, entry.prev]:
            return "the head echo of the sender's own chain is not [seq, prev]"
        return None

    def _reject(
        self, seat: int, code: str, reason: str, evidence: tuple[Entry, ...] = (), provable: bool = False
    ) -> Rejected:
        blame = Blame(seat, code, reason, evidence, provable)
        # One proof a seat is enough: a seat that keeps sending faulty entries cannot grow the
        # list (it goes into every transcript).
        if provable and len(self.blames) < MAX_BLAMES and not any(b.seat == seat for b in self.blames):
            self.blames.append(blame)
        return Rejected(blame)

"""The table log: one ordered, hash-chained list of signed entries that every peer keeps equal.

This is state-machine replication: every peer applies the same entries in the same order, so
every peer computes the same deck and game state. The log itself checks only what cryptography
and order can check; *whose* entry is due next (turn order, step timeouts) is the session's job.

An entry is appended only if

* its table id is this table's,
* its sender is a seat of the roster and the signature is that seat's key,
* its ``seq`` is exactly the sender's next number (0, 1, 2 ... per seat: no replays, no gaps),
* its ``prev`` is the hash of the current last entry (the genesis hash for the first entry).

Because every entry names the head its sender saw, and every entry goes to every peer, a seat that
signs two different entries with the same ``seq`` (telling different peers different things) is
caught as soon as the two histories meet: an honest peer receives the other version (from a
catch-up fetch, a relay, a signed :class:`~p2pcards.wire.messages.Head` that does not match, or
the next entry whose ``prev`` it does not know). Two entries signed by one seat with one ``seq``
and different contents are proof anyone can check (:meth:`Blame.verify`), and the log keeps them.

Each rejection raises :class:`Rejected` with a :class:`Blame`. ``provable`` blames carry signed
evidence; for the others (a bad signature, a stranger, a replay) the culprit is whoever delivered
the bytes, which only the caller knows: pass it as ``via``, the seat of the connection the entry
came from. Without ``via`` the entry's claimed sender is named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ProtocolError
from .identity import Identity, PublicIdentity
from .messages import Entry, Head, sign_entry, sign_head

__all__ = ["Blame", "Log", "Rejected"]

# Blame codes.
WRONG_TABLE = "wrong-table"
STRANGER = "stranger"
BAD_SIGNATURE = "bad-signature"
REPLAY = "replay"
GAP = "gap"
STALE_PREV = "stale-prev"
FORK = "fork"
EQUIVOCATION = "equivocation"


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
        return {"seat": self.seat, "code": self.code, "reason": self.reason,
                "evidence": [e.to_wire() for e in self.evidence], "provable": self.provable}

    @classmethod
    def from_wire(cls, obj: Any, peer: object = None) -> Blame:
        from .schema import Bool, Int, ListOf, Record, AnyData, Str
        from .errors import SchemaError

        spec = Record({"seat": Int(0, 1 << 16), "code": Str(32), "reason": Str(1000),
                       "evidence": ListOf(AnyData(), 8), "provable": Bool()})
        try:
            spec.check(obj)
        except SchemaError as exc:
            raise ProtocolError(peer, f"bad blame record: {exc}") from None
        evidence = tuple(Entry.from_wire(e, peer) for e in obj["evidence"])
        return cls(obj["seat"], obj["code"], obj["reason"], evidence, obj["provable"])

    def verify(self, table: bytes, roster: Sequence[PublicIdentity]) -> bool:
        """True if the evidence proves an equivocation by ``seat`` at this table: two entries
        validly signed by that seat's key with the same ``seq`` and different contents."""
        if self.code != EQUIVOCATION or len(self.evidence) != 2:
            return False
        a, b = self.evidence
        if not 0 <= self.seat < len(roster):
            return False
        key = roster[self.seat]
        return (a.table == b.table == table and a.sender == b.sender == self.seat
                and a.seq == b.seq and a.signed_bytes != b.signed_bytes
                and a.verify(key) and b.verify(key))


class Rejected(ProtocolError):
    """An entry or head the log refuses; ``blame`` says who and why."""

    def __init__(self, blame: Blame):
        super().__init__(blame.seat, blame.reason)
        self.blame = blame

    @property
    def code(self) -> str:
        return self.blame.code


class Log:
    """The verified log of one table. ``roster[seat]`` is that seat's public keys; ``genesis``
    is :func:`~p2pcards.wire.messages.genesis_hash` of the table's lobby header."""

    def __init__(self, table: bytes, roster: Sequence[PublicIdentity], genesis: bytes):
        self.table = table
        self.roster = tuple(roster)
        self.genesis = genesis
        self.entries: list[Entry] = []
        self.blames: list[Blame] = []  # provable blames found so far, with their evidence
        self._heads: list[bytes] = [genesis]  # _heads[n] = head after n entries
        self._index: dict[bytes, int] = {genesis: 0}  # hash -> length of log that ends with it
        self._by_sender: list[list[Entry]] = [[] for _ in self.roster]

    # -- reading ------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self):
        return iter(self.entries)

    @property
    def head(self) -> bytes:
        return self._heads[-1]

    def head_at(self, length: int) -> bytes:
        """The head after the first ``length`` entries."""
        return self._heads[length]

    def next_seq(self, seat: int) -> int:
        return len(self._by_sender[seat])

    def entries_from(self, start: int) -> list[Entry]:
        return self.entries[start:]

    def find(self, entry_hash: bytes) -> Entry | None:
        length = self._index.get(entry_hash)
        return self.entries[length - 1] if length else None

    # -- writing ------------------------------------------------------------------------

    def make_entry(self, identity: Identity, seat: int, kind: str, body: Any) -> Entry:
        """Sign our next entry on top of the current head (the caller then appends it and
        sends it to everyone)."""
        return sign_entry(identity, table=self.table, sender=seat, seq=self.next_seq(seat),
                          kind=kind, prev=self.head, body=body)

    def make_head(self, identity: Identity, seat: int) -> Head:
        return sign_head(identity, table=self.table, sender=seat, length=len(self),
                         head=self.head)

    def append(self, entry: Entry, *, via: int | None = None) -> int:
        """Check and append a new entry; returns its index. Raises :class:`Rejected`, leaving
        the log unchanged, for anything that breaks the rules in the module doc, an exact copy
        of an entry already in the log included (a replay)."""
        return self._add(entry, via, duplicates_ok=False)

    def observe(self, entry: Entry, *, via: int | None = None) -> int | None:
        """Like :meth:`append`, but an exact copy of an entry already in the log is fine
        (returns ``None``): for catch-up after a reconnection, for relayed copies, and for
        entries fetched to resolve a fork."""
        return self._add(entry, via, duplicates_ok=True)

    def _reject(self, seat: int, code: str, reason: str, evidence: tuple[Entry, ...] = (),
                provable: bool = False) -> Rejected:
        blame = Blame(seat, code, reason, evidence, provable)
        if provable and not any(set(b.evidence) == set(evidence) for b in self.blames):
            self.blames.append(blame)
        return Rejected(blame)

    def _add(self, entry: Entry, via: int | None, *, duplicates_ok: bool) -> int | None:
        deliverer = via if via is not None else entry.sender
        if entry.table != self.table:
            raise self._reject(deliverer, WRONG_TABLE,
                               f"entry for table {entry.table.hex()[:8]}, not this table")
        if not 0 <= entry.sender < len(self.roster):
            raise self._reject(deliverer, STRANGER, f"entry from seat {entry.sender}, "
                               f"but the table has {len(self.roster)} seats")
        if not entry.verify(self.roster[entry.sender]):
            raise self._reject(deliverer, BAD_SIGNATURE,
                               f"bad signature on entry #{entry.seq} claimed by seat "
                               f"{entry.sender}")
        # From here on the entry is genuinely signed by its sender.
        sent = self._by_sender[entry.sender]
        if entry.seq < len(sent):
            ours = sent[entry.seq]
            if ours.signed_bytes == entry.signed_bytes:
                if duplicates_ok:
                    return None
                raise self._reject(deliverer, REPLAY, f"replayed entry #{entry.seq} of seat "
                                   f"{entry.sender} ({entry.kind})")
            raise self._reject(
                entry.sender, EQUIVOCATION,
                f"signed two different entries #{entry.seq} ({ours.kind} and {entry.kind}): "
                f"told different peers different things", (ours, entry), provable=True)
        if entry.seq > len(sent):
            raise self._reject(deliverer, GAP, f"entry #{entry.seq} of seat {entry.sender} "
                               f"arrived before #{len(sent)}")
        if entry.prev != self.head:
            known = self._index.get(entry.prev)
            if known is not None:
                raise self._reject(
                    entry.sender, STALE_PREV,
                    f"entry #{entry.seq} ({entry.kind}) was signed on top of log entry "
                    f"{known} of {len(self)}: it ignores later entries", (entry,))
            raise self._reject(
                entry.sender, FORK,
                f"entry #{entry.seq} ({entry.kind}) follows a log entry this peer does not "
                f"have: a fork (someone told different peers different things); fetch the "
                f"sender's log to find the culprit", (entry,))
        self.entries.append(entry)
        sent.append(entry)
        self._heads.append(entry.hash)
        self._index.setdefault(entry.hash, len(self.entries))
        return len(self.entries) - 1

    def check_head(self, head: Head, *, via: int | None = None) -> bool:
        """Compare a peer's signed head with ours. Returns ``True`` if it matches our log,
        ``False`` if the peer is ahead of us (fetch from ``len(self)``); raises
        :class:`Rejected` (code ``fork``) if it holds a different history, or if the head is
        not validly signed for this table."""
        deliverer = via if via is not None else head.sender
        if head.table != self.table:
            raise self._reject(deliverer, WRONG_TABLE, "head echo for another table")
        if not 0 <= head.sender < len(self.roster):
            raise self._reject(deliverer, STRANGER, f"head echo from seat {head.sender}, "
                               f"but the table has {len(self.roster)} seats")
        if not head.verify(self.roster[head.sender]):
            raise self._reject(deliverer, BAD_SIGNATURE,
                               f"bad signature on head echo claimed by seat {head.sender}")
        if head.length > len(self):
            return False
        if self._heads[head.length] != head.head:
            raise self._reject(
                head.sender, FORK,
                f"holds a different log at length {head.length}: a fork (someone told "
                f"different peers different things); fetch its entries to find the culprit")
        return True

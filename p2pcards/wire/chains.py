"""The table log as one hash chain per seat, with head echo (sans-IO).

Several seats send at once during the deck protocol (every seat commits, every seat releases
keys), so peers receive entries in different orders and a single global chain would fork. Here
every seat's entries form their own chain instead:

* entry ``seq`` of seat ``s`` has ``prev`` = the hash of seat ``s``'s entry ``seq - 1``, or for
  ``seq == 0`` the seat's genesis hash, which binds the table id, the lobby header and the seat;
* every entry's body carries ``seen``: for each seat, how many of its entries the sender had
  accepted and the hash of the last one (the head echo).

An entry is accepted only if its table, sender key, signature, ``seq`` (exactly the next: no
replay, no gap) and ``prev`` are right. Two different entries signed by one seat with one ``seq``
are proof of equivocation (telling different peers different things); the second one is found
either directly (a copy arrives by a catch-up fetch) or through the head echo: when a sender says
it saw seat ``j``'s entry ``k`` with another hash than ours, :meth:`ChainLog.check_seen` reports
the mismatch so the caller can fetch that entry from the sender and obtain the proof.

The canonical order of a finished log (for transcripts that are byte-identical on every peer) is
seat, then seq: :meth:`ChainLog.canonical`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from . import framing
from .identity import Identity, PublicIdentity
from .log import BAD_SIGNATURE, EQUIVOCATION, GAP, REPLAY, STALE_PREV, STRANGER, WRONG_TABLE, Blame, Rejected
from .messages import Entry, genesis_hash, sign_entry

__all__ = ["ChainLog", "Mismatch", "seat_genesis"]

SEAT_GENESIS_DOMAIN = b"p2pcards seat genesis\x00"


def seat_genesis(table: bytes, header: Any, seat: int) -> bytes:
    """The ``prev`` of seat ``seat``'s first entry."""
    return hashlib.sha256(SEAT_GENESIS_DOMAIN + genesis_hash(table, header) + bytes([seat])).digest()


@dataclass(frozen=True)
class Mismatch:
    """A sender's echo disagrees with our copy of seat ``seat``'s entry ``seq``."""

    seat: int
    seq: int
    theirs: bytes
    reporter: int


class ChainLog:
    def __init__(self, table: bytes, header: Any, roster: Sequence[PublicIdentity]):
        self.table = table
        self.header = header
        self.roster = list(roster)
        self.chains: list[list[Entry]] = [[] for _ in roster]
        self._genesis = [seat_genesis(table, header, s) for s in range(len(roster))]
        self.blames: list[Blame] = []

    # -- reading ----------------------------------------------------------------------------

    def __len__(self) -> int:
        return sum(len(c) for c in self.chains)

    def next_seq(self, seat: int) -> int:
        return len(self.chains[seat])

    def head(self, seat: int) -> bytes:
        chain = self.chains[seat]
        return chain[-1].hash if chain else self._genesis[seat]

    def seen(self) -> list[list[Any]]:
        """The head echo to put in our next entry: ``[[count, last hash], ...]`` per seat."""
        return [[len(c), self.head(s)] for s, c in enumerate(self.chains)]

    def canonical(self) -> Iterator[Entry]:
        for chain in self.chains:
            yield from chain

    # -- writing ----------------------------------------------------------------------------

    def make_entry(self, identity: Identity, seat: int, kind: str, body: dict[str, Any]) -> Entry:
        """Sign our own next entry; the head echo is added to ``body`` as ``seen``."""
        entry = sign_entry(
            identity,
            table=self.table,
            sender=seat,
            seq=self.next_seq(seat),
            kind=kind,
            prev=self.head(seat),
            body={**body, "seen": self.seen()},
        )
        self.append(entry)
        return entry

    def append(self, entry: Entry, *, via: int | None = None) -> bool:
        """Accept the sender's next entry. Returns ``False`` for an exact duplicate of an
        entry we hold (harmless: a resend after a reconnect); raises :class:`Rejected` with a
        :class:`Blame` otherwise. ``via`` is the seat whose connection delivered it: the one to
        blame for bytes that no roster key signed."""
        culprit = entry.sender if via is None else via
        if entry.table != self.table:
            raise self._reject(culprit, WRONG_TABLE, "entry for another table")
        if not 0 <= entry.sender < len(self.roster):
            raise self._reject(culprit, STRANGER, f"entry from seat {entry.sender}, not at this table")
        if not entry.verify(self.roster[entry.sender]):
            raise self._reject(culprit, BAD_SIGNATURE, f"entry #{entry.seq} is not signed by seat {entry.sender}")
        chain = self.chains[entry.sender]
        if entry.seq < len(chain):
            held = chain[entry.seq]
            if held == entry or held.signed_bytes == entry.signed_bytes:
                return False
            raise self._reject(
                entry.sender,
                EQUIVOCATION,
                f"signed two different entries #{entry.seq}",
                (held, entry),
                provable=True,
            )
        if entry.seq > len(chain):
            raise self._reject(culprit, GAP, f"entry #{entry.seq} from seat {entry.sender} skips #{len(chain)}")
        if entry.prev != self.head(entry.sender):
            raise self._reject(entry.sender, STALE_PREV, f"entry #{entry.seq} does not follow its own #{entry.seq - 1}")
        seen = entry.body.get("seen") if isinstance(entry.body, dict) else None
        if not _valid_seen(seen, len(self.roster)):
            raise self._reject(entry.sender, REPLAY if seen is None else STALE_PREV, "entry without a valid head echo")
        chain.append(entry)
        return True

    def check_seen(self, entry: Entry) -> list[Mismatch]:
        """Compare an accepted entry's head echo with our chains."""
        found = []
        for seat, (count, last) in enumerate(entry.body["seen"]):
            if 0 < count <= len(self.chains[seat]) and self.chains[seat][count - 1].hash != last:
                found.append(Mismatch(seat, count - 1, last, entry.sender))
        return found

    def entries(self, seat: int, start: int = 0) -> list[Entry]:
        return self.chains[seat][start:]

    def _reject(self, seat: int, code: str, reason: str, evidence: tuple[Entry, ...] = (), *, provable: bool = False) -> Rejected:
        blame = Blame(seat, code, reason, evidence, provable)
        self.blames.append(blame)
        return Rejected(blame)


def _valid_seen(seen: Any, seats: int) -> bool:
    return (
        isinstance(seen, list)
        and len(seen) == seats
        and all(
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], int)
            and item[0] >= 0
            and isinstance(item[1], bytes)
            and len(item[1]) == 32
            for item in seen
        )
    )


def encode_header(header: Any) -> bytes:
    """The canonical bytes of a lobby header (what the deck protocol binds to)."""
    return framing.encode(header)

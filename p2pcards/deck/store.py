"""Where a deck party keeps the messages of a finished hand (issue 23).

A :class:`~p2pcards.deck.party.Party` lives for a whole match. Once a hand is finished for every
seat (protocol/deck.md section 6, "Finished hands") the party keeps of it only what the light
audit and the reuse check need, packed, and hands the hand's pass messages (the shuffle and
re-lock passes, the re-handlings, the broadcast openings) to a *store*, from which the full audit
reads them back at the end. This module does no IO: :class:`MemoryStore` (the default) keeps
everything in memory; a store that writes to a file lives outside ``deck/``
(:mod:`p2pcards.net.deckstore`), and uses :func:`pack_records` / :func:`unpack_records` here.

A store's ``put`` never raises (a store that cannot write keeps the hand in memory); ``get``
raises :class:`StoreError` when it cannot give back what was put (a file gone, torn or
altered), and the audit then says it could not be completed: it never blames a seat for it.
"""

from __future__ import annotations

import hashlib
from typing import Any, Protocol

import msgpack

__all__ = ["MemoryStore", "Record", "StoreError", "TranscriptStore", "pack_records", "unpack_records"]

#: One operation's messages: (kind, seat) -> message, as ``Party.transcript`` holds them.
Record = dict[tuple[str, int], dict[str, Any]]


class StoreError(Exception):
    """A finished hand's messages cannot be read back."""


class TranscriptStore(Protocol):
    def put(self, hand: int, records: dict[int, Record]) -> None:
        """Keep the records (operation -> its messages) of finished hand ``hand`` (its epoch)."""

    def get(self, hand: int) -> dict[int, Record]:
        """The records put for ``hand``; raise :class:`StoreError` if they cannot be read."""


class MemoryStore:
    """Keeps every finished hand's records in memory (tests, the in-process deck, ``verify``)."""

    def __init__(self) -> None:
        self._hands: dict[int, dict[int, Record]] = {}

    def put(self, hand: int, records: dict[int, Record]) -> None:
        self._hands[hand] = records

    def get(self, hand: int) -> dict[int, Record]:
        try:
            return self._hands[hand]
        except KeyError:
            raise StoreError(f"hand {hand} was never stored") from None


def pack_records(records: dict[int, Record]) -> tuple[bytes, bytes]:
    """The bytes of a hand's records, and their digest (kept in memory to check them on reading)."""
    rows = [
        [op, kind, seat, message] for op, record in sorted(records.items()) for (kind, seat), message in record.items()
    ]
    rows += [[op, None, None, None] for op, record in sorted(records.items()) if not record]
    data = msgpack.packb(rows, use_bin_type=True)
    return data, hashlib.blake2b(data, digest_size=32).digest()


def unpack_records(data: bytes, digest: bytes) -> dict[int, Record]:
    """The records of :func:`pack_records`'s bytes, checked against their digest: bytes that do
    not match (torn, altered, another hand's) are a :class:`StoreError`, never a verdict."""
    if hashlib.blake2b(data, digest_size=32).digest() != digest:
        raise StoreError("the stored messages do not match their digest (torn or altered)")
    try:
        rows = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
        raise StoreError(f"the stored messages do not decode: {exc}") from None
    records: dict[int, Record] = {}
    for op, kind, seat, message in rows:
        record = records.setdefault(op, {})
        if kind is not None:
            record[(kind, seat)] = message
    return records

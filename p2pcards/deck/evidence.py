"""The fields of an accusation from a peer (protocol/deck.md section 6), read before use.

An accusation and its evidence come from a seat that may run a modified client: every field is
checked here for its type and range before the judge (``Party._judge``, ``Replay.judge``)
indexes anything with it. Each reader returns the fields in a checked form, or ``None`` when
they are malformed, which names the accuser (never the accused: only the accuser chose these
bytes). Nothing here raises on peer data, and nothing here needs a party's state: the checks
that do (whose lock a place is, which hand a handle is of) stay with the judge.

The rules, in one place:

* a number is an ``int`` and nothing that compares equal to one (msgpack brings floats, and a
  peer could send ``True`` for 1); an index is one in ``0 .. bound-1`` (no negative index,
  which Python would read from the end);
* the accused ``seat`` is a seat, ``op`` a non-negative integer;
* a reused key's evidence is ``{"scalar", "author", "places"}``: a 32-byte scalar, ``author``
  the accused seat, and exactly two distinct places ``[handle, lock]``, each a handle
  (non-negative) and a lock in ``0 .. N`` (``N``: a re-handled card's one lock);
* (a decode failure's accusation is gone since protocol version 11: every pass is proven and
  every lock checked, so no card can fail to decode; one names its accuser as of no known kind);
* a private message's evidence names its sender by seat, and on the wire its entry by a
  non-negative sequence number and a message key of bytes.

A verdict's reason is always our own text, chosen by the rule (the accuser's ``reason`` field is
never repeated): :func:`reuse_reason` for a reused key, shared with the seat that finds one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

__all__ = [
    "accused_of",
    "is_index",
    "is_int",
    "reuse_evidence",
    "reuse_reason",
    "step_of",
    "wire_private_evidence",
]

#: The fields of a reused key's evidence, exactly.
REUSE_FIELDS = frozenset({"scalar", "author", "places"})


def is_int(value: object) -> TypeGuard[int]:
    """An integer and nothing that compares equal to one (a bool, a float)."""
    return type(value) is int


def is_index(value: object, bound: int) -> TypeGuard[int]:
    """An integer in ``0 .. bound-1``."""
    return type(value) is int and 0 <= value < bound


def _is_bytes(value: object, size: int) -> TypeGuard[bytes]:
    return isinstance(value, bytes) and len(value) == size


def step_of(message: Mapping[str, Any]) -> str | None:
    """An accusation's ``step``, if it is a string (anything else is of no known kind; a list
    or a map could not even be looked up in a set of steps)."""
    step = message.get("step")
    return step if isinstance(step, str) else None


def accused_of(message: Mapping[str, Any], players: int) -> tuple[int, int] | None:
    """(accused seat, operation) of an accusation: a seat and a non-negative integer."""
    seat, op = message.get("seat"), message.get("op")
    if not is_index(seat, players) or not is_int(op) or op < 0:
        return None
    return seat, op


def reuse_evidence(evidence: Any, accused: int, players: int) -> tuple[bytes, list[tuple[int, int]]] | None:
    """(scalar, its two places) of a reused key's evidence against ``accused``; ``None`` if
    malformed. The places are distinct here as written; the judge also checks they are two
    distinct locks of the accused (a re-handled card's lock is its transfer's, which every
    card of that transfer shares)."""
    if not isinstance(evidence, dict) or set(evidence) != REUSE_FIELDS:
        return None
    scalar, author, places = evidence["scalar"], evidence["author"], evidence["places"]
    if not _is_bytes(scalar, 32) or not is_int(author) or author != accused:
        return None
    if not (isinstance(places, list) and len(places) == 2):
        return None
    checked: list[tuple[int, int]] = []
    for place in places:
        if not (isinstance(place, list) and len(place) == 2):
            return None
        handle, lock = place
        if not (is_int(handle) and handle >= 0 and is_index(lock, players + 1)):
            return None
        checked.append((handle, lock))
    if checked[0] == checked[1]:
        return None
    return scalar, checked


def reuse_reason(first: int, second: int) -> str:
    """The verdict's reason when a key is proven reused at handles ``first`` and ``second``."""
    return f"reused key (handles {first} and {second})"


def wire_private_evidence(evidence: Any, players: int) -> tuple[int, int, bytes] | None:
    """(sender, entry seq, message key) of an accusation about a private message as it comes
    on the wire (protocol/wire.md section 8); ``None`` if malformed."""
    if not isinstance(evidence, dict):
        return None
    sender, seq, key = evidence.get("sender"), evidence.get("entry"), evidence.get("key")
    if not (is_index(sender, players) and is_int(seq) and seq >= 0 and isinstance(key, bytes)):
        return None
    return sender, seq, key

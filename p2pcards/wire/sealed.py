"""Private payloads inside public, signed log entries: readable by one recipient only.

A private deck message (the keys of a dealt card, a hidden transfer's opening) is still an
ordinary log entry, sent to everyone and kept in every transcript, so the log stays complete and
ordered; only its payload is encrypted. The body of such an entry is::

    {"to": recipient seat, "box": nonce (12 bytes) || ChaCha20-Poly1305 ciphertext and tag,
     "seen": the log's head echo, added by the log}

or, for private messages to several seats sent at once (a deal: one per other seat)::

    {"boxes": [[seat, box], ...] (two or more, seats ascending, none the sender), "seen": ...}

where each box is sealed exactly as the one box of the first form, for its own seat.

The key is per message: X25519 between the sender's and the recipient's roster keys, then
HKDF-SHA256 with ``info`` = domain || sender X25519 key || recipient X25519 key || SHA-256(aad),
where ``aad`` (also the AEAD associated data) is the canonical encoding of the entry header
{table, from, seq, kind, to}. A box therefore opens only for its recipient, only in its own
entry, and a box moved to another entry, seat, step or table fails authentication.

Audit and disputes: the end-of-game audit does not decrypt boxes; everything a deck message
carries is re-derived from the seeds revealed at the end. If a recipient finds a payload wrong
when it arrives (a key that misses its public commitment), it publishes the message key
(:func:`message_key`) in a signed accusation; anyone holding the transcript can then open that one
box (:func:`open_with_key`) and see who lied: the sender if the payload is wrong, the accuser if
the key does not open the box or the payload is right. A message key reveals that message only.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from .. import PROTOCOL_VERSION
from . import framing
from .errors import ProtocolError, SchemaError
from .identity import Identity, PublicIdentity
from .messages import MAX_SEATS, Entry
from .schema import AnyData, Bytes, Int, ListOf, Record

__all__ = [
    "SealError",
    "entry_aad",
    "entry_message_key",
    "message_key",
    "open_body",
    "open_revealed",
    "open_with_key",
    "recipients",
    "seal",
    "seal_bodies",
    "seal_body",
    "unseal",
]

SEAL_DOMAIN = b"p2pcards/%d sealed\x00" % PROTOCOL_VERSION
NONCE_SIZE = 12
TAG_SIZE = 16
KEY_SIZE = 32
MAX_BOX = 1 << 19

# "seen" is the table log's head echo, which every entry body carries (checked by the log).
BODY = Record({"to": Int(0, MAX_SEATS - 1), "box": Bytes(max_len=MAX_BOX)}, optional={"seen": AnyData()})
MULTI_BODY = Record({"boxes": ListOf(ListOf(AnyData(), 2, 2), MAX_SEATS - 1, 2)}, optional={"seen": AnyData()})
_SEAT, _BOX = Int(0, MAX_SEATS - 1), Bytes(max_len=MAX_BOX)


class SealError(ProtocolError):
    """A box that cannot be opened (wrong recipient, tampered, or moved to another entry)."""


def message_key(me: Identity, peer: PublicIdentity, aad: bytes, *, i_am_sender: bool) -> bytes:
    """The symmetric key of one box, computable by its sender and its recipient only."""
    own = me.public.x25519
    sender, recipient = (own, peer.x25519) if i_am_sender else (peer.x25519, own)
    try:
        shared = me.shared_secret(peer.x25519)
    except ValueError:  # a low-order point gives an all-zero secret; cryptography refuses it
        raise SealError(None, "peer's X25519 key is not usable") from None
    info = SEAL_DOMAIN + sender + recipient + hashlib.sha256(aad).digest()
    return HKDF(algorithm=hashes.SHA256(), length=KEY_SIZE, salt=None, info=info).derive(shared)


def seal(sender: Identity, recipient: PublicIdentity, plaintext: bytes, aad: bytes) -> bytes:
    """Encrypt ``plaintext`` to ``recipient``; returns nonce || ciphertext || tag."""
    key = message_key(sender, recipient, aad, i_am_sender=True)
    # The key is already unique per message (seq is in aad); a random nonce also keeps a
    # crashed-and-restarted sender that reuses a seq from reusing a keystream.
    nonce = os.urandom(NONCE_SIZE)
    return nonce + ChaCha20Poly1305(key).encrypt(nonce, plaintext, aad)


def open_with_key(key: bytes, box: bytes, aad: bytes) -> bytes:
    """Open a box with its message key (the recipient's, or one revealed in a dispute)."""
    if len(box) < NONCE_SIZE + TAG_SIZE:
        raise SealError(None, "sealed box too short")
    if len(key) != KEY_SIZE:
        raise SealError(None, "message key must be 32 bytes")
    try:
        return ChaCha20Poly1305(key).decrypt(box[:NONCE_SIZE], box[NONCE_SIZE:], aad)
    except InvalidTag:
        raise SealError(None, "sealed box does not authenticate (tampered, moved, or not for this recipient)") from None


def unseal(recipient: Identity, sender: PublicIdentity, box: bytes, aad: bytes) -> bytes:
    return open_with_key(message_key(recipient, sender, aad, i_am_sender=False), box, aad)


# -- the entry-level helpers the deck layer uses -------------------------------------------


def entry_aad(table: bytes, sender: int, seq: int, kind: str, to: int) -> bytes:
    return SEAL_DOMAIN + framing.encode({"table": table, "from": sender, "seq": seq, "kind": kind, "to": to})


def seal_body(
    sender: Identity, *, table: bytes, seat: int, seq: int, kind: str, to: int, recipient: PublicIdentity, payload: Any
) -> dict[str, Any]:
    """The body of a private entry carrying ``payload`` (plain data) to seat ``to``. ``seq``
    must be the seq the entry will be signed with (``log.next_seq(seat)``)."""
    aad = entry_aad(table, seat, seq, kind, to)
    return {"to": to, "box": seal(sender, recipient, framing.encode(payload), aad)}


def seal_bodies(
    sender: Identity, *, table: bytes, seat: int, seq: int, kind: str, items: Sequence[tuple[int, PublicIdentity, Any]]
) -> dict[str, Any]:
    """The body of one private entry carrying a payload to each of several seats:
    ``items`` is ``(to, recipient keys, payload)`` for two or more distinct seats."""
    if len(items) < 2 or len({to for to, _, _ in items}) != len(items):
        raise ValueError("a multi-recipient body takes two or more distinct seats")
    boxes = [
        [to, seal(sender, recipient, framing.encode(payload), entry_aad(table, seat, seq, kind, to))]
        for to, recipient, payload in sorted(items, key=lambda item: item[0])
    ]
    return {"boxes": boxes}


def recipients(body: Any) -> dict[int, bytes]:
    """Seat -> box of a private entry's body, either form; empty if it is not a well-formed
    private body (a public one, or anything else)."""
    try:
        return _boxes(body)
    except SchemaError:
        return {}


def _boxes(body: Any) -> dict[int, bytes]:
    if isinstance(body, dict) and "boxes" in body:
        MULTI_BODY.check(body, "body")
        out: dict[int, bytes] = {}
        for i, (to, box) in enumerate(body["boxes"]):
            _SEAT.check(to, f"body.boxes[{i}][0]")
            _BOX.check(box, f"body.boxes[{i}][1]")
            if out and to <= max(out):
                raise SchemaError(f"body.boxes[{i}]", "seats must be distinct and ascending")
            out[to] = box
        return out
    BODY.check(body, "body")
    return {body["to"]: body["box"]}


def _box(entry: Entry, to: int) -> bytes:
    try:
        boxes = _boxes(entry.body)
    except SchemaError as exc:
        raise SealError(entry.sender, f"bad private entry #{entry.seq}: {exc}") from None
    if to == entry.sender or to not in boxes:
        raise SealError(entry.sender, f"entry #{entry.seq} carries nothing for seat {to}")
    return boxes[to]


def _open(entry: Entry, key: bytes, box: bytes, to: int) -> Any:
    aad = entry_aad(entry.table, entry.sender, entry.seq, entry.kind, to)
    try:
        return framing.decode(open_with_key(key, box, aad))
    except SealError as exc:
        raise SealError(entry.sender, f"entry #{entry.seq}: {exc.reason}") from None
    except framing.FrameError as exc:
        raise SealError(entry.sender, f"entry #{entry.seq}: bad payload: {exc.reason}") from None


def open_body(me: Identity, my_seat: int, entry: Entry, sender: PublicIdentity) -> Any:
    """The payload for ``my_seat`` in a private entry; :class:`SealError` naming the sender if
    it carries nothing for us, does not open, or does not hold plain data."""
    box = _box(entry, my_seat)
    aad = entry_aad(entry.table, entry.sender, entry.seq, entry.kind, my_seat)
    return _open(entry, message_key(me, sender, aad, i_am_sender=False), box, my_seat)


def entry_message_key(me: Identity, my_seat: int, entry: Entry, peer: PublicIdentity, to: int | None = None) -> bytes:
    """The message key of one box of a private entry that we sent or received (to reveal in a
    dispute): the box to ``to`` (default: to us, when we received it)."""
    to = my_seat if to is None else to
    _box(entry, to)
    aad = entry_aad(entry.table, entry.sender, entry.seq, entry.kind, to)
    return message_key(me, peer, aad, i_am_sender=entry.sender == my_seat)


def open_revealed(entry: Entry, key: bytes, to: int) -> Any:
    """What a third party does with a revealed message key: open the box to seat ``to`` in
    the signed entry."""
    return _open(entry, key, _box(entry, to), to)

"""The message catalogue: what peers send each other inside frames, how it is checked and signed.

Every message is a map with a ``"type"``:

* ``hello`` / ``auth``: the handshake on a new connection (:class:`Hello`, :class:`Auth`);
* ``entry``: a signed entry of the table log (:class:`Entry`), the envelope of all table
  traffic (lobby, deck protocol, game actions, audit); its body carries the head echo;
* ``fetch``: a request for one seat's log entries from a ``seq`` on (:class:`Fetch`), for
  catching up and for resolving a head echo that disagrees; ``fetched`` ends the answer
  (:class:`Fetched`);
* ``bye``: a reason given before closing (:class:`Bye`).

:func:`parse_message` turns a decoded frame into one of these classes or raises
:class:`~p2pcards.wire.errors.ProtocolError` naming the peer. Signatures are Ed25519 over a
domain prefix followed by the canonical encoding (:func:`p2pcards.wire.framing.encode`) of the
message without ``type`` and ``sig``; protocol/wire.md lists the exact bytes.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from .. import PROTOCOL_VERSION, __version__
from . import framing
from .errors import ProtocolError, SchemaError, VersionMismatch
from .identity import Identity, PublicIdentity
from .schema import AnyData, Bytes, Int, ListOf, MapOf, Record, Str, Text

__all__ = [
    "Auth",
    "Bye",
    "Entry",
    "Fetch",
    "Fetched",
    "HASH_SIZE",
    "Hello",
    "LinksNotice",
    "MAX_SEATS",
    "Ping",
    "TABLE_ID_SIZE",
    "SpectatorSays",
    "Watchers",
    "common_games",
    "genesis_hash",
    "handshake_proof",
    "make_hello",
    "new_table_id",
    "parse_message",
    "seat_genesis",
    "sign_entry",
    "version_mismatch",
]

TABLE_ID_SIZE = 16
HASH_SIZE = 32
SIG_SIZE = 64
NONCE_SIZE = 32
MAX_SEATS = 16
MAX_SEQ = (1 << 63) - 1
KIND_PATTERN = r"[a-z][a-z0-9_.-]{0,63}"
GAME_ID_PATTERN = r"[a-z0-9][a-z0-9_.-]{0,63}"

# Domain prefixes: a signature or hash made for one purpose can never be taken for another.
# Entries and genesis hashes carry the protocol version, so they cannot cross versions either.
# The hello and the handshake proof do not: every version must read them to report a mismatch.
_V = PROTOCOL_VERSION
ENTRY_DOMAIN = b"p2pcards/%d entry\x00" % _V
GENESIS_DOMAIN = b"p2pcards/%d genesis\x00" % _V
SEAT_GENESIS_DOMAIN = b"p2pcards/%d seat genesis\x00" % _V
HELLO_DOMAIN = b"p2pcards hello\x00"
HANDSHAKE_DOMAIN = b"p2pcards handshake\x00"

_TABLE = Bytes(TABLE_ID_SIZE)
_SEAT = Int(0, MAX_SEATS - 1)
_HASH = Bytes(HASH_SIZE)
_SIG = Bytes(SIG_SIZE)


def _checked(spec: Record, obj: Any, peer: object, what: str) -> None:
    try:
        spec.check(obj)
    except SchemaError as exc:
        raise ProtocolError(peer, f"bad {what}: {exc}") from None


def new_table_id() -> bytes:
    return secrets.token_bytes(TABLE_ID_SIZE)


def genesis_hash(table: bytes, header: Any) -> bytes:
    """The table's genesis hash: binds the table id and the lobby header (roster, game,
    options: whatever plain data the session puts in it). Every seat's chain starts from it
    (:func:`seat_genesis`); transcript headers carry it."""
    data = framing.encode({"table": table, "header": header})
    return hashlib.sha256(GENESIS_DOMAIN + data).digest()


def seat_genesis(table: bytes, header: Any, seat: int) -> bytes:
    """The ``prev`` of seat ``seat``'s first log entry:
    ``H(SEAT_GENESIS_DOMAIN || genesis_hash(table, header) || seat as one byte)``."""
    if not 0 <= seat < MAX_SEATS:
        raise ValueError(f"seat {seat} out of range")
    return hashlib.sha256(SEAT_GENESIS_DOMAIN + genesis_hash(table, header) + bytes([seat])).digest()


# ------------------------------------------------------------------------------------------
# Log entries.


@dataclass(frozen=True, eq=False)
class Entry:
    """One signed entry of the table log.

    ``sender`` is a seat; ``seq`` counts that seat's entries from 0, strictly +1; ``kind`` names
    the step (``deck``, ``action`` ...: the log refuses other kinds); ``prev`` is the hash of
    the sender's own previous entry (its :func:`seat_genesis` for ``seq`` 0); ``body`` is plain data, for the log
    a map with the head echo ``seen`` (:mod:`p2pcards.wire.log`)."""

    table: bytes
    sender: int
    seq: int
    kind: str
    prev: bytes
    body: Any
    sig: bytes

    SCHEMA: ClassVar[Record] = Record(
        {
            "type": Str(16),
            "table": _TABLE,
            "from": _SEAT,
            "seq": Int(0, MAX_SEQ),
            "kind": Str(64, KIND_PATTERN),
            "prev": _HASH,
            "body": AnyData(),
            "sig": _SIG,
        }
    )

    def unsigned(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "from": self.sender,
            "seq": self.seq,
            "kind": self.kind,
            "prev": self.prev,
            "body": self.body,
        }

    @cached_property
    def signed_bytes(self) -> bytes:
        # An Entry is only made by from_wire (schema-checked, from a checked frame) or
        # sign_entry (checked there), so the encoder's value check is not repeated here.
        return ENTRY_DOMAIN + framing.encode(self.unsigned(), checked=True)

    @cached_property
    def hash(self) -> bytes:
        """SHA-256 of the signed bytes: the entry's id and the next entry's ``prev``. The
        signature is not hashed (Ed25519 signatures of one message by one key may differ)."""
        return hashlib.sha256(self.signed_bytes).digest()

    @cached_property
    def wire_bytes(self) -> bytes:
        """The canonical encoding of :meth:`to_wire`, made once: the frame that carries the
        entry to every peer and the journal record that keeps it both embed these bytes."""
        return framing.encode(self.to_wire(), checked=True)

    def encoded(self) -> bytes:
        """:attr:`wire_bytes`, made anew without keeping them if they are not kept already: for
        an entry written or sent once more long after it arrived (a journal record, a
        fetch's answer, the final transcript)."""
        cached = self.__dict__.get("wire_bytes")
        return cached if cached is not None else framing.encode(self.to_wire(), checked=True)

    def forget_encoding(self) -> None:
        """Drop the kept :attr:`signed_bytes` and :attr:`wire_bytes` (the hash stays): the
        decoded fields hold the same entry, and the bytes are made again, identical, if ever
        asked for. A log keeps its older entries so (issue 23: the bytes beside the decoded
        body were a third of an entry's memory)."""
        self.hash  # noqa: B018 - made before the bytes go
        self.__dict__.pop("signed_bytes", None)
        self.__dict__.pop("wire_bytes", None)

    def verify(self, key: PublicIdentity) -> bool:
        return key.verify(self.sig, self.signed_bytes)

    def to_wire(self) -> dict[str, Any]:
        return {"type": "entry", **self.unsigned(), "sig": self.sig}

    def __eq__(self, other: object) -> bool:
        # The hash stands for the signed bytes (SHA-256), and stays when they are dropped.
        return isinstance(other, Entry) and self.sig == other.sig and self.hash == other.hash

    def __hash__(self) -> int:
        return hash(self.hash)

    def __repr__(self) -> str:
        return (
            f"Entry(seat {self.sender} #{self.seq} {self.kind} prev={self.prev[:4].hex()} hash={self.hash[:4].hex()})"
        )

    @classmethod
    def from_wire(cls, obj: Any, peer: object = None) -> Entry:
        _checked(cls.SCHEMA, obj, peer, "log entry")
        if obj["type"] != "entry":
            raise ProtocolError(peer, f"expected an entry, got {obj['type']!r}")
        return cls(obj["table"], obj["from"], obj["seq"], obj["kind"], obj["prev"], obj["body"], obj["sig"])


def sign_entry(identity: Identity, *, table: bytes, sender: int, seq: int, kind: str, prev: bytes, body: Any) -> Entry:
    """Make and sign an entry (the caller's own message). Checks its shape like a peer would."""
    draft = Entry(table, sender, seq, kind, prev, body, b"\x00" * SIG_SIZE)
    Entry.from_wire(draft.to_wire(), "self")
    framing.check_value(draft.to_wire())  # plain data within the limits
    entry = Entry(table, sender, seq, kind, prev, body, identity.sign(draft.signed_bytes))
    entry.__dict__["signed_bytes"] = draft.signed_bytes  # the same unsigned fields: encoded once
    return entry


# ------------------------------------------------------------------------------------------
# Catch-up and goodbye (unsigned: they change nothing by themselves).


@dataclass(frozen=True)
class Fetch:
    """Please send me seat ``seat``'s log entries of ``table`` from ``seq`` ``start`` on (the
    answer is those entries as ``entry`` messages, in order: ``Log.entries(seat, start)``)."""

    table: bytes
    seat: int
    start: int

    SCHEMA: ClassVar[Record] = Record({"type": Str(16), "table": _TABLE, "seat": _SEAT, "start": Int(0, MAX_SEQ)})

    def to_wire(self) -> dict[str, Any]:
        return {"type": "fetch", "table": self.table, "seat": self.seat, "start": self.start}

    @classmethod
    def from_wire(cls, obj: Any, peer: object = None) -> Fetch:
        _checked(cls.SCHEMA, obj, peer, "fetch")
        return cls(obj["table"], obj["seat"], obj["start"])


@dataclass(frozen=True)
class Fetched:
    """The end of the answer to a :class:`Fetch`: the answerer holds ``count`` entries of seat
    ``seat`` (all of them were sent from the fetch's ``start`` on). A seat coming back after a
    crash waits for it from every other seat before it signs anything: what they hold of its
    own chain may be more than its journal kept."""

    table: bytes
    seat: int
    count: int

    SCHEMA: ClassVar[Record] = Record({"type": Str(16), "table": _TABLE, "seat": _SEAT, "count": Int(0, MAX_SEQ)})

    def to_wire(self) -> dict[str, Any]:
        return {"type": "fetched", "table": self.table, "seat": self.seat, "count": self.count}

    @classmethod
    def from_wire(cls, obj: Any, peer: object = None) -> Fetched:
        _checked(cls.SCHEMA, obj, peer, "fetched")
        return cls(obj["table"], obj["seat"], obj["count"])


@dataclass(frozen=True)
class Bye:
    """Sent before closing a connection on purpose; ``reason`` is for people."""

    reason: str

    SCHEMA: ClassVar[Record] = Record({"type": Str(16), "reason": Text(1000)})

    def to_wire(self) -> dict[str, Any]:
        return {"type": "bye", "reason": self.reason}

    @classmethod
    def from_wire(cls, obj: Any, peer: object = None) -> Bye:
        _checked(cls.SCHEMA, obj, peer, "bye")
        return cls(obj["reason"])


@dataclass(frozen=True)
class Ping:
    """Sent on a quiet game connection (nothing else sent for a second): proof that the link
    and the seat behind it are alive. It asks for nothing and is not answered; any message
    counts as life, so a busy connection carries none (protocol/wire.md section 4.6)."""

    SCHEMA: ClassVar[Record] = Record({"type": Str(16)})

    def to_wire(self) -> dict[str, Any]:
        return {"type": "ping"}

    @classmethod
    def from_wire(cls, obj: Any, peer: object = None) -> Ping:
        _checked(cls.SCHEMA, obj, peer, "ping")
        return cls()


#: At most this many spectator names in one :class:`Watchers` notice, of at most
#: :data:`MAX_WATCHER_NAME` characters each.
MAX_WATCHERS = 16
MAX_WATCHER_NAME = 64


@dataclass(frozen=True)
class Watchers:
    """Who watches the table through the sending seat (protocol/table.md section 10): sent to
    the other seats each time a spectator comes or goes. Unsigned and never logged: a seat's
    claim about its spectators is text for people, trusted for nothing."""

    names: tuple[str, ...]

    SCHEMA: ClassVar[Record] = Record({"type": Str(16), "names": ListOf(Text(MAX_WATCHER_NAME), max_len=MAX_WATCHERS)})

    def to_wire(self) -> dict[str, Any]:
        return {"type": "watchers", "names": list(self.names)}

    @classmethod
    def from_wire(cls, obj: Any, peer: object = None) -> Watchers:
        _checked(cls.SCHEMA, obj, peer, "watchers")
        return cls(tuple(obj["names"]))


#: The longest chat line of a spectator a seat relays.
MAX_SPECTATOR_CHAT = 200


@dataclass(frozen=True)
class SpectatorSays:
    """A chat line of a spectator watching through the sending seat, relayed to the other seats
    at a table whose header lets spectators chat (protocol/table.md section 10). Unsigned and
    never logged: it is the relaying seat's word, shown as a spectator's, nothing more."""

    name: str
    text: str

    SCHEMA: ClassVar[Record] = Record(
        {"type": Str(16), "name": Text(MAX_WATCHER_NAME, min_len=1), "text": Text(MAX_SPECTATOR_CHAT, min_len=1)}
    )

    def to_wire(self) -> dict[str, Any]:
        return {"type": "spectator-says", "name": self.name, "text": self.text}

    @classmethod
    def from_wire(cls, obj: Any, peer: object = None) -> SpectatorSays:
        _checked(cls.SCHEMA, obj, peer, "spectator-says")
        return cls(obj["name"], obj["text"])


#: Why a seat waits on another, in a :class:`LinksNotice`: the other is away from it (its
#: link is down), or the seat waits on the other's absent statement (table.md section 9).
WAIT_REASONS = ("away", "statements")


@dataclass(frozen=True)
class LinksNotice:
    """Whom the sending seat is connected to now, and whom it waits on and why (protocol/
    wire.md section 4.8, table.md section 5, "Partial partitions"): sent on its game
    connections while a link of the table is down. Unsigned and never logged: it only makes
    the receiver wait longer (up to a step's last call) and never names anyone, so a seat that
    lies in it can delay the table, not get a seat named."""

    table: bytes
    connected: tuple[int, ...]
    waits_on: tuple[tuple[int, str], ...]

    SCHEMA: ClassVar[Record] = Record(
        {
            "type": Str(16),
            "table": _TABLE,
            "connected": ListOf(_SEAT, max_len=MAX_SEATS),
            "waits_on": ListOf(ListOf(AnyData(), max_len=2, min_len=2), max_len=MAX_SEATS),
        }
    )
    _WHY: ClassVar[Str] = Str(16, pattern="|".join(WAIT_REASONS))

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": "links",
            "table": self.table,
            "connected": list(self.connected),
            "waits_on": [[seat, why] for seat, why in self.waits_on],
        }

    @classmethod
    def from_wire(cls, obj: Any, peer: object = None) -> LinksNotice:
        _checked(cls.SCHEMA, obj, peer, "links")
        waits_on = []
        for index, pair in enumerate(obj["waits_on"]):
            try:
                _SEAT.check(pair[0], f"waits_on[{index}][0]")
                cls._WHY.check(pair[1], f"waits_on[{index}][1]")
            except SchemaError as exc:
                raise ProtocolError(peer, f"bad links: {exc}") from None
            waits_on.append((pair[0], pair[1]))
        return cls(obj["table"], tuple(obj["connected"]), tuple(waits_on))


# ------------------------------------------------------------------------------------------
# Handshake.


@dataclass(frozen=True)
class Hello:
    """The first message on every connection, in both directions.

    Its layout is frozen across protocol versions (``protocol`` and ``program`` are always read
    first), so any two versions can tell each other why they cannot play. Fields a later version
    adds are kept in ``extra`` and covered by the signature."""

    protocol: int
    program: str
    name: str
    keys: PublicIdentity
    games: Mapping[str, str]
    nonce: bytes
    sig: bytes
    extra: Mapping[str, Any] = field(default_factory=dict)

    SCHEMA: ClassVar[Record] = Record(
        {
            "type": Str(16),
            "protocol": Int(0, 1 << 31),
            "program": Text(64),
            "name": Text(64),
            "ed25519": Bytes(32),
            "x25519": Bytes(32),
            "games": MapOf(Str(64, GAME_ID_PATTERN), Str(64), 256),
            "nonce": Bytes(NONCE_SIZE),
            "sig": _SIG,
        },
        extra=True,
    )
    _FIELDS: ClassVar[frozenset[str]] = frozenset(SCHEMA.required)

    def unsigned(self) -> dict[str, Any]:
        return {
            **self.extra,
            "protocol": self.protocol,
            "program": self.program,
            "name": self.name,
            "ed25519": self.keys.ed25519,
            "x25519": self.keys.x25519,
            "games": dict(self.games),
            "nonce": self.nonce,
        }

    @property
    def signed_bytes(self) -> bytes:
        return HELLO_DOMAIN + framing.encode(self.unsigned())

    @property
    def hash(self) -> bytes:
        return hashlib.sha256(self.signed_bytes).digest()

    def to_wire(self) -> dict[str, Any]:
        return {"type": "hello", **self.unsigned(), "sig": self.sig}

    @classmethod
    def from_wire(cls, obj: Any, peer: object = None) -> Hello:
        # Read the versions before anything else so that a peer of another protocol version
        # gets a version error rather than a schema error.
        if isinstance(obj, dict) and isinstance(obj.get("protocol"), int) and obj["protocol"] != PROTOCOL_VERSION:
            program = obj.get("program")
            if not isinstance(program, str):
                program = "?"
            raise VersionMismatch(
                peer,
                f"runs protocol {obj['protocol']} (p2pcards {program[:64]}), "
                f"we run protocol {PROTOCOL_VERSION} (p2pcards {__version__})",
            )
        _checked(cls.SCHEMA, obj, peer, "hello")
        extra = {k: v for k, v in obj.items() if k not in cls._FIELDS}
        hello = cls(
            obj["protocol"],
            obj["program"],
            obj["name"],
            PublicIdentity(obj["ed25519"], obj["x25519"]),
            obj["games"],
            obj["nonce"],
            obj["sig"],
            extra,
        )
        if not hello.keys.verify(hello.sig, hello.signed_bytes):
            raise ProtocolError(peer, "hello signature does not match its key")
        return hello


def make_hello(
    identity: Identity,
    *,
    name: str,
    games: Mapping[str, str],
    program: str = __version__,
    protocol: int = PROTOCOL_VERSION,
    nonce: bytes | None = None,
) -> Hello:
    """Our hello: ``games`` is {game id: rules version} of every game installed here."""
    draft = Hello(
        protocol,
        program,
        name,
        identity.public,
        dict(games),
        nonce if nonce is not None else secrets.token_bytes(NONCE_SIZE),
        b"",
    )
    hello = Hello(
        draft.protocol,
        draft.program,
        draft.name,
        draft.keys,
        draft.games,
        draft.nonce,
        identity.sign(draft.signed_bytes),
    )
    _checked(Hello.SCHEMA, hello.to_wire(), "self", "hello")
    return hello


def version_mismatch(
    ours: Hello, theirs: Hello, *, game: str | None = None, peer: object = None
) -> VersionMismatch | None:
    """Why these two peers cannot play (``game``: at a table of that game), or ``None``.
    Program versions may differ; the protocol version and the game's rules version may not."""
    peer = peer if peer is not None else f"peer {theirs.name or theirs.keys.fingerprint}"
    if ours.protocol != theirs.protocol:
        return VersionMismatch(
            peer,
            f"runs protocol {theirs.protocol} (p2pcards {theirs.program}), "
            f"we run protocol {ours.protocol} (p2pcards {ours.program})",
        )
    if game is not None:
        mine, its = ours.games.get(game), theirs.games.get(game)
        if mine is None:
            return VersionMismatch(peer, f"game {game}: not installed here (peer has rules {its})")
        if its is None:
            return VersionMismatch(peer, f"game {game}: we have rules {mine}, peer does not have the game")
        if mine != its:
            return VersionMismatch(peer, f"game {game}: we have rules {mine}, peer has {its}")
    return None


def common_games(ours: Hello, theirs: Hello) -> dict[str, str]:
    """The games both peers have in the same rules version."""
    return {g: v for g, v in ours.games.items() if theirs.games.get(g) == v}


@dataclass(frozen=True)
class Auth:
    """The second handshake message: proves possession of the hello's key for *this*
    connection, by signing both hellos (the other side's fresh nonce makes it unreplayable)."""

    sig: bytes

    SCHEMA: ClassVar[Record] = Record({"type": Str(16), "sig": _SIG})

    def to_wire(self) -> dict[str, Any]:
        return {"type": "auth", "sig": self.sig}

    @classmethod
    def from_wire(cls, obj: Any, peer: object = None) -> Auth:
        _checked(cls.SCHEMA, obj, peer, "auth")
        return cls(obj["sig"])

    def check(self, ours: Hello, theirs: Hello, peer: object = None) -> None:
        """Raise :class:`ProtocolError` unless the peer who sent ``theirs`` made this proof."""
        if theirs.keys.ed25519 == ours.keys.ed25519:
            raise ProtocolError(peer, "peer uses our own identity key (a loop or a copy)")
        if theirs.nonce == ours.nonce:
            raise ProtocolError(peer, "peer echoed our nonce")
        if not theirs.keys.verify(self.sig, _handshake_bytes(theirs, ours)):
            raise ProtocolError(peer, "handshake proof does not match the hello's key")


def _handshake_bytes(signer: Hello, other: Hello) -> bytes:
    return HANDSHAKE_DOMAIN + signer.hash + other.hash


def handshake_proof(identity: Identity, ours: Hello, theirs: Hello) -> Auth:
    return Auth(identity.sign(_handshake_bytes(ours, theirs)))


# ------------------------------------------------------------------------------------------

_TYPES: dict[str, Any] = {
    "hello": Hello,
    "auth": Auth,
    "entry": Entry,
    "fetch": Fetch,
    "fetched": Fetched,
    "bye": Bye,
    "ping": Ping,
    "watchers": Watchers,
    "spectator-says": SpectatorSays,
    "links": LinksNotice,
}

Message = Hello | Auth | Entry | Fetch | Fetched | Bye | Ping | Watchers | SpectatorSays | LinksNotice


def parse_message(obj: Any, peer: object = None) -> Message:
    """A decoded frame as a message object; :class:`ProtocolError` (naming ``peer``) if it is
    not one. Signatures of entries are checked by the log, which knows the roster;
    a hello's signature is checked here (its key is inside it)."""
    if not isinstance(obj, dict):
        raise ProtocolError(peer, "a message must be a map")
    kind = obj.get("type")
    cls = _TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        shown = repr(kind)[:40]
        raise ProtocolError(peer, f"unknown message type {shown}")
    return cls.from_wire(obj, peer)

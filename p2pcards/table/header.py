"""The table header: everything the seats agreed on in the lobby. Every log entry chains back to
its canonical encoding (protocol/table.md section 2), and the deck protocol binds it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..wire.errors import SchemaError
from ..wire.identity import PublicIdentity
from ..wire.schema import AnyData, Bool, Bytes, Float, Int, ListOf, MapOf, Record, Str, Text
from .timeouts import Timeouts

__all__ = ["HEADER", "Seat", "TableHeader"]


@dataclass(frozen=True)
class Seat:
    name: str
    keys: PublicIdentity
    host: str
    port: int

    def to_wire(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ed25519": self.keys.ed25519,
            "x25519": self.keys.x25519,
            "host": self.host,
            "port": self.port,
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Seat:
        return cls(data["name"], PublicIdentity(data["ed25519"], data["x25519"]), data["host"], data["port"])


_SEAT_SCHEMA = Record(
    {"name": Text(64), "ed25519": Bytes(32), "x25519": Bytes(32), "host": Str(64), "port": Int(1, 65535)}
)
HEADER = Record(
    {
        "table": Bytes(16),
        "game": Str(64),
        "rules": Str(64),
        "options": MapOf(Str(64), AnyData(), 64),
        "seats": ListOf(_SEAT_SCHEMA, 16, 1),
        "protocol": Int(0, 1 << 31),
        "timeouts": Record({"deck": Float(), "turn": Float(), "grace": Float()}),
    },
    # Only when true: a table without it has the same header bytes as before it existed.
    optional={"spectator_chat": Bool()},
)


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
    #: Spectators may chat: the seat a spectator watches through relays its lines to the
    #: players (never into the signed log). Off unless the host turns it on.
    spectator_chat: bool = False

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
            **({"spectator_chat": True} if self.spectator_chat else {}),
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
            bool(data.get("spectator_chat", False)),
        )

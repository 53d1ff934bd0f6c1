"""Exceptions of the wire layer. Every rejection of a peer's bytes is a :class:`ProtocolError`
(or a subclass) that names the peer it came from, so the session can blame the right seat."""

from __future__ import annotations

from ..text import printable

__all__ = ["ProtocolError", "SchemaError", "VersionMismatch"]


class SchemaError(ValueError):
    """A value does not have the required shape; ``path`` says where (``body.points[3]``).

    Both may quote a peer's data (a map's key, a value): they are kept :func:`printable`, so
    the message can be shown, logged or sent on in a blame as it is."""

    def __init__(self, path: str, reason: str):
        path, reason = printable(path), printable(reason)
        super().__init__(f"{path}: {reason}" if path else reason)
        self.path = path
        self.reason = reason


class ProtocolError(ValueError):
    """A peer sent something the protocol does not allow.

    ``peer`` is whatever the caller uses to name the sender (a seat number, a name, an address);
    ``reason`` is one line for people and logs, kept :func:`printable` (it may quote what the
    peer sent)."""

    def __init__(self, peer: object, reason: str):
        reason = printable(reason)
        super().__init__(f"{_name(peer)}: {reason}")
        self.peer = peer
        self.reason = reason


class VersionMismatch(ProtocolError):
    """Two peers cannot play together; the message names both sides' versions."""


def _name(peer: object) -> str:
    if peer is None:
        return "peer"
    if isinstance(peer, int) and not isinstance(peer, bool):
        return f"seat {peer}"
    return printable(peer)

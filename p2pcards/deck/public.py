"""What anyone can learn of the deck from its public messages alone, with no seed.

The shuffle and re-lock passes give every shuffled handle its point and its per-card public
keys; a re-handling gives each moved card a new handle, its point and the transfer's public key
(protocol/deck.md sections 4 and 5). A card opened to everyone (a reveal with no owner) has
every scalar behind its locks published, with the chain that links a re-handled handle back to
the shuffled one: with those, anyone decodes its face. ``p2pcards verify`` uses this to replay
a game whose seeds were not all revealed past its public reveals (the challenges of Cal's BS).

Nothing here names anyone: the seats checked every message on arrival, and a message that does
not check out here only means the faces are not known (:class:`NotOpened`). The passes themselves
are checked, with their proofs, by the caller (:func:`p2pcards.verify.seedless.public_passes`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..cards import Card
from .group import InvalidPoint, InvalidScalar, check_scalar, invert, multiply, scalar_product
from .passes import pass_context
from .proofs import InvalidProof, public_key, verify_link


class NotOpened(Exception):
    """The public messages do not show the faces asked for."""


@dataclass(frozen=True)
class _Link:
    """A re-handled handle: its transfer's public key and the handles that transfer moved."""

    key: bytes
    sources: tuple[int, ...]


class PublicCards:
    """Every handle's public point and keys, and the faces of cards opened to everyone."""

    def __init__(self, game_id: bytes | None, table: Sequence[bytes], cards: Sequence[Card]):
        self.game_id = game_id
        self._faces_by_point = {point: card for point, card in zip(table, cards, strict=True)}
        self.points: dict[int, bytes] = {}  # every handle ever made, moved ones too
        self._locks: dict[int, list[bytes]] = {}  # shuffled handle -> seat i's public key at i
        self._links: dict[int, _Link] = {}  # re-handled handle -> its link
        self._known: dict[int, dict[int, bytes]] = {}  # shuffled handle -> lock -> public scalar

    def shuffled(
        self, base: int, points: Sequence[bytes], keys: Sequence[Sequence[bytes] | None], one: bytes = b""
    ) -> None:
        """A shuffle's final deck, handles ``base..``; ``keys[seat][j]`` from each re-lock pass,
        ``None`` for a seat that dropped out before this shuffle: its lock is the public scalar
        ``one`` (protocol/deck.md §4.6), which every seat knows."""
        for j, point in enumerate(points):
            self.points[base + j] = point
            self._locks[base + j] = [public_key(one) if seat_keys is None else seat_keys[j] for seat_keys in keys]
            for seat, seat_keys in enumerate(keys):
                if seat_keys is None:
                    self._known.setdefault(base + j, {})[seat] = one

    def dropped(self, seat: int, message: Mapping[str, Any]) -> None:
        """``seat`` dropped out: its ``drop`` message publishes its key of every card nobody
        held (deck.md §4.6). Each key its lock's public key confirms opens that lock from now on
        (one that does not opens nothing: the seats named its author as it came)."""
        handles, scalars = message.get("handles"), message.get("scalars")
        if not (isinstance(handles, list) and isinstance(scalars, list) and len(handles) == len(scalars)):
            return
        for handle, scalar in zip(handles, scalars):
            locks = self._locks.get(handle) if type(handle) is int else None
            if locks is not None and 0 <= seat < len(locks) and _opens(scalar, locks[seat]):
                self._known.setdefault(handle, {})[seat] = scalar

    def rehandled(self, first: int, points: Sequence[bytes], key: bytes, sources: Sequence[int]) -> None:
        """A re-handling's cards, handles ``first..``, each one of ``sources`` under ``key``."""
        for j, point in enumerate(points):
            self.points[first + j] = point
            self._links[first + j] = _Link(key, tuple(sources))

    def opened(self, handles: Sequence[int], openings: Sequence[Mapping[str, Any]]) -> dict[int, Card]:
        """The faces of ``handles`` from the public openings of their reveal; raise
        :class:`NotOpened` unless every lock of each is opened by a scalar its public key
        confirms, through a chain whose proofs hold."""
        roots: dict[int, int] = {}
        scalars: dict[int, dict[int, bytes]] = {}
        for message in openings:
            for handle, pairs, chain in _items(message):
                root = self._root(handle, chain)
                if root is None:
                    continue
                roots.setdefault(handle, root)
                locks = self._locks[root]
                for pair in pairs:
                    lock, scalar = _pair(pair)
                    if lock is not None and 0 <= lock < len(locks) and _opens(scalar, locks[lock]):
                        scalars.setdefault(root, {})[lock] = scalar
        faces: dict[int, Card] = {}
        for handle in handles:
            root = roots.get(handle, handle if handle in self._locks else None)
            known = {**self._known.get(root, {}), **scalars.get(root, {})} if root is not None else {}
            if root is None or len(known) != len(self._locks[root]):
                raise NotOpened(f"handle {handle}")
            try:
                point = multiply(invert(scalar_product(known.values())), self.points[root])
            except InvalidPoint:
                raise NotOpened(f"handle {handle}") from None
            face = self._faces_by_point.get(point)
            if face is None:
                raise NotOpened(f"handle {handle}")
            faces[handle] = face
        return faces

    def _root(self, handle: Any, chain: Any) -> int | None:
        """The shuffled handle ``chain`` (``[[parent, proof], ...]``) leads ``handle`` back to,
        if every link's proof holds."""
        if type(handle) is not int or handle not in self.points or not isinstance(chain, list):
            return None
        current = handle
        for link in chain:
            known = self._links.get(current)
            if known is None or self.game_id is None or not (isinstance(link, list) and len(link) == 2):
                return None
            parent, proof = link
            if type(parent) is not int or parent not in known.sources or parent not in self.points:
                return None
            try:
                verify_link(
                    pass_context(self.game_id, current, "link", parent),
                    self.points[parent],
                    self.points[current],
                    known.key,
                    proof,
                )
            except InvalidProof:
                return None
            current = parent
        return current if current in self._locks else None


def _items(message: Mapping[str, Any]) -> list[tuple[Any, Any, Any]]:
    handles, scalars, chains = message.get("handles"), message.get("scalars"), message.get("chains")
    if not (
        isinstance(handles, list)
        and isinstance(scalars, list)
        and isinstance(chains, list)
        and len(handles) == len(scalars) == len(chains)
    ):
        return []
    return [(h, s, c) for h, s, c in zip(handles, scalars, chains) if isinstance(s, list)]


def _pair(pair: Any) -> tuple[int | None, Any]:
    if isinstance(pair, list) and len(pair) == 2 and type(pair[0]) is int:
        return pair[0], pair[1]
    return None, None


def _opens(scalar: Any, key: bytes) -> bool:
    try:
        return public_key(check_scalar(scalar)) == key
    except InvalidScalar:
        return False

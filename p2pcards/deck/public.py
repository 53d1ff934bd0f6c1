"""What anyone can learn of the deck from its public messages alone, with no seed.

The shuffle and re-lock passes give every shuffled handle its point and its per-card public
keys; a re-handling gives each moved card a new handle, its point and the transfer's public key
(protocol/deck.md sections 4 and 5). A shuffled card opened to everyone (a reveal) has every
scalar behind its locks published: with those, anyone decodes its face; a re-handled one is
shown by its holder's proof of its face (deck protocol 3: never its scalar). ``p2pcards verify`` uses this to replay
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
from .faceproofs import verify_face
from .group import InvalidPoint, InvalidScalar, check_scalar, digest, invert, multiply, scalar_product
from .proofs import InvalidProof, public_key


class NotOpened(Exception):
    """The public messages do not show the faces asked for."""


@dataclass(frozen=True)
class _Link:
    """A re-handled handle: its transfer's public key, the handles that transfer moved, and its
    holder (the transfer's receiver: a re-handled handle never changes hands, it is renamed)."""

    key: bytes
    sources: tuple[int, ...]
    holder: int | None = None


def face_context(game_id: bytes, op: int, handle: int, seat: int) -> bytes:
    """What the proof of a re-handled card's face in a public reveal is bound to: the game, the
    reveal's operation, the handle and its holder (deck protocol 3)."""
    return digest("face", game_id, op, handle, seat)


class PublicCards:
    """Every handle's public point and keys, and the faces of cards opened to everyone."""

    def __init__(self, game_id: bytes | None, table: Sequence[bytes], cards: Sequence[Card]):
        self.game_id = game_id
        self._table = list(table)
        self._cards = list(cards)
        self._faces_by_point = {point: card for point, card in zip(table, cards, strict=True)}
        self.points: dict[int, bytes] = {}  # every handle ever made, moved ones too
        self._locks: dict[int, list[bytes]] = {}  # shuffled handle -> seat i's public key at i
        self._links: dict[int, _Link] = {}  # re-handled handle -> its link
        self._known: dict[int, dict[int, bytes]] = {}  # shuffled handle -> lock -> public scalar
        self.checked: set[bytes] = set()  # the re-handlings checked with the passes (check_rehandle)
        # ... and those whose check has started, its verdict to be read before any other
        # (verify.passes.start_passes: the replay of the moves goes on meanwhile)
        self.started: set[bytes] = set()

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

    @property
    def table(self) -> list[bytes]:
        """The card table: each card's point, in the deck's order."""
        return self._table

    def locks(self, handle: int) -> list[bytes] | None:
        """A shuffled handle's locks: seat i's per-card public key at i (None: no such handle)."""
        return self._locks.get(handle)

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

    def rehandled(
        self, first: int, points: Sequence[bytes], key: bytes, sources: Sequence[int], holder: int | None = None
    ) -> None:
        """A re-handling's cards, handles ``first..``, each one of ``sources`` under ``key``,
        held by ``holder`` (the transfer's receiver)."""
        link = _Link(key, tuple(sources), holder)  # one for the transfer's k cards, not k copies
        for j, point in enumerate(points):
            self.points[first + j] = point
            self._links[first + j] = link

    def opened(self, handles: Sequence[int], openings: Sequence[Mapping[str, Any]]) -> dict[int, Card]:
        """The faces of ``handles`` from the public openings of their reveal; raise
        :class:`NotOpened` unless every lock of each shuffled handle is opened by a scalar its
        public key confirms, and each re-handled one is shown by a face proof of its holder's
        that holds (deck protocol 3)."""
        scalars: dict[int, dict[int, bytes]] = {}
        proven: dict[int, Card] = {}
        for message in openings:
            for handle, pairs, shown in _items(message):
                if handle in self._links:
                    face = self._proven_face(message.get("op"), handle, shown)
                    if face is not None:
                        proven[handle] = face
                    continue
                if handle not in self._locks:
                    continue
                locks = self._locks[handle]
                for pair in pairs:
                    lock, scalar = _pair(pair)
                    if lock is not None and 0 <= lock < len(locks) and _opens(scalar, locks[lock]):
                        scalars.setdefault(handle, {})[lock] = scalar
        faces: dict[int, Card] = {}
        for handle in handles:
            if handle in proven:
                faces[handle] = proven[handle]
                continue
            known = {**self._known.get(handle, {}), **scalars.get(handle, {})} if handle in self._locks else {}
            if handle not in self._locks or len(known) != len(self._locks[handle]):
                raise NotOpened(f"handle {handle}")
            try:
                point = multiply(invert(scalar_product(known.values())), self.points[handle])
            except InvalidPoint:
                raise NotOpened(f"handle {handle}") from None
            face = self._faces_by_point.get(point)
            if face is None:
                raise NotOpened(f"handle {handle}")
            faces[handle] = face
        return faces

    def table_points(self, sets: Sequence[Sequence[Card]]) -> list[list[bytes]] | None:
        """The card points of faces (a hidden claim's sets), or None if one is not in the deck."""
        index = {card: i for i, card in enumerate(self._cards)}
        if not all(card in index for each in sets for card in each):
            return None
        return [[self._table[index[card]] for card in each] for each in sets]

    def _proven_face(self, op: Any, handle: int, shown: Any) -> Card | None:
        """The face a re-handled card's holder proved in a public opening, if the proof holds."""
        link = self._links[handle]
        if self.game_id is None or link.holder is None or type(op) is not int or op < 0:
            return None
        if not (isinstance(shown, list) and len(shown) == 2 and type(shown[0]) is int):
            return None
        face, proof = shown
        if not 0 <= face < len(self._table):
            return None
        try:
            verify_face(
                face_context(self.game_id, op, handle, link.holder), self.points[handle], self._table[face], proof
            )
        except InvalidProof:
            return None
        return self._cards[face]


def _items(message: Mapping[str, Any]) -> list[tuple[Any, Any, Any]]:
    handles, scalars, faces = message.get("handles"), message.get("scalars"), message.get("faces")
    if not (
        isinstance(handles, list)
        and isinstance(scalars, list)
        and isinstance(faces, list)
        and len(handles) == len(scalars) == len(faces)
    ):
        return []
    return [(h, s, f) for h, s, f in zip(handles, scalars, faces) if type(h) is int and isinstance(s, list)]


def _pair(pair: Any) -> tuple[int | None, Any]:
    if isinstance(pair, list) and len(pair) == 2 and type(pair[0]) is int:
        return pair[0], pair[1]
    return None, None


def _opens(scalar: Any, key: bytes) -> bool:
    try:
        return public_key(check_scalar(scalar)) == key
    except InvalidScalar:
        return False

"""One player's side of the deck protocol, as a sans-IO state machine (protocol/deck.md).

A :class:`Party` holds one seat's seed and nothing else secret. It never does IO: the driver (the
in-process :mod:`p2pcards.deck.backend`, later the network layer) calls

* :meth:`Party.start` once, then :meth:`Party.begin` with each deck operation the public game
  state asks for, in the same order at every seat;
* :meth:`Party.receive` with every message addressed to this seat;
* :meth:`Party.timeout` when a step's deadline passes.

Each returns an :class:`Output`: messages to send (:class:`Send`, broadcast or to one seat; the
network encrypts the private ones and signs all of them) and events (:class:`OpDone`,
:class:`Blame`). Messages are plain dicts of bytes, ints, strs and lists (msgpack-safe).

Handles number the cards of shuffle epoch ``e`` as ``e*n .. e*n+n-1``, as the local dealer does.
A transfer renames the cards it moves: the new holder re-randomises them and publishes the new
points sorted, and every seat numbers them ``FIRST_REHANDLED, FIRST_REHANDLED+1, ...`` (one counter
for the game) in that order, each then multiplied by a factor of its own. Only the new holder
knows which old handle became which new one, and each card's cumulative scalar (``point = x *
card``): it opens the card to its next holder with ``x`` and to everyone with a proof of its
face, never ``x`` (deck protocol 3).
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from ..cards import Card
from . import judge
from .derive import (
    Secrets,
    card_table,
    coin_value,
    context_digest,
    game_id_of,
    nonce_commitment,
    nonce_of,
    seed_commitment,
)
from .evidence import accused_of, is_index, reuse_evidence, reuse_reason, step_of
from .faceproofs import prove_face, prove_in_one_set, verify_face, verify_in_one_set
from .group import (
    InvalidPoint,
    InvalidScalar,
    MultiplyMany,
    batch_invert,
    check_scalar,
    digest,
    invert,
    mul,
    multiply,
    parallel_multiply_many,
    scalar_product,
)
from .judge import PUBLIC_STEPS
from .passes import (
    PassError,
    check_pass,
    check_pass_shape,
    check_rehandle,
    make_rehandle,
    make_relock,
    make_shuffle,
    pass_order,
)
from .proofs import InvalidProof, public_key
from .public import face_context

#: The lock of a seat that dropped out before a shuffle (protocol/deck.md §4.6): the scalar 1,
#: public, whose public key is the base point. No opening carries it; every seat knows it.
ONE = (1).to_bytes(32, "little")
ONE_KEY = public_key(ONE)

__all__ = [
    "AuditOp",
    "OpeningReferee",
    "PublicReferee",
    "Blame",
    "CoinOp",
    "DealOp",
    "DropOp",
    "Op",
    "OpDone",
    "Output",
    "Party",
    "RevealOp",
    "Send",
    "ShuffleOp",
    "TransferOp",
]

#: The first handle of a re-handled card (the local dealer numbers transferred cards alike);
#: far above any shuffle epoch's ``e*n + j``.
FIRST_REHANDLED = 1 << 24
#: Every type of deck message (protocol/deck.md); a public one of another type is its signer's fault.
MESSAGE_TYPES = frozenset({"commit", "nonce", "accuse", "shuffle", "relock", "open", "rehandle", "drop"})

# -- operations: what the public game state asks of the deck --------------------------------------


@dataclass(frozen=True)
class ShuffleOp:
    """Shuffle every card afresh (a new epoch)."""


@dataclass(frozen=True)
class CoinOp:
    label: str
    bound: int


@dataclass(frozen=True)
class DealOp:
    to: Mapping[int, int]  # handle -> seat


@dataclass(frozen=True)
class RevealOp:
    handles: tuple[int, ...]
    owner: int | None = None  # informational; the deck's own record of holders decides


@dataclass(frozen=True)
class TransferOp:
    handles: tuple[int, ...]
    to: int


@dataclass(frozen=True)
class DropOp:
    """Seat ``seat`` drops out of the game (protocol/deck.md §4.6): it publishes its key of every
    card nobody holds, never of its own cards, which are set aside for good; later shuffles go
    on without it."""

    seat: int


@dataclass(frozen=True)
class AuditOp:
    """End of game, with no message (protocol/deck.md §7): check the private boxes counted so far
    against the operations begun, and return the faces the table saw (every card opened to all),
    which is all the game's audit reads. No seed is ever revealed (protocol version 12)."""


@dataclass(frozen=True)
class FinishedOp:
    """In ``Party.ops``, in place of a deal, a reveal or a coin of a finished hand (protocol/
    deck.md §6): nothing of it is needed any more. Never begun."""


Op = ShuffleOp | CoinOp | DealOp | RevealOp | TransferOp | DropOp | AuditOp | FinishedOp
_FINISHED_OP = FinishedOp()

# -- outputs ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Send:
    to: int | None  # None: every other seat
    message: dict[str, Any]


@dataclass(frozen=True)
class OpDone:
    """Operation ``index`` is complete at this seat. ``handles``: a shuffle's or a transfer's new
    handles; ``faces``: what this seat learnt (deal: its new cards; transfer: the moved cards under
    their old and new handles; reveal: the opened cards; audit: every card); ``value``: a coin."""

    index: int
    op: Op
    handles: tuple[int, ...] = ()
    faces: Mapping[int, Card] = field(default_factory=dict)
    value: int | None = None


@dataclass(frozen=True)
class Blame:
    """A verdict: ``seat`` deviated at ``step`` (of operation ``op``, if any)."""

    step: str
    seat: int
    reason: str
    op: int | None = None

    def __str__(self) -> str:
        where = f" in operation {self.op}" if self.op is not None else ""
        return f"seat {self.seat} blamed at step {self.step!r}{where}: {self.reason}"


@dataclass
class Output:
    sends: list[Send] = field(default_factory=list)
    events: list[OpDone | Blame] = field(default_factory=list)

    def extend(self, other: Output) -> None:
        self.sends += other.sends
        self.events += other.events


#: An accusation as it waits to be judged: (accuser, message, the accused public message as
#: this seat held it when it arrived, the operation of a later shuffle pass of its accuser's).
_Accusation = tuple[int, dict[str, Any], dict[str, Any] | None, int | None]


class _Deviation(Exception):
    """Raised inside the checks; turned into a Blame (and an accusation when others can't see)."""

    def __init__(
        self, step: str, seat: int, reason: str, *, accuse: bool = False, evidence: Any = None, op: int | None = None
    ):
        super().__init__(reason)
        self.step, self.seat, self.reason = step, seat, reason
        # accuse: the other seats cannot see this fault themselves (a private message, or a point
        # only this seat multiplies), so publish an accusation they can check.
        self.accuse, self.evidence = accuse, evidence
        self.op = op  # the operation whose message is at fault, when not the current one


@dataclass(slots=True)  # one per card and hand: no __dict__ each (issue 23)
class _Link:
    """How a re-handled card came to be: ``point = z * y * point of parent`` for the transfer's
    one scalar ``y`` behind ``key`` and the card's own factor ``z``, ``parent`` one of
    ``sources`` (the handles its transfer moved). Public: author, key, sources; the parent is
    known to the transfer's receiver alone (deck protocol 3: nobody else ever learns which old
    handle became which new one, nor ``y`` or ``z``)."""

    author: int
    key: bytes  # y * B
    sources: tuple[int, ...]
    op: int  # the transfer that made it
    parent: int | None = None  # known to the receiver only


@dataclass(slots=True)  # one per card and hand: no __dict__ each (issue 23)
class _Card:
    """This seat's view of one handle."""

    point: bytes
    locks: list[bytes]  # a shuffled handle: seat i's per-card public key at i; re-handled: []
    authors: list[int]
    scalars: dict[int, bytes]  # lock index -> scalar, those this seat knows
    holder: int | None = None
    public: bool = False
    root: int | None = None  # a shuffled handle: itself
    link: _Link | None = None  # re-handled cards only
    #: A re-handled card held or opened here: ``point = x * card point`` (its cumulative
    #: scalar, deck protocol 3) and the card's index in the deck.
    x: bytes | None = None
    face: int | None = None
    retired: bool = False  # transferred: renamed, never used again


class _KeyPrefixes:
    """The per-card public keys of every finished hand, as sorted 96-bit prefixes (12 bytes a
    key instead of a set entry of ~100): a key published again in a later hand is found by
    its prefix. Two distinct keys share one with probability 2^-96 a pair; a seat that grinds
    for one names itself (the author of the later pass is blamed)."""

    __slots__ = ("hi", "lo")

    def __init__(self) -> None:
        self.hi = array("Q")
        self.lo = array("I")

    @staticmethod
    def split(key: bytes) -> tuple[int, int]:
        return int.from_bytes(key[:8], "big"), int.from_bytes(key[8:12], "big")

    def add(self, keys: Sequence[bytes]) -> None:
        # Each key inserted where its high word sorts (a move of the arrays' tail, in C): the
        # whole was sorted again at every hand, a long match's time quadratic in its length.
        # Keys of one high word need no order among themselves (__contains__ looks at them all).
        for hi, lo in map(self.split, keys):
            i = bisect_right(self.hi, hi)
            self.hi.insert(i, hi)
            self.lo.insert(i, lo)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, bytes):
            return False
        hi, lo = self.split(key)
        i = bisect_left(self.hi, hi)
        while i < len(self.hi) and self.hi[i] == hi:
            if self.lo[i] == lo:
                return True
            i += 1
        return False


def public_key_reuse(
    seat: int, base: int, keys: Sequence[bytes], seen: dict[bytes, tuple[int, int]], old: Container[bytes]
) -> str | None:
    """The check every seat makes on a re-lock pass's per-card public keys as it arrives (one
    rule for the table and ``p2pcards verify``): a per-card key is never used twice in a game,
    so one published again (a key its author saw opened, say an honest seat's from an earlier
    hand, or its own twice) names the author of the later pass, at that pass, before any card
    under it is opened. ``seen``: this hand's keys so far, key -> (author, handle), taken in
    here if none is reused; ``old``: the finished hands' keys. The reason, or ``None``."""
    fresh: dict[bytes, tuple[int, int]] = {}
    for j, key in enumerate(keys):
        first = seen.get(key) or fresh.get(key)
        if first is not None:
            return f"position {j} reuses the per-card key of seat {first[0]} at handle {first[1]}"
        if key in old:  # (at a seat: the finished hands' keys, by their 96-bit prefixes)
            return f"position {j} reuses a per-card key of a finished hand"
        fresh[key] = (seat, base + j)
    seen.update(fresh)
    return None


def _is_bytes(value: object, size: int) -> TypeGuard[bytes]:
    return isinstance(value, bytes) and len(value) == size


def _is_int(value: object) -> TypeGuard[int]:
    """An integer and nothing that compares equal to one: msgpack brings floats (3.0 == 3)
    and a peer could send True for 1."""
    return type(value) is int


def _ints(values: object) -> bool:
    return isinstance(values, list) and all(_is_int(v) for v in values)


def claim_context(game_id: bytes, index: int, seat: int, handles: Sequence[int]) -> bytes:
    """What a hidden claim's proof is bound to (deck protocol 3): the game, the move's index,
    the claiming seat and the handles in the order claimed."""
    return digest("claim", game_id, index, seat, len(handles), *handles)


def claim_refusal(
    game_id: bytes,
    index: int,
    seat: int,
    handles: Sequence[int],
    points: Sequence[bytes],
    sets: Sequence[Sequence[bytes]],
    proof: Any,
) -> str | None:
    """Why a hidden claim's proof does not stand (its cards' ``points``, the sets' card points),
    or None: the check every seat and ``p2pcards verify`` make, once the claim names cards the
    seat holds."""
    try:
        verify_in_one_set(claim_context(game_id, index, seat, handles), points, sets, proof)
    except InvalidProof:
        return "the claim's proof does not hold: the cards are not shown to lie in one of the claimed sets"
    return None


def _complete(values: Sequence[bytes | None]) -> list[bytes]:
    """Every seat's value, once all of them are in."""
    known = [v for v in values if v is not None]
    assert len(known) == len(values), "every seat's value is in"
    return known


# ---------------------------------------------------------------------------------------------------


class OpeningReferee:
    """The checks of a card opening and of a reused key's evidence on the public record of the
    deck (protocol/deck.md sections 4.2 and 6): the one referee of both. A :class:`Party` is
    one (the receiver's check as an opening arrives, and every seat's judgement of an
    accusation); ``p2pcards verify`` builds one from a transcript's public messages
    (:mod:`p2pcards.verify.seedless`), so it judges an accusation with the same code as the
    table, without any seed. What it reads: the public record of every handle
    (:attr:`cards_by_handle`: point, public keys of its locks, their authors, a re-handled
    card's link), the openings each operation calls for (:attr:`_expected_openings`), the
    scalars seen so far (the reuse check), the hands' first operations and handles."""

    players: int
    n: int
    game_id: bytes | None
    table: tuple[bytes, ...]
    _table_index: dict[bytes, int]
    cards_by_handle: dict[int, _Card]
    _expected_openings: dict[int, dict[tuple[int, int | None], list[tuple[int, list[int]]]]]
    _seen_scalars: dict[bytes, tuple[int, int, int]]
    _shuffle_ops: list[int]
    _hand_handles: list[int]

    def judge_opening(self, accuser: int, accused: int, op: int, sender: Any, message: Any) -> judge.Verdict:
        """An accusation about a private opening of operation ``op`` (reached): ``message`` is
        ``sender``'s signed box to ``accuser``, opened with the revealed message key. The
        receiver's check is run again on it: the accused is named if it fails, the accuser if
        it holds (a false accusation) or if the evidence is not such a box."""
        try:
            if not is_index(sender, self.players) or (sender, accuser) not in self._expected_openings[op]:
                raise ValueError("no such private message was due")
            self._check_opening(op, sender, accuser, message, learn=False)
        except _Deviation as d:
            if d.seat == accused:
                return judge.Verdict(d.step, d.seat, d.reason, op)
            return judge.Verdict("accuse", accuser, f"accusation names seat {accused}, the evidence seat {d.seat}")
        except (ValueError, KeyError, TypeError, AttributeError):
            return judge.without_evidence(accuser)
        return judge.Verdict("accuse", accuser, f"false accusation against seat {accused} (open)")

    def judge_reuse(self, accuser: int, accused: int, op: int, evidence: Any) -> judge.Verdict:
        """An accusation of a reused key in operation ``op`` (reached): the accused is named if
        the evidence proves it (in our words, never the accuser's), else the accuser."""
        proven = self._proves_reuse(accused, evidence, op)
        if proven is not None:
            return judge.Verdict("open", accused, reuse_reason(*proven), op)
        return judge.Verdict("accuse", accuser, f"false accusation of a reused key against seat {accused}")

    @property
    def _game_id(self) -> bytes:
        assert self.game_id is not None, "every nonce is in"
        return self.game_id

    def _hand_of_op(self, op: int) -> int:
        """The hand (shuffle epoch) operation ``op`` belongs to: that of the last shuffle at or
        before it (-1: before the first)."""
        return bisect_right(self._shuffle_ops, op) - 1

    def _hand_of_handle(self, handle: int) -> int:
        """The hand a handle was made in: its shuffle's epoch, or for a re-handled handle the
        hand of the transfer that made it (-1: none)."""
        if handle < FIRST_REHANDLED:
            return handle // self.n if handle >= 0 else -1
        return bisect_right(self._hand_handles, handle) - 1

    def _opens_lock(self, handle: int, lock: int, scalar: bytes) -> bool:
        """``scalar`` is the one behind lock ``lock`` of ``handle`` (its public key matches)."""
        return public_key(scalar) == self._lock(handle, lock)[1]

    def _face_context(self, op: int, handle: int, seat: int) -> bytes:
        """What a face proof of a public reveal is bound to: the game, the reveal, the handle
        and its holder (deck protocol 3)."""
        return face_context(self._game_id, op, handle, seat)

    def _lock(self, handle: int, lock: int) -> tuple[int, bytes]:
        """(author, commitment) of lock ``lock`` of ``handle``: a per-card key (lock < N) of a
        shuffled handle, or the re-handling scalar (lock N) of a re-handled one."""
        card = self.cards_by_handle[handle]
        if card.link is not None:
            if lock != self.players:
                raise IndexError(lock)
            return card.link.author, card.link.key
        return card.authors[lock], card.locks[lock]

    def _note_scalar(
        self, scalar: bytes, where: tuple[int, int, int], fresh: dict[bytes, tuple[int, int, int]]
    ) -> None:
        previous = self._seen_scalars.get(scalar) or fresh.get(scalar)
        if previous is not None and previous != where:
            # Both commitments are public, so the proof is the scalar and the two places.
            raise _Deviation(
                "open",
                previous[0],
                f"reused key (handles {previous[1]} and {where[1]})",
                accuse=True,
                evidence={"scalar": scalar, "author": previous[0], "places": [list(previous[1:]), list(where[1:])]},
            )
        fresh[scalar] = where

    def _check_opening(
        self, index: int, sender: int, receiver: int | None, message: dict[str, Any], *, learn: bool = True
    ) -> None:
        """Check an opening against the public record and the commitments; learn its scalars.
        A re-handled card's cumulative scalar must open its point to a card of the table, its
        face proof (a reveal to all) must hold (deck protocol 3)."""
        items = self._expected_openings[index][(sender, receiver)]
        handles, scalars, faces = message.get("handles"), message.get("scalars"), message.get("faces")
        if (
            not _ints(handles)
            or handles != [h for h, _ in items]
            or not isinstance(scalars, list)
            or len(scalars) != len(items)
            or not isinstance(faces, list)
            or len(faces) != len(items)
        ):
            raise _Deviation("open", sender, "opening for other cards than the operation requires")
        fresh: dict[bytes, tuple[int, int, int]] = {}
        opened: dict[int, tuple[bytes | None, int]] = {}  # re-handled handle -> (x, card index)
        for (handle, locks), pairs, shown in zip(items, scalars, faces):
            card = self.cards_by_handle[handle]
            if card.link is not None:
                opened[handle] = self._check_rehandled_opening(index, sender, receiver, handle, pairs, shown)
                continue
            if shown is not None:
                raise _Deviation("open", sender, f"handle {handle}: a face proof for a shuffled handle")
            if (
                not isinstance(pairs, list)
                or not _ints([p[0] if isinstance(p, list) and len(p) == 2 else None for p in pairs])
                or [p[0] for p in pairs] != locks
            ):
                raise _Deviation("open", sender, f"handle {handle}: other locks than required")
            for lock, scalar in pairs:
                try:
                    check_scalar(scalar)
                except InvalidScalar as exc:
                    raise _Deviation("open", sender, f"handle {handle} lock {lock}: {exc}") from None
                author = card.authors[lock]
                if not self._opens_lock(handle, lock, scalar):
                    raise _Deviation(
                        "open", sender, f"handle {handle}: key {lock} is not the one behind its public key"
                    )
                self._note_scalar(scalar, (author, handle, lock), fresh)
        if learn:
            self._seen_scalars.update(fresh)
            for (handle, _), pairs in zip(items, scalars):
                card = self.cards_by_handle[handle]
                if card.link is None:
                    card.scalars.update({lock: scalar for lock, scalar in pairs})
                else:
                    x, face = opened[handle]
                    card.face = face
                    if x is not None:
                        card.x = x

    def _check_rehandled_opening(
        self, index: int, sender: int, receiver: int | None, handle: int, pairs: Any, shown: Any
    ) -> tuple[bytes | None, int]:
        """A re-handled card opened by its holder: to one receiver its cumulative scalar, which
        must take its point to a card of the table; to all a proof of its face. Returns the
        scalar (None for a proof) and the card's index."""
        card = self.cards_by_handle[handle]
        if receiver is None:
            if pairs != [] or not (isinstance(shown, list) and len(shown) == 2 and _is_int(shown[0])):
                raise _Deviation("open", sender, f"handle {handle}: a card shown to all needs its face and proof")
            face, proof = shown
            if not 0 <= face < self.n:
                raise _Deviation("open", sender, f"handle {handle}: no such card")
            try:
                verify_face(self._face_context(index, handle, sender), card.point, self.table[face], proof)
            except InvalidProof:
                raise _Deviation("open", sender, f"handle {handle}: its face proof fails") from None
            return None, face
        if shown is not None or not (
            isinstance(pairs, list) and len(pairs) == 1 and isinstance(pairs[0], list) and len(pairs[0]) == 2
        ):
            raise _Deviation("open", sender, f"handle {handle}: other locks than required")
        lock, x = pairs[0]
        if not (_is_int(lock) and lock == self.players):
            raise _Deviation("open", sender, f"handle {handle}: other locks than required")
        try:
            check_scalar(x)
            point = multiply(invert(x), card.point)
        except InvalidScalar as exc:
            raise _Deviation("open", sender, f"handle {handle} lock {lock}: {exc}") from None
        face_index = self._table_index.get(point)
        if face_index is None:
            raise _Deviation("open", sender, f"handle {handle}: its scalar does not open it to a card")
        return x, face_index

    def _proves_reuse(self, author: int, evidence: Any, op: int) -> tuple[int, int] | None:
        """The two handles at which the evidence proves ``author`` used one key twice: two
        distinct locks of its, in the accused operation's hand, both opened by the scalar.
        ``None``: it proves nothing (the accuser is named)."""
        checked = reuse_evidence(evidence, author, self.players)
        if checked is None:
            return None
        scalar, places = checked
        locks = set()
        try:
            check_scalar(scalar)
            for handle, lock in places:
                # Both places in the hand of the accused operation: an honest seat's evidence
                # always is (a key of an earlier hand is caught where it is published again),
                # and a finished hand's records are not kept (protocol/deck.md §6).
                if self._hand_of_handle(handle) != self._hand_of_op(op) or handle not in self.cards_by_handle:
                    return None
                if self._lock(handle, lock)[0] != author or not self._opens_lock(handle, lock, scalar):
                    return None
                locks.add(self._lock_id(handle, lock))
        except (KeyError, IndexError, InvalidScalar):
            return None
        if len(locks) != 2:
            return None  # one lock named twice: nothing was used twice
        return places[0][0], places[1][0]

    def _check_drop(self, seat: int, handles: list[int], message: dict[str, Any]) -> None:
        """Every seat checks the keys a dropping seat publishes, as they arrive: exactly the
        cards nobody holds, each key the one behind that seat's lock. Else its author is named."""
        if set(message) != {"type", "op", "handles", "scalars"}:
            raise _Deviation("drop", seat, "malformed drop-out message")
        got, scalars = message["handles"], message["scalars"]
        if not _ints(got) or got != handles:
            raise _Deviation("drop", seat, "keys for other cards than the ones nobody holds")
        if not isinstance(scalars, list) or len(scalars) != len(handles):
            raise _Deviation("drop", seat, "not one key per card nobody holds")
        fresh: dict[bytes, tuple[int, int, int]] = {}
        for handle, scalar in zip(handles, scalars):
            try:
                check_scalar(scalar)
            except InvalidScalar as exc:
                raise _Deviation("drop", seat, f"handle {handle}: {exc}") from None
            if not self._opens_lock(handle, seat, scalar):
                raise _Deviation("drop", seat, f"handle {handle}: its key is not the one behind its public key")
            self._note_scalar(scalar, (seat, handle, seat), fresh)
        self._seen_scalars.update(fresh)

    def _lock_id(self, handle: int, lock: int) -> tuple[int, int]:
        """Which lock ``lock`` of ``handle`` is: a shuffled handle's own (its handle and
        index), or a re-handled card's, which is its transfer's one scalar for every card that
        transfer moved (the transfer's operation, and N)."""
        link = self.cards_by_handle[handle].link
        return (handle, lock) if link is None else (-1 - link.op, self.players)


class PublicReferee(OpeningReferee):
    """An :class:`OpeningReferee` on the public record alone, with no seat and no seed:
    ``p2pcards verify`` tells it each hand, re-handling and operation's openings as it replays
    the deck operations in the table's order (:mod:`p2pcards.verify.seedless`), and asks it the
    judgement every seat made (:meth:`judge_opening`, :meth:`judge_reuse`, :meth:`public_opening`).
    The scalars it has seen are those of the public openings (every seat saw them)."""

    def __init__(self, players: int, n: int, game_id: bytes, table: Sequence[bytes]):
        self.players, self.n, self.game_id = players, n, game_id
        self.table = tuple(table)
        self._table_index = {p: i for i, p in enumerate(self.table)}
        self.cards_by_handle = {}
        self._expected_openings = {}
        self._seen_scalars = {}
        self._shuffle_ops = []
        self._hand_handles = []

    def shuffled(
        self, op: int, next_rehandled: int, base: int, points: Sequence[bytes], locks: Sequence[Sequence[bytes]]
    ) -> None:
        """Shuffle ``op`` made handles ``base ..`` with these final points and, per handle, every
        seat's lock (its per-card public key; a seat gone before it: the public scalar 1's).
        ``next_rehandled``: the first handle a re-handling of this hand gets."""
        self._shuffle_ops.append(op)
        self._hand_handles.append(next_rehandled)
        self._seen_scalars = {}  # (a finished hand's are not kept: Party._finish_hand)
        for j, point in enumerate(points):
            self.cards_by_handle[base + j] = _Card(point, list(locks[j]), list(range(self.players)), {}, root=base + j)

    def rehandled(
        self, op: int, author: int, key: bytes, sources: Sequence[int], first: int, points: Sequence[bytes]
    ) -> None:
        """Transfer ``op``'s re-handling by its receiver ``author``: new handles ``first ..``."""
        moved = tuple(sources)  # one tuple for the transfer's k cards, not k copies (issue 31)
        for j, point in enumerate(points):
            link = _Link(author, key, moved, op)
            self.cards_by_handle[first + j] = _Card(point, [], [], {}, holder=author, link=link)

    def openings(self, op: int, expected: dict[tuple[int, int | None], list[tuple[int, list[int]]]]) -> None:
        """The openings operation ``op`` calls for: (sender, receiver) -> (handle, locks)."""
        self._expected_openings[op] = expected

    def opens_cards(self, op: int) -> bool:
        """Operation ``op`` called for openings (a deal, a reveal, a transfer)."""
        return op in self._expected_openings

    def expected(self, op: int) -> dict[tuple[int, int | None], list[tuple[int, list[int]]]]:
        """The openings operation ``op`` calls for (none: an operation that opens no cards)."""
        return self._expected_openings.get(op, {})

    def knows(self, op: int, sender: Any, receiver: int | None) -> bool:
        """The public record of every card ``sender``'s opening of ``op`` to ``receiver`` is
        of, if it is one the operation calls for, is known here (else nothing is judged)."""
        items = self._expected_openings.get(op, {}).get((sender, receiver)) if is_index(sender, self.players) else []
        return all(handle in self.cards_by_handle for handle, _ in items or [])

    def public_drop(self, op: int, seat: int, handles: list[int], message: Any) -> judge.Verdict | None:
        """``seat``'s drop-out message of operation ``op`` checked as every seat checks it as
        it arrives (:meth:`_check_drop`: the keys of exactly ``handles``, the cards nobody
        holds, each behind its lock): the seat named, or ``None`` if it holds."""
        try:
            self._check_drop(seat, handles, message)
        except _Deviation as d:
            return judge.Verdict(d.step, d.seat, d.reason, op)
        return None

    def public_opening(self, op: int, sender: int, message: Any) -> judge.Verdict | None:
        """``sender``'s public opening of operation ``op`` checked as every seat checks it as it
        arrives (a face proof of a re-handled card, the scalars of a shuffled one): the seat
        the check names, or ``None`` if it holds (its scalars are then seen)."""
        try:
            self._check_opening(op, sender, None, message)
        except _Deviation as d:
            return judge.Verdict(d.step, d.seat, d.reason, op)
        return None


class Party(OpeningReferee):
    """One seat of the deck protocol.

    ``header`` is the lobby's agreed header (bytes); ``cards`` the deck in the agreed order;
    ``seed`` 32 secret bytes (from :mod:`secrets` in real play). ``multiply_many`` (default: split
    over this machine's cores, :func:`~p2pcards.deck.group.parallel_multiply_many`) may be another
    implementation. The seed is never revealed (protocol version 12): every pass is proven as
    it arrives, and nothing recomputes the deck from the seeds at the end.
    """

    def __init__(
        self,
        seat: int,
        players: int,
        header: bytes,
        cards: Sequence[Card],
        seed: bytes,
        *,
        multiply_many: MultiplyMany = parallel_multiply_many,
        send_first: bool = False,
    ):
        if players < 2 or not 0 <= seat < players:
            raise ValueError("need 2 or more players and a seat among them")
        self.seat = seat
        self.players = players
        self.cards = list(cards)
        self.labels = tuple(c.label() for c in self.cards)
        if len(set(self.labels)) != len(self.labels):
            raise ValueError("the deck holds the same physical card twice")
        self.n = len(self.cards)
        self._card_index = {c: i for i, c in enumerate(self.cards)}
        self.context = context_digest(header, players, self.labels)
        self._seed = seed
        self._multiply_many = multiply_many
        # The driver sends each output before it calls proceed(): heavy work (decoding cards)
        # then waits until our messages have gone out, so that no seat waits for them while we
        # work (a seat that had every other opening of the deal decoded its hand before it sent
        # its own).
        self.send_first = send_first
        self._deferred = False
        self.nonce = nonce_of(seed, self.context)
        self.seed_commits: list[bytes | None] = [None] * players
        self.nonce_commits: list[bytes | None] = [None] * players
        self.nonces: list[bytes | None] = [None] * players
        self._early_nonces: dict[int, dict[str, Any]] = {}  # seat -> nonce that came early
        self.game_id: bytes | None = None
        self.secrets: Secrets | None = None
        # Known from the lobby alone: derived as the table starts, before our commitment, not
        # after the last nonce, when every seat would be at it at once and seat 0 waits for it.
        self.table: tuple[bytes, ...] = card_table(self.context, self.labels)
        self._table_index: dict[bytes, int] = {p: i for i, p in enumerate(self.table)}
        self.ops: list[Op] = []  # every op begun, in order; index = op number
        self.current = 0  # the op in progress (== len(ops) when idle)
        self._state: dict[str, Any] = {}  # per-op progress
        self.epochs = 0
        self.cards_by_handle: dict[int, _Card] = {}
        self.known: dict[int, Card] = {}
        self._prepared_keys: dict[int, list[bytes]] = {}  # epoch -> our per-card public keys
        self._shuffle_ops: list[int] = []  # epoch -> the operation that shuffled it
        self._root_faces: dict[int, int] = {}  # shuffled handle -> card index, once decoded
        self._next_handle = FIRST_REHANDLED
        self.rehandled: dict[int, Sequence[int]] = {}  # transfer op -> its new handles (sorted points)
        self._inbox: dict[tuple[int, str, int], dict[str, Any]] = {}
        self._seen_scalars: dict[bytes, tuple[int, int, int]] = {}  # scalar -> author, handle, lock
        self._public_keys: dict[bytes, tuple[int, int]] = {}  # per-card public key -> author, handle
        # Accusations not judged yet, in arrival order: (accuser, message, the accused public
        # message as this seat held it when the accusation arrived). One this seat cannot
        # judge yet is kept aside and never holds up the ones behind it (protocol/deck.md §6).
        # The fourth item: the operation of a later shuffle's pass the accuser had sent before
        # it (an accusation about a finished hand, refused; protocol/deck.md §6).
        self._accusations: list[_Accusation] = []
        # The ones kept aside, by the operation they are about, each with its place in the
        # arrival order; and those operations as a heap. An accusation is judged once as it
        # arrives and then only once its operation is reached: a seat that signs thousands
        # about an operation far ahead costs each of them once, not once per message after it
        # (issue 28: the rescan made them quadratic, 7 s of CPU for 2,000 of them).
        self._kept: dict[int, list[tuple[int, _Accusation]]] = {}
        self._kept_ops: list[int] = []
        self._arrived = 0  # accusations received, to keep their order
        self._audit_at: int | None = None  # the index of the first AuditOp in ``ops``
        self._audit_swept = False  # the ones kept aside about it or past it taken out
        # The messages of the hands not finished yet: op -> {(kind, seat): message} (an
        # accusation is judged against the accused message; a finished hand's are dropped).
        self.transcript: dict[int, dict[tuple[str, int], dict[str, Any]]] = {}
        # Per seat: the latest operation of a shuffle or re-lock pass received from it (-1: none).
        self._shuffled_at = [-1] * players
        self._hand_handles: list[int] = []  # epoch -> the re-handled counter as its shuffle began
        self._finished = 0  # hands 0 .. _finished - 1 are finished (their key prefixes kept)
        self._old_keys = _KeyPrefixes()  # the per-card public keys of the finished hands
        self._expected_openings: dict[int, dict[tuple[int, int | None], list[tuple[int, list[int]]]]] = {}
        #: Seats that dropped out (protocol/deck.md §4.6) -> the number of shuffles begun before
        #: their drop: they take no part in a later one, and never reveal their seed.
        self.dropped: dict[int, int] = {}
        #: The cards they held as they dropped: set aside, never opened (no operation may name one).
        self.set_aside: set[int] = set()
        #: Every face opened to all: the audit returns them for the hands it cannot derive
        #: without the seed of a seat that dropped out (protocol/deck.md §4.6, §7).
        self.public_faces: dict[int, Card] = {}
        # (sender, receiver) -> private boxes received in the sender's signed entries (every
        # seat's, opened here or not: judge.PrivateBoxes), and the private openings the
        # operations begun call for: at the audit, a box beyond them is one the protocol never
        # called for (deck.md section 7).
        self._boxes: dict[tuple[int, int], int] = {}
        self._boxes_due: dict[tuple[int, int], int] = {}
        # Seats whose chain has ended (the driver reported their signed ``result`` or ``stop``:
        # judge.ChainEnded): every private box of theirs came before it (boxes_missing).
        self.ended: set[int] = set()
        self.blame: Blame | None = None
        self._started = False
        self._out = Output()

    # -- driver API --------------------------------------------------------------------------

    def start(self) -> Output:
        """Commit to the seed and the nonce."""
        if self._started:
            raise RuntimeError("already started")
        self._started = True
        message = {
            "type": "commit",
            "seed": seed_commitment(self.context, self.seat, self._seed),
            "nonce": nonce_commitment(self.context, self.seat, self.nonce),
        }
        self._broadcast(message)
        self._on_commit(self.seat, message)
        return self._flush()

    def begin(self, op: Op) -> Output:
        """Queue the next operation the public game state requires (same order at every seat)."""
        if isinstance(op, AuditOp) and self._audit_at is None:
            self._audit_at = len(self.ops)
        self.ops.append(op)
        self._advance()
        return self._flush()

    def receive(self, sender: int, message: Any) -> Output:
        if self.blame is None:
            try:
                self._receive(sender, message)
                self._resolve_accusations()  # before the game id too: a false one is refused at once
            except _Deviation as d:
                self._fail_deviation(d)
            self._advance()
        return self._flush()

    def owed(self) -> list[tuple[int, str]]:
        """(seat, step) of every message this seat is waiting for now."""
        if self.blame is not None or not self._started:
            return []
        if None in self.seed_commits:
            return [(s, "commit") for s, c in enumerate(self.seed_commits) if c is None]
        if self.game_id is None:
            return [(s, "nonce") for s, c in enumerate(self.nonces) if c is None]
        waiting = self._state.get("waiting")
        return list(waiting()) if waiting else []

    def timeout(self) -> Blame | None:
        """The driver's step deadline passed: blame the first seat that owes a message."""
        owed = self.owed()
        if not owed:
            return None
        seat, step = owed[0]
        self._fail(step, seat, "no message before the step timeout")
        self._flush()
        return self.blame

    @property
    def done(self) -> bool:
        """True when every begun operation is complete."""
        return self.current == len(self.ops) and self.game_id is not None

    # -- plumbing ----------------------------------------------------------------------------

    def _flush(self) -> Output:
        out, self._out = self._out, Output()
        return out

    @property
    def deferred(self) -> bool:
        """With ``send_first``: work waits until the last output is sent; then call :meth:`proceed`."""
        return self._deferred

    def proceed(self) -> Output:
        """Go on with the work that waited for our last output to be sent (``send_first``)."""
        self._deferred = False
        self._advance()
        return self._flush()

    def _hold_for_send(self) -> bool:
        """True (and :attr:`deferred`) if heavy work should wait for our messages to go out."""
        if self.send_first and self._out.sends:
            self._deferred = True
        return self._deferred

    def _broadcast(self, message: dict[str, Any]) -> None:
        self._out.sends.append(Send(None, message))

    def _send(self, to: int, message: dict[str, Any]) -> None:
        self._out.sends.append(Send(to, message))

    def _fail(self, step: str, seat: int, reason: str, op: int | None = None) -> None:
        """Record the verdict. ``op``: the operation whose message is at fault, when it is not
        the one in progress (an accused pass, a pass the audit found off its seed)."""
        if self.blame is not None:
            return
        if op is None and self.game_id is not None and self.current < len(self.ops):
            op = self.current
        self.blame = Blame(step, seat, reason, op)
        self._out.events.append(self.blame)

    def _rule(self, verdict: judge.Verdict) -> None:
        """Record a verdict of the accusation rules (:mod:`.judge`)."""
        self._fail(verdict.step, verdict.seat, verdict.reason, verdict.op)

    def _fail_deviation(self, d: _Deviation) -> None:
        self._fail(d.step, d.seat, d.reason, d.op)
        if d.accuse:
            op = self.current if d.op is None else d.op
            self._broadcast(
                {"type": "accuse", "op": op, "step": d.step, "seat": d.seat, "reason": d.reason, "evidence": d.evidence}
            )

    def _receive(self, sender: int, message: Any) -> None:
        if not (isinstance(sender, int) and 0 <= sender < self.players) or sender == self.seat:
            raise ValueError(f"not a peer seat: {sender!r}")
        if isinstance(message, judge.ChainEnded):
            self.ended.add(sender)
            return
        if isinstance(message, judge.PrivateBoxes):
            for receiver in message.seats:
                self._boxes[(sender, receiver)] = self._boxes.get((sender, receiver), 0) + 1
            return
        if isinstance(message, judge.NotAnOpening):
            # A private payload that is no opening (the table layer opened its box): only this
            # seat sees it, so it shows the others the box with its key (deck.md section 6).
            raise _Deviation(
                "open",
                sender,
                "private deck message that is no opening of an operation",
                accuse=True,
                evidence={"sender": sender, "message": message.payload},
            )
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise _Deviation("message", sender, "malformed message")
        kind = message["type"]
        if kind == "commit":
            self._on_commit(sender, message)
        elif kind == "nonce":
            self._on_nonce(sender, message)
        elif kind == "accuse":
            # Whether its accuser had already sent a pass of a later shuffle (so had finished the
            # hand it accuses about) depends only on what came before it in the accuser's
            # chain, which every seat receives in the same order: the same at every seat.
            op, later = message.get("op"), self._shuffled_at[sender]
            stale = later if _is_int(op) and op < later else None
            copy = self._accused_copy(message) if stale is None else None
            self._accusations.append((sender, message, copy, stale))
            self._arrived += 1
        elif kind in ("shuffle", "relock", "open", "rehandle", "drop"):
            op = message.get("op")
            if not _is_int(op) or op < self.current:
                raise _Deviation(kind, sender, "message for no operation in progress")
            key = (op, kind, sender)
            if key in self._inbox or (kind, sender) in self.transcript.get(op, {}):
                raise _Deviation(kind, sender, "sent the same message twice")
            self._inbox[key] = message
            if kind in ("shuffle", "relock"):
                self._shuffled_at[sender] = max(self._shuffled_at[sender], op)
        else:
            raise _Deviation("message", sender, f"unknown message type {kind!r}")

    # -- commit, nonce, game id ---------------------------------------------------------------

    def _on_commit(self, sender: int, message: dict[str, Any]) -> None:
        if self.seed_commits[sender] is not None:
            raise _Deviation("commit", sender, "committed twice")
        if not (_is_bytes(message.get("seed"), 32) and _is_bytes(message.get("nonce"), 32)):
            raise _Deviation("commit", sender, "malformed commitment")
        self.seed_commits[sender] = message["seed"]
        self.nonce_commits[sender] = message["nonce"]
        if None not in self.seed_commits:
            message = {"type": "nonce", "nonce": self.nonce}
            self._broadcast(message)
            self._on_nonce(self.seat, message)
            early, self._early_nonces = self._early_nonces, {}
            for seat, held in sorted(early.items()):
                self._on_nonce(seat, held)

    def _on_nonce(self, sender: int, message: dict[str, Any]) -> None:
        if self.nonces[sender] is not None or sender in self._early_nonces:
            raise _Deviation("nonce", sender, "revealed twice")
        if None in self.seed_commits:
            # Its sender had every commitment; ours may still be on the way (messages from
            # different seats race each other). Keep it until they are all here.
            if self.seed_commits[sender] is None:
                raise _Deviation("nonce", sender, "nonce revealed before its own commitment")
            self._early_nonces[sender] = message
            return
        nonce = message.get("nonce")
        if not _is_bytes(nonce, 32) or nonce_commitment(self.context, sender, nonce) != self.nonce_commits[sender]:
            raise _Deviation("nonce", sender, "nonce does not open its commitment")
        self.nonces[sender] = nonce
        if None not in self.nonces:
            self.game_id = game_id_of(
                self.context, _complete(self.seed_commits), _complete(self.nonce_commits), _complete(self.nonces)
            )
            self.secrets = Secrets(self._seed, self.game_id)

    # -- derivations (methods so a test can make one seat cheat) ---------------------------------

    # Operations run only once every nonce is in: the game id and our secrets are known then.

    @property
    def _own_secrets(self) -> Secrets:
        assert self.secrets is not None, "every nonce is in"
        return self.secrets

    def _shuffle_key(self, epoch: int) -> bytes:
        return self._own_secrets.shuffle_key(epoch)

    def _card_key(self, handle: int) -> bytes:
        return self._own_secrets.card_key(handle)

    def _permutation(self, epoch: int) -> list[int]:
        return self._own_secrets.permutation(epoch, self.n)

    def _rehandle_key(self, op: int) -> bytes:
        return self._own_secrets.rehandle_key(op)

    # -- the op loop ---------------------------------------------------------------------------

    def _advance(self) -> None:
        while self.blame is None and self.game_id is not None:
            try:
                self._resolve_accusations()
                if self.blame is not None:
                    return
                if not self._state:
                    if self.current == len(self.ops):
                        return
                    self._start_op(self.ops[self.current])
                if not self._state["progress"]():
                    return
            except _Deviation as d:
                self._fail_deviation(d)
                return
            # the op is complete
            self._state = {}
            self.current += 1

    def _start_op(self, op: Op) -> None:
        index = self.current
        self.transcript.setdefault(index, {})
        if isinstance(op, ShuffleOp):
            self._start_shuffle(index)
        elif isinstance(op, CoinOp):
            value = coin_value(self._game_id, op.label, op.bound)
            self._state = {"progress": lambda: self._done(OpDone(index, op, value=value))}
        elif isinstance(op, DealOp):
            by_receiver: dict[int | None, list[int]] = {}
            for handle, seat in sorted(op.to.items()):
                by_receiver.setdefault(seat, []).append(handle)
            self._start_openings(index, op, by_receiver, rehandle=False)
        elif isinstance(op, RevealOp):
            self._start_openings(index, op, {None: sorted(set(op.handles))}, rehandle=False)
        elif isinstance(op, TransferOp):
            self._start_openings(index, op, {op.to: sorted(set(op.handles))}, rehandle=True)
        elif isinstance(op, DropOp):
            self._start_drop(index, op.seat)
        elif isinstance(op, AuditOp):
            self._state = {"progress": lambda: self._end_of_game(index, op)}
        else:
            raise TypeError(f"not a deck operation: {op!r}")

    def _done(self, event: OpDone) -> bool:
        self._out.events.append(event)
        return True

    # -- shuffle ---------------------------------------------------------------------------------

    def pass_order(self, epoch: int | None = None) -> list[tuple[str, int]]:
        """Shuffle passes in seat order, then re-lock passes, the last shuffler's first, of the
        seats that take part in shuffle ``epoch`` (by default the latest one begun)."""
        return pass_order(self.players, self.seats_of(self.epochs - 1 if epoch is None else epoch))

    def seats_of(self, epoch: int) -> list[int]:
        """The seats that take part in shuffle ``epoch``: all but those that dropped out before it."""
        return [s for s in range(self.players) if self.dropped.get(s, epoch + 1) > epoch]

    def _implicit(self, epoch: int, seat: int) -> bool:
        """``seat``'s lock of the cards of hand ``epoch`` is the public scalar 1 (it dropped out
        before that hand's shuffle): no opening carries it, every seat knows it."""
        return self.dropped.get(seat, epoch + 1) <= epoch

    def _start_shuffle(self, index: int) -> None:
        epoch = self.epochs
        self.epochs += 1
        self._shuffle_ops.append(index)
        self._hand_handles.append(self._next_handle)
        order = self.pass_order(epoch)
        st: dict[str, Any] = {"step": 0, "deck": list(self.table), "keys": {}, "shuffle_keys": {}}

        def waiting():
            kind, seat = order[st["step"]]
            return [] if seat == self.seat else [(seat, kind)]

        def progress() -> bool:
            base = epoch * self.n
            sent = False
            message: dict[str, Any] | None
            while st["step"] < len(order):
                kind, seat = order[st["step"]]
                if seat == self.seat:
                    message = self._make_pass(index, epoch, kind, st["deck"])
                    self._broadcast(message)
                    sent = True
                else:
                    message = self._inbox.pop((index, kind, seat), None)
                    if message is None:
                        if not sent and not st.get("prepared"):
                            # Idle (and nothing of ours waits to go out): derive this epoch's
                            # keys and their public keys now, off the chain of passes.
                            self._card_public_keys(epoch)
                            st["prepared"] = True
                        return False
                    # Its proof is checked before anything builds on it: a pass that copies,
                    # drops, tags or substitutes a card, or holds a point outside the group,
                    # is its author's fault here, before any card is opened.
                    try:
                        check_pass(self._game_id, index, kind, seat, message, st["deck"], st["shuffle_keys"])
                    except PassError as exc:
                        raise _Deviation(kind, seat, str(exc)) from None
                self.transcript[index][(kind, seat)] = message
                st["deck"] = message["points"]
                if kind == "shuffle":
                    st["shuffle_keys"][seat] = message["key"]
                else:
                    self._note_public_keys(seat, epoch * self.n, message["keys"])
                    st["keys"][seat] = message["keys"]
                st["step"] += 1
            implicit = [s for s in range(self.players) if self._implicit(epoch, s)]
            for j, point in enumerate(st["deck"]):
                locks = [st["keys"][s][j] if s in st["keys"] else ONE_KEY for s in range(self.players)]
                handle = base + j
                scalars = {self.seat: self._card_key(handle)} | {s: ONE for s in implicit}
                self.cards_by_handle[handle] = _Card(point, locks, list(range(self.players)), scalars, root=handle)
            self._prepared_keys.pop(epoch, None)
            # Every seat has sent its passes of this shuffle, so every other seat had finished
            # the hands before it: an accusation about one of them is refused from now on
            # (protocol/deck.md §6), and what they hold can be packed.
            while self._finished < epoch:
                self._finish_hand(self._finished)
            return self._done(OpDone(index, ShuffleOp(), handles=tuple(range(base, base + self.n))))

        st["waiting"] = waiting
        st["progress"] = progress
        self._state = st

    def _check_pass_shape(self, kind: str, seat: int, message: dict[str, Any]) -> None:
        try:
            check_pass_shape(kind, message, self.n)
        except PassError as exc:
            raise _Deviation(kind, seat, str(exc)) from None

    def _make_pass(self, index: int, epoch: int, kind: str, deck: list[bytes]) -> dict[str, Any]:
        """This seat's pass over ``deck`` (the previous pass as received, its proof checked)."""
        base = epoch * self.n
        key = self._shuffle_key(epoch)
        if kind == "shuffle":
            perm = self._permutation(epoch)
            inputs = [deck[i] for i in perm]
            scalars = [key] * self.n
        else:
            inverse = invert(key)
            scalars = [mul(self._card_key(base + j), inverse) for j in range(self.n)]
            inputs = deck
        # Every input was checked by its pass's proof (or is the card table), so no
        # multiplication here can fail.
        points = self._multiply_many(scalars, inputs)
        proof_key = self._own_secrets.proof_key()
        if kind == "shuffle":
            return make_shuffle(self._game_id, index, self.seat, deck, points, key, perm, proof_key)
        return make_relock(
            self._game_id, index, self.seat, deck, points, key, self._card_public_keys(epoch), scalars, proof_key
        )

    def _invalid_point(self, handle: int) -> _Deviation:
        """The fault behind ``handle``'s point, found invalid where it was first multiplied:
        the author of the public message that carried it (a re-handling seat; a final deck's
        point was checked by its pass's proof, so that branch is a second line of defence).
        Published as an accusation every seat checks on its own copy of that message."""
        link = self.cards_by_handle[handle].link
        if link is None:
            kind, seat = self.pass_order(handle // self.n)[-1]
            return _Deviation(
                kind,
                seat,
                f"invalid point at position {handle % self.n}",
                accuse=True,
                op=self._shuffle_ops[handle // self.n],
            )
        position = handle - self.rehandled[link.op][0]
        return _Deviation("rehandle", link.author, f"invalid point at position {position}", accuse=True, op=link.op)

    def _card_public_keys(self, epoch: int) -> list[bytes]:
        """This seat's per-card public keys of ``epoch`` (key * B), in deck order."""
        keys = self._prepared_keys.get(epoch)
        if keys is None:
            base = epoch * self.n
            keys = self._prepared_keys[epoch] = [public_key(self._card_key(base + j)) for j in range(self.n)]
        return keys

    def _note_public_keys(self, seat: int, base: int, keys: list[bytes]) -> None:
        """A per-card key is never used twice in a game (:func:`public_key_reuse`)."""
        reused = public_key_reuse(seat, base, keys, self._public_keys, self._old_keys)
        if reused is not None:
            raise _Deviation("relock", seat, reused)

    # -- hands: what a finished one leaves behind (issue 23) ------------------------------------

    # -- hidden claims (deck protocol 3) ---------------------------------------------------------

    def claim_context(self, index: int, seat: int, handles: Sequence[int]) -> bytes:
        """What a hidden claim's proof is bound to: the game, the move's index in the game's
        actions (a proof replayed at another move fails), the claiming seat (one seat's proof
        is not another's) and the handles, in the order claimed."""
        return claim_context(self._game_id, index, seat, handles)

    def prove_claim(self, index: int, handles: Sequence[int], sets: Sequence[Sequence[Card]]) -> dict[str, Any]:
        """Prove that the cards ``handles``, all held by this seat, lie in one of ``sets``
        (lists of faces), without saying which (:func:`~p2pcards.deck.faceproofs.
        prove_in_one_set`): Cal's BS quads, four cards of one rank. ValueError if this seat
        does not hold them or no set holds them all (a client about to make a false claim)."""
        if self.claim_problem(self.seat, handles, sets) is not None:
            raise ValueError(self.claim_problem(self.seat, handles, sets))
        faces = [self._face_index(h) for h in handles]
        indices = [[self._card_index[c] for c in each] for each in sets]
        chosen = next((u for u, each in enumerate(indices) if set(faces) <= set(each)), None)
        if chosen is None:
            raise ValueError("no set of the claim holds all the cards")
        openings = [(indices[chosen].index(f), self._x_of(h)) for h, f in zip(handles, faces)]
        return prove_in_one_set(
            self.claim_context(index, self.seat, handles),
            [self.cards_by_handle[h].point for h in handles],
            [[self.table[i] for i in each] for each in indices],
            chosen,
            openings,
            self._own_secrets.proof_key(),
        )

    def claim_problem(self, seat: int, handles: Any, sets: Sequence[Sequence[Card]]) -> str | None:
        """Why ``seat`` cannot make a claim about ``handles`` at all, from the public record
        (the same at every seat), or None: each a live handle of the hand in progress, distinct,
        held by ``seat`` (a proof about another seat's card is refused whatever it shows)."""
        if not (isinstance(handles, list) and handles and all(_is_int(h) for h in handles)):
            return "a claim names one or more cards"
        if len(set(handles)) != len(handles):
            return "a claim names a card twice"
        for handle in handles:
            card = self.cards_by_handle.get(handle)
            if (
                card is None
                or card.retired
                or handle in self.set_aside
                or self._hand_of_handle(handle) != self.epochs - 1
            ):
                return f"card {handle} is not in play"
            if card.holder != seat:
                return f"card {handle} is not held by seat {seat}"
        if not all(c in self._card_index for each in sets for c in each):
            return "a claimed face is not a card of this deck"
        return None

    def check_claim(
        self, index: int, seat: int, handles: Any, sets: Sequence[Sequence[Card]], proof: Any
    ) -> str | None:
        """Why the claim of ``seat`` at move ``index`` that ``handles`` lie in one of ``sets``
        is refused, or None: it stands. Every seat decides alike (public record and proof only),
        and ``p2pcards verify`` with the same checks; a refused claim is an illegal move."""
        problem = self.claim_problem(seat, handles, sets)
        if problem is not None:
            return problem
        return claim_refusal(
            self._game_id,
            index,
            seat,
            handles,
            [self.cards_by_handle[h].point for h in handles],
            [[self.table[self._card_index[c]] for c in each] for each in sets],
            proof,
        )

    def hand_of_handle(self, handle: int) -> int:
        """The hand a handle was made in (for the audit)."""
        return self._hand_of_handle(handle)

    @property
    def finished_hands(self) -> int:
        """Hands ``0 .. finished_hands - 1`` are finished (protocol/deck.md §6)."""
        return self._finished

    def _finish_hand(self, epoch: int) -> None:
        """Drop hand ``epoch``, once the next hand's shuffle is complete: every other seat sent
        its passes of it, so every seat had finished this hand's operations, and from now on an
        accusation about one of them is refused as it arrives, whatever it says (§6). What stays
        in memory is the hand's per-card public keys as 96-bit prefixes (the reuse check) and
        the faces opened to all (``public_faces``): no seed is revealed, so nothing reads the
        hand's messages again (protocol version 12)."""
        start, end = self._shuffle_ops[epoch], self._shuffle_ops[epoch + 1]
        first, last = epoch * self.n, (epoch + 1) * self.n
        re_first, re_last = self._hand_handles[epoch], self._hand_handles[epoch + 1]
        shuffle = self.transcript[start]
        card_keys: list[bytes] = []
        for kind, seat in self.pass_order(epoch):
            if kind == "relock":
                card_keys += shuffle[(kind, seat)]["keys"]
        for op in range(start, end):
            if isinstance(self.ops[op], TransferOp):
                del self.rehandled[op]
            if not isinstance(self.ops[op], ShuffleOp):
                # A deal, a reveal, a coin, a transfer: nothing of it is read again.
                self.ops[op] = _FINISHED_OP
        for handle in [h for h in self.known if first <= h < last or re_first <= h < re_last]:
            del self.known[handle]
        for op in range(start, end):
            self.transcript.pop(op, None)
        self._finished += 1
        self._old_keys.add(card_keys)
        for op in range(start, end):
            self._expected_openings.pop(op, None)
        self._own_secrets.forget_card_keys(range(first, last))
        for handle in range(first, last):
            self.cards_by_handle.pop(handle, None)
            self._root_faces.pop(handle, None)
        for handle in range(re_first, re_last):
            self.cards_by_handle.pop(handle, None)
        self._seen_scalars = {s: w for s, w in self._seen_scalars.items() if not first <= w[1] < last}
        self._public_keys = {k: w for k, w in self._public_keys.items() if not first <= w[1] < last}
        # Messages for an operation this seat has done were never asked for (nothing reads them).
        self._inbox = {k: m for k, m in self._inbox.items() if k[0] >= self.current}

    # -- dropping out (protocol/deck.md §4.6) -------------------------------------------------------

    def drop_shares(self, seat: int) -> list[int]:
        """The handles whose key ``seat`` must publish as it drops out: every card of the hand
        in progress that nobody holds and nobody has seen (the stock), ascending. Cards other
        seats hold need nothing of it (their holder has every key), and its own cards nothing
        either: they are set aside, and their key is never published."""
        epoch = self.epochs - 1
        if epoch < 0:
            return []
        return sorted(
            h
            for h, card in self.cards_by_handle.items()
            if card.link is None
            and card.holder is None
            and not card.public
            and not card.retired
            and h // self.n == epoch
        )

    def _start_drop(self, index: int, seat: int) -> None:
        if not 0 <= seat < self.players or seat in self.dropped:
            raise ValueError(f"operation {index}: seat {seat} cannot drop out")
        handles = self.drop_shares(seat)
        if seat == self.seat:
            message = {
                "type": "drop",
                "op": index,
                "handles": handles,
                "scalars": [self.cards_by_handle[h].scalars[seat] for h in handles],
            }
            self._broadcast(message)
            self.transcript[index][("drop", seat)] = message
            self._dropped(seat)
            self._state = {"progress": lambda: self._done(OpDone(index, DropOp(seat)))}
            return

        def waiting():
            return [(seat, "drop")]

        def progress() -> bool:
            message = self._inbox.pop((index, "drop", seat), None)
            if message is None:
                return False
            self._check_drop(seat, handles, message)
            self.transcript[index][("drop", seat)] = message
            for handle, scalar in zip(handles, message["scalars"]):
                self.cards_by_handle[handle].scalars[seat] = scalar
            self._dropped(seat)
            return self._done(OpDone(index, DropOp(seat)))

        self._state = {"waiting": waiting, "progress": progress}

    def _dropped(self, seat: int) -> None:
        self.dropped[seat] = self.epochs
        for handle, card in self.cards_by_handle.items():
            if card.holder == seat and not card.public and not card.retired:
                self.set_aside.add(handle)

    # -- openings: deal, reveal, transfer ---------------------------------------------------------

    def _required(self, handles: list[int], receiver: int | None) -> dict[int, list[tuple[int, list[int]]]]:
        """Who must send ``receiver`` (None: everyone) which locks of which handles, as the
        public record of holders says: a held card is opened by its holder (every lock of a
        shuffled handle; a re-handled one: its cumulative scalar, lock N, to one receiver, a
        proof of its face to all), a card nobody holds by every other seat (its own lock), an
        own card by nobody, and a public card by nobody unless it is re-handled, held, and
        moves to another seat (the receiver needs its scalar to show or prove it later; only
        its holder knows it: deck protocol 3)."""
        need: dict[int, list[tuple[int, list[int]]]] = {}
        for handle in handles:
            card = self.cards_by_handle[handle]
            if receiver is not None and card.holder == receiver:
                continue
            if card.public and (receiver is None or card.holder is None or card.link is None):
                continue
            epoch = self._hand_of_handle(handle)
            if card.holder is not None and card.link is not None:
                need.setdefault(card.holder, []).append((handle, [self.players]))
            elif card.holder is not None:
                locks = [s for s in range(self.players) if not self._implicit(epoch, s)]
                need.setdefault(card.holder, []).append((handle, locks))
            else:
                # A seat that dropped out sends nothing: its lock is the public scalar 1, or
                # (a card of the hand it dropped out of) the key it published as it went.
                for seat in range(self.players):
                    if seat != receiver and seat not in self.dropped:
                        need.setdefault(seat, []).append((handle, [seat]))
        return need

    def _start_openings(self, index: int, op: Op, by_receiver: dict[int | None, list[int]], rehandle: bool) -> None:
        for handles in by_receiver.values():
            for handle in handles:
                if self._hand_of_handle(handle) < self.epochs - 1:
                    # A shuffle retires every card of the hands before it (protocol/deck.md §4).
                    raise ValueError(f"operation {index}: handle {handle} is of a hand before the last shuffle")
                if handle not in self.cards_by_handle:
                    raise ValueError(f"operation {index}: handle {handle} was never shuffled")
                if self.cards_by_handle[handle].retired:
                    raise ValueError(f"operation {index}: handle {handle} was transferred and renamed")
                if handle in self.set_aside:
                    raise ValueError(f"operation {index}: handle {handle} was set aside by a seat that dropped out")
        if any(receiver in self.dropped for receiver in by_receiver):
            raise ValueError(f"operation {index}: a card for a seat that dropped out")
        expected: dict[tuple[int, int | None], list[tuple[int, list[int]]]] = {}
        for receiver, handles in by_receiver.items():
            for sender, items in self._required(handles, receiver).items():
                if sender in self.dropped:
                    # A public re-handled card it holds that moves: only it knows the scalar.
                    raise ValueError(f"operation {index}: a card only a seat that dropped out could open")
                expected[(sender, receiver)] = items
        self._expected_openings[index] = expected
        for sender, receiver in expected:
            if receiver is not None:
                self._boxes_due[(sender, receiver)] = self._boxes_due.get((sender, receiver), 0) + 1
        # Send what the public state says this seat owes, and nothing else.
        for (sender, receiver), items in expected.items():
            if sender == self.seat:
                message = self._make_opening(index, items, receiver)
                if receiver is None:
                    self._broadcast(message)
                else:
                    self._send(receiver, message)
        mine = by_receiver.get(self.seat, []) + by_receiver.get(None, [])
        incoming = [s for (s, r) in expected if r == self.seat or (r is None and s != self.seat)]
        transfer_to: int | None = None
        if rehandle:
            assert isinstance(op, TransferOp), "only a transfer re-handles"
            transfer_to = op.to
        moved = by_receiver[transfer_to] if rehandle else []  # all of them, public ones too
        if rehandle and transfer_to == self.seat:
            # Re-handling multiplies public points by fresh scalars and needs none of the keys
            # on their way to us: it goes out now, with the openings (one hop, not two).
            self._broadcast(self._make_rehandle(index, moved))
        st: dict[str, Any] = {"pending": set(incoming), "opened": False}

        def waiting():
            if st["pending"]:
                return [(s, "open") for s in sorted(st["pending"])]
            if rehandle and transfer_to != self.seat:
                return [(transfer_to, "rehandle")]
            return []

        def progress() -> bool:
            for sender in sorted(st["pending"]):
                message = self._inbox.pop((index, "open", sender), None)
                if message is None:
                    continue
                receiver = None if (sender, None) in expected else self.seat
                try:
                    self._check_opening(index, sender, receiver, message)
                except _Deviation as d:
                    if receiver is not None and d.evidence is None:  # private: show the others
                        d.accuse, d.evidence = True, {"sender": sender, "message": message}
                    raise
                if receiver is None:
                    self.transcript[index][("open", sender)] = message
                st["pending"].discard(sender)
            if st["pending"]:
                return False
            if not st["opened"]:
                if mine and self._hold_for_send():
                    return False
                st["faces"] = self._decode(list(mine))
                st["opened"] = True
            faces = st["faces"]
            new: Sequence[int] = []
            if rehandle:
                assert transfer_to is not None, "set with rehandle"
                if transfer_to != self.seat:
                    message = self._inbox.pop((index, "rehandle", transfer_to), None)
                    if message is None:
                        return False
                    self._apply_rehandle(index, transfer_to, moved, message)
                new = self.rehandled[index]
                if transfer_to == self.seat:
                    faces = faces | self._own_rehandled(index, new)
                for handle in moved:
                    self.cards_by_handle[handle].retired = True
            else:
                for receiver, handles in by_receiver.items():
                    for handle in handles:
                        card = self.cards_by_handle[handle]
                        if receiver is None:
                            card.public = True
                            # What the end-of-game audit returns: the faces the table saw.
                            self.public_faces[handle] = faces[handle]
                        else:
                            card.holder = receiver
            return self._done(OpDone(index, op, handles=tuple(new), faces=faces))

        st["waiting"] = waiting
        st["progress"] = progress
        self._state = st

    def _make_opening(self, index: int, items: list[tuple[int, list[int]]], receiver: int | None) -> dict[str, Any]:
        """Our opening of ``items`` to ``receiver`` (None: everyone): the locks of a shuffled
        handle; of a re-handled one its cumulative scalar to one receiver, or a proof of its
        face (not the scalar: an earlier holder would read our re-handling from it) to all."""
        handles: list[int] = []
        scalars: list[Any] = []
        faces: list[Any] = []
        for handle, locks in items:
            card = self.cards_by_handle[handle]
            handles.append(handle)
            if card.link is None:
                scalars.append([[lock, card.scalars[lock]] for lock in locks])
                faces.append(None)
                continue
            assert card.x is not None and card.face is not None, "a re-handled card we hold"
            if receiver is not None:
                scalars.append([[self.players, card.x]])
                faces.append(None)
            else:
                context = self._face_context(index, handle, self.seat)
                proof = prove_face(context, card.point, self.table[card.face], card.x, self._own_secrets.proof_key())
                scalars.append([])
                faces.append([card.face, proof])
        return {"type": "open", "op": index, "handles": handles, "scalars": scalars, "faces": faces}

    def _decode(self, handles: list[int]) -> dict[int, Card]:
        """Faces of handles this seat can open: a shuffled handle whose every lock it knows
        (decoded once), a re-handled one whose face its opening showed (checked there, deck
        protocol 3). Every pass is proven and every lock checked against its public key, so a
        shuffled handle always decodes to a card of the table, no two of an epoch to one card
        (a failure would break the proofs: a bug here, never a seat's fault, §4.2)."""
        shuffled = [h for h in handles if self.cards_by_handle[h].link is None]
        todo = sorted({h for h in shuffled if h not in self._root_faces})
        if todo:
            cards = [self.cards_by_handle[r] for r in todo]
            inverses = batch_invert([scalar_product(c.scalars[i] for i in range(self.players)) for c in cards])
            try:
                points = self._multiply_many(inverses, [c.point for c in cards])
            except InvalidPoint as exc:
                raise self._invalid_point(todo[exc.index]) from None
            for root, point in zip(todo, points):
                card_index = self._table_index.get(point)
                if card_index is None:  # (see above: the proofs rule it out)
                    raise AssertionError(f"handle {root} decodes outside the card table")
                self._root_faces[root] = card_index
        faces = {}
        for handle in handles:
            card = self.cards_by_handle[handle]
            if card.link is None:
                card_index = self._root_faces[handle]
            else:
                assert card.face is not None, "a re-handled card opened here"
                card_index = card.face
            faces[handle] = self.known[handle] = self.cards[card_index]
        return faces

    def _x_of(self, handle: int) -> bytes:
        """The cumulative scalar of a card this seat can open: ``point = x * card point``."""
        card = self.cards_by_handle[handle]
        if card.link is not None:
            assert card.x is not None, "a re-handled card opened here"
            return card.x
        return scalar_product(card.scalars[i] for i in range(self.players))

    def _face_index(self, handle: int) -> int:
        card = self.cards_by_handle[handle]
        if card.link is None:
            return self._root_faces[handle]
        assert card.face is not None, "a re-handled card opened here"
        return card.face

    def _own_rehandled(self, index: int, new: Sequence[int]) -> dict[int, Card]:
        """The cards of our own re-handling (transfer ``index``), once every moved card is
        opened here: each new handle's cumulative scalar ``z_j * y * x_parent`` and face."""
        y = self._rehandle_key(index)
        faces = {}
        for j, handle in enumerate(new):
            card = self.cards_by_handle[handle]
            assert card.link is not None and card.link.parent is not None, "our own re-handling"
            parent = card.link.parent
            factor = mul(self._own_secrets.rehandle_factor(index, j), y)
            card.x = mul(factor, self._x_of(parent))
            card.face = self._face_index(parent)
            faces[handle] = self.known[handle] = self.cards[card.face]
        return faces

    def _new_handles(self, count: int) -> list[int]:
        new = list(range(self._next_handle, self._next_handle + count))
        self._next_handle += count
        return new

    def _make_rehandle(self, index: int, handles: list[int]) -> dict[str, Any]:
        """Re-randomise the cards this seat just received with one fresh scalar and publish
        them sorted, with a proof, under new handles: only this seat can open them from now on,
        and only it knows which old handle each one was. (Every moved point was checked by
        the proof of the pass or re-handling that made it.)"""
        moved = [self.cards_by_handle[h].point for h in handles]
        message, order = make_rehandle(
            self._game_id,
            index,
            self.seat,
            handles,
            moved,
            self._rehandle_key(index),
            [self._own_secrets.rehandle_factor(index, j) for j in range(len(handles))],
            self._own_secrets.proof_key(),
            self._multiply_many,
        )
        new = self.rehandled[index] = self._new_handles(len(handles))
        sources = tuple(handles)  # (one tuple for the k cards)
        for handle, point, j in zip(new, message["points"], order):
            link = _Link(self.seat, message["key"], sources, index, handles[j])
            # Its scalar and face are set once the openings have opened every moved card here.
            self.cards_by_handle[handle] = _Card(point, [], [], {}, holder=self.seat, link=link)
        self.transcript[index][("rehandle", self.seat)] = message
        return message

    def _apply_rehandle(self, index: int, sender: int, handles: list[int], message: dict[str, Any]) -> None:
        try:
            check_rehandle(
                self._game_id, index, sender, message, handles, [self.cards_by_handle[h].point for h in handles]
            )
        except PassError as exc:
            raise _Deviation("rehandle", sender, str(exc)) from None
        self.transcript[index][("rehandle", sender)] = message
        new = self.rehandled[index] = self._new_handles(len(handles))
        sources = tuple(handles)  # (one tuple for the k cards)
        for handle, point in zip(new, message["points"]):
            link = _Link(sender, message["key"], sources, index)
            self.cards_by_handle[handle] = _Card(point, [], [], {}, holder=sender, link=link)

    # -- accusations -------------------------------------------------------------------------------

    def _accused_copy(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The public message an accusation without evidence names (a pass or a re-handling),
        as this seat holds it now, as the accusation arrives. Messages reach every seat in an
        order consistent with what their authors had received (the session layer's causal
        delivery, wire.md), and an honest seat accuses only about a message it received: so a
        message not here now was not at the accuser either, whenever it comes."""
        step, accused, op = step_of(message), message.get("seat"), message.get("op")
        if step not in PUBLIC_STEPS or message.get("evidence") is not None or not _is_int(op) or not _is_int(accused):
            return None
        return self.transcript.get(op, {}).get((step, accused)) or self._inbox.get((op, step, accused))

    def _reached(self, op: int) -> bool:
        """This seat has begun operation ``op`` (its openings are known), or passed it, or
        ``op`` lies at or beyond the end of the game (its audit), where nobody accuses."""
        audit = self._audit_at
        return op < self.current or op in self._expected_openings or (audit is not None and audit <= op)

    def _resolve_accusations(self) -> None:
        """Judge every accusation this seat can judge now, in the order they arrived; keep
        aside those about an operation it has not reached, without holding up the others
        (protocol/deck.md section 6). Each new one is judged as it arrives; one kept aside
        is looked at again only once its operation is reached."""
        while self.blame is None:
            ready = [(self._arrived - len(self._accusations) + i, a) for i, a in enumerate(self._accusations)]
            self._accusations.clear()
            ready += self._kept_reached()
            if not ready:
                return
            ready.sort(key=lambda item: item[0])
            for at, accusation in ready:
                if self.blame is not None:
                    return  # the first verdict stops the seat: the rest are not judged
                if not self._judge(*accusation):
                    op = accusation[1]["op"]  # (kept aside: judge.malformed checked it)
                    if op not in self._kept:
                        heapq.heappush(self._kept_ops, op)
                    self._kept.setdefault(op, []).append((at, accusation))

    def _kept_reached(self) -> list[tuple[int, _Accusation]]:
        """The accusations kept aside whose operation this seat has reached now (taken out)."""
        ops = [op for op in self._expected_openings if op in self._kept]
        while self._kept_ops and (self._reached(self._kept_ops[0]) or self._kept_ops[0] not in self._kept):
            ops.append(heapq.heappop(self._kept_ops))
        if self._audit_at is not None and not self._audit_swept:  # every one at or past it is reached
            self._audit_swept = True  # (once: none is kept aside after)
            ops += [op for op in self._kept if op >= self._audit_at]
        out = []
        for op in ops:
            out += self._kept.pop(op, [])
        return out

    def _judge(
        self, accuser: int, message: dict[str, Any], copy: dict[str, Any] | None, stale: int | None = None
    ) -> bool:
        """Check one accusation on this seat's own copy of a public message, or on the evidence
        for a private one: blame the accused if it holds, the accuser if it does not. False:
        kept aside, the operation it is about not reached here yet. (Over the network the
        evidence of a private message is never the accuser's copy: the peer hands over what it
        opened from the sender's signed entry with the revealed message key, protocol/wire.md
        section 8, or None.)"""
        step = step_of(message)
        evidence: Any = message.get("evidence")  # from the wire: checked below
        verdict = judge.malformed(accuser, message, self.players)
        accused, op = accused_of(message, self.players) or (None, None)
        opened = evidence.get("message") if step == "open" and isinstance(evidence, dict) else None
        if verdict is None and isinstance(opened, judge.NotAnOpening):
            # The sender's signed box to the accuser holds no opening of any operation: proven
            # whatever operation the accusation names, so judged as it arrives (deck.md §6).
            sender = evidence.get("sender")
            assert _is_int(accused), "judge.malformed checked it"
            verdict = (
                judge.no_opening(accuser, accused, sender)
                if is_index(sender, self.players)
                else judge.without_evidence(accuser)
            )
        if verdict is None and stale is not None:
            # Its accuser had already taken part in a later shuffle: it had finished every
            # operation of that hand, and an honest seat accuses only during the operation it is
            # in. Refused whatever it says, at every seat alike (protocol/deck.md §6).
            verdict = judge.finished_hand(accuser, op, stale)
        if verdict is None and judge.is_public(message):
            # Judged as it arrives, on the copy this seat held then: the same at every seat.
            verdict = judge.on_copy(accuser, message, copy, self.n)
        if verdict is not None:
            self._rule(verdict)
            return True
        assert _is_int(accused) and _is_int(op), "judge.malformed checked them"
        private = step == "open" and isinstance(evidence, dict) and "message" in evidence
        if private and not isinstance(evidence["message"], dict):
            # The evidence names no private message of the accused to the accuser for that
            # operation (or its key does not open it): nothing to wait for.
            self._rule(judge.without_evidence(accuser))
            return True
        reuse = step == "open" and isinstance(evidence, dict) and "scalar" in evidence
        if not (private or reuse):  # (a `decode` accusation too: gone in protocol version 11)
            self._rule(judge.unknown_kind(accuser))
            return True
        if not self._reached(op):
            return False
        if op not in self._expected_openings:
            self._rule(judge.opens_no_cards(accuser, str(step), op))
            return True
        if reuse:
            self._rule(self.judge_reuse(accuser, accused, op, evidence))
            return True
        # A private opening (the only kind left).
        self._rule(self.judge_opening(accuser, accused, op, evidence.get("sender"), evidence["message"]))
        return True

    # -- the end of the game --------------------------------------------------------------------

    def boxes_missing(self, *, leaving: bool = False) -> list[tuple[int, int]]:
        """After the end-of-game step: ``(sender, receiver)`` of every other seat whose chain has
        ended (its signed ``result`` or ``stop`` came: :class:`~.judge.ChainEnded`, reported by
        the driver in the chain's order, so after every private box of that chain) with fewer
        private boxes to ``receiver`` than the begun operations call for (a box only its receiver
        waits for, never sent; a stopped seat's owed in an operation begun after its stop too). A
        seat whose result or stop has not come is not counted: its boxes may still be on the
        way (no seed marks the end of a chain since protocol version 12); ``leaving``: it is
        counted too, as nothing more of any chain reaches us (the driver's last count, once it
        stopped waiting for the others' results). Counted from the boxes the driver reported
        (``judge.PrivateBoxes``, every private entry delivered); ours are not counted, nor a
        seat's that dropped out."""
        return sorted(
            key
            for key, due in self._boxes_due.items()
            if key[0] != self.seat
            and (leaving or key[0] in self.ended)
            and key[0] not in self.dropped
            and self._boxes.get(key, 0) < due
        )

    def boxes_awaited(self) -> dict[int, frozenset[int]]:
        """During the game: for each seat, the other seats whose private boxes to it, in the
        operations begun here, have not all reached us. That seat may be waiting on them (the
        keys of a card it draws or picks up) before it can move: a wait on its move that runs
        out names it only once its own stop shows it had them (table/referee.py, ``Wait.look``).
        Ours are not counted (we send ours as an operation begins), nor a seat's that dropped
        out."""
        found: dict[int, set[int]] = {}
        for (sender, receiver), due in self._boxes_due.items():
            if sender != self.seat and sender not in self.dropped and self._boxes.get((sender, receiver), 0) < due:
                found.setdefault(receiver, set()).add(sender)
        return {receiver: frozenset(senders) for receiver, senders in found.items()}

    def _check_boxes(self) -> None:
        """At our end-of-game step we have begun every operation: a sender with more boxes to a
        seat than the openings of those operations call for signed one the protocol never called
        for, which its signed entry proves at every seat, opened or not (deck.md section 7). (A
        box that comes after our end-of-game step is left to verify, which has every chain.)"""
        for (sender, receiver), count in sorted(self._boxes.items()):
            if count > self._boxes_due.get((sender, receiver), 0):
                self._fail(
                    "open",
                    sender,
                    f"a private deck message to seat {receiver} that the protocol never called for",
                    self.current,
                )
                return

    def _end_of_game(self, index: int, op: AuditOp) -> bool:
        """The end-of-game step (protocol/deck.md §7): no message, no seed. Every seat has begun
        every operation, so a box beyond what they call for is proven now by its signed entry."""
        self._check_boxes()
        if self.blame is not None:
            return False
        # The faces the table saw (every card opened to all): all the game's audit reads, the
        # same at every seat, and all a transcript shows (issue 32).
        return self._done(OpDone(index, op, faces=dict(self.public_faces)))

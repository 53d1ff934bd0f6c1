"""The passes of a shuffle (protocol/deck.md §4.1) and the re-handling of a transfer (§4.2):
their order, their messages and their checks.

Every seat shuffles the deck under one key of its own (``shuffle s``), then every seat re-locks
it card by card (``relock s``): the last shuffler first, so its two passes go out back to back,
then seats 0 .. N-2. Each pass carries a proof (:mod:`p2pcards.deck.proofs`), and every seat
checks it when it arrives, before it builds on the pass or opens any card: a pass that fails
names its author at that pass. The same checks serve a seat at the table and ``p2pcards verify``
reading a transcript without seeds.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import msgpack

from .faceproofs import prove_face, verify_face
from .group import MultiplyMany, digest, multiply_many
from .proofs import (
    InvalidProof,
    prove_relock,
    prove_shuffle,
    public_key,
    verify_relock,
    verify_shuffle,
    verify_shuffles,
)

__all__ = [
    "PassError",
    "check_pass",
    "check_pass_shape",
    "check_rehandle",
    "check_rehandle_shape",
    "check_shuffles_together",
    "check_together",
    "rehandle_memo",
    "rehandle_statement",
    "shuffle_statements",
    "factor_context",
    "make_rehandle",
    "make_relock",
    "make_shuffle",
    "pass_context",
    "pass_order",
]


class PassError(ValueError):
    """A pass that is malformed or whose proof fails: its author's fault."""


def pass_order(players: int, seats: Sequence[int] | None = None) -> list[tuple[str, int]]:
    """``shuffle 0 .. N-1``, then ``relock N-1`` (by the seat that just shuffled), ``relock 0 .. N-2``.
    ``seats``: the seats that take part, ascending (every seat but those that dropped out
    before this shuffle, protocol/deck.md §4.6); by default all ``players``."""
    order = list(range(players)) if seats is None else list(seats)
    last = order[-1]
    return [("shuffle", s) for s in order] + [("relock", last)] + [("relock", s) for s in order[:-1]]


def pass_context(game_id: bytes, op: int, kind: str, seat: int) -> bytes:
    """What a pass's proof is bound to: the game (so the table and every seat's commitments),
    the operation, the step and the seat."""
    return digest("pass", game_id, op, kind, seat)


def _is_points(value: Any, n: int) -> bool:
    return isinstance(value, list) and len(value) == n and all(isinstance(p, bytes) and len(p) == 32 for p in value)


def check_pass_shape(kind: str, message: Any, n: int) -> None:
    """The fields of a pass, without its proof: n distinct 32-byte points; a shuffle's public
    key; a re-lock's n per-card public keys."""
    if not isinstance(message, dict):
        raise PassError("malformed pass")
    fields = {"type", "op", "points", "proof"} | ({"key"} if kind == "shuffle" else {"keys"})
    if set(message) != fields:
        raise PassError(f"a {kind} pass holds {', '.join(sorted(fields))}")
    if not _is_points(message["points"], n):
        raise PassError(f"a pass holds {n} points of 32 bytes")
    if len(set(message["points"])) != n:
        raise PassError("duplicated point")
    if kind == "shuffle" and not (isinstance(message["key"], bytes) and len(message["key"]) == 32):
        raise PassError("malformed public key")
    if kind == "relock" and not _is_points(message["keys"], n):
        raise PassError(f"a re-lock holds {n} public keys of 32 bytes")


def check_pass(
    game_id: bytes,
    op: int,
    kind: str,
    seat: int,
    message: Any,
    deck: Sequence[bytes],
    shuffle_keys: Mapping[int, bytes],
    *,
    known: set[bytes] | None = None,
) -> None:
    """Raise :class:`PassError` unless ``message`` is a well-formed pass whose proof holds over
    ``deck`` (the previous pass as received, or the card table). ``shuffle_keys`` maps each seat
    whose shuffle pass came before to its public key (a re-lock is proven against it).
    ``known``: passes checked before and the proofs :func:`check_together` found holding (not
    checked again); a pass that holds is added."""
    n = len(deck)
    check_pass_shape(kind, message, n)
    context = pass_context(game_id, op, kind, seat)
    key = kind == "relock" and shuffle_keys.get(seat)
    memo = _memo(context, list(deck), message, key)
    if memo in _verified or (known is not None and memo in known):
        if known is not None:
            known.add(memo)
        return
    try:
        if kind == "shuffle":
            verify_shuffle(context, deck, message["points"], message["key"], message["proof"])
        else:
            verify_relock(context, deck, message["points"], shuffle_keys[seat], message["keys"], message["proof"])
    except InvalidProof as exc:
        raise PassError(f"proof fails: {exc}") from None
    _remember(memo)
    if known is not None:
        known.add(memo)


# Passes this process has verified (a digest of everything checked): the seats of one table in
# one process (the in-process deck, the bench's model, `p2pcards verify`'s replay) check each
# pass once, not once per seat. A pure function's result, so sharing it is sound.
_verified: OrderedDict[bytes, None] = OrderedDict()
_VERIFIED_KEPT = 256


ShuffleStatement = tuple[bytes, Sequence[bytes], Sequence[bytes], bytes, Any]
"""The arguments of :func:`~.proofs.verify_shuffle`: context, inputs, outputs, key, proof."""


def _memo(*parts: Any) -> bytes:
    return hashlib.blake2b(msgpack.packb(list(parts)), digest_size=32).digest()


def shuffle_statements(
    game_id: bytes, op: int, passes: Sequence[tuple[str, int, Any]], table: Sequence[bytes]
) -> list[tuple[bytes, ShuffleStatement]]:
    """The statements of an operation's shuffle proofs, each with the memo :func:`check_pass`
    knows it by: ``passes`` are the operation's passes, ``(kind, seat, message)`` in pass order
    from the first, over ``table``; up to the first malformed one (:func:`check_pass` names it)."""
    n = len(table)
    deck: Sequence[bytes] = table
    out: list[tuple[bytes, ShuffleStatement]] = []
    for kind, seat, message in passes:
        try:
            check_pass_shape(kind, message, n)
        except PassError:
            break
        if kind == "shuffle":
            context = pass_context(game_id, op, kind, seat)
            statement = (context, list(deck), message["points"], message["key"], message["proof"])
            out.append((_memo(context, list(deck), message, False), statement))
        deck = message["points"]
    return out


def rehandle_statement(
    game_id: bytes, op: int, seat: int, message: Any, handles: Sequence[int], moved: Sequence[bytes]
) -> tuple[bytes, ShuffleStatement] | None:
    """The statement of a re-handling's shuffle proof, with the memo :func:`check_rehandle`
    knows it by (``None``: a malformed re-handling, which :func:`check_rehandle` names)."""
    try:
        check_rehandle_shape(message, handles, len(moved))
    except PassError:
        return None
    statement = (
        pass_context(game_id, op, "rehandle", seat),
        list(moved),
        message["sorted"],
        message["key"],
        message["proof"],
    )
    return _memo("rehandle shuffle", *statement), statement


def check_together(statements: Sequence[tuple[bytes, ShuffleStatement]], known: set[bytes]) -> bool:
    """Check several shuffle proofs at once (:func:`~.proofs.verify_shuffles`: the generators,
    the card table and each deck that is one pass's outputs and the next one's inputs, are
    multiplied once for the whole batch), ahead of :func:`check_pass` and
    :func:`check_rehandle` on each (those in ``known`` already are not checked again). If every
    proof holds, their memos go to ``known`` and those
    checks, given ``known``, do not check them again; if any fails, nothing is noted, and the
    checks one by one name the first that fails, as they would have. Returns whether the batch
    held. Re-lock and factor proofs are not batched: each one's challenge hashes its own
    commitments, which only computing them gives."""
    statements = [(memo, statement) for memo, statement in statements if memo not in known]
    if not statements:
        return False
    try:
        verify_shuffles([statement for _, statement in statements])
    except InvalidProof:
        return False
    known.update(memo for memo, _ in statements)
    return True


def check_shuffles_together(
    game_id: bytes, op: int, passes: Sequence[tuple[str, int, Any]], table: Sequence[bytes]
) -> bool:
    """:func:`check_together` over one operation's shuffle passes (:func:`shuffle_statements`),
    what held remembered for this process's :func:`check_pass`."""
    known: set[bytes] = set()
    if not check_together(shuffle_statements(game_id, op, passes, table), known):
        return False
    for memo in known:
        _remember(memo)
    return True


def _remember(memo: bytes) -> None:
    _verified[memo] = None
    if len(_verified) > _VERIFIED_KEPT:
        _verified.popitem(last=False)


def make_shuffle(
    game_id: bytes,
    op: int,
    seat: int,
    deck: Sequence[bytes],
    outputs: list[bytes],
    key: bytes,
    perm: Sequence[int],
    nonce_key: bytes,
) -> dict[str, Any]:
    """The message of a shuffle pass: ``outputs[j] = key * deck[perm[j]]``, with its proof."""
    public = public_key(key)
    proof = prove_shuffle(pass_context(game_id, op, "shuffle", seat), deck, outputs, public, key, perm, nonce_key)
    return {"type": "shuffle", "op": op, "points": outputs, "key": public, "proof": proof}


def make_relock(
    game_id: bytes,
    op: int,
    seat: int,
    deck: Sequence[bytes],
    outputs: list[bytes],
    shuffle_key: bytes,
    card_keys: list[bytes],
    scalars: Sequence[bytes],
    nonce_key: bytes,
) -> dict[str, Any]:
    """The message of a re-lock pass: ``outputs[j] = scalars[j] * deck[j]`` with ``scalars[j] =
    card_keys[j] / shuffle key``; ``card_keys`` are the per-card public keys."""
    context = pass_context(game_id, op, "relock", seat)
    proof = prove_relock(context, deck, outputs, public_key(shuffle_key), card_keys, scalars, nonce_key, shuffle_key)
    return {"type": "relock", "op": op, "points": outputs, "keys": card_keys, "proof": proof}


def factor_context(game_id: bytes, op: int, seat: int, j: int) -> bytes:
    """What the proof of a re-handled card's own factor is bound to (deck protocol 3, §4.2):
    the game, the transfer, its receiver and the card's position among the new handles."""
    return digest("factor", game_id, op, seat, j)


def make_rehandle(
    game_id: bytes,
    op: int,
    seat: int,
    handles: Sequence[int],
    moved: Sequence[bytes],
    scalar: bytes,
    factors: Sequence[bytes],
    nonce_key: bytes,
    multiply: MultiplyMany = multiply_many,
) -> tuple[dict[str, Any], list[int]]:
    """The re-handling of a transfer's ``handles`` (ascending; their points ``moved``) by their
    new holder: every point times one fresh ``scalar``, sorted, with a shuffle proof; then card
    ``j`` of the sorted list times its own ``factors[j]``, in place, with a proof of knowledge
    of that factor (:func:`~p2pcards.deck.faceproofs.prove_face` to the base of the sorted
    point). Returns the message and, for each output position, the index in ``moved`` it came
    from. The message names the moved handles (public: the transfer says which they are; not
    which became which), so a reader of the transcript can check the proofs without replaying
    the game. The per-card factor is what keeps the one ``scalar`` secret from a seat that gets
    one of these cards back later and knows its scalar before and after (deck protocol 3)."""
    points = multiply([scalar] * len(moved), list(moved))
    order = sorted(range(len(moved)), key=points.__getitem__)
    outputs = [points[i] for i in order]
    public = public_key(scalar)
    proof = prove_shuffle(pass_context(game_id, op, "rehandle", seat), moved, outputs, public, scalar, order, nonce_key)
    final = multiply(list(factors), outputs) if outputs else []
    proofs = [
        prove_face(factor_context(game_id, op, seat, j), final[j], outputs[j], factors[j], nonce_key)
        for j in range(len(outputs))
    ]
    message = {
        "type": "rehandle",
        "op": op,
        "moved": list(handles),
        "sorted": outputs,
        "key": public,
        "proof": proof,
        "points": final,
        "factors": proofs,
    }
    return message, order


REHANDLE_FIELDS = frozenset({"type", "op", "moved", "sorted", "key", "proof", "points", "factors"})


def check_rehandle(
    game_id: bytes,
    op: int,
    seat: int,
    message: Any,
    handles: Sequence[int],
    moved: Sequence[bytes],
    *,
    known: set[bytes] | None = None,
) -> None:
    """Raise :class:`PassError` unless ``message`` re-handles exactly ``handles`` (ascending;
    their points ``moved``, valid): the same cards under one new scalar, sorted (any other order
    could carry the old one), proven; then each card under a factor of its own, in place, with
    a proof of knowledge of that factor. ``known``: the re-handlings a caller has seen checked
    (``p2pcards verify`` checks each one with the passes and again where the game moves the
    cards) and the shuffle proofs :func:`check_together` found holding: what holds is added,
    what is in it is not checked again."""
    k = len(moved)
    check_rehandle_shape(message, handles, k)
    shuffled, points, factors = message["sorted"], message["points"], message["factors"]
    context = pass_context(game_id, op, "rehandle", seat)
    # Checked once per process, as a pass is (every other seat of an in-process table checks it).
    memo = rehandle_memo(game_id, op, seat, message, moved)
    if memo in _verified or (known is not None and memo in known):
        if known is not None:
            known.add(memo)
        return
    statement = (context, list(moved), shuffled, message["key"], message["proof"])
    if known is None or _memo("rehandle shuffle", *statement) not in known:  # (check_together)
        try:
            verify_shuffle(*statement)
        except InvalidProof as exc:
            raise PassError(f"proof fails: {exc}") from None
    for j in range(k):
        try:
            verify_face(factor_context(game_id, op, seat, j), points[j], shuffled[j], factors[j])
        except InvalidProof as exc:
            raise PassError(f"factor proof of card {j} fails: {exc}") from None
    _remember(memo)
    if known is not None:
        known.add(memo)


def rehandle_memo(game_id: bytes, op: int, seat: int, message: Any, moved: Sequence[bytes]) -> bytes:
    """What :func:`check_rehandle` knows a re-handling's check by: everything it checks."""
    return _memo(pass_context(game_id, op, "rehandle", seat), list(moved), message)


def check_rehandle_shape(message: Any, handles: Sequence[int], k: int) -> None:
    """Raise :class:`PassError` unless ``message`` has the shape of a re-handling of ``handles``
    (``k`` cards): its fields, the handles it names, its points and factor proofs counted."""
    if not isinstance(message, dict) or set(message) != REHANDLE_FIELDS:
        raise PassError("a re-handling holds type, op, moved, sorted, key, proof, points, factors")
    named = message["moved"]
    if not (isinstance(named, list) and all(type(h) is int for h in named) and named == list(handles)):
        raise PassError("a re-handling of other cards than the transfer moved")
    shuffled, points, factors = message["sorted"], message["points"], message["factors"]
    if not (_is_points(shuffled, k) and _is_points(points, k)):
        raise PassError(f"a re-handling of {k} cards holds {k} sorted points and {k} points of 32 bytes")
    if shuffled != sorted(set(shuffled)):
        raise PassError("sorted points not sorted or not distinct")
    if len(set(points)) != k:
        raise PassError("two re-handled cards with one point")
    if not (isinstance(factors, list) and len(factors) == k):
        raise PassError(f"a re-handling of {k} cards holds {k} factor proofs")

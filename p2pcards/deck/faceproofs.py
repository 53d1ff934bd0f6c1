"""Proofs about the face behind a card's point, shown or kept hidden (issue 32, deck protocol 3).

Sans-IO primitives. Deck protocol 3 (protocol version 10) uses the face proof for a public
reveal of a re-handled card and for each moved card's own factor (protocol/deck.md §4.2,
§5.3), the set proof for a move's hidden claim (§5.4: Cal's BS quads). A handle's
point is ``P = x * F``: ``F`` the face's card point (:func:`~p2pcards.deck.group.card_point`, a
hash to the curve) and ``x`` the product of every scalar that locked and re-handled it.
Whoever knows ``x`` can prove, without showing it:

* :func:`prove_face` / :func:`verify_face`: "``P`` is the card ``F``": a Schnorr proof of
  knowledge of ``x`` with ``P = x * F`` (base ``F``). For a public reveal that must not
  publish ``x`` (an earlier holder who knows ``x_parent`` would read the re-handling scalar
  ``x / x_parent`` from it, and with it undo that transfer's whole re-handling).
* :func:`prove_in_one_set` / :func:`verify_in_one_set`: "``P_1 .. P_k`` all lie in one of the
  sets ``S_1 .. S_m``", hiding which set and which faces (Cal's BS quads over the 13 ranks:
  the rank stays hidden; the proof of each function says how).
* :func:`prove_one_of` / :func:`verify_one_of`: "``P`` is one of the cards ``F_1 .. F_n``"
  (1 <= n <= :data:`MAX_CANDIDATES`, distinct), without saying which: the
  Cramer-Damgard-Schoenmakers disjunction of those Schnorr proofs (a hidden claim, such as
  Cal's BS quads: each of four handles is "one of the four suits of rank r").

Protocol (one-of; the face proof is its n = 1 case under another domain label). The prover
knows ``(i, x)`` with ``P = x * F_i``. It takes a nonce ``r`` and, for every ``j != i``, a
challenge ``c_j`` and a response ``f_j``; sets ``R_i = r * F_i`` and ``R_j = f_j * F_j - c_j
* P`` (branch j simulated); ``c = H(label, context, P, n, F_1..F_n, R_1..R_n)``;
``c_i = c - sum_{j != i} c_j`` and ``f_i = r + c_i * x``. The proof is ``(c_j, f_j)`` for every
j (the ``R_j`` are not sent: the verifier recomputes ``R_j = f_j F_j - c_j P`` and checks that
the hash of them is ``sum c_j``). Scalars are 32-byte little-endian, reduced mod L, nonzero.
Encodings: a face proof is ``[c, f]``; a one-of proof is ``{"c": [c_1..c_n], "f":
[f_1..f_n]}``, in the order of the faces. The transcript is :mod:`~p2pcards.deck.proofs`'
(``_Transcript``, BLAKE2b personalised ``p2pcards-deck-p``): ``_Transcript(label, context)``,
absorb ``(P, n, F_1..F_n)``, absorb ``(R_1..R_n)``, ``challenge("c")``; labels ``"face"`` and
``"one-of"``.

Why it is sound (special soundness). Two accepting proofs with the same ``R_1..R_n`` and
challenges ``c != c'`` have ``sum c_j != sum c'_j``, so ``c_k != c'_k`` for some k, and from
``f_k F_k = R_k + c_k P`` and ``f'_k F_k = R_k + c'_k P``: ``P = x' F_k`` with ``x' = (f_k -
f'_k) / (c_k - c'_k)``. In the random-oracle model the forking lemma turns any prover that
convinces with non-negligible probability into an extractor of such an ``x'`` (one attempt
succeeds without a witness with probability 1/L; a cheater grinding 2^k hashes, about 2^k / L).
For a handle the deck's proven passes fix ``P = x_true * F_true``: every shuffle, re-lock and
re-handling pass proves knowledge of its scalar, so ``x_true`` is extractable too (or known to a
reduction that plays the honest seats). A false claim, ``F_true`` not among the ``F_j``, would
thus give ``x' F_k = x_true F_true`` with ``F_k != F_true``: the discrete log of one card point
to the base of another, ``x_true / x'``. Card points are Elligator 2 of BLAKE2b: a reduction
plants a discrete-log challenge ``(G, a G)`` as two card points (random multiples of each), so
proving a false claim is solving discrete logs. This needs the ``F_j`` to be card points of the
card table (points whose logs to each other nobody knows); with points of known relation the
proof still holds but says nothing about which card. What it proves is knowledge of an opening
``x'``, not who holds the card: the protocol must check that the prover is the handle's holder,
and that nobody else learns ``x`` (deck protocol 3's private openings; note that a receiver
who knew the ``x`` of one of the card's earlier handles, say its earlier holder getting it back,
reads the re-handling scalar ``x / x_earlier`` from an opening that carries ``x``, unless every
moved card gets a re-handling factor of its own).

Why it shows nothing more (zero knowledge, witness indistinguishability). A simulator without
any witness takes every ``c_j`` and ``f_j`` uniform, sets ``R_j = f_j F_j - c_j P`` and programs
the hash to answer ``sum c_j``. A real proof has exactly that distribution: the ``c_j`` and
``f_j`` of the simulated branches are uniform, ``c_i = c - sum`` is uniform because ``c`` is (a
random oracle's answer), and ``f_i = r + c_i x`` is uniform because ``r`` is. So a proof shows
neither ``x`` nor ``i``: the proofs made with ``(i, x_i)`` and with ``(k, x_k)`` of one
statement are identically distributed (their randomness corresponds one to one,
``r' = f_k - c_k x_k``; tests/deck/test_faceproofs.py checks the map reproduces the proof).
The nonce and the simulated values are a PRF (keyed BLAKE2b, :class:`~p2pcards.deck.proofs.
ProofNonces`) of the prover's secret nonce key over the statement, the index and ``x``:
indistinguishable from uniform without the key, the same proof for the same statement, and
never one ``r`` for two challenges (which would give ``x = (f - f') / (c - c')``).

What the context must bind (the caller's job, as ``pass_context`` does for passes). The proof
binds the label, the context, ``P`` and the faces in order with their count, nothing else: it
can be copied by anyone who sees it. So the context must name the table and game (``game_id``:
no replay into another game), the operation and what it is for (a reveal's proof is not a
claim's, nor a claim of another move), the handle, and the prover's seat (another seat cannot
present the holder's proof as its own, nor one seat's old proof again at a later step). A proof
moved to another handle, another candidate set or order, or another context fails.

Every input point is refused unless canonical, in the prime-order group and not the identity:
prover and verifier multiply each of ``P`` and the ``F_j`` by a nonzero scalar, and libsodium's
``crypto_scalarmult_ed25519_noclamp`` refuses any other point before any arithmetic (the identity
``P`` would be ``0 * F`` for every face). Any malformed or failing input gives
:class:`~p2pcards.deck.proofs.InvalidProof`, never another exception.

Cost (scalar multiplications; each of libsodium's includes its subgroup check): proving ``2n``
(``1`` for the real branch, ``2`` per simulated branch, ``1`` to check the witness, so that a
bug cannot send a proof that names its honest sender); verifying ``2n``. A face proof: 2 and 2.
Measured on this shared 2-core machine under load (90 to 107 us a multiplication): a one-of
proof over 4 faces 0.8 to 0.9 ms to prove and as much to verify, 256 bytes (``2n`` scalars)
plus msgpack framing; Cal's BS quads (4 handles, 4 candidates each) 3.3 to 3.5 ms to verify, about
2.1 ms at the 65 us a multiplication of docs/performance.md (``test_faceproofs.py::test_cost`` prints
the figures of the machine it runs on).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from nacl import bindings as _na
from nacl.exceptions import RuntimeError as _NaclError

from .group import GROUP_ORDER, encode_parts
from .proofs import InvalidProof, ProofNonces, _Transcript

__all__ = [
    "MAX_CANDIDATES",
    "InvalidProof",
    "MAX_BRANCHES",
    "MAX_CLAIM_CARDS",
    "MAX_SETS",
    "face_proof_size",
    "one_of_proof_size",
    "prove_face",
    "prove_in_one_set",
    "prove_one_of",
    "set_proof_size",
    "verify_face",
    "verify_in_one_set",
    "verify_one_of",
]

L = GROUP_ORDER
#: The most faces one claim may name (a full deck with jokers fits; a longer list is refused).
MAX_CANDIDATES = 64
_FACE = "face"
_ONE_OF = "one-of"

Nonces = Callable[..., int]


# -- checks ----------------------------------------------------------------------------------------


def _b(value: int) -> bytes:
    return (value % L).to_bytes(32, "little")


def _nonzero_scalar(value: Any, what: str) -> int:
    """A received scalar: 32 bytes, reduced (so a proof is not malleable), nonzero."""
    if not isinstance(value, bytes) or len(value) != 32:
        raise InvalidProof(f"{what}: a scalar is 32 bytes")
    number = int.from_bytes(value, "little")
    if number >= L:
        raise InvalidProof(f"{what}: scalar not reduced")
    if number == 0:
        raise InvalidProof(f"{what}: zero scalar")
    return number


def _statement(context: Any, point: Any, faces: Any) -> tuple[bytes, bytes, list[bytes]]:
    """The statement's types and shape (each point's validity is checked by the multiplications
    that use it, all by nonzero scalars)."""
    if not isinstance(context, bytes):
        raise InvalidProof("the context is bytes")
    if not (isinstance(point, bytes) and len(point) == 32):
        raise InvalidProof("the card's point is 32 bytes")
    if not isinstance(faces, (list, tuple)) or not 1 <= len(faces) <= MAX_CANDIDATES:
        raise InvalidProof(f"a claim names 1 to {MAX_CANDIDATES} faces")
    if not all(isinstance(face, bytes) and len(face) == 32 for face in faces):
        raise InvalidProof("a face is a point of 32 bytes")
    if len(set(faces)) != len(faces):
        raise InvalidProof("a face named twice")
    return context, point, list(faces)


def _mult(scalar: int, point: bytes) -> bytes:
    """scalar * point for a nonzero scalar; :class:`InvalidProof` for a point outside the
    prime-order group (libsodium refuses it before any arithmetic)."""
    try:
        return _na.crypto_scalarmult_ed25519_noclamp(_b(scalar), point)
    except _NaclError:
        raise InvalidProof("a point outside the prime-order group") from None


def _sub(a: bytes, b: bytes) -> bytes:
    return _na.crypto_core_ed25519_sub(a, b)


def _transcript(label: str, context: bytes, point: bytes, faces: Sequence[bytes]) -> _Transcript:
    t = _Transcript(label, context)
    t.absorb(point, len(faces), *faces)
    return t


# -- the disjunction (its n = 1 case is the face proof) --------------------------------------------


def _prove(
    label: str,
    context: bytes,
    point: bytes,
    faces: Sequence[bytes],
    index: int,
    x: int,
    nonces: Nonces,
) -> tuple[list[int], list[int]]:
    """The challenges and responses, branch ``index`` real (with ``x``), the others simulated
    from ``nonces(name, j)`` (``"r"``: the real nonce; ``"c"``, ``"f"``: branch j's values).
    Checks nothing: a wrong witness gives a proof that fails."""
    n = len(faces)
    t = _transcript(label, context, point, faces)
    r = nonces("r", 0)
    cs, fs, commitments = [0] * n, [0] * n, []
    for j in range(n):
        if j == index:
            commitments.append(_mult(r, faces[j]))
        else:
            cs[j], fs[j] = nonces("c", j) % L, nonces("f", j) % L
            commitments.append(_sub(_mult(fs[j], faces[j]), _mult(cs[j], point)))
    t.absorb(*commitments)
    c = t.challenge("c")
    cs[index] = (c - sum(cs)) % L
    fs[index] = (r + cs[index] * x) % L
    if cs[index] == 0 or fs[index] == 0:  # chance 2^-251
        raise ValueError("degenerate proof")
    return cs, fs


def _verify(label: str, context: bytes, point: bytes, faces: Sequence[bytes], cs: list[int], fs: list[int]) -> None:
    t = _transcript(label, context, point, faces)
    t.absorb(*(_sub(_mult(f, face), _mult(c, point)) for c, f, face in zip(cs, fs, faces)))
    if t.challenge("c") != sum(cs) % L:
        raise InvalidProof("the card is not shown to be one of its claimed faces")


def _prover_nonces(
    nonce_key: Any, label: str, context: bytes, point: bytes, faces: Sequence[bytes], index: int, x: bytes
) -> Nonces:
    if not isinstance(nonce_key, bytes) or not 16 <= len(nonce_key) <= 64:
        raise ValueError("a nonce key is 16 to 64 bytes")
    state = _transcript(label, context, point, faces).state()
    return ProofNonces(nonce_key, encode_parts((state, index, x)))


def _witness(point: bytes, faces: Sequence[bytes], index: Any, x: Any) -> int:
    """The prover's own inputs: ``index`` names a face and ``x * faces[index] == point``."""
    if type(index) is not int or not 0 <= index < len(faces):
        raise ValueError("the index names one of the faces")
    scalar = _nonzero_scalar(x, "x")
    if _mult(scalar, faces[index]) != point:
        raise ValueError("x does not open the card's point on that face")
    return scalar


# -- the public functions ----------------------------------------------------------------------------


def face_proof_size() -> int:
    """Bytes of scalars in a face proof (without msgpack framing)."""
    return 64


def one_of_proof_size(n: int) -> int:
    """Bytes of scalars in a one-of proof over ``n`` faces (without msgpack framing)."""
    return 64 * n


def prove_face(context: bytes, point: bytes, face: bytes, x: bytes, nonce_key: bytes) -> list[bytes]:
    """Prove ``point == x * face`` without revealing ``x``: ``[c, f]``. Raises ValueError
    (:class:`InvalidProof` for a malformed statement) if ``x`` does not open ``point``."""
    context, point, faces = _statement(context, point, [face])
    scalar = _witness(point, faces, 0, x)
    nonces = _prover_nonces(nonce_key, _FACE, context, point, faces, 0, x)
    cs, fs = _prove(_FACE, context, point, faces, 0, scalar, nonces)
    return [_b(cs[0]), _b(fs[0])]


def verify_face(context: bytes, point: bytes, face: bytes, proof: Any) -> None:
    """Raise :class:`InvalidProof` unless ``proof`` shows ``point`` is ``face`` under a scalar
    its prover knows (checks ``point`` and ``face`` too)."""
    context, point, faces = _statement(context, point, [face])
    if not (isinstance(proof, list) and len(proof) == 2):
        raise InvalidProof("malformed face proof")
    c, f = _nonzero_scalar(proof[0], "c"), _nonzero_scalar(proof[1], "f")
    _verify(_FACE, context, point, faces, [c], [f])


def prove_one_of(
    context: bytes, point: bytes, faces: Sequence[bytes], index: int, x: bytes, nonce_key: bytes
) -> dict[str, list[bytes]]:
    """Prove ``point == x * faces[index]`` without revealing ``x`` or ``index``:
    ``{"c": [...], "f": [...]}``, one scalar of each per face. Raises ValueError
    (:class:`InvalidProof` for a malformed statement) if ``x`` does not open ``point`` there."""
    context, point, faces = _statement(context, point, faces)
    scalar = _witness(point, faces, index, x)
    nonces = _prover_nonces(nonce_key, _ONE_OF, context, point, faces, index, x)
    cs, fs = _prove(_ONE_OF, context, point, faces, index, scalar, nonces)
    return {"c": [_b(c) for c in cs], "f": [_b(f) for f in fs]}


def verify_one_of(context: bytes, point: bytes, faces: Sequence[bytes], proof: Any) -> None:
    """Raise :class:`InvalidProof` unless ``proof`` shows ``point`` is one of ``faces`` under a
    scalar its prover knows (checks ``point`` and every face too: 1 to
    :data:`MAX_CANDIDATES` distinct points of the prime-order group, not the identity)."""
    context, point, faces = _statement(context, point, faces)
    n = len(faces)
    if not (
        isinstance(proof, dict)
        and set(proof) == {"c", "f"}
        and isinstance(proof["c"], list)
        and isinstance(proof["f"], list)
        and len(proof["c"]) == n
        and len(proof["f"]) == n
    ):
        raise InvalidProof(f"malformed one-of proof: {n} challenges and {n} responses")
    cs = [_nonzero_scalar(c, "c") for c in proof["c"]]
    fs = [_nonzero_scalar(f, "f") for f in proof["f"]]
    _verify(_ONE_OF, context, point, faces, cs, fs)


# -- "these k cards all lie in one of these sets", without saying which (deck protocol 3) ---------

#: The most cards one set claim may name, the most sets, and the most (set, card, face) branches
#: in all (Cal's BS quads: 4 cards, 13 ranks of 4 suits, 208 branches).
MAX_CLAIM_CARDS = 8
MAX_SETS = 16
MAX_BRANCHES = 512
_ONE_SET = "one-set"


def _set_statement(context: Any, points: Any, sets: Any) -> tuple[bytes, list[bytes], list[list[bytes]]]:
    if not isinstance(context, bytes):
        raise InvalidProof("the context is bytes")
    if not isinstance(points, (list, tuple)) or not 1 <= len(points) <= MAX_CLAIM_CARDS:
        raise InvalidProof(f"a set claim names 1 to {MAX_CLAIM_CARDS} cards")
    if not all(isinstance(p, bytes) and len(p) == 32 for p in points) or len(set(points)) != len(points):
        raise InvalidProof("a set claim's cards are distinct points of 32 bytes")
    if not isinstance(sets, (list, tuple)) or not 1 <= len(sets) <= MAX_SETS:
        raise InvalidProof(f"a set claim names 1 to {MAX_SETS} sets")
    faces: list[bytes] = []
    for each in sets:
        if not isinstance(each, (list, tuple)) or not 1 <= len(each) <= MAX_CANDIDATES:
            raise InvalidProof(f"a set holds 1 to {MAX_CANDIDATES} faces")
        if not all(isinstance(face, bytes) and len(face) == 32 for face in each):
            raise InvalidProof("a face is a point of 32 bytes")
        faces += each
    if len(set(faces)) != len(faces):
        raise InvalidProof("a face named twice")
    if len(points) * len(faces) > MAX_BRANCHES:
        raise InvalidProof(f"a set claim of more than {MAX_BRANCHES} branches")
    return context, list(points), [list(each) for each in sets]


def _set_transcript(context: bytes, points: Sequence[bytes], sets: Sequence[Sequence[bytes]]) -> _Transcript:
    t = _Transcript(_ONE_SET, context)
    t.absorb(len(points), *points, len(sets))
    for each in sets:
        t.absorb(len(each), *each)
    return t


def set_proof_size(cards: int, faces: int) -> int:
    """Bytes of scalars in a set claim's proof of ``cards`` cards over ``faces`` faces in all."""
    return 64 * cards * faces


def prove_in_one_set(
    context: bytes,
    points: Sequence[bytes],
    sets: Sequence[Sequence[bytes]],
    chosen: int,
    openings: Sequence[tuple[int, bytes]],
    nonce_key: bytes,
) -> dict[str, list[list[list[bytes]]]]:
    """Prove that every one of ``points`` is one of the faces of ``sets[chosen]``, without
    saying which set nor which face (Cal's BS quads: four cards, all of one rank, the sets the
    13 ranks' four suits; the rank stays hidden). ``openings[i] = (s, x)``: ``points[i] == x *
    sets[chosen][s]``. The proof is ``{"c": [[[c per face] per card] per set], "f": (alike)}``.

    Cramer-Damgard-Schoenmakers over the formula OR_u AND_i OR_s [P_i = x * F_u,s]: one
    challenge ``c = H(statement, every R)``; the sets' challenges ``c_u`` sum to ``c``; for
    every set u and card i the faces' challenges ``c_u,i,s`` sum to ``c_u`` (the AND: every
    card of a set answers the same challenge). The real set's cards answer their real face with
    ``f = r + c x``; every other branch is simulated (``R = f F - c P``). Raises ValueError
    (:class:`InvalidProof` for a malformed statement) if an opening does not hold."""
    context, points, sets = _set_statement(context, points, sets)
    if type(chosen) is not int or not 0 <= chosen < len(sets):
        raise ValueError("chosen names one of the sets")
    if not isinstance(openings, (list, tuple)) or len(openings) != len(points):
        raise ValueError("one opening per card")
    xs, real = [], []
    for point, opening in zip(points, openings):
        s, x = opening
        xs.append(_witness(point, sets[chosen], s, x))
        real.append(s)
    if not isinstance(nonce_key, bytes) or not 16 <= len(nonce_key) <= 64:
        raise ValueError("a nonce key is 16 to 64 bytes")
    t = _set_transcript(context, points, sets)
    nonces = ProofNonces(nonce_key, encode_parts((t.state(), chosen, *real, *(x for _, x in openings))))
    k = len(points)
    cs = [[[0] * len(each) for _ in range(k)] for each in sets]
    fs = [[[0] * len(each) for _ in range(k)] for each in sets]
    commitments: list[bytes] = []
    flat = 0
    for u, each in enumerate(sets):
        # A simulated set: its challenge at random, split at random over each card's faces.
        c_u = nonces("cu", u) % L if u != chosen else 0
        for i, point in enumerate(points):
            for s, face in enumerate(each):
                flat += 1
                if u == chosen and s == real[i]:
                    commitments.append(_mult(nonces("r", i), face))
                    continue
                if u != chosen and s == len(each) - 1:  # the rest of the set's challenge
                    c = (c_u - sum(cs[u][i][:s])) % L
                else:
                    c = nonces("c", flat) % L
                f = nonces("f", flat) % L
                cs[u][i][s], fs[u][i][s] = c, f
                commitments.append(_sub(_mult(f, face), _mult(c, point)))
    t.absorb(*commitments)
    challenge = t.challenge("c")
    c_chosen = (challenge - sum(sum(cs[u][0]) for u in range(len(sets)) if u != chosen)) % L
    for i in range(k):
        s = real[i]
        cs[chosen][i][s] = (c_chosen - sum(c for j, c in enumerate(cs[chosen][i]) if j != s)) % L
        fs[chosen][i][s] = (nonces("r", i) + cs[chosen][i][s] * xs[i]) % L
    if any(c == 0 for row in cs for card in row for c in card) or any(
        f == 0 for row in fs for card in row for f in card
    ):
        raise ValueError("degenerate proof")  # chance about 2^-245
    return {
        "c": [[[_b(c) for c in card] for card in row] for row in cs],
        "f": [[[_b(f) for f in card] for card in row] for row in fs],
    }


def verify_in_one_set(context: bytes, points: Sequence[bytes], sets: Sequence[Sequence[bytes]], proof: Any) -> None:
    """Raise :class:`InvalidProof` unless ``proof`` shows every one of ``points`` is a face of
    one and the same set of ``sets`` under scalars its prover knows (checks every point and
    face: 1 to :data:`MAX_CLAIM_CARDS` distinct cards, 1 to :data:`MAX_SETS` sets of distinct
    faces, at most :data:`MAX_BRANCHES` branches; each point of the prime-order group)."""
    context, points, sets = _set_statement(context, points, sets)
    k = len(points)

    def shaped(value: Any) -> bool:
        return (
            isinstance(value, list)
            and len(value) == len(sets)
            and all(
                isinstance(row, list)
                and len(row) == k
                and all(isinstance(card, list) and len(card) == len(each) for card in row)
                for row, each in zip(value, sets)
            )
        )

    if not (isinstance(proof, dict) and set(proof) == {"c", "f"} and shaped(proof["c"]) and shaped(proof["f"])):
        raise InvalidProof("malformed set proof: a challenge and a response per set, card and face")
    cs = [[[_nonzero_scalar(c, "c") for c in card] for card in row] for row in proof["c"]]
    fs = [[[_nonzero_scalar(f, "f") for f in card] for card in row] for row in proof["f"]]
    total = 0
    for row in cs:
        c_u = sum(row[0]) % L
        if any(sum(card) % L != c_u for card in row):
            raise InvalidProof("the cards of a set answer different challenges")
        total += c_u
    t = _set_transcript(context, points, sets)
    t.absorb(
        *(
            _sub(_mult(f, face), _mult(c, point))
            for u, each in enumerate(sets)
            for i, point in enumerate(points)
            for c, f, face in zip(cs[u][i], fs[u][i], each)
        )
    )
    if t.challenge("c") != total % L:
        raise InvalidProof("the cards are not shown to lie in one of the claimed sets")

"""Zero-knowledge proofs that a deck pass is honest (protocol/deck.md §5), checked on arrival.

Two statements over edwards25519's prime-order group, both made non-interactive with
Fiat-Shamir over a transcript that binds the caller's context (table, game, operation, step,
seat) and every public input:

* :func:`prove_shuffle` / :func:`verify_shuffle`: ``T[j] = k * R[perm[j]]`` for a permutation
  ``perm`` and the scalar ``k`` of a published public key ``K = k * B``: the outputs are the
  inputs permuted and all multiplied by one secret scalar (Curdleproofs' statement). So a pass
  can neither copy, drop, sum, tag nor substitute a card.

  The argument, linear in size (our own; after Bayer-Groth and Curdleproofs, with a LogUp
  multiset check instead of a grand product, and plain sigma protocols instead of an inner
  product argument, so the verifier's work is one multi-scalar multiplication of 3n + 11 terms):

  1. commit to the permutation ``m_j = perm[j]`` over independent generators: ``M``;
  2. challenge vector ``a``; commit to ``b_j = a[perm[j]]``: ``A``;
  3. challenges ``alpha, beta``; with ``c = b + alpha * m`` (committed in ``C = A + alpha*M``)
     commit to ``w_j = 1 / (beta - c_j)``: ``W``. The multiset ``{c_j}`` equals
     ``{a_i + alpha * i}`` iff ``sum w_j = sum 1/(beta - a_i - alpha*i)`` and
     ``w_j * (beta - c_j) = 1`` for every j (the latter folded with powers of a challenge y);
     so ``m`` is a permutation fixed before ``a`` and ``b_j = a[m_j]``;
  4. one sigma protocol (challenge x) proves knowledge of openings of ``A``, ``C``, ``W``, of
     ``k`` behind ``K``, that ``sum b_j T_j = k * sum a_i R_i`` (which for a random ``a`` forces
     ``T_j = k * R[m_j]``), the sum of ``w`` and the folded quadratic relation (its cross terms
     hidden in Pedersen commitments ``T1``, ``T0``, as in Bulletproofs).

  Soundness error per attempt about ``2n / L < 2^-240``; a cheater grinding 2^80 challenges
  offline keeps it below 2^-160. Zero-knowledge: every response is masked by a fresh nonce.

* :func:`prove_relock` / :func:`verify_relock`: per position ``T[j] = z_j * R[j]`` and
  ``P[j] = z_j * K`` (a Chaum-Pedersen proof per position, one challenge for all): the re-lock
  pass multiplies each card in place by the scalar whose public key is published, so a re-lock
  can neither move, copy nor tag a card, and an opened key is checked against ``P[j]``.

Nonces come from a secret key and the statement (as EdDSA's do), so a seat's proofs are a
function of its seed and its inputs: ``p2pcards verify`` recomputes them byte for byte. Every
point a verifier uses is checked to be in the prime-order group (libsodium refuses others before
any arithmetic). A proof is plain msgpack data: lists of 32-byte strings.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from nacl import bindings as _na

from .group import GROUP_ORDER, InvalidPoint, digest, encode_parts, parallel_multiply_many

__all__ = [
    "BASE",
    "InvalidProof",
    "ProofNonces",
    "generators",
    "public_key",
    "prove_relock",
    "prove_shuffle",
    "shuffle_proof_size",
    "relock_proof_size",
    "verify_relock",
    "verify_shuffle",
    "verify_shuffles",
]

L = GROUP_ORDER
#: edwards25519's base point B: public keys are k * B.
BASE = _na.crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(32, "little"))
_IDENTITY = (1).to_bytes(32, "little")
_PERSON = b"p2pcards-deck-p"  # 15 bytes, as the deck's other personalisations
_SHUFFLE_POINTS = ("M", "A", "W", "DA", "DZ", "DK", "DW", "DC", "T1", "T0")
_SHUFFLE_SCALARS = ("e1", "fk", "frb", "frw", "frc", "ftau")


class InvalidProof(ValueError):
    """A proof that does not verify (or is malformed): the fault of whoever sent it."""


# -- scalars and points ----------------------------------------------------------------------------


def _b(value: int) -> bytes:
    return (value % L).to_bytes(32, "little")


def _i(scalar: bytes) -> int:
    return int.from_bytes(scalar, "little")


def _scalar(value: Any, what: str) -> int:
    """A received scalar: 32 bytes, reduced (canonical, so proofs are not malleable)."""
    if not isinstance(value, bytes) or len(value) != 32:
        raise InvalidProof(f"{what}: a scalar is 32 bytes")
    number = _i(value)
    if number >= L:
        raise InvalidProof(f"{what}: scalar not reduced")
    return number


def _point(value: Any, what: str) -> bytes:
    if not (isinstance(value, bytes) and len(value) == 32 and _na.crypto_core_ed25519_is_valid_point(value)):
        raise InvalidProof(f"{what}: not a point of the prime-order group")
    return value


def _shaped(points: Any, n: int, what: str) -> None:
    """``points`` is a list of n 32-byte strings (validity is checked where each is used)."""
    if not (
        isinstance(points, Sequence) and len(points) == n and all(isinstance(p, bytes) and len(p) == 32 for p in points)
    ):
        raise InvalidProof(f"{what}: {n} points of 32 bytes")


def public_key(scalar: bytes) -> bytes:
    """scalar * B."""
    return _na.crypto_scalarmult_ed25519_base_noclamp(scalar)


def _mul(scalar: int, point: bytes) -> bytes | None:
    """scalar * point, None for the identity (scalar 0). ``point`` must be valid."""
    scalar %= L
    if scalar == 0:
        return None
    return _na.crypto_scalarmult_ed25519_noclamp(_b(scalar), point)


def _add(a: bytes | None, b: bytes | None) -> bytes | None:
    if a is None:
        return b
    if b is None:
        return a
    total = _na.crypto_core_ed25519_add(a, b)
    return None if total == _IDENTITY else total


def _products(scalars: Sequence[int], points: Sequence[bytes]) -> list[bytes | None]:
    """Each scalar * point (None for a zero scalar, whose point is checked alone), the
    multiplications spread over this machine's cores (libsodium releases the GIL)."""
    live = [i for i, scalar in enumerate(scalars) if scalar % L]
    for i, scalar in enumerate(scalars):
        if scalar % L == 0 and not _na.crypto_core_ed25519_is_valid_point(points[i]):
            raise InvalidProof("a point outside the prime-order group")
    try:
        products = parallel_multiply_many([_b(scalars[i]) for i in live], [points[i] for i in live])
    except InvalidPoint:
        raise InvalidProof("a point outside the prime-order group") from None
    out: list[bytes | None] = [None] * len(scalars)
    for i, product in zip(live, products):
        out[i] = product
    return out


def _msms(groups: Sequence[Sequence[tuple[int, bytes]]]) -> list[bytes | None]:
    """Several sums of scalar * point (None: the identity), their multiplications done in one
    batch. Every point must be valid (libsodium checks each one it multiplies). Naive on
    purpose: through the bindings a point addition costs a fifth of a multiplication, so bucket
    methods lose at these sizes (docs/performance.md)."""
    flat = [term for group in groups for term in group]
    products = iter(_products([s for s, _ in flat], [p for _, p in flat]))
    sums = []
    for group in groups:
        total: bytes | None = None
        for _ in group:
            total = _add(total, next(products))
        sums.append(total)
    return sums


def _msm(terms: Sequence[tuple[int, bytes]]) -> bytes | None:
    return _msms([terms])[0]


def _base(scalar: int) -> bytes | None:
    """scalar * B (None for zero), by libsodium's fixed-base multiplication: a fifth of the
    cost of multiplying B as any other point."""
    scalar %= L
    if scalar == 0:
        return None
    return _na.crypto_scalarmult_ed25519_base_noclamp(_b(scalar))


def _small_msm(values: Sequence[int], points: Sequence[bytes]) -> bytes | None:
    """sum values[j] * points[j] for ``values`` a permutation of 0 .. n-1, by additions only:
    the running sums of the points ordered by their value, highest first (2n additions, each a
    seventh of a multiplication through the bindings). The same point as :func:`_msm` gives."""
    order = sorted(range(len(values)), key=values.__getitem__, reverse=True)
    running: bytes | None = None
    total: bytes | None = None
    for j in order:
        if values[j] == 0:
            break
        running = _add(running, points[j])
        total = _add(total, running)
    return total


def _not_identity(point: bytes | None) -> bytes:
    """A computed point that goes into a transcript: never the identity (``None``), which only
    a nonce that hit zero, or nonces that cancelled out, give (chance 2^-250)."""
    if point is None:
        raise ValueError("degenerate proof")
    return point


@lru_cache(maxsize=4)
def generators(count: int) -> tuple[tuple[bytes, ...], bytes, bytes]:
    """``count`` vector generators G_j, the blinding generator H and the value generator U:
    hashes to the curve, so nobody knows a discrete log between any two (or to B)."""

    # G_j depends on j alone: the vector generators of every size are prefixes of one list,
    # kept (a long match's re-handlings come in every size from 1 to n, past the cache's 4).
    if len(_VECTOR_GENERATORS) < count:
        with _GENERATORS_LOCK:  # (a peer may prove on a worker thread)
            while len(_VECTOR_GENERATORS) < count:
                _VECTOR_GENERATORS.append(_generator("G", len(_VECTOR_GENERATORS)))
    return tuple(_VECTOR_GENERATORS[:count]), _fixed_generator("H"), _fixed_generator("U")


_VECTOR_GENERATORS: list[bytes] = []
_GENERATORS_LOCK = threading.Lock()


def _generator(*parts: str | int) -> bytes:
    return _na.crypto_core_ed25519_from_uniform(digest("proof-generator", *parts))


@lru_cache(maxsize=2)
def _fixed_generator(name: str) -> bytes:
    return _generator(name)


# -- Fiat-Shamir and nonces ------------------------------------------------------------------------


class _Transcript:
    """A running BLAKE2b over :func:`~p2pcards.deck.group.encode_parts` of everything public;
    challenges are 64-byte outputs reduced mod L (bias below 2^-250)."""

    def __init__(self, tag: str, context: bytes):
        self._h = hashlib.blake2b(digest_size=64, person=_PERSON)
        self.absorb(tag, context)

    def absorb(self, *parts: bytes | str | int) -> None:
        self._h.update(encode_parts(parts))

    def state(self) -> bytes:
        """The digest of everything absorbed so far (the transcript goes on)."""
        return self._h.copy().digest()

    def challenge(self, label: str) -> int:
        return self.challenges(label, 1)[0]

    def challenges(self, label: str, count: int) -> list[int]:
        self.absorb("challenge", label, count)
        seed = self.state()
        out = []
        for i in range(count):
            value = 0
            counter = 0
            while value == 0:
                block = hashlib.blake2b(encode_parts((seed, i, counter)), digest_size=64, person=_PERSON).digest()
                value = int.from_bytes(block, "little") % L
                counter += 1
            out.append(value)
        self.absorb(seed)
        return out


class ProofNonces:
    """The prover's nonces: keyed BLAKE2b of a secret key over the statement and a label, so
    a seat's proof is a function of its seed and its inputs (never reused for another
    statement, which would reveal the witness)."""

    def __init__(self, key: bytes, statement: bytes):
        self._h = hashlib.blake2b(digest_size=64, key=key, person=_PERSON)
        self._h.update(encode_parts(("nonce", statement)))

    def __call__(self, label: str, index: int = 0) -> int:
        h = self._h.copy()
        h.update(encode_parts((label, index)))
        value = int.from_bytes(h.digest(), "little") % L
        return value or 1


def _statement(
    tag: str, context: bytes, key: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes], extra: Sequence[bytes] = ()
) -> _Transcript:
    t = _Transcript(tag, context)
    t.absorb(key, len(inputs), *inputs, len(outputs), *outputs, len(extra), *extra)
    return t


# -- the shuffle argument --------------------------------------------------------------------------


def _empty_shuffle_proof() -> dict[str, Any]:
    return {"points": [], "scalars": [], "fb": [], "fw": [], "fc": []}


def shuffle_proof_size(n: int) -> int:
    """Bytes of scalars and points in a shuffle proof of ``n`` cards (without msgpack framing)."""
    return 32 * (len(_SHUFFLE_POINTS) + len(_SHUFFLE_SCALARS) + 3 * n)


def prove_shuffle(
    context: bytes,
    inputs: Sequence[bytes],
    outputs: Sequence[bytes],
    key: bytes,
    scalar: bytes,
    perm: Sequence[int],
    nonce_key: bytes,
) -> dict[str, Any]:
    """Prove ``outputs[j] == scalar * inputs[perm[j]]`` and ``key == scalar * B``."""
    n = len(inputs)
    if n == 0:  # an empty transfer: nothing to prove
        return _empty_shuffle_proof()
    gens, blind, value = generators(n)
    k = _i(scalar)
    t = _statement("shuffle", context, key, inputs, outputs)
    nonce = ProofNonces(nonce_key, t.state())

    m = [perm[j] for j in range(n)]
    r_m = nonce("rM")
    big_m = _add(_small_msm(m, gens), _mul(r_m, blind))
    t.absorb("M", _not_identity(big_m))
    a = t.challenges("a", n)

    b = [a[perm[j]] for j in range(n)]
    r_a = nonce("rA")
    big_a = _msm([(b[j], gens[j]) for j in range(n)] + [(r_a, blind)])
    t.absorb("A", _not_identity(big_a))
    alpha, beta = t.challenge("alpha"), t.challenge("beta")

    c = [(b[j] + alpha * m[j]) % L for j in range(n)]
    r_c = (r_a + alpha * r_m) % L
    gaps = [(beta - cj) % L for cj in c]
    if 0 in gaps:  # probability n/L: no honest prover meets it
        raise ValueError("degenerate challenge")
    w = _batch_inverse(gaps)
    r_w = nonce("rW")
    big_w = _msm([(w[j], gens[j]) for j in range(n)] + [(r_w, blind)])
    t.absorb("W", _not_identity(big_w))
    y = t.challenge("y")
    powers = _powers(y, n)

    db = [nonce("db", j) for j in range(n)]
    dw = [nonce("dw", j) for j in range(n)]
    dc = [nonce("dc", j) for j in range(n)]
    rho_b, rho_w, rho_c, kappa = nonce("rho_b"), nonce("rho_w"), nonce("rho_c"), nonce("kappa")
    tau0, tau1 = nonce("tau0"), nonce("tau1")
    # sum db_j T_j - kappa * Z with Z = sum a_i R_i; T_j = k R[perm[j]], so one MSM over R.
    inverse_perm = [0] * n
    for j, i in enumerate(perm):
        inverse_perm[i] = j
    e1 = sum(dw) % L
    g1 = sum(powers[j] * (dw[j] * gaps[j] - w[j] * dc[j]) for j in range(n)) % L
    g0 = -sum(powers[j] * dw[j] * dc[j] for j in range(n)) % L
    groups = {
        "DA": [(db[j], gens[j]) for j in range(n)] + [(rho_b, blind)],
        "DZ": [((db[inverse_perm[i]] * k - kappa * a[i]) % L, inputs[i]) for i in range(n)],
        "DW": [(dw[j], gens[j]) for j in range(n)] + [(rho_w, blind)],
        "DC": [(dc[j], gens[j]) for j in range(n)] + [(rho_c, blind)],
        "T1": [(g1, value), (tau1, blind)],
        "T0": [(g0, value), (tau0, blind)],
    }
    made = dict(zip(groups, _msms(list(groups.values()))))
    made["DK"] = _base(kappa)
    points = {"M": big_m, "A": big_a, "W": big_w, **made}
    if any(p is None for p in points.values()):  # a nonce sum hit the identity: 2^-250
        raise ValueError("degenerate proof")
    t.absorb(*(_not_identity(points[name]) for name in _SHUFFLE_POINTS[3:]), _b(e1))
    x = t.challenge("x")

    return {
        "points": [points[name] for name in _SHUFFLE_POINTS],
        "scalars": [
            _b(v) for v in (e1, kappa + x * k, rho_b + x * r_a, rho_w + x * r_w, rho_c + x * r_c, tau0 + x * tau1)
        ],
        "fb": [_b(db[j] + x * b[j]) for j in range(n)],
        "fw": [_b(dw[j] + x * w[j]) for j in range(n)],
        "fc": [_b(dc[j] + x * c[j]) for j in range(n)],
    }


def verify_shuffle(context: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes], key: bytes, proof: Any) -> None:
    """Raise :class:`InvalidProof` unless ``proof`` shows ``outputs`` are ``inputs`` permuted and
    multiplied by the scalar behind ``key``. ``inputs`` must be valid points (the previous pass,
    checked by its own proof, or the card table); ``outputs`` and ``key`` are checked here."""
    checked = _shuffle_equations(context, inputs, outputs, key, proof)
    if checked is None:
        return
    terms, (fk, dk, x) = checked
    # The key: fk * B == DK + x * K.
    if _base(fk) != _add(dk, _mul(x, key)):
        raise InvalidProof("the response for the key does not match the public key")
    if _msm(terms) is not None:
        raise InvalidProof("the outputs are not the inputs permuted under one key")


def verify_shuffles(statements: Sequence[tuple[bytes, Sequence[bytes], Sequence[bytes], bytes, Any]]) -> None:
    """Check several shuffle proofs at once: ``statements`` are the arguments of
    :func:`verify_shuffle`, and this raises :class:`InvalidProof` if any one of them would (not
    saying which: on a failure, check them one by one to name it).

    Every proof's checks on scalars are made as one by one; its two point equations (the key's
    and the folded one, each a sum that must be the identity) are weighted by independent
    random 128-bit coefficients from :mod:`secrets` and added up into one multi-scalar
    multiplication, the terms of one point merged. So the generators, and a deck that is one
    pass's outputs and the next one's inputs, are multiplied once for the whole batch: for the
    shuffle passes of one operation with N seats, about (N + 2) n multiplications instead of
    3 N n. A sum of equations that are not all the identity is the identity with probability at
    most 2^-128 over the coefficients (every point is in the prime-order group: checked, or
    multiplied by libsodium, which refuses any other)."""
    merged: dict[bytes, int] = {}
    base = 0
    for statement in statements:
        checked = _shuffle_equations(*statement)
        if checked is None:
            continue
        terms, (fk, dk, x) = checked
        rho, sigma = _batch_weight(), _batch_weight()
        for scalar, point in terms:
            merged[point] = (merged.get(point, 0) + rho * scalar) % L
        # sigma * (fk B - DK - x K)
        base = (base + sigma * fk) % L
        merged[dk] = (merged.get(dk, 0) - sigma) % L
        key = statement[3]
        merged[key] = (merged.get(key, 0) - sigma * x) % L
    total = _add(_base(base), _msm(list((scalar, point) for point, scalar in merged.items())))
    if total is not None:
        raise InvalidProof("a proof of the batch fails")


def _batch_weight() -> int:
    """A random nonzero 128-bit coefficient (a CSPRNG's: a prover must not predict it)."""
    return secrets.randbits(128) or 1


def _shuffle_equations(
    context: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes], key: bytes, proof: Any
) -> tuple[list[tuple[int, bytes]], tuple[int, bytes, int]] | None:
    """A shuffle proof's checks that need no point arithmetic (raising :class:`InvalidProof`),
    and what remains: the terms of the folded equation, a sum that must be the identity, and
    ``(fk, DK, x)`` of the key's equation ``fk * B == DK + x * K``. ``None``: an empty proof of
    an empty shuffle, nothing to check."""
    n = len(inputs)
    _shaped(inputs, n, "inputs")
    _shaped(outputs, n, "outputs")
    _point(key, "public key")
    if not isinstance(proof, dict) or set(proof) != {"points", "scalars", "fb", "fw", "fc"}:
        raise InvalidProof("malformed proof")
    raw_points, raw_scalars = proof["points"], proof["scalars"]
    if n == 0 and proof == _empty_shuffle_proof():
        return None
    if not (
        isinstance(raw_points, list)
        and len(raw_points) == len(_SHUFFLE_POINTS)
        and isinstance(raw_scalars, list)
        and len(raw_scalars) == len(_SHUFFLE_SCALARS)
    ):
        raise InvalidProof("malformed proof")
    vectors = {}
    for name in ("fb", "fw", "fc"):
        vector = proof[name]
        if not isinstance(vector, list) or len(vector) != n:
            raise InvalidProof(f"malformed proof: {name} holds {n} scalars")
        vectors[name] = [_scalar(v, name) for v in vector]
    _shaped(raw_points, len(_SHUFFLE_POINTS), "proof points")
    # Each point goes into the equations below, multiplied by libsodium, which refuses any
    # point outside the prime-order group (one with a zero scalar is checked alone: _products):
    # checking them here as well cost a multiplication's worth each (issue 31). DK, which the
    # key's equation only adds, is checked here.
    points = dict(zip(_SHUFFLE_POINTS, raw_points))
    _point(points["DK"], "DK")
    e1, fk, frb, frw, frc, ftau = (_scalar(v, name) for name, v in zip(_SHUFFLE_SCALARS, raw_scalars))
    fb, fw, fc = vectors["fb"], vectors["fw"], vectors["fc"]
    gens, blind, value = generators(n)

    t = _statement("shuffle", context, key, inputs, outputs)
    t.absorb("M", points["M"])
    a = t.challenges("a", n)
    t.absorb("A", points["A"])
    alpha, beta = t.challenge("alpha"), t.challenge("beta")
    t.absorb("W", points["W"])
    y = t.challenge("y")
    t.absorb(*(points[name] for name in _SHUFFLE_POINTS[3:]), _b(e1))
    x = t.challenge("x")

    # The public side of the multiset check: sum of 1 / (beta - a_i - alpha * i).
    gaps = [(beta - a[i] - alpha * i) % L for i in range(n)]
    if 0 in gaps:
        raise InvalidProof("degenerate challenge")
    total = sum(_batch_inverse(gaps)) % L
    if sum(fw) % L != (e1 + x * total) % L:
        raise InvalidProof("the committed inverses do not add up: not a permutation")

    # Every other equation, each weighted by a challenge drawn after the whole proof, in one
    # multi-scalar multiplication that must come to the identity:
    #   (1) sum fb_j G_j + frb H = DA + x A
    #   (2) sum fb_j T_j - fk * sum a_i R_i = DZ
    #   (3) sum fw_j G_j + frw H = DW + x W
    #   (4) sum fc_j G_j + frc H = DC + x (A + alpha M)
    #   (5) q U + ftau H = x^2 g U + x T1 + T0, q = sum y^j fw_j (x beta - fc_j), g = sum y^j
    t.absorb(*proof["fb"], *proof["fw"], *proof["fc"], *raw_scalars)
    g1, g2, g3, g4, g5 = t.challenges("batch", 5)
    powers = _powers(y, n)
    q = sum(powers[j] * fw[j] * (x * beta - fc[j]) for j in range(n)) % L
    g = sum(powers) % L
    terms: list[tuple[int, bytes]] = []
    terms += [(g1 * fb[j] + g3 * fw[j] + g4 * fc[j], gens[j]) for j in range(n)]
    terms += [(g2 * fb[j], outputs[j]) for j in range(n)]
    terms += [(-g2 * fk * a[i], inputs[i]) for i in range(n)]
    terms += [
        (g1 * frb + g3 * frw + g4 * frc + g5 * ftau, blind),
        (g5 * (q - x * x * g), value),
        (-g1, points["DA"]),
        (-(g1 + g4) * x, points["A"]),
        (-g4 * x * alpha, points["M"]),
        (-g2, points["DZ"]),
        (-g3, points["DW"]),
        (-g3 * x, points["W"]),
        (-g4, points["DC"]),
        (-g5 * x, points["T1"]),
        (-g5, points["T0"]),
    ]
    return terms, (fk, points["DK"], x)


# -- the re-lock proof -----------------------------------------------------------------------------


def relock_proof_size(n: int) -> int:
    return 32 * (n + 1)


def prove_relock(
    context: bytes,
    inputs: Sequence[bytes],
    outputs: Sequence[bytes],
    key: bytes,
    keys: Sequence[bytes],
    scalars: Sequence[bytes],
    nonce_key: bytes,
    key_scalar: bytes | None = None,
) -> dict[str, Any]:
    """Prove ``outputs[j] == scalars[j] * inputs[j]`` and ``keys[j] == scalars[j] * key`` for
    every j: one Chaum-Pedersen proof per position under one challenge. ``key_scalar``, if the
    prover gives it, is the scalar behind ``key`` (``key == key_scalar * B``): each
    ``delta * key`` is then ``(delta * key_scalar) * B``, by the fixed-base multiplication (the
    same points, a fifth of the cost)."""
    n = len(inputs)
    t = _statement("relock", context, key, inputs, outputs, keys)
    nonce = ProofNonces(nonce_key, t.state())
    deltas = [nonce("d", j) for j in range(n)]
    if key_scalar is not None:
        k = _i(key_scalar)
        products = _products(deltas, list(inputs)) + [_base(delta * k) for delta in deltas]
    else:
        products = _products(deltas + deltas, list(inputs) + [key] * n)
    for j in range(n):
        t.absorb(_not_identity(products[j]), _not_identity(products[n + j]))
    c = t.challenge("c")
    return {"c": _b(c), "f": [_b(deltas[j] + c * _i(scalars[j])) for j in range(n)]}


def verify_relock(
    context: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes], key: bytes, keys: Sequence[bytes], proof: Any
) -> None:
    """Raise :class:`InvalidProof` unless each output is its input under the scalar behind its
    public key in ``keys`` (relative to ``key``). Checks ``outputs``, ``keys`` and ``key``."""
    n = len(inputs)
    _shaped(inputs, n, "inputs")
    _shaped(outputs, n, "outputs")
    _shaped(keys, n, "keys")
    _point(key, "public key")
    if not (
        isinstance(proof, dict) and set(proof) == {"c", "f"} and isinstance(proof["f"], list) and len(proof["f"]) == n
    ):
        raise InvalidProof("malformed proof")
    c = _scalar(proof["c"], "c")
    f = [_scalar(v, "f") for v in proof["f"]]
    t = _statement("relock", context, key, inputs, outputs, keys)
    if c == 0 or 0 in f:
        raise InvalidProof("zero challenge or response")
    # f R - c T and f K - c P: the prover's commitments, recomputed (4n multiplications in one
    # batch over the cores).
    products = _products(f + [-c] * n + f + [-c] * n, [*inputs, *outputs, *([key] * n), *keys])
    add = _na.crypto_core_ed25519_add
    for j in range(n):
        # (No product is the identity: c and every f were checked nonzero above.)
        first = add(_not_identity(products[j]), _not_identity(products[n + j]))
        t.absorb(first, add(_not_identity(products[2 * n + j]), _not_identity(products[3 * n + j])))
    if t.challenge("c") != c:
        raise InvalidProof("an output is not its input under the key it publishes")


# -- helpers ----------------------------------------------------------------------------------------


def _powers(y: int, n: int) -> list[int]:
    out, value = [], 1
    for _ in range(n):
        out.append(value)
        value = value * y % L
    return out


def _batch_inverse(values: Sequence[int]) -> list[int]:
    prefix = [1]
    for v in values:
        prefix.append(prefix[-1] * v % L)
    inverse = pow(prefix[-1], -1, L)
    out = [0] * len(values)
    for i in range(len(values) - 1, -1, -1):
        out[i] = inverse * prefix[i] % L
        inverse = inverse * values[i] % L
    return out

"""The prime-order group of edwards25519 through libsodium, and the hashes and PRFs of the deck.

Points are 32-byte canonical encodings; scalars are 32-byte little-endian integers reduced modulo
the group order L and never zero. Every byte layout here is specified in protocol/deck.md.

Point validation: libsodium's ``crypto_scalarmult_ed25519_noclamp`` refuses (before any arithmetic)
a non-canonical encoding, a point off the curve, a small-order point, a point outside the
prime-order subgroup (mixed order, e.g. T2 + B) and the identity; :func:`is_valid_point` runs the
same checks without multiplying. A multiplication of a valid point by a valid scalar never fails,
so any failure is the fault of whoever supplied the point.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Iterable, Iterator, Sequence

from nacl import bindings as _na
from nacl.exceptions import RuntimeError as _NaclError

from .. import cores

__all__ = [
    "GROUP_ORDER",
    "InvalidPoint",
    "InvalidScalar",
    "MultiplyMany",
    "PRF_KEY_BYTES",
    "PrfScalars",
    "batch_invert",
    "card_point",
    "check_scalar",
    "digest",
    "encode_parts",
    "invert",
    "is_valid_point",
    "mul",
    "multiply",
    "multiply_many",
    "prf_scalar",
    "prf_stream",
    "public_stream",
    "scalar_product",
    "uniform_below",
    "derive_permutation",
    "parallel_multiply_many",
    "threaded_multiply_many",
    "words",
]

GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493
PRF_KEY_BYTES = 32
_PERSON_HASH = b"p2pcards-deck-h"
_PERSON_PRF = b"p2pcards-deck-k"


class InvalidPoint(ValueError):
    """A point that is not a canonical, non-identity element of the prime-order subgroup."""

    def __init__(self, index: int, message: str = "invalid point"):
        super().__init__(f"{message} at index {index}")
        self.index = index


class InvalidScalar(ValueError):
    """A scalar that is not 32 bytes, not reduced modulo L, or zero."""


# -- hashing -------------------------------------------------------------------------------------


def encode_parts(parts: Iterable[bytes | str | int]) -> bytes:
    """Each part as a 4-byte big-endian length and its bytes; str is UTF-8, int is 8-byte
    big-endian unsigned. Unambiguous, so distinct tuples never hash alike."""
    out = bytearray()
    for part in parts:
        if isinstance(part, str):
            part = part.encode()
        elif type(part) is int:  # not a bool, which would read as 0 or 1
            part = struct.pack(">Q", part)
        elif not isinstance(part, bytes):
            raise TypeError(f"a hashed part is bytes, str or int, not {type(part).__name__}")
        out += struct.pack(">I", len(part))
        out += part
    return bytes(out)


def digest(tag: str, *parts: bytes | str | int) -> bytes:
    """H(tag, parts...): 32-byte BLAKE2b, personalised, over :func:`encode_parts`."""
    return hashlib.blake2b(encode_parts((tag, *parts)), digest_size=32, person=_PERSON_HASH).digest()


def _prf(key: bytes, tag: str, parts: Sequence[bytes | str | int], counter: int) -> bytes:
    data = encode_parts((tag, *parts, counter))
    return hashlib.blake2b(data, digest_size=64, key=key, person=_PERSON_PRF).digest()


def prf_stream(key: bytes, tag: str, *parts: bytes | str | int) -> Iterator[bytes]:
    """64-byte blocks PRF(key, tag, parts, 0), PRF(..., 1), ...: keyed BLAKE2b in counter mode."""
    counter = 0
    while True:
        yield _prf(key, tag, parts, counter)
        counter += 1


class PrfScalars:
    """``prf_scalar(key, tag, *prefix, *rest)`` for many ``rest`` with the same prefix, hashing
    the prefix once (the encoding is a concatenation, so the result is the same)."""

    def __init__(self, key: bytes, tag: str, *prefix: bytes | str | int):
        self._state = hashlib.blake2b(digest_size=64, key=key, person=_PERSON_PRF)
        self._state.update(encode_parts((tag, *prefix)))

    def __call__(self, *rest: bytes | str | int) -> bytes:
        counter = 0
        while True:
            h = self._state.copy()
            h.update(encode_parts((*rest, counter)))
            scalar = _na.crypto_core_ed25519_scalar_reduce(h.digest())
            if scalar != bytes(32):
                return scalar
            counter += 1


def public_stream(tag: str, *parts: bytes | str | int) -> Iterator[bytes]:
    """Like :func:`prf_stream` without a key (for public coins): 32-byte H(tag, parts, counter)."""
    counter = 0
    while True:
        yield digest(tag, *parts, counter)
        counter += 1


def prf_scalar(key: bytes, tag: str, *parts: bytes | str | int) -> bytes:
    """A nonzero scalar: the first 64-byte block of the stream whose reduction mod L is nonzero."""
    for block in prf_stream(key, tag, *parts):
        scalar = _na.crypto_core_ed25519_scalar_reduce(block)
        if scalar != bytes(32):
            return scalar
    raise AssertionError("unreachable")


def words(blocks: Iterator[bytes]) -> Iterator[int]:
    """The byte stream read as consecutive 8-byte big-endian unsigned words."""
    for block in blocks:
        for offset in range(0, len(block) - 7, 8):
            yield struct.unpack_from(">Q", block, offset)[0]


def uniform_below(bound: int, stream: Iterator[int]) -> int:
    """A uniform integer in range(bound) by rejection sampling (never a bare ``% bound``): take
    words from ``stream``, reject those at or above the largest multiple of ``bound`` that fits
    in 2**64, reduce the first one kept."""
    if not 0 < bound <= 2**64:
        raise ValueError("bound must be in 1..2**64")
    limit = 2**64 - (2**64 % bound)
    for word in stream:
        if word < limit:
            return word % bound
    raise AssertionError("unreachable: the stream is endless")


def derive_permutation(n: int, stream: Iterator[int]) -> list[int]:
    """Fisher-Yates (Durstenfeld): for i = n-1 down to 1 swap items i and j, j = uniform_below(i+1)
    from ``stream``. ``result[j]`` is the input index that lands at output position j."""
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        j = uniform_below(i + 1, stream)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def card_point(context: bytes, label: str) -> bytes:
    """The point of one physical card: Elligator 2 of H("card", context, label), cofactor cleared
    by libsodium, so it is in the prime-order subgroup and nobody knows its discrete log."""
    return _na.crypto_core_ed25519_from_uniform(digest("card", context, label))


# -- scalars ---------------------------------------------------------------------------------------


def check_scalar(scalar: object) -> bytes:
    """Return ``scalar`` if it is 32 bytes, reduced mod L and nonzero; else raise InvalidScalar."""
    if not isinstance(scalar, bytes) or len(scalar) != 32:
        raise InvalidScalar("a scalar is 32 bytes")
    if int.from_bytes(scalar, "little") >= GROUP_ORDER:
        raise InvalidScalar("scalar not reduced modulo the group order")
    if scalar == bytes(32):
        raise InvalidScalar("zero scalar")
    return scalar


# Scalar arithmetic modulo L in Python integers: the same bytes as libsodium's
# crypto_core_ed25519_scalar_mul / _invert (tests/deck/test_group.py compares them), at a third
# of the cost of a call through the bindings.


def _int(scalar: bytes) -> int:
    return int.from_bytes(scalar, "little")


def _bytes(value: int) -> bytes:
    return value.to_bytes(32, "little")


def mul(a: bytes, b: bytes) -> bytes:
    return _bytes(_int(a) * _int(b) % GROUP_ORDER)


def invert(a: bytes) -> bytes:
    """The inverse of a scalar that is nonzero modulo L."""
    return _bytes(pow(_int(a), -1, GROUP_ORDER))


def scalar_product(scalars: Iterable[bytes]) -> bytes:
    result = 1
    for s in scalars:
        result = result * _int(s) % GROUP_ORDER
    return _bytes(result)


def batch_invert(scalars: Sequence[bytes]) -> list[bytes]:
    """Inverses of nonzero scalars with one inversion (Montgomery's trick)."""
    if not scalars:
        return []
    values = [_int(s) for s in scalars]
    prefix = [1]
    for v in values:
        prefix.append(prefix[-1] * v % GROUP_ORDER)
    inv = pow(prefix[-1], -1, GROUP_ORDER)
    out = [b""] * len(values)
    for i in range(len(values) - 1, -1, -1):
        out[i] = _bytes(inv * prefix[i] % GROUP_ORDER)
        inv = inv * values[i] % GROUP_ORDER
    return out


# -- points ----------------------------------------------------------------------------------------


def is_valid_point(point: object) -> bool:
    return isinstance(point, bytes) and len(point) == 32 and bool(_na.crypto_core_ed25519_is_valid_point(point))


def multiply(scalar: bytes, point: object, index: int = 0) -> bytes:
    """scalar * point; raises InvalidPoint (naming ``index``) when libsodium refuses the point."""
    if not isinstance(point, bytes) or len(point) != 32:
        raise InvalidPoint(index, "a point is 32 bytes")
    try:
        return _na.crypto_scalarmult_ed25519_noclamp(scalar, point)
    except _NaclError:
        raise InvalidPoint(index) from None


MultiplyMany = Callable[[Sequence[bytes], Sequence[object]], list[bytes]]
"""``f(scalars, points) -> [s * p ...]``; raises InvalidPoint naming the first bad index. A
driver may pass a parallel one to a Party (libsodium releases the GIL)."""


def multiply_many(scalars: Sequence[bytes], points: Sequence[object], start: int = 0) -> list[bytes]:
    mult = _na.crypto_scalarmult_ed25519_noclamp
    out = []
    for i, (s, p) in enumerate(zip(scalars, points, strict=True)):
        try:
            if not isinstance(p, bytes) or len(p) != 32:
                raise _NaclError
            out.append(mult(s, p))
        except _NaclError:
            raise InvalidPoint(start + i) from None
    return out


#: Threads :func:`parallel_multiply_many` uses: this machine's cores, at most four.
PARALLEL_WORKERS = cores.WORKERS
#: Below this many points one thread does it. Alone on the machine two threads win from 4
#: points (385 us in one thread, 300 in two), but with more peers than cores the other thread
#: waits for a core: doubts with 5 and 7 peer processes on 2 cores were 1-2 ms slower with the
#: threshold at 4 than at 32 (scripts/bench, two runs each).
PARALLEL_MIN_POINTS = 32


def split_multiply_many(
    scalars: Sequence[bytes], points: Sequence[object], executor, workers: int, min_points: int = PARALLEL_MIN_POINTS
) -> list[bytes]:
    """:func:`multiply_many` split over ``workers`` threads (libsodium releases the GIL): the
    calling thread does the first share while ``executor`` does the rest. Same result, same
    :class:`InvalidPoint` (the first bad index)."""
    n = len(points)
    if workers < 2 or n < min_points:
        return multiply_many(scalars, points)
    if len(scalars) != n:
        raise ValueError("one scalar per point")
    (_, first), *rest = cores.shares(n, workers)
    futures = [executor.submit(multiply_many, scalars[a:b], points[a:b], a) for a, b in rest]
    out: list[bytes] = []
    errors: list[InvalidPoint] = []
    try:
        out += multiply_many(scalars[:first], points[:first])
    except InvalidPoint as exc:
        errors.append(exc)
    for future in futures:
        try:
            out += future.result()
        except InvalidPoint as exc:
            errors.append(exc)
    if errors:
        raise min(errors, key=lambda e: e.index)
    return out


def threaded_multiply_many(executor, workers: int, min_points: int = PARALLEL_MIN_POINTS) -> MultiplyMany:
    """A MultiplyMany that splits the work over ``workers`` threads, ``executor``'s among them,
    from ``min_points`` points."""

    def run(scalars: Sequence[bytes], points: Sequence[object]) -> list[bytes]:
        return split_multiply_many(scalars, points, executor, workers, min_points)

    return run


def parallel_multiply_many(scalars: Sequence[bytes], points: Sequence[object]) -> list[bytes]:
    """:func:`split_multiply_many` over this machine's cores (:data:`PARALLEL_WORKERS`), with
    a pool shared by the whole process."""
    if PARALLEL_WORKERS < 2 or len(points) < PARALLEL_MIN_POINTS:
        return multiply_many(scalars, points)
    return split_multiply_many(scalars, points, cores.pool(), PARALLEL_WORKERS)

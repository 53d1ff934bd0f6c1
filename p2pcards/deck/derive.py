"""Every value of the deck protocol that is computed rather than chosen (protocol/deck.md, §3).

A player's secrets all come from its 32-byte seed through a PRF over the game id and a label, so
revealing the seeds at the end lets anyone recompute the whole game.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from .group import (
    PrfScalars,
    derive_permutation,
    digest,
    prf_scalar,
    prf_stream,
    public_stream,
    uniform_below,
    words,
)
from .group import card_point as _card_point

__all__ = [
    "SEED_BYTES",
    "Secrets",
    "card_table",
    "coin_value",
    "context_digest",
    "game_id_of",
    "nonce_commitment",
    "nonce_of",
    "seed_commitment",
]

SEED_BYTES = 32


def context_digest(header: bytes, players: int, labels: Sequence[str]) -> bytes:
    """What the lobby agreed on: its header bytes, the number of seats, the deck in order."""
    return digest("context", header, players, len(labels), *labels)


def nonce_of(seed: bytes, context: bytes) -> bytes:
    return next(prf_stream(seed, "nonce", context))[:32]


def seed_commitment(context: bytes, seat: int, seed: bytes) -> bytes:
    return digest("seed-commit", context, seat, seed)


def nonce_commitment(context: bytes, seat: int, nonce: bytes) -> bytes:
    return digest("nonce-commit", context, seat, nonce)


def game_id_of(
    context: bytes, seed_commits: Sequence[bytes], nonce_commits: Sequence[bytes], nonces: Sequence[bytes]
) -> bytes:
    return digest("game", context, *seed_commits, *nonce_commits, *nonces)


@lru_cache(maxsize=8)
def card_table(context: bytes, labels: tuple[str, ...]) -> tuple[bytes, ...]:
    """The point of every physical card (a pure function, so a process may share it). It
    depends only on the lobby's ``context``, so a seat derives it before the game starts."""
    points = tuple(_card_point(context, label) for label in labels)
    if len(set(points)) != len(points):  # 2**-250; checked so the lookup table is sound
        raise ValueError("two cards hash to the same point")
    return points


def coin_value(game_id: bytes, label: str, bound: int) -> int:
    """A public coin nobody can bias: every nonce was committed before any was revealed."""
    return uniform_below(bound, words(public_stream("coin", game_id, label)))


class Secrets:
    """The secrets of one seat in one game, all derived from its seed."""

    def __init__(self, seed: bytes, game_id: bytes):
        if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
            raise ValueError(f"a seed is {SEED_BYTES} bytes")
        self.seed = seed
        self.game_id = game_id
        self._card_key = PrfScalars(seed, "card-key", game_id)
        self._card_keys: dict[int, bytes] = {}

    def shuffle_key(self, epoch: int) -> bytes:
        return prf_scalar(self.seed, "shuffle-key", self.game_id, epoch)

    def card_key(self, handle: int) -> bytes:
        key = self._card_keys.get(handle)
        if key is None:
            key = self._card_keys[handle] = self._card_key(handle)
        return key

    def forget_card_keys(self, handles: range) -> None:
        """Drop the kept per-card keys of ``handles`` (a finished hand's: never asked again)."""
        for handle in handles:
            self._card_keys.pop(handle, None)

    def proof_key(self) -> bytes:
        """The key of this seat's proof nonces (protocol/deck.md §5): from the seed, so a
        replay recomputes its proofs byte for byte."""
        return next(prf_stream(self.seed, "proof-key", self.game_id))[:32]

    def rehandle_key(self, op: int) -> bytes:
        """The one scalar that re-handles every card a transfer (operation ``op``) moves to us."""
        return prf_scalar(self.seed, "rehandle-key", self.game_id, op)

    def rehandle_factor(self, op: int, j: int) -> bytes:
        """The factor of its own that card ``j`` (in sorted order) of transfer ``op`` gets after
        the one re-handling scalar (deck protocol 3): what a seat that gets the card back learns
        of this seat's re-handling is this one card's combined factor, nothing of the others'."""
        return prf_scalar(self.seed, "rehandle-factor", self.game_id, op, j)

    def permutation(self, epoch: int, n: int) -> list[int]:
        return derive_permutation(n, words(prf_stream(self.seed, "permutation", self.game_id, epoch)))

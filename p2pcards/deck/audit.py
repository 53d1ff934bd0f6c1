"""What remains of the end-of-game audit (protocol/deck.md §7 before version 12): the seeds'
composed permutations, which verify's seeded replay (``verify/replay.py``) still reads for a
file whose seeds were revealed. No seed is revealed since protocol version 12, so nothing
recomputes the deck from the seeds any more; this module goes with verify's seeded replay.
"""

from __future__ import annotations

from functools import lru_cache

from .derive import Secrets

__all__ = ["final_order", "revealed_secrets"]


def final_order(secrets: list[Secrets], epoch: int, n: int) -> list[int]:
    """The card (index into the deck) at each position of epoch ``epoch``'s final deck: the
    seats' permutations composed in pass order (no multiplication needed)."""
    order = list(range(n))
    for sec in secrets:
        perm = sec.permutation(epoch, n)
        order = [order[i] for i in perm]
    return order


@lru_cache(maxsize=16)
def revealed_secrets(seed: bytes, game_id: bytes) -> Secrets:
    """One Secrets per revealed seed, shared by every audit in this process (the seats that
    verify replays audit the same game; the seeds are public by now)."""
    return Secrets(seed, game_id)

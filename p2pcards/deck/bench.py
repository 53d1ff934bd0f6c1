"""Timing the deck: the cost of one scalar multiplication and of a whole setup.

``setup_benchmark(players, cards)`` times "commit until every hand is decoded" (commit, nonces,
one shuffle, a deal of every card round the table) with all parties in this process, and reports:

* ``wall``: the time it took here, every party's work done one after another;
* ``critical_path``: the virtual-clock time of :class:`~p2pcards.deck.local.LocalNetwork`, i.e.
  the setup time of a table where each party has its own machine (with ``workers`` threads) and
  every message takes ``hop`` seconds (default 0: an instant network);
* ``floor``: (2N-1) * n scalar multiplications at the cost measured in the same run, the
  sequential chain of passes no dealer-free scheme of this shape can avoid.

``python -m p2pcards.deck.bench [--workers 2]`` prints the three standard tables.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from nacl import bindings as _na

from ..cards import Card, Suit, build_deck
from .derive import card_table
from .group import digest
from .local import LocalNetwork, multiplier
from .party import DealOp, Party, ShuffleOp

__all__ = ["deck_of_size", "scalar_mult_cost", "setup_benchmark"]

STANDARD = [(4, 208), (7, 54), (3, 117)]


def deck_of_size(n: int) -> list[Card]:
    """The project's decks: 52, 54 (two jokers), 117 (three packs less clubs), 208 (four packs)."""
    decks = {
        52: lambda: build_deck(),
        54: lambda: build_deck(jokers=2),
        117: lambda: build_deck(packs=3, without_suits=[Suit.CLUBS]),
        208: lambda: build_deck(packs=4),
    }
    if n in decks:
        return decks[n]()
    if n < 52:
        return build_deck()[:n]
    raise ValueError(f"no standard deck of {n} cards")


def scalar_mult_cost(samples: int = 2000) -> float:
    """Seconds per crypto_scalarmult_ed25519_noclamp, measured now."""
    scalar = _na.crypto_core_ed25519_scalar_reduce(os.urandom(64))
    point = _na.crypto_core_ed25519_from_uniform(os.urandom(32))
    mult = _na.crypto_scalarmult_ed25519_noclamp
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        for _ in range(samples):
            point = mult(scalar, point)
        best = min(best, (time.perf_counter() - began) / samples)
    return best


def setup_benchmark(players: int, cards: int, *, workers: int = 1, repeat: int = 3, hop: float = 0.0) -> dict[str, Any]:
    """Best of ``repeat`` setups; see the module doc for the figures."""
    deck = deck_of_size(cards)
    mult = scalar_mult_cost()
    best: dict[str, Any] | None = None
    for attempt in range(repeat):
        card_table.cache_clear()  # each party computes its card table, as it would on its own machine
        seeds = [digest("bench", attempt, seat) for seat in range(players)]
        began = time.perf_counter()
        parties = [
            Party(seat, players, b"bench", deck, seeds[seat], multiply_many=multiplier(workers), send_first=True)
            for seat in range(players)
        ]
        net = LocalNetwork(parties, hop=hop)
        for p in parties:
            net.call(p.seat, p.start)
        net.run()
        for op in (ShuffleOp(), DealOp({h: h % players for h in range(cards)})):
            now = max(net.clock)
            for p in parties:
                net.call(p.seat, p.begin, op, at=now)
            net.run()
        wall = time.perf_counter() - began
        if not all(p.done and p.blame is None for p in parties):
            raise RuntimeError("setup did not complete")
        if sum(len(p.known) for p in parties) != cards:
            raise RuntimeError("not every card was decoded exactly once")
        result = {
            "players": players,
            "cards": cards,
            "workers": workers,
            "hop": hop,
            "wall": wall,
            "critical_path": max(net.clock),
            "scalar_mult": mult,
            "floor": (2 * players - 1) * cards * mult,
            "messages": net.messages,
            "bytes": net.bytes,
        }
        if best is None or result["wall"] < best["wall"]:
            best = result
    assert best is not None, "repeat must be at least 1"
    best["wall_vs_floor"] = best["wall"] / best["floor"]
    best["critical_vs_floor"] = best["critical_path"] / best["floor"]
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1, help="threads per pass (libsodium releases the GIL)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--hop-ms", type=float, default=0.0, help="delay of every message (default 0)")
    args = parser.parse_args(argv)
    print(f"one scalar multiplication: {scalar_mult_cost() * 1e6:.1f} us")
    print(f"{'N x n':>8} {'floor ms':>9} {'wall ms':>9} {'x floor':>8} {'crit ms':>9} {'x floor':>8} {'KB':>6}")
    for players, cards in STANDARD:
        r = setup_benchmark(players, cards, workers=args.workers, repeat=args.repeat, hop=args.hop_ms / 1e3)
        print(
            f"{players:>3} x {cards:<3} {r['floor'] * 1e3:9.1f} {r['wall'] * 1e3:9.1f} {r['wall_vs_floor']:8.2f}"
            f" {r['critical_path'] * 1e3:9.1f} {r['critical_vs_floor']:8.2f} {r['bytes'] / 1024:6.0f}"
        )


if __name__ == "__main__":
    main()


# -- what the proofs cost ----------------------------------------------------------------------------

#: Scalar multiplications of the proofs (protocol/deck.md §5), as the floors count them: a
#: shuffle proof is seven vector commitments of n terms and a few single ones to make, one
#: multi-scalar multiplication of 3n + 11 terms and two to check; a re-lock proof 2 per card
#: to make and 4 to check. (Each multi-scalar term also costs an addition, about a fifth of a
#: multiplication through the bindings; the floors leave additions out.)


def shuffle_proof_mults(n: int) -> tuple[int, int]:
    """(to prove, to verify) a shuffle of ``n`` cards."""
    return 7 * n + 10, 3 * n + 13


def relock_proof_mults(n: int) -> tuple[int, int]:
    return 2 * n, 4 * n


def setup_critical_mults(players: int, n: int) -> int:
    """The chain of passes of one shuffle: each of the 2N passes is checked by the next seat,
    computed (n multiplications) and proven, one after another."""
    shuffle_prove, shuffle_verify = shuffle_proof_mults(n)
    relock_prove, relock_verify = relock_proof_mults(n)
    return players * (shuffle_verify + n + shuffle_prove) + players * (relock_verify + n + relock_prove)


def proof_costs(players: int, n: int, repeat: int = 3) -> dict[str, Any]:
    """CPU (this thread's process time, the best of ``repeat``) to make and to check one shuffle
    and one re-lock pass of ``n`` cards, their proofs' bytes, and each seat's share of a setup
    with and without proofs: its two passes and their proofs, the other seats' 2(N-1) proofs
    checked. "Without proofs" is a row of this benchmark only (deck v1's passes, checked for
    shape): no table plays without them."""
    import msgpack

    from .group import invert, mul, multiply_many, prf_scalar
    from .proofs import prove_relock, prove_shuffle, public_key, verify_relock, verify_shuffle

    deck = list(card_table(digest("bench", n), tuple(c.label() for c in deck_of_size(n))))
    k = prf_scalar(b"k" * 32, "bench")
    perm = list(range(n))[::-1]
    card_keys = [prf_scalar(b"x" * 32, "bench", j) for j in range(n)]
    z = [mul(x, invert(k)) for x in card_keys]
    key, keys = public_key(k), [public_key(x) for x in card_keys]

    def best(fn):
        times = []
        for _ in range(repeat):
            began = time.process_time()
            out = fn()
            times.append(time.process_time() - began)
        return min(times), out

    pass_shuffle, shuffled = best(lambda: multiply_many([k] * n, [deck[i] for i in perm]))
    pass_relock, relocked = best(lambda: multiply_many(z, shuffled))
    prove_s, shuffle_proof = best(lambda: prove_shuffle(b"bench", deck, shuffled, key, k, perm, b"n" * 32))
    verify_s, _ = best(lambda: verify_shuffle(b"bench", deck, shuffled, key, shuffle_proof))
    prove_r, relock_proof = best(lambda: prove_relock(b"bench", shuffled, relocked, key, keys, z, b"n" * 32, k))
    verify_r, _ = best(lambda: verify_relock(b"bench", shuffled, relocked, key, keys, relock_proof))
    without = pass_shuffle + pass_relock
    with_proofs = without + prove_s + prove_r + (players - 1) * (verify_s + verify_r)
    claims = claim_costs(best)

    def ms(seconds: float) -> float:
        return round(seconds * 1e3, 3)

    return {
        "shuffle_proof_bytes": len(msgpack.packb(shuffle_proof)),
        "relock_proof_bytes": len(msgpack.packb(relock_proof)),
        "pass_bytes": len(msgpack.packb(shuffled)),
        "shuffle_prove_ms": ms(prove_s),
        "shuffle_verify_ms": ms(verify_s),
        "relock_prove_ms": ms(prove_r),
        "relock_verify_ms": ms(verify_r),
        "peer_prove_ms": ms(prove_s + prove_r),
        "peer_verify_ms": ms((players - 1) * (verify_s + verify_r)),
        "peer_passes_without_proofs_ms": ms(without),
        "peer_passes_with_proofs_ms": ms(with_proofs),
        "proof_cost_ratio": round(with_proofs / without, 2) if without else None,
        **{name: ms(value) if name.endswith("_ms") else value for name, value in claims.items()},
    }


def claim_costs(best: Any) -> dict[str, Any]:
    """Deck protocol 3's proofs (issue 32): a face proof (a moved card shown to all, and each
    moved card's own factor at a transfer: one each per card) and Cal's BS quads claim (4 cards
    over the 13 ranks' 4 suits), to make and to check, seconds (``best``: the best of a few)."""
    import msgpack

    from ..cards import Card, Rank, Suit
    from .faceproofs import prove_face, prove_in_one_set, verify_face, verify_in_one_set
    from .group import card_point, multiply, prf_scalar

    sets = [[card_point(b"bench", Card(rank, suit).label()) for suit in Suit] for rank in Rank]
    xs = [prf_scalar(b"c" * 32, "bench", i) for i in range(4)]
    points = [multiply(x, sets[6][i]) for i, x in enumerate(xs)]
    face_prove, face = best(lambda: prove_face(b"bench", points[0], sets[6][0], xs[0], b"n" * 32))
    face_verify, _ = best(lambda: verify_face(b"bench", points[0], sets[6][0], face))
    openings = [(i, x) for i, x in enumerate(xs)]
    quads_prove, quads = best(lambda: prove_in_one_set(b"bench", points, sets, 6, openings, b"n" * 32))
    quads_verify, _ = best(lambda: verify_in_one_set(b"bench", points, sets, quads))
    return {
        "face_proof_prove_ms": face_prove,
        "face_proof_verify_ms": face_verify,
        "face_proof_bytes": len(msgpack.packb(face)),
        "quads_claim_prove_ms": quads_prove,
        "quads_claim_verify_ms": quads_verify,
        "quads_claim_bytes": len(msgpack.packb(quads)),
    }

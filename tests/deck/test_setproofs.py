"""Set claims (p2pcards.deck.faceproofs.prove_in_one_set): "these k cards all lie in one of
these sets of faces", without saying which set or which face: Cal's BS quads (four cards of one
rank, no jokers) without showing the rank. Completeness for every set, soundness against a
mixed set (three of one rank and one of another), a joker, a card named twice, a proof moved to
another statement, hostile input refused as InvalidProof only, and the cost."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nacl import bindings as na

from p2pcards.deck import faceproofs as fp
from p2pcards.deck.group import GROUP_ORDER, card_point, mul, prf_scalar
from p2pcards.deck.proofs import InvalidProof

from .deck_helpers import bad_points

L = GROUP_ORDER
CONTEXT = b"claim/game/action 31/seat 2"
NONCE_KEY = b"n" * 32
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = "cdhs"
SETS = [[card_point(b"table", f"{rank}{suit}#0") for suit in SUITS] for rank in RANKS]
JOKER = card_point(b"table", "JK#0")


def held(face: bytes, seed: int) -> tuple[bytes, bytes]:
    """A held card's point and cumulative scalar (locks and re-handlings multiplied)."""
    x = prf_scalar(b"s" * 32, "lock", seed)
    for step in range(2):
        x = mul(x, prf_scalar(b"s" * 32, "rehandle", seed, step))
    return na.crypto_scalarmult_ed25519_noclamp(x, face), x


def quads(rank: int, suits=(2, 0, 3, 1), seed: int = 0):
    cards = [held(SETS[rank][s], seed + i) for i, s in enumerate(suits)]
    return [p for p, _ in cards], [(s, x) for s, (_, x) in zip(suits, cards)]


# The first, a middle and the last rank in the fast tier (0.13 s each); every rank in the whole suite.
@pytest.mark.parametrize(
    "rank", [pytest.param(r, marks=() if r in (0, 6, 12) else pytest.mark.slow) for r in range(13)]
)
def test_true_quads_verify_for_every_rank(rank):
    points, openings = quads(rank, seed=rank * 10)
    proof = fp.prove_in_one_set(CONTEXT, points, SETS, rank, openings, NONCE_KEY)
    fp.verify_in_one_set(CONTEXT, points, SETS, proof)
    assert proof == fp.prove_in_one_set(CONTEXT, points, SETS, rank, openings, NONCE_KEY)  # deterministic


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_true_set_claim_verifies(data):
    sets = SETS[: data.draw(st.integers(1, 5))]
    chosen = data.draw(st.integers(0, len(sets) - 1))
    k = data.draw(st.integers(1, 4))
    suits = data.draw(st.permutations(range(4)))[:k]
    cards = [held(sets[chosen][s], 100 + i) for i, s in enumerate(suits)]
    proof = fp.prove_in_one_set(
        CONTEXT, [p for p, _ in cards], sets, chosen, [(s, x) for s, (_, x) in zip(suits, cards)], NONCE_KEY
    )
    fp.verify_in_one_set(CONTEXT, [p for p, _ in cards], sets, proof)


def test_the_proof_does_not_show_the_rank():
    """The proof has the same shape for every rank, and the branches of the real rank are as
    random as the others: one real proof verifies, and no field singles out its set."""
    points, openings = quads(7)
    proof = fp.prove_in_one_set(CONTEXT, points, SETS, 7, openings, NONCE_KEY)
    assert [len(row) for row in proof["c"]] == [4] * 13
    assert all(len(card) == 4 for row in proof["c"] for card in row)
    # every set's challenges sum alike over its cards: nothing in the sums says which is real
    sums = [{sum(int.from_bytes(c, "little") for c in card) % L for card in row} for row in proof["c"]]
    assert all(len(s) == 1 for s in sums)


def test_mixed_ranks_get_no_proof_through():
    """Three sevens and an eight: the prover cannot make a proof (its witness is refused),
    and an honest proof of true quads moved onto the mixed set fails."""
    points, openings = quads(5)
    eight, x8 = held(SETS[6][1], 99)
    with pytest.raises(ValueError):
        fp.prove_in_one_set(CONTEXT, points[:3] + [eight], SETS, 5, openings[:3] + [(1, x8)], NONCE_KEY)
    proof = fp.prove_in_one_set(CONTEXT, points, SETS, 5, openings, NONCE_KEY)
    with pytest.raises(InvalidProof):
        fp.verify_in_one_set(CONTEXT, points[:3] + [eight], SETS, proof)


def test_a_joker_is_in_no_set():
    points, openings = quads(3)
    joker, _ = held(JOKER, 5)
    proof = fp.prove_in_one_set(CONTEXT, points, SETS, 3, openings, NONCE_KEY)
    with pytest.raises(InvalidProof):
        fp.verify_in_one_set(CONTEXT, points[:3] + [joker], SETS, proof)


def test_a_card_named_twice_is_refused():
    points, openings = quads(3)
    with pytest.raises(InvalidProof):
        fp.prove_in_one_set(CONTEXT, points[:3] + points[:1], SETS, 3, openings[:3] + openings[:1], NONCE_KEY)
    proof = fp.prove_in_one_set(CONTEXT, points, SETS, 3, openings, NONCE_KEY)
    with pytest.raises(InvalidProof):
        fp.verify_in_one_set(CONTEXT, points[:3] + points[:1], SETS, proof)


def test_a_proof_holds_for_its_own_statement_only():
    """Another context (another move, seat or game: a replayed proof), the cards in another
    order or another card, fewer sets or sets in another order: all refused."""
    points, openings = quads(9)
    proof = fp.prove_in_one_set(CONTEXT, points, SETS, 9, openings, NONCE_KEY)
    for context, pts, sets in [
        (CONTEXT + b"!", points, SETS),
        (CONTEXT, points[::-1], SETS),
        (CONTEXT, points[:3] + [held(SETS[9][0], 77)[0]], SETS),
        (CONTEXT, points, SETS[::-1]),
    ]:
        with pytest.raises(InvalidProof):
            fp.verify_in_one_set(context, pts, sets, proof)


def test_every_scalar_of_the_proof_matters():
    points, openings = quads(0)
    proof = fp.prove_in_one_set(CONTEXT, points, SETS[:2], 0, openings, NONCE_KEY)
    for key in ("c", "f"):
        for u in range(2):
            for i in range(4):
                for s in range(4):
                    bent = {k: [[list(card) for card in row] for row in v] for k, v in proof.items()}
                    value = int.from_bytes(bent[key][u][i][s], "little")
                    bent[key][u][i][s] = ((value + 1) % L).to_bytes(32, "little")
                    with pytest.raises(InvalidProof):
                        fp.verify_in_one_set(CONTEXT, points, SETS[:2], bent)


@pytest.mark.parametrize(
    "proof",
    [
        None,
        {},
        {"c": [], "f": []},
        {"c": [[[b"\x01" * 32]]], "f": [[[b"\x01" * 32]]]},
        {"c": "x", "f": "y"},
        {"c": [[[b"\x00" * 32] * 4] * 4] * 13, "f": [[[b"\x01" * 32] * 4] * 4] * 13},
        {"c": [[[b"\xff" * 32] * 4] * 4] * 13, "f": [[[b"\x01" * 32] * 4] * 4] * 13},
        {"c": [[[b"\x01" * 31] * 4] * 4] * 13, "f": [[[b"\x01" * 32] * 4] * 4] * 13},
        {"c": [[[1] * 4] * 4] * 13, "f": [[[b"\x01" * 32] * 4] * 4] * 13},
        {"c": [[[b"\x01" * 32] * 4] * 4] * 13, "f": [[[b"\x01" * 32] * 4] * 4] * 13, "x": 1},
    ],
)
def test_malformed_proofs_are_refused_not_crashed_on(proof):
    points, _ = quads(2)
    with pytest.raises(InvalidProof):
        fp.verify_in_one_set(CONTEXT, points, SETS, proof)


@pytest.mark.parametrize("bad", sorted(bad_points()))
def test_bad_points_are_refused(bad):
    points, openings = quads(2)
    proof = fp.prove_in_one_set(CONTEXT, points, SETS, 2, openings, NONCE_KEY)
    with pytest.raises(InvalidProof):
        fp.verify_in_one_set(CONTEXT, points[:3] + [bad_points()[bad]], SETS, proof)
    with pytest.raises(InvalidProof):
        fp.verify_in_one_set(CONTEXT, points, [SETS[0][:3] + [bad_points()[bad]], *SETS[1:]], proof)


@pytest.mark.parametrize(
    "points, sets",
    [
        ([], SETS),
        ([b"\x01" * 31], SETS),
        (["x"], SETS),
        ([SETS[0][0]] * 9, SETS),
        ([SETS[0][0]], []),
        ([SETS[0][0]], [[]]),
        ([SETS[0][0]], [SETS[0], SETS[0]]),
        ([SETS[0][0]], [[SETS[0][0]]] * 17),
        ([SETS[0][0]], "sets"),
    ],
)
def test_malformed_statements_are_refused(points, sets):
    with pytest.raises(InvalidProof):
        fp.verify_in_one_set(CONTEXT, points, sets, {"c": [], "f": []})


def test_too_many_branches_are_refused():
    faces = [card_point(b"table", f"x{i}") for i in range(64)]
    points = [held(faces[i], i)[0] for i in range(8)]
    with pytest.raises(InvalidProof, match="branches"):
        fp.verify_in_one_set(
            CONTEXT, points, [faces[i : i + 8] for i in range(0, 64, 8)] + [[JOKER]], {"c": [], "f": []}
        )


def test_cost(capsys):
    """Cal's BS quads: 4 cards over 13 ranks of 4 suits, 208 branches, 2 multiplications each
    to verify (printed: the figures of the machine it runs on)."""
    points, openings = quads(11)
    start = time.perf_counter()
    proof = fp.prove_in_one_set(CONTEXT, points, SETS, 11, openings, NONCE_KEY)
    made = time.perf_counter()
    fp.verify_in_one_set(CONTEXT, points, SETS, proof)
    checked = time.perf_counter()
    size = fp.set_proof_size(4, 52)
    assert size == 64 * 208
    with capsys.disabled():
        print(
            f"\nquads claim proof: {1000 * (made - start):.1f} ms to make, "
            f"{1000 * (checked - made):.1f} ms to check, {size} bytes"
        )

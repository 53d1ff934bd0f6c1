"""Face proofs (p2pcards.deck.faceproofs): "this card is F" and "this card is one of F_1..F_n",
proven without showing the scalar or which face. Completeness for every index, soundness
against a wrong face and a cheating prover, every field bound, hostile input refused as
InvalidProof only, the real branch hidden among simulated ones, and the cost.

The protocol's use of face proofs (public reveals, re-handling factors) and its cheaters are
in test_blame.py and test_public.py; set claims (quads) in test_setproofs.py."""

from __future__ import annotations

import time
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nacl import bindings as na

from p2pcards.deck import faceproofs as fp
from p2pcards.deck.group import GROUP_ORDER, card_point, invert, mul, prf_scalar
from p2pcards.deck.proofs import InvalidProof, ProofNonces

from .deck_helpers import BASE, bad_points

L = GROUP_ORDER
CONTEXT = b"table/game/op 12/quads/handle 16777220/seat 2"
NONCE_KEY = b"n" * 32
SUITS = "CDHS"


def scalar(label: str, *parts: int) -> bytes:
    return prf_scalar(b"s" * 32, label, *parts)


def times(k: bytes, point: bytes) -> bytes:
    return na.crypto_scalarmult_ed25519_noclamp(k, point)


def faces_of(rank: str = "7") -> list[bytes]:
    return [card_point(b"table", f"{rank}{suit}") for suit in SUITS]


def held(face: bytes, seed: int = 0) -> tuple[bytes, bytes]:
    """A card's point and its cumulative scalar: several locks and re-handlings multiplied."""
    x = scalar("lock", seed)
    for step in range(3):
        x = mul(x, scalar("rehandle", seed, step))
    return times(x, face), x


def plus(value: bytes, delta: int = 1) -> bytes:
    return ((int.from_bytes(value, "little") + delta) % L).to_bytes(32, "little")


# -- completeness -------------------------------------------------------------------------------------


def test_a_face_proof_verifies_and_is_64_bytes_and_deterministic():
    for seed, face in enumerate(faces_of("Q")):
        point, x = held(face, seed)
        proof = fp.prove_face(CONTEXT, point, face, x, NONCE_KEY)
        fp.verify_face(CONTEXT, point, face, proof)
        assert len(b"".join(proof)) == fp.face_proof_size() == 64
        assert fp.prove_face(CONTEXT, point, face, x, NONCE_KEY) == proof
        assert fp.prove_face(CONTEXT, point, face, x, b"m" * 32) != proof  # another seat's key


@pytest.mark.parametrize("n", [1, 2, 4, 13])
def test_a_one_of_proof_verifies_for_every_index(n):
    faces = [card_point(b"table", f"card {i}") for i in range(n)]
    for index in range(n):
        point, x = held(faces[index], index)
        proof = fp.prove_one_of(CONTEXT, point, faces, index, x, NONCE_KEY)
        fp.verify_one_of(CONTEXT, point, faces, proof)
        assert len(proof["c"]) == len(proof["f"]) == n
        assert len(b"".join(proof["c"] + proof["f"])) == fp.one_of_proof_size(n)


def test_the_cap_on_candidates():
    faces = [card_point(b"table", f"card {i}") for i in range(fp.MAX_CANDIDATES + 1)]
    point, x = held(faces[-2])
    allowed = faces[: fp.MAX_CANDIDATES]
    fp.verify_one_of(CONTEXT, point, allowed, fp.prove_one_of(CONTEXT, point, allowed, len(allowed) - 1, x, NONCE_KEY))
    with pytest.raises(InvalidProof):  # the prover refuses to make it too
        fp.prove_one_of(CONTEXT, point, faces, len(faces) - 2, x, NONCE_KEY)
    proof = {"c": [plus(bytes(32))] * len(faces), "f": [plus(bytes(32))] * len(faces)}
    with pytest.raises(InvalidProof, match="1 to 64 faces"):
        fp.verify_one_of(CONTEXT, point, faces, proof)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 8), data=st.data())
def test_any_true_claim_verifies(n, data):
    index = data.draw(st.integers(0, n - 1))
    x = data.draw(st.integers(1, L - 1)).to_bytes(32, "little")
    faces = [card_point(b"table", f"h{n}/{i}") for i in range(n)]
    point = times(x, faces[index])
    fp.verify_one_of(CONTEXT, point, faces, fp.prove_one_of(CONTEXT, point, faces, index, x, NONCE_KEY))


# -- soundness ------------------------------------------------------------------------------------------


def test_a_proof_for_one_face_does_not_show_another():
    faces = faces_of()
    point, x = held(faces[0])
    proof = fp.prove_face(CONTEXT, point, faces[0], x, NONCE_KEY)
    for other in faces[1:] + [card_point(b"table", "Joker")]:
        with pytest.raises(InvalidProof):
            fp.verify_face(CONTEXT, point, other, proof)


def test_the_prover_refuses_a_witness_that_does_not_open_the_point():
    faces = faces_of()
    point, x = held(faces[2])
    with pytest.raises(ValueError, match="does not open"):
        fp.prove_face(CONTEXT, point, faces[1], x, NONCE_KEY)
    for index in (0, 1, 3):
        with pytest.raises(ValueError, match="does not open"):
            fp.prove_one_of(CONTEXT, point, faces, index, x, NONCE_KEY)
    with pytest.raises(ValueError, match="does not open"):
        fp.prove_one_of(CONTEXT, point, faces, 2, plus(x), NONCE_KEY)
    for index in (-1, 4, True, "2", 2.0):
        with pytest.raises(ValueError):
            fp.prove_one_of(CONTEXT, point, faces, index, x, NONCE_KEY)
    for key in (None, b"short", b"k" * 65, "k" * 32):
        with pytest.raises(ValueError):
            fp.prove_one_of(CONTEXT, point, faces, 2, x, key)


def forged(point: bytes, faces: list[bytes], index: int, x: bytes, label: str = "one-of") -> dict[str, list[bytes]]:
    """What a cheater gets from the honest algorithm without its check of the witness: a real
    branch at ``index`` with an ``x`` that does not open the point there."""
    nonces = ProofNonces(b"cheat" * 8, b"statement")
    cs, fs = fp._prove(label, CONTEXT, point, faces, index, int.from_bytes(x, "little"), nonces)
    return {"c": [c.to_bytes(32, "little") for c in cs], "f": [f.to_bytes(32, "little") for f in fs]}


def test_a_card_outside_the_claimed_faces_gets_no_proof_through():
    sevens, eights = faces_of("7"), faces_of("8")
    point, x = held(eights[1])  # an eight, claimed to be a seven
    for index in range(4):
        with pytest.raises(InvalidProof):
            fp.verify_one_of(CONTEXT, point, sevens, forged(point, sevens, index, x))
    # every branch simulated (challenges picked first): the sum misses the hash
    cs = [scalar("c", j) for j in range(4)]
    fs = [scalar("f", j) for j in range(4)]
    with pytest.raises(InvalidProof):
        fp.verify_one_of(CONTEXT, point, sevens, {"c": cs, "f": fs})
    # a true proof over the eights does not show a seven, nor does one over a set with the eight
    proof = fp.prove_one_of(CONTEXT, point, eights, 1, x, NONCE_KEY)
    with pytest.raises(InvalidProof):
        fp.verify_one_of(CONTEXT, point, sevens, proof)
    mixed = sevens[:1] + eights[1:2] + sevens[2:]
    fp.verify_one_of(CONTEXT, point, mixed, fp.prove_one_of(CONTEXT, point, mixed, 1, x, NONCE_KEY))
    with pytest.raises(InvalidProof):
        fp.verify_one_of(CONTEXT, point, sevens, fp.prove_one_of(CONTEXT, point, mixed, 1, x, NONCE_KEY))


def test_the_forged_proof_would_pass_if_the_witness_were_right():
    """(So the test above fails for the right reason: the cheater's algorithm is the honest one.)"""
    faces = faces_of()
    point, x = held(faces[3])
    fp.verify_one_of(CONTEXT, point, faces, forged(point, faces, 3, x))


def test_a_point_of_known_relation_is_what_a_false_proof_needs():
    """The soundness argument's other side: with faces whose logs to each other are known, one
    witness opens the point on every face, so "one of" says nothing. Card points are hashes to
    the curve, whose relations nobody knows; faces must come from the card table."""
    g = card_point(b"table", "G")
    a = [scalar("a", i) for i in range(4)]
    faces = [times(ai, g) for ai in a]
    w = scalar("w")
    point = times(w, g)
    for i in range(4):
        xi = mul(w, invert(a[i]))
        fp.verify_one_of(CONTEXT, point, faces, fp.prove_one_of(CONTEXT, point, faces, i, xi, NONCE_KEY))


# -- binding: every field matters -------------------------------------------------------------------


def bent_one_of_proofs(proof: dict[str, list[bytes]]) -> dict[str, dict[str, list[bytes]]]:
    n = len(proof["c"])
    out = {}
    for field in ("c", "f"):
        for j in range(n):
            values = list(proof[field])
            values[j] = plus(values[j])
            out[f"{field}[{j}] + 1"] = {**proof, field: values}
    # moving challenge weight from one branch to another keeps the sum
    cs = list(proof["c"])
    cs[0], cs[1] = plus(cs[0], 5), plus(cs[1], -5)
    out["challenge moved between branches"] = {**proof, "c": cs}
    out["branches swapped"] = {
        "c": [proof["c"][1], proof["c"][0], *proof["c"][2:]],
        "f": [proof["f"][1], proof["f"][0], *proof["f"][2:]],
    }
    out["challenges swapped"] = {**proof, "c": [proof["c"][1], proof["c"][0], *proof["c"][2:]]}
    out["c and f swapped"] = {"c": proof["f"], "f": proof["c"]}
    out["reversed"] = {"c": proof["c"][::-1], "f": proof["f"][::-1]}
    return out


def test_every_field_of_a_one_of_proof_matters():
    faces = faces_of()
    point, x = held(faces[2])
    proof = fp.prove_one_of(CONTEXT, point, faces, 2, x, NONCE_KEY)
    fp.verify_one_of(CONTEXT, point, faces, proof)
    for name, bent in bent_one_of_proofs(proof).items():
        with pytest.raises(InvalidProof):
            fp.verify_one_of(CONTEXT, point, faces, bent)
            pytest.fail(name)


def test_a_one_of_proof_holds_for_its_own_statement_only():
    faces = faces_of()
    point, x = held(faces[2])
    proof = fp.prove_one_of(CONTEXT, point, faces, 2, x, NONCE_KEY)
    other_point, _ = held(faces[2], seed=9)  # the same card under another handle
    statements = {
        "another context": (CONTEXT + b"'", point, faces),
        "another seat": (CONTEXT.replace(b"seat 2", b"seat 3"), point, faces),
        "another point": (CONTEXT, other_point, faces),
        "the point re-handled": (CONTEXT, times(scalar("y"), point), faces),
        "faces reordered": (CONTEXT, point, [faces[1], faces[0], faces[2], faces[3]]),
        "faces rotated": (CONTEXT, point, faces[1:] + faces[:1]),
        "a face replaced": (CONTEXT, point, faces[:3] + [card_point(b"table", "7X")]),
        "another table's faces": (CONTEXT, point, [card_point(b"other", f"7{s}") for s in SUITS]),
    }
    for name, (context, p, fs) in statements.items():
        with pytest.raises(InvalidProof):
            fp.verify_one_of(context, p, fs, proof)
            pytest.fail(name)
    with pytest.raises(InvalidProof):  # fewer or more faces: the proof's length no longer fits
        fp.verify_one_of(CONTEXT, point, faces[:3], proof)
    with pytest.raises(InvalidProof):
        fp.verify_one_of(CONTEXT, point, faces[:3], {"c": proof["c"][:3], "f": proof["f"][:3]})
    with pytest.raises(InvalidProof):
        fp.verify_one_of(CONTEXT, point, faces + [card_point(b"table", "Joker")], proof)


def test_every_field_of_a_face_proof_matters_and_binds_its_statement():
    face = faces_of()[0]
    point, x = held(face)
    c, f = fp.prove_face(CONTEXT, point, face, x, NONCE_KEY)
    for bent in ([plus(c), f], [c, plus(f)], [f, c], [plus(c, -1), plus(f, 1)]):
        with pytest.raises(InvalidProof):
            fp.verify_face(CONTEXT, point, face, bent)
    for context, p in ((CONTEXT + b"'", point), (CONTEXT, times(scalar("y"), point)), (CONTEXT, face)):
        with pytest.raises(InvalidProof):
            fp.verify_face(context, p, face, [c, f])


def test_a_face_proof_is_not_a_one_face_claim_nor_the_reverse():
    """Separate domain labels: a reveal's proof cannot stand as a claim's."""
    face = faces_of()[0]
    point, x = held(face)
    c, f = fp.prove_face(CONTEXT, point, face, x, NONCE_KEY)
    with pytest.raises(InvalidProof):
        fp.verify_one_of(CONTEXT, point, [face], {"c": [c], "f": [f]})
    claim = fp.prove_one_of(CONTEXT, point, [face], 0, x, NONCE_KEY)
    fp.verify_one_of(CONTEXT, point, [face], claim)
    with pytest.raises(InvalidProof):
        fp.verify_face(CONTEXT, point, face, [claim["c"][0], claim["f"][0]])


# -- hostile input: InvalidProof, never another exception ---------------------------------------------


def malformed_proofs(proof: dict[str, list[bytes]]) -> list[object]:
    n = len(proof["c"])
    reduced_plus_l = (int.from_bytes(proof["f"][0], "little") + L).to_bytes(32, "little")
    return [
        None,
        7,
        b"",
        "proof",
        [],
        [proof["c"], proof["f"]],
        {},
        {"c": proof["c"]},
        {**proof, "extra": []},
        {**proof, "c": tuple(proof["c"])},
        {**proof, "c": proof["c"][:-1]},
        {**proof, "f": proof["f"] + [proof["f"][0]]},
        {**proof, "c": b"".join(proof["c"])},
        {**proof, "c": [None] * n},
        {**proof, "c": ["x" * 32] * n},
        {**proof, "c": [bytearray(proof["c"][0])] + proof["c"][1:]},
        {**proof, "c": [proof["c"][0][:31]] + proof["c"][1:]},
        {**proof, "c": [proof["c"][0] + b"\x00"] + proof["c"][1:]},
        {**proof, "c": [L.to_bytes(32, "little")] + proof["c"][1:]},
        {**proof, "f": [reduced_plus_l] + proof["f"][1:]},  # the same response plus L: not reduced
        {**proof, "f": [b"\xff" * 32] + proof["f"][1:]},
        {**proof, "c": [bytes(32)] + proof["c"][1:]},
        {**proof, "f": [bytes(32)] + proof["f"][1:]},
        {1: proof["c"], 2: proof["f"]},
    ]


def test_malformed_one_of_proofs_are_refused_not_crashed_on():
    faces = faces_of()
    point, x = held(faces[1])
    proof = fp.prove_one_of(CONTEXT, point, faces, 1, x, NONCE_KEY)
    for candidate in malformed_proofs(proof):
        with pytest.raises(InvalidProof):
            fp.verify_one_of(CONTEXT, point, faces, candidate)
    for candidate in (None, [], [proof["c"][0]], [*proof["c"][:2], proof["f"][0]], (proof["c"][0], proof["f"][0])):
        with pytest.raises(InvalidProof):
            fp.verify_face(CONTEXT, point, faces[1], candidate)


@pytest.mark.parametrize("bad", sorted(bad_points()))
def test_bad_points_in_the_statement_are_refused(bad):
    faces = faces_of()
    point, x = held(faces[1])
    proof = fp.prove_one_of(CONTEXT, point, faces, 1, x, NONCE_KEY)
    face_proof = fp.prove_face(CONTEXT, point, faces[1], x, NONCE_KEY)
    with pytest.raises(InvalidProof):
        fp.verify_one_of(CONTEXT, bad, faces, proof)
    with pytest.raises(InvalidProof):
        fp.verify_face(CONTEXT, bad, faces[1], face_proof)
    with pytest.raises(InvalidProof):
        fp.verify_face(CONTEXT, point, bad, face_proof)
    for j in range(4):
        with pytest.raises(InvalidProof):
            fp.verify_one_of(CONTEXT, point, faces[:j] + [bad] + faces[j + 1 :], proof)
    with pytest.raises(ValueError):  # the prover refuses them too
        fp.prove_one_of(CONTEXT, bad, faces, 1, x, NONCE_KEY)
    with pytest.raises(ValueError):
        fp.prove_one_of(CONTEXT, point, [bad] + faces[1:], 1, x, NONCE_KEY)


def test_a_bad_point_is_refused_even_where_the_proof_is_made_for_it():
    """The mixed-order point T2 + x F differs from x F by an element of order 2: a proof made
    with its own algorithm (which never looks at the point's order) still fails, and so does
    the identity, which 0 opens on every face."""
    order_2 = bad_points()["small-order"]
    faces = faces_of()
    point, x = held(faces[0])
    mixed = na.crypto_core_ed25519_add(point, order_2)
    assert not na.crypto_core_ed25519_is_valid_point(mixed)
    with pytest.raises(InvalidProof):
        fp.verify_one_of(CONTEXT, mixed, faces, fp.prove_one_of(CONTEXT, point, faces, 0, x, NONCE_KEY))
    with pytest.raises(InvalidProof):  # the cheater's algorithm cannot even run on it
        forged(mixed, faces, 0, x)
    identity = bad_points()["identity"]
    cs = [scalar("c", j) for j in range(4)]
    with pytest.raises(InvalidProof):
        fp.verify_one_of(CONTEXT, identity, faces, {"c": cs, "f": cs})


def test_malformed_statements_are_refused():
    faces = faces_of()
    point, x = held(faces[1])
    proof = fp.prove_one_of(CONTEXT, point, faces, 1, x, NONCE_KEY)
    statements = [
        ("context", point, faces),
        (None, point, faces),
        (bytearray(CONTEXT), point, faces),
        (CONTEXT, None, faces),
        (CONTEXT, point.hex(), faces),
        (CONTEXT, point + b"\x00", faces),
        (CONTEXT, point, None),
        (CONTEXT, point, b"".join(faces)),  # bytes are a sequence too: not of faces
        (CONTEXT, point, set(faces)),
        (CONTEXT, point, {i: f for i, f in enumerate(faces)}),
        (CONTEXT, point, []),
        (CONTEXT, point, [faces[0], faces[1], faces[1], faces[3]]),  # a face named twice
        (CONTEXT, point, [*faces[:3], faces[3].hex()]),
        (CONTEXT, point, [*faces[:3], faces[3][:31]]),
        (CONTEXT, point, [*faces[:3], None]),
    ]
    for context, p, fs in statements:
        with pytest.raises(InvalidProof):
            fp.verify_one_of(context, p, fs, proof)


# Slow tier (~8 s): the hand-made bad proofs of this file run in the fast tier.
@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    proof=st.one_of(
        st.fixed_dictionaries(
            {
                "c": st.lists(st.binary(min_size=30, max_size=33), max_size=5),
                "f": st.lists(st.binary(min_size=32, max_size=32), max_size=5),
            }
        ),
        st.lists(st.one_of(st.binary(min_size=32, max_size=32), st.integers(), st.none()), max_size=3),
        st.recursive(st.none() | st.binary() | st.integers(), lambda s: st.lists(s) | st.dictionaries(st.text(), s)),
    )
)
def test_random_proofs_give_invalid_proof_only(proof):
    faces = faces_of()
    point, _ = held(faces[1])
    with pytest.raises(InvalidProof):
        fp.verify_one_of(CONTEXT, point, faces, proof)
    with pytest.raises(InvalidProof):
        fp.verify_face(CONTEXT, point, faces[1], proof)


# -- zero knowledge: which branch is real does not show -------------------------------------------------


class Replay:
    """Nonces given as values (to run the prover on chosen randomness)."""

    def __init__(self, values: dict[tuple[str, int], int]):
        self.values = values

    def __call__(self, label: str, index: int = 0) -> int:
        return self.values[(label, index)]


def related_statement() -> tuple[bytes, list[bytes], list[bytes]]:
    """Faces of known relation (a_i G) and a point w G that every face opens (x_i = w / a_i):
    a statement with a witness at every index, to compare the proofs made at each."""
    g = card_point(b"table", "G")
    a = [scalar("a", i) for i in range(4)]
    w = scalar("w")
    return times(w, g), [times(ai, g) for ai in a], [mul(w, invert(ai)) for ai in a]


def test_a_proof_made_at_one_index_is_exactly_one_made_at_another():
    """Witness indistinguishability, exactly: the randomness of a proof made at index 0 maps one
    to one onto randomness for index 3 (``r' = f_3 - c_3 x_3``, the other branches' values as
    they are) that makes the very same proof. So the two provers' proofs are identically
    distributed: nothing in a proof tells which branch is real."""
    point, faces, xs = related_statement()
    proof = fp.prove_one_of(CONTEXT, point, faces, 0, xs[0], NONCE_KEY)
    cs = [int.from_bytes(c, "little") for c in proof["c"]]
    fs = [int.from_bytes(f, "little") for f in proof["f"]]
    for k in range(4):
        xk = int.from_bytes(xs[k], "little")
        randomness = {("r", 0): (fs[k] - cs[k] * xk) % L}
        randomness.update({("c", j): cs[j] for j in range(4) if j != k})
        randomness.update({("f", j): fs[j] for j in range(4) if j != k})
        assert fp._prove("one-of", CONTEXT, point, faces, k, xk, Replay(randomness)) == (cs, fs)


def test_real_and_simulated_branches_look_alike():
    """Over many statements, proofs made at index 0 and at index 3 of the same statements: the
    real branch is not the one with the largest or smallest challenge or response more often
    than chance, nor is its challenge in the upper half of [0, L) more often. (The nonces are
    deterministic, so these counts are fixed: no flakiness; the bounds are 4 standard
    deviations of the binomial counts.)"""
    point, faces, xs = related_statement()
    samples = 160
    for index in (0, 3):
        stats: dict[str, Counter[int]] = {"max c": Counter(), "min c": Counter(), "max f": Counter()}
        upper = Counter[int]()
        for s in range(samples):
            context = CONTEXT + f"/{s}".encode()
            proof = fp.prove_one_of(context, point, faces, index, xs[index], NONCE_KEY)
            fp.verify_one_of(context, point, faces, proof)
            cs = [int.from_bytes(c, "little") for c in proof["c"]]
            fs = [int.from_bytes(f, "little") for f in proof["f"]]
            stats["max c"][cs.index(max(cs))] += 1
            stats["min c"][cs.index(min(cs))] += 1
            stats["max f"][fs.index(max(fs))] += 1
            for j, c in enumerate(cs):
                upper[j] += c >= L // 2
        # binomial(160, 1/4): mean 40, sd 5.5; binomial(160, 1/2): mean 80, sd 6.3
        for name, counts in stats.items():
            assert all(abs(counts[j] - samples / 4) <= 22 for j in range(4)), (index, name, counts)
        assert all(abs(upper[j] - samples / 2) <= 26 for j in range(4)), (index, upper)


# -- cost --------------------------------------------------------------------------------------------


def test_cost(monkeypatch, capsys):
    """Scalar multiplications counted (2n to prove, 2n to verify) and time per proof measured
    (printed, not asserted: the machine is shared)."""
    faces = faces_of()
    point, x = held(faces[2])
    count = 0
    real = fp._mult

    def counting(k: int, p: bytes) -> bytes:
        nonlocal count
        count += 1
        return real(k, p)

    monkeypatch.setattr(fp, "_mult", counting)
    proof = fp.prove_one_of(CONTEXT, point, faces, 2, x, NONCE_KEY)
    assert count == 2 * 4
    count = 0
    fp.verify_one_of(CONTEXT, point, faces, proof)
    assert count == 2 * 4
    count = 0
    face_proof = fp.prove_face(CONTEXT, point, faces[2], x, NONCE_KEY)
    assert count == 2
    count = 0
    fp.verify_face(CONTEXT, point, faces[2], face_proof)
    assert count == 2
    monkeypatch.undo()

    rounds = 20
    start = time.perf_counter()
    proofs = [fp.prove_one_of(CONTEXT + bytes([i]), point, faces, 2, x, NONCE_KEY) for i in range(rounds)]
    proving = (time.perf_counter() - start) / rounds
    start = time.perf_counter()
    for i, p in enumerate(proofs):
        fp.verify_one_of(CONTEXT + bytes([i]), point, faces, p)
    verifying = (time.perf_counter() - start) / rounds
    start = time.perf_counter()
    for _ in range(rounds):
        times(x, BASE)
    multiplication = (time.perf_counter() - start) / rounds
    with capsys.disabled():
        print(
            f"\none-of over 4 faces: prove {proving * 1e3:.2f} ms, verify {verifying * 1e3:.2f} ms"
            f" (one multiplication {multiplication * 1e6:.0f} us; Cal's BS quads, 4 such proofs:"
            f" verify {4 * verifying * 1e3:.1f} ms)"
        )

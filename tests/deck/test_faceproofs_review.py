"""Hostile review of deck protocol 3's face, one-of and set proofs (issue 32, review32), as a
cryptographer: each test is an attack on p2pcards.deck.faceproofs and shows it refused.

* Fiat-Shamir: weak-FS forgeries (a factor proof whose point is chosen after the challenge), every
  public input of a set claim bound (the partition of the faces into sets, their order, the
  cards and their count), challenges moved between branches, non-reduced and zero challenges.
* The AND of the set proof: a cheater who proves each of four mixed-rank cards "one of the 52
  faces" (an OR over every set per card, challenges split per card) is refused only because
  every card of a set must answer the same challenge; a verifier without that check takes it.
* Zero knowledge: a set proof made with its witness in one set is exactly the proof made with a
  witness in another (the randomness maps one to one), the size and shape never depend on the
  rank, and deterministic nonces never repeat across statements (no key recovery from two proofs
  of the same cards).
* Encoding: hostile leaves in an otherwise well-formed proof give InvalidProof only.

The protocol-level attacks (replays, another seat's cards, the table) are in
tests/adversarial/test_review32.py."""

from __future__ import annotations

import secrets

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nacl import bindings as na

from p2pcards.deck import faceproofs as fp
from p2pcards.deck.group import GROUP_ORDER, card_point, invert, mul, prf_scalar
from p2pcards.deck.proofs import InvalidProof, _Transcript

L = GROUP_ORDER
CONTEXT = b"review32/claim"
NONCE_KEY = b"k" * 32
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SETS = [[card_point(b"table", f"{rank}{suit}#0") for suit in "cdhs"] for rank in RANKS]


def s_int(value: bytes) -> int:
    return int.from_bytes(value, "little")


def s_bytes(value: int) -> bytes:
    return (value % L).to_bytes(32, "little")


def rand() -> int:
    return secrets.randbelow(L - 1) + 1


def times(k: int, point: bytes) -> bytes:
    return na.crypto_scalarmult_ed25519_noclamp(s_bytes(k), point)


def held(face: bytes, seed: int) -> tuple[bytes, bytes]:
    x = prf_scalar(b"r" * 32, "held", seed)
    return na.crypto_scalarmult_ed25519_noclamp(x, face), x


def quads(rank: int, seed: int = 0):
    suits = (3, 1, 0, 2)
    cards = [held(SETS[rank][s], seed + i) for i, s in enumerate(suits)]
    return [p for p, _ in cards], [(s, x) for s, (_, x) in zip(suits, cards)]


def ints(proof):
    return {key: [[[s_int(v) for v in card] for card in row] for row in proof[key]] for key in ("c", "f")}


def encoded(cs, fs):
    return {
        "c": [[[s_bytes(v) for v in card] for card in row] for row in cs],
        "f": [[[s_bytes(v) for v in card] for card in row] for row in fs],
    }


# -- Fiat-Shamir --------------------------------------------------------------------------------------


def weak_face_forgery(context: bytes, base: bytes, other: bytes) -> tuple[bytes, list[bytes]]:
    """The weak-FS forgery of a factor proof (``T = z * S``, ``T`` chosen by the prover): commit
    to ``R = r * other`` first, take the challenge over the commitment only, then solve for the
    point: ``T = c^-1 (f S - R)``. ``T`` then carries ``other`` (another card) in it, and nobody
    knows a ``z`` with ``T = z * S``."""
    r, f = rand(), rand()
    commitment = times(r, other)
    t = _Transcript("face", context)  # (the statement left out: weak Fiat-Shamir)
    t.absorb(commitment)
    c = t.challenge("c")
    point = times(pow(c, -1, L), na.crypto_core_ed25519_sub(times(f, base), commitment))
    return point, [s_bytes(c), s_bytes(f)]


def weakly_verified(context: bytes, point: bytes, base: bytes, proof: list[bytes]) -> bool:
    c, f = s_int(proof[0]), s_int(proof[1])
    t = _Transcript("face", context)
    t.absorb(na.crypto_core_ed25519_sub(times(f, base), times(c, point)))
    return t.challenge("c") == c


def test_a_weak_fiat_shamir_forgery_of_a_factor_proof_is_refused():
    """A re-handler chooses each new point ``T_j`` and proves ``T_j = z_j * S_j``: were the
    statement left out of the hash, it could add another card into ``T_j`` (a substitution the
    shuffle proof was there to stop) with a proof that verifies. The transcript absorbs ``T``
    and ``S`` before the commitment, so the forgery fails."""
    base, other = SETS[4][0], SETS[9][2]
    for _ in range(4):
        point, proof = weak_face_forgery(CONTEXT, base, other)
        assert weakly_verified(CONTEXT, point, base, proof)  # the attack is real against weak FS
        with pytest.raises(InvalidProof):
            fp.verify_face(CONTEXT, point, base, proof)


def test_every_public_input_of_a_set_claim_is_bound():
    """The proof of true quads checked against every nearby statement: the sets reordered, the
    faces of a set reordered, one face moved to another set (the same faces in all, another
    partition), a set dropped or added, the cards reordered, one card left out or one added,
    another context. Only its own statement verifies."""
    points, openings = quads(5)
    sets = [list(each) for each in SETS[:12]]
    proof = fp.prove_in_one_set(CONTEXT, points, sets, 5, openings, NONCE_KEY)
    fp.verify_in_one_set(CONTEXT, points, sets, proof)
    c, f = proof["c"], proof["f"]
    moved = [list(each) for each in sets]
    moved[6].append(moved[7].pop())  # 5 faces and 3: the flat list of faces unchanged
    reshaped = {k: [[list(card) for card in row] for row in proof[k]] for k in "cf"}
    for k in "cf":  # the proof's entries moved with their faces, so the shapes agree
        for i in range(4):
            reshaped[k][6][i].append(reshaped[k][7][i].pop())
    extra = held(SETS[5][0], 99)[0]
    variants = [
        (CONTEXT, points, sets[::-1], {"c": c[::-1], "f": f[::-1]}),
        (CONTEXT, points, [each[::-1] for each in sets], {k: [[v[::-1] for v in r] for r in proof[k]] for k in "cf"}),
        (CONTEXT, points, moved, reshaped),
        (CONTEXT, points, sets[:11], {"c": c[:11], "f": f[:11]}),
        (CONTEXT, points, [*sets, SETS[12]], {"c": [*c, c[0]], "f": [*f, f[0]]}),
        (CONTEXT, points[::-1], sets, {k: [r[::-1] for r in proof[k]] for k in "cf"}),
        (CONTEXT, points[:3], sets, {k: [r[:3] for r in proof[k]] for k in "cf"}),
        (CONTEXT, [*points, extra], sets, {k: [[*r, r[0]] for r in proof[k]] for k in "cf"}),
        (CONTEXT + b"!", points, sets, proof),
        (b"", points, sets, proof),
    ]
    for context, p, s, candidate in variants:
        with pytest.raises(InvalidProof):
            fp.verify_in_one_set(context, p, s, candidate)


def test_sets_of_unequal_sizes_verify_and_bind_their_sizes():
    """Sets of 1, 3 and 4 faces (the claim's shape is the statement's): true claims hold, and
    the faces regrouped into sets of other sizes refuse the proof."""
    sets = [SETS[0][:1], SETS[1][:3], SETS[2]]
    point, x = held(SETS[1][2], 7)
    proof = fp.prove_in_one_set(CONTEXT, [point], sets, 1, [(2, x)], NONCE_KEY)
    fp.verify_in_one_set(CONTEXT, [point], sets, proof)
    regrouped = [SETS[0][:1] + SETS[1][:1], SETS[1][1:3], SETS[2]]
    with pytest.raises(InvalidProof):
        fp.verify_in_one_set(CONTEXT, [point], regrouped, proof)


def test_challenges_moved_between_branches_are_refused():
    """Adding d to one challenge and taking it from another keeps every sum (the set's and the
    total), so only the recomputed commitments catch it: in a card's row, across cards of a
    set (then the AND check), across sets, and in a one-of proof."""
    points, openings = quads(3)
    proof = ints(fp.prove_in_one_set(CONTEXT, points, SETS, 3, openings, NONCE_KEY))
    d = rand()
    moves = [((3, 0, 0), (3, 0, 1)), ((0, 2, 1), (0, 2, 3)), ((3, 0, 0), (3, 1, 0)), ((1, 0, 0), (2, 0, 0))]
    for (u, i, s), (v, j, t) in moves:
        cs = [[list(card) for card in row] for row in proof["c"]]
        cs[u][i][s] = (cs[u][i][s] + d) % L
        cs[v][j][t] = (cs[v][j][t] - d) % L
        with pytest.raises(InvalidProof):
            fp.verify_in_one_set(CONTEXT, points, SETS, encoded(cs, proof["f"]))
    point, x = held(SETS[0][1], 3)
    one = fp.prove_one_of(CONTEXT, point, SETS[0], 1, x, NONCE_KEY)
    cs = [s_int(v) for v in one["c"]]
    cs[0], cs[2] = (cs[0] + d) % L, (cs[2] - d) % L
    with pytest.raises(InvalidProof):
        fp.verify_one_of(CONTEXT, point, SETS[0], {"c": [s_bytes(v) for v in cs], "f": one["f"]})


def test_non_reduced_scalars_are_refused_though_they_would_verify():
    """``c + L`` and ``f + L`` fit in 32 bytes and give the same commitment and the same sums
    mod L: a verifier that reduced them would take a second encoding of a proof (malleable,
    and a way to smuggle bits). Refused at every position, in every kind of proof."""

    def unreduced(value: bytes) -> bytes:
        bigger = s_int(value) + L
        assert bigger < 2**256
        return bigger.to_bytes(32, "little")

    points, openings = quads(8)
    proof = fp.prove_in_one_set(CONTEXT, points, SETS, 8, openings, NONCE_KEY)
    for key, (u, i, s) in [("c", (8, 0, 1)), ("f", (8, 2, 0)), ("c", (0, 3, 3)), ("f", (12, 1, 2))]:
        bad = {k: [[list(card) for card in row] for row in proof[k]] for k in "cf"}
        bad[key][u][i][s] = unreduced(bad[key][u][i][s])
        with pytest.raises(InvalidProof, match="not reduced"):
            fp.verify_in_one_set(CONTEXT, points, SETS, bad)
    point, x = held(SETS[2][3], 1)
    face = fp.prove_face(CONTEXT, point, SETS[2][3], x, NONCE_KEY)
    for j in range(2):
        with pytest.raises(InvalidProof, match="not reduced"):
            fp.verify_face(CONTEXT, point, SETS[2][3], [unreduced(v) if k == j else v for k, v in enumerate(face)])
    one = fp.prove_one_of(CONTEXT, point, SETS[2], 3, x, NONCE_KEY)
    with pytest.raises(InvalidProof, match="not reduced"):
        fp.verify_one_of(CONTEXT, point, SETS[2], {"c": [unreduced(one["c"][0]), *one["c"][1:]], "f": one["f"]})


def test_a_zero_challenge_branch_is_refused():
    """A branch with challenge 0 binds nothing of its card (``R = f F``): a prover that simulates
    a branch that way, or gives ``L`` (zero, not reduced), is refused before any arithmetic."""
    point, x = held(SETS[1][0], 2)
    r = rand()
    f_sim = rand()
    t = fp._transcript("one-of", CONTEXT, point, SETS[1][:2])
    t.absorb(times(r, SETS[1][0]), times(f_sim, SETS[1][1]))
    c = t.challenge("c")
    f_real = (r + c * s_int(x)) % L
    proof = {"c": [s_bytes(c), bytes(32)], "f": [s_bytes(f_real), s_bytes(f_sim)]}
    with pytest.raises(InvalidProof, match="zero"):
        fp.verify_one_of(CONTEXT, point, SETS[1][:2], proof)
    proof["c"][1] = L.to_bytes(32, "little")
    with pytest.raises(InvalidProof, match="not reduced"):
        fp.verify_one_of(CONTEXT, point, SETS[1][:2], proof)


@pytest.mark.parametrize(
    "sets",
    [
        [SETS[0], SETS[0]],  # a set repeated
        [SETS[0], [SETS[1][0], SETS[0][0]]],  # a face in two sets
        [SETS[0], []],  # an empty set
        [[SETS[0][0], SETS[0][0]]],  # a face repeated in a set
    ],
)
def test_duplicate_branches_and_empty_sets_are_refused(sets):
    point, _ = held(SETS[0][0], 0)
    with pytest.raises(InvalidProof):
        fp.verify_in_one_set(CONTEXT, [point], sets, {"c": [[[b"\x01" * 32]]], "f": [[[b"\x01" * 32]]]})


def test_a_proof_of_one_kind_is_no_proof_of_another():
    """A set claim of one card over one set of one face says what a face proof says; their
    scalars moved from one to the other are refused (label and shape differ), and a face proof
    under a factor's context is no reveal's (deck protocol 3's two uses of ``prove_face``)."""
    point, x = held(SETS[3][1], 5)
    one_set = fp.prove_in_one_set(CONTEXT, [point], [[SETS[3][1]]], 0, [(0, x)], NONCE_KEY)
    face = fp.prove_face(CONTEXT, point, SETS[3][1], x, NONCE_KEY)
    with pytest.raises(InvalidProof):
        fp.verify_face(CONTEXT, point, SETS[3][1], [one_set["c"][0][0][0], one_set["f"][0][0][0]])
    with pytest.raises(InvalidProof):
        fp.verify_in_one_set(CONTEXT, [point], [[SETS[3][1]]], {"c": [[[face[0]]]], "f": [[[face[1]]]]})
    from p2pcards.deck.passes import factor_context
    from p2pcards.deck.public import face_context

    game = b"g" * 32
    as_factor = fp.prove_face(factor_context(game, 4, 2, 0), point, SETS[3][1], x, NONCE_KEY)
    with pytest.raises(InvalidProof):
        fp.verify_face(face_context(game, 4, 0, 2), point, SETS[3][1], as_factor)


# -- the AND of the set proof -------------------------------------------------------------------------


def and_less_forgery(context, points, sets, real):
    """Each card proves only "one of every face of every set" (the OR over sets taken per card):
    ``real[i] = (u, s, x)`` opens card i on ``sets[u][s]``, the cards' sets may differ. Every
    other branch is simulated; each card's challenges add up to the one hash, split as that
    card needs. Returns (challenges, responses) as ints."""
    k = len(points)
    cs = [[[0] * len(each) for _ in range(k)] for each in sets]
    fs = [[[0] * len(each) for _ in range(k)] for each in sets]
    rs = [rand() for _ in range(k)]
    commitments = []
    for u, each in enumerate(sets):
        for i, point in enumerate(points):
            for s, face in enumerate(each):
                if (u, s) == real[i][:2]:
                    commitments.append(times(rs[i], face))
                    continue
                cs[u][i][s], fs[u][i][s] = rand(), rand()
                commitments.append(na.crypto_core_ed25519_sub(times(fs[u][i][s], face), times(cs[u][i][s], point)))
    t = fp._set_transcript(context, points, sets)
    t.absorb(*commitments)
    c = t.challenge("c")
    for i, (u, s, x) in enumerate(real):
        cs[u][i][s] = (c - sum(cs[v][i][t] for v in range(len(sets)) for t in range(len(sets[v])))) % L
        fs[u][i][s] = (rs[i] + cs[u][i][s] * s_int(x)) % L
    return cs, fs


def or_of_ors_verified(context, points, sets, cs, fs) -> bool:
    """The set proof's check without the AND (each card's challenges add up to the hash)."""
    t = fp._set_transcript(context, points, sets)
    t.absorb(
        *(
            na.crypto_core_ed25519_sub(times(fs[u][i][s], face), times(cs[u][i][s], point))
            for u, each in enumerate(sets)
            for i, point in enumerate(points)
            for s, face in enumerate(each)
        )
    )
    c = t.challenge("c")
    return all(
        sum(cs[u][i][s] for u in range(len(sets)) for s in range(len(sets[u]))) % L == c for i in range(len(points))
    )


def test_mixed_ranks_proven_card_by_card_are_refused_by_the_and():
    """Fake quads (three sevens and a king) with every card shown "one of the 52 faces": a
    verifier that only checked the OR per card would take it; ours checks that every card of a
    set answers the same challenge, and refuses it."""
    cards = [(5, 0), (5, 1), (5, 3), (11, 2)]
    real, points = [], []
    for n, (u, s) in enumerate(cards):
        point, x = held(SETS[u][s], 40 + n)
        points.append(point)
        real.append((u, s, x))
    cs, fs = and_less_forgery(CONTEXT, points, SETS, real)
    assert or_of_ors_verified(CONTEXT, points, SETS, cs, fs)  # the attack is real without the AND
    with pytest.raises(InvalidProof, match="different challenges"):
        fp.verify_in_one_set(CONTEXT, points, SETS, encoded(cs, fs))


def test_one_set_per_card_is_what_the_and_forbids_even_when_sums_agree():
    """The forger makes the per-set sums agree for card 0 and card 1 by moving challenge mass
    between sets inside each row (any split it likes of the one hash): the commitments then
    change, so it cannot keep both the sums and the hash."""
    points, real = [], []
    for n, (u, s) in enumerate([(2, 0), (9, 1)]):
        point, x = held(SETS[u][s], 60 + n)
        points.append(point)
        real.append((u, s, x))
    cs, fs = and_less_forgery(CONTEXT, points, SETS, real)
    # force card 1's per-set sums to card 0's by changing its first face of each set
    for u in range(13):
        delta = (sum(cs[u][0]) - sum(cs[u][1])) % L
        cs[u][1][0] = (cs[u][1][0] + delta) % L
    with pytest.raises(InvalidProof, match="not shown to lie"):
        fp.verify_in_one_set(CONTEXT, points, SETS, encoded(cs, fs))


# -- zero knowledge -----------------------------------------------------------------------------------


class Chosen:
    """Nonces given as values, to run the set prover on chosen randomness."""

    def __init__(self, values):
        self.values = values

    def __call__(self, label, index=0):
        return self.values[(label, index)]


def test_a_set_proof_is_exactly_the_one_made_with_a_witness_in_another_set(monkeypatch):
    """Witness indistinguishability of the set proof, exactly (the set-claim analogue of
    test_faceproofs' one-of check): on a statement where the cards open in every set (faces of
    known relation to one point), the proof made with the cards in set 0 is reproduced, bit for
    bit, by the prover with the cards in set 2 on randomness mapped one to one (each real nonce
    ``r' = f - c x'``, every other branch's values as they are). So nothing in a proof, not the
    order of its branches nor where the remainders of the challenge splits fall, shows the set."""
    g = card_point(b"table", "G")
    a = [[prf_scalar(b"a" * 32, "a", u, s) for s in range(3)] for u in range(3)]
    sets = [[na.crypto_scalarmult_ed25519_noclamp(a[u][s], g) for s in range(3)] for u in range(3)]
    w = [prf_scalar(b"w" * 32, "w", i) for i in range(2)]
    points = [na.crypto_scalarmult_ed25519_noclamp(wi, g) for wi in w]

    def opening(u, s, i):
        return s, mul(w[i], invert(a[u][s]))

    proof = fp.prove_in_one_set(CONTEXT, points, sets, 0, [opening(0, 1, 0), opening(0, 2, 1)], NONCE_KEY)
    fp.verify_in_one_set(CONTEXT, points, sets, proof)
    got = ints(proof)
    cs, fs = got["c"], got["f"]
    target, real = 2, [0, 2]  # the other witness: set 2, faces 0 and 2
    values = {}
    flat = 0
    for u in range(3):
        if u != target:
            values[("cu", u)] = sum(cs[u][0]) % L
        for i in range(2):
            for s in range(3):
                flat += 1
                if u == target and s == real[i]:
                    x = s_int(opening(u, s, i)[1])
                    values[("r", i)] = (fs[u][i][s] - cs[u][i][s] * x) % L
                    continue
                values[("c", flat)] = cs[u][i][s]
                values[("f", flat)] = fs[u][i][s]
    monkeypatch.setattr(fp, "ProofNonces", lambda key, statement: Chosen(values))
    again = fp.prove_in_one_set(
        CONTEXT, points, sets, target, [opening(target, real[i], i) for i in range(2)], NONCE_KEY
    )
    assert again == proof


def test_the_proof_size_and_shape_do_not_depend_on_the_rank():
    sizes = set()
    for rank in (0, 6, 12):
        points, openings = quads(rank, seed=rank)
        proof = fp.prove_in_one_set(CONTEXT, points, SETS, rank, openings, NONCE_KEY)
        shape = [[len(card) for card in row] for row in proof["c"]]
        sizes.add((len(msgpack.packb(proof)), str(shape)))
    assert len(sizes) == 1, sizes


def test_no_nonce_repeats_across_statements_of_the_same_cards():
    """Deterministic nonces, the same secret scalars: the quads proven at two moves, and one of
    the cards shown by a face proof. If any nonce came back for another challenge, some branch
    pair would give ``x = (f - f') / (c - c')`` opening its card: none does."""
    points, openings = quads(10)
    first = ints(fp.prove_in_one_set(CONTEXT + b"/7", points, SETS, 10, openings, NONCE_KEY))
    second = ints(fp.prove_in_one_set(CONTEXT + b"/9", points, SETS, 10, openings, NONCE_KEY))
    s0, x0 = openings[0]
    face = [s_int(v) for v in fp.prove_face(CONTEXT, points[0], SETS[10][s0], x0, NONCE_KEY)]
    pairs = []
    for u in range(13):
        for i in range(4):
            for s in range(4):
                pairs.append((first["c"][u][i][s], first["f"][u][i][s], second["c"][u][i][s], second["f"][u][i][s], i))
                if i == 0:
                    pairs.append((first["c"][u][0][s], first["f"][u][0][s], face[0], face[1], 0))
    for c1, f1, c2, f2, i in pairs:
        assert c1 != c2
        guess = (f1 - f2) * pow(c1 - c2, -1, L) % L
        assert s_bytes(guess) != openings[i][1]
    assert first != second  # and nothing is repeated wholesale


# -- encoding: hostile leaves ---------------------------------------------------------------------------

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=True),
    st.text(max_size=4),
    st.binary(max_size=40),
    st.just(L.to_bytes(32, "little")),
    st.just(bytes(32)),
    st.just(b"\xff" * 32),
    st.lists(st.binary(min_size=32, max_size=32), max_size=3),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    where=st.tuples(st.sampled_from("cf"), st.integers(0, 12), st.integers(0, 3), st.integers(0, 3)),
    level=st.integers(0, 3),
    junk=JUNK,
)
def test_a_hostile_leaf_in_a_quads_proof_gives_invalid_proof_only(where, level, junk):
    """A true quads proof with one leaf, row, card list or whole part replaced by junk from
    msgpack's types (after a round trip through msgpack, as from a peer): refused, and only
    ever as InvalidProof."""
    proof = _QUADS_PROOF
    bad = msgpack.unpackb(msgpack.packb(proof), raw=False)
    key, u, i, s = where
    if level == 0:
        bad[key] = junk
    elif level == 1:
        bad[key][u] = junk
    elif level == 2:
        bad[key][u][i] = junk
    else:
        bad[key][u][i][s] = junk
    try:
        bad = msgpack.unpackb(msgpack.packb(bad), raw=False, strict_map_key=False)
    except (TypeError, ValueError, OverflowError):
        pass
    with pytest.raises(InvalidProof):
        fp.verify_in_one_set(CONTEXT, _QUADS_POINTS, SETS, bad)


_QUADS_POINTS, _openings = quads(4)
_QUADS_PROOF = fp.prove_in_one_set(CONTEXT, _QUADS_POINTS, SETS, 4, _openings, NONCE_KEY)

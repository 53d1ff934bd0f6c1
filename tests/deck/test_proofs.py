"""The pass proofs: honest proofs verify, and no cheat of a shuffle or re-lock pass does."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nacl import bindings as na

from p2pcards.deck import proofs
from p2pcards.deck.group import GROUP_ORDER, card_point, invert, mul, prf_scalar

from .deck_helpers import bad_points

CONTEXT = b"table/game/op 3/shuffle/seat 1"


def scalar(label: str, *parts: int) -> bytes:
    return prf_scalar(b"s" * 32, label, *parts)


def times(k: bytes, point: bytes) -> bytes:
    return na.crypto_scalarmult_ed25519_noclamp(k, point)


def deck(n: int, tag: str = "c") -> list[bytes]:
    return [card_point(b"ctx", f"{tag}{i}") for i in range(n)]


class Pass:
    """An honest shuffle pass of ``n`` cards, and helpers to bend it."""

    def __init__(self, n: int, seed: int = 0):
        self.inputs = deck(n)
        self.k = scalar("k", seed)
        self.key = proofs.public_key(self.k)
        self.perm = list(range(n))
        random.Random(seed).shuffle(self.perm)
        self.outputs = [times(self.k, self.inputs[i]) for i in self.perm]

    def prove(self, outputs=None, context=CONTEXT, perm=None):
        return proofs.prove_shuffle(
            context, self.inputs, outputs or self.outputs, self.key, self.k, perm or self.perm, b"n" * 32
        )

    def verify(self, proof, outputs=None, context=CONTEXT, key=None):
        proofs.verify_shuffle(context, self.inputs, outputs or self.outputs, key or self.key, proof)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 24), seed=st.integers(0, 2**32))
def test_an_honest_shuffle_proof_verifies(n, seed):
    p = Pass(n, seed)
    p.verify(p.prove())


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(3, 16), seed=st.integers(0, 2**32), which=st.sampled_from(["outputs", "context", "key"]))
def test_a_shuffle_proof_is_bound_to_its_statement(n, seed, which):
    p = Pass(n, seed)
    proof = p.prove()
    with pytest.raises(proofs.InvalidProof):
        if which == "outputs":  # another honest pass over the same input, another order
            other = p.perm[1:] + p.perm[:1]
            p.verify(proof, outputs=[times(p.k, p.inputs[i]) for i in other])
        elif which == "context":  # another game, op, step or seat
            p.verify(proof, context=CONTEXT + b"'")
        else:
            p.verify(proof, key=proofs.public_key(scalar("other")))


def cheats(p: Pass) -> dict[str, list[bytes]]:
    """Output decks a cheating shuffler might send, with every point valid and distinct."""
    out = list(p.outputs)
    copy = list(out)
    # one input card at two outputs (under another factor, so the points differ)
    copy[1] = times(mul(p.k, scalar("copy")), p.inputs[p.perm[0]])
    summed = list(out)
    summed[0] = times(p.k, na.crypto_core_ed25519_add(p.inputs[p.perm[0]], p.inputs[p.perm[1]]))
    tagged = list(out)
    tagged[2] = times(mul(p.k, scalar("tag")), p.inputs[p.perm[2]])  # a known extra factor
    substituted = list(out)
    substituted[3] = times(p.k, card_point(b"ctx", "not in the deck"))
    return {"copy": copy, "sum": summed, "tag": tagged, "substitute": substituted}


@pytest.mark.parametrize("cheat", ["copy", "sum", "tag", "substitute"])
@pytest.mark.parametrize("n", [6, 54])
def test_no_cheat_gets_a_shuffle_proof_through(cheat, n):
    p = Pass(n, n)
    bent = cheats(p)[cheat]
    assert len(set(bent)) == n
    # Neither the honest pass's proof nor one made for the bent deck with the honest witness.
    for proof in (p.prove(), p.prove(outputs=bent)):
        with pytest.raises(proofs.InvalidProof):
            p.verify(proof, outputs=bent)


def test_a_shuffle_proof_that_claims_another_permutation_fails():
    p = Pass(8, 3)
    wrong = p.perm[1:] + p.perm[:1]
    with pytest.raises(proofs.InvalidProof):
        p.verify(p.prove(perm=wrong))


def _bent_proofs(proof):
    """``proof`` with one field changed, for each point and scalar of it in turn: a point
    multiplied by another scalar, a scalar plus one."""
    for field in ("points", "scalars", "fb", "fw", "fc"):
        for index in range(len(proof[field])):
            bent = {k: list(v) for k, v in proof.items()}
            if field == "points":
                bent[field][index] = times(scalar("x"), bent[field][index])
            else:
                value = (int.from_bytes(bent[field][index], "little") + 1) % GROUP_ORDER
                bent[field][index] = value.to_bytes(32, "little")
            yield bent


def test_every_field_of_a_shuffle_proof_matters():
    p = Pass(5, 9)
    for bent in _bent_proofs(p.prove()):
        with pytest.raises(proofs.InvalidProof):
            p.verify(bent)


@pytest.mark.parametrize("bad", sorted(bad_points()))
def test_malformed_shuffle_proofs_are_refused_not_crashed_on(bad):
    p = Pass(4, 1)
    proof = p.prove()
    candidates = [
        None,
        [],
        {},
        {**proof, "extra": []},
        {**proof, "fb": proof["fb"][:-1]},
        {**proof, "points": [bad] + proof["points"][1:]},
        {**proof, "scalars": [GROUP_ORDER.to_bytes(32, "little")] + proof["scalars"][1:]},
        {**proof, "fw": ["text"] * 4},
    ]
    for candidate in candidates:
        with pytest.raises(proofs.InvalidProof):
            p.verify(candidate)
    with pytest.raises(proofs.InvalidProof):
        p.verify(proof, outputs=[bad] + p.outputs[1:])
    with pytest.raises(proofs.InvalidProof):
        p.verify(proof, key=bad)


def test_shuffle_proofs_are_deterministic_and_sized_as_documented():
    p = Pass(10, 4)
    proof = p.prove()
    assert p.prove() == proof
    size = sum(len(v) for value in proof.values() for v in value)
    assert size == proofs.shuffle_proof_size(10)


# -- re-lock ---------------------------------------------------------------------------------------


class Relock:
    def __init__(self, n: int):
        self.inputs = deck(n, "r")
        self.k = scalar("k")
        self.key = proofs.public_key(self.k)
        self.x = [scalar("x", j) for j in range(n)]
        self.z = [mul(x, invert(self.k)) for x in self.x]
        self.keys = [proofs.public_key(x) for x in self.x]
        self.outputs = [times(z, point) for z, point in zip(self.z, self.inputs)]

    def prove(self, outputs=None, keys=None, context=CONTEXT):
        return proofs.prove_relock(
            context, self.inputs, outputs or self.outputs, self.key, keys or self.keys, self.z, b"n" * 32
        )

    def verify(self, proof, outputs=None, keys=None, context=CONTEXT):
        proofs.verify_relock(context, self.inputs, outputs or self.outputs, self.key, keys or self.keys, proof)


def test_an_honest_relock_proof_verifies_and_is_bound_to_its_context():
    r = Relock(12)
    proof = r.prove()
    r.verify(proof)
    assert size_of(proof) == proofs.relock_proof_size(12)
    with pytest.raises(proofs.InvalidProof):
        r.verify(proof, context=CONTEXT + b"!")


def size_of(proof):
    return len(proof["c"]) + sum(len(f) for f in proof["f"])


def relock_cheats(r: Relock) -> dict[str, tuple[list[bytes], list[bytes]]]:
    moved = list(r.outputs)
    moved[0], moved[1] = moved[1], moved[0]
    copied = list(r.outputs)
    copied[1] = times(mul(r.z[1], mul(r.z[0], invert(r.z[1]))), r.inputs[0])  # card 0's at 1
    tagged = list(r.outputs)
    tagged[2] = times(scalar("tag"), tagged[2])
    wrong_key = list(r.keys)
    wrong_key[3] = proofs.public_key(scalar("other key"))
    return {
        "move": (moved, r.keys),
        "copy": (copied, r.keys),
        "tag": (tagged, r.keys),
        "wrong key": (r.outputs, wrong_key),
    }


@pytest.mark.parametrize("cheat", ["move", "copy", "tag", "wrong key"])
def test_no_cheat_gets_a_relock_proof_through(cheat):
    r = Relock(8)
    outputs, keys = relock_cheats(r)[cheat]
    for proof in (r.prove(), r.prove(outputs=outputs, keys=keys)):
        with pytest.raises(proofs.InvalidProof):
            r.verify(proof, outputs=outputs, keys=keys)


@pytest.mark.parametrize("bad", sorted(bad_points()))
def test_malformed_relock_proofs_are_refused(bad):
    r = Relock(3)
    proof = r.prove()
    for candidate in (
        None,
        {"c": proof["c"]},
        {**proof, "f": proof["f"][:2]},
        {**proof, "f": [bytes(32)] * 3},
        {**proof, "c": b"\xff" * 32},
    ):
        with pytest.raises(proofs.InvalidProof):
            r.verify(candidate)
    with pytest.raises(proofs.InvalidProof):
        r.verify(proof, outputs=[bad] + r.outputs[1:])
    with pytest.raises(proofs.InvalidProof):
        r.verify(proof, keys=r.keys[:2] + [bad])


# -- a pass's proof is bound to its game, operation, step and seat ------------------------------------


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.binary(min_size=32, max_size=32),
    op=st.integers(0, 2**20),
    seat=st.integers(0, 6),
    other=st.sampled_from(["game", "op", "seat"]),
)
def test_a_pass_proof_holds_only_for_its_own_game_op_and_seat(game, op, seat, other):
    from p2pcards.deck.passes import PassError, check_pass, make_shuffle

    p = Pass(6, op)
    message = make_shuffle(game, op, seat, p.inputs, p.outputs, p.k, p.perm, b"n" * 32)
    check_pass(game, op, "shuffle", seat, message, p.inputs, {})
    bent = {
        "game": (bytes(32) if game != bytes(32) else b"\x01" * 32, op, seat),
        "op": (game, op + 1, seat),
        "seat": (game, op, (seat + 1) % 7),
    }
    g, o, s = bent[other]
    with pytest.raises(PassError):
        check_pass(g, o, "shuffle", s, message, p.inputs, {})


def test_one_card_and_no_card():
    """A transfer may move one card (or, from a plugin, none): both prove and verify."""
    one = Pass(1, 0)
    one.verify(one.prove())
    empty = proofs.prove_shuffle(CONTEXT, [], [], one.key, one.k, [], b"n" * 32)
    proofs.verify_shuffle(CONTEXT, [], [], one.key, empty)
    with pytest.raises(proofs.InvalidProof):
        proofs.verify_shuffle(CONTEXT, [], [], one.key, one.prove())


# -- several shuffle proofs checked at once (proofs.verify_shuffles) -------------------------------


def chain(n: int, passes: int, seed: int = 0) -> list[tuple]:
    """The statements of ``passes`` honest shuffle passes one after another (each one's outputs
    the next one's inputs), as verify_shuffles takes them."""
    statements = []
    inputs = deck(n)
    for s in range(passes):
        k = scalar("k", seed, s)
        perm = list(range(n))
        random.Random(seed * 100 + s).shuffle(perm)
        outputs = [times(k, inputs[i]) for i in perm]
        context = CONTEXT + bytes([s])
        key = proofs.public_key(k)
        statements.append(
            (context, inputs, outputs, key, proofs.prove_shuffle(context, inputs, outputs, key, k, perm, b"n" * 32))
        )
        inputs = outputs
    return statements


def test_honest_shuffle_proofs_verify_together():
    statements = chain(12, 4)
    proofs.verify_shuffles(statements)
    proofs.verify_shuffles(statements[:1])
    proofs.verify_shuffles([])


@pytest.mark.parametrize("cheat", ["copy", "sum", "tag", "substitute"])
def test_a_batch_fails_whenever_one_of_its_proofs_would(cheat):
    statements = chain(6, 3, 1)
    p = Pass(6, 6)
    bent = cheats(p)[cheat]
    for proof in (p.prove(), p.prove(outputs=bent)):
        with pytest.raises(proofs.InvalidProof):
            proofs.verify_shuffles([*statements, (CONTEXT, p.inputs, bent, p.key, proof)])


def test_a_batch_fails_for_any_bent_field_of_any_proof():
    statements = chain(4, 3, 2)
    for which in range(3):
        context, inputs, outputs, key, proof = statements[which]
        for bent in _bent_proofs(proof):
            batch = list(statements)
            batch[which] = (context, inputs, outputs, key, bent)
            with pytest.raises(proofs.InvalidProof):
                proofs.verify_shuffles(batch)
    # Two proofs swapped between their statements, another key, another context.
    swapped = list(statements)
    swapped[0], swapped[1] = (*statements[0][:4], statements[1][4]), (*statements[1][:4], statements[0][4])
    with pytest.raises(proofs.InvalidProof):
        proofs.verify_shuffles(swapped)
    with pytest.raises(proofs.InvalidProof):
        proofs.verify_shuffles(
            [*statements[:2], (*statements[2][:3], proofs.public_key(scalar("o")), statements[2][4])]
        )
    with pytest.raises(proofs.InvalidProof):
        proofs.verify_shuffles([(b"other", *statements[0][1:]), *statements[1:]])


def test_errors_cancelling_between_two_proofs_do_not_pass_a_batch():
    """A cheater who controls two proofs of a batch cannot make their errors cancel: each
    equation gets its own secret random weight. (Here: the same bent proof twice.)"""
    statements = chain(5, 2, 3)
    context, inputs, outputs, key, proof = statements[1]
    bent = {k: list(v) for k, v in proof.items()}
    bent["points"][0] = times(scalar("x"), bent["points"][0])
    with pytest.raises(proofs.InvalidProof):
        proofs.verify_shuffles(
            [statements[0], (context, inputs, outputs, key, bent), (context, inputs, outputs, key, bent)]
        )

"""The group layer: point validation, scalars, derivations."""

from __future__ import annotations

import pytest

from p2pcards.deck import group
from p2pcards.deck.derive import card_table

from .deck_helpers import BASE, bad_points


@pytest.mark.parametrize("name", sorted(bad_points()))
def test_every_bad_point_is_refused(name):
    point = bad_points()[name]
    assert not group.is_valid_point(point)
    with pytest.raises(group.InvalidPoint):
        group.multiply(group.prf_scalar(b"k" * 32, "t"), point, 0)
    with pytest.raises(group.InvalidPoint) as info:
        group.multiply_many([group.prf_scalar(b"k" * 32, "t")] * 3, [BASE, BASE, point])
    assert info.value.index == 2


def test_card_points_are_valid_and_distinct():
    labels = tuple(f"c{i}#0" for i in range(60))
    table = card_table(b"g" * 32, labels)
    assert len(set(table)) == 60
    assert all(group.is_valid_point(p) for p in table)


def test_scalars_checked():
    good = group.prf_scalar(b"k" * 32, "t")
    assert group.check_scalar(good) == good
    for bad in (bytes(32), group.GROUP_ORDER.to_bytes(32, "little"), b"\x01" * 31, "text"):
        with pytest.raises(group.InvalidScalar):
            group.check_scalar(bad)


def test_batch_invert_matches_single_inversions():
    scalars = [group.prf_scalar(b"k" * 32, "t", i) for i in range(7)]
    assert group.batch_invert(scalars) == [group.invert(s) for s in scalars]


def test_prf_scalars_prefix_matches_prf_scalar():
    fast = group.PrfScalars(b"k" * 32, "card-key", b"game")
    assert all(fast(h) == group.prf_scalar(b"k" * 32, "card-key", b"game", h) for h in range(20))


def test_uniform_below_rejects_the_biased_tail():
    # bound 3: 2**64 % 3 == 1, so the single word 2**64 - 1 must be rejected, not reduced
    stream = iter([2**64 - 1, 2**64 - 2, 5])
    assert group.uniform_below(3, stream) == (2**64 - 2) % 3
    assert group.uniform_below(3, stream) == 5 % 3


def test_scalar_arithmetic_matches_libsodium():
    """mul / invert / scalar_product run in Python integers: byte for byte what libsodium's
    scalar functions give, reduced or not, including scalars near L and 2**256."""
    from nacl import bindings

    edge = [1, 2, group.GROUP_ORDER - 1, group.GROUP_ORDER + 5, 2**256 - 1, 2**252]
    scalars = [group.prf_scalar(b"k" * 32, "test", i) for i in range(20)]
    scalars += [v.to_bytes(32, "little") for v in edge]
    for a in scalars:
        if int.from_bytes(a, "little") % group.GROUP_ORDER:
            assert group.invert(a) == bindings.crypto_core_ed25519_scalar_invert(a)
        for b in scalars[::3]:
            assert group.mul(a, b) == bindings.crypto_core_ed25519_scalar_mul(a, b)
    product = bindings.crypto_core_ed25519_scalar_mul(scalars[0], scalars[1])
    product = bindings.crypto_core_ed25519_scalar_mul(product, scalars[2])
    assert group.scalar_product(scalars[:3]) == product

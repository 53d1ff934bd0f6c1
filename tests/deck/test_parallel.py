"""parallel_multiply_many (the Party's default) gives multiply_many's results and blame."""

from __future__ import annotations

import os

import pytest

from p2pcards.deck import group

from .deck_helpers import bad_points


def _inputs(n: int) -> tuple[list[bytes], list[bytes]]:
    scalars = [group.check_scalar(group._na.crypto_core_ed25519_scalar_reduce(os.urandom(64))) for _ in range(n)]
    points = [group._na.crypto_core_ed25519_from_uniform(os.urandom(32)) for _ in range(n)]
    return scalars, points


@pytest.mark.parametrize("n", [0, 1, group.PARALLEL_MIN_POINTS - 1, group.PARALLEL_MIN_POINTS, 208])
def test_same_points_as_one_thread(monkeypatch, n):
    monkeypatch.setattr(group, "PARALLEL_WORKERS", 2)
    scalars, points = _inputs(n)
    assert group.parallel_multiply_many(scalars, points) == group.multiply_many(scalars, points)


@pytest.mark.parametrize("bad_at", [[0], [150], [99, 180], [207]])
def test_the_first_bad_point_is_named(monkeypatch, bad_at):
    monkeypatch.setattr(group, "PARALLEL_WORKERS", 3)
    scalars, points = _inputs(208)
    for index in bad_at:
        points[index] = next(iter(bad_points().values()))
    with pytest.raises(group.InvalidPoint) as caught:
        group.parallel_multiply_many(scalars, points)
    assert caught.value.index == bad_at[0]

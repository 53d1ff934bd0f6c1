"""Fixtures for the wire layer: a few identities, a table id and a fresh log."""

from __future__ import annotations

import pytest

from p2pcards.wire.identity import Identity
from p2pcards.wire.log import Log

TABLE = bytes(range(16))
LOBBY = {"game": "highcard", "seats": 3}


@pytest.fixture(scope="session")
def players() -> list[Identity]:
    return [Identity.generate() for _ in range(3)]


@pytest.fixture(scope="session")
def roster(players):
    return [p.public for p in players]


@pytest.fixture
def new_log(roster):
    def make() -> Log:
        return Log(TABLE, LOBBY, roster)

    return make

"""Transcripts of real networked games, played once per test session."""

from __future__ import annotations

import pytest
from verify_tables import Table, play_table


@pytest.fixture(scope="session")
def bs_table(tmp_path_factory) -> Table:
    """Cal's BS, 3 bot peers, one hand (match_target=1)."""
    return play_table("cals-bs", 3, {"match_target": 1}, tmp_path_factory.mktemp("bs"))


@pytest.fixture(scope="session")
def calypso_table(tmp_path_factory) -> Table:
    """Calypso, 4 bot peers (partnerships), a whole game."""
    return play_table("calypso", 4, {}, tmp_path_factory.mktemp("calypso"))

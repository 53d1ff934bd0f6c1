"""Calypso test fixtures; the helpers live in calypso_table.py (a unique module name, so they
never clash with another folder's conftest)."""

import pytest

from calypso_table import Table, calypso_game


@pytest.fixture(scope="session")
def game():
    return calypso_game()

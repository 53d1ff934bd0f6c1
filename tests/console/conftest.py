"""Fixtures for the console tests: a plugin host with the high-card fixture game (a third-party
distribution) and whatever bundled games are installed."""

import pytest

from p2pcards.plugins import PluginHost


@pytest.fixture
def host(highcard_path, with_path) -> PluginHost:
    with_path(highcard_path)
    host = PluginHost()
    host.load_entry_points()
    return host

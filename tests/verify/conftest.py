"""Transcripts of real networked games, played once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from .verify_tables import Table, doubting_first, play_table, won_hand_pickups

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Under pytest-xdist (``--dist loadgroup``) the tests of this folder, which read the tables
    below (played once per process), go to one worker: four would each play them all again."""
    for item in items:
        if HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.xdist_group("verify-tables"))


@pytest.fixture(scope="session")
def bs_table(tmp_path_factory) -> Table:
    """Cal's BS, 3 bot peers, one hand (match_target=1), with a doubt at turn 1 (its reveal, and
    the taker's re-handling of the pile) whatever the deck deals: the tests cut and forge the
    transcript at those messages."""
    table = play_table("cals-bs", 3, {"match_target": 1}, tmp_path_factory.mktemp("bs"), doubting_first("cals-bs"))
    actions = sorted((e.body["turn"], e.body["action"]["type"]) for e in table.read().entries if e.kind == "action")
    assert actions[1] == (1, "doubt"), actions[:4]
    return table


@pytest.fixture(scope="session")
def bs_challengeable_table(tmp_path_factory) -> Table:
    """Cal's BS with going_out=challengeable, 3 bot peers, first to 2 hands, in which a doubt
    found a final set true at least once (rule 27: the doubter takes the pile after the hand is
    won). The strategic bots doubt a player about to go out, so most hands end that way; the
    shuffles are real, so up to 4 games are played to get one."""
    for _ in range(4):
        table = play_table(
            "cals-bs", 3, {"going_out": "challengeable", "match_target": 2}, tmp_path_factory.mktemp("bs-challengeable")
        )
        if won_hand_pickups(table.report.timeline):
            return table
    pytest.fail("4 games and no final set was found true by a doubt")


@pytest.fixture(scope="session")
def calypso_table(tmp_path_factory) -> Table:
    """Calypso, 4 bot peers (partnerships), a whole game."""
    return play_table("calypso", 4, {}, tmp_path_factory.mktemp("calypso"))


@pytest.fixture(scope="session")
def eights_table(tmp_path_factory) -> Table:
    """Crazy Eights, 3 bot peers, one hand."""
    return play_table("crazy-eights", 3, {}, tmp_path_factory.mktemp("eights"))


@pytest.fixture(scope="session")
def holdem_table(tmp_path_factory) -> Table:
    """Texas Hold'em, 3 bot peers, a match of at most 3 hands (issue 33: folded and mucked
    hands stay hidden)."""
    options = {"starting_stack": 200, "small_blind": 5, "big_blind": 10, "hand_limit": 3}
    return play_table("holdem", 3, options, tmp_path_factory.mktemp("holdem"))

"""The table's verdicts on goodbyes, stops and seeds kept (p2pcards.table.verdict), shared by
the live table and ``p2pcards verify``: synchronous, one row per case."""

from __future__ import annotations

import pytest

from p2pcards.table import verdict


@pytest.mark.parametrize(
    ("waited_on", "unrevealed", "players", "left"),
    [
        (0, {0}, 3, True),  # it alone kept its seed; two others revealed theirs
        (0, {0}, 4, True),
        (0, {0, 1}, 3, False),  # the file of seat 2, cut off from both: its own seed only
        (0, {0, 1}, 4, False),  # one side of a table split two and two
        (0, {0}, 2, False),  # two seats: one file never tells who was cut off
        (1, {0}, 3, False),  # it revealed its seed: judged as a stall, not as gone
        (0, set(), 3, False),
    ],
)
def test_a_seat_that_kept_its_seed_left_only_where_the_file_can_tell(waited_on, unrevealed, players, left):
    assert verdict.left_without_seed(waited_on, unrevealed, players) is left


def test_a_goodbye_names_its_author_with_its_own_reason_and_nothing_of_another_shape():
    assert verdict.goodbye("dave", {"reason": "quit"}) == "dave left the table: quit (its signed goodbye)"
    assert verdict.goodbye("dave", {"reason": 7}) == "dave left the table: no reason given (its signed goodbye)"
    assert verdict.goodbye("dave", None) == "dave left the table: no reason given (its signed goodbye)"

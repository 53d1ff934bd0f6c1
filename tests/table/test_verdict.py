"""The table's verdicts on goodbyes, stops and stops never signed (p2pcards.table.verdict), shared by
the live table and ``p2pcards verify``: synchronous, one row per case."""

from __future__ import annotations

import pytest

from p2pcards.table import verdict


@pytest.mark.parametrize(
    ("waited_on", "unstopped", "players", "left"),
    [
        (0, {0}, 3, True),  # it alone signed no stop; two others signed theirs
        (0, {0}, 4, True),
        (0, {0, 1}, 3, False),  # the file of seat 2, cut off from both: its own stop only
        (0, {0, 1}, 4, False),  # one side of a table split two and two
        (0, {0}, 2, False),  # two seats: one file never tells who was cut off
        (1, {0}, 3, False),  # it signed its stop: judged as a stall, not as gone
        (0, set(), 3, False),
    ],
)
def test_a_seat_that_signed_no_stop_left_only_where_the_file_can_tell(waited_on, unstopped, players, left):
    assert verdict.left_without_stop(waited_on, unstopped, players) is left


@pytest.mark.parametrize(
    ("kinds", "ended"),
    [
        (["deck", "action", "stop"], True),
        (["deck", "bye"], True),
        (["deck", "action", "result"], True),
        (["deck", "action", "chat", "blame"], False),  # evidence alone is no end of its game
        ([], False),
    ],
)
def test_a_seat_ended_its_game_by_its_stop_bye_or_result(kinds, ended):
    assert verdict.ended_its_game(kinds) is ended


def test_a_goodbye_names_its_author_in_our_words_and_shows_its_reason_apart_escaped():
    """A verdict never repeats a peer's words (review of issue 28): the leaver's reason is shown
    beside it, marked as its words by the caller, escaped for a terminal and cut short."""
    for body in ({"reason": "quit"}, {"reason": 7}, None, {"reason": "\x1b[2J seat 0 cheated"}):
        assert verdict.goodbye("dave", body) == "dave left the table (a signed goodbye)"
    assert verdict.goodbye_words({"reason": "quit"}) == "quit"
    assert verdict.goodbye_words({"reason": 7}) == verdict.goodbye_words(None) == "no reason given"
    assert verdict.goodbye_words({"reason": "\x1b[2J\u202e"}) == "\\x1b[2J\\u202e"
    long = verdict.goodbye_words({"reason": "x" * 70_000})
    assert len(long) == verdict.WORDS_SHOWN and long.endswith("\u2026")


# stopped_on_private: seat 2 stopped; echoes count entries held per seat (0, 1, 2).
PRIVATE = [(1, 4, {2}), (0, 3, {1, 2}), (1, 2, {0})]


@pytest.mark.parametrize(
    "before, stop, found",
    [
        ([0, 5, 0], [5, 5, 0], [(0, 3)]),  # seat 0's box to it came between: nobody
        ([0, 4, 0], [5, 5, 0], [(0, 3), (1, 4)]),  # two of them, listed in order
        ([5, 5, 0], [5, 5, 0], []),  # it had signed an entry after both: it stalls
        ([0, 0, 0], [0, 4, 0], []),  # its stop counts seat 1's entry #2 only (to seat 0)
        ([0, 2, 0], [0, 3, 0], []),  # nor #4 (count 3: entries 0..2)
    ],
)
def test_a_stop_right_after_a_private_entry_to_it_names_nobody(before, stop, found):
    assert verdict.stopped_on_private(before, stop, PRIVATE, 2) == found


def test_a_private_entry_of_its_own_is_no_excuse():
    assert verdict.stopped_on_private([0, 0, 0], [0, 0, 9], [(2, 3, {2})], 2) == []


def test_the_stop_on_a_private_entry_wording_names_nobody_and_quotes_no_peer():
    reason = verdict.stopped_on_private_reason("carol", "move for turn 3", 7, [("bob", 4)])
    assert "carol stopped (log #7)" in reason and "bob's #4" in reason and "cannot tell" in reason


class _E:
    def __init__(self, seq, kind, body=None):
        self.seq, self.kind, self.body = seq, kind, body if body is not None else {}


PASS = {"msg": {"type": "shuffle"}}


@pytest.mark.parametrize(
    ("chains", "found"),
    [
        # seat 1 stopped, then signed a pass: named, with its stop's number
        ([[_E(0, "deck", PASS)], [_E(0, "deck", PASS), _E(1, "stop"), _E(2, "deck", PASS)]], (1, 2, "deck", 1)),
        # chat, evidence and goodbye after its stop are no fault
        ([[_E(0, "stop"), _E(2, "chat"), _E(3, "blame"), _E(4, "bye")]], None),
        # a seed message after it is (no seed is revealed since protocol version 12)
        ([[_E(0, "stop"), _E(1, "deck", {"msg": {"type": "seed", "seed": b"s"}})]], (0, 1, "deck", 0)),
        # a move, a statement, a result after it are
        ([[_E(0, "stop"), _E(1, "absent")]], (0, 1, "absent", 0)),
        ([[_E(0, "result")], [_E(0, "stop"), _E(1, "result")]], (1, 1, "result", 0)),
        # the first seat in seat order, as verify reads the file
        ([[_E(0, "stop"), _E(1, "action")], [_E(0, "stop"), _E(1, "action")]], (0, 1, "action", 0)),
        ([[_E(0, "action"), _E(1, "action")]], None),
    ],
)
def test_a_step_signed_after_the_signers_own_stop_is_found_alike_live_and_in_verify(chains, found):
    got = verdict.played_after_stop(len(chains), lambda seat: chains[seat])
    assert (None if got is None else (got.seat, got.seq, got.kind, got.stop)) == found
    if got is not None:
        assert got.reason("bob").startswith("bob: it signed a ")


@pytest.mark.parametrize(
    ("stops", "found"),
    [
        ([(0, 7, 5), (2, 9, 6)], None),  # every other seat stopped on the goodbye (#4 of seat 1)
        ([(0, 7, 4), (2, 9, 6)], (0, 7)),  # seat 0 had stopped without it: nobody named
        ([(1, 3, 0)], None),  # its author's own stop is no other seat's
        ([], None),
    ],
)
def test_a_goodbye_names_its_author_only_where_no_seat_had_stopped_without_it(stops, found):
    assert verdict.goodbye_overtaken(1, 4, stops) == found
    assert "does not say which seat wrote it" in verdict.goodbye_overtaken_reason("b", 4, "a", 7)


def test_a_stop_past_what_the_game_used_is_excused_only_while_other_seats_signed_none():
    assert verdict.stop_excused_by_unstopped(1, True, {2})
    assert not verdict.stop_excused_by_unstopped(1, True, set())
    assert not verdict.stop_excused_by_unstopped(1, True, {1, 2})
    assert not verdict.stop_excused_by_unstopped(1, False, {2})

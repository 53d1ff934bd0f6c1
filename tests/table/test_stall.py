"""The one stall verdict (p2pcards/table/stall.py), synchronously: one row per rule of
protocol/table.md section 5 that decides whom a wait on a seat that ended names. The live
referee (Wait.look) and verify (verify/stops.py, the replay's held entries) both call it; here
the facts go in and the verdict comes out, in milliseconds."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from p2pcards.table import verdict
from p2pcards.table.referee import Links, Timings, Wait
from p2pcards.table.stall import Stall, StallFacts, Statements, Unreceived, decide
from p2pcards.table.timeouts import Timeouts

NAMES = ["p0", "p1", "p2", "p3"]


@dataclass
class Row:
    rule: str
    facts: StallFacts
    seat: int | None
    words: str


ROWS = [
    Row(
        "a seat that signed a stop where it owed its move is named as the one whose game stopped, "
        "its words shown as its words (not as one that stalled)",
        StallFacts(1, "turn", "move for turn 3", own_stop=(7, "my\x1b[31m plugin failed")),
        1,
        "p1 stopped its own game where it owed its move (its stop entry #7; it said: my\\x1b[31m plugin failed)",
    ),
    Row(
        "its stop's echo showing it never received what the game reached still comes first: nobody",
        StallFacts(1, "deck", "step 'open'", own_stop=(7, "x"), unreceived=Unreceived(0, 4, 7)),
        None,
        "the game waited on p1, but its stop entry (#7) shows it never received p0's entry #4",
    ),
    Row(
        "a move not signed by its timeout names the seat",
        StallFacts(1, "turn", "move for turn 3"),
        1,
        "p1 did not move in time",
    ),
    Row(
        "a deck message not sent by its timeout names the seat",
        StallFacts(2, "deck", "step 'shuffle'"),
        2,
        "p2 (seat 2) did not send its deck message in time (step 'shuffle')",
    ),
    Row(
        "a signed goodbye names its author, whoever the game waited on",
        StallFacts(1, "turn", "move", goodbye=(3, {"reason": "my player quit"})),
        3,
        verdict.goodbye("p3", {"reason": "my player quit"}),
    ),
    Row(
        "a goodbye comes before every other fact",
        StallFacts(1, "deck", "x", goodbye=(1, {}), held_back=frozenset({2}), waits_on=((2, "away"),)),
        1,
        "p1 left the table (a signed goodbye)",
    ),
    Row(
        "a follower stated absent at the turn waited on, the statements not all in, names nobody",
        StallFacts(2, "turn", "move for turn 4", statements_on_it=Statements(4, 2, frozenset({1}))),
        None,
        "the statements on whether p2's move for turn 4 stands did not all come (missing: p1)",
    ),
    Row(
        "a goodbye still comes before the open statements on the follower",
        StallFacts(2, "turn", "move", goodbye=(2, {}), statements_on_it=Statements(4, 2, frozenset({1}))),
        2,
        "p2 left the table",
    ),
    Row(
        "a goodbye that another seat's stop does not count names nobody",
        StallFacts(1, "turn", "move", goodbye_overtaken=(3, 4, 0, 7)),
        None,
        "p3 signed a goodbye (log #4), but p0's program had stopped the game without it",
    ),
    Row(
        "entries held here waiting for entries that never came name nobody",
        StallFacts(1, "turn", "move", held_back=frozenset({2, 3})),
        None,
        "p1's entries are here but wait for entries of p2, p3 that never came",
    ),
    Row(
        "a stop echo that never received an entry the game had reached names nobody",
        StallFacts(1, "turn", "move for turn 4", unreceived=Unreceived(other=2, entry=7, last=12)),
        None,
        "its stop entry (#12) shows it never received p2's entry #7, which the game had reached",
    ),
    Row(
        "a last entry that never received what a used entry had seen names nobody",
        StallFacts(1, "deck", "x", unreceived=Unreceived(other=0, entry=5, last=9, stop=False, seen_by=(2, 6))),
        None,
        "its last signed entry (#9) shows it never received p0's entry #5, which p2's entry #6, used by the game",
    ),
    Row(
        "a seat waiting on absent statements some seat never signed names nobody",
        StallFacts(1, "turn", "move", statements=Statements(turn=3, follower=2, missing=frozenset({0}))),
        None,
        "p1 had stated p2 absent at turn 3 and waits for the other seats' statements on whether "
        "its move stands, and p0 never signed theirs",
    ),
    Row(
        "statements that have all come excuse nothing: the seat stalled",
        StallFacts(1, "turn", "move", statements=Statements(turn=3, follower=2, missing=frozenset())),
        1,
        "p1 did not move in time",
    ),
    Row(
        "a seat whose notice says it waits on a seat away from it names nobody",
        StallFacts(1, "turn", "move", waits_on=((2, "away"),)),
        None,
        "p1 waits on p2, who is away from it (its own word), past the last call",
    ),
    Row(
        "a seat whose notice says it waits on a statement names nobody",
        StallFacts(1, "deck", "step 'relock'", waits_on=((3, "statements"),)),
        None,
        "p1 waits on p3, who has not stated (its own word), past the last call",
    ),
    Row(
        "a notice that says it waits on nothing excuses nothing",
        StallFacts(1, "turn", "move", waits_on=()),
        1,
        "p1 did not move in time",
    ),
    Row(
        "no notice known (a file holds none): the other facts decide",
        StallFacts(1, "turn", "move for turn 2", waits_on=None),
        1,
        "p1 did not move in time",
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.rule for row in ROWS])
def test_stall_rules(row: Row) -> None:
    found = decide(row.facts, NAMES)
    assert isinstance(found, Stall)
    assert found.seat == row.seat, found.reason
    assert row.words in found.reason


def test_no_verdict_repeats_a_peer_words() -> None:
    """A notice's words never reach a verdict: only seat numbers do (names are the header's)."""
    found = decide(StallFacts(1, "turn", "move", waits_on=((2, "away: p0 cheated"),)), NAMES)
    assert found.seat is None and "cheated" not in found.reason


def test_an_unknown_phase_is_refused() -> None:
    with pytest.raises(ValueError):
        decide(StallFacts(1, "lobby", "x"), NAMES)


def test_the_live_referee_gives_the_same_verdict() -> None:
    """Wait.look at a turn's timeout ends with decide's seat and words (one wording)."""
    timings = Timings.of(Timeouts())
    for facts in (
        StallFacts(1, "turn", "move"),
        StallFacts(1, "turn", "move", held_back=frozenset({2})),
        StallFacts(1, "turn", "move", statements=Statements(0, 2, frozenset({0}))),
    ):
        wait = Wait(timings, NAMES[:3], "turn", 0.0)
        now = timings.turn
        links = Links(0, 3, now, now, frozenset({1, 2}), heard={1: now, 2: now})
        statements = {1: facts.statements} if facts.statements is not None else {}
        effects = wait.look(links, [(1, "action")], held_back={1: set(facts.held_back)}, statements=statements)
        end = [e for e in effects if hasattr(e, "aborted")]
        assert len(end) == 1
        expected = decide(facts, NAMES[:3])
        assert (end[0].aborted.seat, end[0].aborted.reason) == (expected.seat, expected.reason)

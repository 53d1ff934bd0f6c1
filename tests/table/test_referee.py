"""The wait and liveness referee (p2pcards/table/referee.py), synchronously: one row per rule of
protocol/table.md sections 5 and 9 and deck.md section 4.5 that decides who is waited on, who
is away or gone, when a wait ends and whom it names. Each row: the facts at each look in, the
decision out. No sockets, no trio, no clock: milliseconds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from p2pcards.table.referee import (
    CUT_OFF,
    AskAround,
    End,
    Links,
    NoteAway,
    Report,
    StateAbsent,
    Timings,
    Wait,
    WaitingOn,
    report_due,
    stop_awaited,
)
from p2pcards.table.timeouts import Timeouts

NAMES = ["p0", "p1", "p2", "p3"]
#: deck 30 s, turn 600 s, grace 90 s (the defaults): the last call is 8 s past deadline + grace.
T = Timings.of(Timeouts())
ME = 0


def links(now: float, **facts: Any) -> Links:
    """The links at ``now`` (a ``wall`` time equal to it): every other seat connected and heard
    from at ``now`` unless ``facts`` say otherwise."""
    players = facts.pop("players", 3)
    connected = facts.pop("connected", set(range(players)) - {ME})
    heard = facts.pop("heard", {s: now for s in connected})
    return Links(ME, players, now, facts.pop("wall", now), frozenset(connected), heard=heard, **facts)


def ends(effects: list) -> list[End]:
    return [e for e in effects if isinstance(e, End)]


@dataclass
class Row:
    """A wait opened at time 0 in ``phase``, looked at at each ``(time, facts)`` of ``looks``
    (facts as for :func:`links`), waiting on ``owed``. ``named``: the end of the last look, as
    (seat, a piece of its reason, step), or None (keep waiting)."""

    rule: str
    phase: str
    owed: list[tuple[int, str]]
    looks: list[tuple[float, dict[str, Any]]]
    named: tuple[int | None, str, str] | None
    held_back: dict[int, set[int]] = field(default_factory=dict)
    deadline: float | None = None  # the wait's deadline after the last look, if it matters
    settling: frozenset[int] = frozenset()  # seats whose own open absent statement we hold


DECK, TURN = 30.0, 600.0
LAST = {"deck": DECK + 90 + 8, "turn": TURN + 90 + 8}

ROWS = [
    # table.md section 5, the timeouts table; deck.md section 4.5
    Row("a deck step within its timeout waits", "deck", [(1, "shuffle")], [(DECK - 0.1, {})], None),
    Row(
        "a deck step past its timeout names the first seat that owes, as a stall",
        "deck",
        [(2, "shuffle"), (1, "shuffle")],
        [(DECK, {})],
        (2, "p2 (seat 2) did not send its deck message in time (step 'shuffle')", "shuffle"),
    ),
    Row(
        "a deck step with nothing owed at its timeout names nobody",
        "deck",
        [],
        [(DECK, {})],
        (None, "a deck step did not complete in time", "deck"),
    ),
    Row("a move within the turn timeout waits", "turn", [(1, "action")], [(TURN - 0.1, {})], None),
    Row(
        "a move past the turn timeout names the seat",
        "turn",
        [(1, "action")],
        [(TURN, {})],
        (1, "p1 did not move in time", "action"),
    ),
    # the grace period
    Row(
        "an away seat within its grace is waited for",
        "deck",
        [(1, "shuffle")],
        [(5, {"connected": {2}, "away_since": {1: 5}}), (94, {"connected": {2}, "away_since": {1: 5}})],
        None,
    ),
    Row(
        "an away seat past its grace is named as gone",
        "deck",
        [(1, "shuffle")],
        [(5, {"connected": {2}, "away_since": {1: 5}}), (95, {"connected": {2}, "away_since": {1: 5}})],
        (1, "p1 left and did not come back in time", "connection"),
    ),
    Row(
        "an away seat past its grace in a turn is named, step action",
        "turn",
        [(1, "action")],
        [(5, {"connected": {2}, "away_since": {1: 5}}), (95, {"connected": {2}, "away_since": {1: 5}})],
        (1, "p1 left and did not come back in time", "action"),
    ),
    Row(
        "a seat cut off from every other seat names nobody when the grace ends",
        "deck",
        [(1, "shuffle")],
        [(95, {"connected": set(), "away_since": {1: 5, 2: 5}, "cut_off": True})],
        (None, CUT_OFF, "connection"),
    ),
    # silent links
    Row(
        "past the deadline, a link quiet for 2 s waits for the keepalive's verdict",
        "deck",
        [(1, "shuffle")],
        [(DECK, {"heard": {1: DECK - 2, 2: DECK}})],
        None,
        deadline=DECK + 2,
    ),
    Row(
        "past the deadline, nothing heard since it fell due: the keepalive decides",
        "turn",
        [(1, "action")],
        [(TURN, {"heard": {1: TURN - 0.5, 2: TURN}}), (TURN + 1, {"heard": {1: TURN - 0.5, 2: TURN + 1}})],
        None,
    ),
    Row(
        "heard from after the deadline, a stall is named",
        "turn",
        [(1, "action")],
        [(TURN, {"heard": {1: TURN - 0.5, 2: TURN}}), (TURN + 2, {"heard": {1: TURN + 1.5, 2: TURN + 2}})],
        (1, "did not move in time", "action"),
    ),
    Row(
        "a link without keepalive says nothing by its silence",
        "deck",
        [(1, "shuffle")],
        [(DECK, {"heard": {1: None, 2: None}})],
        (1, "did not send its deck message in time", "shuffle"),
    ),
    # a seat that comes back
    Row(
        "a seat back within its grace gets back the time it was away",
        "deck",
        [(1, "shuffle")],
        [(10, {"connected": {2}, "away_since": {1: 10}}), (25, {})],
        None,
        deadline=DECK + 15,
    ),
    Row(
        "a seat back just before the deadline has a moment to catch up",
        "deck",
        [(1, "shuffle")],
        [(29.5, {"connected": {2}, "away_since": {1: 29.5}}), (29.6, {})],
        None,
        deadline=29.6 + 2,
    ),
    Row(
        "the last call: a seat away then is named as gone, within its grace or not",
        "deck",
        [(1, "shuffle")],
        [
            (LAST["deck"] - 1, {"connected": {2}, "away_since": {1: LAST["deck"] - 1}}),
            (LAST["deck"], {"connected": {2}, "away_since": {1: LAST["deck"] - 1}}),
        ],
        (1, "left and did not come back in time", "connection"),
    ),
    # another seat away: the seat we wait on may wait on it
    Row(
        "a timeout charges nobody while another seat is away within its grace and margin",
        "turn",
        [(1, "action")],
        [(TURN, {"connected": {1}, "away_since": {2: TURN - 10}})],
        None,
        deadline=TURN + 2,
    ),
    Row(
        "past the other seat's grace and margin, the stall is named",
        "turn",
        [(1, "action")],
        [(TURN, {"connected": {1}, "away_since": {2: TURN - 97}})],
        (1, "did not move in time", "action"),
    ),
    Row(
        "a stopped or departed other seat does not hold the timeout",
        "deck",
        [(1, "shuffle")],
        [(DECK, {"connected": {1}, "halted": {2}})],
        (1, "did not send its deck message", "shuffle"),
    ),
    Row(
        "the last call ends the wait for the other seat's return too",
        "turn",
        [(1, "action")],
        [
            (TURN, {"connected": {1}, "away_since": {2: TURN}}),
            (LAST["turn"], {"connected": {1}, "away_since": {2: TURN}}),
        ],
        (1, "did not move in time", "action"),
    ),
    # held back: the entries are here but wait for entries that never came
    Row(
        "a deck message held back for entries never signed names nobody",
        "deck",
        [(1, "relock")],
        [(DECK, {})],
        (None, "p1's entries are here but wait for entries of p2 that never came", "deck"),
        held_back={1: {2}},
    ),
    Row(
        "a move held back for entries never signed names nobody",
        "turn",
        [(1, "action")],
        [(TURN, {})],
        (None, "p1's entries are here but wait for entries of p2 that never came", "action"),
        held_back={1: {2}},
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.rule for row in ROWS])
def test_wait_rules(row: Row) -> None:
    wait = Wait(T, NAMES, row.phase, 0.0)
    effects: list = []
    for at, facts in row.looks:
        effects = wait.look(links(at, **facts), row.owed, held_back=row.held_back, settling=row.settling)
    end = ends(effects)
    if row.named is None:
        assert end == [], end
    else:
        seat, words, step = row.named
        assert len(end) == 1, effects
        assert (end[0].aborted.seat, end[0].aborted.step) == (seat, step)
        assert words in end[0].aborted.reason, end[0].aborted.reason
        # A stall (a seat named for what it did not sign in time) is marked so: the seat that
        # named it judges it again by the named seat's stop, once its transcript is written.
        stalled = any(
            w in end[0].aborted.reason for w in ("did not move in time", "deck message in time", "withheld its opening")
        )
        assert end[0].aborted.stall == stalled, end[0].aborted.reason
    if row.deadline is not None:
        assert wait.deadline == pytest.approx(row.deadline)


def test_every_look_asks_around_for_what_is_owed() -> None:
    """table.md section 5, "Waiting asks around"; a seat among them that stopped stops us."""
    wait = Wait(T, NAMES, "deck", 0.0)
    assert wait.look(links(1), [(1, "shuffle"), (2, "shuffle")]) == [AskAround(frozenset({1, 2}))]


def test_looks_come_after_a_quarter_second_then_half_then_every_second() -> None:
    wait = Wait(T, NAMES, "turn", 0.0)
    assert [wait.sleep(0.0) for _ in range(5)] == [0.25, 0.5, 1.0, 1.0, 1.0]
    # never past the deadline while nobody is away, and no busy loop past it
    assert wait.sleep(TURN - 0.1) == pytest.approx(0.1)
    assert wait.sleep(TURN + 5) == 1.0


def test_an_away_seat_is_noted_at_each_look() -> None:
    wait = Wait(T, NAMES, "deck", 0.0)
    effects = wait.look(links(3, connected={2}, away_since={1: 2}), [(1, "shuffle")])
    assert NoteAway(1) in effects and ends(effects) == []


def test_a_seat_that_redials_before_each_deadline_is_named_at_the_last_call() -> None:
    """table.md section 5, "A seat that comes back": however often it drops and returns."""
    wait = Wait(T, NAMES, "deck", 0.0)
    now, end = 0.0, []
    for _ in range(200):
        now = max(now, wait.deadline - 0.5)
        wait.look(links(now, connected={2}, away_since={1: now}), [(1, "shuffle")])
        now += 1.0
        wait.look(links(now), [(1, "shuffle")])
        now = wait.deadline
        end = ends(wait.look(links(now), [(1, "shuffle")]))
        if end:
            break
    assert end and end[0].aborted.seat == 1
    assert now <= LAST["deck"]


# -- table.md section 9: absent followers ----------------------------------------------------------


@dataclass
class Absent:
    rule: str
    at: float
    facts: dict[str, Any]
    stated: bool
    missing: set[int]
    holding: bool
    waits: bool  # settle's first answer: the statements decide (else: a plain wait)
    effects: list  # the effects, End given as (seat, a piece of its reason)


SEAT, TURN_NO = 1, 7
ABSENT = [
    Absent("a follower that is there is waited on like any seat", 10, {}, False, {2}, False, False, []),
    Absent(
        "a follower whose connection is down is stated absent, and we ask around",
        10,
        {"connected": {2}, "away_since": {1: 9}},
        False,
        {2},
        False,
        True,
        [StateAbsent(TURN_NO, SEAT), AskAround(frozenset({1, 2}), halt=False)],
    ),
    Absent(
        "a follower that stopped its game is stated absent",
        10,
        {"halted": {1}},
        False,
        {2},
        False,
        True,
        [StateAbsent(TURN_NO, SEAT), AskAround(frozenset({1, 2}), halt=False)],
    ),
    Absent(
        "once we have stated, the statements decide even if it is back",
        10,
        {},
        True,
        {2},
        True,
        True,
        [AskAround(frozenset({1, 2}), halt=False)],
    ),
    Absent(
        "statements missing past the turn timeout and the grace: nobody is named",
        TURN + 90,
        {},
        True,
        {2},
        True,
        True,
        [AskAround(frozenset({1, 2}), halt=False), (None, "did not all come (missing: p2)")],
    ),
    Absent(
        "a missing statement of a seat that stopped its game: nobody is named",
        10,
        {"halted": {2}},
        True,
        {2},
        True,
        True,
        [AskAround(frozenset({1, 2}), halt=False), (None, "did not all come (missing: p2)")],
    ),
    Absent(
        "a gone follower away past its grace, the statements stuck: it is named as gone",
        100,
        {"connected": set(), "away_since": {1: 5, 2: 5}},
        True,
        {2},
        False,
        True,
        [
            StateAbsent(TURN_NO, SEAT),
            AskAround(frozenset({1, 2}), halt=False),
            (1, "p1 left and did not come back in time"),
        ],
    ),
    Absent(
        "a follower that stopped, the statements stuck: ours stops through the ask",
        10,
        {"halted": {1, 2}},
        True,
        {2},
        False,
        True,
        [StateAbsent(TURN_NO, SEAT), AskAround(frozenset({1, 2}), halt=False), AskAround(frozenset({1}))],
    ),
]


@pytest.mark.parametrize("row", ABSENT, ids=[row.rule for row in ABSENT])
def test_absent_follower_rules(row: Absent) -> None:
    wait = Wait(T, NAMES, "turn", 0.0)
    waits, effects = wait.settle(
        links(row.at, **row.facts), TURN_NO, SEAT, stated=row.stated, missing=row.missing, holding=row.holding
    )
    assert waits == row.waits
    effects = [e for e in effects if not isinstance(e, WaitingOn)]  # (our notices: rows below)
    got = [(e.aborted.seat, e.aborted.reason) if isinstance(e, End) else e for e in effects]
    assert len(got) == len(row.effects), got
    for have, want in zip(got, row.effects, strict=True):
        if isinstance(want, tuple):
            assert isinstance(have, tuple) and have[0] == want[0] and want[1] in have[1], have
        else:
            assert have == want


def test_timings_are_the_headers_and_the_keepalives() -> None:
    t = Timings.of(Timeouts(deck=4, turn=5, grace=6))
    assert (t.deck, t.turn, t.grace) == (4, 5, 6)
    assert t.last_call(10) == 10 + 6 + 5 + 1 + 2
    assert t.away_limit == 6 + 5 + 2
    from p2pcards.net import transport

    assert (t.ping, t.silence, t.quiet) == (transport.PING_SECONDS, transport.SILENCE_SECONDS, transport.QUIET_SECONDS)


@pytest.mark.parametrize("module", ["seats", "network_deck", "liveness"])
def test_the_waits_do_not_import_the_peer(module: str) -> None:
    """The seats and the deck reach their peer through net/liveness.py's narrow interface: no
    import of net/peer.py, at run time or for types (the old peer/seats/network_deck cycle)."""
    import ast
    from pathlib import Path

    import p2pcards.net

    source = Path(p2pcards.net.__file__).parent / f"{module}.py"
    imported = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.ImportFrom):
            imported.add((node.level, node.module))
    assert (1, "peer") not in imported and (0, "p2pcards.net.peer") not in imported, imported


# -- issue 28, section 2: ways an honest seat was named -------------------------------------------


def test_a_seat_merely_away_within_its_grace_is_never_treated_as_gone() -> None:
    """A Wi-Fi cut: cut off, we stated the host (seat 1 here) absent; it is back, and the third
    seat's link comes back a moment later. Until then its statement is missing, but it is only
    away within its grace: it comes back and states. The wait goes on."""
    wait = Wait(T, NAMES, "turn", 0.0)
    back = links(60.0, connected={1}, away_since={2: 0.5})
    waits, effects = wait.settle(back, TURN_NO, 1, stated=True, missing={2}, holding=False)
    assert waits and ends(effects) == [], effects
    # Gone for good (past its grace), its statement will never come: nobody is named.
    gone = links(91.0, connected={1}, away_since={2: 0.5})
    waits, effects = wait.settle(gone, TURN_NO, 1, stated=True, missing={2}, holding=False)
    assert [e.aborted.seat for e in ends(effects)] == [None], effects


def test_a_stated_follower_that_keeps_redialling_ends_the_wait_at_the_last_call() -> None:
    """Issue 28 (a random fault schedule that never ended): a follower we stated absent whose
    link comes back and drops again at every look starts its time away anew each time; the
    statement of the third seat, gone past its grace, never comes. The wait ends at the last
    call, as look()'s does for an away seat, naming the follower as gone."""
    wait = Wait(T, NAMES, "turn", 0.0)
    now, end = 0.0, []
    while now < 2 * wait.latest and not end:
        now += 1.0
        facts = links(now, connected=set(), away_since={1: now, 2: 0.5})
        waits, effects = wait.settle(facts, TURN_NO, 1, stated=True, missing={2}, holding=False)
        end = ends(effects)
    assert end and end[0].aborted.seat == 1, end
    assert now <= wait.latest + 1.0


def test_a_deck_timeout_does_not_charge_a_seat_still_settling_absent_statements() -> None:
    """Deck timeout against grace: a seat we wait on in a deck step stated a follower absent
    and has not seen every statement about it (its last entry's echo says so): it waits on
    them, up to the turn's own bound (the turn timeout plus the grace), in every phase. A deck
    step's shorter timeout must not name it meanwhile; past that bound it is named as before."""
    wait = Wait(T, NAMES, "deck", 0.0)
    effects = wait.look(links(DECK), [(1, "reveal")], settling={1})
    assert ends(effects) == [], effects
    effects = wait.look(links(LAST["deck"] + 1), [(1, "reveal")], settling={1})
    assert ends(effects) == [], effects
    effects = wait.look(links(LAST["turn"]), [(1, "reveal")], settling={1})
    assert [e.aborted.seat for e in ends(effects)] == [1], effects


# -- partial partitions (table.md section 5, "Partial partitions"; wire.md section 4.8) -------------

AWAY1 = {"connected": {2}, "away_since": {1: 5}}


def reach(when: float, connected: set[int], waits_on: tuple[tuple[int, str], ...] = ()) -> Report:
    return Report(frozenset(connected), waits_on, when)


PARTITION = [
    Row(
        "a seat away from us alone (a seat connected to us reaches it) is not gone at its grace end",
        "deck",
        [(1, "shuffle")],
        [(5, AWAY1), (95, {**AWAY1, "reports": {2: reach(94.5, {0, 1})}})],
        None,
    ),
    Row(
        "a seat away from us alone whose part does not come: at the last call, nobody is named",
        "deck",
        [(1, "shuffle")],
        [(5, AWAY1), (LAST["deck"], {**AWAY1, "reports": {2: reach(LAST["deck"], {0, 1})}})],
        (None, "the link between this seat and p1 is down", "connection"),
    ),
    Row(
        "a stale notice (older than the keepalive's silence) does not keep a seat from being gone",
        "deck",
        [(1, "shuffle")],
        [(5, AWAY1), (95, {**AWAY1, "reports": {2: reach(90, {0, 1})}})],
        (1, "p1 left and did not come back in time", "connection"),
    ),
    Row(
        "a notice from before the seat went away from us is no news (a seat that drops every link)",
        "deck",
        [(1, "shuffle")],
        [
            (
                LAST["deck"],
                {
                    "connected": {2},
                    "away_since": {1: LAST["deck"] - 2},
                    "reports": {2: reach(LAST["deck"] - 3, {0, 1})},
                },
            )
        ],
        (1, "p1 left and did not come back in time", "connection"),
    ),
    Row(
        "a notice of a seat we are no longer connected to counts for nothing",
        "turn",
        [(1, "action")],
        [(95, {"connected": set(), "away_since": {1: 5, 2: 5}, "reports": {2: reach(95, {0, 1})}})],
        (1, "p1 left and did not come back in time", "action"),
    ),
    Row(
        "the away seat's own word that it is connected counts for nothing",
        "deck",
        [(1, "shuffle")],
        [(95, {**AWAY1, "reports": {1: reach(95, {0, 2})}})],
        (1, "p1 left and did not come back in time", "connection"),
    ),
    Row(
        "a seat we would charge that waits on a seat away from it is not charged at the deadline",
        "turn",
        [(1, "action")],
        [(TURN, {"reports": {1: reach(TURN, {0}, ((2, "away"),))}})],
        None,
        deadline=TURN + 2,
    ),
    Row(
        "a seat that waits on a seat away from it, at the last call: nobody is named",
        "turn",
        [(1, "action")],
        [(LAST["turn"], {"reports": {1: reach(LAST["turn"], {0}, ((2, "away"),))}})],
        (None, "p1 waits on p2", "action"),
    ),
    Row(
        "its word is refuted by the other seat's own notice (that seat reaches it): charged",
        "turn",
        [(1, "action")],
        [(TURN, {"reports": {1: reach(TURN, {0}, ((2, "away"),)), 2: reach(TURN, {0, 1})}})],
        (1, "p1 did not move in time", "action"),
    ),
    Row(
        "waiting on a seat it says it reaches, on us, or on itself, as away, counts for nothing",
        "turn",
        [(1, "action")],
        [(TURN, {"reports": {1: reach(TURN, {0, 2}, ((2, "away"), (0, "away"), (1, "statements")))}})],
        (1, "p1 did not move in time", "action"),
    ),
    Row(
        "a seat that waits on statements is not charged by a deck step's timeout",
        "deck",
        [(1, "reveal")],
        [(LAST["deck"] + 1, {"reports": {1: reach(LAST["deck"] + 1, {0, 2}, ((2, "statements"),))}})],
        None,
        settling=frozenset({1}),
    ),
    Row(
        "a claim to wait on statements from a seat with no open statement of its own: charged",
        "turn",
        [(1, "action")],
        [(TURN, {"reports": {1: reach(TURN, {0, 2}, ((2, "statements"),))}})],
        (1, "p1 did not move in time", "action"),
    ),
    Row(
        "a seat that waits on statements, past a turn's bound: nobody is named",
        "deck",
        [(1, "reveal")],
        [(LAST["turn"], {"reports": {1: reach(LAST["turn"], {0, 2}, ((2, "statements"),))}})],
        (None, "p1 waits on p2", "deck"),
        settling=frozenset({1}),
    ),
    Row(
        "a notice is news by when it came: one sent late but that came before the seat went is none",
        "deck",
        [(1, "shuffle")],
        [(5, AWAY1), (95, {**AWAY1, "reports": {2: Report(frozenset({0, 1}), (), 94.5, at=4.0)}})],
        (1, "p1 left and did not come back in time", "connection"),
    ),
    Row(
        "a notice that came after the seat went, by its arrival: reached, not gone",
        "deck",
        [(1, "shuffle")],
        [(5, AWAY1), (95, {**AWAY1, "reports": {2: Report(frozenset({0, 1}), (), 94.5, at=6.0)}})],
        None,
    ),
    Row(
        "a notice of a seat that reaches neither: the away seat is gone at its grace end",
        "deck",
        [(1, "shuffle")],
        [(5, AWAY1), (95, {**AWAY1, "reports": {2: reach(94.5, {0})}})],
        (1, "p1 left and did not come back in time", "connection"),
    ),
    Row(
        "a notice of a seat itself away from us counts for nothing",
        "deck",
        [(1, "shuffle")],
        [(95, {"connected": set(), "away_since": {1: 5, 2: 90}, "reports": {2: reach(94.5, {0, 1})}})],
        (1, "p1 left and did not come back in time", "connection"),
    ),
    Row(
        "a settling seat past the turn's own bound with no notice: charged as a stall",
        "deck",
        [(1, "reveal")],
        [(LAST["turn"], {})],
        (1, "p1 (seat 1) did not send its deck message in time", "reveal"),
        settling=frozenset({1}),
    ),
    Row(
        "a settling seat among those owed holds a deck timeout up to a turn's bound (the first may wait on it)",
        "deck",
        [(2, "reveal"), (1, "reveal")],
        [(LAST["deck"] + 1, {})],
        None,
        settling=frozenset({1}),
    ),
    Row(
        "past that bound the first seat that owes is charged, not the settling one",
        "deck",
        [(2, "reveal"), (1, "reveal")],
        [(LAST["turn"], {})],
        (2, "p2 (seat 2) did not send its deck message in time", "reveal"),
        settling=frozenset({1}),
    ),
    Row(
        "while nobody has signed that it received our last move, a deck step is not charged at its "
        "last call: the seat that owes it may never have seen that move (our sends may be lost)",
        "deck",
        [(1, "open")],
        [(LAST["deck"] + 1, {"unheard": "move"})],
        None,
    ),
    Row(
        "past a turn's bound it is charged: a seat that never saw our move has stopped by then",
        "deck",
        [(1, "open")],
        [(LAST["turn"], {"unheard": "move"})],
        (1, "p1 (seat 1) did not send its deck message in time", "open"),
    ),
    Row(
        "our last deck entry unheard: not charged at a deck step's deadline, charged at its last call",
        "deck",
        [(1, "open")],
        [(DECK, {"unheard": "deck"}), (LAST["deck"], {"unheard": "deck"})],
        (1, "p1 (seat 1) did not send its deck message in time", "open"),
    ),
    Row(
        "a turn's wait is charged at its deadline all the same (only a deck step follows our entry)",
        "turn",
        [(1, "action")],
        [(TURN, {"unheard": "move"})],
        (1, "p1 did not move in time", "action"),
    ),
    Row(
        "waiting on a seat that stopped its game: not charged the moment we hold that stop (it has "
        "yet to reach the claimant, by its next ask around)",
        "turn",
        [(1, "action")],
        [(TURN, {"halted": {2}, "reports": {1: reach(TURN, {0}, ((2, "away"),))}})],
        None,
    ),
    Row(
        "waiting on a seat that stopped its game counts for nothing once that stop had time to reach "
        "it (relayed, it ends that wait)",
        "turn",
        [(1, "action")],
        [
            (TURN, {"halted": {2}, "reports": {1: reach(TURN, {0}, ((2, "away"),))}}),
            (TURN + T.check_every + T.quiet, {"halted": {2}, "reports": {1: reach(TURN + 3, {0}, ((2, "away"),))}}),
        ],
        (1, "p1 did not move in time", "action"),
    ),
    Row(
        "a stale claim to wait counts for nothing",
        "turn",
        [(1, "action")],
        [(TURN, {"reports": {1: reach(TURN - 5, {0}, ((2, "away"),))}})],
        (1, "p1 did not move in time", "action"),
    ),
]


@pytest.mark.parametrize("row", PARTITION, ids=[row.rule for row in PARTITION])
def test_partial_partition_rules(row: Row) -> None:
    test_wait_rules(row)


def test_a_wait_on_an_away_seat_says_so_for_our_notices() -> None:
    wait = Wait(T, NAMES, "deck", 0.0)
    effects = wait.look(links(3, **AWAY1), [(1, "shuffle")])
    assert WaitingOn(((1, "away"),)) in effects


def test_a_follower_away_from_us_alone_is_not_stated_absent() -> None:
    """Another seat reaches it: its move comes through that seat; it is waited on (look)."""
    wait = Wait(T, NAMES, "turn", 0.0)
    facts = links(10, connected={2}, away_since={1: 9}, reports={2: reach(10, {0, 1})})
    waits, effects = wait.settle(facts, TURN_NO, 1, stated=False, missing={2}, holding=False)
    assert (waits, effects) == (False, [])
    # ...and look waits on it as on any away seat (nobody reaching it, it is stated absent).
    reached = links(100, connected={2}, away_since={1: 9}, reports={2: reach(100, {0, 1})})
    effects = wait.look(reached, [(1, "action")], passable={1})
    assert NoteAway(1) in effects and ends(effects) == [], effects
    effects = wait.look(links(101, connected={2}, away_since={1: 9}), [(1, "action")], passable={1})
    assert NoteAway(1) not in effects and ends(effects) == [], effects


def test_a_stated_follower_away_from_us_alone_past_its_grace_is_not_named() -> None:
    wait = Wait(T, NAMES, "turn", 0.0)
    facts = links(100, connected={2}, away_since={1: 5}, reports={2: reach(100, {0, 1})})
    waits, effects = wait.settle(facts, TURN_NO, 1, stated=True, missing=set(), holding=False)
    assert waits and ends(effects) == [], effects
    facts = links(LAST["turn"], connected={2}, away_since={1: 5}, reports={2: reach(LAST["turn"], {0, 1})})
    waits, effects = wait.settle(facts, TURN_NO, 1, stated=True, missing=set(), holding=False)
    assert [e.aborted.seat for e in ends(effects)] == [None], effects


def test_when_a_seat_sends_its_links_notice() -> None:
    """While a link of ours is down, while we wait on a seat as away or on statements, or while
    another seat's fresh notice shows a link of its own down; not otherwise."""
    assert not report_due(links(10), T, waiting=False)
    assert report_due(links(10, connected={2}, away_since={1: 9}), T, waiting=False)
    assert report_due(links(10), T, waiting=True)
    assert report_due(links(10, reports={1: reach(9.5, {0})}), T, waiting=False)
    assert not report_due(links(10, reports={1: reach(9.5, {0, 2})}), T, waiting=False)
    assert not report_due(links(10, reports={1: reach(4.0, {0})}), T, waiting=False)  # stale


# -- a stall verdict that waits for the named seat's stop (issue 29) -----------------------------


@pytest.mark.parametrize(
    ("phase", "owed", "unheard"),
    [("turn", "action", "move"), ("turn", "action", "deck"), ("open", "open", "move")],
)
def test_a_stall_named_after_our_unheard_entry_awaits_its_stop(phase: str, owed: str, unheard: str) -> None:
    """Nobody echoed our last move (or deck entry), and the seat we name waits on something
    after it (the seat to move on our move, or on our opening of the reveal before its move; a
    follower on our commitment). Its wait on us began no later than ours; our game stops at our
    deadline as before, but the verdict awaits its stop up to the later of a turn's and a deck
    step's last call, and a moment for the stop to reach us (net/table._linger): issue 29, a
    seat whose sends were lost named the seat that waited on its opening."""
    start = 5.0
    wait = Wait(T, NAMES, phase, start)
    deadline = start + (TURN if phase == "turn" else DECK)
    end = ends(wait.look(links(deadline, unheard=unheard), [(1, owed)]))
    assert len(end) == 1 and end[0].aborted.seat == 1 and end[0].aborted.stall
    due = start + LAST["turn"] + T.quiet
    assert end[0].aborted.awaits_stop == pytest.approx(due - deadline)


def test_nobody_named_on_a_seats_word_alone_is_marked_with_that_seat_and_whom_it_named() -> None:
    """At the last call the seat we would charge says it waits on a seat away from it: nobody
    is named (stall.py rule 6), on its word alone, and the verdict says whose word and about
    whom (``excused_by``): once that seat's stop comes, verify of our file may bear it out and
    name the seat it waited on (net/table._judge_the_stopper). A verdict that names a seat, or
    that its word did not decide, is not marked."""
    notice = {"reports": {1: reach(LAST["turn"], {0}, ((2, "away"),))}}
    (end,) = ends(Wait(T, NAMES, "turn", 0.0).look(links(LAST["turn"], **notice), [(1, "action")]))
    assert end.aborted.seat is None and end.aborted.excused_by == (1, frozenset({2}))
    (charged,) = ends(Wait(T, NAMES, "turn", 0.0).look(links(LAST["turn"]), [(1, "action")]))
    assert charged.aborted.seat == 1 and charged.aborted.excused_by is None


def test_the_wind_down_awaits_the_named_seats_stop_only_while_it_may_still_show_something() -> None:
    """stop_awaited (net/table._linger asks it every few milliseconds): the verdict of a stall
    named after our unheard entry waits for the named seat's stop up to its due time, while that
    seat is connected, has not stopped and our entry is still unheard. Once another seat's
    entry echoes ours the charge stands at once (at three seats, the seat whose move came last
    does not wait out the due time for a real staller that stays connected); a stop that came,
    a seat gone, or the due time ends the wait too; a verdict that awaits nothing never waits."""
    wait = Wait(T, NAMES, "turn", 0.0)
    (end,) = ends(wait.look(links(TURN, unheard="move"), [(1, "action")]))
    ended = end.aborted
    due = TURN + ended.awaits_stop
    assert ended.seat == 1 and ended.awaits_stop > 0
    assert stop_awaited(ended, due, TURN, links(TURN, unheard="move"), frozenset())
    assert stop_awaited(ended, due, due - 0.01, links(due - 0.01, unheard="move"), frozenset())
    # Heard: another seat's entry echoes ours now.
    assert not stop_awaited(ended, due, TURN + 1, links(TURN + 1, unheard=None), frozenset())
    # Its stop came (judged by it), it went away, or the due time passed.
    assert not stop_awaited(ended, due, TURN + 1, links(TURN + 1, unheard="move"), frozenset({1}))
    assert not stop_awaited(ended, due, TURN + 1, links(TURN + 1, unheard="move", connected={2}), frozenset())
    assert not stop_awaited(ended, due, due, links(due, unheard="move"), frozenset())
    # A verdict that awaits no stop: no game stopped, nobody named, or not a stall.
    (echoed,) = ends(Wait(T, NAMES, "turn", 0.0).look(links(TURN), [(1, "action")]))
    assert echoed.aborted.awaits_stop == 0.0
    assert not stop_awaited(echoed.aborted, due, TURN, links(TURN, unheard="move"), frozenset())
    assert not stop_awaited(None, due, TURN, links(TURN, unheard="move"), frozenset())


def test_a_mover_owed_boxes_that_never_reached_us_is_named_only_once_its_stop_shows_it() -> None:
    """The seat we wait on to move is owed private boxes that have not reached us (the keys of
    a card it drew, withheld by seat 2): it waits on them for a deck step, and its stop, naming
    their sender, may fall due with our verdict or after it (a turn timeout no longer than the
    deck timeout; review 29x named the innocent drawer). The charge stands provisionally: the
    verdict awaits its stop while a box of those senders is still missing here, and carries
    them (``owed_by``: net/table._judge_the_stopper takes our file's verdict on one of them)."""
    owed = {"boxes_awaited": {1: {2}}}
    (end,) = ends(Wait(T, NAMES, "turn", 0.0).look(links(TURN, **owed), [(1, "action")]))
    ended = end.aborted
    assert ended.seat == 1 and ended.stall and ended.owed_by == frozenset({2})
    due = TURN + ended.awaits_stop
    assert ended.awaits_stop > 0
    assert stop_awaited(ended, due, TURN + 1, links(TURN + 1, **owed), frozenset())
    # The box came (the charge stands), its stop came (judged by it), or the due time passed.
    assert not stop_awaited(ended, due, TURN + 1, links(TURN + 1), frozenset())
    assert not stop_awaited(ended, due, TURN + 1, links(TURN + 1, **owed), frozenset({1}))
    assert not stop_awaited(ended, due, due, links(due, **owed), frozenset())
    # Boxes owed to another seat, or a deck step's wait (its stall is the sender's): not marked.
    (other,) = ends(Wait(T, NAMES, "turn", 0.0).look(links(TURN, boxes_awaited={2: {1}}), [(1, "action")]))
    assert other.aborted.owed_by == frozenset() and other.aborted.awaits_stop == 0.0
    (deck,) = ends(Wait(T, NAMES, "deck", 0.0).look(links(LAST["turn"], **owed), [(1, "open")]))
    assert deck.aborted.owed_by == frozenset()


def test_a_movers_turn_runs_from_when_a_box_it_was_owed_came() -> None:
    """A box owed to the seat we wait on to move (the key of a card it drew), withheld until
    late in the turn and then sent to us alone (review 29c): that seat fetches it from us when
    it next asks around, and only then knows its hand. Its turn runs from then: it is not
    named at the old deadline, but at the new one, as any mover."""
    came = TURN - 5
    wait = Wait(T, NAMES, "turn", 0.0)
    assert not ends(wait.look(links(came - 1, boxes_awaited={1: {2}}), [(1, "action")]))
    box_in = {"boxes_came": {1: came}}
    assert not ends(wait.look(links(TURN + 1, **box_in), [(1, "action")]))
    due = came + T.check_every + T.turn
    assert wait.deadline == due and wait.latest == T.last_call(due)
    assert not ends(wait.look(links(due - 0.1, **box_in), [(1, "action")]))
    (end,) = ends(wait.look(links(due, **box_in), [(1, "action")]))
    assert end.aborted.seat == 1 and end.aborted.stall
    # A box that came before the wait began, or one owed to another seat: the clock stands.
    for early in ({"boxes_came": {1: -1.0}}, {"boxes_came": {2: came}}):
        (end,) = ends(Wait(T, NAMES, "turn", 0.0).look(links(TURN, **early), [(1, "action")]))
        assert end.aborted.seat == 1
    # A deck step's wait: the box is the step itself, waited on as such.
    deck = Wait(T, NAMES, "deck", 0.0)
    deck.look(links(DECK, boxes_came={1: DECK - 1}), [(1, "open")])
    assert deck.deadline == DECK


@pytest.mark.parametrize("phase", ["turn", "deck"])
def test_a_stall_with_our_entries_echoed_awaits_nothing(phase: str) -> None:
    """Every entry of ours echoed (or a deck step, which waits for the stop before it charges):
    the verdict is final at once."""
    wait = Wait(T, NAMES, phase, 0.0)
    at = TURN if phase == "turn" else LAST["turn"]
    end = ends(wait.look(links(at, unheard="move" if phase == "deck" else None), [(1, "x")]))
    assert len(end) == 1 and end[0].aborted.awaits_stop == 0.0

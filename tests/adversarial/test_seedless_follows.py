"""Issue 32: verify's one replay (no seed) follows every seat's private deck entries
(``PublicHandles._sent``, in the order ``Party._required`` sends them), so a stall on a
withheld private opening names the seat that withheld it. Each case plays a table with a seat
that withholds its private openings (the cheaters of test_review28f) and verifies every honest
seat's transcript: the seat named is the staller, or nobody where a file cannot tell (a link
cut), never an honest seat. (These verdicts were first checked against the seeded replay's,
while it existed: the same verdict, the same seat.)"""

from __future__ import annotations

import pytest

from p2pcards.verify import EXIT_FAILED, verify_file

from . import adv_table
from .test_review28f import (
    MID,
    CutsThenStops,
    WithholdsOpensSilently,
    WithholdsThenStops,
    WithholdsThenStopsUnheard,
    _until_cheated,
)

pytestmark = pytest.mark.slow  # whole tables on the mental-poker deck

STALLER = 1


def _verdicts(run) -> dict[int, tuple[int, int | None, str]]:
    """Each honest seat's transcript verified: (status, seat named, reason)."""
    found = {}
    for seat, outcome in run.honest.items():
        assert outcome is not None, run.describe()
        report = verify_file(outcome.transcript)
        found[seat] = (report.status, report.problem.seat if report.problem else None, str(report.problem))
    return found


def _named(run, named: int | None) -> dict:
    """Every honest file names the staller (``named``), or (``None``) the staller or nobody."""
    verdicts = _verdicts(run)
    for seat, verdict in verdicts.items():
        if named is not None:
            assert verdict[:2] == (EXIT_FAILED, named), f"seat {seat}'s file: {verdict}\n{run.describe()}"
        else:
            assert verdict[1] in (None, STALLER), f"seat {seat}'s file: {verdict}\n{run.describe()}"
    return verdicts


@pytest.fixture
def long_tables(monkeypatch):
    """MID's turn bound (48.5 virtual seconds) is past the 40 a table is given."""
    monkeypatch.setattr(adv_table, "TABLE_SECONDS", 120.0)


@pytest.mark.parametrize("players", [2, 3])
def test_a_silent_staller_on_a_private_opening_is_named_without_the_seeds(tmp_path, long_tables, players):
    """Seat 1 never sends the private opening of a card another seat draws, and signs nothing
    else: the replay stops at that opening and names it."""
    run = _until_cheated(tmp_path, "crazy-eights", players, WithholdsOpensSilently, MID)
    _named(run, STALLER)


def test_a_staller_on_a_private_opening_that_then_stops_is_named_without_the_seeds(tmp_path, long_tables):
    """The staller signs a stop (and reveals its seed) before a turn's bound: named."""
    run = _until_cheated(tmp_path, "crazy-eights", 2, WithholdsThenStops, MID)
    _named(run, STALLER)


def test_a_staller_whose_stop_denies_the_draw_is_named_without_the_seeds(tmp_path, long_tables):
    """At three seats, the staller's stop leaves the draw out of its echo: named."""
    run = _until_cheated(tmp_path, "crazy-eights", 3, WithholdsThenStopsUnheard, MID)
    _named(run, STALLER)


def test_a_staller_on_a_pickups_private_opening_is_named_or_nobody(tmp_path, long_tables):
    """Cal's BS: after the deal, the private openings are a pick-up's (a transfer: the
    holders open the moved cards to the taker, which re-handles them); seat 1 withholds its
    first. The staller is named, or nobody, never another seat."""
    run = _until_cheated(tmp_path, "cals-bs", 3, WithholdsOpensSilently, MID, options={"match_target": 1})
    verdicts = _named(run, None)
    # (The seat the staller owed names it; the third seat's file may hold nothing it owed.)
    assert any(v[:2] == (EXIT_FAILED, STALLER) for v in verdicts.values()), verdicts


def test_a_withheld_opening_behind_a_cut_link_names_the_staller_or_nobody(tmp_path):
    """Seat 1 withholds its opening to seat 2, cuts its link to it and stops: each file
    names seat 1 or nobody (what it shows), never seat 0 or 2."""
    cls = type("CutsThenStops_4_1", (CutsThenStops,), {"stop_after": 4.1})
    run = _until_cheated(tmp_path, "crazy-eights", 3, cls)
    _named(run, None)

"""Issue 32: verify's seedless replay follows every seat's private deck entries as the seeded
one does (``PublicHandles._sent``, as ``Replay.sent``), so a stall on a withheld private
opening names the same seat without the seeds as with them. Each case plays a table with a
seat that withholds its private openings (the cheaters of test_review28f) and checks every
honest seat's transcript both ways: ``verify_file`` (the seeded replay, the seeds still being
revealed) and ``verify_file(seedless=True)`` (the replay without any seed, which is to be the
only one once the reveal goes): the same verdict, naming the same seat. Blame is correctness:
the seedless path names a seat only where the seeded one names that seat."""

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


def _both_ways(run) -> dict[int, tuple[tuple[int, int | None, str], tuple[int, int | None, str]]]:
    """Each honest seat's transcript, verified with its seeds and without: (status, seat, reason)."""
    found = {}
    for seat, outcome in run.honest.items():
        assert outcome is not None, run.describe()
        seeded, seedless = verify_file(outcome.transcript), verify_file(outcome.transcript, seedless=True)
        found[seat] = tuple(
            (r.status, r.problem.seat if r.problem else None, r.problem.reason if r.problem else "")
            for r in (seeded, seedless)
        )
    return found


def _same_verdicts(run, named: int | None) -> dict:
    verdicts = _both_ways(run)
    for seat, (seeded, seedless) in verdicts.items():
        assert seedless == seeded, f"seat {seat}'s file: seeded {seeded}, seedless {seedless}\n{run.describe()}"
        if named is not None:
            assert seeded[:2] == (EXIT_FAILED, named), f"seat {seat}'s file: {seeded}\n{run.describe()}"
    return verdicts


@pytest.fixture
def long_tables(monkeypatch):
    """MID's turn bound (48.5 virtual seconds) is past the 40 a table is given."""
    monkeypatch.setattr(adv_table, "TABLE_SECONDS", 120.0)


@pytest.mark.parametrize("players", [2, 3])
def test_a_silent_staller_on_a_private_opening_is_named_without_the_seeds(tmp_path, long_tables, players):
    """Seat 1 never sends the private opening of a card another seat draws, and signs nothing
    else: both replays stop at that opening and name it."""
    run = _until_cheated(tmp_path, "crazy-eights", players, WithholdsOpensSilently, MID)
    _same_verdicts(run, 1)


def test_a_staller_on_a_private_opening_that_then_stops_is_named_without_the_seeds(tmp_path, long_tables):
    """The staller signs a stop (and reveals its seed) before a turn's bound: named both ways."""
    run = _until_cheated(tmp_path, "crazy-eights", 2, WithholdsThenStops, MID)
    _same_verdicts(run, 1)


def test_a_staller_whose_stop_denies_the_draw_is_named_without_the_seeds(tmp_path, long_tables):
    """At three seats, the staller's stop leaves the draw out of its echo: named both ways."""
    run = _until_cheated(tmp_path, "crazy-eights", 3, WithholdsThenStopsUnheard, MID)
    _same_verdicts(run, 1)


def test_a_staller_on_a_pickups_private_opening_gets_the_same_verdict_without_the_seeds(tmp_path, long_tables):
    """Cal's BS: after the deal, the private openings are a pick-up's (a transfer: the
    holders open the moved cards to the taker, which re-handles them); seat 1 withholds its
    first. The same verdict both ways."""
    run = _until_cheated(tmp_path, "cals-bs", 3, WithholdsOpensSilently, MID, options={"match_target": 1})
    verdicts = _same_verdicts(run, None)
    # (The seat the staller owed names it; the third seat's file may hold nothing it owed.)
    assert any(seeded[:2] == (EXIT_FAILED, 1) for seeded, _ in verdicts.values()), verdicts


def test_a_withheld_opening_behind_a_cut_link_gets_the_same_verdict_without_the_seeds(tmp_path):
    """Seat 1 withholds its opening to seat 2, cuts its link to it and stops: whatever each
    file shows (seat 1 named, or nobody), the seedless replay says the same."""
    cls = type("CutsThenStops_4_1", (CutsThenStops,), {"stop_after": 4.1})
    run = _until_cheated(tmp_path, "crazy-eights", 3, cls)
    _same_verdicts(run, None)

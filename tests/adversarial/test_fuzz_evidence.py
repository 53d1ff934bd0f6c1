"""Random and mutated accusations over loopback: one cheating peer (cheaters.FuzzesAccusation)
signs one accusation drawn from a seed, among honest bot peers on 127.0.0.1; every honest seat
names it or nobody, never another seat, and ``p2pcards verify`` of every honest transcript says
the same. (The deck party's side alone is fuzzed far more widely, in milliseconds a case, in
tests/deck/test_evidence.py; this is the whole path: signing, the wire, the table protocol's
opening of a private message's evidence, the party, verify.)"""

from __future__ import annotations

import pytest

from .adv_table import run_table, verify
from .cheaters import FuzzesAccusation

CHEATER = 1
SEEDS = range(8)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_random_accusation_names_the_accuser_or_nobody(seed, tmp_path):
    cls = type(f"FuzzesAccusation{seed}", (FuzzesAccusation,), {"seed": seed})
    run = None
    for attempt in range(3):
        run = run_table(
            "cals-bs",
            3,
            {"match_target": 1},
            cheater=CHEATER,
            peer_factory=cls,
            transcript_dir=tmp_path / str(attempt),
            seed=seed * 10 + attempt,
        )
        if run.cheater_peer is not None and run.cheater_peer.cheated:
            break
    assert run is not None and run.cheater_peer is not None and run.cheater_peer.cheated, run and run.describe()
    info = f"{run.describe()}\naccusation: {run.cheater_peer.notes}"
    for seat, outcome in run.honest.items():
        assert outcome is not None, info
        assert all(b.startswith(f"seat {CHEATER} ") for b in outcome.peer.blames), info
        assert outcome.aborted is None or outcome.aborted.seat in (CHEATER, None), info
        assert FuzzesAccusation.REASON not in str(outcome.aborted), info
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert problem.get("seat") in (CHEATER, None), f"seat {seat}'s transcript: exit {status}, {problem}\n{info}"
        assert FuzzesAccusation.REASON not in str(report), f"seat {seat}: {problem}"

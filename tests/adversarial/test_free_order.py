"""Cal's BS in free order over loopback (protocol/table.md section 9): whole games between bots
with 3 and 4 players end alike at every seat and their transcripts verify, each round's order
recomputed from the signed head echoes; a seat that answers one round twice is named."""

from __future__ import annotations

import pytest
from adv_table import run_table, verify
from cheaters import CHEATERS

from p2pcards.net.peer import Peer

CHEATER = 1
FREE = {"match_target": 1, "turn_mode": "free"}


@pytest.mark.parametrize("players", [3, 4])
def test_whole_free_order_games_end_alike_and_verify(tmp_path, players):
    run = run_table("cals-bs", players, FREE, cheater=CHEATER, peer_factory=Peer, transcript_dir=tmp_path,
                    seed=players)
    info = run.describe()
    results = {o.result.to_wire()["winners"][0] for o in run.outcomes.values() if o is not None and o.result}
    assert len(results) == 1 and all(o.aborted is None for o in run.honest.values()), info
    rounds = sum(e.kind == "turn" and "free order" in e.text for e in run.honest[0].peer.session.history)
    assert rounds > 0, "no free-order round was played"
    files = {o.transcript.read_bytes() for o in run.honest.values()}
    assert len(files) == 1  # the same order everywhere: byte-identical transcripts
    for seat, outcome in run.honest.items():
        status, report = verify(outcome.transcript)
        assert status == 0, f"seat {seat}: {report.get('problem')}"


@pytest.mark.parametrize("players", [3, 4])
def test_a_seat_that_answers_one_round_twice_is_named(tmp_path, players):
    for attempt in range(4):
        run = run_table("cals-bs", players, FREE, cheater=CHEATER, peer_factory=CHEATERS["RespondsTwice"],
                        transcript_dir=tmp_path / str(attempt), seed=attempt)
        if run.cheater_peer is not None and run.cheater_peer.cheated:
            break
    info = run.describe()
    for seat, outcome in run.honest.items():
        assert outcome.aborted is not None and outcome.aborted.seat == CHEATER, info
    for seat, outcome in run.honest.items():
        status, report = verify(outcome.transcript)
        assert status == 1 and (report.get("problem") or {}).get("seat") == CHEATER, f"seat {seat}: {report}"

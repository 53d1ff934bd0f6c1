"""Protocol version 11 has no ``decode`` accusation (issue 32, deck-protocol-3-check.md point 3):
every pass is proven and every lock checked against its public key, so no card can fail to
decode. A seat that signs one anyway (with the true locks of a card dealt to it: the version-10
form, which aborted the game into an audit with every seed revealed) is named by every honest
seat as it arrives, as an accusation of no known kind, in our words; ``p2pcards verify`` of
every honest transcript names it too. Real peers on 127.0.0.1."""

from __future__ import annotations

from .adv_table import run_table, verify
from .cheaters import AccusesDecodeFailure

CHEATER = 1


def test_a_decode_accusation_names_its_accuser_at_every_seat_and_in_verify(tmp_path):
    run = run_table(
        "cals-bs", 3, {"match_target": 1}, cheater=CHEATER, peer_factory=AccusesDecodeFailure, transcript_dir=tmp_path
    )
    assert run.cheater_peer is not None and run.cheater_peer.cheated, run.describe()
    info = run.describe()
    for seat, outcome in run.honest.items():
        assert outcome is not None and outcome.aborted is not None, info
        assert outcome.aborted.seat == CHEATER and outcome.aborted.step == "accuse", info
        assert "accusation of no kind the deck protocol knows" in outcome.aborted.reason, info
        assert AccusesDecodeFailure.REASON not in outcome.aborted.reason, info
        assert all(b.startswith(f"seat {CHEATER} ") for b in outcome.peer.blames), info
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert status == 1 and problem.get("seat") == CHEATER, f"seat {seat}'s transcript: {problem}\n{info}"
        assert "no kind" in problem.get("reason", ""), problem
        assert AccusesDecodeFailure.REASON not in str(report), problem

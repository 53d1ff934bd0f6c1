"""A whole match whose peers spill every entry but the last of each chain (issue 23: memory
bounded whatever a match's length): it plays, audits and saves as one that keeps everything.
Real peers on loopback, their journals and spill files on disk, real crypto."""

from __future__ import annotations

from pathlib import Path

import trio

from p2pcards.verify import verify_file
from p2pcards.verify.report import EXIT_VERIFIED
from p2pcards.wire.transcript import read_transcript, write_transcript

from .measure_memory import match


def test_a_match_spilled_entry_by_entry_saves_what_an_unspilled_log_saves(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("P2PCARDS_SPILL_KEEP", "1")
    table = trio.run(match, 2, 3, tmp_path)  # Cal's BS to 2 hand wins: two hands or more
    table.check()  # every seat has the result, no violation, every transcript identical
    for outcome in table.outcomes:
        log = outcome.peer.log
        assert log.spill_failure is None
        # Each chain keeps one entry decoded; every other went to the spill file and back.
        assert log.spilled == len(log) - 3 and len(log) > 200
        assert outcome.peer.session.replica.actions  # the game's audit read them back
    path = table.transcripts[0]
    assert path is not None
    report = verify_file(path)
    assert report.status == EXIT_VERIFIED and report.end_status == "finished"
    # The same entries in a log that keeps them all write the very same bytes.
    saved = read_transcript(path)
    assert saved.end is not None
    kept = saved.log()
    assert kept.spilled == 0
    again = tmp_path / "again.p2pt"
    write_transcript(again, saved.header, kept.closed(), saved.blames, saved.end)
    assert again.read_bytes() == path.read_bytes()

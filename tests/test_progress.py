"""The progress bar of verify, replay and history (p2pcards/progress.py): drawn on a terminal
only, once the work has taken a second, erased at the end; verify_file's progress goes from 0
to 1 with the moves replayed."""

from __future__ import annotations

import io

from p2pcards import progress
from p2pcards.progress import ProgressBar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_is_drawn_on_a_terminal_only_and_erased(monkeypatch):
    monkeypatch.setattr(progress, "REDRAW", 0.0)
    screen = Terminal()
    with ProgressBar("verifying x", screen, show_after=0.0) as bar:
        bar.update(0.5)
        bar.update(1.0, "verifying y")
    out = screen.getvalue()
    assert "verifying x [" in out and " 50%" in out and "verifying y [" in out and "100%" in out
    assert out.endswith("\r\x1b[K")  # erased
    piped = io.StringIO()
    with ProgressBar("verifying x", piped, show_after=0.0) as bar:
        bar.update(0.5)
    assert piped.getvalue() == ""


def test_nothing_is_drawn_in_the_first_second():
    screen = Terminal()
    with ProgressBar("verifying x", screen) as bar:
        bar.update(0.9)
    assert screen.getvalue() == ""


def test_verify_reports_its_progress_in_order(tmp_path):
    from p2pcards.testing import run_loopback
    from p2pcards.verify import verify_file

    table = run_loopback("crazy-eights", 2, transcript_dir=tmp_path, reaction=0.0)
    table.check()
    seen: list[float] = []
    report = verify_file(table.transcripts[0], progress=seen.append)
    assert report.verdict == "verified"
    # A step a move replayed, and one each time a verdict of the passes' checks is read.
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen) and len(seen) > report.checked["moves"] + 1
    assert verify_file(table.transcripts[0]).to_json() | {"seconds": None} == report.to_json() | {"seconds": None}

"""End to end in a real terminal (issue 30): at a four-seat Cal's BS table a person types
``quit``; the offer includes dropping out (the rules allow it there), ``drop`` takes it, the
person's seat drops out at its next turn, the others play on to a result, and every
transcript verifies, saying who dropped out. On 127.0.0.1; skipped without tmux."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from p2pcards.plugins import load_plugins

from .test_terminal import P2PCARDS, TMUX
from .test_terminal_resume import console

pytestmark = [
    pytest.mark.system,  # a terminal in tmux running p2pcards
    pytest.mark.skipif(TMUX is None, reason="needs tmux (apt-get install tmux)"),
    pytest.mark.skipif("cals-bs" not in load_plugins().games, reason="cals-bs is not installed"),
]


def test_quit_offers_drop_out_and_the_game_goes_on_without_the_seat(tmp_path):
    table = f"dropout-{os.getpid()}"
    transcripts = tmp_path / "transcripts"
    log = tmp_path / "host.log"
    args = ["host", "--game", "cals-bs", "--seats", "4", "--bots", "2", "--bot", "random", "--bot-delay", "0"]
    args += ["--option", "match_target=1", "--name", table, "--interface", "127.0.0.1"]
    args += ["--grace", "60", "--transcript-dir", str(transcripts)]
    host = subprocess.Popen(
        [str(P2PCARDS), *args],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        env={**os.environ, "P2PCARDS_HOME": str(tmp_path / "host")},
    )
    deadline = time.monotonic() + 30
    while "is open at" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    term = None
    try:
        term = console(
            tmp_path,
            "join",
            tmp_path / "erin",
            "join",
            table,
            "--name",
            "erin",
            "--interface",
            "127.0.0.1",
            "--transcript-dir",
            str(transcripts),
        )
        term.wait_for(r"YOUR TURN", timeout=60)
        term.type_line("quit")
        term.wait_for(r"drop: drop\s+out", timeout=10)  # (it may wrap at 80 columns)
        term.type_line("drop")
        term.wait_for(r"EXITED 0", timeout=120)
        assert "erin won 0 (dropped out)" in " ".join(term.screen().split()), term.screen()
        host.wait(timeout=60)
        host_out = log.read_text()
        assert host.returncode == 0, host_out
        assert "erin won 0 (dropped out)" in host_out, host_out
        saved = sorted(transcripts.glob("*.p2pt"))
        assert len(saved) == 4
        for path in saved:
            verified = subprocess.run([str(P2PCARDS), "verify", str(path)], capture_output=True, text=True, timeout=60)
            assert verified.returncode == 0, verified.stdout
            assert "verdict: VERIFIED; erin dropped out" in verified.stdout, verified.stdout
    finally:
        if term is not None:
            term.close()
        if host.poll() is None:
            host.kill()

"""End to end in a real terminal: a person at a network table presses Ctrl-C. The first only
warns (leaving ends the game for everyone); the second leaves, signing the goodbye as 'quit'
does: the others' game ends at once, the person gets the transcript, and nothing is left for
``p2pcards resume``, which says so at once. On 127.0.0.1; skipped without tmux."""

from __future__ import annotations

import os
import time

import pytest

from p2pcards.plugins import load_plugins

from .test_terminal import TMUX
from .test_terminal_resume import bot_host, console

pytestmark = [
    pytest.mark.system,  # a terminal in tmux running p2pcards
    pytest.mark.skipif(TMUX is None, reason="needs tmux (apt-get install tmux)"),
    pytest.mark.skipif("cals-bs" not in load_plugins().games, reason="cals-bs is not installed"),
]


def test_ctrl_c_at_a_network_table_asks_then_leaves_and_resume_has_nothing_to_do(tmp_path):
    table = f"leave-{os.getpid()}"
    transcripts = tmp_path / "transcripts"
    host, host_log = bot_host(tmp_path, table, match_target=3, transcripts=transcripts)
    terms = []
    try:
        erin = tmp_path / "erin"
        term = console(
            tmp_path,
            "join",
            erin,
            "join",
            table,
            "--name",
            "erin",
            "--interface",
            "127.0.0.1",
            "--transcript-dir",
            str(transcripts),
        )
        terms.append(term)
        term.wait_for(r"YOUR TURN", timeout=60)
        assert list((erin / "tables").iterdir()), "the seat is saved while it plays"

        term.keys("C-c")
        term.wait_for(r"ends this game for everyone at the table: press Ctrl-C again to leave", timeout=10)
        time.sleep(1.0)
        assert "EXITED" not in term.screen() and host.poll() is None  # still playing

        term.keys("C-c")
        term.wait_for(r"EXITED 1", timeout=20)
        screen = term.screen()
        assert "left the table before its game ended" in screen
        assert "transcript: " in screen
        host.wait(timeout=30)
        host_out = host_log.read_text()
        assert host.returncode == 1 and "erin left the table" in host_out, host_out
        assert list((erin / "tables").iterdir()) == []  # nothing left to resume
        assert len(list(transcripts.glob("*.p2pt"))) == 3  # erin's too

        again = console(tmp_path, "again", erin, "resume", "--transcript-dir", str(transcripts))
        terms.append(again)
        again.wait_for(r"EXITED 2", timeout=15)
        assert "no unfinished game to resume" in again.screen()
    finally:
        for term in terms:
            term.close()
        if host.poll() is None:
            host.kill()

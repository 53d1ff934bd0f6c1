"""End to end in a real terminal: a person at a network table presses Ctrl-C. The first offers
to leave and let a bot finish the seat (``leave``), or to end the game for everyone; the second
ends it, signing the goodbye as 'quit' does: the others' game ends at once, the person gets the
transcript (verify: LEFT, not FAILED), the game is in their history, and nothing is left for
``p2pcards resume``, which says so at once. And ``leave``: a bot plays the seat to the end.
On 127.0.0.1; skipped without tmux."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from p2pcards.plugins import load_plugins

from .test_terminal import P2PCARDS, TMUX
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
        # The first offers to leave with a bot first; a second Ctrl-C ends it for everyone.
        term.wait_for(r"leave: a bot plays your seat to the end", timeout=10)
        term.wait_for(r"Ctrl-C again: end\s+the", timeout=5)
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
        # A goodbye is not a fault: verify says LEFT (exit 3), and the game is in erin's own
        # history at once (no 'history --import').
        for path in transcripts.glob("*.p2pt"):
            verified = subprocess.run([str(P2PCARDS), "verify", str(path)], capture_output=True, text=True, timeout=60)
            assert verified.returncode == 3, verified.stdout
            assert "verdict: LEFT: erin left the table (a signed goodbye)" in verified.stdout
            assert "FAILED" not in verified.stdout
        listed = subprocess.run(
            [str(P2PCARDS), "history", "--json"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "P2PCARDS_HOME": str(erin)},
        )
        games = json.loads(listed.stdout)
        assert [(g["status"], g["verdict"]) for g in games] == [("abandoned", "left")], listed.stdout

        again = console(tmp_path, "again", erin, "resume", "--transcript-dir", str(transcripts))
        terms.append(again)
        again.wait_for(r"EXITED 2", timeout=15)
        assert "no unfinished game to resume" in again.screen()
    finally:
        for term in terms:
            term.close()
        if host.poll() is None:
            host.kill()


def test_leave_lets_a_bot_finish_the_seat_and_the_game_goes_on(tmp_path):
    """``quit`` offers ``leave`` first; after it a bot plays the seat to the end in the
    leaver's own program (80x24), the host's table is told and plays on to a result, and the
    leaver's program ends with the game, its transcript verified like any other."""
    table = f"leavebot-{os.getpid()}"
    transcripts = tmp_path / "transcripts"
    host, host_log = bot_host(tmp_path, table, match_target=1, transcripts=transcripts)
    term = None
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
            size=(80, 24),
        )
        term.wait_for(r"YOUR TURN", timeout=60)
        term.type_line("quit")
        term.wait_for(r"leave: a bot plays your seat to the end", timeout=10)
        term.type_line("leave")
        term.wait_for(r"you left: a bot plays your seat", timeout=10)
        term.wait_for(r"bot plays", timeout=10)  # the seat list: erin's seat
        # The bot answers the turn the table was asking for, and plays on to the end.
        term.wait_for(r"EXITED 0", timeout=120)
        assert "result: " in term.screen()
        host.wait(timeout=60)
        host_out = host_log.read_text()
        assert host.returncode == 0, host_out
        assert "result: " in host_out and "left the table" not in host_out.replace("erin left;", ""), host_out
        saved = sorted(transcripts.glob("*.p2pt"))
        assert len(saved) == 3
        for path in saved:
            verified = subprocess.run([str(P2PCARDS), "verify", str(path)], capture_output=True, text=True, timeout=60)
            assert verified.returncode == 0 and "verdict: VERIFIED" in verified.stdout, verified.stdout
    finally:
        if term is not None:
            term.close()
        if host.poll() is None:
            host.kill()

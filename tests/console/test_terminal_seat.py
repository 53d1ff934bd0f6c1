"""End to end in a real terminal: ``p2pcards host`` without --bot inside tmux, on 127.0.0.1.
The console waits for players, a ``p2pcards join --bot`` process takes the free seat, and the
game is played by keystrokes; the result is printed when the console closes. Skipped without
tmux."""

from __future__ import annotations

import subprocess

import pytest

from p2pcards.plugins import load_plugins

from .test_terminal import P2PCARDS, TMUX, play_by_keystrokes, terminal  # noqa: F401  (fixture)

pytestmark = [
    pytest.mark.system,  # a terminal in tmux running p2pcards
    pytest.mark.skipif(TMUX is None, reason="needs tmux (apt-get install tmux)"),
    pytest.mark.skipif("cals-bs" not in load_plugins().games, reason="cals-bs is not installed"),
]


def test_host_in_person_in_a_terminal(terminal, tmp_path):
    transcripts = tmp_path / "transcripts"
    term = terminal(
        "host",
        "--game",
        "cals-bs",
        "--seats",
        "3",
        "--bots",
        "1",
        "--option",
        "match_target=1",
        "--name",
        "carol",
        "--interface",
        "127.0.0.1",
        "--bot-delay",
        "0",
        "--transcript-dir",
        str(transcripts),
        P2PCARDS_HOME=str(tmp_path / "carol"),
    )
    port = term.wait_for(r"is open at[\s│]*127\.0\.0\.1:(\d+)").group(1)
    term.wait_for(r"waiting for players: 2 of 3 seated \(carol, strategic bot 1\)")
    joiner = subprocess.Popen(
        [
            str(P2PCARDS),
            "join",
            f"127.0.0.1:{port}",
            "--name",
            "dave",
            "--bot",
            "random",
            "--interface",
            "127.0.0.1",
            "--transcript-dir",
            str(transcripts),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={"P2PCARDS_HOME": str(tmp_path / "dave"), "PATH": ""},
    )
    try:
        term.wait_for(r"table words: \w+ \w+ \w+ \w+ \w+", timeout=30)
        final = play_by_keystrokes(term)
        assert "audit: clean, every card shown checked" in final
        term.wait_for(r"transcript saved to", timeout=20)
        term.type_line("quit")
        term.wait_for(r"result: ", timeout=20)
        term.wait_for(r"EXITED 0")
        out, _ = joiner.communicate(timeout=30)
        assert joiner.returncode == 0, out
    finally:
        if joiner.poll() is None:
            joiner.kill()

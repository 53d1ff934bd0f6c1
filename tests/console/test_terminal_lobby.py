"""End to end in a real terminal: ``p2pcards play --interface 127.0.0.1`` inside tmux. The lobby
opens a table with bot peers (over loopback TCP, zeroconf on 127.0.0.1 only), the game is played
by keystrokes, and the lobby comes back. Skipped without tmux."""

from __future__ import annotations

import pytest

from p2pcards.plugins import load_plugins

from .test_terminal import TMUX, play_by_keystrokes, terminal  # noqa: F401  (fixture)

pytestmark = [
    pytest.mark.system,  # a terminal in tmux running p2pcards
    pytest.mark.skipif(TMUX is None, reason="needs tmux (apt-get install tmux)"),
    pytest.mark.skipif("cals-bs" not in load_plugins().games, reason="cals-bs is not installed"),
]


def test_play_lobby_in_a_terminal(terminal, tmp_path):
    term = terminal(
        "play",
        "--interface",
        "127.0.0.1",
        "--name",
        "carol",
        "--bot-delay",
        "0",
        "--transcript-dir",
        str(tmp_path / "transcripts"),
        P2PCARDS_HOME=str(tmp_path / "home"),
    )
    term.wait_for(r"lobby - your key|lobby · your key")
    term.wait_for(r"Tables on the network +\(127\.0\.0\.1\)")
    term.keys("F2")
    term.wait_for(r"New table")
    term.wait_for(r"> game +< Cal's BS >")
    term.keys("Escape")
    term.type_line("create cals-bs seats=3 bots=2 match_target=1")
    term.wait_for(r"table words: \w+ \w+ \w+ \w+ \w+", timeout=30)
    final = play_by_keystrokes(term)
    assert "audit: clean, every card shown checked" in final
    term.wait_for(r"transcript saved to", timeout=20)
    term.wait_for(r"check the transcript any time with:")
    assert list((tmp_path / "transcripts").glob("*.p2pt")), "no transcript was written"
    term.type_line("new")
    term.wait_for(r"Tables on the network", timeout=30)
    term.type_line("quit")
    # the screen is gone: the shell gets the transcript's path
    term.wait_for(r"transcript: /[\s\S]+?\(check it: p2pcards verify ", timeout=20)
    term.wait_for(r"EXITED 0")

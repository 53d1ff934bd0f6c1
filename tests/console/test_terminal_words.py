"""Issue 30 in a real terminal at 80x24 (tmux, on 127.0.0.1): all five table words on screen,
your row marked (you), a table that is not there refused before the full screen with the ones
that are, and the demo's prompt offering the variants in words. Skipped without tmux."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from p2pcards.plugins import load_plugins

from .test_terminal import P2PCARDS, TMUX, terminal  # noqa: F401  (fixture)

pytestmark = [
    pytest.mark.system,  # a terminal in tmux running p2pcards
    pytest.mark.skipif(TMUX is None, reason="needs tmux (apt-get install tmux)"),
    pytest.mark.skipif("cals-bs" not in load_plugins().games, reason="cals-bs is not installed"),
]


def _bot_joiner(target: str, name: str, home, transcripts) -> subprocess.Popen:
    return subprocess.Popen(
        [
            str(P2PCARDS),
            "join",
            target,
            "--name",
            name,
            "--play-as-bot",
            "random",
            "--interface",
            "127.0.0.1",
            "--transcript-dir",
            str(transcripts),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={"P2PCARDS_HOME": str(home), "PATH": ""},
    )


def test_host_at_80x24_shows_all_five_table_words_and_marks_your_row(terminal, tmp_path):
    transcripts = tmp_path / "transcripts"
    term = terminal(
        "host",
        "--game",
        "cals-bs",
        "--players",  # the documented name (host took --seats before; both work)
        "3",
        "--bots",
        "1",
        "--name",
        "carol",
        "--table-name",
        "Fridays",
        "--interface",
        "127.0.0.1",
        "--transcript-dir",
        str(transcripts),
        size=(80, 24),
        P2PCARDS_HOME=str(tmp_path / "carol"),
    )
    port = term.wait_for(r"is open at[\s│|]*127\.0\.0\.1:(\d+)").group(1)
    term.wait_for(r"Fridays's table \(Cal's BS")  # as the lobby names a table
    joiner = _bot_joiner(f"127.0.0.1:{port}", "dave", tmp_path / "dave", transcripts)
    try:
        # All five, whole: at the end of the title line when they fit, else on their own line.
        words = r"table words: (\w+) (\w+) (\w+) (\w+) (\w+)\s*$"
        found = term.wait_for(r"(?:^ ?|· )" + words, timeout=40)
        assert len(found.groups()) == 5
        screen = term.wait_for(r"carol \(you\)", timeout=20) and term.screen()
        lines = screen.splitlines()
        assert "p2pcards" in lines[0], screen
        on_title = re.search(r"· " + words, lines[0])
        assert on_title or ("table words" not in lines[0] and re.match(r"^ ?" + words, lines[1])), screen
        assert all(len(line) <= 80 for line in lines)
        assert "you play seat" not in screen
    finally:
        if joiner.poll() is None:
            joiner.kill()
            joiner.communicate(timeout=10)


def test_join_a_table_that_is_not_there_fails_before_the_screen_naming_those_there(terminal, tmp_path):
    transcripts = tmp_path / "transcripts"
    # Other tables on this computer's loopback may be listed too: this one sorts first.
    table = f"aaa-words-{os.getpid()}"
    host = subprocess.Popen(
        [
            str(P2PCARDS),
            "host",
            "--game",
            "cals-bs",
            "--players",
            "3",
            "--name",
            "alice",
            "--table-name",
            table,
            "--play-as-bot",
            "random",
            "--interface",
            "127.0.0.1",
            "--transcript-dir",
            str(transcripts),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={"P2PCARDS_HOME": str(tmp_path / "alice"), "PATH": ""},
    )
    try:
        assert "is open at" in (host.stdout.readline() if host.stdout else "")
        term = terminal(
            "join", "Nobody", "--interface", "127.0.0.1", "--timeout", "3", size=(80, 24),
            P2PCARDS_HOME=str(tmp_path / "bob"),
        )  # fmt: skip
        term.wait_for(r"EXITED 2", timeout=30)
        screen = "".join(term.screen().splitlines())  # the error wraps at 80 columns
        assert "no table 'Nobody' found on the network; the tables there: " in screen, screen
        assert f"{table}'s table (Cal's BS, 2 of 3 seats free)" in screen, screen
        assert "Seats" not in screen and "Log" not in screen  # the full screen never opened
    finally:
        host.kill()
        host.communicate(timeout=10)


def test_the_demo_prompt_offers_free_order_in_words(terminal, tmp_path):
    term = terminal("demo", "--bot-delay", "0", size=(80, 24), P2PCARDS_HOME=str(tmp_path / "home"))
    term.wait_for(r"Which game\?")
    term.type_line("cals-bs")
    term.wait_for(r"How do you want to play Cal's BS\?")
    screen = term.screen()
    assert "free order (turn order: free order)" in screen, screen
    assert "classic cheat (going out: face down, may be doubted)" in screen
    assert "2. quads: on" in screen and "quads: quads" not in screen, screen
    term.type_line("free order")
    term.wait_for(r"Cal's BS", timeout=30)
    term.wait_for(r"Seats", timeout=30)
    term.keys("F1")
    term.wait_for(r"F1 or Esc to close", timeout=10)

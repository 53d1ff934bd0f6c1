"""Small terminals, in tmux: Calypso at 80x24 with every seat's columns whole and the turn
clock's limit shown, over loopback (``p2pcards play --interface 127.0.0.1``); the lobby at 60x15,
and a terminal too small for it told the size it needs. Skipped without tmux."""

from __future__ import annotations

import re
import subprocess

import pytest

from p2pcards.plugins import load_plugins

from .test_terminal import TMUX, terminal  # noqa: F401  (fixture)

pytestmark = [
    pytest.mark.system,  # a terminal in tmux running p2pcards
    pytest.mark.skipif(TMUX is None, reason="needs tmux (apt-get install tmux)"),
    pytest.mark.skipif("calypso" not in load_plugins().games, reason="calypso is not installed"),
]


def _lobby(terminal, tmp_path, size):
    return terminal(
        "play",
        "--interface",
        "127.0.0.1",
        "--name",
        "carol",
        "--bot-delay",
        "0",
        "--transcript-dir",
        str(tmp_path / "transcripts"),
        size=size,
        P2PCARDS_HOME=str(tmp_path / "home"),
    )


def _seat_list(screen: str) -> str:
    """The seat list's rows (left of the log, between "Seats" and the next section)."""
    left = [line.split("│")[0] for line in screen.splitlines()]
    start = next(i for i, line in enumerate(left) if line.strip() == "Seats")
    end = next(i for i, line in enumerate(left) if i > start and line.startswith(" ") and line.strip() == "Table")
    return "\n".join(left[start + 1 : end])


def test_calypso_at_80x24_keeps_every_column_whole(terminal, tmp_path):
    term = _lobby(terminal, tmp_path, (80, 24))
    term.wait_for(r"Tables on the network")
    term.type_line("create calypso seats=4 bots=3")
    checked = 0
    for _ in range(8):  # the player's turns (trumps chosen first), each played with the first legal move
        screen = term.wait_until(lambda s: "YOUR TURN" in s, "the player's turn", timeout=60)
        assert "Window too small" not in screen
        assert re.search(r"YOUR TURN \d+:\d\d of 10:00", screen), screen
        if "trick" in screen and "Your hand: 1" in screen:  # the play, every seat with its trump
            left = _seat_list(screen)
            # Each seat: its presence and every column, none cut at the pane's edge.
            assert left.count("online") == 4, screen
            for column in ("cards", "trump", "calypsos", "cards won", "score"):
                assert len(re.findall(rf"(?<!\w){column} (?!won)\S", left)) == 4, (column, screen)
            assert "Your hand: " in screen
            checked += 1
            if checked == 2:
                break
        term.type_line("legal")
        reply = term.wait_for(r"legal now: ([^,\n]+?)(?:,|$| \()", timeout=20, stable=True)
        term.type_line(reply.group(1).strip())
        term.wait_until(lambda s: re.search(r"^> *$", s, re.MULTILINE) and "legal now:" not in s, "the move")
    assert checked == 2
    term.keys("C-c")
    term.wait_for(r"Ctrl-C again: end")  # (after 'leave: a bot plays your seat ...')
    term.keys("C-c")
    term.wait_for(r"EXITED", timeout=20)


def test_lobby_at_60x15_and_the_size_it_needs(terminal, tmp_path):
    term = _lobby(terminal, tmp_path, (60, 15))
    term.wait_for(r"Tables on the network +\(127\.0\.0\.1\)")
    screen = term.screen()
    assert "Window too small" not in screen and "Your table" in screen
    assert "F1 help" in screen and "Ctrl-D quit" in screen
    term.keys("F2")
    term.wait_for(r"New table")
    for _ in range(6):  # the form scrolls to the field being changed
        term.keys("Down")
    term.wait_for(r"> turn order +< clockwise >")  # the option and its value in words
    term.keys("Escape")
    term.wait_until(lambda s: "New table" not in s, "the form to close")
    term.type_line("create calypso seats=4 bots=2")
    # The room: every seat, before the options.
    # Every seat: the bots sit down a moment after the room opens (under load, after "(free)"
    # showed: a side-by-side run of issue 29).
    screen = term.wait_until(
        lambda s: "(free)" in s and "(you)" in s and "bot 1" in s and "bot 2" in s, "the room's seats"
    )
    assert "Window too small" not in screen
    subprocess.run([TMUX, "-S", str(tmp_path / "tmux.sock"), "resize-window", "-t", "t", "-x", "44", "-y", "10"])
    term.wait_for(r"this terminal is 44x10: p2pcards needs at\s+least 50x12")
    subprocess.run([TMUX, "-S", str(tmp_path / "tmux.sock"), "resize-window", "-t", "t", "-x", "60", "-y", "15"])
    term.wait_for(r"\(free\)")
    term.type_line("quit")
    term.wait_for(r"EXITED 0", timeout=20)

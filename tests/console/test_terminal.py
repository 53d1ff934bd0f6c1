"""End to end in a real terminal: ``p2pcards demo`` inside tmux, driven by keystrokes.

Needs the ``tmux`` program (Debian/Ubuntu package ``tmux``); skipped with that reason when it
is missing. Each test runs its own tmux server on a private socket and kills only that server.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2pcards.plugins import load_plugins

TMUX = shutil.which("tmux")
pytestmark = [
    pytest.mark.system,  # a terminal in tmux running p2pcards
    pytest.mark.skipif(TMUX is None, reason="needs tmux (apt-get install tmux)"),
]
P2PCARDS = Path(sys.executable).with_name("p2pcards")


class Terminal:
    """One tmux session running one command, 100x34 unless given another ``size``."""

    def __init__(self, socket: Path, command: list[str], env: dict[str, str], size: tuple[int, int] = (100, 34)):
        self.base = [TMUX, "-S", str(socket)]
        env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
        subprocess.run(
            [
                *self.base,
                "-u",
                "new-session",
                "-d",
                "-s",
                "t",
                "-x",
                str(size[0]),
                "-y",
                str(size[1]),
                *env_args,
                " ".join(command) + "; echo EXITED $?; sleep 30",
            ],
            check=True,
            timeout=10,
        )

    def screen(self) -> str:
        out = subprocess.run([*self.base, "capture-pane", "-p", "-t", "t"], capture_output=True, text=True, timeout=10)
        return out.stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        subprocess.run(
            [*self.base, "send-keys", "-t", "t", *(["-l"] if literal else []), *keys], check=True, timeout=10
        )

    def type_line(self, text: str) -> None:
        self.keys("C-u")
        self.keys(text, literal=True)
        self.keys("Enter")

    def wait_for(self, pattern: str, timeout: float = 30.0, *, stable: bool = False) -> re.Match[str]:
        """The first match of ``pattern`` on the screen. With ``stable``, on a screen that two
        captures in a row show alike: text read from the screen and typed back (a legal move)
        must not come from a frame caught half drawn (tmux reads the program's output in
        pieces; under load a capture can fall between two, old text showing through)."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            found = re.search(pattern, screen, re.MULTILINE)
            if found and stable:
                time.sleep(0.03)
                again = self.screen()
                found = re.search(pattern, again, re.MULTILINE) if again == screen else None
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"no {pattern!r} on the screen after {timeout}s:\n{screen}")
            time.sleep(0.05)

    def wait_until(self, test, what: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if test(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {timeout}s for {what}:\n{screen}")
            time.sleep(0.05)

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, timeout=10)


@pytest.fixture
def terminal(tmp_path):
    opened = []

    def start(*args: str, size: tuple[int, int] = (100, 34), **env: str) -> Terminal:
        full_env = {
            "LC_ALL": "C.UTF-8",
            "LANG": "C.UTF-8",
            "TERM": "xterm-256color",
            "PATH": os.environ.get("PATH", ""),
            **env,
        }
        term = Terminal(tmp_path / "tmux.sock", [str(P2PCARDS), *args], full_env, size)
        opened.append(term)
        return term

    yield start
    for term in opened:
        term.close()


def hand_on_screen(screen: str) -> list[str]:
    lines = screen.splitlines()
    for index, line in enumerate(lines):
        if line.strip().startswith("Your hand"):
            cards = lines[index + 1].split("│")[0].split("(")[0]
            return cards.split()
    return []


# Moves that leave a player's hand as it is: a player who always chose them (the first legal
# move in Cal's BS is "pass") never goes out and leaves the game to the others; one such game
# (a strategic and a random bot) ran past 1,100 moves and this helper's 400 turns.
_WAITING_MOVES = ("pass", "doubt")


def play_by_keystrokes(term: Terminal, max_turns: int = 400, *, then_stop: bool = False) -> str | None:
    """Until the game is over: at each turn ask the console for the legal moves ('legal') and
    type the first of the first three that plays cards, else the first. Returns the final
    screen; with ``then_stop``, ``None`` once ``max_turns`` turns were played and the game
    goes on (a Cal's BS hand can take a person a hundred turns)."""
    for _ in range(max_turns):
        found = term.wait_for(r"YOUR TURN|game over:", timeout=30)
        if found.group(0) == "game over:":
            return term.screen()
        term.type_line("legal")
        # The screen may have been a frame behind (the turn already passed, the game ended).
        reply = term.wait_for(
            r"legal now: ((?:[^,(\n]+?, ){0,2}[^,(\n]+?)(?:,|  | \(|$)|[✗!] wait|your turn now|game over:",
            timeout=20,
            stable=True,
        )
        if not reply.group(0).startswith("legal now:"):
            continue
        # Not a summary of many moves ("place 1-6 cards as A", where a game lists a sample):
        # only a move as typed.
        # ("pass, place 1-6 cards as K, or doubt": the last is "doubt".)
        moves = [
            move.strip().removeprefix("or ") for move in reply.group(1).split(", ") if not re.search(r"\d-\d", move)
        ]
        if not moves:
            term.type_line("pass")
        else:
            term.type_line(next((move for move in moves if move not in _WAITING_MOVES), moves[0]))
        # The move was taken once the input line is empty and the legal list is gone (both
        # happen on Enter; Ctrl-U alone would only empty the line).
        term.wait_until(
            lambda screen: re.search(r"^> *$", screen, re.MULTILINE) and "legal now:" not in screen,
            "the move to be taken",
        )
    if then_stop:
        return None
    raise AssertionError("the game did not end:\n" + term.screen())


@pytest.mark.skipif("cals-bs" not in load_plugins().games, reason="cals-bs is not installed")
def test_demo_in_a_terminal_cals_bs(terminal):
    term = terminal(
        "demo", "--game", "cals-bs", "--seed", "3", "--option", "match_target=1", "--deck", "local", "--bot-delay", "0"
    )
    term.wait_for(r"YOUR TURN")
    screen = term.screen()
    hand = hand_on_screen(screen)
    assert len(hand) >= 15 and any("♥" in c or "♦" in c for c in hand), screen
    assert "Seats" in screen and "bot 1" in screen and "cards 18" in screen
    # A card this hand does not hold: refused, the reason shown, the text kept for editing.
    held = {c for c in hand}
    missing = next(
        f"{r}♠" for r in ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"] if f"{r}♠" not in held
    )
    ascii_missing = missing.replace("♠", "s")
    term.type_line(f"play {ascii_missing} as 5")
    term.wait_for(rf"✗ .*you do not hold {ascii_missing}")
    term.wait_for(rf"^> play {ascii_missing} as 5", timeout=5)
    # Malformed input.
    term.type_line("dance")
    term.wait_for(r"✗ can't read that: unknown command 'dance'")
    final = play_by_keystrokes(term)
    assert "game over:" in final and "audit: clean, every card shown checked" in final
    assert "type 'new' for a new game or 'quit' to leave" in final
    term.type_line("quit")
    term.wait_for(r"EXITED 0")


@pytest.mark.skipif("calypso" not in load_plugins().games, reason="calypso is not installed")
def test_demo_in_a_terminal_calypso_ascii_no_colour(terminal):
    term = terminal(
        "demo",
        "--game",
        "calypso",
        "--seed",
        "2",
        "--deck",
        "local",
        "--bot-delay",
        "0",
        P2PCARDS_ASCII="1",
        NO_COLOR="1",
    )
    term.wait_for(r"YOUR TURN")
    final = play_by_keystrokes(term)
    assert "game over:" in final and "audit: clean, every card shown checked" in final
    assert not re.search("[♠♥♦♣▶]", final), final
    term.type_line("quit")
    term.wait_for(r"EXITED 0")

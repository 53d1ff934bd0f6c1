"""End to end in a real terminal: a person joins a table in the console, their program is killed
(SIGKILL) in the middle of the game, and ``p2pcards resume`` brings them back into the same game
in the console, where they play to the end. On 127.0.0.1; skipped without tmux."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from p2pcards.plugins import load_plugins
from p2pcards.testing.loopback import unused_port

from .test_terminal import P2PCARDS, TMUX, Terminal, play_by_keystrokes

pytestmark = [
    pytest.mark.system,  # a terminal in tmux running p2pcards
    pytest.mark.skipif(TMUX is None, reason="needs tmux (apt-get install tmux)"),
    pytest.mark.skipif("cals-bs" not in load_plugins().games, reason="cals-bs is not installed"),
]


def bot_host(tmp_path, table: str, *, match_target: int, transcripts) -> tuple[subprocess.Popen, Path]:
    """``p2pcards host`` of a three-seat Cal's BS table on 127.0.0.1 with one bot peer (the
    host's seat is a bot too), open for a person to join: the process and its log."""
    log = tmp_path / "host.log"
    args = ["host", "--game", "cals-bs", "--seats", "3", "--bots", "1", "--bot", "random", "--bot-delay", "0"]
    args += ["--option", f"match_target={match_target}", "--name", table, "--interface", "127.0.0.1"]
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
    return host, log


def console(tmp_path, name: str, home, *args: str, size: tuple[int, int] = (100, 34)) -> Terminal:
    env = {
        "LC_ALL": "C.UTF-8",
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "PATH": os.environ.get("PATH", ""),
        "P2PCARDS_HOME": str(home),
    }
    return Terminal(tmp_path / f"{name}.sock", [str(P2PCARDS), *args], env, size)


def test_a_person_killed_mid_game_resumes_in_the_console(tmp_path):
    table = f"resume-{os.getpid()}"
    transcripts = tmp_path / "transcripts"
    host, host_log = bot_host(tmp_path, table, match_target=1, transcripts=transcripts)
    terms = []
    try:
        first = console(
            tmp_path,
            "first",
            tmp_path / "erin",
            "join",
            table,
            "--name",
            "erin",
            "--interface",
            "127.0.0.1",
            "--port",  # erin's program listens there again when it resumes
            str(unused_port()),
            "--transcript-dir",
            str(transcripts),
        )
        terms.append(first)
        first.wait_for(r"YOUR TURN", timeout=60)
        # Make one move, then the program dies.
        first.type_line("legal")
        move = first.wait_for(r"legal now: ([^,(\n]+?)(?:,|  | \(|$)", timeout=20, stable=True).group(1).strip()
        first.type_line(move)
        time.sleep(1.0)
        # Only the Python process: the shell tmux runs it in has the same words in its command.
        pids = subprocess.run(["pgrep", "-f", f"python.* join {table} --name erin"], capture_output=True, text=True)
        assert pids.stdout.split(), "the console's process was not found"
        for pid in pids.stdout.split():
            os.kill(int(pid), signal.SIGKILL)
        first.wait_for(r"EXITED 137", timeout=20)

        again = console(tmp_path, "again", tmp_path / "erin", "resume", "--transcript-dir", str(transcripts))
        terms.append(again)
        again.wait_for(r"YOUR TURN|game over:", timeout=60)
        # A few turns by keystrokes in the resumed console, then (the game going on) a bot
        # plays the seat to the end in it ('leave'): a person's whole hand of Cal's BS is a
        # hundred turns, 20-90 s of the suite under load, and the end screen of a game played
        # by keystrokes is test_terminal_seat's. Either way the resumed program audits the
        # whole game, both halves, and saves its transcript.
        final = play_by_keystrokes(again, 8, then_stop=True)
        if final is None:
            again.type_line("quit")
            again.wait_for(r"leave: a bot plays your seat to the end", timeout=10)
            again.type_line("leave")
            again.wait_for(r"EXITED 0", timeout=120)
            final = again.screen()
            assert "transcript: " in final
        else:
            again.wait_for(r"transcript saved to", timeout=20)
            again.type_line("quit")
            again.wait_for(r"EXITED 0", timeout=30)
        assert "audit: clean, every card shown checked" in final
        host.wait(timeout=60)
        assert host.returncode == 0, host_log.read_text()
        files = sorted(transcripts.glob("*.p2pt"))
        assert len(files) == 3 and len({f.read_bytes() for f in files}) == 1
    finally:
        for term in terms:
            term.close()
        if host.poll() is None:
            host.kill()

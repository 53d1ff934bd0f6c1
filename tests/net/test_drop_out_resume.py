"""kill -9 of the seat that drops out (issue 30), at its drop-out move, then ``p2pcards
resume``: the drop-out is made once (its journal's move re-used, or made again if it never
left), every seat applies it at the same turn, the game goes on to its end, and every seat
writes the same transcript, which verifies and says who dropped out. Crazy Eights, three seat
processes of bots on 127.0.0.1 (killable.py; the victim drops out with
``P2PCARDS_TEST_DROP_OUT``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2pcards.testing.loopback import unused_port
from p2pcards.verify import EXIT_VERIFIED, verify_file

pytestmark = [pytest.mark.system, pytest.mark.slow]  # seat processes, killed and resumed

LOOPBACK = "127.0.0.1"
KILLABLE = Path(__file__).with_name("killable.py")
GAME_SECONDS = 180.0


def _start(args, home: Path, log: Path, phase: str = "never", drop: bool = False) -> subprocess.Popen:
    env = {**os.environ, "P2PCARDS_HOME": str(home)}
    if drop:
        env["P2PCARDS_TEST_DROP_OUT"] = "1"
    # Every label but the drop-out move's is "done": the victim is killed at that entry only.
    done = "" if phase == "never" else ONLY_THE_DROP
    return subprocess.Popen(
        [sys.executable, str(KILLABLE), phase, "1", done, "--", *args],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        env=env,
        cwd=str(KILLABLE.parent),
    )


#: The labels a Crazy Eights seat signs (killable.entry_label) but the drop-out move's.
ONLY_THE_DROP = ",".join(
    [
        "deck:commit",
        "deck:nonce",
        "deck:shuffle",
        "deck:relock",
        "deck:open",
        "deck:box",
        "deck:boxes",
        "deck:drop",
        "deck:seed",
        "action:play",
        "action:draw",
        "action:pass",
        "result",
        "chat",
    ]
)


def _wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.parametrize("phase", ["signed", "synced"])
def test_the_seat_that_drops_out_killed_at_its_drop_resumes_and_the_game_ends_alike(tmp_path, phase):
    transcripts = tmp_path / "transcripts"
    homes = [tmp_path / f"home{i}" for i in range(3)]
    logs = [tmp_path / f"seat{i}.log" for i in range(3)]
    name = f"dropkill-{os.getpid()}-{phase}"
    bot = ["--bot", "random", "--bot-delay", "0"]
    where = ["--interface", LOOPBACK, "--transcript-dir", str(transcripts)]
    procs = []
    try:
        host = ["host", "--game", "crazy-eights", "--seats", "3", "--name", name]
        host += ["--grace", "60", "--deck-timeout", "60", "--turn-timeout", "60", *bot, *where]
        host += ["--port", str(unused_port())]  # (each seat's port: it listens there again on resume)
        procs.append(_start(host, homes[0], logs[0]))
        _wait_for(lambda: "is open at" in logs[0].read_text(), 60, "the table to open")
        port = logs[0].read_text().split(f"{LOOPBACK}:")[1].split(";")[0]
        for index in (1, 2):
            join = ["join", f"{LOOPBACK}:{port}", "--name", f"p{index}", *bot, *where, "--port", str(unused_port())]
            procs.append(_start(join, homes[index], logs[index], phase if index == 1 else "never", drop=index == 1))
        victim = procs[1]
        victim.wait(GAME_SECONDS)
        text = logs[1].read_text()
        assert victim.returncode == -9 and "killable: dying at" in text and "action:drop out" in text, text[-3000:]
        resume_log = tmp_path / "resume.log"
        resumed = _start(["resume", *bot, "--transcript-dir", str(transcripts)], homes[1], resume_log, drop=True)
        procs.append(resumed)
        for proc, log in zip([procs[0], procs[2], resumed], [logs[0], logs[2], resume_log]):
            proc.wait(GAME_SECONDS)
            out = log.read_text()
            assert proc.returncode == 0, f"{log.name} exited {proc.returncode}:\n{out[-3000:]}"
            assert "named:" not in out, out[-3000:]
        files = sorted(transcripts.glob("*.p2pt"))
        assert len(files) == 3, files
        data = [f.read_bytes() for f in files]
        assert data[1:] == data[:-1], f"the seats' transcripts differ: {[len(d) for d in data]}"
        report = verify_file(files[0])
        assert report.status == EXIT_VERIFIED, report.to_text()
        assert "verdict: VERIFIED; p1 dropped out" in report.to_text()
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

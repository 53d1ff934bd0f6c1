"""Two programs on one computer sharing a data folder: the second is told to set P2PCARDS_HOME
(and still runs: sharing the folder is safe); marks of programs that ended do not count."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2pcards.datafolder import RUNNING, claim_data_folder, shared_folder_hint

P2PCARDS = str(Path(sys.executable).with_name("p2pcards"))


def test_a_second_program_sees_the_first_until_it_ends(tmp_path):
    first = claim_data_folder(tmp_path, name="1001")
    assert first.others == [] and shared_folder_hint(first) is None
    second = claim_data_folder(tmp_path, name="1002")
    assert second.others == [1001]
    hint = shared_folder_hint(second)
    assert hint is not None and "pid 1001" in hint and str(tmp_path) in hint
    assert "set P2PCARDS_HOME to a different folder" in hint and "\n" not in hint
    first.release()
    assert claim_data_folder(tmp_path, name="1003").others == [1002]
    second.release()


def test_a_mark_left_by_a_program_that_died_is_not_a_program(tmp_path):
    (tmp_path / RUNNING).mkdir(parents=True)
    stale = tmp_path / RUNNING / "999999.pid"
    stale.write_text("999999\n")  # nobody holds its lock
    use = claim_data_folder(tmp_path, name="1001")
    assert use.others == [] and not stale.exists()
    use.release()


def _run(args, home: Path, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [P2PCARDS, *args],
        env={**os.environ, "P2PCARDS_HOME": str(home)},
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )


def _join_nowhere(home: Path, tmp_path: Path) -> str:
    """A program that marks the folder, then fails to join (nothing listens on port 1)."""
    log = tmp_path / f"join-{time.monotonic_ns()}.log"
    proc = _run(["join", "127.0.0.1:1", "--bot", "random", "--interface", "127.0.0.1"], home, log)
    proc.wait(timeout=60)
    assert proc.returncode == 2  # it ran (and could not join): the hint never stops it
    return log.read_text()


@pytest.mark.system  # p2pcards processes
def test_two_programs_sharing_a_data_folder_get_a_hint(tmp_path):
    home = tmp_path / "shared"
    host_log = tmp_path / "host.log"
    host = _run(
        [
            "host",
            "--game",
            "cals-bs",
            "--seats",
            "3",
            "--bot",
            "random",
            "--interface",
            "127.0.0.1",
            "--name",
            f"shared-{os.getpid()}",
            "--transcript-dir",
            str(tmp_path / "transcripts"),
        ],
        home,
        host_log,
    )
    try:
        deadline = time.monotonic() + 30
        while "is open at" not in host_log.read_text():
            assert time.monotonic() < deadline and host.poll() is None, host_log.read_text()
            time.sleep(0.1)
        assert "hint:" not in host_log.read_text()  # the first program: no hint

        out = _join_nowhere(home, tmp_path)
        assert f"hint: another p2pcards program (pid {host.pid}) uses the data folder {home} too" in out
        assert "set P2PCARDS_HOME to a different folder" in out
        assert "hint:" not in _join_nowhere(tmp_path / "own", tmp_path)  # a folder of its own

        host.send_signal(signal.SIGKILL)  # its mark stays behind, unlocked
        host.wait(timeout=10)
        assert "hint:" not in _join_nowhere(home, tmp_path)
        assert list((home / RUNNING).iterdir()) == []
    finally:
        if host.poll() is None:
            host.kill()

"""Texas Hold'em between hosts of a LAN the test builds itself (issue 33): network namespaces
joined by veth pairs to a bridge (test_lan_netns.bridged_lan), addresses 10.77.133.x that
exist only inside them. The host's namespace holds its seat and a bot peer filling a seat, a
second namespace a joiner, a third a spectator who watches the match through zeroconf; then
the spectator's transcript is replayed as the table saw it. Each peer is a real process.

Needs root (CI runs as root); skipped with the reason otherwise."""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2pcards.verify import verify_file
from p2pcards.wire.transcript import read_transcript

from .test_lan_netns import _skip_reason, bridged_lan

pytestmark = [pytest.mark.netns, pytest.mark.system]

EXE = str(Path(sys.executable).with_name("p2pcards"))
SUBNET = "10.77.133"  # (this test's own; the other netns tests use 10.77.0)
CARD = re.compile(r"(?<![\w])(10|[2-9JQKA])([♠♥♦♣])")


@pytest.fixture
def lan():
    """Namespaces ``h33c<pid>h0..h2`` at 10.77.133.10-12, bridged in ``h33c<pid>sw``."""
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    with bridged_lan(f"h33c{os.getpid() % 100000}", 3, SUBNET) as (_, hosts, ips):
        yield list(zip(hosts, ips))


def _wait_for(path: Path, pattern: str, seconds: float, proc: subprocess.Popen) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        text = path.read_text()
        if re.search(pattern, text):
            return text
        time.sleep(0.1)
    text = path.read_text()
    assert re.search(pattern, text), text
    return text


def test_a_holdem_match_between_namespaces_with_a_bot_and_a_spectator(lan, tmp_path):
    name = f"holdem-lan-{os.getpid()}"
    players, watcher = tmp_path / "transcripts", tmp_path / "watched"
    (host_ns, host_ip), (join_ns, join_ip), (watch_ns, watch_ip) = lan
    logs = {who: tmp_path / f"{who}.log" for who in ("host", "join", "watch")}
    # A short match; the bots think a little so that the spectator finds it started.
    common = ["--bot-delay", "0.3", "--transcript-dir", str(players)]
    procs: dict[str, subprocess.Popen] = {}

    def start(who: str, ns: str, args: list[str]) -> subprocess.Popen:
        proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, EXE, *args],
            env=dict(os.environ, P2PCARDS_HOME=str(tmp_path / f"home-{who}")),
            stdout=logs[who].open("w"),
            stderr=subprocess.STDOUT,
        )
        procs[who] = proc
        return proc

    try:
        host = start(
            "host",
            host_ns,
            ["host", "--game", "holdem", "--option", "hand_limit=4", "--players", "3", "--bots", "1"]
            + ["--bot", "strategic", "--name", name, "--interface", host_ip, *common],
        )
        _wait_for(logs["host"], rf"is open at {re.escape(host_ip)}:", 30, host)
        start(
            "join",
            join_ns,
            ["join", name, "--bot", "random", "--name", "guest", "--interface", join_ip, "--timeout", "15", *common],
        )
        _wait_for(logs["host"], r"seated: .*guest", 60, host)  # the match has started
        start(
            "watch",
            watch_ns,
            ["watch", name, "--plain", "--name", "eve", "--interface", watch_ip, "--timeout", "15"]
            + ["--transcript-dir", str(watcher)],
        )
        for proc in procs.values():
            proc.wait(timeout=180)
        for who, proc in procs.items():
            assert proc.returncode == 0, f"{who}:\n{logs[who].read_text()}"
        for who in ("host", "join"):
            assert "audit: clean" in logs[who].read_text(), logs[who].read_text()
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)

    files = sorted(players.glob("*.p2pt"))
    assert len(files) == 3 and len({f.read_bytes() for f in files}) == 1
    transcript = read_transcript(files[0])
    assert transcript.complete and transcript.header.lobby["game"] == "holdem"
    seats = [seat["host"] for seat in transcript.header.lobby["seats"]]
    assert sorted(seats) == sorted([host_ip, host_ip, join_ip])  # LAN addresses, no 127.0.0.1
    assert verify_file(files[0]).verdict == "verified"

    # The spectator: its file is the players' own, saved under its own name; replayed, it is
    # what the table saw face up, and no hole card that was never shown.
    (watched,) = watcher.glob("watch-*.p2pt")
    assert watched.read_bytes() == files[0].read_bytes()
    assert "verified" in logs["watch"].read_text().splitlines()[-1]
    out = subprocess.run([EXE, "replay", "--print", str(watched)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    head, *steps = out.stdout.split("\n== ")
    assert "a spectator's" in head and "what the table saw face up" in head
    public: set[str] = set()
    timeline = verify_file(watched).timeline
    assert len(steps) == len(timeline)
    for event, text in zip(timeline, steps):
        if event["kind"] == "reveal":
            public |= set(event["cards"])
        shown = {m.group(0) for m in CARD.finditer(text)}
        assert shown <= public, f"{text}\n{shown - public}"
        assert "hand:" not in text

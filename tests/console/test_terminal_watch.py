"""End to end in a real terminal on a LAN the test builds itself: three bot peers play Cal's BS
on three hosts of a bridge of network namespaces (10.77.0.x, which exist only there), and
``p2pcards watch TABLE`` runs inside tmux on a fourth host. It finds the table through
zeroconf once its game has started, shows it as a player sees it without a hand, follows it
to the end, and verifies the transcript. Needs root and tmux; skipped otherwise."""

from __future__ import annotations

import os
import re
import subprocess
import time

import pytest

from p2pcards.plugins import load_plugins
from p2pcards.wire.transcript import read_transcript

from ..net.test_lan_netns import EXE, _skip_reason, bridged_lan
from .test_terminal import TMUX, Terminal

pytestmark = [
    pytest.mark.system,  # a terminal in tmux, p2pcards processes
    pytest.mark.netns,
    pytest.mark.skipif(TMUX is None, reason="needs tmux (apt-get install tmux)"),
    pytest.mark.skipif("cals-bs" not in load_plugins().games, reason="cals-bs is not installed"),
]

HOSTS = 4  # three seats and the spectator


@pytest.fixture
def lan4():
    """Namespaces ``<prefix>h0..h3`` at 10.77.0.10-13, bridged in ``<prefix>sw``."""
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    with bridged_lan(f"p2w{os.getpid() % 100000}", HOSTS) as (_, hosts, ips):
        yield list(zip(hosts, ips))


def _seat(ns: str, ip: str, *args: str, home, log) -> subprocess.Popen:
    return subprocess.Popen(
        ["ip", "netns", "exec", ns, EXE, *args, "--interface", ip, "--bot-delay", "0.15"],
        env=dict(os.environ, P2PCARDS_HOME=str(home)),
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )


def test_a_spectator_watches_a_whole_lan_game_in_a_terminal(lan4, tmp_path):
    name = f"watched-{os.getpid()}"
    transcripts = tmp_path / "transcripts"
    (host_ns, host_ip), (ns1, ip1), (ns2, ip2), (watch_ns, watch_ip) = lan4
    procs: list[subprocess.Popen] = []
    term: Terminal | None = None
    try:
        # The spectator first: it waits (up to --timeout) for the table to be announced as playing.
        term = Terminal(
            tmp_path / "tmux.sock",
            [
                "ip",
                "netns",
                "exec",
                watch_ns,
                EXE,
                "watch",
                name,
                "--interface",
                watch_ip,
                "--name",
                "eve",
                "--timeout",
                "60",
                "--transcript-dir",
                str(tmp_path / "eve"),
            ],  # fmt: skip
            {
                "LC_ALL": "C.UTF-8",
                "LANG": "C.UTF-8",
                "TERM": "xterm-256color",
                "PATH": os.environ.get("PATH", ""),
                "P2PCARDS_HOME": str(tmp_path / "eve-home"),
            },
        )
        host_log = tmp_path / "host.log"
        procs.append(
            _seat(
                host_ns,
                host_ip,
                "host",
                "--game",
                "cals-bs",
                "--option",
                "match_target=1",
                "--seats",
                "3",
                "--bot",
                "strategic",
                "--name",
                name,
                "--transcript-dir",
                str(transcripts),
                home=tmp_path / "home0",
                log=host_log,
            )  # fmt: skip
        )
        deadline = time.monotonic() + 30
        while "is open at" not in host_log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        for i, (ns, ip) in enumerate([(ns1, ip1), (ns2, ip2)], start=1):
            procs.append(
                _seat(
                    ns,
                    ip,
                    "join",
                    name,
                    "--bot",
                    "random",
                    "--name",
                    f"guest{i}",
                    "--timeout",
                    "20",
                    "--transcript-dir",
                    str(transcripts),
                    home=tmp_path / f"home{i}",
                    log=tmp_path / f"join{i}.log",
                )  # fmt: skip
            )
        # Mid-game: the table as a player sees it, from the spectator's chair, without a hand.
        term.wait_for(rf"watching through {name} \({host_ip}:\d+\)", timeout=60)
        term.wait_for(r"guest\d +cards \d+", timeout=30)
        playing = term.wait_for(r"(guest\d|" + re.escape(name) + r") plays \d+ cards? as", timeout=60)
        screen = term.screen()
        assert "Hand" in screen and "(no cards)" in screen, screen
        assert "YOUR TURN" not in screen
        assert playing
        # To the end: the result, the audit with every card, and the transcript verified.
        final = term.wait_for(r"game over", timeout=150)
        assert final
        term.wait_for(r"audit: clean, every card shown checked", timeout=30)
        term.wait_for(r"the transcript is verified", timeout=30)
        for proc in procs:
            proc.wait(timeout=60)
        term.type_line("quit")
        term.wait_for(r"transcript: /[^:]+: verified", timeout=20)  # (the path may wrap)
        term.wait_for(r"EXITED 0")
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
        if term is not None:
            term.close()
    for proc in procs:
        assert proc.returncode == 0
    seats = sorted(transcripts.glob("*.p2pt"))
    watched = sorted((tmp_path / "eve").glob("watch-*.p2pt"))
    assert len(seats) == 3 and len(watched) == 1
    # The spectator's transcript is the players' own, byte for byte.
    assert {f.read_bytes() for f in seats} == {watched[0].read_bytes()}
    assert read_transcript(watched[0]).complete

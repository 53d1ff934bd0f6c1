"""Three peers on three hosts of a LAN the test builds itself: network namespaces joined by
veth pairs to a bridge, addresses 10.77.0.x that exist only inside them. Each peer is a real
process in its own namespace; the joiners find the table through zeroconf over the bridge.

Needs root (CI runs as root); skipped with the reason otherwise."""

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from p2pcards.wire.transcript import read_transcript

pytestmark = [pytest.mark.netns, pytest.mark.system]

EXE = str(Path(sys.executable).with_name("p2pcards"))
HOSTS = 3
SUBNET = "10.77.0"


def _skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root to create network namespaces"
    if shutil.which("ip") is None:
        return "needs the 'ip' command (iproute2)"
    probe = subprocess.run(["ip", "netns", "add", f"p2pprobe{os.getpid()}"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"cannot create a network namespace here: {probe.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", f"p2pprobe{os.getpid()}"], capture_output=True)
    return None


def sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, text=True)


@contextmanager
def bridged_lan(prefix: str, count: int, subnet: str = SUBNET) -> Iterator[tuple[str, list[str], list[str]]]:
    """Namespaces ``<prefix>h0..`` at ``<subnet>.10`` and up, each with a veth whose other end is a
    port (``port<i>``) of the bridge ``br0`` in namespace ``<prefix>sw``: ``(switch, hosts,
    ips)``. Every namespace made is removed on the way out, whatever happened."""
    switch = f"{prefix}sw"
    hosts = [f"{prefix}h{i}" for i in range(count)]
    ips = [f"{subnet}.{10 + i}" for i in range(count)]
    made: list[str] = []
    try:
        sh("ip", "netns", "add", switch)
        made.append(switch)
        sh("ip", "-n", switch, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", switch, "link", "set", "br0", "up")
        for i, (ns, ip) in enumerate(zip(hosts, ips)):
            sh("ip", "netns", "add", ns)
            made.append(ns)
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            # The veth pair is made inside the host namespace, then one end moves to the switch.
            sh("ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", f"port{i}")
            sh("ip", "-n", ns, "link", "set", f"port{i}", "netns", switch)
            sh("ip", "-n", switch, "link", "set", f"port{i}", "master", "br0")
            sh("ip", "-n", switch, "link", "set", f"port{i}", "up")
            sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", "eth0")
            sh("ip", "-n", ns, "link", "set", "eth0", "up")
        yield switch, hosts, ips
    finally:
        for ns in reversed(made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


@pytest.fixture
def lan():
    """Namespaces ``<prefix>h0..h2`` at 10.77.0.10-12, bridged in ``<prefix>sw``."""
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    with bridged_lan(f"p2p{os.getpid() % 100000}", HOSTS) as (_, hosts, ips):
        yield list(zip(hosts, ips))


def test_three_hosts_discover_each_other_and_play(lan, tmp_path):
    name = f"lan-{os.getpid()}"
    transcripts = tmp_path / "transcripts"
    procs = []
    try:
        (host_ns, host_ip), *others = lan
        host_log = tmp_path / "host.log"
        procs.append(
            subprocess.Popen(
                [
                    "ip",
                    "netns",
                    "exec",
                    host_ns,
                    EXE,
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
                    "--interface",
                    host_ip,
                    "--transcript-dir",
                    str(transcripts),
                ],
                env=dict(os.environ, P2PCARDS_HOME=str(tmp_path / "home0")),
                stdout=host_log.open("w"),
                stderr=subprocess.STDOUT,
            )
        )
        deadline = time.monotonic() + 30
        while "is open at" not in host_log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert f"is open at {host_ip}:" in host_log.read_text(), host_log.read_text()
        logs = []
        for i, (ns, ip) in enumerate(others, start=1):
            log = tmp_path / f"join{i}.log"
            logs.append(log)
            procs.append(
                subprocess.Popen(
                    [
                        "ip",
                        "netns",
                        "exec",
                        ns,
                        EXE,
                        "join",
                        name,
                        "--bot",
                        "random",
                        "--interface",
                        ip,
                        "--name",
                        f"guest{i}",
                        "--timeout",
                        "15",
                        "--transcript-dir",
                        str(transcripts),
                    ],
                    env=dict(os.environ, P2PCARDS_HOME=str(tmp_path / f"home{i}")),
                    stdout=log.open("w"),
                    stderr=subprocess.STDOUT,
                )
            )
        for proc in procs:
            proc.wait(timeout=120)
        outputs = [host_log.read_text()] + [log.read_text() for log in logs]
        for proc, out in zip(procs, outputs):
            assert proc.returncode == 0, out
            assert "audit: clean" in out
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    files = sorted(transcripts.glob("*.p2pt"))
    assert len(files) == 3 and len({f.read_bytes() for f in files}) == 1
    transcript = read_transcript(files[0])
    assert transcript.complete
    hosts = {seat["host"] for seat in transcript.header.lobby["seats"]}
    assert hosts == {ip for _, ip in lan}  # every seat reached the others on its LAN address


def test_host_bots_on_every_interface_are_reachable_from_the_lan(lan, tmp_path):
    """A host listening on every interface (the 'play' lobby's and 'host''s default) with a bot
    peer of its own: the bot reaches its host over loopback, but the others dial it at the
    host's LAN address (they were told 127.0.0.1 before, and could not start the table)."""
    name = f"lanbots-{os.getpid()}"
    transcripts = tmp_path / "transcripts"
    (host_ns, host_ip), (join_ns, join_ip), _ = lan
    host_log, join_log = tmp_path / "host.log", tmp_path / "join.log"
    common = ["--bot-delay", "0", "--transcript-dir", str(transcripts)]
    # Every interface of a computer with a gateway: without a default route, zeroconf's sends
    # on every interface fail (ENODEV) in a namespace that has none.
    sh("ip", "-n", host_ns, "route", "add", "default", "dev", "eth0")
    procs = []
    try:
        procs.append(
            subprocess.Popen(
                ["ip", "netns", "exec", host_ns, EXE, "host", "--game", "cals-bs", "--variant", "single-hand"]
                + ["--players", "3", "--bots", "1", "--bot", "random", "--name", name, *common],
                env=dict(os.environ, P2PCARDS_HOME=str(tmp_path / "home0")),
                stdout=host_log.open("w"),
                stderr=subprocess.STDOUT,
            )
        )
        deadline = time.monotonic() + 30
        while "is open at" not in host_log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "is open at" in host_log.read_text(), host_log.read_text()
        procs.append(
            subprocess.Popen(
                ["ip", "netns", "exec", join_ns, EXE, "join", name, "--bot", "random", "--name", "guest"]
                + ["--interface", join_ip, "--timeout", "15", *common],
                env=dict(os.environ, P2PCARDS_HOME=str(tmp_path / "home1")),
                stdout=join_log.open("w"),
                stderr=subprocess.STDOUT,
            )
        )
        for proc in procs:
            proc.wait(timeout=120)
        for proc, log in zip(procs, (host_log, join_log)):
            assert proc.returncode == 0, log.read_text()
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    files = sorted(transcripts.glob("*.p2pt"))
    assert len(files) == 3 and len({f.read_bytes() for f in files}) == 1
    transcript = read_transcript(files[0])
    assert transcript.complete
    hosts = [seat["host"] for seat in transcript.header.lobby["seats"]]
    assert hosts[0] == host_ip and hosts.count(host_ip) == 2 and join_ip in hosts  # no 127.0.0.1

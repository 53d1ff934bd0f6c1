"""A user-space Ethernet switch that loses, delays and reorders frames, for tests of a table over
a bad network on a kernel without ``sch_netem`` (issue 23).

The switch opens one TAP device per test host (``/dev/net/tun``, ``IFF_TAP | IFF_NO_PI``) and
moves each into that host's network namespace; its file descriptor stays with the switch, so
every frame the host sends comes up here and every frame written here goes down to the host.
Frames are forwarded like a learning switch (a known destination MAC goes to its port, anything
else is flooded), and each copy, independently, with a seeded RNG:

- is dropped with probability ``loss``;
- otherwise is held ``delay`` plus a uniform ``0..jitter`` ms (copies with different holds leave
  in a different order, as over a jittery link);
- and with probability ``reorder`` is held ``reorder_ms`` longer still, so that frames sent after
  it overtake it.

Queues are bounded (``MAX_HELD`` copies; a copy beyond that is dropped and counted), and the
switch never touches an interface it did not make.

``python lossy_switch.py --netns NS0 --netns NS1 ... [--loss P] [--jitter-ms J] ...`` (as root,
best inside a namespace of its own, ``ip netns exec SW``): makes ``<prefix>t0..`` and moves them
into NS0.., prints ``ready NAME0 NAME1 ...``, and forwards until its stdin closes (the test that
started it ended, however it ended), it gets SIGTERM or SIGINT, or ``--seconds`` pass. On the way
out it prints one JSON line of counts and closes the TAPs, which removes them. Used by
test_lossy_network.py through :func:`lossy_lan`.
"""

from __future__ import annotations

import argparse
import fcntl
import heapq
import json
import os
import random
import select
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
#: Copies held at once, over every port: a flood beyond it is dropped (and counted), not queued.
MAX_HELD = 20000
#: Frames read from one port per pass of the loop, so that one busy port cannot starve the rest.
BURST = 64
FRAME = 65536
#: The longest the loop sleeps, so that a signal or a deadline is seen within it.
TICK = 0.05
SWITCH = str(Path(__file__).resolve())


@dataclass(frozen=True)
class Faults:
    """What the switch does to each copy of a frame."""

    loss: float = 0.0
    delay_ms: float = 0.0
    jitter_ms: float = 0.0
    reorder: float = 0.0
    reorder_ms: float = 0.0

    def args(self) -> list[str]:
        return [arg for key, value in asdict(self).items() for arg in (f"--{key.replace('_', '-')}", str(value))]


@dataclass
class Counts:
    frames: int = 0  # frames read from the ports
    copies: int = 0  # copies to send on (one per destination port)
    dropped: int = 0  # copies lost on purpose
    held_back: int = 0  # copies given the extra reorder hold
    overflow: int = 0  # copies dropped because MAX_HELD were queued
    sent: int = 0  # copies written to a port
    errors: int = 0  # writes the kernel refused (to a TAP its host has not set up yet: EIO)


@dataclass
class LossyCore:
    """The switch without its devices: frames in with the time they arrived, copies out when
    due. Pure and seeded, so a test can drive it with a clock of its own."""

    ports: int
    faults: Faults
    seed: int = 0
    max_held: int = MAX_HELD
    counts: Counts = field(default_factory=Counts)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._macs: dict[bytes, int] = {}
        self._held: list[tuple[float, int, int, bytes]] = []  # (due, order, port, frame)
        self._order = 0

    def receive(self, port: int, frame: bytes, now: float) -> None:
        """A frame read from ``port`` at ``now`` (seconds)."""
        self.counts.frames += 1
        if len(frame) < 14:
            return
        destination, source = frame[:6], frame[6:12]
        if not source[0] & 1:  # a multicast source is not an address to learn
            self._macs[source] = port
        known = self._macs.get(destination)
        if destination[0] & 1 or known is None:
            outs = [p for p in range(self.ports) if p != port]
        elif known == port:
            return  # both ends on one port: nothing to forward
        else:
            outs = [known]
        faults = self.faults
        for out in outs:
            self.counts.copies += 1
            if self._rng.random() < faults.loss:
                self.counts.dropped += 1
                continue
            hold = faults.delay_ms + self._rng.uniform(0.0, faults.jitter_ms)
            if self._rng.random() < faults.reorder:
                hold += faults.reorder_ms
                self.counts.held_back += 1
            if len(self._held) >= self.max_held:
                self.counts.overflow += 1
                continue
            self._order += 1
            heapq.heappush(self._held, (now + hold / 1000.0, self._order, out, frame))

    def next_due(self) -> float | None:
        return self._held[0][0] if self._held else None

    def due(self, now: float) -> list[tuple[int, bytes]]:
        """The copies whose time has come, in the order they are due."""
        ready = []
        while self._held and self._held[0][0] <= now:
            _, _, port, frame = heapq.heappop(self._held)
            ready.append((port, frame))
        return ready


def open_tap(name: str) -> int:
    """A new TAP device ``name`` (gone once the descriptor is closed); its descriptor."""
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI))
    except OSError:
        os.close(fd)
        raise
    return fd


def serve(fds: Sequence[int], core: LossyCore, deadline: float, stop: list[bool], watch: int | None) -> None:
    """Forward between ``fds`` until ``stop[0]``, ``deadline`` or EOF on ``watch``."""
    while not stop[0] and time.monotonic() < deadline:
        now = time.monotonic()
        nearest = core.next_due()
        wait = TICK if nearest is None else min(TICK, max(0.0, nearest - now))
        readable = [*fds, *([watch] if watch is not None else [])]
        try:
            ready, _, _ = select.select(readable, [], [], wait)
        except InterruptedError:
            continue
        now = time.monotonic()
        for fd in ready:
            if fd == watch:
                if not os.read(watch, 4096):
                    return  # whoever started us is gone
                continue
            port = fds.index(fd)
            for _ in range(BURST):
                try:
                    frame = os.read(fd, FRAME)
                except BlockingIOError:
                    break
                except OSError:
                    break  # the device is going away with its namespace
                core.receive(port, frame, now)
        for port, frame in core.due(time.monotonic()):
            try:
                os.write(fds[port], frame)
                core.counts.sent += 1
            except OSError:
                core.counts.errors += 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lossy_switch", description=__doc__.split("\n\n")[0])
    parser.add_argument("--netns", action="append", required=True, help="a host's namespace, one per port")
    parser.add_argument("--prefix", default=f"p2l{os.getpid() % 100000}", help="TAP names: <prefix>t<port>")
    parser.add_argument("--loss", type=float, default=0.0)
    parser.add_argument("--delay-ms", type=float, default=0.0)
    parser.add_argument("--jitter-ms", type=float, default=0.0)
    parser.add_argument("--reorder", type=float, default=0.0)
    parser.add_argument("--reorder-ms", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=600.0, help="stop after this long whatever happens")
    args = parser.parse_args(argv)
    faults = Faults(args.loss, args.delay_ms, args.jitter_ms, args.reorder, args.reorder_ms)
    names = [f"{args.prefix}t{i}" for i in range(len(args.netns))]
    if any(len(name) > 15 for name in names):
        parser.error("interface names are at most 15 characters: shorten --prefix")
    stop = [False]

    def stopping(signum, frame) -> None:
        stop[0] = True

    signal.signal(signal.SIGTERM, stopping)
    signal.signal(signal.SIGINT, stopping)
    fds: list[int] = []
    core = LossyCore(len(names), faults, args.seed)
    try:
        for name, ns in zip(names, args.netns):
            fds.append(open_tap(name))
            subprocess.run(["ip", "link", "set", name, "netns", ns], check=True, capture_output=True, timeout=30)
        print("ready", *names, flush=True)
        watch = None if os.isatty(0) else 0
        serve(fds, core, time.monotonic() + args.seconds, stop, watch)
    finally:
        for fd in fds:
            os.close(fd)
        print(json.dumps(asdict(core.counts)), flush=True)
    return 0


# -- for the tests -------------------------------------------------------------------------------


def subnet() -> str:
    """``10.77.x``, x from this process's id: two copies of the suite use different subnets (the
    addresses exist only inside the namespaces either way)."""
    return f"10.77.{1 + os.getpid() % 250}"


def _sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, text=True, timeout=30)


@dataclass(frozen=True)
class LossyLan:
    hosts: list[str]  # namespace names, one per host
    ips: list[str]  # the address of each host on its TAP
    switch: subprocess.Popen


@contextmanager
def lossy_lan(count: int, faults: Faults, *, tag: str = "", seed: int = 0, seconds: float = 300) -> Iterator[LossyLan]:
    """``count`` host namespaces at ``<subnet>.10..``, each with lo up and a TAP of the lossy
    switch, which runs in a namespace of its own. Every namespace, TAP and the switch are gone
    on the way out, whatever happened. Root only."""
    prefix = f"p2l{tag}{os.getpid() % 100000}"
    switch_ns = f"{prefix}sw"
    hosts = [f"{prefix}h{i}" for i in range(count)]
    base = subnet()
    ips = [f"{base}.{10 + i}" for i in range(count)]
    made: list[str] = []
    switch: subprocess.Popen | None = None
    try:
        for ns in [switch_ns, *hosts]:
            _sh("ip", "netns", "add", ns)
            made.append(ns)
            _sh("ip", "-n", ns, "link", "set", "lo", "up")
        command = ["ip", "netns", "exec", switch_ns, sys.executable, SWITCH, "--prefix", prefix, "--seed", str(seed)]
        command += [*faults.args(), "--seconds", str(seconds)]
        command += [arg for ns in hosts for arg in ("--netns", ns)]
        # stdin is a pipe this process holds: if the test dies, the switch sees EOF and stops.
        switch = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert switch.stdout is not None
        line = switch.stdout.readline().decode().split()
        if not line or line[0] != "ready":
            switch.kill()
            _, err = switch.communicate(timeout=30)
            raise RuntimeError(f"the lossy switch did not start: {line} {err.decode()[-1000:]}")
        for ns, tap, ip in zip(hosts, line[1:], ips):
            _sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", tap)
            _sh("ip", "-n", ns, "link", "set", tap, "up")
        yield LossyLan(hosts, ips, switch)
    finally:
        if switch is not None and switch.poll() is None:
            switch.terminate()
            try:
                switch.wait(10)
            except subprocess.TimeoutExpired:
                switch.kill()
                switch.wait()
        for ns in reversed(made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


def switch_counts(lan: LossyLan) -> dict:
    """The switch's counts, once it has stopped (after :func:`lossy_lan` has returned)."""
    assert lan.switch.stdout is not None
    lines = lan.switch.stdout.read().decode().splitlines()
    return json.loads(lines[-1]) if lines else {}


if __name__ == "__main__":
    sys.exit(main())

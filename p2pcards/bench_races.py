"""``scripts/bench-races``: are free-order races fair over a slow network?

Cal's BS with ``turn_mode=free``: once a set is placed every other seat answers it at any moment,
and the table orders concurrent answers from the signed log (protocol/table.md section 9). This
benchmark plays whole games between bot peers, each a process in its own network namespace on
a bridge (10.77.0.x, addresses that exist only inside namespaces this run makes), with every
peer-to-peer connection going through a relay that holds each chunk for ``D`` ms
(:mod:`p2pcards.net.relay`; the kernel here has no ``sch_netem``). The relay sits on its own
host of the bridge with one port per seat; each seat tells the others to dial its relay port
(``advertise``), so every frame between two seats takes one relay hop of ``D``.

Every peer notes (:mod:`p2pcards.net.races`) when its bot *acted* in each round (the end of its
human-like reaction time) and the order the table applied the answers in. Since protocol
version 8 answers are sealed: a bot's act is its commitment, the order is the commitments'
(their head echoes), and the answers are applied once every commitment is opened; the races
below are between commitments. A **race** is a round
with two or more answers that are not passes; the seat that acted first should win it (its
answer is applied first). The figure of issue 20 is the share of races whose first actor won,
among races where the first two actors acted more than one hop apart: more than ``D``, and more
than the *measured* hop, the median time from a bot acting to its answer being in another
peer's log (signing, the relay's ``D``, the receiver's checks). Each race is also classed:
*concurrent* when the second actor acted before the first one's answer was in its log (neither
had seen the other: the seat nearest the placer's left wins, rules.md I.29), else the second
answer must come after the first.

Needs root (to make namespaces); without it, says so and exits 2. Every wait is bounded, the
namespaces are removed whatever happens, and their names carry the process id (two runs can
coexist).
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["GameRaces", "Lan", "analyse", "lan", "main", "netns_unavailable", "play_game"]

SUBNET = "10.77.0"
RELAY_IP = f"{SUBNET}.2"
PEER_PORT = 7000  # each peer in its own namespace: always free there
GAME_SECONDS = 240.0
PORT_SECONDS = 30.0
VERIFY_SECONDS = 120.0
POLL = 0.05
SHARE_TARGET = 0.95
DELAYS_MS = (0, 20, 50)


def netns_unavailable() -> str | None:
    """Why this machine cannot build the namespaces, or None."""
    if os.geteuid() != 0:
        return "needs root to create network namespaces"
    if shutil.which("ip") is None:
        return "needs the 'ip' command (iproute2)"
    probe = f"p2pprobe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot create a network namespace here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, text=True, timeout=30)


@dataclass(frozen=True)
class Lan:
    """The namespaces of one run: ``relay`` at :data:`RELAY_IP`, ``hosts[i]`` at ``ips[i]``."""

    relay: str
    hosts: list[str]
    ips: list[str]


@contextmanager
def lan(peers: int, tag: str = "") -> Iterator[Lan]:
    """A bridge in its own namespace, a namespace for the relay and one per peer; all removed on
    the way out, whatever happened."""
    prefix = f"p2r{tag}{os.getpid() % 100000}"
    switch, relay = f"{prefix}sw", f"{prefix}rl"
    hosts = [f"{prefix}h{i}" for i in range(peers)]
    made: list[str] = []
    try:
        _sh("ip", "netns", "add", switch)
        made.append(switch)
        _sh("ip", "-n", switch, "link", "add", "br0", "type", "bridge")
        _sh("ip", "-n", switch, "link", "set", "br0", "up")
        ips = [f"{SUBNET}.{10 + i}" for i in range(peers)]
        for index, (ns, ip) in enumerate([(relay, RELAY_IP), *zip(hosts, ips)]):
            _sh("ip", "netns", "add", ns)
            made.append(ns)
            _sh("ip", "-n", ns, "link", "set", "lo", "up")
            _sh("ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", f"port{index}")
            _sh("ip", "-n", ns, "link", "set", f"port{index}", "netns", switch)
            _sh("ip", "-n", switch, "link", "set", f"port{index}", "master", "br0")
            _sh("ip", "-n", switch, "link", "set", f"port{index}", "up")
            _sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", "eth0")
            _sh("ip", "-n", ns, "link", "set", "eth0", "up")
        yield Lan(relay, hosts, ips)
    finally:
        for ns in reversed(made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


class GameError(RuntimeError):
    """A game did not run to the end."""


def _wait_for(path: Path, text: str, process: subprocess.Popen, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        content = path.read_text()
        if text in content:
            return content
        if process.poll() is not None:
            break
        time.sleep(POLL)
    raise GameError(f"no {text!r} from {path.name}: {path.read_text()[-500:]}")


def play_game(
    net: Lan,
    delay_ms: float,
    folder: Path,
    *,
    options: Mapping[str, str],
    bot: str = "strategic",
    reaction: float = 1.0,
    seconds: float = GAME_SECONDS,
) -> list[dict[str, Any]]:
    """One game over ``net`` with ``delay_ms`` on every hop; every peer's line, by seat."""
    folder.mkdir(parents=True, exist_ok=True)
    out, transcripts = folder / "races.jsonl", folder / "transcripts"
    peers = len(net.hosts)
    processes: list[subprocess.Popen] = []
    logs: list[Path] = []

    def start(ns: str, args: list[str], name: str) -> subprocess.Popen:
        log = folder / f"{name}.log"
        logs.append(log)
        with open(log, "wb") as handle:
            process = subprocess.Popen(
                ["ip", "netns", "exec", ns, sys.executable, "-m", *args],
                stdout=handle,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        processes.append(process)
        return process

    common = ["--bot", bot, "--reaction", str(reaction), "--out", str(out), "--transcript-dir", str(transcripts)]
    try:
        pairs = [f"{RELAY_IP}:{PEER_PORT + i}={ip}:{PEER_PORT}" for i, ip in enumerate(net.ips)]
        relay = start(
            net.relay,
            ["p2pcards.net.relay", "--delay-ms", str(delay_ms), "--seconds", str(seconds + PORT_SECONDS), *pairs],
            "relay",
        )
        _wait_for(logs[0], "ready", relay, PORT_SECONDS)
        options_args = [arg for key, value in options.items() for arg in ("--option", f"{key}={value}")]
        host = start(
            net.hosts[0],
            [
                "p2pcards.net.races",
                "host",
                "--seats",
                str(peers),
                *options_args,
                "--listen",
                f"{net.ips[0]}:{PEER_PORT}",
                "--advertise",
                f"{RELAY_IP}:{PEER_PORT}",
                "--name",
                "seat 0",
                *common,
            ],
            "seat0",
        )
        _wait_for(logs[1], "port ", host, PORT_SECONDS)
        for i in range(1, peers):
            start(
                net.hosts[i],
                [
                    "p2pcards.net.races",
                    "join",
                    "--table",
                    f"{RELAY_IP}:{PEER_PORT}",
                    "--listen",
                    f"{net.ips[i]}:{PEER_PORT}",
                    "--advertise",
                    f"{RELAY_IP}:{PEER_PORT + i}",
                    "--name",
                    f"seat {i}",
                    *common,
                ],
                f"seat{i}",
            )
        deadline = time.monotonic() + seconds
        while any(p.poll() is None for p in processes[1:]) and time.monotonic() < deadline:
            time.sleep(POLL)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.wait()
    failed = [(i, p.returncode) for i, p in enumerate(processes[1:], start=1) if p.returncode != 0]
    if failed:
        index, code = failed[0]
        raise GameError(f"{logs[index].stem} exited with {code}: {logs[index].read_text()[-800:]}")
    lines = sorted((json.loads(line) for line in out.read_text().splitlines()), key=lambda line: line["seat"])
    if [line["seat"] for line in lines] != list(range(peers)):
        raise GameError(f"expected one line per seat, got seats {[line['seat'] for line in lines]}")
    for line in lines:
        if line["status"] != "finished":
            raise GameError(f"seat {line['seat']}: {line['status']}")
    return lines


def verify_transcripts(lines: Sequence[Mapping[str, Any]]) -> str | None:
    """Why the game's transcripts do not verify (``p2pcards verify``) or differ; None if fine."""
    paths = [Path(line["transcript"]) for line in lines if line["transcript"]]
    if len(paths) != len(lines):
        return "a seat wrote no transcript"
    if len({path.read_bytes() for path in paths}) != 1:
        return "the seats' transcripts differ"
    exe = Path(sys.executable).with_name("p2pcards")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "p2pcards"]
    done = subprocess.run([*command, "verify", str(paths[0])], capture_output=True, text=True, timeout=VERIFY_SECONDS)
    return None if done.returncode == 0 else f"p2pcards verify: {(done.stdout + done.stderr)[-500:]}"


# -- the figures ---------------------------------------------------------------------------------


@dataclass
class Race:
    round: int
    first: int  # the seat that acted first
    second: int  # the next seat to act with an answer that is not a pass
    gap: float  # seconds between their acts
    winner: int  # the seat whose answer the table applied first
    #: Seconds from the first seat's act until its answer was in the second seat's log (from
    #: then on the second seat's own answer echoes it and comes after it).
    in_second_log: float | None

    @property
    def first_won(self) -> bool:
        return self.winner == self.first

    @property
    def concurrent(self) -> bool:
        """The second seat acted before the first one's answer was in its log: by the signed log
        neither saw the other, and the seat nearer the placer's left wins."""
        return self.in_second_log is None or self.gap < self.in_second_log


@dataclass
class GameRaces:
    races: list[Race] = field(default_factory=list)
    hops: list[float] = field(default_factory=list)  # act -> in another peer's log, every answer
    rounds: int = 0


def analyse(lines: Sequence[Mapping[str, Any]]) -> GameRaces:
    """The races of one game from its peers' lines (by seat)."""
    applied = [line["applied"] for line in lines]
    if any(a != applied[0] for a in applied):
        raise GameError("the peers applied free-order answers in different orders")
    figures = GameRaces(rounds=lines[0]["rounds"])
    acted: dict[int, dict[int, tuple[float, str]]] = {}
    for line in lines:
        for rnd, t, kind in line["decided"]:
            acted.setdefault(rnd, {})[line["seat"]] = (t, kind)
    # When each answer was in each other peer's log: the last delivery of its author's move at
    # that peer before the peer's session took the answer.
    deliveries: dict[tuple[int, int], list[float]] = {}  # (at seat, author) -> times, in order
    for line in lines:
        for t, author, _turn in line.get("delivered", ()):
            deliveries.setdefault((line["seat"], author), []).append(t)
    in_log: dict[tuple[int, int, int], float] = {}  # (round, author, at seat) -> time
    for line in lines:
        for rnd, t, author, _kind in line["responded"]:
            times = deliveries.get((line["seat"], author), [])
            index = bisect.bisect_right(times, t) - 1
            if author != line["seat"] and index >= 0:
                in_log[(rnd, author, line["seat"])] = times[index]
    for (rnd, author, _at), t in in_log.items():
        if author in acted.get(rnd, {}):
            figures.hops.append(t - acted[rnd][author][0])
    winners: dict[int, int] = {}
    for rnd, seat, kind in applied[0]:
        if kind != "pass":
            winners.setdefault(rnd, seat)
    for rnd, seats in sorted(acted.items()):
        answers = sorted((t, seat) for seat, (t, kind) in seats.items() if kind != "pass")
        if len(answers) < 2 or rnd not in winners:
            continue
        (t1, first), (t2, second) = answers[0], answers[1]
        arrival = in_log.get((rnd, first, second))
        figures.races.append(Race(rnd, first, second, t2 - t1, winners[rnd], None if arrival is None else arrival - t1))
    return figures


@dataclass
class DelayFigures:
    delay_ms: float
    games: int = 0
    finished: int = 0
    verified: int = 0
    races: list[Race] = field(default_factory=list)
    hops: list[float] = field(default_factory=list)
    rounds: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def hop(self) -> float | None:
        return statistics.median(self.hops) if self.hops else None

    def apart(self, threshold: float) -> tuple[int, int]:
        """Races whose first two acts are more than ``threshold`` seconds apart, and how many of
        them the first actor won."""
        far = [race for race in self.races if race.gap > threshold]
        return len(far), sum(race.first_won for race in far)

    def to_json(self) -> dict[str, Any]:
        over_d = self.apart(self.delay_ms / 1000)
        hop = self.hop
        over_hop = self.apart(hop) if hop is not None else (0, 0)
        return {
            "delay_ms": self.delay_ms,
            "games": self.games,
            "finished": self.finished,
            "verified": self.verified,
            "rounds": self.rounds,
            "races": len(self.races),
            "first_won": sum(r.first_won for r in self.races),
            "over_delay": over_d[0],
            "over_delay_first_won": over_d[1],
            "hop_ms": None if hop is None else round(hop * 1000, 1),
            "over_hop": over_hop[0],
            "over_hop_first_won": over_hop[1],
            "concurrent": sum(r.concurrent for r in self.races),
            "concurrent_first_won": sum(r.concurrent and r.first_won for r in self.races),
            "sequential": sum(not r.concurrent for r in self.races),
            "sequential_first_won": sum(not r.concurrent and r.first_won for r in self.races),
            "mismatches": [
                {
                    "gap_ms": round(r.gap * 1000, 1),
                    "first": r.first,
                    "second": r.second,
                    "winner": r.winner,
                    "concurrent": r.concurrent,
                    "in_second_log_ms": None if r.in_second_log is None else round(r.in_second_log * 1000, 1),
                }
                for r in self.races
                if not r.first_won
            ],
            "failures": self.failures,
        }


def _share(won: int, count: int) -> str:
    return f"{won}/{count} = {won / count:.0%}" if count else "-"


def table(rows: Sequence[DelayFigures]) -> str:
    head = (
        "delay",
        "games done",
        "verified",
        "rounds",
        "races",
        "hop (median)",
        "> delay apart: first won",
        "> hop apart: first won",
        "all races: first won",
        "2nd saw 1st: first won",
    )
    body = []
    for row in rows:
        data = row.to_json()
        body.append(
            (
                f"{row.delay_ms:g} ms",
                f"{row.finished}/{row.games}",
                f"{row.verified}/{row.games}",
                str(row.rounds),
                str(len(row.races)),
                "-" if data["hop_ms"] is None else f"{data['hop_ms']} ms",
                _share(data["over_delay_first_won"], data["over_delay"]),
                _share(data["over_hop_first_won"], data["over_hop"]),
                _share(data["first_won"], data["races"]),
                _share(data["sequential_first_won"], data["sequential"]),
            )
        )
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in [head, *body])


def run_delay(
    net: Lan,
    delay_ms: float,
    games: int,
    folder: Path,
    *,
    options: Mapping[str, str],
    bot: str,
    reaction: float,
    seconds: float = GAME_SECONDS,
    verify: bool = True,
    progress: Any = None,
) -> DelayFigures:
    figures = DelayFigures(delay_ms)
    for number in range(games):
        figures.games += 1
        try:
            lines = play_game(
                net,
                delay_ms,
                folder / f"d{delay_ms:g}-g{number}",
                options=options,
                bot=bot,
                reaction=reaction,
                seconds=seconds,
            )
            game = analyse(lines)
        except GameError as exc:
            figures.failures.append(str(exc))
            if progress:
                progress(f"{delay_ms:g} ms, game {number + 1}: {exc}")
            continue
        figures.finished += 1
        problem = verify_transcripts(lines) if verify else None
        if problem is None:
            figures.verified += 1
        else:
            figures.failures.append(problem)
        figures.races += game.races
        figures.hops += game.hops
        figures.rounds += game.rounds
        if progress:
            progress(
                f"{delay_ms:g} ms, game {number + 1}/{games}: {game.rounds} rounds, {len(game.races)} races"
                + ("" if problem is None else f"; {problem}")
            )
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench-races", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6, help="games per delay (default 6)")
    parser.add_argument("--delays", default=",".join(map(str, DELAYS_MS)), help="one-way delays in ms, e.g. 0,20,50")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--bot", default="strategic")
    parser.add_argument(
        "--reaction",
        type=float,
        default=0.1,
        help="scale of the bots' human-like reaction time (1: 0.3 to 1.5 s; default 0.1, "
        "acts close enough together to race often)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Cal's BS option (turn_mode=free and match_target=1 are set)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    parser.add_argument("--keep", type=Path, help="keep the peers' logs and transcripts in this folder")
    args = parser.parse_args(argv)
    # Stopped by a signal: leave through the finally blocks (peers killed, namespaces removed).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    reason = netns_unavailable()
    if reason:
        print(f"bench-races skipped: {reason}", file=sys.stderr)
        return 2
    options = {"turn_mode": "free", "match_target": "1", **dict(pair.split("=", 1) for pair in args.option)}
    delays = [float(d) for d in args.delays.split(",") if d.strip()]
    rows = []
    with tempfile.TemporaryDirectory(prefix="p2pcards-races-") as scratch:
        folder = args.keep or Path(scratch)
        with lan(args.players) as net:
            for delay in delays:
                rows.append(
                    run_delay(
                        net,
                        delay,
                        args.games,
                        folder,
                        options=options,
                        bot=args.bot,
                        reaction=args.reaction,
                        progress=lambda text: print(text, file=sys.stderr, flush=True),
                    )
                )
    print(table(rows))
    short = below_target(rows)
    for line in short:
        print(line)
    if args.json:
        print(json.dumps([row.to_json() for row in rows], indent=1))
    return 0 if all(row.finished == row.games == row.verified for row in rows) and not short else 1


def below_target(rows: Sequence[DelayFigures]) -> list[str]:
    """A line for each delay whose races more than a measured hop apart the first actor won
    less often than :data:`SHARE_TARGET` (the speed target; tests/net/test_races_netns.py only
    prints it: a loaded machine's deliveries take longer than the median hop)."""
    found = []
    for row in rows:
        data = row.to_json()
        count, won = data["over_hop"], data["over_hop_first_won"]
        if count and won / count < SHARE_TARGET:
            found.append(
                f"below target at {row.delay_ms:g} ms: the first actor won {_share(won, count)} "
                f"of the races more than a hop apart (target {SHARE_TARGET:.0%})"
            )
    return found


if __name__ == "__main__":
    raise SystemExit(main())

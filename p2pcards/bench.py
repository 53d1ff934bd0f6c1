"""``p2pcards bench``: how fast the deck is at a real table, next to its floor and the textbook.

Every game is played by bot peers in separate processes over loopback TCP (127.0.0.1 only): one
``python -m p2pcards.net.timings`` process per seat, which is ``p2pcards host --bot`` /
``p2pcards join --bot`` with a :class:`~p2pcards.net.timings.TimingRecorder` attached. Each peer
appends a line of ``CLOCK_MONOTONIC`` timestamps (one clock for the machine), and the figures
come from those lines:

* **setup**: from the first seed commitment any peer sends until the last peer has decoded its
  hand (its first ``deal`` event); the median over the games of a case;
* **floor**: one scalar multiplication, measured in the same run, times the multiplications on
  the protocol's critical path, (2N-1) x n;
* **baseline**: textbook SRA, ``pow`` with a 2048-bit exponent modulo the RFC 3526 2048-bit MODP
  prime in pure Python, on the same cards (as quadratic residues): one real locking pass over
  ``--sra-cards`` of them (every card in a full run), timed, and scaled to the same (2N-1) x n
  exponentiations;
* **moves**: from the moment a peer starts sending its action until every peer has applied it
  with the deck steps it causes (a Cal's BS face-down play; a doubt, its reveal and the pile
  pickup; a Calypso card played and revealed); the median over every such move of the case;
* **verify**: ``verify_file`` of the table's transcript, in this process (the best of
  ``VERIFY_REPEATS`` runs), next to its own floor: every pass recomputed and every card decoded
  once, (2N-1) x n + n multiplications per shuffle plus one per re-handled card; and the whole
  ``p2pcards verify`` command (a fresh interpreter loading the plugins);
* **bytes**: the frames each peer sent during the game (not the lobby); the transcript's size;
* **model, a machine per peer**: not measured at a table but modelled, for what this machine
  cannot show (its peers share two cores): the deck parties of the case's setup (commitments,
  nonces, one shuffle, a deal of every card round the table) in this process, each call of a
  party timed and placed on a virtual clock as if every party had a machine like this one to
  itself (:class:`~p2pcards.deck.local.LocalNetwork`), every message delayed by one *hop*: the
  session layer's cost of an entry carrying a whole pass (signing and encoding it, decoding,
  checking and verifying it: :func:`entry_hop_cost`, measured in the same run) plus ``--lan-ms``
  of network (default 1 ms, about a home Wi-Fi network's; a wired one is nearer 0.2). Twice:
  each peer's passes on this machine's threads, and on one thread, about what a pass that
  starts on a cold core gets here. It leaves out the engine, the journal, the scheduling of a
  real machine, and Calypso's cut and suit choices before its shuffle;
* **CPU**: the CPU time the peer processes used (user and system, all threads) for the setup and
  for each move, summed over the peers: each peer from the start (the first commitment; the
  mover's signing) until it had itself decoded its hand or applied the move, from samples each
  peer takes at every entry and event (so to within the work between two samples; other work
  going on meanwhile, such as a move that starts before the last peer applied the previous one,
  counts too). Divided by this machine's cores it is about the least time that work can take
  here, however well it is spread: when the time measured comes close to it, the peers' work,
  not their waiting for each other, sets the time, and only less work makes it shorter.

Every wait is bounded: a game that does not end within ``GAME_SECONDS`` is stopped (its
processes killed by their ids) and reported.
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import json
import math
import operator
import os
import platform
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CASES", "Case", "analyse_game", "judge_targets", "main", "sra_exponentiation_cost"]

GAME_SECONDS = 180.0
PORT_SECONDS = 30.0
VERIFY_SECONDS = 300.0
POLL = 0.02


#: The targets of the benchmark (docs/performance.md, "Against the targets"), judged on each run.
SETUP_TARGET = 1.2  # setup / floor, at most
BASELINE_TARGET = 100.0  # times faster than textbook SRA, at least (Calypso's 4 x 208)
MOVE_TARGET_MS = 5.0  # a move's median latency, under
VERIFY_TARGET = 1.5  # verify / its floor, at most (a whole Calypso game)
#: Issue 18 (proofs with every pass), per case: the setup's wall time with every peer on this
#: machine (ms, at most) and each peer's CPU for it (ms, at most: five times less than
#: LibTMCG's Groth-shuffle proofs measured on this kind of machine).
SETUP_WALL_TARGET_MS = {"bs3": 500.0, "calypso4": 4000.0}
SETUP_CPU_PER_PEER_TARGET_MS = {"bs7": 280.0, "calypso4": 1600.0}
_BOUNDS = {"<=": operator.le, ">=": operator.ge, "<": operator.lt}


@dataclass(frozen=True)
class Case:
    name: str
    game: str
    players: int
    options: Mapping[str, str]
    title: str
    #: The targets this case is judged on: "setup", "moves", "baseline", "verify".
    targets: frozenset[str] = frozenset({"setup", "moves"})


CASES: dict[str, Case] = {
    c.name: c
    for c in (
        Case("bs3", "cals-bs", 3, {"match_target": "1"}, "Cal's BS, 3 players"),
        Case("bs5", "cals-bs", 5, {"match_target": "1"}, "Cal's BS, 5 players"),
        Case("bs7", "cals-bs", 7, {"match_target": "1"}, "Cal's BS, 7 players"),
        # No target: a match of several hands, for the memory a peer holds as the log grows
        # (its peak and log entries against bs3's, issue 23).
        Case("bs3match", "cals-bs", 3, {"match_target": "3"}, "Cal's BS, 3 players, a match to 3", frozenset()),
        Case("calypso4", "calypso", 4, {}, "Calypso partnership", frozenset({"setup", "moves", "baseline", "verify"})),
        Case(
            "calypso3", "calypso", 3, {"mode": "three"}, "Calypso three-player", frozenset({"setup", "moves", "verify"})
        ),
        # No target: the one table this machine can host as if each peer had a machine (two
        # peers, one multiplying at a time), to check the modelled setup against a measured one.
        Case("eights2", "crazy-eights", 2, {}, "Crazy Eights, 2 players", frozenset()),
    )
}

#: The long match (``--case bs3long``): Cal's BS, 3 random bots, a match to this many hand wins
#: (about 2.9 hands a win: some 160 hands, 20 MB, the match of issue 31), verified by
#: ``p2pcards verify`` in a fresh process: its time (wall and CPU), throughput and peak memory.
#: Played once, in this process over 127.0.0.1 (about ten minutes here), and kept in the cache
#: folder (``--cache``).
LONG_CASE = "bs3long"
LONG_TARGET_WINS = 55
LONG_MIN_HANDS = 100
LONG_VERIFY_TARGETS = (("verify s (wall)", "<=", 15.0), ("peak MB", "<", 150.0), ("MB/s", ">=", 2.0))


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "p2pcards" / "bench"


def long_match_path(cache: Path) -> Path:
    """Where the long match's transcript is kept: named by the protocol and the game's rules
    version, so that a change of either plays it again."""
    from . import PROTOCOL_VERSION
    from .plugins import load_plugins

    rules = load_plugins().game("cals-bs").rules_version
    return cache / f"{LONG_CASE}-to{LONG_TARGET_WINS}-protocol{PROTOCOL_VERSION}-rules{rules}.p2pt"


def long_match(cache: Path, log: Callable[[str], None] = lambda _: None) -> Path:
    """The long match's transcript, played the first time (and whenever the protocol or the
    game's rules version changes) and kept in ``cache``."""
    path = long_match_path(cache)
    if path.exists():
        return path
    from .testing import run_loopback

    log(f"{LONG_CASE}: playing a match to {LONG_TARGET_WINS} hand wins over 127.0.0.1 (once; kept in {cache})")
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="p2pcards-bench-long-") as tmp:
        table = run_loopback(
            "cals-bs",
            3,
            {"match_target": str(LONG_TARGET_WINS)},
            seats="random",
            reaction=0.0,
            transcript_dir=tmp,
            time_limit=3600.0,
        )
        table.check()
        made = table.transcripts[0]
        assert made is not None, "a loopback table with a transcript folder saves one"
        partial = path.with_suffix(".part")
        partial.write_bytes(made.read_bytes())
        partial.replace(path)
    return path


_VERIFY_CHILD = """
import json, resource, sys, time
from p2pcards.verify import verify_file
wall, cpu = time.perf_counter(), time.process_time()
report = verify_file(sys.argv[1])
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({
    "verdict": report.verdict,
    "wall_s": wall,
    "cpu_s": cpu,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "hands": sum(event["kind"] == "shuffle" for event in report.timeline),
    "moves": report.checked.get("moves"),
    "entries": report.checked.get("entries"),
}))
"""


def run_long_case(cache: Path, log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Verify the long match in a fresh process (so its peak memory is its own): wall and CPU
    time (user and system, every thread), throughput over each, peak resident memory."""
    path = long_match(cache, log)
    size = path.stat().st_size
    log(f"{LONG_CASE}: verifying {path} ({size / 1e6:.1f} MB)")
    run = subprocess.run(
        [sys.executable, "-c", _VERIFY_CHILD, str(path)], capture_output=True, text=True, timeout=3600, check=False
    )
    if run.returncode != 0:
        raise BenchError(f"verify {path}: {run.stderr.strip()[-500:]}")
    figures = json.loads(run.stdout)
    if figures["verdict"] != "verified":
        raise BenchError(f"verify {path}: {figures['verdict']} (delete it to play the match again)")
    return {
        "case": LONG_CASE,
        "title": f"Cal's BS, 3 players, a match to {LONG_TARGET_WINS}",
        "transcript": str(path),
        "transcript_bytes": size,
        "hands": figures["hands"],
        "moves": figures["moves"],
        "entries": figures["entries"],
        "verify_s": round(figures["wall_s"], 3),
        "verify_cpu_s": round(figures["cpu_s"], 3),
        "mb_per_s": round(size / 1e6 / figures["wall_s"], 3),
        "mb_per_cpu_s": round(size / 1e6 / figures["cpu_s"], 3),
        "peak_rss_mb": round(figures["peak_rss_mb"], 1),
    }


def judge_long(row: Mapping[str, Any]) -> list[dict[str, Any]]:
    values = {"verify s (wall)": row["verify_s"], "peak MB": row["peak_rss_mb"], "MB/s": row["mb_per_s"]}
    out = [
        {
            "case": LONG_CASE,
            "target": name,
            "value": values[name],
            "bound": bound,
            "limit": limit,
            "met": _BOUNDS[bound](values[name], limit),
        }
        for name, bound, limit in LONG_VERIFY_TARGETS
    ]
    out.append(
        {
            "case": LONG_CASE,
            "target": "hands",
            "value": row["hands"],
            "bound": ">=",
            "limit": LONG_MIN_HANDS,
            "met": row["hands"] >= LONG_MIN_HANDS,
        }
    )
    return out


#: Move kinds measured, by game and action type; ``needs``: the deck steps the move must cause.
MOVES = {
    ("cals-bs", "play"): ("face_down_play", frozenset(), frozenset({"reveal", "transfer"})),
    ("cals-bs", "doubt"): ("doubt_reveal_pickup", frozenset({"reveal", "transfer"}), frozenset()),
    ("calypso", "play"): ("card_play_reveal", frozenset({"reveal"}), frozenset()),
}
MOVE_TITLES = {
    "face_down_play": "face-down play",
    "doubt_reveal_pickup": "doubt + reveal + pickup",
    "card_play_reveal": "card (play + reveal)",
}
#: Events that belong to the move before them (everything else starts the next step).
MOVE_EVENTS = {"reveal", "transfer", "progress", "error", "chat", "connection"}

# RFC 3526, section 3: the 2048-bit MODP group (a safe prime p = 2q + 1).
MODP_2048 = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
    "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
    "15728E5A8AACAA68FFFFFFFFFFFFFFFF",
    16,
)


class BenchError(RuntimeError):
    """A game of the benchmark did not run to the end."""


# -- the textbook baseline ------------------------------------------------------------------------


def sra_exponentiation_cost(labels: Sequence[str], sample: int) -> tuple[float, int]:
    """Seconds per SRA lock, from one real pass over ``sample`` of the cards: encode each card
    as a quadratic residue mod the 2048-bit MODP prime (so residuosity leaks nothing), shuffle,
    lock with a secret exponent coprime to p-1; check that the inverse exponent unlocks."""
    p = MODP_2048
    while True:
        e = secrets.randbits(2048) | 1
        if 1 < e < p - 1 and math.gcd(e, p - 1) == 1:
            break
    chosen = list(labels[:sample])
    cards = [pow(int.from_bytes(hashlib.sha512(label.encode()).digest() * 4, "big") % p, 2, p) for label in chosen]
    secrets.SystemRandom().shuffle(cards)
    began = time.perf_counter()
    locked = [pow(m, e, p) for m in cards]
    seconds = (time.perf_counter() - began) / len(cards)
    if pow(locked[0], pow(e, -1, p - 1), p) != cards[0]:
        raise AssertionError("SRA: the inverse exponent does not unlock")
    return seconds, len(cards)


# -- a machine per peer, modelled -----------------------------------------------------------------

#: The network's share of a hop in the model (``--lan-ms``): about a home Wi-Fi network's.
LAN_SECONDS = 0.001


def entry_hop_cost(points: int, repeat: int = 200) -> float:
    """Seconds the session layer adds to a hop, for an entry carrying a pass of ``points``: the
    sender signs and encodes it, a receiver decodes, checks and verifies it (the best of
    ``repeat``; the journal and the wire are not in it)."""
    from .wire import framing
    from .wire.identity import Identity
    from .wire.messages import Entry, sign_entry

    identity = Identity.generate()
    body = {
        "msg": {
            "type": "relock",
            "op": 1,
            "points": [secrets.token_bytes(32) for _ in range(points)],
            "commits": [secrets.token_bytes(32) for _ in range(points)],
        },
        "seen": [[seat, 3, secrets.token_bytes(32)] for seat in range(7)],
    }
    best = float("inf")
    for seq in range(repeat):
        began = time.perf_counter()
        entry = sign_entry(identity, table=bytes(16), sender=0, seq=seq, kind="deck", prev=bytes(32), body=body)
        received = Entry.from_wire(framing.decode(entry.wire_bytes))
        if not received.verify(identity.public):
            raise AssertionError("an entry signed here does not verify")
        best = min(best, time.perf_counter() - began)
    return best


#: Modelled setups per case; the median is reported (one run of a few tens of ms drifts with
#: the machine as much as the measured ones do).
MODEL_REPEATS = 5


def model_setup(players: int, cards: int, lan: float) -> dict[str, Any]:
    """The setup of ``players`` x ``cards`` with every peer on a machine like this one (see the
    module doc): the median of :data:`MODEL_REPEATS`. Twice: with this machine's threads for
    each pass, as when its cores are awake, and with one, about what a pass that starts on a
    cold core gets here (docs/performance.md, "What this machine allows")."""
    from .cores import WORKERS
    from .deck.bench import setup_benchmark

    hop = entry_hop_cost(cards) + lan

    def median(workers: int) -> float | None:
        return _median_ms(
            [
                setup_benchmark(players, cards, workers=workers, repeat=1, hop=hop)["critical_path"]
                for _ in range(MODEL_REPEATS)
            ]
        )

    return {
        "model_ms": median(WORKERS),
        "model_one_thread_ms": median(1),
        "model_hop_ms": round(hop * 1e3, 3),
        "model_lan_ms": round(lan * 1e3, 3),
        "model_threads": WORKERS,
    }


# -- running one game --------------------------------------------------------------------------------


def _wait_for_port(path: Path, process: subprocess.Popen, deadline: float) -> int:
    while time.monotonic() < deadline:
        for line in path.read_text().splitlines():
            if line.startswith("port "):
                return int(line.split()[1])
        if process.poll() is not None:
            break
        time.sleep(POLL)
    raise BenchError(f"the host did not open its table: {path.read_text()[-500:]}")


def play_game(case: Case, folder: Path, *, bot: str = "strategic") -> list[dict[str, Any]]:
    """One game, one process per seat; returns every peer's timing line, by seat."""
    folder.mkdir(parents=True, exist_ok=True)
    out, transcripts = folder / "timings.jsonl", folder / "transcripts"
    command = [sys.executable, "-m", "p2pcards.net.timings"]
    common = ["--bot", bot, "--out", str(out), "--transcript-dir", str(transcripts)]
    options = [arg for key, value in case.options.items() for arg in ("--option", f"{key}={value}")]
    processes: list[subprocess.Popen] = []
    logs: list[Path] = []

    def start(args: list[str]) -> subprocess.Popen:
        log = folder / f"peer{len(processes)}.log"
        logs.append(log)
        with open(log, "wb") as handle:
            process = subprocess.Popen(
                command + args + common, stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        processes.append(process)
        return process

    try:
        host = start(["host", "--game", case.game, "--seats", str(case.players), *options, "--name", "seat 0"])
        port = _wait_for_port(logs[0], host, time.monotonic() + PORT_SECONDS)
        for index in range(1, case.players):
            start(["join", "--port", str(port), "--name", f"seat {index}"])
        deadline = time.monotonic() + GAME_SECONDS
        while any(p.poll() is None for p in processes) and time.monotonic() < deadline:
            time.sleep(POLL)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    failed = [(i, p.returncode) for i, p in enumerate(processes) if p.returncode != 0]
    if failed:
        index, code = failed[0]
        raise BenchError(f"{case.name}: peer {index} exited with {code}: {logs[index].read_text()[-800:]}")
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    if sorted(line["seat"] for line in lines) != list(range(case.players)):
        raise BenchError(f"{case.name}: expected one timing line per seat, got {len(lines)}")
    for line in lines:
        if line["status"] != "finished":
            raise BenchError(f"{case.name}: seat {line['seat']}: {line['status']}")
    return sorted(lines, key=lambda line: line["seat"])


# -- reading the timing lines ------------------------------------------------------------------------


@dataclass
class GameFigures:
    setup: float  # first commitment sent .. every hand decoded
    setup_after_last_commit: float  # the last seat's commitment .. every hand decoded
    moves: dict[str, list[float]] = field(default_factory=dict)
    shuffles: int = 0
    rehandled: int = 0
    bytes_sent: list[int] = field(default_factory=list)
    peak_rss_kb: list[int] = field(default_factory=list)  # each peer process's, where known
    entries: list[int] = field(default_factory=list)  # each peer's log at the end
    syncs: list[float] = field(default_factory=list)  # every journal fsync of every peer
    transcript: Path | None = None
    setup_cpu: float | None = None  # CPU seconds of every peer during the setup, summed
    move_cpu: dict[str, list[float]] = field(default_factory=dict)  # the same, per move


def _first(items: Sequence[Sequence[Any]], kind: str) -> float:
    for item in items:
        if item[1] == kind:
            return item[0]
    raise BenchError(f"no {kind!r} in a timing line")


def _move_completions(game: str, events: Sequence[Sequence[Any]]) -> list[tuple[str | None, float]]:
    """Per action (in turn order): its kind (``None``: not measured) and when this peer had
    applied it with the deck steps it caused."""
    out: list[tuple[str | None, float]] = []
    index = 0
    while index < len(events):
        t, kind, info = events[index]
        index += 1
        if kind != "action":
            continue
        done, steps = t, set()
        while index < len(events) and events[index][1] in MOVE_EVENTS:
            if events[index][1] in ("reveal", "transfer"):
                done = events[index][0]
                steps.add(events[index][1])
            index += 1
        spec = MOVES.get((game, info[1]))
        name = None
        if spec is not None and spec[1] <= steps and not steps & spec[2]:
            name = spec[0]
        out.append((name, done))
    return out


@dataclass(frozen=True)
class CpuSamples:
    """One peer's CPU samples: at ``times[i]`` it had used ``used[i]`` seconds of CPU."""

    times: list[float]
    used: list[float]

    @classmethod
    def of(cls, lines: Sequence[Mapping[str, Any]]) -> list[CpuSamples] | None:
        """Every peer's samples, or None for lines written without them."""
        if not all(line.get("cpu") for line in lines):
            return None
        return [cls([t for t, _ in line["cpu"]], [c for _, c in line["cpu"]]) for line in lines]

    def spent(self, start: float, end: float) -> float:
        """CPU seconds used from ``start`` to ``end``, as the samples tell: from the last one at
        or before ``start`` (the first, if none) to the first at or after ``end`` (the last, if
        none)."""
        first = max(bisect.bisect_right(self.times, start) - 1, 0)
        last = min(bisect.bisect_left(self.times, end), len(self.times) - 1)
        return max(self.used[last] - self.used[first], 0.0)


def _all_peers_cpu(peers: list[CpuSamples] | None, start: float, ends: Sequence[float]) -> float | None:
    """Every peer's CPU from ``start`` until that peer was done (``ends``, one per peer): what
    a peer does after it has applied a move is the next move's work, not this one's."""
    if peers is None:
        return None
    return sum(peer.spent(start, end) for peer, end in zip(peers, ends, strict=True))


def analyse_game(lines: Sequence[Mapping[str, Any]]) -> GameFigures:
    """The figures of one game from its peers' timing lines (see the module doc)."""
    commits = [_first(line["sent"], "deck") for line in lines]
    hands = [_first(line["events"], "deal") for line in lines]
    dealt = max(hands)
    figures = GameFigures(dealt - min(commits), dealt - max(commits))
    cpu = CpuSamples.of(lines)
    figures.setup_cpu = _all_peers_cpu(cpu, min(commits), hands)
    game = lines[0]["game"]
    sent: dict[int, float] = {}
    for line in lines:
        for t, kind, turn in line["sent"]:
            if kind == "action":
                sent[turn] = t
    per_peer = [_move_completions(game, line["events"]) for line in lines]
    if len({len(moves) for moves in per_peer}) != 1 or len(sent) != len(per_peer[0]):
        raise BenchError("the peers applied different numbers of moves")
    for turn, name in enumerate(name for name, _ in per_peer[0]):
        if name is not None:
            done = [moves[turn][1] for moves in per_peer]
            figures.moves.setdefault(name, []).append(max(done) - sent[turn])
            spent = _all_peers_cpu(cpu, sent[turn], done)
            if spent is not None:
                figures.move_cpu.setdefault(name, []).append(spent)
    events = lines[0]["events"]
    figures.shuffles = sum(1 for e in events if e[1] == "shuffle")
    figures.rehandled = sum(e[2] for e in events if e[1] == "transfer")
    figures.bytes_sent = [line["bytes_sent"] for line in lines]
    figures.peak_rss_kb = [line["peak_rss_kB"] for line in lines if line.get("peak_rss_kB")]
    figures.entries = [line["entries"] for line in lines if line.get("entries")]
    figures.syncs = [seconds for line in lines for _, seconds in line.get("syncs", ())]
    figures.transcript = Path(lines[0]["transcript"]) if lines[0]["transcript"] else None
    return figures


# -- verification ---------------------------------------------------------------------------------


#: ``verify_file`` runs this many times on each transcript; the best counts, as for the cost of a
#: multiplication that its floor is made of (both then mean "with the machine to ourselves").
VERIFY_REPEATS = 3


def time_verify(path: Path) -> dict[str, Any]:
    """``verify_file`` in this process, and the ``p2pcards verify`` command, on one transcript."""
    from .verify import EXIT_VERIFIED, verify_file

    seconds = float("inf")
    for _ in range(VERIFY_REPEATS):
        began = time.perf_counter()
        report = verify_file(path)
        seconds = min(seconds, time.perf_counter() - began)
        if report.status != EXIT_VERIFIED:
            raise BenchError(f"verify {path}: {report.verdict}: {report.problem}")
    began = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "p2pcards", "verify", str(path)],
        capture_output=True,
        timeout=VERIFY_SECONDS,
        stdin=subprocess.DEVNULL,
    )
    command = time.perf_counter() - began
    if run.returncode != 0:
        raise BenchError(f"p2pcards verify {path} exited with {run.returncode}")
    return {"seconds": seconds, "command_seconds": command, "bytes": path.stat().st_size}


# -- the run -----------------------------------------------------------------------------------------


def _median_ms(values: Sequence[float]) -> float | None:
    return round(statistics.median(values) * 1e3, 3) if values else None


def _median_mb(kib: Sequence[int]) -> float | None:
    return round(statistics.median(kib) / 1024, 1) if kib else None


def _median_int(values: Sequence[int]) -> int | None:
    return int(statistics.median(values)) if values else None


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


def _per_core(cpu_ms: float | None) -> float | None:
    """About the least wall time ``cpu_ms`` of work can take on this machine's cores."""
    return round(cpu_ms / (os.cpu_count() or 1), 3) if cpu_ms is not None else None


def run_case(
    case: Case,
    *,
    games: int,
    mult_samples: int,
    sra_cards: int | None,
    folder: Path,
    bot: str = "strategic",
    log: Callable[[str], None] = lambda _: None,
    lan: float = LAN_SECONDS,
) -> dict[str, Any]:
    """One case. The cost of a multiplication is measured before and after its games (the
    machine's speed drifts, shared as it is) and the mean of the two is the floor's unit."""
    from .deck.bench import proof_costs, relock_proof_mults, scalar_mult_cost, setup_critical_mults, shuffle_proof_mults
    from .plugins import UnknownName, load_plugins

    mult_before = scalar_mult_cost(mult_samples)

    try:
        game = load_plugins().game(case.game)
    except UnknownName as exc:
        raise BenchError(f"case {case.name}: {exc}") from None
    deck = game.deck(game.resolve_options(dict(case.options), case.players), case.players)
    n, players = len(deck), case.players
    sra_op, sra_measured = sra_exponentiation_cost([c.label() for c in deck], sra_cards or n)
    critical = setup_critical_mults(players, n)
    played: list[GameFigures] = []
    verifies: list[dict[str, Any]] = []
    for index in range(games):
        log(f"{case.name}: game {index + 1} of {games}")
        figures = analyse_game(play_game(case, folder / f"{case.name}-{index}", bot=bot))
        played.append(figures)
        if figures.transcript is not None:
            verifies.append(time_verify(figures.transcript))
    mult = (mult_before + scalar_mult_cost(mult_samples)) / 2
    model = model_setup(players, n, lan)
    setup = _median_ms([g.setup for g in played])
    floor = critical * mult * 1e3
    baseline = critical * sra_op * 1e3
    moves: dict[str, Any] = {}
    for name in MOVE_TITLES:
        samples = [s for g in played for s in g.moves.get(name, [])]
        if samples:
            cpu = _median_ms([c for g in played for c in g.move_cpu.get(name, [])])
            moves[name] = {
                "median_ms": _median_ms(samples),
                "max_ms": round(max(samples) * 1e3, 3),
                "count": len(samples),
                "cpu_ms": cpu,
                "cpu_bound_ms": _per_core(cpu),
            }
    # verify's replay: every pass recomputed (2N x n) with its proof made again and checked
    # once, every card decoded once (n); a re-handled card: its multiplication, and its share
    # of a re-handling's proof made and checked (as a shuffle proof of one card, about).
    per_pass = sum(shuffle_proof_mults(n)) + sum(relock_proof_mults(n))
    verify_mults = statistics.median(g.shuffles * (players * (2 * n + per_pass) + n) + g.rehandled * 11 for g in played)
    verify_ms = _median_ms([v["seconds"] for v in verifies])
    setup_cpu = _median_ms([g.setup_cpu for g in played if g.setup_cpu is not None])
    verify_floor = verify_mults * mult * 1e3
    return {
        "case": case.name,
        "title": case.title,
        "game": case.game,
        "options": dict(case.options),
        "players": players,
        "cards": n,
        "games": games,
        "scalar_mult_us": round(mult * 1e6, 2),
        "median_ms": setup,
        "setup_samples_ms": [round(g.setup * 1e3, 3) for g in played],
        "setup_after_last_commit_ms": _median_ms([g.setup_after_last_commit for g in played]),
        "setup_cpu_ms": setup_cpu,
        "setup_cpu_per_peer_ms": round(setup_cpu / players, 3) if setup_cpu is not None else None,
        "proofs": proof_costs(players, n),
        "setup_cpu_bound_ms": _per_core(setup_cpu),
        "ratio_to_cpu_bound": _ratio(setup, _per_core(setup_cpu)),
        "critical_mults": critical,
        "floor_ms": round(floor, 3),
        "ratio_to_floor": _ratio(setup, floor),
        **model,
        "model_ratio_to_floor": _ratio(model["model_ms"], floor),
        "model_one_thread_ratio_to_floor": _ratio(model["model_one_thread_ms"], floor),
        "baseline_ms": round(baseline, 1),
        "baseline_cards_measured": sra_measured,
        "ratio_to_baseline": _ratio(setup, baseline),
        "times_faster_than_baseline": _ratio(baseline, setup),
        "moves": moves,
        "verify_ms": verify_ms,
        "verify_command_ms": _median_ms([v["command_seconds"] for v in verifies]),
        "verify_floor_ms": round(verify_floor, 3),
        "verify_ratio_to_floor": _ratio(verify_ms, verify_floor),
        "shuffles_per_game": statistics.median(g.shuffles for g in played),
        "transcript_bytes": int(statistics.median(v["bytes"] for v in verifies)) if verifies else None,
        "bytes_sent_per_peer": int(statistics.median(b for g in played for b in g.bytes_sent)),
        "peak_rss_mb_per_peer": _median_mb([kb for g in played for kb in g.peak_rss_kb]),
        "log_entries_per_peer": _median_int([n for g in played for n in g.entries]),
        "journal_fsync_median_ms": _median_ms([t for g in played for t in g.syncs]),
    }


def judge_targets(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each target of each case's row (``Case.targets``): the figure, how it must compare with
    its limit (``bound``) and whether this run met it. A figure the run did not measure (no such
    move in its games) is left out."""
    verdicts: list[dict[str, Any]] = []

    def judge(row: Mapping[str, Any], target: str, value: float | None, bound: str, limit: float) -> None:
        if value is not None:
            verdicts.append(
                {
                    "case": row["case"],
                    "target": target,
                    "value": value,
                    "bound": bound,
                    "limit": limit,
                    "met": _BOUNDS[bound](value, limit),
                }
            )

    for row in rows:
        case = CASES.get(row["case"])
        wanted = case.targets if case is not None else frozenset()
        if "setup" in wanted:
            judge(row, "setup x floor", row["ratio_to_floor"], "<=", SETUP_TARGET)
        if "baseline" in wanted:
            judge(row, "x faster than SRA", row["times_faster_than_baseline"], ">=", BASELINE_TARGET)
        if "moves" in wanted:
            for name, move in row["moves"].items():
                judge(row, f"{MOVE_TITLES[name]} ms", move["median_ms"], "<", MOVE_TARGET_MS)
        if "verify" in wanted:
            judge(row, "verify x floor", row["verify_ratio_to_floor"], "<=", VERIFY_TARGET)
        if row["case"] in SETUP_WALL_TARGET_MS:
            judge(row, "setup ms (all peers here)", row["median_ms"], "<=", SETUP_WALL_TARGET_MS[row["case"]])
        if row["case"] in SETUP_CPU_PER_PEER_TARGET_MS:
            judge(
                row,
                "setup CPU ms per peer",
                row.get("setup_cpu_per_peer_ms"),
                "<=",
                SETUP_CPU_PER_PEER_TARGET_MS[row["case"]],
            )
    return verdicts


def run(
    cases: Sequence[Case],
    *,
    quick: bool,
    games: int | None = None,
    bot: str = "strategic",
    log: Callable[[str], None] = lambda _: None,
    keep: Path | None = None,
    lan: float = LAN_SECONDS,
    long: bool = False,
    cache: Path | None = None,
) -> dict[str, Any]:
    """The whole benchmark; one JSON-ready object. ``keep``: leave each game's folder (its
    peers' timing lines, logs and transcripts) there instead of in a temporary one. ``long``:
    the long match's verification too (:func:`run_long_case`, its transcript in ``cache``)."""
    from nacl import __version__ as pynacl_version

    from .deck.bench import scalar_mult_cost

    games = games or (1 if quick else 5)
    if keep is not None and keep.exists() and any(keep.iterdir()):
        raise BenchError(f"{keep} is not empty (each game's timing lines would mix with older ones)")
    mult = scalar_mult_cost(500 if quick else 2000)
    log(f"one scalar multiplication: {mult * 1e6:.1f} us")
    rows = []
    with tempfile.TemporaryDirectory(prefix="p2pcards-bench-") as tmp:
        folder = Path(tmp) if keep is None else keep
        for case in cases:
            rows.append(
                run_case(
                    case,
                    games=games,
                    mult_samples=300 if quick else 1000,
                    sra_cards=8 if quick else None,
                    folder=folder,
                    bot=bot,
                    log=log,
                    lan=lan,
                )
            )
    long_row = run_long_case(cache or default_cache(), log) if long else None
    targets = judge_targets(rows) + (judge_long(long_row) if long_row is not None else [])
    return {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "pynacl": pynacl_version,
            "platform": platform.platform(),
        },
        "quick": quick,
        "games_per_case": games,
        "scalar_mult_us": round(mult * 1e6, 2),
        "sra_modulus_bits": MODP_2048.bit_length(),
        "cases": rows,
        "long_match": long_row,
        "targets": targets,
    }


def to_text(report: Mapping[str, Any]) -> str:
    lines = [
        f"one scalar multiplication: {report['scalar_mult_us']:.1f} us; {report['games_per_case']} game(s) per "
        f"case, every seat its own process over 127.0.0.1 (each case's floor uses the multiplication "
        f"measured around it: mult us)",
        "",
        f"{'case':<10} {'N x n':>8} {'mult us':>8} {'setup ms':>9} {'floor ms':>9} {'x floor':>8} {'CPU ms':>7}"
        f" {'/cores':>7} {'SRA ms':>9} {'x faster':>9} {'verify ms':>10} {'v.floor':>8} {'x floor':>8}"
        f" {'transcr KB':>10} {'KB/peer':>8} {'entries':>8} {'MB/peer':>8}",
    ]
    for r in report["cases"]:
        lines.append(
            f"{r['case']:<10} {r['players']:>3} x {r['cards']:<3} {r['scalar_mult_us']:8.1f} {r['median_ms']:9.1f}"
            f" {r['floor_ms']:9.1f} {r['ratio_to_floor']:8.2f}"
            f" {_fmt(r['setup_cpu_ms'], 7, 0)} {_fmt(r['setup_cpu_bound_ms'], 7, 0)}"
            f" {r['baseline_ms']:9.0f} {r['times_faster_than_baseline']:9.0f}"
            f" {_fmt(r['verify_ms'], 10, 1)} {r['verify_floor_ms']:8.1f} {_fmt(r['verify_ratio_to_floor'], 8, 2)}"
            f" {_fmt(r['transcript_bytes'] and r['transcript_bytes'] / 1024, 10, 0)}"
            f" {r['bytes_sent_per_peer'] / 1024:8.0f}"
            f" {_fmt(r.get('log_entries_per_peer'), 8, 0)} {_fmt(r.get('peak_rss_mb_per_peer'), 8, 1)}"
        )
    lines += [
        "",
        f"{'case':<10} {'move':<24} {'median ms':>10} {'max ms':>8} {'moves':>6} {'CPU ms':>7}"
        f" {'/cores':>7}   journal fsync",
    ]
    for r in report["cases"]:
        for name, m in r["moves"].items():
            lines.append(
                f"{r['case']:<10} {MOVE_TITLES[name]:<24} {m['median_ms']:10.2f} {m['max_ms']:8.2f}"
                f" {m['count']:6d} {_fmt(m['cpu_ms'], 7, 2)} {_fmt(m['cpu_bound_ms'], 7, 2)}"
                f"   {_fmt(r['journal_fsync_median_ms'], 6, 2)} ms median"
            )
    lines += [
        "",
        "The proofs (deck protocol 2), in this process, one thread; per peer: its two passes and "
        "their proofs, and the 2(N-1) proofs of the others checked; 'without': the passes alone "
        "(deck protocol 1, a row of this benchmark only):",
        f"{'case':<10} {'N x n':>8} {'shuffle B':>9} {'relock B':>8} {'prove ms':>9} {'check ms':>9}"
        f" {'with ms':>8} {'without':>8} {'x':>6} {'table CPU/peer':>14}",
    ]
    for r in report["cases"]:
        p = r["proofs"]
        lines.append(
            f"{r['case']:<10} {r['players']:>3} x {r['cards']:<3} {p['shuffle_proof_bytes']:9d}"
            f" {p['relock_proof_bytes']:8d} {p['peer_prove_ms']:9.1f} {p['peer_verify_ms']:9.1f}"
            f" {p['peer_passes_with_proofs_ms']:8.1f} {p['peer_passes_without_proofs_ms']:8.1f}"
            f" {p['proof_cost_ratio']:6.1f} {_fmt(r.get('setup_cpu_per_peer_ms'), 14, 1)}"
        )
    lines += [
        "",
        "CPU ms: the peers' CPU time for the setup or the move, summed (each until it was done); "
        f"/cores: that divided by this machine's {report['machine']['cpus']} cores, about the least "
        "time that work can take here.",
    ]
    first = report["cases"][0] if report["cases"] else None
    if first is not None:
        lines += [
            "",
            f"Modelled, not measured: the setup with every peer on a machine like this one "
            f"({first['model_threads']} threads each) and {first['model_lan_ms']:g} ms of network a hop "
            "(the deck parties in one process on a virtual clock; no engine or journal):",
            f"{'case':<10} {'N x n':>8} {'hop ms':>7} {'setup ms':>9} {'x floor':>8} {'1 thread':>9} {'x floor':>8}",
        ]
        for r in report["cases"]:
            lines.append(
                f"{r['case']:<10} {r['players']:>3} x {r['cards']:<3} {r['model_hop_ms']:7.2f}"
                f" {r['model_ms']:9.1f} {r['model_ratio_to_floor']:8.2f}"
                f" {r['model_one_thread_ms']:9.1f} {r['model_one_thread_ratio_to_floor']:8.2f}"
            )
        lines.append(
            "(1 thread: each peer's multiplications in one thread, about what a pass that starts on "
            "a cold core gets here.)"
        )
    long_row = report.get("long_match")
    if long_row:
        lines += [
            "",
            f"The long match ({long_row['title']}), 'p2pcards verify' in a fresh process: "
            "wall time, CPU time (user and system, every thread), throughput over each, peak memory:",
            f"{'case':<10} {'hands':>6} {'moves':>6} {'MB':>6} {'verify s':>9} {'CPU s':>7} {'MB/s':>6}"
            f" {'MB/CPU s':>9} {'peak MB':>8}",
            f"{long_row['case']:<10} {long_row['hands']:6d} {long_row['moves'] or 0:6d}"
            f" {long_row['transcript_bytes'] / 1e6:6.1f} {long_row['verify_s']:9.2f} {long_row['verify_cpu_s']:7.2f}"
            f" {long_row['mb_per_s']:6.2f} {long_row['mb_per_cpu_s']:9.2f} {long_row['peak_rss_mb']:8.1f}",
        ]
    if report.get("targets"):
        lines += [
            "",
            "Against the targets, in this run (a move's figure is its median):",
            f"{'case':<10} {'target':<30} {'value':>8} {'limit':>7}  verdict",
        ]
        for t in report["targets"]:
            lines.append(
                f"{t['case']:<10} {t['target']:<30} {t['value']:8.2f} {t['bound']:>2} {t['limit']:<4g}"
                f"  {'met' if t['met'] else 'NOT MET'}"
            )
    return "\n".join(lines)


def _fmt(value: float | None, width: int, digits: int) -> str:
    return f"{value:{width}.{digits}f}" if value is not None else f"{'-':>{width}}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="one game per case, a small SRA sample")
    parser.add_argument(
        "--case",
        action="append",
        choices=sorted([*CASES, LONG_CASE]),
        metavar="NAME",
        help=f"only this case (repeatable): {', '.join([*CASES, LONG_CASE])} (the long match's verification; "
        "not with --quick unless named)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        metavar="DIR",
        help="where the long match's transcript is kept once played (default: ~/.cache/p2pcards/bench)",
    )
    parser.add_argument("--games", type=int, help="games per case (default 5, --quick 1)")
    parser.add_argument("--bot", default="strategic", help="the bots that play every seat")
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep each game's timing lines, peer logs and transcripts in DIR/CASE-GAME",
    )
    parser.add_argument(
        "--lan-ms",
        type=float,
        default=LAN_SECONDS * 1e3,
        metavar="MS",
        help="the network's share of a hop in the modelled setup (default: %(default)g)",
    )


def run_from_args(args: argparse.Namespace) -> int:
    if args.games is not None and not 1 <= args.games <= 100:
        raise ValueError("--games takes 1 to 100")
    if not 0 <= args.lan_ms <= 1000:
        raise ValueError("--lan-ms takes 0 to 1000")
    cases = [CASES[name] for name in args.case if name in CASES] if args.case else list(CASES.values())
    long = LONG_CASE in args.case if args.case else not args.quick
    progress = (lambda text: print(text, file=sys.stderr, flush=True)) if not args.json else (lambda _: None)
    try:
        report = run(
            cases,
            quick=args.quick,
            games=args.games,
            bot=args.bot,
            log=progress,
            keep=args.keep,
            lan=args.lan_ms / 1e3,
            long=long,
            cache=args.cache,
        )
    except BenchError as exc:
        print(f"p2pcards bench: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(report, indent=2) if args.json else to_text(report))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="p2pcards bench", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run_from_args(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())

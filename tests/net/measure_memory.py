"""What one peer holds after a Cal's BS match, by owner, and how ``verify`` scales
(docs/performance.md, "Memory over a long match"): loopback only, random bots, every seat a
peer of its own in this process, each with its journal on disk as ``p2pcards host``/``join``
keep it.

    .venv/bin/python -m tests.net.measure_memory 1 3 9          # match targets (hand wins)
    .venv/bin/python -m tests.net.measure_memory 9 --players 5 --timings
    .venv/bin/python -m tests.net.measure_memory 9 --party-first   # the deck party's rows first

Prints a JSON line per match: hands, entries, the bytes seat 0's peer holds (``sys.getsizeof``
summed over every object reached from it, each counted once, for the first owner that reaches
it, in the order below; with ``--party-first`` the deck party's rows come first, so that
what it shares with the log counts as its own), per entry and per hand; with ``--timings``,
``verify_file`` of seat 0's transcript, and reading the whole log back in canonical order
(``read_back_ms``: from the spill file, as the final transcript does). (The deck audit's
timings went with the audit: protocol version 12 has no end-of-game recomputation.)
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any

import trio

from p2pcards.deck.party import ShuffleOp
from p2pcards.net.runner import play_local_table
from p2pcards.testing.loopback import LoopbackTable, _agents, _host_for
from p2pcards.verify import verify_file

_NOT_OWNED = (type, types.ModuleType, types.BuiltinFunctionType, types.CodeType, types.FrameType)


def held(roots: list[Any], seen: set[int]) -> tuple[int, int]:
    """(bytes, objects) reachable from ``roots`` and not in ``seen`` (which grows)."""
    size = count = 0
    stack = list(roots)
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _NOT_OWNED):
            continue
        seen.add(id(obj))
        if isinstance(obj, types.MethodType):
            continue  # its object is counted by its own owner
        size += sys.getsizeof(obj)
        count += 1
        if isinstance(obj, types.FunctionType):  # its closure, not its module's globals
            for cell in obj.__closure__ or ():
                try:
                    stack.append(cell.cell_contents)
                except ValueError:
                    pass
            continue
        stack.extend(gc.get_referents(obj))
    return size, count


def owners(peer: Any, party_first: bool = False) -> dict[str, tuple[int, int]]:
    log, party, session = peer.log, peer.party, peer.session
    entries = list(log.in_memory())  # those held decoded (not spilled)
    seen = {id(peer)}
    held([peer.game, peer.identity, peer.header, peer.header_wire], seen)  # shared, not the peer's
    cached = [e.__dict__.get(name) for e in entries for name in ("signed_bytes", "wire_bytes")]
    groups = {
        "log: decoded bodies": [e.body for e in entries],
        "log: encoded bytes": [b for b in cached if b is not None],
        "log: entries' other fields": entries,
        "log: the rest (hashes, echo counts, spill index)": [log],
        "party: pass messages": [party.transcript],
        "party: finished hands' messages (store)": [getattr(party, "store", None)],
        "party: finished hands (packed)": [getattr(party, "_finished", None), getattr(party, "_old_keys", None)],
        "party: cards": [party.cards_by_handle],
        "party: keys seen": [party._public_keys, party._seen_scalars],
        "party: openings due": [party._expected_openings],
        "party: the rest": [party],
        "session: events": [session.history],
        "session: replica actions": [session.replica.actions],
        "session: replica state (the game's)": [session.replica],
        "session: the rest": [session],
        "protocol, deck, seats, spectators, journal": [peer.protocol, peer.deck, peer.spectators, peer.journal],
        "peer: the rest": list(vars(peer).values()),
    }
    if party_first:
        groups = {k: v for k, v in groups.items() if k.startswith("party")} | {
            k: v for k, v in groups.items() if not k.startswith("party")
        }
    return {name: held(roots, seen) for name, roots in groups.items()}


async def match(target: int, players: int, folder: Path) -> LoopbackTable:
    host, game = _host_for("cals-bs")
    options = game.resolve_options({"match_target": target}, players)
    outcomes = await play_local_table(
        host,
        game.id,
        players=players,
        options=options,
        agents=_agents(host, game, "random", players, target, 0.0),
        transcript_dir=folder / "transcripts",
        # Up to 2 s for the last results (a seat leaves as soon as it holds every seat's): with
        # 0.2 s, seven seats on two busy cores sometimes left before a result reached them, and
        # their transcripts differed (so did the code before issue 23's spill).
        linger=2.0,
        persist=True,
        state_home=folder / "home",
    )
    return LoopbackTable(game.id, options, outcomes)


def measure(target: int, players: int, timings: bool, party_first: bool = False) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="p2pcards-memory-") as tmp:
        began = time.perf_counter()
        table = trio.run(match, target, players, Path(tmp))
        table.check()
        seconds = time.perf_counter() - began
        peer = table.outcomes[0].peer
        gc.collect()
        by_owner = owners(peer, party_first)
        total = sum(size for size, _ in by_owner.values())
        hands = sum(isinstance(op, ShuffleOp) for op in peer.party.ops)
        row: dict[str, Any] = {
            "players": players,
            "match_target": target,
            "hands": hands,
            "entries": len(peer.log),
            "spilled": peer.log.spilled,
            "seconds": round(seconds, 1),
            "held_kB": round(total / 1e3),
            "per_entry_B": round(total / len(peer.log)),
            "per_hand_kB": round(total / hands / 1e3),
            "owners_kB": {name: round(size / 1e3, 1) for name, (size, _) in by_owner.items()},
        }
        if timings:
            started = time.perf_counter()
            assert sum(1 for _ in peer.log.closed()) <= len(peer.log)  # read back from the spill
            row["read_back_ms"] = round((time.perf_counter() - started) * 1e3)
            transcript = table.transcripts[0]
            assert transcript is not None
            started = time.perf_counter()
            report = verify_file(transcript)
            row["verify_ms"] = round((time.perf_counter() - started) * 1e3)
            row["verify"] = report.verdict
            row["transcript_kB"] = round(transcript.stat().st_size / 1e3)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", type=int, default=[1, 3, 9], help="match targets (hand wins)")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--timings", action="store_true", help="time verify and reading the log back too")
    parser.add_argument("--party-first", action="store_true", help="count the deck party's rows before the log's")
    args = parser.parse_args()
    for target in args.targets:
        print(json.dumps(measure(target, args.players, args.timings, args.party_first)), flush=True)


if __name__ == "__main__":
    main()

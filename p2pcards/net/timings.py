"""Timing one bot peer of a networked table, for ``p2pcards bench``.

:class:`TimingRecorder` watches a :class:`~p2pcards.net.peer.Peer` through the ``on_peer`` hook of
:func:`~p2pcards.net.runner.host_table` and :func:`~p2pcards.net.runner.join_table` and changes
nothing: it reads the session's events, notes when the peer starts sending each of its own signed
entries, when each entry of another seat arrives and how long each journal fsync takes, and reads
the connections' byte counters at the end.

``python -m p2pcards.net.timings host|join ...`` runs one bot peer on 127.0.0.1, exactly as
``p2pcards host --bot`` / ``p2pcards join --bot`` do (the same runner calls), and appends its
line to ``--out`` when the game ends. The benchmark starts one such process per seat.

Times are ``time.monotonic()`` seconds. On Linux that is ``CLOCK_MONOTONIC``, one clock for the
whole machine, so lines written by peers in different processes of one computer compare directly
(never across computers). A line holds:

``seat``, ``players``, ``game``, ``table`` (hex), ``status`` (``finished`` or why not),
``sent``: ``[[t, kind, turn], ...]`` for each entry this seat signed and sent (``t`` just before
signing; ``turn`` for an action, else null; the first ``deck`` entry is the seed commitment),
``received``: ``[[t, seat, seq, kind], ...]`` for each entry another seat sent, when it reached
the log (after its frame was read); ``syncs``: ``[[t, seconds], ...]`` for each fsync of the journal,
``events``: ``[[t, kind, info], ...]`` for each session event (``info``: the op of a
``progress`` event, ``[seat, action type]`` of an ``action``, the number of cards of a
``shuffle``, ``deal`` or ``transfer``, else null),
``cpu``: ``[[t, seconds], ...]``, the CPU time this process has used so far (user and system,
every thread: ``time.process_time()``), sampled when the recorder is attached and at every entry
sent, entry received and session event, so that the benchmark can tell how much work every
peer did between two moments; ``bytes_sent`` and ``bytes_received`` over the game's connections
(the game phase, not the lobby), ``transcript`` (its path), ``entries`` (in this peer's log
at the end) and ``peak_rss_kB`` (the most memory the process held, KiB; null where unknown).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["LOOPBACK", "TimingRecorder", "main"]

LOOPBACK = "127.0.0.1"


class TimingRecorder:
    """Watches one peer; pass :meth:`attach` as the runner's ``on_peer``."""

    def __init__(self, clock=time.monotonic, cpu_clock=time.process_time):
        self.clock = clock
        self.cpu_clock = cpu_clock
        self.cpu: list[list[float]] = []
        self.peer: Any = None
        self.sent: list[list[Any]] = []
        self.received: list[list[Any]] = []
        self.syncs: list[list[float]] = []
        self.events: list[list[Any]] = []

    def attach(self, peer: Any) -> None:
        self.peer = peer
        self._sample_cpu()
        peer.session.subscribe(self._on_event)
        publish = peer._publish  # every entry this peer signs passes through here

        async def timed_publish(items: Any) -> Any:
            began = self._sample_cpu()
            entries = await publish(items)
            for entry in entries:
                turn = entry.body.get("turn") if entry.kind == "action" else None
                self.sent.append([began, entry.kind, turn])
            return entries

        peer._publish = timed_publish  # an instance attribute: this peer only, same behaviour
        # Every entry from the wire goes through the table protocol's accept (a frame's message
        # is parsed by TableProtocol.receive, then accepted): time it there.
        accept = peer.protocol.accept

        def timed_accept(entry: Any, **kwargs: Any) -> Any:
            self.received.append([self._sample_cpu(), entry.sender, entry.seq, entry.kind])
            return accept(entry, **kwargs)

        peer.protocol.accept = timed_accept
        journal = peer.journal
        if journal is not None:
            fsync = journal.fsync

            def timed_fsync() -> None:  # in the peer's worker thread
                began = self.clock()
                fsync()
                self.syncs.append([began, self.clock() - began])

            journal.fsync = timed_fsync

    def _on_event(self, event: Any) -> None:
        data = event.data
        info: Any = None
        if event.kind == "progress":
            info = event.text
        elif event.kind == "action":
            info = [data.get("seat"), (data.get("action") or {}).get("type")]
        elif event.kind == "shuffle":
            info = data.get("cards")
        elif event.kind in ("deal", "transfer"):
            info = len(data.get("handles", ()))
        self.events.append([self._sample_cpu(), event.kind, info])

    def _sample_cpu(self) -> float:
        """Note the process's CPU time now (about a microsecond); returns the time."""
        now = self.clock()
        self.cpu.append([now, self.cpu_clock()])
        return now

    def to_json(self, outcome: Any) -> dict[str, Any]:
        peer = self.peer
        connections = list(peer.connections.values())
        if outcome.aborted is not None:
            status = f"aborted: {outcome.aborted.reason}"
        else:
            status = "finished" if outcome.result is not None else "no result"
        return {
            "seat": peer.seat,
            "players": peer.header.players,
            "game": peer.header.game,
            "table": peer.header.table.hex(),
            "pid": os.getpid(),
            "clock": "monotonic",
            "status": status,
            "sent": self.sent,
            "received": self.received,
            "syncs": self.syncs,
            "events": self.events,
            "cpu": self.cpu,
            "bytes_sent": sum(c.bytes_sent for c in connections),
            "bytes_received": sum(c.bytes_received for c in connections),
            "transcript": str(outcome.transcript) if outcome.transcript else None,
            "entries": len(peer.log),
            "peak_rss_kB": peak_rss_kb(),
        }

    def write(self, path: Path, outcome: Any) -> None:
        append_line(path, self.to_json(outcome))


def append_line(path: Path, data: Any) -> None:
    """Append ``data`` as a JSON line with one ``write`` (the peers share the file; lines never mix)."""
    line = (json.dumps(data, separators=(",", ":")) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def peak_rss_kb() -> int | None:
    """The most memory this process has held so far (its peak resident set), in KiB; ``None``
    where the system does not say (Windows)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak  # bytes on macOS, KiB elsewhere


# -- the bot peer process ---------------------------------------------------------------------------


def peer_parser(prog: str, description: str, *, name: str) -> argparse.ArgumentParser:
    """The arguments every benchmark's bot peer process takes (this one's, and the free-order
    races' in net/races.py): its role, the game, its bot, its name and where to write."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("role", choices=("host", "join"))
    parser.add_argument("--game", default="cals-bs", help="host: the game id")
    parser.add_argument("--seats", type=int, help="host: number of seats")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="host: a game option")
    parser.add_argument("--bot", default="strategic", help="the bot that plays this seat")
    parser.add_argument("--name", default=name, help="this seat's name")
    parser.add_argument("--out", required=True, type=Path, help="append this peer's line here")
    parser.add_argument("--transcript-dir", required=True, type=Path)
    return parser


async def run_peer(
    host: Any,
    args: argparse.Namespace,
    agent: Any,
    *,
    on_peer: Any,
    listen: tuple[str, int],
    table: tuple[str, int],
    advertise: tuple[str, int] | None = None,
) -> Any:
    """Play the bot peer that :func:`peer_parser`'s ``args`` describe (``host``: the plugins):
    the host of a new table listening on ``listen`` (it prints ``port N`` once it does), or a
    joiner of the table at ``table``. ``advertise``: the address the others dial for this seat
    (a relay's), else ``listen``. Its seat's outcome."""
    from ..wire.identity import Identity
    from .runner import host_table, join_table

    if args.role == "host":
        options = dict(pair.split("=", 1) for pair in args.option)
        outcomes = await host_table(
            host,
            Identity.generate(),
            args.game,
            options=options,
            players=args.seats,
            agent=agent,
            name=args.name,
            interface=listen[0],
            port=listen[1],
            announce=False,
            transcript_dir=args.transcript_dir,
            advertise=advertise,
            on_port=lambda port: print(f"port {port}", flush=True),
            on_peer=on_peer,
        )
        return outcomes[0]
    return await join_table(
        host,
        Identity.generate(),
        *table,
        name=args.name,
        agent=agent,
        listen_host=listen[0],
        listen_port=listen[1],
        advertise=advertise,
        transcript_dir=args.transcript_dir,
        on_peer=on_peer,
    )


def _parser() -> argparse.ArgumentParser:
    parser = peer_parser("python -m p2pcards.net.timings", __doc__.splitlines()[0], name="bench")
    parser.add_argument("--port", type=int, default=0, help="join: the host's port on 127.0.0.1")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """One bot peer on 127.0.0.1. The host prints ``port N`` once it listens."""
    import trio

    from ..plugins import load_plugins
    from .runner import bot_agent

    args = _parser().parse_args(argv)
    host = load_plugins()
    recorder = TimingRecorder()
    rng = random.Random()

    def agent(game: Any, seat: int, options: Any) -> Any:
        return bot_agent(host, game, args.bot, rng)(game, seat, options)

    async def run() -> Any:
        return await run_peer(
            host, args, agent, on_peer=recorder.attach, listen=(LOOPBACK, 0), table=(LOOPBACK, args.port)
        )

    profile_dir = os.environ.get("P2PCARDS_PROFILE_DIR")
    if profile_dir:  # profile this peer (docs/performance.md, "Profiling a peer")
        import cProfile

        profiler = cProfile.Profile(time.thread_time)
        outcome = profiler.runcall(trio.run, run)
        Path(profile_dir).mkdir(parents=True, exist_ok=True)
        profiler.dump_stats(Path(profile_dir) / f"{args.role}-{os.getpid()}.prof")
    else:
        outcome = trio.run(run)
    recorder.write(args.out, outcome)
    if outcome.aborted is not None:
        print(f"aborted: {outcome.aborted.reason}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

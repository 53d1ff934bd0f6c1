"""Run one networked table over loopback TCP (127.0.0.1 only, no zeroconf) with one deviating
peer among honest bot peers, and collect what every honest peer ended with.

Every seat is a full :class:`~p2pcards.net.peer.Peer` with its own keys, its own listener and a
connection to every other seat, exactly as ``p2pcards simulate`` runs them; only the cheater's
seat is built by its ``peer_factory`` (the hook on :func:`~p2pcards.net.table.play_seat`).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import inspect
import io
import json
import random
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from p2pcards.cli import main as cli_main
from p2pcards.net.lobby import HostedLobby, LobbyResult, host_lobby, join_lobby
from p2pcards.net.peer import Peer
from p2pcards.net.runner import bot_agent
from p2pcards.net.table import SeatOutcome, play_seat
from p2pcards.plugins import load_plugins
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.identity import Identity
from p2pcards.wire.transcript import Transcript, read_transcript

LOOPBACK = "127.0.0.1"
#: Step timeouts of honest play in these tests: short, so a stall is named quickly, and far
#: above what an honest step of these small games takes on loopback.
FAST = Timeouts(deck=4.0, turn=4.0, grace=0.5)
#: After its own game ends a seat keeps serving the others this long (play_seat's linger).
LINGER = 1.5
#: No table may take longer than this (a hang is a failure, not a stuck test run). Under
#: ``virtual_time`` these are virtual seconds.
TABLE_SECONDS = 40.0
#: Under ``virtual_time``, the watchdog in real seconds for a seat that loops without ever
#: waiting (virtual time then stands still). Only a hang trips it: a long match on a loaded
#: machine (7 engineers' suites on 2 cores) took over 40 real seconds of crypto.
REAL_SECONDS = 240.0
#: Under ``virtual_time`` every bot thinks this long (virtual seconds) before each move. The
#: deck's crypto and the bots then take no time at all, so without it a whole game would pass
#: at one instant; a cheater that watches the table (polling every few milliseconds, as most
#: do) would never see the turn it waits for. In real seconds the CPU time did this.
VIRTUAL_THINK = 0.05
#: Under ``virtual_time``, the clock jumps after the run has been idle this long in real
#: seconds (pytest-trio's ``autojump_clock`` uses 0). With 0, 4 runs in 15 of one test failed
#: and two tables hit their limit, seats timing out on what was about to arrive: most likely the
#: clock jumped while a message was still on its way through loopback or the journal's fsync
#: thread ran. With 2 ms of real idleness it passed 12 runs in 12. (The fsync thread was the
#: cause of a table that ran out its 120 virtual seconds under load: on a virtual clock the
#: peers now do such work in the loop, net/threads.py.)
AUTOJUMP_THRESHOLD = 0.002


@functools.cache
def plugins():
    return load_plugins()


@dataclass
class TableRun:
    """What one table ended with. ``outcomes[seat]`` is None for the cheater when it never
    finished (it is cancelled once every honest seat is done)."""

    game: str
    cheater: int
    outcomes: dict[int, SeatOutcome | None]
    cheater_peer: Peer | None
    header: Any = None
    outsider: dict[str, Any] = field(default_factory=dict)
    #: Seats of ``others`` that leave (a client gone, ``leaves = True``): like the cheater,
    #: their own verdicts are not an honest seat's (a gone client has none; the test's stands
    #: in for it and keeps running).
    leavers: frozenset[int] = frozenset()

    @property
    def honest(self) -> dict[int, SeatOutcome]:
        return {s: o for s, o in self.outcomes.items() if s != self.cheater}

    def transcript(self, seat: int) -> Transcript:
        return read_transcript(self.outcomes[seat].transcript)

    def describe(self) -> str:
        lines = [f"{self.game}, cheater seat {self.cheater}"]
        for seat, o in sorted(self.outcomes.items()):
            if o is None:
                lines.append(f"  seat {seat}: (cancelled)")
                continue
            ab = (
                f"aborted: seat {o.aborted.seat} step {o.aborted.step}: {o.aborted.reason}"
                if o.aborted
                else f"finished: {o.result.summary if o.result else None}"
            )
            lines.append(f"  seat {seat}: {ab}; violations {[v.to_wire() for v in o.peer.session.violations]}")
            lines += [f"    blame: {b}" for b in o.peer.blames]
        return "\n".join(lines)


async def _run_table(
    game_id: str,
    players: int,
    options: Mapping[str, Any],
    *,
    cheater: int,
    peer_factory: Callable[..., Peer],
    transcript_dir: Path,
    timeouts: Timeouts,
    seed: int,
    outsider: Callable[[Any, dict[str, Any]], Any] | None,
    others: Mapping[int, Callable[..., Peer]] | None = None,
    think: float = 0.0,
) -> TableRun:
    host = plugins()
    game = host.game(game_id)
    resolved = game.resolve_options(dict(options), players)
    games = host.rules_versions()
    rng = random.Random(seed)
    agent = bot_agent(host, game, "strategic", rng, delay=think, reaction=0.02)  # free order: quick humans
    identities = [Identity.generate() for _ in range(players)]
    lobby = HostedLobby(
        identities[0], "seat0", game_id, game.rules_version, resolved, players, games, LOOPBACK, 0, timeouts
    )
    outcomes: dict[int, SeatOutcome | None] = {}
    peers: dict[int, Peer] = {}
    started: dict[int, LobbyResult] = {}
    run = TableRun(game_id, cheater, outcomes, None)
    honest_done = trio.Event()
    # Events, not polling: on virtual time every poll is a clock jump that waits for 2 ms of
    # real idleness first (AUTOJUMP_THRESHOLD).
    all_started = trio.Event()
    stragglers_done = trio.Event()
    # A seat of ``others`` whose class says it ``leaves`` is waited for like the cheater.
    # (A class attribute ``leaves = True``: on a plain Peer subclass ``leaves`` is the
    # property Peer.leaves, a truthy object, and an honest seat was taken for a leaver.)
    leavers = {s for s, f in (others or {}).items() if getattr(f, "leaves", False) is True}
    run.leavers = frozenset(leavers)
    # (``cheater`` may be no seat at all, ``players`` say: a table of honest seats, some of them
    # with a faulty network in ``others``.)
    remaining = [players - (cheater in range(players)) - len(leavers - {cheater})]

    async def seat(identity: Identity, result: LobbyResult, scope_holder: list) -> None:
        me = result.seat
        started[me] = result
        if len(started) == players:
            all_started.set()
        # ``others``: honest seats with a faulty network (a link that drops), or a second leaver.
        factory = peer_factory if me == cheater else (others or {}).get(me, Peer)
        with trio.CancelScope() as scope:
            scope_holder.append(scope)
            outcome = await play_seat(
                identity,
                result,
                game,
                agent(game, me, result.header.options),
                games=games,
                transcript_dir=None if me == cheater else transcript_dir,
                peer_factory=factory,
                on_peer=lambda p: peers.__setitem__(me, p),
                linger=LINGER,
            )
            outcomes[me] = outcome
        if me == cheater or me in leavers:
            outcomes.setdefault(me, None)
            if cheater in outcomes and leavers <= set(outcomes):
                stragglers_done.set()
            return
        remaining[0] -= 1
        if remaining[0] == 0:
            honest_done.set()

    async def run_host(task_status=trio.TASK_STATUS_IGNORED) -> None:
        result = await host_lobby(lobby, announce=False, task_status=task_status)
        await seat(identities[0], result, scopes)

    async def run_joiner(index: int, port: int) -> None:
        result = await join_lobby(
            identities[index], LOOPBACK, port, name=f"seat-{index}", games=games, listen_host=LOOPBACK
        )
        await seat(identities[index], result, scopes)

    scopes: list[trio.CancelScope] = []
    stuck: list[str] = []
    watching = trio.CancelScope()

    async def watchdog() -> None:
        with watching:
            await trio.sleep(TABLE_SECONDS * 0.999)
            try:
                stuck.append(_stuck(players, outcomes, peers))  # while the tasks still run
            except Exception as exc:  # (an error in a system task would crash the whole run)
                stuck.append(f"  (could not describe the seats: {exc!r})")

    # A task of its own, outside the table's nursery: a table that hangs while that nursery is
    # cancelled (a shielded send that does not end) is described too.
    trio.lowlevel.spawn_system_task(watchdog)
    try:
        with trio.fail_after(TABLE_SECONDS):
            async with trio.open_nursery() as nursery:
                port = await nursery.start(run_host)
                for index in range(1, players):
                    # One at a time, so joiner ``index`` gets seat ``index``.
                    nursery.start_soon(run_joiner, index, port)
                    while len(lobby.sitters) < index:
                        await trio.sleep(0.005)
                if outsider is not None:
                    await all_started.wait()
                    nursery.start_soon(outsider, started, run.outsider)
                await honest_done.wait()
                # The cheater may be stuck (it stalls, or its own replica refused its move):
                # give it the honest seats' linger to finish, then stop it.
                with trio.move_on_after(LINGER):
                    await stragglers_done.wait()
                nursery.cancel_scope.cancel()
    except trio.TooSlowError:
        # Say which seats never ended and what they waited on: a bare TooSlowError says nothing.
        raise AssertionError(
            f"the table ran past {TABLE_SECONDS} virtual seconds:\n{stuck[0] if stuck else ''}"
        ) from None
    finally:
        watching.cancel()
    run.cheater_peer = peers.get(cheater)
    run.header = started[0].header if 0 in started else None
    for s in range(players):
        outcomes.setdefault(s, None)
    return run


def _stuck(players: int, outcomes: Mapping[int, SeatOutcome | None], peers: Mapping[int, Peer]) -> str:
    """Each seat's state when a table ran out of time: ended (how), or what it waits on."""
    lines = []
    for seat in range(players):
        peer = peers.get(seat)
        if seat in outcomes:
            outcome = outcomes[seat]
            ended = "cancelled" if outcome is None else (outcome.aborted or "finished")
            lines.append(f"  seat {seat}: ended: {ended}")
        elif peer is None:
            lines.append(f"  seat {seat}: never started")
        else:
            step = getattr(peer.session, "step", None) if getattr(peer, "session", None) else None
            lines.append(
                f"  seat {seat}: running at turn {peer.turns}, step {step!r}, waits on {peer._waits_on[0]}, "
                f"connected to {sorted(peer.connections)}, aborted {peer.aborted}"
            )
    return "\n".join(lines + _task_stacks())


def _task_stacks(limit: int = 60) -> list[str]:
    """Where each running trio task waits (its innermost frames): what a hung seat is stuck on."""
    found: list[str] = []

    def frames(coro: Any) -> list[str]:
        out = []
        while coro is not None and len(out) < 40:
            frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
            if frame is None:
                break
            out.append(f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno} {frame.f_code.co_name}")
            coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
        return out

    def walk(task: trio.lowlevel.Task) -> None:
        if len(found) >= limit:
            return
        if not task.child_nurseries:
            here = [f for f in frames(task.coro) if "/trio/" not in f and not f.startswith("_")]
            found.append(f"  task {task.name.rsplit('.', 1)[-1]}: {' > '.join(here[-4:])}")
        for nursery in task.child_nurseries:
            for child in nursery.child_tasks:
                walk(child)

    walk(trio.lowlevel.current_root_task())
    return found


async def _within_real_seconds(seconds: float, play: Callable[[], Any]) -> Any:
    """``await play()``, cancelled after ``seconds`` of wall time. Under the autojump clock a
    seat that loops without ever waiting (the bug some tests look for) stops virtual time, so
    ``trio.fail_after`` alone would never fire: a timer thread wakes the run instead."""
    token = trio.lowlevel.current_trio_token()

    def expire(scope: trio.CancelScope) -> None:
        try:
            token.run_sync_soon(scope.cancel)
        except trio.RunFinishedError:
            pass

    with trio.CancelScope() as scope:
        timer = threading.Timer(seconds, expire, args=(scope,))
        timer.daemon = True
        timer.start()
        try:
            return await play()
        finally:
            timer.cancel()
    raise TimeoutError(f"the table took over {seconds} real seconds")


def run_table(
    game_id: str,
    players: int,
    options: Mapping[str, Any],
    *,
    cheater: int,
    peer_factory: Callable[..., Peer],
    transcript_dir: Path,
    timeouts: Timeouts = FAST,
    seed: int = 0,
    outsider: Callable[[Any, dict[str, Any]], Any] | None = None,
    others: Mapping[int, Callable[..., Peer]] | None = None,
    virtual_time: bool = True,
) -> TableRun:
    """Play one table to the end (synchronously: its own trio run). ``others``: peer
    factories for seats other than the cheater's (they count as honest: a seat whose network
    fails, say).

    ``virtual_time`` (the default; a test that passes False says why, in a line): run on trio's
    autojump clock (a ``MockClock`` with AUTOJUMP_THRESHOLD, as pytest-trio's ``autojump_clock``
    but for the threshold). Time then moves only when every task of every seat
    waits and no socket has anything to read, straight to the next deadline: a stall is named
    as soon as the table is idle instead of after its timeout in real seconds, and the CPU time
    of the deck's crypto counts as no time at all, so a loaded machine cannot make an honest
    seat late. The peers read no wall clock; the one thread of a seat here (the journal's
    fsync) holds up nothing the game waits on."""
    play = functools.partial(
        _run_table,
        game_id,
        players,
        options,
        cheater=cheater,
        peer_factory=peer_factory,
        transcript_dir=transcript_dir,
        timeouts=timeouts,
        seed=seed,
        outsider=outsider,
        others=others,
        think=VIRTUAL_THINK if virtual_time else 0.0,
    )
    if not virtual_time:
        return trio.run(play)
    return trio.run(
        _within_real_seconds, REAL_SECONDS, play, clock=trio.testing.MockClock(autojump_threshold=AUTOJUMP_THRESHOLD)
    )


def verify(path: Path) -> tuple[int, dict[str, Any]]:
    """``p2pcards verify --json`` on a transcript, as a user runs it (the command's own
    ``main``, in this process: a new interpreter would only add a second of imports; the
    tests of tests/verify run the installed command): (exit status, report).

    Once per content and plugin set: the honest seats of a table mostly write the same bytes,
    and several tests of one table verify each seat's file (a tenth of the adversarial tests'
    CPU time went to verifying a file again). A file of other bytes, or the same bytes under
    other installed games (verify loads the game from them), is verified on its own."""
    try:
        key = (hashlib.sha256(Path(path).read_bytes()).digest(), _installed_games())
    except OSError:  # (no such file: the command says so)
        key = None
    if key is None or key not in _VERIFIED:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = cli_main(["verify", "--json", str(path)])
        if key is None:
            return status, json.loads(out.getvalue())
        _VERIFIED[key] = (status, out.getvalue())
    status, printed = _VERIFIED[key]
    report = json.loads(printed)
    report["file"] = str(path)  # (the only field that names the file)
    return status, report


def _installed_games() -> tuple[object, ...]:
    """What verify's answer depends on besides the file: the plugin host (kept alive in
    ``_VERIFIED``'s keys) and the games it holds now, each by id, class and rules version."""
    host = load_plugins()
    games = sorted(host.games.items(), key=lambda item: item[0])
    return (host, *((gid, id(game), type(game).__qualname__, game.rules_version) for gid, game in games))


#: ``verify``'s exit status and output by the file's SHA-256 and the installed games.
_VERIFIED: dict[tuple[bytes, tuple[object, ...]], tuple[int, str]] = {}


def blamed(peer: Peer) -> set[int]:
    """The seats a peer named during its game."""
    return {int(b.split()[1]) for b in peer.blames}


def named(outcome: SeatOutcome) -> set[int]:
    """The seats an honest seat named: during its game, or as the seat its game stopped for."""
    seats = blamed(outcome.peer)
    if outcome.aborted is not None and outcome.aborted.seat is not None:
        seats.add(outcome.aborted.seat)
    return seats


def play_until_cheated(
    transcript_dir: Path,
    game_id: str,
    players: int,
    options: Mapping[str, Any],
    name: str,
    *,
    cheater: int,
    timeouts: Timeouts = FAST,
    seed: int = 0,
    attempts: int = 4,
    others: Mapping[int, Callable[..., Peer]] | None = None,
    ready: Callable[[TableRun], bool] | None = None,
    virtual_time: bool = True,
) -> TableRun:
    """Play tables until the cheater ``CHEATERS[name]`` got its chance (at most ``attempts``);
    ``ready``, if given, must also hold of the run (the network fault of ``others`` happened).
    ``virtual_time``: as for :func:`run_table`."""
    from .cheaters import CHEATERS

    for attempt in range(attempts):
        run = run_table(
            game_id,
            players,
            options,
            cheater=cheater,
            peer_factory=CHEATERS[name],
            transcript_dir=transcript_dir / f"{attempt}",
            timeouts=timeouts,
            seed=seed + attempt,
            others=others,
            virtual_time=virtual_time,
        )
        if run.cheater_peer is not None and run.cheater_peer.cheated and (ready is None or ready(run)):
            return run
    pytest.fail(f"{name}: the cheater never got its chance in {attempts} games")


# -- the agreement property (agreement.py), checked after every table ----------------------------
# Each honest seat's live verdict must be ``p2pcards verify``'s on its transcript (issue 28).
# ``run_table`` and ``play_until_cheated`` take ``known_disagreement``: the one-line reason of a
# disagreement known and tracked on that table (checked and reported, not failed). The findings
# are the run's ``agreement`` (agreement.Agreement). Wrapped here, in one place, rather than in
# their bodies.

_known_disagreement: contextvars.ContextVar[str | None] = contextvars.ContextVar("known_disagreement", default=None)


def _agreement_checked(play: Callable[..., TableRun]) -> Callable[..., TableRun]:
    signature = inspect.signature(play)

    @functools.wraps(play)
    def checked(*args: Any, known_disagreement: str | None = None, **kwargs: Any) -> TableRun:
        from .agreement import enforce

        run = play(*args, **kwargs)
        given = signature.bind(*args, **kwargs)
        given.apply_defaults()
        a = given.arguments
        factory = getattr(a["peer_factory"], "__name__", a["peer_factory"])
        run.agreement = enforce(  # (an attribute of its own: TableRun is not changed here)
            run,
            label=f"{factory} at seat {a['cheater']}, {a['game_id']} {a['players']} seats, seed {a['seed']}",
            known=known_disagreement or _known_disagreement.get(),
            faulty={a["cheater"], *(a["others"] or {})},
        )
        return run

    return checked


def _passes_known_disagreement(play: Callable[..., TableRun]) -> Callable[..., TableRun]:
    @functools.wraps(play)
    def until(*args: Any, known_disagreement: str | None = None, **kwargs: Any) -> TableRun:
        from .agreement import JUDGED, judge

        # A known disagreement is judged on the table kept, not on the tries before it.
        token = _known_disagreement.set(JUDGED if known_disagreement else None)
        try:
            run = play(*args, **kwargs)
        finally:
            _known_disagreement.reset(token)
        judge(run.agreement, known_disagreement, run)
        return run

    return until


run_table = _agreement_checked(run_table)
play_until_cheated = _passes_known_disagreement(play_until_cheated)

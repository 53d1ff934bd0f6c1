"""A whole networked table in one test: every seat a peer of its own on 127.0.0.1.

:func:`play_loopback` (under trio) and :func:`run_loopback` (its own ``trio.run``) play one table
the way ``p2pcards host`` and ``p2pcards join`` do, with the mental-poker deck: each seat has its
own keys, its own listener and a connection to every other seat, all on 127.0.0.1 with ports the
OS chooses, and nothing announced by zeroconf. They are built on
:func:`p2pcards.net.runner.play_local_table`, which ``p2pcards simulate`` uses too.
"""

from __future__ import annotations

import atexit
import filecmp
import functools
import os
import random
import socket
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
import trio.testing

from .. import hookimpl
from ..engine import seeded_rng
from ..game import Bot, Game, Result
from ..net.peer import Peer
from ..net.runner import AgentFactory, play_local_table, table_problems
from ..net.table import LINGER_SECONDS, SeatOutcome
from ..plugins import PluginHost, load_plugins
from ..session import BotSeat, SeatAgent
from ..table.timeouts import Timeouts
from .scenario import load_game

__all__ = [
    "LOOPBACK",
    "LoopbackFailure",
    "LoopbackTable",
    "SeatSpec",
    "play_loopback",
    "run_loopback",
    "unused_port",
    "virtual_clock",
]

#: The only address a loopback table uses.
LOOPBACK = "127.0.0.1"

#: Who plays a seat: the name of a bot registered for the game, a :class:`~p2pcards.game.Bot`
#: class, an agent (anything with ``async choose(session, seat)``, such as
#: :class:`~p2pcards.session.HumanSeat`), or a factory ``(game, seat, options) -> agent``.
SeatSpec = str | type[Bot] | SeatAgent | Callable[[Game, int, Mapping[str, Any]], SeatAgent]


class LoopbackFailure(AssertionError):
    """A loopback table did not end as a good table must; the message lists every problem."""


@dataclass
class LoopbackTable:
    """One table played by :func:`play_loopback`: what each seat ended with, by seat."""

    game: str
    #: The options the table played with, resolved (every option given a value).
    options: dict[str, Any]
    #: Each seat's :class:`~p2pcards.net.table.SeatOutcome`: ``peer`` (its
    #: :class:`~p2pcards.net.peer.Peer`, with ``session``, ``identity`` and ``blames``),
    #: ``result`` (``None`` if the game did not finish), ``aborted`` (why not) and ``transcript``.
    outcomes: list[SeatOutcome]

    @property
    def players(self) -> int:
        return len(self.outcomes)

    @property
    def results(self) -> list[Result | None]:
        return [outcome.result for outcome in self.outcomes]

    @property
    def transcripts(self) -> list[Path | None]:
        """Each seat's saved transcript (``None`` without a ``transcript_dir``)."""
        return [outcome.transcript for outcome in self.outcomes]

    def problems(self) -> list[str]:
        """Everything that went wrong: a seat without a result (and why), an audit that found
        violations, seats that disagree on the result, transcripts that differ between seats."""
        problems = table_problems(self.outcomes)
        if not problems:
            saved = [(seat, path) for seat, path in enumerate(self.transcripts) if path is not None]
            problems += [
                f"seat {seat}'s transcript differs from seat {saved[0][0]}'s"
                for seat, path in saved[1:]
                if not filecmp.cmp(saved[0][1], path, shallow=False)
            ]
        return problems

    def check(self) -> Result:
        """The result every seat agreed on; raises :class:`LoopbackFailure` if there is any
        problem (:meth:`problems`)."""
        problems = self.problems()
        if problems:
            raise LoopbackFailure(f"{self.game} over loopback, {self.players} seats: " + "; ".join(problems))
        result = self.outcomes[0].result
        assert result is not None  # no problem: every seat has one
        return result


async def play_loopback(
    game: Game | str,
    players: int | None = None,
    options: Mapping[str, Any] | None = None,
    *,
    seats: SeatSpec | Sequence[SeatSpec] = "random",
    seed: int | str = 0,
    timeouts: Timeouts = Timeouts(),
    transcript_dir: Path | str | None = None,
    linger: float = LINGER_SECONDS,
    reaction: float = 1.0,
    on_peer: Callable[[Peer], None] | None = None,
    time_limit: float = 120.0,
    spectator_chat: bool = False,
) -> LoopbackTable:
    """Play one table of ``game`` over TCP on 127.0.0.1, every seat a peer of its own, to its
    end; returns every seat's outcome (:class:`LoopbackTable`). Call it under trio; a test that
    does not run trio calls :func:`run_loopback`.

    ``game`` is a :class:`~p2pcards.game.Game` or the id of an installed one. ``players``: the
    game's default count if not given; ``options``: the table's options (the game's defaults
    for the rest). ``seats`` says who plays each seat (:data:`SeatSpec`), one for every seat or
    a list of one per seat; random bots by default. Bots are seeded from ``seed`` and their
    seat (the deck is not: every peer's secret seed is new, so a seed does not replay a game)
    and take ``reaction`` times their human-like reaction time in free-order rounds.

    Seat 0 hosts and the others join one after another, so seat N is the Nth to join and is
    named "player N". ``timeouts`` are the table's; ``linger`` is how long a seat whose game is
    over keeps answering the others; ``on_peer`` gets every seat's peer as its game starts.
    With ``transcript_dir`` every seat saves its transcript there. A table that takes more than
    ``time_limit`` seconds raises :class:`trio.TooSlowError`. ``spectator_chat``: the header lets
    spectators chat."""
    host, played = _host_for(game)
    opts = dict(options or {})
    count = players if players is not None else played.default_players(opts)
    resolved = played.resolve_options(opts, count)
    agents = _agents(host, played, seats, count, seed, reaction)
    folder = Path(transcript_dir) if transcript_dir is not None else None
    with trio.fail_after(time_limit):
        outcomes = await play_local_table(
            host,
            played.id,
            players=count,
            options=resolved,
            agents=agents,
            interface=LOOPBACK,
            discover=False,
            timeouts=timeouts,
            transcript_dir=folder,
            linger=linger,
            on_peer=on_peer,
            spectator_chat=spectator_chat,
        )
    return LoopbackTable(played.id, resolved, outcomes)


def virtual_clock() -> trio.testing.MockClock:
    """trio's autojump clock for a loopback table (:func:`run_loopback`'s ``virtual_time``;
    a trio test gets the same from pytest-trio's ``autojump_clock``, or by handing this to its
    run): time moves only when every seat waits and no socket has anything to read, straight to
    the next deadline. The clock jumps once the run has been idle :data:`AUTOJUMP_THRESHOLD`
    real seconds, not at once: a message on its way through loopback is not taken for
    silence."""
    return trio.testing.MockClock(autojump_threshold=AUTOJUMP_THRESHOLD)


#: Real seconds of idleness before :func:`virtual_clock` jumps.
AUTOJUMP_THRESHOLD = 0.002


_PORTS = random.SystemRandom()
_HANDED_OUT: set[int] = set()
#: Where each program reserves the ports it handed out (a file per port), so that two programs
#: at once (pytest-xdist's workers, two suites side by side) never hand out the same one.
_RESERVED = Path(tempfile.gettempdir()) / "p2pcards-test-ports"
#: A reservation this old is a dead program's (each program removes its own as it exits).
_STALE_SECONDS = 3600.0
#: This program's reservations, removed as it exits.
_OURS: list[Path] = []


def unused_port() -> int:
    """A port free on :data:`LOOPBACK` now, below the kernels' ephemeral ranges (32768 and up on
    Linux, 49152 and up on macOS and Windows), for a test that binds a port twice: a table whose
    rematch opens on the last game's port, a lobby reached through a relay. A port the kernel
    handed out for ``bind(0)`` is free again once its listener closes, and another test's
    outgoing connection may take it before the second bind (CI: "Address already in use" for a
    rematch's room); the kernel hands out no port in this range by itself.

    A port probed free is bound only once the program it is for has started, so each port is
    handed out once per program, and reserved for the others (a file in the temporary folder,
    removed at exit): a side-by-side run had a host fail with "Address already in use" on a
    port another worker had been handed meanwhile."""
    for _ in range(200):
        # A generator of its own: a test that seeds the module's would make later tests probe
        # the same ports.
        port = _PORTS.randrange(20_000, 32_000)
        if port in _HANDED_OUT or not _reserve(port):
            continue
        with socket.socket() as probe:
            try:
                probe.bind((LOOPBACK, port))
            except OSError:
                continue  # (it stays reserved: in use now, it may be in use again)
        _HANDED_OUT.add(port)
        return port
    raise OSError("no free port on 127.0.0.1 between 20000 and 32000")


def _reserve(port: int) -> bool:
    """Reserve ``port`` for this program: False if another program holds it."""
    path = _RESERVED / str(port)
    try:
        _RESERVED.mkdir(exist_ok=True)
        try:
            if time.time() - path.stat().st_mtime > _STALE_SECONDS:
                path.unlink(missing_ok=True)
        except FileNotFoundError:
            pass
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    except OSError:
        return True  # (no temporary folder to write: the bind probe alone, as before)
    os.close(fd)
    _OURS.append(path)
    return True


@atexit.register
def _release() -> None:
    for path in _OURS:
        try:
            path.unlink()
        except OSError:
            pass


def run_loopback(
    game: Game | str,
    players: int | None = None,
    options: Mapping[str, Any] | None = None,
    *,
    virtual_time: bool = True,
    **keywords: Any,
) -> LoopbackTable:
    """:func:`play_loopback` in a ``trio.run`` of its own, for a test that does not run trio;
    the same arguments. ``virtual_time`` (the default): on :func:`virtual_clock`, so the bots'
    reaction times, the linger and any timeout cost no real time (``time_limit`` is then in
    virtual seconds); False plays in real seconds."""
    play = functools.partial(play_loopback, game, players, options, **keywords)
    return trio.run(play, clock=virtual_clock() if virtual_time else None)


def _host_for(game: Game | str) -> tuple[PluginHost, Game]:
    """The plugins to play ``game`` with: the installed ones, or for a game object that is not
    installed, a host that has only it (and the generic bots)."""
    installed = load_plugins()
    if isinstance(game, str):
        return installed, load_game(game)
    if installed.games.get(game.id) is game:
        return installed, game
    host = PluginHost()
    host.register(_OneGame(game), f"loopback-{game.id}")
    if game.id not in host.games:
        raise ValueError(f"{game!r} cannot be played: {'; '.join(str(e) for e in host.errors)}")
    return host, game


class _OneGame:
    def __init__(self, game: Game):
        self.game = game

    @hookimpl
    def register_games(self, register: Callable[[Game], None]) -> None:
        register(self.game)


def _agents(
    host: PluginHost, game: Game, seats: Any, players: int, seed: int | str, reaction: float
) -> list[AgentFactory]:
    if isinstance(seats, (list, tuple)):
        if len(seats) != players:
            raise ValueError(f"give one seat for all, or one per seat ({players}), not {len(seats)}")
        chosen = list(seats)
    else:
        if players > 1 and _is_agent(seats):
            raise ValueError("one agent cannot play every seat: give one per seat, or a bot or a factory")
        chosen = [seats] * players
    available = host.bots_for(game.id)
    return [_factory(available, game, spec, seat, seed, reaction) for seat, spec in enumerate(chosen)]


def _is_agent(spec: Any) -> bool:
    return not isinstance(spec, type) and callable(getattr(spec, "choose", None))


def _factory(
    available: Mapping[str, type[Bot]], game: Game, spec: Any, seat: int, seed: int | str, reaction: float
) -> AgentFactory:
    if isinstance(spec, str):
        if spec not in available:
            raise LookupError(f"no bot {spec!r} for {game.id} (there are: {', '.join(sorted(available))})")
        spec = available[spec]
    if isinstance(spec, type) and issubclass(spec, Bot):
        bot_class = spec

        def bot(game: Game, seat: int, options: Mapping[str, Any]) -> SeatAgent:
            return BotSeat(bot_class(game, seat, options, seeded_rng(seed, "loopback", seat)), reaction=reaction)

        return bot
    if isinstance(spec, Bot):
        raise TypeError(f"seat {seat}: give the bot's class, {type(spec).__name__}, not a bot made for a seat")
    if _is_agent(spec):
        agent = spec
        return lambda game, seat, options: agent
    if callable(spec):
        return spec
    raise TypeError(f"seat {seat}: {spec!r} is not a bot name, a Bot class, an agent or a factory of agents")

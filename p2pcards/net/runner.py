"""High-level ways to play over the network: host a table, join one, fill seats with bot peers,
play a whole table of peers on this machine (``p2pcards.testing``'s loopback table), and
simulate whole games between bot peers over TCP.

Every bot is a full peer with its own keys and its own connections; none is trusted more than a
person would be.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from ..engine import seeded_rng
from ..game import Game, OptionError, seat_options
from ..plugins import PluginHost
from ..session import BotSeat, SeatAgent
from ..table.header import TableHeader
from ..table.timeouts import Timeouts
from ..text import names_table, printable, table_called
from ..wire.identity import Identity, PublicIdentity, TableWords
from .discovery import TableAdvert, advertise, watch
from .lobby import HostedLobby, LobbyError, Roster, TableTerms, host_lobby, join_lobby
from .peer import Peer
from .table import LINGER_SECONDS, SeatOutcome, play_seat

__all__ = [
    "NetworkReport",
    "find_table",
    "host_table",
    "join_table",
    "play_local_table",
    "simulate_network",
    "table_problems",
]

AgentFactory = Callable[[Game, int, Mapping[str, Any]], SeatAgent]


def bot_agent(
    host: PluginHost, game: Game, name: str, rng: random.Random, *, delay: float = 0.0, reaction: float = 1.0
) -> AgentFactory:
    """A factory of bot seats of the named kind (``random`` when the game has no such bot);
    ``reaction`` scales their human-like reaction time in free-order rounds."""
    available = host.bots_for(game.id)
    cls = available.get(name) or available["random"]

    def make(game: Game, seat: int, options: Mapping[str, Any]) -> SeatAgent:
        return BotSeat(cls(game, seat, options, random.Random(rng.random())), delay=delay, reaction=reaction)

    return make


async def _announce_playing(lobby: HostedLobby) -> None:
    """While our seat plays, announce the table as started (no free seat), so that a lobby
    can offer to watch it; alongside the game, never holding it up (zeroconf runs in a
    thread, and a failure to announce only means nobody finds it to watch)."""
    advert = dataclasses.replace(lobby.advert(), free=0, playing=True)
    try:
        async with advertise(advert, lobby.interface):
            await trio.sleep_forever()
    except Exception:  # zeroconf's errors (a name conflict, a socket): nobody finds it to watch
        return


async def host_table(
    host: PluginHost,
    identity: Identity,
    game_id: str,
    *,
    options: Mapping[str, Any],
    players: int,
    agent: AgentFactory,
    name: str,
    interface: str,
    port: int = 0,
    bots: int = 0,
    bot_name: str = "strategic",
    bot_delay: float = 0.0,
    announce: bool = True,
    transcript_dir: Path | None = None,
    timeouts: Timeouts = Timeouts(),
    on_port: Callable[[int], None] | None = None,
    on_roster: Callable[[Roster], None] | None = None,
    rng: random.Random | None = None,
    on_lobby: Callable[[HostedLobby], None] | None = None,
    on_peer: Callable[[Any], None] | None = None,
    on_words: Callable[[TableWords], None] | None = None,
    persist: bool = False,
    state_home: Path | str | None = None,
    seat_bot: str | None = None,
    advertise: tuple[str, int] | None = None,
    history: bool = False,
    linger: float = LINGER_SECONDS,
    bot_ids: Sequence[Identity] | None = None,
    bot_names: Sequence[str] | None = None,
    reserved: Sequence[PublicIdentity] | None = None,
    agreement: trio.Event | None = None,
    spectator_chat: bool = False,
    table_name: str = "",
) -> list[SeatOutcome]:
    """Create a table, seat ``bots`` bot peers and whoever joins, and play. Returns the
    outcome of this seat followed by those of the bot peers run here. ``on_lobby`` gets the
    lobby before it opens, ``on_words`` the table words (or why there are none) and then
    ``on_peer`` this seat's peer as soon as the game starts (the console shows its session).
    ``advertise``: the address the others dial for this seat, if not ``interface:port``.
    ``history``: record this seat's game in the history (:func:`~.table.play_seat`; the bot
    peers' games never are); ``linger``: how long a seat whose game is over keeps serving the
    others (:func:`play_seat`). A rematch (:mod:`.rematch`) gives the keys of its bot peers
    (``bot_ids``: those of the last game, and their ``bot_names``), the keys of every seat (``reserved``) and the event
    set when the host's player agrees (``agreement``)."""
    game = host.game(game_id)
    resolved = game.resolve_options(options, players)
    games = host.rules_versions()
    rng = rng or random.Random()
    lobby = HostedLobby(
        identity,
        name,
        game_id,
        game.rules_version,
        resolved,
        players,
        games,
        interface,
        port,
        timeouts,
        on_roster,
        advertise=advertise,
        reserved=tuple(reserved) if reserved is not None else None,
        agreement=agreement,
        spectator_chat=spectator_chat,
        table_name=table_name,
    )
    # Our bot peers' keys are made here, so that the roster can tell joiners which seats this
    # computer plays (it holds their keys: it could read their cards).
    bot_ids = list(bot_ids) if bot_ids is not None else [Identity.generate() for _ in range(bots)]
    lobby.bots = {bot_id.public.ed25519: bot_name for bot_id in bot_ids}
    if on_lobby:
        on_lobby(lobby)
    mine: list[SeatOutcome] = []
    theirs: list[SeatOutcome] = []

    async def run_host(task_status=trio.TASK_STATUS_IGNORED) -> None:
        started = await host_lobby(lobby, announce=announce, task_status=task_status)
        if on_words and started.words is not None:
            on_words(started.words)
        async with trio.open_nursery() as playing:
            if announce:
                playing.start_soon(_announce_playing, lobby)
            await play(started)
            playing.cancel_scope.cancel()

    async def play(started: Any) -> None:
        mine.append(
            await play_seat(
                identity,
                started,
                game,
                agent(game, 0, resolved),
                games=games,
                transcript_dir=transcript_dir,
                on_peer=on_peer,
                persist=persist,
                state_home=state_home,
                bot=seat_bot,
                history=history,
                linger=linger,
            )
        )

    async with trio.open_nursery() as nursery:
        bound = await nursery.start(run_host)
        if on_port:
            on_port(bound)
        for index, bot_id in enumerate(bot_ids):
            # Saved like our own seat (with ``persist``): 'p2pcards resume' brings them back too.
            nursery.start_soon(
                functools.partial(
                    _bot_peer,
                    host,
                    bot_id,
                    interface,
                    bound,
                    bot_names[index] if bot_names else f"{bot_name} bot {index + 1}",
                    bot_agent(host, game, bot_name, rng, delay=bot_delay),
                    transcript_dir,
                    theirs,
                    persist=persist,
                    state_home=state_home,
                    bot=bot_name,
                    linger=linger,
                )
            )
    return mine + theirs


async def _bot_peer(
    host: PluginHost,
    identity: Identity,
    address: str,
    port: int,
    name: str,
    agent: AgentFactory,
    transcript_dir: Path | None,
    outcomes: list[SeatOutcome],
    *,
    persist: bool = False,
    state_home: Path | str | None = None,
    bot: str | None = None,
    linger: float = LINGER_SECONDS,
) -> None:
    outcomes.append(
        await join_table(
            host,
            identity,
            address,
            port,
            name=name,
            agent=agent,
            listen_host=address,
            transcript_dir=transcript_dir,
            persist=persist,
            state_home=state_home,
            seat_bot=bot,
            linger=linger,
        )
    )


async def join_table(
    host: PluginHost,
    identity: Identity,
    address: str,
    port: int,
    *,
    name: str,
    agent: AgentFactory,
    listen_host: str,
    transcript_dir: Path | None = None,
    on_roster: Callable[[Roster], None] | None = None,
    on_peer: Callable[[Any], None] | None = None,
    on_words: Callable[[TableWords], None] | None = None,
    persist: bool = False,
    state_home: Path | str | None = None,
    seat_bot: str | None = None,
    ready: bool | trio.Event = True,
    on_seated: Callable[[int, TableTerms], None] | None = None,
    listen_port: int = 0,
    advertise: tuple[str, int] | None = None,
    history: bool = False,
    linger: float = LINGER_SECONDS,
    rematch_of: TableHeader | None = None,
) -> SeatOutcome:
    """Take a seat at the table at ``address:port`` and play. ``ready``: say so at once, or
    (an Event) when it is set; ``on_roster`` hears every roster, the first right after we sit;
    ``on_words`` gets the table words (or why there are none) before ``on_peer`` its peer.
    The other seats dial us at ``listen_host:listen_port``, or ``advertise`` if given.
    ``history``: record the game in the history (:func:`~.table.play_seat`); ``linger`` is
    :func:`play_seat`'s. ``rematch_of``: the header of the game this table is a rematch of
    (:func:`~.lobby.join_lobby`)."""
    games = host.rules_versions()
    lobby = await join_lobby(
        identity,
        address,
        port,
        name=name,
        games=games,
        listen_host=listen_host,
        on_change=on_roster,
        ready=ready,
        on_seated=on_seated,
        listen_port=listen_port,
        advertise=advertise,
        rematch_of=rematch_of,
        seat_options=seat_options(host.games.get(rematch_of.game)) if rematch_of is not None else None,
    )
    header = lobby.header
    try:
        game = _table_game(host, header)
    except LobbyError:
        await lobby.aclose()
        raise
    if on_words and lobby.words is not None:
        on_words(lobby.words)
    return await play_seat(
        identity,
        lobby,
        game,
        agent(game, lobby.seat, header.options),
        games=games,
        transcript_dir=transcript_dir,
        on_peer=on_peer,
        persist=persist,
        state_home=state_home,
        bot=seat_bot,
        history=history,
        linger=linger,
    )


async def play_local_table(
    host: PluginHost,
    game_id: str,
    *,
    players: int,
    options: Mapping[str, Any],
    agents: Sequence[AgentFactory],
    interface: str = "127.0.0.1",
    discover: bool = False,
    name: str | None = None,
    timeouts: Timeouts = Timeouts(),
    transcript_dir: Path | None = None,
    linger: float = LINGER_SECONDS,
    on_peer: Callable[[Peer], None] | None = None,
    persist: bool = False,
    state_home: Path | str | None = None,
    spectator_chat: bool = False,
) -> list[SeatOutcome]:
    """Play one table on this machine, every seat a peer of its own (its own keys, listener
    and connections) on ``interface``; ``agents[seat]`` makes the agent of each seat. Seat 0
    hosts (the table and its seat are called ``name``, by default a new unique one); the
    others take seats 1, 2, ... in turn, each named "player N". With ``discover`` the host
    announces the table by zeroconf on ``interface`` and each joiner finds it there; otherwise
    they dial its port (the OS chooses every port). ``on_peer`` gets every seat's peer as its
    game starts. With ``persist`` every seat keeps its seed, keys and journal under
    ``state_home``, as ``p2pcards host``/``join`` do. Returns every seat's outcome, by seat."""
    if len(agents) != players:
        raise ValueError(f"{players} seats need {players} agents, not {len(agents)}")
    table_name = name or f"table-{secrets.token_hex(6)}"
    outcomes: list[SeatOutcome | None] = [None] * players
    ports: list[int] = []
    port_known = trio.Event()
    seated = [trio.Event() for _ in range(players)]
    seated[0].set()

    def on_port(port: int) -> None:
        ports.append(port)
        port_known.set()

    def agent(game: Game, seat: int, opts: Mapping[str, Any]) -> SeatAgent:
        return agents[seat](game, seat, opts)

    async def run_host() -> None:
        mine = await host_table(
            host,
            Identity.generate(),
            game_id,
            options=options,
            players=players,
            agent=agent,
            name=table_name,
            interface=interface,
            announce=discover,
            timeouts=timeouts,
            transcript_dir=transcript_dir,
            on_port=on_port,
            on_peer=on_peer,
            linger=linger,
            persist=persist,
            state_home=state_home,
            spectator_chat=spectator_chat,
        )
        outcomes[0] = mine[0]

    async def run_joiner(position: int) -> None:
        if discover:
            advert = await find_table(interface, table_name, timeout=4.0)
            address, port = advert.host, advert.port
        else:
            await port_known.wait()
            address, port = interface, ports[0]
        await seated[position - 1].wait()  # one after another: joiner N takes seat N
        outcome = await join_table(
            host,
            Identity.generate(),
            address,
            port,
            name=f"player {position}",
            agent=agent,
            listen_host=interface,
            transcript_dir=transcript_dir,
            on_peer=on_peer,
            on_seated=lambda seat, terms: seated[position].set(),
            linger=linger,
            persist=persist,
            state_home=state_home,
        )
        outcomes[outcome.peer.seat] = outcome

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_host)
        for position in range(1, players):
            nursery.start_soon(run_joiner, position)
    missing = [seat for seat, outcome in enumerate(outcomes) if outcome is None]
    if missing:  # every task returned, so every seat has played; a seat twice would be a bug
        raise RuntimeError(f"no outcome for seats {missing}")
    return [outcome for outcome in outcomes if outcome is not None]


def table_problems(outcomes: Sequence[SeatOutcome | None]) -> list[str]:
    """What went wrong at a table whose seats all played here, by seat: a seat without a result
    (and why), an audit's violations, seats that disagree on the result. Empty when every seat
    finished, agreed on the result and its audit was clean."""
    problems = []
    for seat, outcome in enumerate(outcomes):
        if outcome is None or outcome.result is None:
            reason = outcome.aborted.reason if outcome and outcome.aborted else "no result"
            problems.append(f"seat {seat}: {reason}")
        elif outcome.peer.session.violations:
            problems.append(f"seat {seat}: audit found {outcome.peer.session.violations}")
    results = [o.result.to_wire() if o and o.result else None for o in outcomes]
    if results and results[0] is not None and any(r != results[0] for r in results):
        problems.append("the seats disagree on the result")
    return problems


def _table_game(host: PluginHost, header: Any) -> Game:
    """The game of a table we joined, if this machine can play it as the host set it up."""
    try:
        game = host.game(header.game)
    except LookupError:
        raise LobbyError(f"the table plays {header.game}, which is not installed here") from None
    if game.rules_version != header.rules_version:
        raise LobbyError(f"{header.game}: the table uses rules {header.rules_version}, we have {game.rules_version}")
    try:  # the host's header is untrusted: the rules must never meet options they cannot read
        game.check_table_options(header.options, header.players)
    except OptionError as exc:
        raise LobbyError(f"the host's table does not fit {header.game} here: {exc}") from None
    return game


async def find_table(
    interface: str | None,
    table: str,
    *,
    timeout: float = 5.0,
    playing: bool = False,
    game_names: Mapping[str, str] | None = None,
) -> TableAdvert:
    """The advert of the table named ``table`` (its id or its name), found by zeroconf as soon
    as it appears: one still in its lobby, or with ``playing`` one whose game has started
    (to watch it). ``game_names``: the installed games' names by id, for the error that lists
    the tables there."""
    found: list[TableAdvert] = []
    started: list[TableAdvert] = []
    seen: dict[str, TableAdvert] = {}  # every table heard of, to name them if ours is not there
    appeared = trio.Event()

    def update(tables: dict[str, TableAdvert]) -> None:
        seen.update(tables)
        for advert in tables.values():
            named = table == advert.table or names_table(table, advert.name)  # "alice" or "alice's table"
            if named and advert.playing != playing:
                started.append(advert)
            elif named and not found:
                found.append(advert)
                appeared.set()

    async with watch(interface, update):
        with trio.move_on_after(timeout):
            await appeared.wait()
    if not found and started:
        if playing:
            raise LobbyError(f"the table {table!r} has not started yet: join it, or watch it once it starts")
        raise LobbyError(f"the table {table!r} has started: 'p2pcards watch {table}' watches it")
    if not found:
        there = tables_there(seen.values(), game_names=game_names)
        listed = f"; the tables there: {there}" if there else "; no tables were found at all"
        raise LobbyError(f"no table {table!r} found on the network{listed} (try HOST:PORT, or 'p2pcards doctor')")
    return found[0]


def tables_there(adverts: Iterable[TableAdvert], most: int = 8, *, game_names: Mapping[str, str] | None = None) -> str:
    """The tables a lookup heard of, for a person: "alice's table (Cal's BS, 1 of 3 seats
    free), ...", as the lobby names them (:func:`~p2pcards.text.table_called`): a game by its
    name where it is installed here (``game_names``), else by its id."""
    out = []
    for advert in sorted(adverts, key=lambda a: a.name.lower())[:most]:
        state = "playing" if advert.playing else f"{advert.free} of {advert.seats} seats free"
        game = (game_names or {}).get(advert.game, advert.game)
        out.append(f"{printable(table_called(advert.name))} ({printable(game)}, {state})")
    return ", ".join(out)


@dataclass
class NetworkReport:
    """Games between bot peers over TCP, as ``simulate`` reports them."""

    game: str
    players: int
    options: dict[str, Any]
    bots: list[str]
    games: int
    wins: list[int]
    draws: int = 0
    seconds: float = 0.0
    transcripts: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "options": self.options,
            "bots": self.bots,
            "games": self.games,
            "deck": "mental-poker over loopback TCP",
            "wins": self.wins,
            "win_rate": [w / self.games for w in self.wins],
            "draws": self.draws,
            "seconds": round(self.seconds, 3),
            "transcripts": self.transcripts,
            "problems": self.problems,
        }

    def to_text(self) -> str:
        lines = [
            f"{self.games} games of {self.game}, {self.players} peers over loopback TCP "
            f"(mental-poker deck), {self.seconds:.1f} s"
        ]
        for seat, wins in enumerate(self.wins):
            lines.append(f"  seat {seat} ({self.bots[seat]:>9}): {wins} wins ({100 * wins / self.games:.1f}%)")
        if self.draws:
            lines.append(f"  draws: {self.draws}")
        lines += [f"problem: {p}" for p in self.problems] or ["every peer agreed on every result", "audit: clean"]
        if self.transcripts:
            lines.append(f"transcripts: {len(self.transcripts)} files, e.g. {self.transcripts[0]}")
        return "\n".join(lines)


async def simulate_network(
    host: PluginHost,
    game_id: str,
    *,
    players: int,
    options: Mapping[str, Any],
    bots: Sequence[str],
    games: int = 1,
    seed: Any = 0,
    transcript_dir: Path | None = None,
    interface: str = "127.0.0.1",
    discover: bool = True,
) -> NetworkReport:
    """Play ``games`` games, every seat a bot peer of its own. With ``discover`` the joiners
    find the table through zeroconf on ``interface``; otherwise they dial its port."""
    game = host.game(game_id)
    resolved = game.resolve_options(options, players)
    names = list(bots) * players if len(bots) == 1 else list(bots)
    report = NetworkReport(game_id, players, resolved, names, games, [0] * players)
    started = time.perf_counter()
    for index in range(games):
        rng = seeded_rng(seed, "network", index)
        outcomes = await play_local_table(
            host,
            game_id,
            players=players,
            options=resolved,
            agents=[bot_agent(host, game, bot, rng) for bot in names],
            interface=interface,
            discover=discover,
            # Unique on the network whatever the seed: two runs of one seed at once (tests on
            # parallel workers) would otherwise find and join each other's table (the seeded draw
            # stays, so the bots' moves for a seed are what they were).
            name=f"sim-{seed}-{index}-{rng.getrandbits(32):08x}{secrets.token_hex(3)}",
            transcript_dir=transcript_dir,
        )
        _score(report, index, outcomes)
    report.seconds = time.perf_counter() - started
    return report


def _score(report: NetworkReport, index: int, outcomes: Sequence[SeatOutcome]) -> None:
    report.problems += [f"game {index}: {problem}" for problem in table_problems(outcomes)]
    report.transcripts += [str(o.transcript) for o in outcomes if o.transcript]
    result = outcomes[0].result
    if result is None:
        return
    winners = result.to_wire()["winners"]
    if not winners:
        report.draws += 1
    for seat in winners:
        report.wins[seat] += 1

"""Rematches: the same table again, once every seat agrees, and the running score.

After a network game, the host of that game opens its table again at the same address for the
same seats only: each key of the last game in its own seat, nobody else (``reserved`` in
:class:`~.lobby.HostedLobby`). Each joiner's program sits down there at once, without agreeing
(so that it hears if a seat declines), and says ``ready`` when its player agrees (the console's
``again``); the host's player agrees the same way (``ready`` of seat 0 in the roster), and bot
peers agree at once. The game starts only when every seat has agreed: nobody can start it for
the others, and nothing is played that a player did not ask for. A seat that leaves the room
(``quit``, Ctrl-C, a lost connection) leaves the rematch (nobody agreeing within
:data:`ROOM_SECONDS` closes it): the room closes with a ``bye`` naming who left and, when the game can be played by
those who are left (Cal's BS with 3 to 7, Crazy Eights with 2 to 5, Calypso only with its
variant's count), the host opens it again at once for them, a smaller table in the same seat
order; each joiner whose room closed looks for that one (:data:`REOPEN_SECONDS`). Otherwise the
``bye`` says the game needs more players and there is no rematch. Who left is only ever what a
seat's own connection did (its ``bye``, or closing it): no peer can leave for another.

The rematch is a new table (a new table id, new deck seeds, new table words) with the same game,
options, timeouts and seat order; each joiner checks the new header against the last one
(:func:`~.lobby.rematch_problem`: the same players, some left out, in their order) and leaves
a table that changes any of them. The options are the same, so a game that names its first
dealer (Cal's BS's ``first_dealer``) has the same one (by default it is drawn by lot again); at
a smaller table an option that names a seat names the same player's new seat, or takes its
default if that player left (:func:`~.lobby.rematch_options`). No message is new: the room is a
lobby (protocol/table.md section 2, "A rematch").

:class:`Score` keeps the running score of a series of rematches: the games won by each player,
keyed by key fingerprint (a name may change; a key does not).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from ..game import OptionError, Result, seat_options
from ..plugins import PluginHost
from ..table.header import TableHeader
from ..text import printable
from ..wire.identity import Identity, TableWords
from .lobby import HostedLobby, LobbyError, RematchLeft, Roster, rematch_options
from .runner import AgentFactory, host_table, join_table
from .table import LINGER_SECONDS, SeatOutcome

__all__ = [
    "FIND_SECONDS",
    "REOPEN_SECONDS",
    "ROOM_SECONDS",
    "Score",
    "follow_rematches",
    "host_rematch",
    "join_rematch",
    "no_rematch_after_leavers",
]

#: How long a joiner looks for the host's rematch table (the host opens it once its own game
#: is saved, a few seconds at most after the others').
FIND_SECONDS = 30.0
#: How long a rematch table waits for every seat to agree before it closes.
ROOM_SECONDS = 600.0
#: Between two looks for the host's rematch table.
FIND_EVERY = 0.3
#: How long a joiner whose rematch room closed (a seat left) looks for the smaller room the
#: host opens at once when the game can be played without that seat.
REOPEN_SECONDS = 5.0
#: What the host's ``bye`` says when it opens that smaller room ("dave left; the rematch is
#: carol, alice and bob"); any other bye closes the rematch for good.
REOPENS = "; the rematch is "


def names_text(names: Sequence[str]) -> str:
    """``alice``, ``alice and bob``, ``alice, bob and carol`` (printable)."""
    shown = [printable(name) for name in names]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def playable(game: Any, options: Any, players: int) -> bool:
    """Whether ``game`` can be played by ``players`` with these (resolved) options."""
    if players < 2 or players not in game.player_counts(options):
        return False
    try:
        game.check_table_options(options, players)
    except OptionError:
        return False
    return True


def too_few(game: Any, options: Any) -> str:
    """``Cal's BS needs at least 3 players`` (or ``... needs 4 players`` for a fixed count)."""
    counts = [n for n in range(2, game.max_players + 1) if playable(game, options, n)]
    if len(counts) == 1:
        return f"{game.name} needs {counts[0]} players"
    return f"{game.name} needs at least {counts[0] if counts else game.min_players} players"


@dataclass
class Score:
    """Games won by each player across a series of rematches, by key fingerprint."""

    names: dict[str, str] = field(default_factory=dict)  # fingerprint -> the name last seen
    wins: dict[str, int] = field(default_factory=dict)
    games: int = 0

    def add(self, header: TableHeader, result: Result | None) -> None:
        """Count one finished game (a game without a result is not counted)."""
        for seat in header.seats:
            self.names[seat.keys.fingerprint] = seat.name
            self.wins.setdefault(seat.keys.fingerprint, 0)
        if result is None:
            return
        self.games += 1
        for winner in set(result.winners):
            if 0 <= winner < header.players:
                self.wins[header.seats[winner].keys.fingerprint] += 1

    def by_name(self) -> dict[str, int]:
        """The wins by name (for tests and people; fingerprints keep them apart)."""
        return {self.names[key]: wins for key, wins in self.wins.items()}

    def text(self) -> str:
        """``score after 2 games: alice won 2, bob won 0`` (most wins first; "won" keeps a
        count apart from a name that ends in a number: "strategic bot 1 won 0", not
        "strategic bot 1 0")."""
        ranked = sorted(self.wins.items(), key=lambda item: (-item[1], self.names[item[0]].lower()))
        shown = ", ".join(f"{printable(self.names[key])} won {wins}" for key, wins in ranked)
        return f"score after {self.games} game{'s' * (self.games != 1)}: {shown}"


async def host_rematch(
    host: PluginHost,
    last: Sequence[SeatOutcome],
    *,
    interface: str,
    agent: AgentFactory,
    agreement: trio.Event,
    port: int | None = None,
    bot_name: str = "strategic",
    bot_delay: float = 0.0,
    transcript_dir: Path | None = None,
    on_roster: Callable[[Roster], None] | None = None,
    on_peer: Callable[[Any], None] | None = None,
    on_words: Callable[[TableWords], None] | None = None,
    persist: bool = False,
    state_home: Path | str | None = None,
    history: bool = False,
    linger: float = LINGER_SECONDS,
    room_seconds: float = ROOM_SECONDS,
    bot_peers: Sequence[tuple[int, Identity]] | None = None,
) -> list[SeatOutcome]:
    """Open the rematch of the table we hosted and play it once every seat agrees (ours when
    ``agreement`` is set). ``last``: our outcome of the last game, then those of our bot peers
    (as :func:`~.runner.host_table` returned them); they sit down again, agreeing at once. We
    listen on ``interface`` at ``port`` (by default the last game's). Returns like
    :func:`~.runner.host_table`. A seat that leaves before the start is left out: the room
    opens again for the others if the game allows that many (``on_roster`` then gets rosters
    whose ``note`` says who left and who plays), else :class:`~.lobby.LobbyError` says who left
    and how many the game needs (also when nobody agreed within ``room_seconds``). ``bot_peers``
    (``(seat, identity)`` of each): our bot peers when ``last`` holds only our own outcome (a
    host brought back by ``resume``: its bot peers were resumed in programs of their own)."""
    header = last[0].peer.header
    bots = dict([(o.peer.seat, o.peer.identity) for o in last[1:]] if bot_peers is None else bot_peers)
    game = host.game(header.game)
    # A player who left during the game and let a bot finish the seat (its own signed word,
    # peer.bot_played) is gone when the game ends: the rematch is the others', not a room that
    # waits for it.
    gone = sorted(s for s in last[0].peer.bot_played if 0 < s < header.players)
    seats = [s for s in range(header.players) if s not in gone]  # the last game's seats still in
    by_seat = seat_options(game)

    def options_for(kept: list[int]) -> dict[str, Any]:
        # An option that names a seat (Cal's BS's first dealer) names the same player's seat
        # at the smaller table, or its default if that player left (lobby.rematch_options).
        return rematch_options(header.options, by_seat, kept)

    def options_note(kept: list[int]) -> str:
        """What a smaller table changes of an option that named a seat that left."""
        notes = []
        for opt in game.options:
            was = header.options.get(opt.name)
            if opt.name in by_seat and type(was) is int and 0 <= was < header.players and was not in kept:
                now = options_for(kept)[opt.name]
                notes.append(f"; {opt.title}: {header.seats[was].name} left, now {opt.value_text(now)}")
        return "".join(notes)

    note = ""
    if gone:
        who = names_text([header.seats[s].name for s in gone])
        if not playable(game, options_for(seats), len(seats)):
            raise LobbyError(f"{who} left during the game; {too_few(game, options_for(seats))}: no rematch")
        note = f"{who} left during the game; the rematch is {names_text([header.seats[s].name for s in seats])}"
        note += options_note(seats)

    def leave_reason(left_here: list[int]) -> str:
        left = [seats[s] for s in left_here if 0 < s < len(seats)]
        rest = [s for s in seats if s not in left]
        gone = names_text([header.seats[s].name for s in left])
        if playable(game, options_for(rest), len(rest)):
            return f"{gone} left; the rematch is {names_text([header.seats[s].name for s in rest])}{options_note(rest)}"
        return f"{gone} left; {too_few(game, options_for(rest))}: no rematch"

    def roster_seen(roster: Roster) -> None:
        if on_roster is not None:
            on_roster(Roster(roster.names, roster.ready, roster.bots, me=0, note=note))

    while True:
        try:
            return await _host_room(
                host,
                last[0],
                [header.seats[s].keys for s in seats],
                options_for(seats),
                [(seats.index(s), identity) for s, identity in sorted(bots.items()) if s in seats],
                interface=interface,
                agent=agent,
                agreement=agreement,
                port=header.seats[0].port if port is None else port,
                bot_name=bot_name,
                bot_delay=bot_delay,
                transcript_dir=transcript_dir,
                on_roster=roster_seen,
                on_peer=on_peer,
                on_words=on_words,
                on_leave=leave_reason,
                persist=persist,
                state_home=state_home,
                history=history,
                linger=linger,
                room_seconds=room_seconds,
            )
        except RematchLeft as exc:
            left = {seats[s] for s in exc.seats if 0 < s < len(seats)}
            if not left:
                raise
            seats = [s for s in seats if s not in left]
            if not playable(game, options_for(seats), len(seats)):
                raise LobbyError(str(exc)) from None
            note = str(exc)
            roster_seen(Roster([header.seats[s].name if s == 0 else "" for s in seats], [False] * len(seats)))


async def _host_room(
    host: PluginHost,
    mine: SeatOutcome,
    reserved: Sequence[Any],
    options: dict[str, Any],
    bots: Sequence[tuple[int, Identity]],
    *,
    interface: str,
    agent: AgentFactory,
    agreement: trio.Event,
    port: int,
    bot_name: str,
    bot_delay: float,
    transcript_dir: Path | None,
    on_roster: Callable[[Roster], None],
    on_peer: Callable[[Any], None] | None,
    on_words: Callable[[TableWords], None] | None,
    on_leave: Callable[[list[int]], str],
    persist: bool,
    state_home: Path | str | None,
    history: bool,
    linger: float,
    room_seconds: float,
) -> list[SeatOutcome]:
    """One room of a rematch: the seats whose keys are ``reserved`` (this room's order), our
    ``bots`` among them (``(seat in this room, identity)``); :class:`RematchLeft` if seats leave."""
    header = mine.peer.header
    names = {s.keys.ed25519: s.name for s in header.seats}
    opened: list[HostedLobby] = []

    def on_lobby(lobby: HostedLobby) -> None:
        lobby.on_leave = on_leave
        opened.append(lobby)

    started = trio.Event()

    def peer_started(peer: Any) -> None:
        started.set()
        if on_peer:
            on_peer(peer)

    async def close_when_idle() -> None:
        with trio.move_on_after(room_seconds):
            await started.wait()
        if not started.is_set() and opened:
            lobby = opened[0]
            ready = lobby.readiness()
            waiting = [printable(names[k.ed25519]) for k, ok in zip(reserved, ready) if not ok] or ["a seat"]
            lobby.declined = f"{', '.join(waiting)} did not agree within {room_seconds:g} s: no rematch"
            lobby._notify()

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(close_when_idle)
            outcomes = await host_table(
                host,
                mine.peer.identity,
                header.game,
                options=options,
                players=len(reserved),
                agent=agent,
                name=header.seats[0].name,
                interface=interface,
                port=port,
                bots=len(bots),
                bot_name=bot_name,
                bot_delay=bot_delay,
                announce=False,  # for the same players only: nobody else need see it
                spectator_chat=header.spectator_chat,
                transcript_dir=transcript_dir,
                timeouts=header.timeouts,
                on_roster=on_roster,
                rng=random.Random(),
                on_lobby=on_lobby,
                on_peer=peer_started,
                on_words=on_words,
                persist=persist,
                state_home=state_home,
                history=history,
                linger=linger,
                bot_ids=[identity for _, identity in bots],
                bot_names=[names[identity.public.ed25519] for _, identity in bots],
                reserved=list(reserved),
                agreement=agreement,
            )
            nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:  # the room closed (host_table's tasks wrap it)
        declined = _lobby_error(group)
        if declined is None:
            raise
        raise declined from None
    return outcomes


def _lobby_error(group: BaseExceptionGroup) -> LobbyError | None:
    """The one :class:`LobbyError` a group of errors holds, if that is all it holds."""
    leaves: list[BaseException] = []

    def walk(exc: BaseException) -> None:
        if isinstance(exc, BaseExceptionGroup):
            for inner in exc.exceptions:
                walk(inner)
        else:
            leaves.append(exc)

    walk(group)
    return leaves[0] if len(leaves) == 1 and isinstance(leaves[0], LobbyError) else None


def no_rematch_after_leavers(host: PluginHost, header: TableHeader, bot_played: Any, me: int) -> None:
    """A joiner (or a spectator: ``me`` -1) knows, as the host does, who left during the game
    and let a bot finish the seat (each seat's own signed word): those programs end with the game. When the host is one
    of them, or too few are left for the game, there is no rematch: :class:`~.lobby.LobbyError`
    says so at once, in the host's words, instead of looking for a table that never opens."""
    gone = sorted(s for s in bot_played if type(s) is int and 0 <= s < header.players and s != me)
    if not gone:
        return
    if gone[0] == 0:
        raise LobbyError(f"{printable(header.seats[0].name)} (the host) left during the game: no rematch")
    game = host.game(header.game)
    kept = [s for s in range(header.players) if s not in gone]
    options = rematch_options(header.options, seat_options(game), kept)
    if not playable(game, options, len(kept)):
        who = names_text([header.seats[s].name for s in gone])
        raise LobbyError(f"{who} left during the game; {too_few(game, options)}: no rematch")


async def join_rematch(
    host: PluginHost,
    last: SeatOutcome,
    *,
    listen_host: str,
    agent: AgentFactory,
    listen_port: int = 0,
    agreement: trio.Event | bool,
    transcript_dir: Path | None = None,
    on_roster: Callable[[Roster], None] | None = None,
    on_peer: Callable[[Any], None] | None = None,
    on_words: Callable[[TableWords], None] | None = None,
    persist: bool = False,
    state_home: Path | str | None = None,
    seat_bot: str | None = None,
    history: bool = False,
    linger: float = LINGER_SECONDS,
    find_seconds: float = FIND_SECONDS,
) -> SeatOutcome:
    """Sit down at the rematch of the table we joined last (its host's address), agree when
    ``agreement`` is set (``True``: at once, as a bot does), and play it once every seat has
    agreed; the others dial us at ``listen_host:listen_port`` (0: any free port).
    :class:`~.lobby.LobbyError` if the host's rematch table does not open within
    ``find_seconds``, or naming who declined."""
    header, me = last.peer.header, last.peer.seat
    target = header.seats[0]
    no_rematch_after_leavers(host, header, last.peer.bot_played, me)
    deadline = trio.current_time() + find_seconds
    seated = False
    seat_now = me
    note = ""  # the host's word on who left, once a room closed

    def on_seated(seat: int, terms: Any) -> None:
        nonlocal seated, seat_now
        seated = True
        seat_now = seat

    def roster_seen(roster: Roster) -> None:
        if on_roster is not None:
            on_roster(Roster(roster.names, roster.ready, roster.bots, me=seat_now, note=note))

    while True:
        try:
            return await join_table(
                host,
                last.peer.identity,
                target.host,
                target.port,
                name=header.seats[me].name,
                agent=agent,
                listen_host=listen_host,
                listen_port=listen_port,
                transcript_dir=transcript_dir,
                on_roster=roster_seen,
                on_peer=on_peer,
                on_words=on_words,
                persist=persist,
                state_home=state_home,
                seat_bot=seat_bot,
                ready=agreement,
                on_seated=on_seated,
                history=history,
                linger=linger,
                rematch_of=header,
            )
        except LobbyError as exc:
            if seated:  # it was open, and it closed: a seat left (or the host)
                # The host opens a smaller room at once if the game allows it, and its bye says
                # so ("dave left; the rematch is ..."): look for it a little while (what the host
                # said is only shown; the header decides who plays). Any other bye ("alice (the
                # host) declined the rematch", "...: no rematch") ends it now: no screen that
                # says "declined" next to "looking for alice's table" for five seconds.
                seated, note = False, printable(str(exc))[:300]
                if REOPENS not in note:
                    raise LobbyError(note) from None
                deadline = trio.current_time() + REOPEN_SECONDS
                if on_roster is not None:
                    on_roster(Roster([], [], me=seat_now, note=note))
            elif trio.current_time() + FIND_EVERY >= deadline:
                if note:
                    raise LobbyError(note) from None
                host_name = printable(target.name)
                raise LobbyError(
                    f"no rematch: {host_name} did not open the table again within {find_seconds:g} s ({exc})"
                ) from None
        await trio.sleep(FIND_EVERY)


async def follow_rematches(
    host: PluginHost,
    last: SeatOutcome,
    *,
    listen_host: str,
    agent: AgentFactory,
    listen_port: int = 0,
    on_outcome: Callable[[SeatOutcome], None] | None = None,
    transcript_dir: Path | None = None,
    persist: bool = False,
    state_home: Path | str | None = None,
    seat_bot: str | None = None,
    history: bool = False,
    linger: float = LINGER_SECONDS,
    find_seconds: float = FIND_SECONDS,
) -> str:
    """A bot seat that follows its table into every rematch, as a person's seat does (``join
    --play-as-bot``): after each finished game it sits down in the host's rematch room and
    agrees at once, plays, and goes on (``on_outcome`` gets each game's outcome). Returns why
    it stopped: a game that did not finish, or no rematch (declined by someone, too few left,
    or none opened within ``find_seconds``)."""
    outcome = last
    while True:
        if outcome.aborted is not None or outcome.result is None:
            return "the game did not finish: no rematch"
        try:
            outcome = await join_rematch(
                host,
                outcome,
                listen_host=listen_host,
                listen_port=listen_port,
                agent=agent,
                agreement=True,
                transcript_dir=transcript_dir,
                persist=persist,
                state_home=state_home,
                seat_bot=seat_bot,
                history=history,
                linger=linger,
                find_seconds=find_seconds,
            )
        except LobbyError as exc:
            reason = printable(str(exc))[:300]
            return reason if reason.startswith("no rematch") else f"no rematch: {reason}"
        if on_outcome is not None:
            on_outcome(outcome)

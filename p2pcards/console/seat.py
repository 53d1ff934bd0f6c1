"""``p2pcards host`` and ``p2pcards join`` played in person: one networked seat in the console.

:class:`SeatTable` is a table runner (see :mod:`.app`) over
:func:`~p2pcards.net.runner.host_table` or :func:`~p2pcards.net.runner.join_table` with a
:class:`~p2pcards.session.HumanSeat` in the local seat. Until the table starts it says what it
waits for (the address to give the others, who has sat down); when the game starts the console
shows the peer's session with the table words; the outcome is kept for the command line to
print after the console closes.

After a finished game the runner offers a rematch (:mod:`p2pcards.net.rematch`): the host's
program opens the table again for the same players, each joiner's sits down there at once, and
``again`` agrees; the next game starts in the same console once every seat agreed, with the
running score (games won by each player in this series) on the end screen and in the log.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import trio

from ..game import Game, options_words
from ..net.lobby import ANY_ADDRESS, HostBot, LobbyError, Roster, TableTerms
from ..net.peer import Peer
from ..net.rematch import Score, host_rematch, join_rematch
from ..net.runner import host_table, join_table
from ..net.table import SeatOutcome, resume_seat
from ..net.transport import ConnectionClosed
from ..plugins import PluginHost
from ..session import HumanSeat, SeatAgent
from ..table.timeouts import Timeouts
from ..text import printable, table_called
from ..wire.identity import Identity, TableWords
from .app import TableStart
from .lobby import LobbyProblem

__all__ = ["Rematch", "SeatTable", "hosted_seat", "joined_seat", "roster_text", "where"]

#: ``play(on_peer, waiting, on_words)``: form the table and play this seat, calling
#: ``waiting(text)`` while it waits for players, ``on_words`` with the table words (not for a
#: seat brought back after a restart) and ``on_peer`` when the game starts.
SeatPlay = Callable[
    [Callable[[Peer], None], Callable[[str], None], Callable[[TableWords], None]], Awaitable[SeatOutcome]
]
#: ``rematch(agreement, on_roster, on_peer, on_words)``: the rematch of the game just played,
#: agreed to when ``agreement`` is set (:mod:`p2pcards.net.rematch`).
SeatRematch = Callable[
    [trio.Event, Callable[[Roster], None], Callable[[Peer], None], Callable[[TableWords], None]],
    Awaitable[SeatOutcome],
]


#: How long a player's program that leaves at the end screen waits to sit down in the rematch's
#: room (the host opens it once its transcript is saved) to tell the others it left.
DECLINE_SECONDS = 5.0


def person(game: Game, seat: int, options: Mapping[str, Any]) -> SeatAgent:
    """The agent of a seat played by the person at the console."""
    return HumanSeat()


def roster_text(names: Sequence[str], ready: Sequence[bool], bots: Mapping[int, HostBot] | None = None) -> str:
    """Who has sat down, for the waiting line: ``waiting for players: 2 of 3 seated (alice, bob)``,
    and which seats are bots another seat's computer plays (it can read their cards)."""
    seated = [printable(name) for name in names if name]  # the players' own names
    waiting = [printable(name) for name, ok in zip(names, ready) if name and not ok]
    text = f"waiting for players: {len(seated)} of {len(names)} seated ({', '.join(seated)})"
    text += f"; not ready yet: {', '.join(waiting)}" if waiting else ""
    by: dict[int, list[str]] = {}

    def who(seat: int) -> str:  # a name, not a seat number (a seat not yet taken: its number)
        name = names[seat] if 0 <= seat < len(names) else ""
        return printable(name) if name else f"the player in seat {seat}"

    for seat, bot in sorted((bots or {}).items()):
        by.setdefault(bot.by, []).append(who(seat))
    for owner, seats in sorted(by.items()):
        text += (
            f"\n{who(owner)}'s computer plays {', '.join(seats)} (bot{'s' * (len(seats) > 1)}): "
            f"it holds their keys, so it can see their cards"
        )
    return text


def where(interface: str, port: int | None = None) -> str:
    """Where a table listens, as the waiting line and the bottom bar say it."""
    if interface == ANY_ADDRESS:
        return f"port {port} on every interface" if port else "every interface"
    return f"{interface}:{port}" if port else interface


class Rematch:
    """The rematch offered after a game (:class:`~.app.RematchOffer`): the running score,
    who has agreed (from the room's roster), and why there is none, once it is off."""

    def __init__(self, score: Score, me: int, host_name: str):
        self.score = score
        self.me = me
        self.host_name = host_name
        self.agreement = trio.Event()
        self.declined = trio.Event()  # the player left: tell the room (offer_rematches)
        self.roster: Roster | None = None
        self.closed: str | None = None  # why there is no rematch
        self.note = ""  # who left the rematch's room, and who plays it

    @property
    def open(self) -> bool:
        return self.closed is None

    def on_roster(self, roster: Roster) -> None:
        if roster.me is not None:
            self.me = roster.me  # a smaller room (a seat left) numbers the seats again
        self.note = roster.note or self.note
        self.roster = roster if roster.names else None

    def close(self, reason: str) -> None:
        self.closed = reason

    def decline(self) -> None:
        """The player leaves (``quit``, ``new``): the runner tells the others in the room,
        sitting down there first if it has not yet (at most :data:`DECLINE_SECONDS`), so that
        the rematch goes on without us at once instead of waiting for us."""
        self.declined.set()

    def agree(self) -> str:
        if self.closed is not None:
            return f"no rematch: {self.closed}"
        if self.agreement.is_set():
            return "you have agreed already: waiting for the others"
        self.agreement.set()
        return "you agreed to a rematch: it starts when every player has agreed"

    def lines(self) -> list[str]:
        lines = [self.score.text()]
        if self.closed is not None:
            reason = self.closed.removeprefix("no rematch: ").removesuffix(": no rematch")
            return lines + [f"no rematch: {reason}"]
        if self.note:
            lines.append(self.note)
        roster = self.roster
        if roster is None and self.me == 0:
            status = "rematch: type 'again' to play again; waiting for the others"
        elif roster is None:
            status = f"looking for {self.host_name}'s table for a rematch"
        else:
            agreed = [n for i, (n, ok) in enumerate(zip(roster.names, roster.ready)) if ok and n and i != self.me]
            last = list(self.score.names.values())  # by seat: a rematch keeps every seat
            waiting = [
                n or (f"{printable(last[i])} (not back yet)" if i < len(last) else "a player not back yet")
                for i, (n, ok) in enumerate(zip(roster.names, roster.ready))
                if not ok and i != self.me
            ]
            status = "rematch: " + ("you agreed" if self.agreement.is_set() else "type 'again' to play again")
            if agreed:
                status += f"; agreed: {', '.join(agreed)}"
            if waiting:
                status += f"; waiting for {', '.join(waiting)}"
        return lines + [status]


class SeatTable:
    """A table runner for one networked seat played in person; ``outcome`` once it is over
    (the last game's, after rematches). A table that cannot be formed stops with
    :class:`LobbyProblem` (the console shows it). With ``rematch`` a finished game is offered
    again (:class:`Rematch`)."""

    def __init__(self, play: SeatPlay, *, connection: str, rematch: SeatRematch | None = None):
        self.play = play
        self.connection = connection
        self.rematch = rematch
        self.outcome: SeatOutcome | None = None
        self.peer: Peer | None = None
        self.score = Score()

    @property
    def left_transcript(self) -> Path | None:
        """After the player left before the end: the transcript written for the seat, if any
        (its ``bye`` was signed: net/table.py)."""
        path = self.peer.session.transcript_path if self.peer is not None and self.outcome is None else None
        return Path(path) if path and Path(path).is_file() else None

    async def __call__(self, started: TableStart) -> None:
        words = TableWords()

        def on_words(found: TableWords) -> None:
            nonlocal words
            words = found

        def on_peer(peer: Peer) -> None:
            self.peer = peer
            started(peer.session, words=words.words, words_problem=words.problem, connection=self.connection)

        try:
            self.outcome = await self.play(on_peer, started.waiting, on_words)
        except (LobbyError, ConnectionClosed, OSError) as exc:
            raise LobbyProblem(f"the table did not start: {exc}") from None
        check_outcome(self.outcome)
        if self.rematch is not None:

            def on_outcome(outcome: SeatOutcome) -> None:
                self.outcome = outcome

            def on_rematch_peer(peer: Peer) -> None:
                self.peer = peer

            await offer_rematches(
                started,
                self.outcome,
                self.rematch,
                connection=self.connection,
                score=self.score,
                on_outcome=on_outcome,
                on_peer=on_rematch_peer,
            )


def check_outcome(outcome: SeatOutcome) -> None:
    """A game that stopped: :class:`LobbyProblem` saying why (the console shows it)."""
    if outcome.aborted is not None:
        saved = f"; transcript saved to {outcome.transcript}" if outcome.transcript else ""
        if outcome.problem:
            saved = f"; {outcome.problem}"
        reason = getattr(outcome.aborted, "detail", outcome.aborted.reason)
        raise LobbyProblem(f"the game stopped: {reason}{saved}")


async def offer_rematches(
    started: TableStart,
    last: SeatOutcome,
    rematch: SeatRematch,
    *,
    connection: str,
    score: Score,
    on_outcome: Callable[[SeatOutcome], None] | None = None,
    on_peer: Callable[[Peer], None] | None = None,
) -> SeatOutcome:
    """After the finished game ``last``: offer its rematch (``again``) on the end screen, play
    it once every seat agreed, and offer the next, until one is declined (the end screen says
    by whom). Returns the last game's outcome; :class:`LobbyProblem` if a rematch stopped."""
    words = TableWords()

    def on_words(found: TableWords) -> None:
        nonlocal words
        words = found

    outcome = last
    number = 1  # the game's number in this series: the first rematch is game 2
    while True:
        number += 1
        header = outcome.peer.header
        score.add(header, outcome.result)
        offer = Rematch(score, outcome.peer.seat, header.seats[0].name)
        started.offer_rematch(offer)

        def on_rematch_peer(peer: Peer, number: int = number) -> None:
            if on_peer is not None:
                on_peer(peer)
            started(
                peer.session,
                words=words.words,
                words_problem=words.problem,
                connection=connection,
                notes=[f"rematch: game {number}; {score.text()}"],
                rematch=number,
            )

        left = False
        failed: Exception | None = None
        next_outcome: SeatOutcome | None = None
        async with trio.open_nursery() as nursery:

            async def leave_when_declined() -> None:
                nonlocal left
                await offer.declined.wait()
                with trio.move_on_after(DECLINE_SECONDS):  # seated in the room: say bye there
                    while offer.roster is None and offer.me != 0:
                        await trio.sleep(0.05)
                left = True
                nursery.cancel_scope.cancel()  # leaving the room says bye (net/lobby.py)

            nursery.start_soon(leave_when_declined)
            try:  # caught here: trio would wrap it in an ExceptionGroup
                next_outcome = await rematch(offer.agreement, offer.on_roster, on_rematch_peer, on_words)
            except (LobbyError, ConnectionClosed, OSError) as exc:
                failed = exc
            nursery.cancel_scope.cancel()
        if failed is not None:
            offer.close(str(failed))
            return outcome
        if left or next_outcome is None:
            offer.close("you left")
            return outcome
        outcome = next_outcome
        if on_outcome is not None:
            on_outcome(outcome)
        check_outcome(outcome)


#: A rematch's callbacks, as the end screen hands them: the agreement, the roster, the peer,
#: the table words.
AgainCallbacks = tuple[trio.Event, Callable[[Roster], None], Callable[[Peer], None], Callable[[TableWords], None]]


async def _host_again(
    host: PluginHost,
    last: list[SeatOutcome],
    callbacks: AgainCallbacks,
    *,
    interface: str,
    transcript_dir: Path,
    port: int | None = None,
    bot_peers: Sequence[tuple[int, Identity]] | None = None,
    bot_name: str = "strategic",
    bot_delay: float = 0.0,
) -> SeatOutcome:
    """Host the rematch of ``last[0]``'s game, played in person; ``last`` becomes its outcomes."""
    agreement, on_roster, on_peer, on_words = callbacks
    outcomes = await host_rematch(
        host,
        last,
        interface=interface,
        port=port,
        agent=person,
        agreement=agreement,
        bot_peers=bot_peers,
        bot_name=bot_name,
        bot_delay=bot_delay,
        transcript_dir=transcript_dir,
        on_roster=on_roster,
        on_peer=on_peer,
        on_words=on_words,
        persist=True,
        history=True,
    )
    last[:] = outcomes
    return outcomes[0]


async def _join_again(
    host: PluginHost,
    last: list[SeatOutcome],
    callbacks: AgainCallbacks,
    *,
    listen_host: str,
    transcript_dir: Path,
    listen_port: int = 0,
) -> SeatOutcome:
    """Sit down at the rematch of ``last[0]``'s game, played in person; ``last`` becomes it."""
    agreement, on_roster, on_peer, on_words = callbacks
    outcome = await join_rematch(
        host,
        last[0],
        listen_host=listen_host,
        listen_port=listen_port,
        agent=person,
        agreement=agreement,
        transcript_dir=transcript_dir,
        on_roster=on_roster,
        on_peer=on_peer,
        on_words=on_words,
        persist=True,
        history=True,
    )
    last[:] = [outcome]
    return outcome


def hosted_seat(
    host: PluginHost,
    identity: Identity,
    game_id: str,
    *,
    options: Mapping[str, Any],
    players: int,
    name: str,
    interface: str,
    port: int,
    bots: int,
    bot_name: str,
    bot_delay: float,
    transcript_dir: Path,
    timeouts: Timeouts,
    rematch: bool = False,
    spectator_chat: bool = False,
    table_name: str = "",
) -> SeatTable:
    """Open a table on ``interface`` (seat 0, played in person as ``name``; ``table_name``
    names the table in the lobby, else ``name`` does) with ``bots`` bot peers; with
    ``rematch``, offer a rematch there after a finished game."""
    game = host.game(game_id)
    last: list[SeatOutcome] = []  # our outcome and our bot peers', of the last game
    bound_port = port

    async def play(
        on_peer: Callable[[Peer], None], waiting: Callable[[str], None], on_words: Callable[[TableWords], None]
    ) -> SeatOutcome:
        opened = ""  # where the table is stays on screen: the others need it to join

        def on_port(bound: int) -> None:
            nonlocal opened, bound_port
            bound_port = bound
            called = printable(table_called(table_name or name))
            opened = f"{called} ({game.name}, {players} seats) is open at {where(interface, bound)}"
            waiting(f"{opened}\nwaiting for {players - 1 - bots} player(s)")

        def on_roster(roster: Roster) -> None:
            waiting(f"{opened}\n{roster_text(roster.names, roster.ready, roster.bots)}")

        outcomes = await host_table(
            host,
            identity,
            game_id,
            options=options,
            players=players,
            agent=person,
            name=name,
            interface=interface,
            port=port,
            bots=bots,
            bot_name=bot_name,
            bot_delay=bot_delay,
            transcript_dir=transcript_dir,
            timeouts=timeouts,
            on_port=on_port,
            on_roster=on_roster,
            on_peer=on_peer,
            on_words=on_words,
            persist=True,
            history=True,
            spectator_chat=spectator_chat,
            table_name=table_name,
        )
        last[:] = outcomes
        return outcomes[0]

    async def again(
        agreement: trio.Event,
        on_roster: Callable[[Roster], None],
        on_peer: Callable[[Peer], None],
        on_words: Callable[[TableWords], None],
    ) -> SeatOutcome:
        return await _host_again(
            host,
            last,
            (agreement, on_roster, on_peer, on_words),
            interface=interface,
            port=bound_port,
            bot_name=bot_name,
            bot_delay=bot_delay,
            transcript_dir=transcript_dir,
        )

    return SeatTable(play, connection=f"on the network ({where(interface)})", rematch=again if rematch else None)


def terms_text(host: PluginHost, terms: TableTerms) -> str:
    """What a joiner's screen says of the table it sat at, before the game starts: the game by
    its name, its options in words (as the lobby's room shows them) and its timeouts."""
    game = host.games.get(terms.game)  # its name ("Cal's BS"), not its id
    name = printable(game.name if game is not None else str(terms.game))
    options = options_words(game.options if game is not None else (), terms.options)
    return f"{name}{': ' + options if options else ''}\ntimeouts: {terms.timeouts.describe()}"


def joined_seat(
    host: PluginHost,
    identity: Identity,
    find: Callable[[], Awaitable[tuple[str, int]]],
    *,
    name: str,
    listen_host: str,
    transcript_dir: Path,
    label: str,
    rematch: bool = False,
    listen_port: int = 0,
) -> SeatTable:
    """Join the table ``find()`` locates (``label`` names it while looking) and play the seat
    in person; ready at once, as ``p2pcards join`` always is. The others dial us at
    ``listen_host:listen_port`` (0: any free port), in each rematch too. With ``rematch``, sit down at its
    host's rematch after a finished game (agreed to by ``again``)."""
    last: list[SeatOutcome] = []

    async def play(
        on_peer: Callable[[Peer], None], waiting: Callable[[str], None], on_words: Callable[[TableWords], None]
    ) -> SeatOutcome:
        waiting(f"looking for the table {label}")
        address, port = await find()
        waiting(f"joining the table at {address}:{port}")

        shown = ""  # the table's terms, from the host when we sit

        def on_seated(seat: int, terms: TableTerms) -> None:
            nonlocal shown
            shown = "\n" + terms_text(host, terms)

        def on_roster(roster: Roster) -> None:
            waiting(roster_text(roster.names, roster.ready, roster.bots) + shown)

        outcome = await join_table(
            host,
            identity,
            address,
            port,
            name=name,
            agent=person,
            listen_host=listen_host,
            listen_port=listen_port,
            transcript_dir=transcript_dir,
            on_roster=on_roster,
            on_peer=on_peer,
            on_words=on_words,
            persist=True,
            on_seated=on_seated,
            history=True,
        )
        last[:] = [outcome]
        return outcome

    async def again(
        agreement: trio.Event,
        on_roster: Callable[[Roster], None],
        on_peer: Callable[[Peer], None],
        on_words: Callable[[TableWords], None],
    ) -> SeatOutcome:
        return await _join_again(
            host,
            last,
            (agreement, on_roster, on_peer, on_words),
            listen_host=listen_host,
            transcript_dir=transcript_dir,
            listen_port=listen_port,
        )

    return SeatTable(play, connection=f"on the network ({where(listen_host)})", rematch=again if rematch else None)


def resumed_seat(
    host: PluginHost,
    folder: Path,
    *,
    transcript_dir: Path,
    rematch: bool = False,
    bot_peers: Sequence[tuple[int, Identity]] = (),
    bot_name: str = "strategic",
    bot_delay: float = 0.0,
) -> SeatTable:
    """Bring back a seat played in person whose program stopped mid-game: replay its journal,
    reconnect to the other seats and play on in the console. With ``rematch``, a finished game
    is offered again as at any table played in person: the host's seat opens the rematch
    (``bot_peers``: ``(seat, identity)`` of the bot peers it hosted, resumed in programs of
    their own: it seats them again itself), a joiner's sits down at it."""
    last: list[SeatOutcome] = []

    async def play(
        on_peer: Callable[[Peer], None], waiting: Callable[[str], None], on_words: Callable[[TableWords], None]
    ) -> SeatOutcome:
        waiting(f"coming back to the table saved in {folder}")
        outcome = await resume_seat(folder, host, person, transcript_dir=transcript_dir, on_peer=on_peer, history=True)
        last[:] = [outcome]
        return outcome

    async def again(
        agreement: trio.Event,
        on_roster: Callable[[Roster], None],
        on_peer: Callable[[Peer], None],
        on_words: Callable[[TableWords], None],
    ) -> SeatOutcome:
        header, me = last[0].peer.header, last[0].peer.seat
        callbacks = (agreement, on_roster, on_peer, on_words)
        if me == 0:
            return await _host_again(
                host,
                last,
                callbacks,
                interface=header.seats[0].host,  # where the table was: the others look there
                bot_peers=bot_peers,
                bot_name=bot_name,
                bot_delay=bot_delay,
                transcript_dir=transcript_dir,
            )
        return await _join_again(
            host, last, callbacks, listen_host=header.seats[me].host, transcript_dir=transcript_dir
        )

    return SeatTable(play, connection="on the network (resumed)", rematch=again if rematch else None)

"""``p2pcards watch`` in the console: the table screen for someone watching without a seat.

:class:`WatchTable` is a table runner (see :mod:`.app`): it watches the table through one
seat (p2pcards/net/watch.py), feeds the public entries as they come to a session without a
seat (p2pcards/net/spectate.py) and shows it like a player's table: the seats and their
counts, the pile, the story of the game, the scores; no hand, and no face that was not turned
up for everyone. At the end the seat sends the rest of the log: the transcript is written and
verified, and the audit shows every card.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from ..game import IllegalAction, seat_options
from ..net.lobby import LobbyError, rematch_problem
from ..net.rematch import FIND_SECONDS, ROOM_SECONDS, names_text, no_rematch_after_leavers
from ..net.spectate import SpectatorDeck, SpectatorFeed, WatchEnded, spectator_session
from ..net.transport import Connection, ConnectionClosed, connect
from ..net.watch import Watched, WatchError, watch_table
from ..plugins import PluginHost
from ..session import TableSession
from ..table.header import TableHeader
from ..table.protocol import LEFT_TO_BOT
from ..text import printable
from ..verify import Report
from ..wire.identity import Identity
from .lobby import LobbyProblem

if TYPE_CHECKING:  # (the app imports the lobby, which may import this)
    from .app import TableStart

__all__ = ["WatchTable"]

#: Other spectators' chat lines shown, at most, per watch.
MAX_SAID = 1000
#: After a finished game, how long a spectator looks for its rematch (the rematch's room waits
#: as long for every player to agree: net/rematch.ROOM_SECONDS), and between two looks.
FOLLOW_SECONDS = ROOM_SECONDS
FOLLOW_EVERY = 2.0
#: Once the rematch's room was seen open, how long nothing may listen at the host's address
#: before the spectator says there is no rematch (a room that closes because a player left
#: opens again at once, smaller, when the game allows it).
CLOSED_SECONDS = 2.0


class _NotTheRematch(Exception):
    """A look at the host's address found a table that is not the rematch to follow: the
    last game's own (its seat still lingers: ``problem`` None, look again), or another table
    (``problem`` says why)."""

    def __init__(self, problem: str | None = None):
        super().__init__(problem or "the last game's table")
        self.problem = problem


class _NoTable(Exception):
    """A look reached the host's program but no table there let us watch (its rematch room:
    the players are agreeing)."""


def header_of(watched: Watched) -> TableHeader:
    return watched.header


class WatchTable:
    """Watch one table (its seat at ``host:port``) in the console, to its end."""

    def __init__(
        self,
        host: str,
        port: int,
        identity: Identity,
        plugins: PluginHost,
        *,
        name: str,
        transcript_dir: Path,
        follow: bool = False,
    ):
        self.host, self.port = host, port
        #: After a finished game, follow the table into its rematch (:meth:`_find_rematch`).
        self.follow = follow
        self.identity = identity
        self.plugins = plugins
        self.name = name
        self.transcript_dir = transcript_dir
        self.session: TableSession | None = None
        #: The public entries of the table watched last (who left and let a bot play on).
        self.feed: SpectatorFeed | None = None
        self.watched: Watched | None = None
        #: How it ended: the transcript's verdict line, or why watching stopped.
        self.outcome: str | None = None
        #: ``p2pcards verify``'s report on the transcript written at the end.
        self.report: Report | None = None

    async def __call__(self, started: TableStart) -> None:
        started.waiting(f"connecting to the seat at {self.host}:{self.port} to watch its table")
        header = await self._watch(started, self.host, self.port)
        number = 1
        while self.follow and header is not None:
            number += 1
            header = await self._find_rematch(started, header, number)

    async def _find_rematch(self, started: TableStart, last: TableHeader, number: int = 2) -> TableHeader | None:
        """After a finished game: look at its host's address for the rematch (the players'
        programs open it there once they have agreed to one, p2pcards/net/rematch.py) until it
        starts, the player leaves, there is none (the room closed, or never opened), or
        :data:`FOLLOW_SECONDS` pass. The look that finds the rematch goes on as its watch
        (game ``number`` of the series: one connection, so the players read "eve is watching
        the table" once); returns that game's header once it finished, else ``None``."""
        session = self.session
        host, port = last.seats[0].host, last.seats[0].port
        names = [printable(s.name) for s in last.seats]
        shown: set[str] = set()

        def tell(kind: str, text: str) -> None:
            if kind not in shown and session is not None:
                shown.add(kind)
                session.publish("notice", text)

        # Who left during the game and let a bot finish the seat (that seat's own signed word):
        # when the host is one, or too few are left, no rematch can come: say so now, in the
        # players' words, instead of "the players are starting a rematch" for ten minutes.
        feed = self.feed if self.feed is not None and self.feed.header.table == last.table else None
        gone = {
            seat
            for seat, entries in enumerate(feed.by_seat if feed is not None else [])
            for entry in entries.values()
            if entry.kind == "chat" and isinstance(entry.body, dict) and entry.body.get("text") == LEFT_TO_BOT
        }
        try:
            no_rematch_after_leavers(self.plugins, last, gone, -1)
        except LobbyError as exc:
            reason = str(exc).removesuffix(": no rematch")
            tell("none", f"no rematch: {reason}; type 'quit' to leave")
            return None
        tell(
            "looking",
            f"if the players start a rematch, this screen follows it ({printable(names[0])}'s table, "
            f"{printable(host)}:{port}); type 'quit' to leave",
        )
        by_seat = seat_options(self.plugins.games.get(last.game))

        def accept(header: TableHeader) -> None:
            """The header of the table found there: the rematch is watched on; else the look ends."""
            if header.table == last.table:
                raise _NotTheRematch()
            problem = rematch_problem(last, header, by_seat)
            if problem is not None:
                raise _NotTheRematch(problem)
            tell("found", f"the rematch starts: {names_text([s.name for s in header.seats])}")

        start = trio.current_time()
        deadline = start + FOLLOW_SECONDS
        room_seen = False  # a look reached the rematch's room (the players are agreeing)
        gone_since: float | None = None  # since when the host's address answers no more
        while trio.current_time() < deadline:
            if started.chosen() is not None:
                return None
            wait = FOLLOW_EVERY
            try:
                conn = await connect(host, port)
            except ConnectionClosed:
                # Nothing listens there. Once the room was open, it closed: a player left it
                # (the host's bye reaches only the seated players; the host opens a smaller
                # room at once when the game allows it, so look once more first). Never open
                # within the time a joiner gives it: the host's program is gone.
                now = trio.current_time()
                gone_since = now if gone_since is None else gone_since
                if room_seen and now - gone_since >= CLOSED_SECONDS:
                    tell("none", "no rematch: the players' room closed (a player left it); type 'quit' to leave")
                    return None
                if not room_seen and now - start >= FIND_SECONDS:
                    tell(
                        "none",
                        f"no rematch: {printable(names[0])}'s table did not open again within "
                        f"{FIND_SECONDS:g} s; type 'quit' to leave",
                    )
                    return None
                wait = CLOSED_SECONDS / 2 if room_seen else FOLLOW_EVERY
            else:
                gone_since = None
                try:
                    return await self._watch(started, host, port, last, number, accept=accept, conn=conn)
                except _NotTheRematch as exc:
                    if exc.problem is not None:
                        other = f"the table at {printable(host)}:{port} is not a rematch of this one"
                        tell("other", f"{other}: {exc.problem}")
                        return None
                except _NoTable:
                    # Refused while no table plays there: the room is open (the players are
                    # agreeing): the host's program answers, and no table lets us watch.
                    room_seen = True
                    tell("room", "the players are starting a rematch: this screen follows it when it starts")
            with trio.move_on_after(wait):
                while started.chosen() is None:
                    await trio.sleep(0.1)
        tell("none", f"no rematch started within {FOLLOW_SECONDS:g} s; type 'quit' to leave")
        return None

    async def _watch(
        self,
        started: TableStart,
        host: str,
        port: int,
        rematch_of: TableHeader | None = None,
        number: int = 0,
        *,
        accept: Callable[[TableHeader], None] | None = None,
        conn: Connection | None = None,
    ) -> TableHeader | None:
        """Watch the table whose seat listens at ``host:port`` (on ``conn`` if given) to its
        end (a rematch: game ``number`` of the series); its header if the game finished (a
        rematch may follow). With ``accept`` this is a look first: ``accept(header)`` raises
        :class:`_NotTheRematch` for a table not to watch, and a watch refused before any
        header raises :class:`_NoTable` (both out of this method)."""
        feed: SpectatorFeed | None = None
        failure: BaseException | None = None
        refused: WatchError | None = None
        looked: Exception | None = None  # why a look (``accept``) watches nothing
        accepted = False
        watched: Watched | None = None
        problem: str | None = None
        say_send, say = trio.open_memory_channel[str](16)

        async with trio.open_nursery() as nursery:

            def on_header(header: TableHeader) -> None:
                nonlocal feed, accepted
                if accept is not None:
                    accept(header)
                accepted = True
                game = self.plugins.games.get(header.game)
                if game is None:
                    raise WatchError(f"this computer does not have the table's game {printable(header.game)!r}")
                try:
                    # The header is the seat's word: options the game cannot play end the
                    # watch with a reason, not an exception that takes the screen down.
                    game.check_table_options(header.options, header.players)
                    feed = self.feed = SpectatorFeed(header)
                    session = spectator_session(header, game, feed)
                except Exception as exc:
                    raise WatchError(f"the table's header does not fit its game: {printable(str(exc))[:300]}") from None
                self.session = session

                def on_say(text: str) -> None:
                    if not header.spectator_chat:
                        session.publish("error", "this table does not let spectators chat: nobody else saw that")
                        return
                    try:
                        say_send.send_nowait(text)
                    except trio.WouldBlock:
                        session.publish("error", "slow down: that line was not sent")

                session.on_say = on_say
                session.spectator_name = f"{printable(self.name)} (watching)"
                seat = next((s.name for s in header.seats if s.port == port), None)
                through = f" through {printable(seat)}" if seat else ""
                started(
                    self.session,
                    connection=f"watching{through} ({host}:{port})",
                    notes=[
                        f"you watch as {printable(self.name)}: the players see your name",
                        "this table lets spectators chat: 'say TEXT' reaches the players"
                        if header.spectator_chat
                        else "this table does not let spectators chat",
                        *([f"rematch: game {number}"] if rematch_of is not None else []),
                    ],
                    rematch=number if rematch_of is not None else 0,
                )
                nursery.start_soon(run_session, self.session)

            async def run_session(session: TableSession) -> None:
                nonlocal failure
                try:
                    await session.run()
                except WatchEnded as exc:
                    failure = exc
                except IllegalAction as exc:  # a move every seat refuses too: whose it was
                    acting = session.acting
                    who = session.names[acting] if acting is not None and 0 <= acting < len(session.names) else None
                    failure = IllegalAction(f"{who}'s move was refused: {exc}") if who else exc
                except Exception as exc:  # a plugin's bug, or an entry the game refuses
                    failure = exc

            said = [0]

            def on_said(name: str, text: str) -> None:
                # Lines the seat relays are its word: shown, and only so many (a seat that
                # floods them fills no screen).
                said[0] += 1
                if self.session is not None and said[0] <= MAX_SAID:
                    self.session.publish("chat", f"{name} (watching): {text}", spectator=name)

            def on_entry(entry: Any) -> None:
                if feed is not None:
                    feed.add(entry)

            try:
                self.watched = await watch_table(
                    host,
                    port,
                    self.identity,
                    name=self.name,
                    games=self.plugins.rules_versions(),
                    transcript_dir=self.transcript_dir,
                    on_header=on_header,
                    on_entry=on_entry,
                    on_said=on_said,
                    say=say,
                    conn=conn,
                )
            except _NotTheRematch as exc:
                looked = exc
                nursery.cancel_scope.cancel()
            except WatchError as exc:
                # Raised after the nursery: inside it, trio would wrap it in an ExceptionGroup
                # that the console does not take for a table that stopped.
                if accept is not None and not accepted and "closed the connection" in str(exc):
                    # The room's way with a 'watch': its connection closed, no word (a seat
                    # that lingers after its game says "no more spectators" in a bye).
                    looked = _NoTable(str(exc))
                elif accept is not None and not accepted:
                    looked = _NotTheRematch()  # not a table to watch (yet): look again
                else:
                    refused = exc
                nursery.cancel_scope.cancel()
            else:
                watched = self.watched
                problem = watched.problem
                if problem is None and watched.end is not None and watched.end.status != "finished":
                    problem = f"the table's game did not finish ({printable(watched.end.status)})"
                if feed is not None:
                    feed.close(problem, watched.transcript)
        if looked is not None:
            raise looked
        if refused is not None:
            self.outcome = str(refused)
            if rematch_of is not None:  # the last game's screen stays; say why this one did not
                if self.session is not None:
                    self.session.publish("error", f"cannot watch the rematch: {printable(str(refused))[:300]}")
                return None
            raise LobbyProblem(printable(str(refused)))
        assert watched is not None, "watch_table returned"
        session = self.session
        if failure is not None or session is None or session.result is None:
            why = str(failure) if failure is not None else (problem or "the seat sent nothing of the game")
            self.outcome = why
            raise LobbyProblem(printable(why))
        deck = session.deck
        assert isinstance(deck, SpectatorDeck), "a spectator's session has a spectator's deck"
        if watched.transcript is not None:
            session.transcript_path = str(watched.transcript)
            session.transcript_saved = True
        self.report = report = deck.report
        verdict = report.verdict if report is not None else "not verified"
        self.outcome = f"transcript: {watched.transcript}: {verdict}"
        problem = report.problem_line() if report is not None else ""
        session.publish("notice", f"the transcript is {verdict}" + (f": {problem}" if problem else ""))
        return header_of(watched)

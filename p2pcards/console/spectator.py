"""``p2pcards watch`` in the console: the table screen for someone watching without a seat.

:class:`WatchTable` is a table runner (see :mod:`.app`): it watches the table through one
seat (p2pcards/net/watch.py), feeds the public entries as they come to a session without a
seat (p2pcards/net/spectate.py) and shows it like a player's table: the seats and their
counts, the pile, the story of the game, the scores; no hand, and no face that was not turned
up for everyone. At the end the seat sends the rest of the log: the transcript is written and
verified, and the audit shows every card.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from ..net.spectate import SpectatorDeck, SpectatorFeed, WatchEnded, spectator_session
from ..net.watch import Watched, WatchError, watch_table
from ..plugins import PluginHost
from ..session import TableSession
from ..table.header import TableHeader
from ..text import printable
from ..verify import Report
from ..wire.identity import Identity
from .lobby import LobbyProblem

if TYPE_CHECKING:  # (the app imports the lobby, which may import this)
    from .app import TableStart

__all__ = ["WatchTable"]

#: Other spectators' chat lines shown, at most, per watch.
MAX_SAID = 1000


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
    ):
        self.host, self.port = host, port
        self.identity = identity
        self.plugins = plugins
        self.name = name
        self.transcript_dir = transcript_dir
        self.session: TableSession | None = None
        self.watched: Watched | None = None
        #: How it ended: the transcript's verdict line, or why watching stopped.
        self.outcome: str | None = None
        #: ``p2pcards verify``'s report on the transcript written at the end.
        self.report: Report | None = None

    async def __call__(self, started: TableStart) -> None:
        started.waiting(f"connecting to the seat at {self.host}:{self.port} to watch its table")
        feed: SpectatorFeed | None = None
        failure: BaseException | None = None
        refused: WatchError | None = None
        watched: Watched | None = None
        problem: str | None = None
        say_send, say = trio.open_memory_channel[str](16)

        async with trio.open_nursery() as nursery:

            def on_header(header: TableHeader) -> None:
                nonlocal feed
                game = self.plugins.games.get(header.game)
                if game is None:
                    raise WatchError(f"this computer does not have the table's game {printable(header.game)!r}")
                try:
                    # The header is the seat's word: options the game cannot play end the
                    # watch with a reason, not an exception that takes the screen down.
                    game.check_table_options(header.options, header.players)
                    feed = SpectatorFeed(header)
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
                seat = next((s.name for s in header.seats if s.port == self.port), None)
                through = f" through {printable(seat)}" if seat else ""
                started(
                    self.session,
                    connection=f"watching{through} ({self.host}:{self.port})",
                    notes=[
                        f"you watch as {printable(self.name)}: the players see your name",
                        "this table lets spectators chat: 'say TEXT' reaches the players"
                        if header.spectator_chat
                        else "this table does not let spectators chat",
                    ],
                )
                nursery.start_soon(run_session, self.session)

            async def run_session(session: TableSession) -> None:
                nonlocal failure
                try:
                    await session.run()
                except WatchEnded as exc:
                    failure = exc
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
                    self.host,
                    self.port,
                    self.identity,
                    name=self.name,
                    games=self.plugins.rules_versions(),
                    transcript_dir=self.transcript_dir,
                    on_header=on_header,
                    on_entry=on_entry,
                    on_said=on_said,
                    say=say,
                )
            except WatchError as exc:
                # Raised after the nursery: inside it, trio would wrap it in an ExceptionGroup
                # that the console does not take for a table that stopped.
                refused = exc
                nursery.cancel_scope.cancel()
            else:
                watched = self.watched
                problem = watched.problem
                if problem is None and watched.end is not None and watched.end.status != "finished":
                    problem = f"the table's game did not finish ({printable(watched.end.status)})"
                if feed is not None:
                    feed.close(problem, watched.transcript)
        if refused is not None:
            self.outcome = str(refused)
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

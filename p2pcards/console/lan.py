"""The LAN lobby backend: :class:`LanLobby` implements :class:`~.lobby.LobbyBackend` over the
network layer (zeroconf discovery, :func:`~p2pcards.net.runner.host_table` and
:func:`~p2pcards.net.runner.join_table`).

One table at a time: creating or joining starts a trio task in the backend's nursery that lives
through the lobby and the game; the console sees the game through the peer's
:class:`~p2pcards.session.TableSession` (a :class:`~p2pcards.session.HumanSeat` in the local
seat) and hears about everything else through :class:`~.lobby.LobbyEvent`.

``interface`` is an IPv4 address to listen, announce and browse on; ``None`` means every
interface (real LAN play). Tests use ``127.0.0.1`` only.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import trio

from ..net.discovery import TableAdvert, watch
from ..net.lobby import ANY_ADDRESS, HostedLobby, LobbyError, Roster, TableTerms
from ..net.rematch import host_rematch, join_rematch
from ..net.runner import AgentFactory, host_table, join_table
from ..net.table import SeatOutcome
from ..net.transport import ConnectionClosed
from ..plugins import PluginHost, variant_text
from ..session import HumanSeat, TableSession
from ..table.header import TableHeader
from ..table.timeouts import Timeouts
from ..wire.identity import Identity, TableWords
from .lobby import GameChoice, GameEnd, LobbyEvent, LobbyProblem, OptionChoice, SeatInfo, TableAd, TableRoom
from .spectator import WatchTable

__all__ = ["LanLobby", "game_choices"]


def game_choices(host: PluginHost) -> list[GameChoice]:
    """The installed games and their options, sorted by name."""
    out = []
    for game in sorted(host.games.values(), key=lambda g: g.name.lower()):
        options = tuple(
            OptionChoice(
                o.name, o.type.__name__, o.default, o.help, tuple(o.choices), o.minimum, o.maximum, o.label, o.values
            )
            for o in game.options
        )
        variants = tuple((v, dict(values), variant_text(game, v)) for v, values in game.variants.items())
        out.append(GameChoice(game.id, game.name, game.min_players, game.max_players, options, variants))
    return out


class LanLobby:
    """Tables on the LAN, and the one this peer sits at."""

    def __init__(
        self,
        host: PluginHost,
        identity: Identity,
        *,
        name: str,
        interface: str | None,
        transcript_dir: Path,
        bot_name: str = "strategic",
        bot_delay: float = 0.5,
        timeouts: Timeouts = Timeouts(),
        seat_agent: AgentFactory | None = None,
        port: int = 0,
    ):
        self.host = host
        #: The TCP port our seat listens on (0: any free one): a table we create opens there
        #: (its rematch too), and the other seats dial us there at a table we join.
        self.port = port
        self.identity = identity
        self.name = name
        self.interface = interface
        self.listen = interface or ANY_ADDRESS
        self.transcript_dir = transcript_dir
        self.transcripts: list[str] = []  # saved by this run's games, for the shell after 'quit'
        self._hosted: HostedLobby | None = None  # the lobby of the table we host, while it waits
        self.bot_name = bot_name
        self.bot_delay = bot_delay
        self.timeouts = timeouts
        # Who plays this peer's seat: the person at the console unless told otherwise (tests
        # run a whole table of bots through the same backend).
        self.seat_agent: AgentFactory = seat_agent or (lambda game, seat, options: HumanSeat())
        self._adverts: dict[str, TableAdvert] = {}
        self._subscribers: list[Callable[[LobbyEvent], None]] = []
        self._nursery: trio.Nursery | None = None
        self._room: TableRoom | None = None
        self._table_scope: trio.CancelScope | None = None
        self._ready = trio.Event()
        self._session: TableSession | None = None
        self._words = TableWords()  # of the table that is starting
        self._ended: trio.Event | None = None
        self._end: GameEnd | None = None
        #: The last table's outcomes at this peer (ours first, then our bot peers' when we
        #: hosted it): what its rematch is made of (:meth:`rematch`).
        self._last: list[SeatOutcome] = []

    # -- plain queries ------------------------------------------------------------------------

    def fingerprint(self) -> str:
        return self.identity.fingerprint

    def where(self) -> str:
        return self.interface or "every interface"

    def games(self) -> Sequence[GameChoice]:
        return game_choices(self.host)

    def tables(self) -> list[TableAd]:
        own = self._room.table.table_id if self._room else None
        ads = [self._ad(a) for a in self._adverts.values() if a.table != own]
        # Tables with free seats first, then full ones, then those playing (to watch); by name.
        return sorted(ads, key=lambda t: (t.playing, t.seats_taken >= t.seats_total, t.host_name.lower(), t.table_id))

    def room(self) -> TableRoom | None:
        return self._room

    def session(self) -> TableSession | None:
        return self._session

    def subscribe(self, callback: Callable[[LobbyEvent], None]) -> None:
        self._subscribers.append(callback)

    def _emit(self, kind: str, text: str = "") -> None:
        event = LobbyEvent(kind, text)
        for callback in list(self._subscribers):
            callback(event)

    def _ad(self, advert: TableAdvert) -> TableAd:
        game = self.host.games.get(advert.game)
        return TableAd(
            table_id=advert.table,
            game_id=advert.game,
            game_name=game.name if game else f"{advert.game} (not installed)",
            host_name=advert.name,
            seats_taken=advert.seats - advert.free,
            seats_total=advert.seats,
            address=advert.address,
            fingerprint=advert.fingerprint,
            playing=advert.playing,
        )

    # -- running ------------------------------------------------------------------------------

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        def on_tables(tables: dict[str, TableAdvert]) -> None:
            self._adverts = {a.table: a for a in tables.values()}
            self._emit("tables")

        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            async with watch(self.interface, on_tables):
                task_status.started()
                await trio.sleep_forever()

    def _check_free(self) -> None:
        if self._nursery is None:
            raise LobbyProblem("the lobby is not running")
        if self._room is not None:
            raise LobbyProblem("you are already at a table: 'leave' it first")
        self._last = []

    # -- a rematch ----------------------------------------------------------------------------

    def last_finished(self) -> SeatOutcome | None:
        """Our outcome of the last table, if its game finished here (it may be played again)."""
        last = self._last[0] if self._last else None
        return last if last is not None and last.aborted is None and last.result is not None else None

    async def rematch(
        self,
        agreement: trio.Event,
        on_roster: Callable[[Roster], None],
        on_peer: Callable[[Any], None],
        on_words: Callable[[TableWords], None],
    ) -> SeatOutcome:
        """The rematch of the last table (:mod:`p2pcards.net.rematch`), agreed to when
        ``agreement`` is set: we open it if we hosted that table, else we sit down at its
        host's. Outside the lobby's room: the console shows it as a table of its own."""
        last = self._last
        if not last:
            raise LobbyError("no game to play again")
        if last[0].peer.seat == 0:
            outcomes = await host_rematch(
                self.host,
                last,
                interface=self.listen,
                agent=self.seat_agent,
                agreement=agreement,
                bot_name=self.bot_name,
                bot_delay=self.bot_delay,
                transcript_dir=self.transcript_dir,
                on_roster=on_roster,
                on_peer=on_peer,
                on_words=on_words,
                persist=True,
                history=True,
            )
        else:
            outcomes = [
                await join_rematch(
                    self.host,
                    last[0],
                    listen_host=self.listen,
                    listen_port=self.port,
                    agent=self.seat_agent,
                    agreement=agreement,
                    transcript_dir=self.transcript_dir,
                    on_roster=on_roster,
                    on_peer=on_peer,
                    on_words=on_words,
                    persist=True,
                    history=True,
                )
            ]
        self._last = outcomes
        if outcomes[0].transcript:
            self.transcripts.append(str(outcomes[0].transcript))
        return outcomes[0]

    def _set_room(self, room: TableRoom | None, event: str = "room") -> None:
        self._room = room
        self._emit(event)

    def _seats(self, roster: Roster, me: int | None) -> tuple[SeatInfo, ...]:
        bots = roster.bots
        return tuple(
            SeatInfo(
                seat,
                name or None,
                bool(roster.ready[seat]) and bool(name),
                seat == me,
                bots[seat].by if seat in bots else None,
                bots[seat].kind if seat in bots else "",
            )
            for seat, name in enumerate(roster.names)
        )

    def _on_words(self, words: TableWords) -> None:
        self._words = words

    def _on_peer(self, peer: Any) -> None:
        """The game starts: the header is agreed and the words (:meth:`_on_words`) are known."""
        header: TableHeader = peer.header
        words, self._words = self._words, TableWords()
        self._session = peer.session
        room = self._room
        # Which seats are bots of another seat's computer: as the lobby's last roster said.
        bots = {s.seat: (s.bot_of, s.bot) for s in room.seats if s.bot_of is not None} if room else {}
        seats = tuple(
            SeatInfo(i, s.name, True, i == peer.seat, *bots.get(i, (None, ""))) for i, s in enumerate(header.seats)
        )
        self._room = TableRoom(
            TableAd(
                header.table.hex()[:12],
                header.game,
                self.host.game(header.game).name,
                header.seats[0].name,
                header.players,
                header.players,
                dict(header.options),
                room.table.address if room else "",
                header.seats[0].keys.fingerprint,
            ),
            seats,
            words.words,
            room.hosting if room else False,
            started=True,
            timeouts=header.timeouts.describe(),
            words_problem=words.problem,
        )
        self._ended = trio.Event()
        self._emit("started")

    def _finish(self, stopped: str | None, transcript: str | None) -> None:
        """The table task is over: after a game, or when the room closed before one."""
        self._end = GameEnd(stopped, transcript)
        if transcript:
            self.transcripts.append(transcript)
        self._room = None
        self._table_scope = None
        self._ready = trio.Event()
        if self._ended is not None:
            self._ended.set()
            self._emit("ended", stopped or "")
            return
        if stopped:
            self._emit("error", stopped)
        self._emit("room")

    def _finish_outcome(self, outcome: SeatOutcome) -> None:
        stopped = outcome.aborted.reason if outcome.aborted is not None else None
        self._finish(stopped, str(outcome.transcript) if outcome.transcript else None)

    async def game_over(self) -> GameEnd:
        if self._ended is None:
            raise LobbyProblem("no game has started")
        await self._ended.wait()
        self._ended = None
        self._session = None
        assert self._end is not None
        return self._end

    # -- creating a table ---------------------------------------------------------------------

    async def create(self, game_id: str, options: Mapping[str, Any], players: int, bots: int) -> TableRoom | None:
        self._check_free()
        options = dict(options)
        # Not a game option: whether spectators may chat (bound into the header).
        chat = str(options.pop("spectator_chat", "off")).lower()
        if chat not in ("on", "off", "true", "false", "yes", "no", "1", "0"):
            raise LobbyProblem("spectator_chat: on or off")
        try:
            game = self.host.game(game_id)
            resolved = game.resolve_options(options, players)
        except (LookupError, ValueError) as exc:
            raise LobbyProblem(str(exc)) from None
        if not 0 <= bots < players:
            raise LobbyProblem(f"bots: 0 to {players - 1} (one seat is yours)")
        opened: dict[str, Any] = {}

        def on_lobby(lobby: HostedLobby) -> None:
            opened["lobby"] = lobby
            self._hosted = lobby

        def on_port(port: int) -> None:
            opened["port"] = port
            task_status_box[0].started(port)

        task_status_box: list[Any] = []

        def on_roster(roster: Roster) -> None:
            if self._room is not None and not self._room.started:
                self._set_room(
                    TableRoom(self._room.table, self._seats(roster, 0), hosting=True, timeouts=self.timeouts.describe())
                )

        async def run_table(task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
            task_status_box.append(task_status)
            with trio.CancelScope() as scope:
                self._table_scope = scope
                try:
                    outcomes = await host_table(
                        self.host,
                        self.identity,
                        game_id,
                        options=resolved,
                        players=players,
                        agent=self.seat_agent,
                        name=self.name,
                        interface=self.listen,
                        port=self.port,
                        bots=bots,
                        bot_name=self.bot_name,
                        bot_delay=self.bot_delay,
                        transcript_dir=self.transcript_dir,
                        timeouts=self.timeouts,
                        on_port=on_port,
                        on_roster=on_roster,
                        on_lobby=on_lobby,
                        on_peer=self._on_peer,
                        on_words=self._on_words,
                        rng=random.Random(),
                        persist=True,  # 'p2pcards resume' brings the seat back after a crash
                        history=True,
                        spectator_chat=chat in ("on", "true", "yes", "1"),
                    )
                except (LobbyError, OSError) as exc:
                    if "port" not in opened:
                        raise
                    self._finish(f"the table closed: {exc}", None)
                    return
                self._last = list(outcomes)
                self._finish_outcome(outcomes[0])
            if scope.cancelled_caught:
                self._finish(None, None)

        try:
            assert self._nursery is not None, "checked by _check_free"
            port = await self._nursery.start(run_table)
        except OSError as exc:
            raise LobbyProblem(f"cannot open a table on {self.listen}: {exc}") from None
        except LobbyError as exc:
            raise LobbyProblem(str(exc)) from None
        lobby: HostedLobby = opened["lobby"]
        address = f"{self.interface}:{port}" if self.interface else f"port {port}"
        ad = TableAd(
            lobby.table.hex()[:12],
            game_id,
            game.name,
            self.name,
            1,
            players,
            resolved,
            address,
            self.identity.fingerprint,
        )
        if self._room is None:  # (bots may have filled the table and started it already)
            self._set_room(
                TableRoom(ad, self._seats(lobby.roster(), 0), hosting=True, timeouts=self.timeouts.describe())
            )
        return self._room

    # -- joining a table ----------------------------------------------------------------------

    async def join(self, table: str) -> TableRoom | None:
        self._check_free()
        address, sep, port_text = table.rpartition(":")
        if sep and port_text.isdigit():
            where, port = address, int(port_text)
            ad = TableAd(table, "", "?", "?", 0, 0, address=table)
        else:
            advert = self._adverts.get(table) or next((a for a in self._adverts.values() if a.name == table), None)
            if advert is None:
                raise LobbyProblem(f"no table {table!r} here (try 'connect HOST:PORT')")
            if advert.game not in self.host.games:
                raise LobbyProblem(f"that table plays {advert.game}, which is not installed here")
            if advert.free <= 0:
                raise LobbyProblem("that table is full")
            where, port, ad = advert.host, advert.port, self._ad(advert)
        try:
            assert self._nursery is not None, "checked by _check_free"
            await self._nursery.start(self._join_table, where, port, ad)
        except (LobbyError, ConnectionClosed, OSError) as exc:  # (ConnectionClosed: cannot reach it)
            raise LobbyProblem(str(exc)) from None
        return self._room

    def watch_table(self, table: str) -> WatchTable:
        """A table runner that watches the started table ``table`` (its id, or ``HOST:PORT``)."""
        address, sep, port_text = table.rpartition(":")
        if sep and port_text.isdigit():
            where, port = address, int(port_text)
        else:
            advert = self._adverts.get(table) or next((a for a in self._adverts.values() if a.name == table), None)
            if advert is None:
                raise LobbyProblem(f"no table {table!r} here (try 'watch HOST:PORT')")
            if not advert.playing:
                raise LobbyProblem("that table has not started yet: join it, or watch it once it plays")
            if advert.game not in self.host.games:
                raise LobbyProblem(f"that table plays {advert.game}, which is not installed here")
            where, port = advert.host, advert.port
        # A rematch is not announced: the screen follows the table into it ('new' goes back).
        return WatchTable(
            where, port, self.identity, self.host, name=self.name, transcript_dir=self.transcript_dir, follow=True
        )

    async def _join_table(
        self, where: str, port: int, ad: TableAd, task_status: Any = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Sit down (``task_status`` reports it), wait for the player's ``ready``, and play."""
        me: int | None = None  # the host tells us before its first roster
        terms: TableTerms | None = None  # and the table's game, options and timeouts
        seated_reported = False

        def on_seated(seat: int, offered: TableTerms) -> None:
            nonlocal me, terms
            me, terms = seat, offered

        def on_roster(roster: Roster) -> None:
            nonlocal seated_reported
            names = roster.names
            host_name = ad.host_name if ad.host_name != "?" else names[0]
            game_id, game_name, options, timeouts = ad.game_id, ad.game_name, ad.options, ""
            if terms is not None:  # what the host says the table is, shown before we say ready
                game = self.host.games.get(terms.game)
                game_id, game_name = terms.game, game.name if game else f"{terms.game} (not installed)"
                options, timeouts = terms.options, terms.timeouts.describe()
            table = TableAd(
                ad.table_id,
                game_id,
                game_name,
                host_name,
                sum(1 for n in names if n),
                len(names),
                options,
                ad.address,
                ad.fingerprint,
            )
            self._set_room(TableRoom(table, self._seats(roster, me), timeouts=timeouts))
            if not seated_reported:
                seated_reported = True
                task_status.started()

        with trio.CancelScope() as scope:
            self._table_scope = scope
            try:
                outcome = await join_table(
                    self.host,
                    self.identity,
                    where,
                    port,
                    name=self.name,
                    agent=self.seat_agent,
                    listen_host=self.listen,
                    listen_port=self.port,
                    transcript_dir=self.transcript_dir,
                    on_roster=on_roster,
                    on_peer=self._on_peer,
                    on_words=self._on_words,
                    ready=self._ready,
                    on_seated=on_seated,
                    persist=True,  # 'p2pcards resume' brings the seat back after a crash
                    history=True,
                )
            except LobbyError as exc:
                if me is None:
                    raise
                self._finish(f"left the table: {exc}", None)
                return
            self._last = [outcome]
            self._finish_outcome(outcome)
        if scope.cancelled_caught:
            self._finish(None, None)

    # -- in the room --------------------------------------------------------------------------

    async def ready(self) -> None:
        room = self._room
        if room is None:
            raise LobbyProblem("you are not at a table: 'join' one or 'create' one")
        if room.hosting:
            raise LobbyProblem("you host this table: it starts when every seat is taken and ready")
        self._ready.set()

    async def remove(self, seat: int) -> str:
        room, hosted = self._room, self._hosted
        if room is None or not room.hosting or hosted is None:
            raise LobbyProblem("only the host of a table can send a player away")
        if room.started:
            raise LobbyProblem("the game has started")
        if not 0 < seat < hosted.players:
            raise LobbyProblem(f"remove SEAT: a seat from 1 to {hosted.players - 1} (yours is 0)")
        try:
            return await hosted.remove(seat)
        except LobbyError as exc:
            raise LobbyProblem(str(exc)) from None

    async def leave(self) -> None:
        if self._room is None:
            raise LobbyProblem("you are not at a table")
        if self._room.started:
            raise LobbyProblem("the game has started: 'quit' to leave it")
        if self._table_scope is not None:
            self._table_scope.cancel()
        await trio.lowlevel.checkpoint()

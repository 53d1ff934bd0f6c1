"""The LAN lobby screen: tables found on the network, the create-a-table form, the room.

It talks only to a :class:`~.lobby.LobbyBackend`. :meth:`LobbyScreen.next_table` is the
console's table runner in LAN play: it shows the lobby until a table starts, hands the table's
session to the console, and waits for the game's end.

Key handlers run on prompt-toolkit's side; what must talk to peers is queued as a job for a trio
task (:meth:`LobbyScreen.worker`), one at a time.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import trio
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, Dimension, Float, HSplit, Window
from prompt_toolkit.widgets import Frame

from ..text import printable
from .controller import Feedback
from .lobby import GameChoice, LobbyBackend, LobbyEvent, LobbyProblem
from .lobbyview import LOBBY_WORDS, CreateForm, parse_lobby_command, room_lines, table_rows
from .render import SizedTextControl, WrappedTextControl

if TYPE_CHECKING:  # (app imports this module)
    from .app import TableRunner, TableStart

__all__ = ["LobbyScreen", "LOBBY_HELP"]

LOBBY_HELP = """The lobby
  Tables announced on your network are listed with their game, seats and the host's key
  fingerprint. Up/Down selects one; Enter on an empty line joins it (or watches it, if its
  game has started).

Commands
  create                          open the new-table form (also F2)
  create GAME [seats=N] [bots=K] [OPTION=VALUE ...]
                                  open a table at once, e.g. create cals-bs seats=3 bots=2
  join [N | ID]                   take a seat at table N of the list (default: the selected one)
  connect HOST:PORT               join a table discovery does not show
  watch [N | ID | HOST:PORT]      watch a table whose game has started (no seat, no hand)
  ready                           say you are ready; the game starts when every seat is
  leave                           leave the table before its game starts
  remove SEAT                     (the host) send the player in SEAT away before the game starts
  quit                            leave p2pcards (also Ctrl-D)

The new-table form
  Up/Down picks a field, Left/Right changes it, Enter opens the table, Esc closes the form.

Before you say ready
  Your table shows the game's options and timeouts (the game must keep them), and marks the seats
  bots on another seat's computer play: that computer holds their keys and can see their cards.

Table words
  When the game starts every screen shows the same few words, derived from the table, every
  player's key and a random number each player committed to before anyone revealed one. Read
  them aloud: different words, or "no table words", mean someone may be in the middle. The words
  do not say who a player is: look around the room for that.
"""

Job = Callable[[], Awaitable[None]]


class LobbyScreen:
    def __init__(self, backend: LobbyBackend, invalidate: Callable[[], None]):
        self.backend = backend
        self.invalidate = invalidate
        self.active = True  # showing the lobby (not a table)
        self.selected = 0
        self.form: CreateForm | None = None
        self.busy: str | None = None  # a job in progress, for the status line
        self.feedback = Feedback()
        self._jobs_send, self._jobs = trio.open_memory_channel[tuple[str, Job]](math.inf)
        self._started = trio.Event()
        self._rematch_scope: trio.CancelScope | None = None  # while a rematch is offered
        self._no_rematch = False  # 'new' typed at the end screen: no rematch
        self._watching: TableRunner | None = None  # 'watch N': the runner next_table runs
        backend.subscribe(self._on_event)

    # -- the backend --------------------------------------------------------------------------

    def _on_event(self, event: LobbyEvent) -> None:
        if event.kind == "started":
            self._started.set()
        elif event.kind == "error":
            self.feedback = Feedback(event.text, error=True)
        self.selected = min(self.selected, max(0, len(self.backend.tables()) - 1))
        self.invalidate()

    async def worker(self) -> None:
        """Run queued jobs one at a time; a refusal becomes the message line."""
        async for what, job in self._jobs:
            self.busy = what
            self.invalidate()
            try:
                await job()
            except LobbyProblem as exc:
                self.feedback = Feedback(str(exc), error=True)
            finally:
                self.busy = None
                self.invalidate()

    def _queue(self, what: str, job: Job) -> Feedback:
        if self.busy:
            return Feedback(f"wait: {self.busy}", error=True, keep_text=True)
        self._jobs_send.send_nowait((what, job))
        return Feedback()

    async def next_table(self, started: Callable[..., None]) -> None:
        """The console's table runner: the lobby until a table starts, then its game."""
        self.active = True
        self.invalidate()
        self._no_rematch = False
        await self._started.wait()
        self._started = trio.Event()
        if self._watching is not None:  # 'watch N': the spectator's table, then the lobby again
            runner, self._watching = self._watching, None
            self.active = False
            self.form = None
            self.feedback = Feedback()
            await runner(cast("TableStart", started))
            return
        session, room = self.backend.session(), self.backend.room()
        self.active = False
        self.form = None
        self.feedback = Feedback()
        started(
            session,
            words=room.auth_words if room else (),
            words_problem=room.words_problem if room else "",
            connection=f"on the network ({self.backend.where()})",
        )
        end = await self.backend.game_over()
        if end.stopped:
            saved = (
                f"; transcript saved to {end.transcript} (p2pcards verify {end.transcript})" if end.transcript else ""
            )
            raise LobbyProblem(f"the game stopped: {end.stopped}{saved}")
        last_finished = getattr(self.backend, "last_finished", None)
        last = last_finished() if last_finished is not None else None
        if last is not None and not self._no_rematch:
            # The same table again, offered at once on the end screen ('again'); 'new' goes
            # back to the lobby instead, declining it (decline_rematch).
            from ..net.rematch import Score
            from .seat import offer_rematches  # (seat imports app, which imports this module)

            with trio.CancelScope() as self._rematch_scope:
                await offer_rematches(
                    cast("TableStart", started),
                    last,
                    self.backend.rematch,  # type: ignore[attr-defined]  # (LanLobby's, as last_finished)
                    connection=f"on the network ({self.backend.where()})",
                    score=Score(),
                )
            self._rematch_scope = None

    def offers_rematch(self) -> bool:
        """A finished game's rematch is offered (the LAN backend's, unless declined)."""
        return hasattr(self.backend, "rematch") and not self._no_rematch

    def decline_rematch(self) -> None:
        """'new' at the end screen: back to the lobby, no rematch (the others are told)."""
        self._no_rematch = True
        if self._rematch_scope is not None:
            self._rematch_scope.cancel()

    # -- input --------------------------------------------------------------------------------

    def handle(self, text: str) -> Feedback:
        """Enter on the input line in the lobby."""
        command = parse_lobby_command(text)
        if command.error:
            return Feedback(command.error, error=True, keep_text=True)
        verb = command.verb
        if not verb:
            return self.join_selected() if self.backend.tables() and self.backend.room() is None else Feedback()
        if verb in ("help", "quit"):
            return Feedback(intent=verb)
        if verb == "ready":
            return self._queue("saying ready", self.backend.ready)
        if verb == "leave":
            return self._queue("leaving", self.backend.leave)
        if verb == "remove":
            seat = int(command.target)

            async def remove() -> None:
                name = await self.backend.remove(seat)
                self.feedback = Feedback(f"{name} was sent away from seat {seat}", error=False)

            return self._queue("sending a player away", remove)
        if verb == "join":
            return self._join(command.target)
        if verb == "watch":
            return self._watch(command.target)
        return self._create(command.game, dict(command.settings))

    def join_selected(self) -> Feedback:
        """Enter on an empty line: join the selected table, or watch it if it plays."""
        tables = self.backend.tables()
        if tables and tables[min(self.selected, len(tables) - 1)].playing:
            return self._watch("")
        return self._join("")

    def _join(self, target: str) -> Feedback:
        tables = self.backend.tables()
        if not target:
            if not tables:
                return Feedback("no tables found yet: 'create' one, or 'connect HOST:PORT'", error=True)
            target = tables[min(self.selected, len(tables) - 1)].table_id
        elif target.isdigit():
            if not 1 <= int(target) <= len(tables):
                return Feedback(f"no table {target} in the list", error=True, keep_text=True)
            target = tables[int(target) - 1].table_id

        async def join() -> None:
            await self.backend.join(target)
            self.feedback = Feedback("seated: type 'ready' when you are", error=False)

        return self._queue("joining", join)

    def _watch(self, target: str) -> Feedback:
        """``watch N``: watch a started table (the selected one without N)."""
        watch_table = getattr(self.backend, "watch_table", None)
        if watch_table is None:
            return Feedback("this lobby cannot watch tables", error=True)
        if self.backend.room() is not None:
            return Feedback("you are at a table: 'leave' it first to watch another", error=True)
        tables = self.backend.tables()
        if not target:
            playing = [t for t in tables if t.playing]
            if not playing:
                return Feedback("no table is playing now: 'watch N' once one has started", error=True)
            chosen = tables[min(self.selected, len(tables) - 1)]
            target = (chosen if chosen.playing else playing[0]).table_id
        elif target.isdigit():
            if not 1 <= int(target) <= len(tables):
                return Feedback(f"no table {target} in the list", error=True, keep_text=True)
            target = tables[int(target) - 1].table_id
        try:
            self._watching = watch_table(target)
        except LobbyProblem as exc:
            return Feedback(str(exc), error=True, keep_text=True)
        self._started.set()
        return Feedback()

    def _open_form(self) -> CreateForm:
        """The create form, for the keys that work only while it is open."""
        assert self.form is not None, "the form is open"
        return self.form

    def open_form(self) -> Feedback:
        if self.backend.room() is not None:
            return Feedback("you are at a table: 'leave' it before creating another", error=True)
        try:
            self.form = CreateForm(self.backend.games())
        except ValueError:
            return Feedback("no games are installed (see 'p2pcards plugins')", error=True)
        return Feedback("new table: Up/Down picks, Left/Right changes, Enter opens it, Esc closes")

    def _create(self, game: str, settings: dict[str, str]) -> Feedback:
        if not game and not settings:
            return self.open_form()
        games = {g.id: g for g in self.backend.games()}
        if game not in games:
            return Feedback(f"no game {game!r} (installed: {', '.join(games)})", error=True, keep_text=True)
        try:
            players = int(settings.pop("seats", games[game].min_players))
            bots = int(settings.pop("bots", players - 1))
        except ValueError:
            return Feedback("seats and bots are numbers", error=True, keep_text=True)
        return self._submit(game, settings, players, bots)

    def submit_form(self) -> Feedback:
        assert self.form is not None
        game, options, players, bots = self.form.request()
        return self._submit(game, options, players, bots)

    def _submit(self, game: str, options: dict[str, Any], players: int, bots: int) -> Feedback:
        async def create() -> None:
            await self.backend.create(game, options, players, bots)
            self.form = None
            # Said once, as the table opens: the room below and the status line say who sits
            # since ("waiting for 2" would stay on screen after they came).
            seats = players - 1 - bots
            self.feedback = Feedback(
                f"table open: {seats} seat{'s' * (seats != 1)} for friends"  # one line at 50 columns
                if seats
                else "table open: the bots are taking their seats"
            )

        return self._queue("opening the table", create)

    # -- layout -------------------------------------------------------------------------------

    def key_bindings(self, input_empty: Callable[[], bool]) -> KeyBindings:
        kb = KeyBindings()
        in_list = Condition(lambda: self.active and self.form is None)
        in_form = Condition(lambda: self.active and self.form is not None)

        @kb.add("up", filter=in_list)
        def _(event: KeyPressEvent) -> None:
            self.selected = max(0, self.selected - 1)

        @kb.add("down", filter=in_list)
        def _(event: KeyPressEvent) -> None:
            self.selected = min(max(0, len(self.backend.tables()) - 1), self.selected + 1)

        @kb.add("f2", filter=in_list)
        def _(event: KeyPressEvent) -> None:
            self.feedback = self.open_form()

        @kb.add("up", filter=in_form)
        def _(event: KeyPressEvent) -> None:
            self._open_form().move(-1)

        @kb.add("down", filter=in_form)
        def _(event: KeyPressEvent) -> None:
            self._open_form().move(1)

        @kb.add("left", filter=in_form)
        def _(event: KeyPressEvent) -> None:
            self._open_form().change(-1)

        @kb.add("right", filter=in_form)
        def _(event: KeyPressEvent) -> None:
            self._open_form().change(1)

        @kb.add("enter", filter=in_form)
        def _(event: KeyPressEvent) -> None:
            self.feedback = self.submit_form()

        @kb.add("escape", filter=in_form)
        def _(event: KeyPressEvent) -> None:
            self.form = None
            self.feedback = Feedback()

        return kb

    def container(self, section: Callable[[Callable[[], str]], Window]) -> HSplit:
        return HSplit(
            [
                section(lambda: f"Tables on the network  ({self.backend.where()})"),
                Window(WrappedTextControl(self._tables), wrap_lines=True, height=self._tables_height),
                section(lambda: "Your table"),
                Window(WrappedTextControl(self._room), height=self._room_height, wrap_lines=True),
            ]
        )

    def _tables_height(self) -> Dimension:
        # At a table, the room comes first (its seats and options); the list keeps a row.
        return Dimension(min=1, preferred=1) if self.backend.room() is not None else Dimension(min=1)

    def _room_height(self) -> Dimension:
        if self.backend.room() is None:
            return Dimension(min=1, preferred=1, max=2)
        return Dimension(min=2, preferred=12)

    def form_float(self) -> Float:
        # As wide as the terminal allows, up to 72 columns; on a short terminal it scrolls to
        # the field being changed.
        body = Window(
            SizedTextControl(self._form, wrap=True), wrap_lines=True, width=Dimension(min=30, preferred=72, max=72)
        )
        return Float(
            ConditionalContainer(
                Frame(body, title="New table"), filter=Condition(lambda: self.active and self.form is not None)
            )
        )

    def _tables(self) -> StyleAndTextTuples:
        rows = table_rows(self.backend.tables(), self.selected)
        if not rows:
            return [("class:seat.label", " no tables found yet: 'create' one (F2), or 'connect HOST:PORT'\n")]
        out: StyleAndTextTuples = []
        for selected, text in rows:
            out.append(("class:lobby.selected" if selected else "", f" {printable(text)}\n"))
        return out

    def _room(self) -> StyleAndTextTuples:
        room = self.backend.room()
        if room is None:
            return [("class:seat.label", " none: join a table from the list, or create one\n")]
        lines = [printable(line) for line in room_lines(room, self._games())]  # names, options: the host's
        out: StyleAndTextTuples = [("class:seat.me", f" {lines[0]}\n")]
        return out + [("", f" {line}\n") for line in lines[1:]]

    def _games(self) -> Sequence[GameChoice]:
        """The installed games (their options' words for the room), or none when the backend
        cannot say: the room then shows the options as the host sent them."""
        try:
            return self.backend.games()
        except Exception:
            return ()

    def _form(self, width: int | None = None) -> StyleAndTextTuples:
        if self.form is None:
            return []
        out: StyleAndTextTuples = []
        for f in self.form.fields():
            marker = ">" if f.focused else " "
            style = "class:lobby.selected" if f.focused else ""
            if f.focused:
                out.append(("[SetCursorPosition]", ""))
            out.append((style, f"{marker} {f.label:<16} < {f.value} >"))
            out.append(("", "\n"))
            if f.focused:
                # Its own lines, indented under the field (the window's wrap would not indent).
                hint = textwrap.fill(f.help, width=width or 72, initial_indent="    ", subsequent_indent="    ")
                out.append(("class:end.hint", f"{hint}\n"))
        out.append(("class:seat.label", "\nUp/Down: field  Left/Right: change  Enter: open the table  Esc: close"))
        return out

    def title(self) -> str:
        return f"lobby · your key {self.backend.fingerprint()}"

    def status(self) -> StyleAndTextTuples:
        if self.busy:
            return [("class:busy", f" {self.busy}...")]
        room = self.backend.room()
        if room is None:
            count = len(self.backend.tables())
            return [
                (
                    "class:status",
                    f" {count} table{'s' * (count != 1)} found; Enter joins the selected one, F2 creates one",
                )
            ]
        free = sum(1 for s in room.seats if not s.name)
        return [("class:status", f" at a table: {free} free seat{'s' * (free != 1)}")]


class LobbyCompleter(Completer):
    def get_completions(self, document: Document, complete_event: CompleteEvent):
        wanted = document.text_before_cursor.lstrip().lower()
        for word in LOBBY_WORDS:
            if word.startswith(wanted) and word.strip() != wanted:
                yield Completion(word, -len(document.text_before_cursor), display_meta="lobby")

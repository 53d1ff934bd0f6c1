"""The full-screen table console: prompt-toolkit on asyncio, with trio running as its guest.

prompt-toolkit 3 owns the event loop (asyncio). The table session is trio code, so trio runs in
*guest mode* on the same loop and the same thread (``trio.lowlevel.start_guest_run``): trio
tasks update the view models and call ``app.invalidate()``; key handlers may call the session's
plain methods directly. trio-asyncio is avoided on purpose (its signal handling breaks
prompt-toolkit's SIGWINCH handler), and nothing prints while the application runs.

One :class:`ConsoleApp` plays any number of games in a row. Each table comes from a *table
runner*: an async callable that gets a ``started(session)`` callback (a :class:`TableStart`),
calls it as soon as the :class:`TableSession` exists (the console shows it), and returns when the
game is over; until then ``started.waiting(text)`` may say what the table waits for. A plain
``new_table()`` that builds a session is wrapped into one that also runs it (the local demo); in
LAN play the lobby screen is the runner (:meth:`.lobbyscreen.LobbyScreen.next_table`), and the
network peer runs the game; ``p2pcards host`` and ``join`` in person use :mod:`.seat`. After a
game the player types ``new`` (another game, or back to the lobby) or ``quit``; with
``again=False`` (one table per run) only ``quit``.
"""

from __future__ import annotations

import asyncio
import inspect
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeGuard, cast

import outcome
import trio
from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import DynamicCompleter
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples, fragment_list_to_text
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import (
    ConditionalKeyBindings,
    KeyBindings,
    KeyBindingsBase,
    KeyPressEvent,
    merge_key_bindings,
)
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.widgets import TextArea

from ..session import BotSeat, SeatAgent, TableSession
from ..text import printable
from .completion import TableCompleter
from .controller import Feedback, TableController
from .help import help_text
from .lobby import LobbyBackend, LobbyProblem
from .lobbyscreen import LOBBY_HELP, LobbyCompleter, LobbyScreen
from .render import (
    Glyphs,
    ScreenTextControl,
    SizedTextControl,
    WrappedTextControl,
    choose_glyphs,
    colour_enabled,
    console_style,
    end_parts,
    hand_fragments,
    lines_fragments,
    log_fragments,
    screen_fragments,
    screen_rows,
    seats_fragments,
    text_fragments,
    word_wrap,
)
from .viewmodel import TableModel, TableTracker, end_model, table_model

__all__ = ["ConsoleApp", "TableRunner", "TableStart", "local_runner", "run_console"]

TICK = 0.25  # seconds between redraws for the spinner and the turn timer
#: The smallest terminals (columns, rows) the lobby and a table are shown in; a smaller one is
#: told how large it must be.
LOBBY_MIN = (50, 12)
TABLE_MIN = (50, 14)
LEAVE_CONFIRM_SECONDS = 30.0  # a second 'quit' or Ctrl-C within this leaves a game others are playing
#: Seconds the bot that finishes a seat whose player left thinks before each move (as the
#: lobby's bots: the others can follow its moves).
LEAVE_BOT_DELAY = 0.5


class RematchOffer(Protocol):
    """What a table runner offers after a network game (:meth:`TableStart.offer_rematch`):
    ``again`` agrees to a rematch (:meth:`agree` returns what to tell the player), ``lines``
    are shown on the end screen (the running score, who agreed, who declined), and ``open``
    says the rematch may still happen (``quit`` then leaves at once, declining it)."""

    @property
    def open(self) -> bool: ...

    def agree(self) -> str: ...

    def lines(self) -> list[str]: ...


class TableStart:
    """What a table runner is given: call it as ``started(session, words=(), connection=None,
    words_problem="", notes=(), rematch=0)`` once the table exists (``words_problem``: why a
    networked table has no words; ``notes``: lines for the log, such as the running score at a
    rematch; ``rematch``: at a rematch, the game's number in the series, 2 for the first
    rematch; 0 for a table of its own, whatever this console played before);
    before that, :meth:`waiting` says what the table is waiting for (the table pane shows the
    text, the status line its last line). After a game, :meth:`offer_rematch` offers the same
    table again (the runner then plays the rematch in the same call, calling ``started`` again
    when it starts)."""

    def __init__(
        self,
        show: Callable[..., None],
        wait: Callable[[str], None],
        offer: Callable[[RematchOffer], None] | None = None,
        chosen: Callable[[], str | None] | None = None,
    ):
        self._show = show
        self._wait = wait
        self._offer = offer
        self._chosen = chosen

    def __call__(
        self,
        session: TableSession,
        *,
        words: Sequence[str] = (),
        connection: str | None = None,
        words_problem: str = "",
        notes: Sequence[str] = (),
        rematch: int = 0,
    ) -> None:
        self._show(
            session, words=words, connection=connection, words_problem=words_problem, notes=notes, rematch=rematch
        )

    def waiting(self, text: str) -> None:
        self._wait(text)

    def offer_rematch(self, offer: RematchOffer) -> None:
        if self._offer is not None:
            self._offer(offer)

    def chosen(self) -> str | None:
        """What the player chose after the game (``new``, ``quit``), if anything yet: a runner
        that goes on after the game without a rematch offer (a spectator following the table
        into its rematch) returns once this is said."""
        return self._chosen() if self._chosen is not None else None


#: ``runner(started)``: calls ``started(session, words=(), connection=None)`` once the table
#: exists, and returns when its game is over (raising :class:`LobbyProblem` if it stopped).
TableRunner = Callable[[TableStart], Awaitable[None]]


def local_runner(new_table: Callable[[], TableSession]) -> TableRunner:
    """A runner for tables played in this process: build, show, run."""

    async def run(started: Callable[..., None]) -> None:
        session = new_table()
        started(session)
        await session.run()

    return run


def _is_runner(new_table: Callable[..., Any]) -> TypeGuard[TableRunner]:
    return inspect.iscoroutinefunction(new_table) or inspect.iscoroutinefunction(
        getattr(new_table, "__call__", None)  # noqa: B004 - the method itself, to ask if it is async
    )


def _select_all(buffer: Buffer) -> None:
    """Select the line kept after a refusal, as a text field selected with Shift: what is typed
    next replaces it ("play 8splay 8s hearts" was the refused line and the new one run
    together), Enter sends it again, an arrow key or Backspace edits it."""
    if not buffer.text:
        return
    buffer.cursor_position = 0
    buffer.start_selection()
    buffer.cursor_position = len(buffer.text)
    if buffer.selection_state is not None:
        buffer.selection_state.enter_shift_mode()


class ConsoleApp:
    """The table screen and its trio side."""

    def __init__(
        self,
        new_table: Callable[[], TableSession] | TableRunner | None = None,
        *,
        lobby: LobbyBackend | None = None,
        glyphs: Glyphs | None = None,
        colour: bool | None = None,
        notices: Sequence[str] = (),
        again: bool = True,
        confirm_leaving: bool | None = None,
        bell: bool = False,
        input: Input | None = None,
        output: Output | None = None,
    ):
        self.lobby = LobbyScreen(lobby, self._invalidate) if lobby is not None else None
        if self.lobby is not None:
            self.run_table: TableRunner = self.lobby.next_table
        elif new_table is None:
            raise ValueError("a console needs new_table or a lobby")
        else:
            if _is_runner(new_table):
                self.run_table = new_table
            else:  # not a runner: a factory of sessions
                self.run_table = local_runner(cast(Callable[[], TableSession], new_table))
        self.table_words: tuple[str, ...] = ()
        self.words_problem = ""
        self.glyphs = glyphs or choose_glyphs()
        self.colour = colour_enabled() if colour is None else colour
        self.notices = list(notices)
        if self.lobby is not None and self.notices:  # shown in the lobby too, until the next step
            self.lobby.feedback = Feedback(self.notices[0], error=True)
        self.bell = bell  # ring the terminal's bell when the player's turn comes
        self.bells = 0  # rung so far (tests count them)
        self.again = again  # 'new' after a game plays another (False: one table, then 'quit')
        # Other people at the table (the LAN lobby, host/join in person): leaving a game in
        # progress ends it for them, so 'quit' (or Ctrl-C) asks to be given twice.
        self.confirm_leaving = lobby is not None if confirm_leaving is None else confirm_leaving
        self._leave_asked: float | None = None
        #: The player left the game and a bot plays the seat to its end (``leave``); the
        #: program ends when the game does.
        self.left_to_bot = False
        self.dropping = False  # the player chose 'drop' (issue 30): left_to_bot is set too
        self.waiting: str | None = None  # what the table waits for before it starts
        self.session: TableSession | None = None
        self.tracker: TableTracker | None = None
        self.controller: TableController | None = None
        self.games_played = 0  # tables started in this console (the lobby's too): not a title
        #: The table shown is a rematch: its game's number in the series (2 for the first).
        self.rematch_game = 0
        self.message: Feedback = Feedback()
        self.show_help = False
        self.help_scroll = 0
        self.log_back = 0  # lines scrolled back from the end of the log
        self.stopped: str | None = None  # why the table stopped early (an error)
        self.rematch: RematchOffer | None = None  # after a network game: 'again'
        #: 'again' typed at game over before the runner's offer came (the last results and the
        #: transcript are still going): agreed to as soon as it comes.
        self.again_early = False
        self._frame = 0
        self.lines_entered = 0  # Enter presses handled (tests wait on it)
        self._choice: trio.Event | None = None
        self._intent: str | None = None
        self.table_running = False  # the table runner has not returned yet
        self._trio_token: trio.lowlevel.TrioToken | None = None
        self._cancel_trio: Callable[[], None] | None = None
        self._model: TableModel | None = None
        self._model_key: tuple[int, int, bool] | None = None
        self._model_session: TableSession | None = None
        self.view_error: str | None = None
        self.input_area = self._input_area()
        self.application: Application[None] = Application(
            layout=Layout(self._root(), focused_element=self.input_area),
            key_bindings=self._all_key_bindings(),
            style=console_style(self.colour),
            full_screen=True,
            mouse_support=False,
            color_depth=None if self.colour else ColorDepth.MONOCHROME,
            input=input,
            output=output,
        )

    # -- running --------------------------------------------------------------------------

    async def run(self) -> None:
        """Run until the player quits (an asyncio coroutine: prompt-toolkit's loop is the host)."""
        loop = asyncio.get_running_loop()
        trio_done: asyncio.Future[outcome.Outcome[Any]] = loop.create_future()

        def done_callback(result: outcome.Outcome[Any]) -> None:
            if not trio_done.done():
                trio_done.set_result(result)
            if self.application.is_running:
                self.application.exit()

        trio.lowlevel.start_guest_run(
            self._trio_main,
            run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            run_sync_soon_not_threadsafe=loop.call_soon,
            host_uses_signal_set_wakeup_fd=True,
            done_callback=done_callback,
        )
        try:
            await self.application.run_async()
        finally:
            # The app may end first (Ctrl-C, an error): let trio finish before the loop does.
            if not trio_done.done():
                self._stop_trio()
            result = await trio_done
        result.unwrap()

    def _stop_trio(self) -> None:
        if self._trio_token is not None and self._cancel_trio is not None:
            try:
                self._trio_token.run_sync_soon(self._cancel_trio)
            except trio.RunFinishedError:
                pass  # over already (a second Ctrl-C while it ended)

    async def _trio_main(self) -> None:
        self._trio_token = trio.lowlevel.current_trio_token()
        async with trio.open_nursery() as nursery:
            self._cancel_trio = nursery.cancel_scope.cancel
            nursery.start_soon(self._ticker)
            if self.lobby is not None:
                await nursery.start(self.lobby.backend.run)
                nursery.start_soon(self.lobby.worker)
            while True:
                self._intent = None
                self.table_running = True
                await self._play()
                self.table_running = False
                if self._intent is None:  # not chosen while the table was finishing
                    self._choice = trio.Event()
                    self.application.invalidate()
                    await self._choice.wait()
                self._choice = None
                if self._intent == "quit":
                    break
            nursery.cancel_scope.cancel()

    def _invalidate(self) -> None:
        # The lobby screen is built before the application; it redraws through this.
        if hasattr(self, "application"):
            self.application.invalidate()

    @property
    def in_lobby(self) -> bool:
        return self.lobby is not None and self.lobby.active

    def _lobby_screen(self) -> LobbyScreen:
        """The lobby, where the code runs only with one (in_lobby, or a lobby key)."""
        assert self.lobby is not None, "this console has a lobby"
        return self.lobby

    def _table_tracker(self) -> TableTracker:
        """The tracker, set with the first table and kept after it (there is a model)."""
        assert self.tracker is not None, "a table was started"
        return self.tracker

    def _start_table(
        self,
        session: TableSession,
        *,
        words: Sequence[str] = (),
        connection: str | None = None,
        words_problem: str = "",
        notes: Sequence[str] = (),
        rematch: int = 0,
    ) -> None:
        """The runner's ``started`` callback: show this table."""
        self.session = session
        self.rematch_game = rematch
        self.rematch = None
        self.waiting = None
        self.table_words = tuple(words)
        self.words_problem = words_problem
        self.tracker = TableTracker(session, on_change=self.application.invalidate, on_my_turn=self._ring)
        self.controller = TableController(session, self.tracker)
        self.completer.controller = self.controller
        self.games_played += 1
        self.stopped = None
        self.message = Feedback()
        self.log_back = 0
        for notice in [*self.notices, *notes]:
            self.tracker.note("notice", notice)
        self.notices = []
        if connection:
            self.tracker.connection = connection
        if self.table_words:
            self.tracker.note(
                "notice",
                f"table words: {' '.join(self.table_words)} (read them aloud: every player must see the same words)",
            )
        elif self.words_problem:
            self.tracker.note(
                "notice",
                f"no table words: {self.words_problem}. Nobody can check that "
                "no one sits in the middle: leave if you did not expect this",
            )
        if session.me is not None:
            mine = session.names[session.me] if 0 <= session.me < len(session.names) else "you"
            playing = "" if mine == "you" else f"you play as {mine}; "
            self.tracker.note("notice", f"{session.game.name}: {playing}F1 for help")
        else:
            self.tracker.note("notice", f"{session.game.name}: watching")

    @property
    def offers_rematch(self) -> bool:
        """The table runner offers a rematch after a finished game (``p2pcards host``,
        ``join`` and ``resume`` in person, :class:`~.seat.SeatTable`; the ``play`` lobby)."""
        if self.lobby is not None:
            return self.lobby.offers_rematch()
        return getattr(self.run_table, "rematch", None) is not None

    def _rematch_coming(self) -> bool:
        """The game is over and its rematch will be offered, once the last results are in."""
        return (
            self.rematch is None
            and self.offers_rematch
            and self.session is not None
            and self.session.result is not None
            and not self.stopped
            and not self.left_to_bot
        )

    async def _play(self) -> None:
        """Run one table to its end."""
        self.session = None
        self.waiting = None
        self.stopped = None
        self.rematch = None
        self.again_early = False
        try:
            await self.run_table(TableStart(self._start_table, self._wait, self._offer_rematch, lambda: self._intent))
        except trio.Cancelled:
            raise
        except LobbyProblem as exc:  # the network table stopped; the runner says why
            self._stop_table(str(exc))
        except Exception as exc:  # a broken plugin or deck: say so and let the player leave
            if self.session is None:
                raise
            self._stop_table(f"the table stopped: {type(exc).__name__}: {exc}")

    def _offer_rematch(self, offer: RematchOffer) -> None:
        """The runner's ``started.offer_rematch``: ``again`` may play this table again (the
        runner now waits for every player to agree). A player who typed ``quit`` while the game
        was finishing has declined already: leave now."""
        self.rematch = offer
        self.application.invalidate()
        if self._intent == "quit":
            self._decline_or_stop(offer)
        elif self.again_early:
            self.again_early = False
            self.message = Feedback(offer.agree())

    def _decline_or_stop(self, offer: RematchOffer) -> None:
        """Leave at the end screen: an offer that can be declined tells the rematch's room
        (a few seconds at most; the runner then returns and the console ends), so that the
        others play on without us; else stop at once."""
        decline = getattr(offer, "decline", None)
        if decline is None:
            self._stop_trio()
            return
        decline()
        self.message = Feedback("leaving: telling the others you will not play the rematch")
        self.application.invalidate()

    def _ring(self) -> None:
        """The player's turn has come: the terminal's bell, if asked for (``--bell``)."""
        if self.bell and not self.left_to_bot:
            self.bells += 1
            self.application.output.bell()
            self.application.output.flush()

    def _wait(self, text: str) -> None:
        """The runner's ``started.waiting``: what the table waits for before it starts."""
        self.waiting = text
        self.application.invalidate()

    def _stop_table(self, reason: str) -> None:
        self.stopped = reason
        self.application.invalidate()
        if self.tracker is not None and self.session is not None:
            self.tracker.note("error", reason)

    async def _ticker(self) -> None:
        while True:
            await trio.sleep(TICK)
            self._frame += 1
            self.application.invalidate()

    def _choose(self, intent: str, *, now: bool = False) -> None:
        """After a game: ``new`` or ``quit``. A game that is over may still be finishing (a
        network seat saves its transcript once every seat has its result): the choice then
        waits for that. Quitting during a game, or with ``now`` (Ctrl-C), stops everything;
        with ``confirm_leaving`` a game others play is left only when asked twice."""
        over = self.session is not None and (self.session.result is not None or bool(self.stopped))
        if (
            intent == "quit"
            and not over
            and self.session is not None
            and not self.in_lobby
            and self.confirm_leaving
            and not self.left_to_bot  # (a bot plays on: quitting now ends the game for everyone)
            and not self._leaving_confirmed("press Ctrl-C again" if now else "type 'quit' again")
        ):
            return
        self._intent = intent
        if intent == "new" and self.lobby is not None and (self.rematch is not None or self._rematch_coming()):
            self.lobby.decline_rematch()  # back to the lobby: no rematch (the runner returns)
        if self._choice is not None:
            self._choice.set()
        elif intent == "quit" and not now and over and self.rematch is not None and self.rematch.open:
            # In a rematch's room the runner waits for everyone to agree: leaving declines,
            # and the others are told (they play on without us if the game allows it).
            self._decline_or_stop(self.rematch)
        elif intent == "quit" and (
            now or not over or self.in_lobby or (self.rematch is not None and self.rematch.open)
        ):
            self._stop_trio()

    def _leaving_confirmed(self, again: str = "type 'quit' again") -> bool:
        """The second 'quit' or Ctrl-C within LEAVE_CONFIRM_SECONDS of the first leaves
        (``again`` says how to confirm, after the first)."""
        now = time.monotonic()
        if self._leave_asked is not None and now - self._leave_asked < LEAVE_CONFIRM_SECONDS:
            return True
        self._leave_asked = now
        if self._can_leave_to_bot():
            # Leaving with a bot first: the others play on. Ending it for everyone is the last.
            ender = "Ctrl-C again" if again.startswith("press Ctrl-C") else "quit"
            refusal = self._drop_out_refusal()
            offer = f"leave: a bot plays your seat to the end · {ender}: end the game for everyone · stay"
            if refusal is None:
                offer += " · drop: drop out, your cards set aside unseen"
            else:
                # The log keeps the game's reason whole; the offer says it where its two rows
                # have room (at 80 columns a long reason was cut mid-sentence).
                if self.tracker is not None:
                    self.tracker.note("notice", f"no drop out now: {refusal}")
                whole = f"{offer} · (no drop out: {refusal})"
                short = f"{offer} · no drop out now (the log says why)"
                offer = whole if self._message_fits(whole, error=True) else short
            self.message = Feedback(offer, error=True)
        else:
            self.message = Feedback(
                f"leaving now ends this game for everyone at the table: {again} to leave", error=True
            )
        self.application.invalidate()
        return False

    def _can_leave_to_bot(self) -> bool:
        """A game others play, in progress, whose seat a bot may finish for the player."""
        session = self.session
        return (
            session is not None
            and session.leave_to_bot is not None
            and session.result is None
            and not self.stopped
            and not self.left_to_bot
        )

    def _drop_out_refusal(self) -> str | None:
        """Why the player may not drop out now (the game's rules, in its words; issue 30), or
        ``None``: the offer says so before anyone confirms."""
        session = self.session
        if session is None or session.me is None or session.leave_to_drop_out is None:
            return "this table cannot go on without a player"
        try:
            return session.game.drop_out_refusal(session.state, session.me)
        except Exception as exc:  # a game's bug must not stop the console
            return f"{session.game.id} could not say ({type(exc).__name__})"

    def _drop_out(self) -> None:
        """``drop``: the player leaves and drops out at the seat's next turn where the rules
        allow it (a bot plays until then); the others are told when it happens, and play on.
        The program follows the game to its end, then ends."""
        session = self.session
        assert session is not None and session.leave_to_drop_out is not None, "checked by the caller"
        session.leave_to_drop_out(_finishing_bot(session))
        self.left_to_bot = True
        self.dropping = True
        self._leave_asked = None
        self._intent = "quit"
        # True before the drop and after it (it stays on screen): the status line below says
        # which ("... until you drop out at your next turn", then "you dropped out").
        self.message = Feedback("you left the table to drop out; the others play on")
        self.application.invalidate()

    def _leave_to_bot(self) -> None:
        """``leave``: a bot plays the player's seat to the end of the game, in this program
        (the deck lets nobody else hold the hand); the table is told. The program ends when
        the game does (declining a rematch); Ctrl-C before that ends the game for everyone."""
        session = self.session
        assert session is not None and session.leave_to_bot is not None, "checked by _can_leave_to_bot"
        assert session.me is not None, "a seat of our own"
        session.leave_to_bot(_finishing_bot(session))
        self.left_to_bot = True
        self._leave_asked = None
        self._intent = "quit"  # once the game is over (and its transcript saved): no rematch
        self.message = Feedback("you left the table: the others play on (Ctrl-C now ends the game for everyone)")
        self.application.invalidate()

    # -- input ----------------------------------------------------------------------------

    def _input_area(self) -> TextArea:
        self.completer = TableCompleter(None)  # set per table
        lobby_completer = LobbyCompleter()
        return TextArea(
            multiline=False,
            prompt=[("class:prompt", "> ")],
            completer=DynamicCompleter(lambda: lobby_completer if self.in_lobby else self.completer),
            complete_while_typing=False,
            history=InMemoryHistory(),
            accept_handler=self._accept,
            height=1,
        )

    def _accept(self, buffer: Buffer) -> bool:
        """Enter: returns True to keep the text (after a mistake, so it can be edited)."""
        self.lines_entered += 1
        if self.in_lobby:
            return self._accept_lobby(buffer.text)
        if self.controller is None or self.session is None:
            # Before the table starts (waiting for players) only leaving makes sense.
            if buffer.text.strip().lower() in ("quit", "exit"):
                self._choose("quit")
                return False
            return True
        word = buffer.text.strip().lower()
        if word == "leave" and self._can_leave_to_bot():
            self._leave_to_bot()
            return False
        if word in ("drop", "drop out") and self._can_leave_to_bot():
            refusal = self._drop_out_refusal()
            if refusal is None:
                self._drop_out()
            else:
                self.message = Feedback(f"you cannot drop out: {refusal}", error=True)
                self.application.invalidate()
            return False
        if word == "stay" and self._leave_asked is not None and not self.left_to_bot:
            self._leave_asked = None
            self.message = Feedback("you stay at the table")
            self.application.invalidate()
            return False
        if word == "again" and self._rematch_coming():
            self.again_early = True
            self.message = Feedback("you agreed to a rematch: it starts when every player has agreed")
            self.application.invalidate()
            return False
        if self.rematch is not None and not self.stopped and buffer.text.strip().lower() == "again":
            self.message = Feedback(self.rematch.agree())
            self.application.invalidate()
            return False
        if self.stopped:
            word = buffer.text.strip().lower()
            if word in ("new", "quit", "exit"):
                self._choose("new" if word == "new" else "quit")
                return False
            self.message = Feedback(f"{self.stopped}; type 'new' or 'quit'", error=True)
            return True
        try:
            feedback = self.controller.handle(buffer.text)
        except Exception as exc:  # a bug in a game's grammar must not take the screen down
            feedback = Feedback(f"internal error: {type(exc).__name__}: {exc}", error=True, keep_text=True)
        if feedback.intent == "new" and not self.again:
            feedback = Feedback("one table per run: type 'quit' to leave", error=True)
        self.message = feedback
        if feedback.intent == "help":
            self.show_help, self.help_scroll = True, 0
        elif feedback.intent in ("new", "quit"):
            self._choose(feedback.intent)
        self.log_back = 0
        self.application.invalidate()
        if feedback.keep_text:
            _select_all(buffer)
        return feedback.keep_text

    def _accept_lobby(self, text: str) -> bool:
        lobby = self._lobby_screen()
        feedback = lobby.handle(text)
        lobby.feedback = feedback
        if feedback.intent == "help":
            self.show_help, self.help_scroll = True, 0
        elif feedback.intent == "quit":
            self._choose("quit")
        self.application.invalidate()
        return feedback.keep_text

    def _all_key_bindings(self) -> KeyBindingsBase:
        if self.lobby is None:
            return self._key_bindings()
        # While the help is open the lobby's keys (the form's Esc, Up/Down) wait: Esc closes the help.
        lobby_keys = ConditionalKeyBindings(
            self.lobby.key_bindings(lambda: not self.input_area.text), filter=Condition(lambda: not self.show_help)
        )
        return merge_key_bindings([self._key_bindings(), lobby_keys])

    def _key_bindings(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("f1")
        def _(event: KeyPressEvent) -> None:
            self.show_help, self.help_scroll = not self.show_help, 0

        @kb.add("escape", filter=Condition(lambda: self.show_help))
        def _(event: KeyPressEvent) -> None:
            self.show_help = False

        @kb.add("c-c")
        def _(event: KeyPressEvent) -> None:
            self._choose("quit", now=True)

        @kb.add("c-d", filter=Condition(lambda: not self.input_area.text))
        def _(event: KeyPressEvent) -> None:
            self._choose("quit")

        @kb.add("pageup")
        def _(event: KeyPressEvent) -> None:
            if self.show_help:
                self.help_scroll = max(0, self.help_scroll - 10)
            else:
                self.log_back += 10

        @kb.add("pagedown")
        def _(event: KeyPressEvent) -> None:
            if self.show_help:
                self.help_scroll += 10
            else:
                self.log_back = max(0, self.log_back - 10)

        return kb

    # -- layout ---------------------------------------------------------------------------

    def model(self) -> TableModel | None:
        """This frame's table model (built once per redraw). If the game's ``view()`` fails (a
        plugin bug), the last good frame stays up and the error is shown, not raised into the
        renderer, which would take the whole screen down."""
        if self.session is None:
            return None
        key = (self.application.render_counter, self.session.published, self.session.my_turn)
        if key != self._model_key:
            self._model_key = key
            try:
                # One legal move: the status line offers it on an empty Enter.
                controller = self.controller
                forced = (
                    controller.forced_move() if controller is not None and controller.session is self.session else None
                )
                tracker = self._table_tracker()
                self._model = table_model(self.session, tracker.turn, forced, tracker.fresh_cards())
                self.view_error = None
            except Exception as exc:
                self.view_error = f"the game's view failed: {type(exc).__name__}: {exc}"
                if self._model is None or self._model_session is not self.session:
                    self._model = TableModel(self.session.game.name, (), (), (), "", self.view_error)
            self._model_session = self.session
        return self._model

    def _root(self) -> FloatContainer:
        def section(title: Callable[[], str]) -> Window:
            return Window(
                ScreenTextControl(lambda: [("class:section", f" {title()} ")]),
                height=1,
            )

        self._seats_control = SizedTextControl(self._seats)
        self._end_tail_control = WrappedTextControl(self._end_tail)
        ended = Condition(lambda: self.session is not None and (self.session.result is not None or bool(self.stopped)))

        left = HSplit(
            width=Dimension(weight=5),
            children=[
                section(lambda: "Seats"),
                Window(
                    self._seats_control,
                    height=self._seat_height,
                    dont_extend_height=True,
                    wrap_lines=True,
                ),
                Window(height=Dimension(min=0, preferred=0, max=1), char=" "),  # the first to go
                section(lambda: "Game over" if ended() else "Table"),
                ConditionalContainer(Window(WrappedTextControl(self._table), wrap_lines=True), filter=~ended),
                ConditionalContainer(
                    HSplit(
                        [
                            # What happened, then right below it what to type (the rest of
                            # the pane is the tail's, blank): the details are cut first.
                            # (cut between its lines, never in one: fit_lines)
                            Window(
                                SizedTextControl(self._end_body, wrap=True, whole_lines=True),
                                wrap_lines=True,
                                dont_extend_height=True,
                            ),
                            Window(self._end_tail_control, height=self._end_tail_height, wrap_lines=True),
                        ]
                    ),
                    filter=ended,
                ),
                section(self._hand_title),
                Window(WrappedTextControl(self._hand), dont_extend_height=True, wrap_lines=True),
            ],
        )
        self._log_window = Window(WrappedTextControl(self._log, cursor_at_end=True), wrap_lines=True)
        log = HSplit(
            width=Dimension(weight=3),
            children=[
                section(self._log_title),
                self._log_window,
            ],
        )
        body = VSplit(
            [left, Window(width=1, char="|" if not self.glyphs.unicode else "│", style="class:seat.label"), log]
        )
        help_pane = HSplit(
            [
                section(lambda: "Help  (F1 or Esc to close, PageUp/PageDown to scroll)"),
                Window(WrappedTextControl(self._help), wrap_lines=True),
            ]
        )
        showing_help = Condition(lambda: self.show_help)
        in_lobby = Condition(lambda: self.in_lobby)
        lobby_body = self.lobby.container(section) if self.lobby else Window()
        root = HSplit(
            [
                Window(ScreenTextControl(self._title), height=lambda: self._title_height(), style="class:title"),
                ConditionalContainer(body, filter=~showing_help & ~in_lobby),
                ConditionalContainer(lobby_body, filter=~showing_help & in_lobby),
                ConditionalContainer(help_pane, filter=showing_help),
                Window(WrappedTextControl(self._status), height=Dimension(min=1, max=2), dont_extend_height=True),
                Window(
                    SizedTextControl(self._message_fitted, wrap=True), height=Dimension(min=1, max=2), wrap_lines=True
                ),
                self.input_area,
                Window(SizedTextControl(self._toolbar), height=1, style="class:bottom-toolbar"),
            ]
        )
        # The moves Tab offers open at the right, over the end of the log, just above the status
        # line: a menu at the cursor would cover the hand the player is choosing from.
        floats = [Float(right=1, bottom=5, content=CompletionsMenu(max_height=10, scroll_offset=1))]
        if self.lobby is not None:
            form = self.lobby.form_float()
            form.content = ConditionalContainer(form.content, filter=~showing_help)  # the help on top
            floats.insert(0, form)
        fits = Condition(lambda: self.too_small() is None)
        for float_ in floats:
            float_.content = ConditionalContainer(float_.content, filter=fits)
        return FloatContainer(
            HSplit(
                [
                    ConditionalContainer(root, filter=fits),
                    ConditionalContainer(Window(WrappedTextControl(self._too_small), wrap_lines=True), filter=~fits),
                ]
            ),
            floats=floats,
        )

    def too_small(self) -> tuple[int, int] | None:
        """The smallest terminal (columns, rows) this screen needs, when the terminal is smaller;
        ``None`` when it fits."""
        size = self.application.output.get_size()
        need = LOBBY_MIN if self.in_lobby else TABLE_MIN
        return need if size.columns < need[0] or size.rows < need[1] else None

    def _too_small(self) -> StyleAndTextTuples:
        need = self.too_small()
        if need is None:
            return []
        size = self.application.output.get_size()
        return [
            (
                "class:message.error",
                f"this terminal is {size.columns}x{size.rows}: p2pcards needs at least {need[0]}x{need[1]}. "
                "Make the window larger (Ctrl-D quits)",
            )
        ]

    def end_text(self) -> str:
        """The game-over panel as plain text."""
        return fragment_list_to_text(self._end())

    def help_text(self) -> str:
        return fragment_list_to_text(self._help())

    # Each of these renders one part of the screen from the current models.

    def _title(self) -> StyleAndTextTuples:
        dot = self.glyphs.dot
        if self.in_lobby:
            return [("", f" p2pcards {dot} {self._lobby_screen().title().replace('·', dot)}")]
        if self.session is None:
            return [("", " p2pcards")]
        s = self.session
        words = (
            f" {dot} table words: {' '.join(self.table_words)}"
            if self.table_words
            else (f" {dot} no table words" if self.words_problem else "")
        )
        watching = self.tracker.watching if self.tracker is not None else ()
        seen = f" {dot} watching: {', '.join(watching)}" if watching else ""
        # A table of its own has no number (the lobby's second table is not "game 2" of
        # anything); a rematch says so in words.
        series = f" {dot} rematch: game {self.rematch_game}" if self.rematch_game else ""
        head = f" p2pcards {dot} {s.game.name} {dot} {s.players} players{series}{seen}"
        if words and len(head + words) > self._columns():
            # The five table words are the security ritual: all of them, always, on their own
            # line when the title leaves no room for them.
            return [("", head + "\n"), ("", " " + words.removeprefix(f" {dot} "))]
        return [("", head + words)]

    def _columns(self) -> int:
        return self.application.output.get_size().columns

    def _title_height(self) -> int:
        return 1 + fragment_list_to_text(self._title()).count("\n")

    def _seats(self, width: int | None = None) -> StyleAndTextTuples:
        model = self.model()
        return seats_fragments(model, self.glyphs, width) if model else []

    @property
    def _seat_rows(self) -> int:
        """Rows the seat list takes at the width it was last drawn at."""
        width = self._seats_control._width
        text = fragment_list_to_text(self._seats(width))
        return max(1, text.count("\n"))

    def _seat_height(self) -> Dimension:
        """Every seat's line before the table's lines (those can be read again in the log), as
        far as the terminal leaves room for the rest (about 11 rows)."""
        rows = self._seat_rows
        room = self.application.output.get_size().rows - 11
        return Dimension(min=max(1, min(rows, room)), preferred=rows)

    def _table(self) -> StyleAndTextTuples:
        model = self.model()
        if model is None:
            return self._before_table()
        tracker = self._table_tracker()
        if tracker.busy and not model.table:
            return [("class:busy", tracker.busy_text())]
        return lines_fragments(model.table, self.glyphs)

    def _end(self) -> StyleAndTextTuples:
        body, transcript, actions = self._end_parts()
        tail = transcript + actions
        return body + [("", "\n")] + tail if body and tail else body + tail

    def _end_body(self, width: int | None = None) -> StyleAndTextTuples:
        body, transcript, _ = self._end_parts(width)
        if transcript and not self._transcript_fits():  # then a detail, cut first
            body = body + [("", "\n")] + transcript if body else transcript
            if body[-1][1].endswith("\n"):
                body[-1] = (body[-1][0], body[-1][1][:-1])
        return body

    def _end_tail(self) -> StyleAndTextTuples:
        _, transcript, actions = self._end_parts()
        return transcript + actions if self._transcript_fits() else actions

    def _end_tail_width(self) -> int | None:
        # Before the tail is first drawn its width is not known: the seat list's is the same
        # column's (without it, the first drawing after the game's end counted unwrapped lines
        # and cut the rematch's lines).
        return self._end_tail_control._width or self._seats_control._width

    def _end_tail_room(self) -> int:
        return max(1, self.application.output.get_size().rows - 14)

    def _transcript_fits(self) -> bool:
        """Whether the transcript's path fits above what to type: a long path (three rows in
        a 50-column pane) on a small terminal moves to the details, cut first, rather than cut
        the line that says what to type ('quit' prints the path again)."""
        _, transcript, actions = self._end_parts()
        width = self._end_tail_width()
        return screen_rows(screen_fragments(transcript + actions), width) <= self._end_tail_room()

    def _end_tail_height(self) -> Dimension:
        """The rows the end panel's last lines take (the rematch and what to type): always
        shown in full, the panel's other lines above them cut first on a small terminal."""
        rows = screen_rows(screen_fragments(self._end_tail()), self._end_tail_width())
        return Dimension(min=min(rows, self._end_tail_room()), preferred=rows)

    def _end_parts(self, width: int | None = None) -> tuple[StyleAndTextTuples, StyleAndTextTuples, StyleAndTextTuples]:
        """The game-over panel in three: what happened, where the transcript is, then what the
        player can do now (the rematch and what to type), which a small terminal never cuts
        (80x24: the lines above it are cut first). ``width``: the panel's columns (the scores'
        lines fit it)."""
        again = "to go back to the lobby" if self.lobby else "for a new game" if self.again else None
        if self.stopped:
            hint = f"type 'new' {again} or 'quit' to leave" if self.lobby else "type 'quit' to leave"
            return [("class:end.bad", printable(self.stopped) + "\n")], [], [("class:end.hint", hint)]
        end = end_model(self.session) if self.session else None
        if end is None:
            return [], [], []
        # Where the transcript is heads the part never cut (unless a long path would cut what
        # to type: _transcript_fits): the only place a joiner's screen with a rematch offer
        # says it (until 'quit').
        body, transcript, tail = end_parts(end, self.glyphs, again=again, width=width)
        if self.rematch is not None:
            tail = [("", printable(line) + "\n") for line in self.rematch.lines()]  # 'again' comes first now
            hint = "type 'again' for a rematch or 'quit' to leave" if self.rematch.open else "type 'quit' to leave"
            if self.lobby is not None:
                hint = (
                    "type 'again' for a rematch, 'new' for the lobby or 'quit' to leave"
                    if self.rematch.open
                    else "type 'new' to go back to the lobby or 'quit' to leave"
                )
            tail.append(("class:end.hint", hint))
        elif self._rematch_coming():  # 'again' comes first, at once (agreed to once the room opens)
            if self.again_early:
                hint = "you agreed to a rematch; type 'new' for the lobby or 'quit' to leave"
                if self.lobby is None:
                    hint = "you agreed to a rematch; type 'quit' to leave"
            elif self.lobby is not None:
                hint = "type 'again' for a rematch, 'new' for the lobby or 'quit' to leave"
            else:
                hint = "type 'again' for a rematch or 'quit' to leave"
            tail = [("class:end.hint", hint)]
            if self.table_running:
                tail.append(("class:busy", "\nfinishing: waiting for every seat's result, then saving the transcript"))
        elif self.table_running and self.lobby is not None:
            tail.append(("class:busy", "\nfinishing: waiting for every seat's result, then saving the transcript"))
        if body and body[-1][1].endswith("\n"):  # the tail's window starts the next row
            body[-1] = (body[-1][0], body[-1][1][:-1])
        return body, transcript, tail

    def _before_table(self) -> StyleAndTextTuples:
        """The table pane before a table exists: what it waits for, or why it did not start."""
        if self.stopped:
            return [("class:end.bad", printable(self.stopped) + "\n"), ("class:end.hint", "type 'quit' to leave")]
        return [("class:busy", self.waiting)] if self.waiting else []

    def _hand_title(self) -> str:
        model = self.model()
        if not model or not model.hand_label:
            return "Hand"
        count = len(model.hand)
        return f"{model.hand_label.capitalize()}: {count} card{'s' * (count != 1)}"

    def _hand(self) -> StyleAndTextTuples:
        model = self.model()
        return hand_fragments(model, self.glyphs) if model else []

    def _log_shown(self) -> list:
        """The log up to ``log_back`` lines before its end. The window shows the end of what
        it is given (its hidden cursor sits on the last line), so each PageUp/PageDown moves
        the view at once; moving only the cursor would not scroll while it is still in view."""
        log = self.tracker.log if self.tracker else []
        info = getattr(self, "_log_window", None) and self._log_window.render_info
        height = info.window_height if info else 40
        # Never fewer lines than fill the window: a short log does not scroll.
        self.log_back = min(self.log_back, max(0, len(log) - height))
        end = len(log) - self.log_back
        # Each line takes a row at least, so the last ``height`` fill the window: a long game's
        # log is not wrapped whole at every frame.
        return log[max(0, end - height) : end]

    def _log_title(self) -> str:
        self._log_shown()  # clamps log_back
        return f"Log  ({self.log_back} lines back: PageDown)" if self.log_back else "Log  (PageUp/PageDown)"

    def _log(self) -> StyleAndTextTuples:
        if self.tracker is None:
            return []
        return log_fragments(self._log_shown(), self.glyphs)

    def _help(self) -> StyleAndTextTuples:
        if self.in_lobby:
            text = LOBBY_HELP
        elif self.session is None:
            return []
        else:
            text = help_text(self.session)
        out: StyleAndTextTuples = []
        lines = text.splitlines()
        # Scrolled by slicing: the window's cursor (at the top) would undo a vertical scroll.
        self.help_scroll = min(self.help_scroll, max(0, len(lines) - 1))
        for line in lines[self.help_scroll :]:
            heading = (
                line
                and not line.startswith(" ")
                and line
                in ("Moves", "Console commands", "Keys", "The lobby", "Commands", "The new-table form", "Table words")
            )
            out.append(("class:help.head" if heading else "", line + "\n"))
        return out

    def _status(self) -> StyleAndTextTuples:
        if self.in_lobby:
            return self._lobby_screen().status()
        spin = self.glyphs.spinner[self._frame % len(self.glyphs.spinner)]
        if self.session is None or self.tracker is None:
            if self.stopped:
                return [("class:message.error", " the table did not start")]
            return [("class:busy", f" {spin} {self.waiting.splitlines()[-1]}" if self.waiting else " starting")]
        if self.stopped and self.session.result is None:
            return [("class:message.error", " the game stopped (see above)")]
        if self.left_to_bot and self.session.result is None and self.dropping:
            if any(seat == self.session.me for seat, _ in self.session.replica.dropped):
                return [("class:busy", f" {spin} you dropped out: the others play on; this program ends with the game")]
            return [("class:busy", f" {spin} you left: a bot plays your seat until you drop out at your next turn")]
        if self.left_to_bot and self.session.result is None:
            return [("class:busy", f" {spin} you left: a bot plays your seat to the end, then this program ends")]
        if self.tracker.busy and self.session.result is None and not self.stopped:
            return [("class:busy", f" {spin} {self.tracker.busy_text()}")]
        history = self.session.history
        if history and history[-1].kind == "progress" and self.session.result is None and not self.stopped:
            # A deck step during play (a network table opening or passing cards): say which.
            return [("class:busy", f" {spin} {history[-1].text}")]
        model = self.model()
        # Through text_fragments: a card in the status (a forced move names its cards) is
        # coloured, and in ASCII when the terminal needs it.
        return text_fragments(f" {model.status}", self.glyphs, "class:status") if model else []

    def _message(self) -> StyleAndTextTuples:
        if self.in_lobby:
            message = self._lobby_screen().feedback
            if not message.message:
                return []
            style = "class:message.error" if message.error else "class:message.info"
            mark = ("✗ " if self.glyphs.unicode else "! ") if message.error else ""
            return [(style, f" {mark}{message.message}")]
        if self.view_error:
            return [("class:message.error", f" {self.view_error}")]
        if not self.message.message:
            return []
        if (
            self.message.error
            and self.message.message.startswith("wait")
            and self.session is not None
            and self.session.my_turn
            and self.controller is not None
            and not self.controller.move_pending
        ):
            # "wait: it is bot 2's turn" is stale once the turn comes round: the move typed
            # too early is still on the input line.
            ready = ": press Enter to play what you typed" if self.input_area.text.strip() else ""
            return [("class:message.info", f" your turn now{ready}")]
        style = "class:message.error" if self.message.error else "class:message.info"
        mark = ("✗ " if self.glyphs.unicode else "! ") if self.message.error else ""
        return [(style, f" {mark}{self.message.message}")]

    def _message_fits(self, text: str, *, error: bool = False) -> bool:
        """``text`` fits the message's two rows at the terminal's width, whole."""
        mark = ("✗ " if self.glyphs.unicode else "! ") if error else ""
        return fragment_list_to_text(word_wrap([("", f" {mark}{text}")], self._columns())).count("\n") < 2

    def _message_fitted(self, width: int | None) -> StyleAndTextTuples:
        """The message line in the two rows it has: a longer one (the legal moves of a big
        hand) is cut between items or words and ends with an ellipsis, never mid-move."""
        out = self._message()
        if not width or len(out) != 1:
            return out
        style, text = out[0][0], out[0][1]

        def fits(candidate: str) -> bool:
            return fragment_list_to_text(word_wrap([(style, candidate)], width)).count("\n") < 2

        if fits(text):
            return out
        ellipsis = "…" if self.glyphs.unicode else "..."
        more = f" {ellipsis} (Tab lists them all)" if text.lstrip(" ✗!").startswith("legal now: ") else f" {ellipsis}"
        separators = ("; ", ", ") if "; " not in text else ("; ",)
        cut = text
        for _ in range(400):  # bounded: each round drops one item or word from the end
            at = max((cut.rfind(sep) for sep in separators), default=-1)
            if at <= 0 or " " not in cut.strip():
                at = cut.rstrip().rfind(" ")
            if at <= 0:
                break
            cut = cut[:at]
            if fits(cut + more):
                return [(style, cut + more)]
        return out

    def _toolbar(self, width: int | None = None) -> StyleAndTextTuples:
        """The bottom line: whose turn and the turn clock, then what fits of the rest."""
        dot = self.glyphs.dot
        if self.in_lobby:
            keys = [(5, "F2 new table"), (2, "Enter join"), (1, "ready"), (4, "F1 help"), (3, "Ctrl-D quit")]
            return _fit(" lobby ", keys, dot, width)
        if self.session is None or self.tracker is None:
            return [("", " waiting for the table to start  Ctrl-D quit" if self.waiting else " starting")]
        s, t = self.session, self.tracker
        if self.stopped and s.result is None:  # no one is to play any more: no turn, no clock
            return _fit(" stopped ", [(1, t.connection), (3, "F1 help"), (2, "Ctrl-D quit")], dot, width)
        if s.result is not None:
            turn = "game over"
        elif s.my_turn and self.controller is not None and self.controller.move_pending:
            # Not "YOUR TURN" while the move typed is being played: a "legal" or a second move
            # typed now would only be told to wait.
            turn = "playing your move"
        elif s.my_turn and self.left_to_bot:
            turn = "a bot plays your seat"
        elif s.my_turn:
            turn = "YOUR TURN"
        elif t.turn is not None and s.phase == "playing":
            turn = f"{s.names[t.turn]} to play"
        else:
            turn = s.phase
        clock = t.turn_clock()
        head = f" {turn} {clock} " if clock else f" {turn} "
        # What goes first when the terminal is narrow: the phase, then the Tab hint, then where.
        parts = [(1, s.phase), (3, t.connection), (5, "F1 help"), (2, "Tab moves"), (4, "Ctrl-D quit")]
        return _fit(head, parts, dot, width)


def _finishing_bot(session: TableSession) -> SeatAgent:
    """The bot that finishes the seat of a player who left: the game's strategic bot (its
    random one if it has none), thinking :data:`LEAVE_BOT_DELAY` seconds a move."""
    from ..plugins import load_plugins

    assert session.me is not None, "a seat of our own"
    bots = load_plugins().bots_for(session.game.id)
    cls = bots.get("strategic") or bots["random"]
    bot = cls(session.game, session.me, session.options, random.Random())
    return BotSeat(bot, delay=LEAVE_BOT_DELAY)


def _fit(head: str, parts: list[tuple[int, str]], dot: str, width: int | None) -> StyleAndTextTuples:
    """A toolbar: ``head`` (reversed), then as many of ``parts`` ((priority, text), in the order
    shown) as fit in ``width``, the lowest priorities left out first. Facts are set apart by
    dots, then the keys ("F1 help", "Ctrl-D quit") by two spaces."""
    kept = list(parts)

    def text() -> str:
        facts = [part for _, part in kept if not _is_key(part)]
        keys = [part for _, part in kept if _is_key(part)]
        return "".join(f" {dot} {fact}" for fact in facts) + (f" {dot} " + "  ".join(keys) if keys else "")

    while width and kept and len(head) + len(text()) > width:
        kept.remove(min(kept, key=lambda part: part[0]))
    return [("class:toolbar.turn", head), ("", text())]


def _is_key(hint: str) -> bool:
    return hint.split()[0] in ("F1", "F2", "Tab", "Enter", "Ctrl-D", "ready")


def run_console(new_table: Callable[[], TableSession] | TableRunner | None = None, **kwargs: Any) -> None:
    """Run the console to the end in a fresh asyncio loop (blocking)."""
    asyncio.run(ConsoleApp(new_table, **kwargs).run())

"""Console test helpers: building tables, and a driver that runs the real console on a pipe
input with a dummy output."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pcards.console.app import ConsoleApp
from p2pcards.console.render import UNICODE
from p2pcards.plugins import PluginHost
from p2pcards.session import TableSession, local_session

BUNDLED = ("cals-bs", "calypso")


def require_game(host: PluginHost, game_id: str) -> None:
    if game_id not in host.games:
        pytest.skip(f"game {game_id} is not installed (plugins/{game_id} not built yet?)")


def table(host: PluginHost, game_id: str, **kwargs) -> TableSession:
    kwargs.setdefault("deck", "local")
    kwargs.setdefault("seed", 7)
    return local_session(host, game_id, **kwargs)


class Driver:
    """Types into a running :class:`ConsoleApp` through a pipe input, waiting (with timeouts)
    for the app to act on each line."""

    def __init__(self, console: ConsoleApp, pipe):
        self.console = console
        self.pipe = pipe

    async def until(self, predicate: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate}")
            await asyncio.sleep(0.002)

    async def keys(self, data: str) -> None:
        self.pipe.send_text(data)
        await asyncio.sleep(0.01)

    async def enter(self, text: str, timeout: float = 5.0) -> None:
        """Type a line and press Enter; returns once the console has handled it."""
        before = self.console.lines_entered
        self.pipe.send_text(text + "\r")
        await self.until(lambda: self.console.lines_entered > before, timeout, f"Enter on {text!r}")

    async def clear_line(self) -> None:
        await self.keys("\x15")  # Ctrl-U: kill the line before the cursor

    async def my_turn_or_end(self, timeout: float = 10.0) -> None:
        """Wait until the console would take a move (the last one was played) or the end."""
        console = self.console
        await self.until(
            lambda: (
                console.session is not None
                and (
                    (console.session.my_turn and not console.controller.move_pending)
                    or console.session.result is not None
                    or bool(console.stopped)
                )
            ),
            timeout,
            "my turn or the end",
        )


class SizedOutput(DummyOutput):
    """A dummy output of a given terminal size (``columns``, ``rows``): the screen is laid out
    and drawn as in that terminal (:func:`screen_text` reads it), nothing is written."""

    def __init__(self, size: tuple[int, int]):
        super().__init__()
        self.size = Size(rows=size[1], columns=size[0])

    def get_size(self) -> Size:
        return self.size


def screen_text(console: ConsoleApp) -> str:
    """What the console's last drawing put on the screen, row by row (trailing blanks cut)."""
    screen = console.application.renderer._last_screen
    assert screen is not None, "the screen was not drawn yet"
    size = console.application.output.get_size()
    rows = []
    for y in range(size.rows):
        row = screen.data_buffer[y]
        rows.append("".join(row[x].char for x in range(size.columns)).rstrip())
    return "\n".join(rows)


async def drawn(driver: Driver) -> str:
    """The screen once drawn again from the console's current state."""
    app = driver.console.application
    before = app.render_counter
    app.invalidate()
    await driver.until(lambda: app.render_counter > before, 5, "a new drawing")
    return screen_text(driver.console)


def run_console(
    new_table: Callable[[], TableSession] | None,
    script,
    *,
    glyphs=UNICODE,
    colour=True,
    timeout=60.0,
    lobby=None,
    size: tuple[int, int] | None = None,
    **options,
):
    """Run the console on a pipe input until it exits; ``script(driver)`` is an async function
    that types into it (``options`` go to :class:`ConsoleApp`; ``size``: the terminal's columns
    and rows, read back with :func:`drawn`). Returns the console."""

    async def main() -> ConsoleApp:
        with create_pipe_input() as pipe:
            output = SizedOutput(size) if size is not None else DummyOutput()
            console = ConsoleApp(
                new_table, lobby=lobby, glyphs=glyphs, colour=colour, input=pipe, output=output, **options
            )
            driver = Driver(console, pipe)

            async def play() -> None:
                try:
                    await script(driver)
                finally:
                    for _ in range(2):  # Ctrl-C: quit whatever happened (twice at a game others play)
                        if console.application.is_running and not console.application.future.done():
                            await driver.keys("\x03")
                            await asyncio.sleep(0.05)

            task = asyncio.ensure_future(play())
            await asyncio.wait_for(console.run(), timeout)
            await task  # re-raise the script's assertion errors
            return console

    return asyncio.run(main())

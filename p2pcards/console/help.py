"""Help text: the game's summary and commands, and the console's own commands."""

from __future__ import annotations

import textwrap

from ..game import options_words
from ..session import TableSession

__all__ = ["CONSOLE_COMMANDS", "KEYS", "help_text"]

CONSOLE_COMMANDS: tuple[tuple[str, str], ...] = (
    ("help", "this help (also F1; Esc closes it)"),
    ("legal", "list the moves you may make now (Tab completes them)"),
    ("say TEXT", "chat to the table"),
    ("new", "start a new game, once this one is over"),
    ("again", "after a network game: play it again with the same players, once all agree"),
    ("leave", "at a network table: a bot plays your seat to the end; the others play on"),
    ("drop", "where the rules allow it: drop out, your cards set aside unseen; the others play on"),
    ("quit", "leave (Ctrl-D on an empty line, Ctrl-C); twice if others play: ends it for all"),
)

KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "on an empty line: play your only move, when there is just one"),
    ("Tab", "complete a legal move or a command"),
    ("Up/Down", "earlier lines you typed"),
    ("PageUp/PageDown", "scroll the log"),
    ("F1", "show or hide this help"),
)


def _table(rows: tuple[tuple[str, str], ...]) -> list[str]:
    width = max(len(a) for a, _ in rows)
    return [f"  {a.ljust(width)}  {b}" for a, b in rows]


def help_text(session: TableSession, width: int = 76) -> str:
    """The rules summary, the game's commands and the console's commands, as plain text."""
    game = session.game
    lines = [f"{game.name} (rules {game.rules_version})", ""]
    if game.summary:
        lines += textwrap.wrap(game.summary, width) + [""]
    options = options_words(game.options, session.options)
    if options:
        lines += textwrap.wrap(f"options: {options}", width) + [""]
    commands = game.commands_help().strip("\n")
    lines.append("Moves")
    if commands:
        lines += ["  " + line for line in commands.splitlines()]
    else:
        lines.append("  (this game lists no commands; Tab shows the legal moves)")
    lines += ["", "Console commands"] + _table(CONSOLE_COMMANDS)
    lines += ["", "Keys"] + _table(KEYS)
    return "\n".join(lines)

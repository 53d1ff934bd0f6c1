"""View models of the LAN lobby: the table list, the room, the create-a-table form, and what a
typed lobby command asks for. Plain data and plain functions; nothing here knows prompt-toolkit
or the network (the data comes from a :class:`~.lobby.LobbyBackend`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..game import options_words
from ..text import table_called
from .lobby import GameChoice, OptionChoice, TableAd, TableRoom

__all__ = [
    "CreateForm",
    "FormField",
    "LobbyCommand",
    "LOBBY_WORDS",
    "parse_lobby_command",
    "room_lines",
    "table_rows",
]


# --------------------------------------------------------------------------------------------
# The table list and the room.


def table_rows(tables: Sequence[TableAd], selected: int | None) -> list[tuple[bool, str]]:
    """One ``(selected, text)`` row per table, numbered from 1 (``join 2`` takes the second)."""
    if not tables:
        return []
    width = max(len(t.host_name) for t in tables)
    game_width = max(len(t.game_name) for t in tables)
    rows = []
    for index, t in enumerate(tables):
        full = " full" if t.seats_taken >= t.seats_total else ""
        if t.playing:
            full = f" playing: watch {index + 1}"
        text = (
            f"{index + 1:>2}. {t.host_name.ljust(width)}  {t.game_name.ljust(game_width)}  "
            f"{t.seats_taken}/{t.seats_total} seated{full}  key {t.fingerprint}  {t.address}"
        )
        rows.append((index == selected, text))
    return rows


def room_lines(room: TableRoom, games: Sequence[GameChoice] = ()) -> list[str]:
    """The room: the table, every seat with who sits there and whether they are ready, then
    the table's options (in words, when ``games``, the installed ones, has the table's game)
    and timeouts, and what comes next."""
    t = room.table
    head = f"{t.game_name} at {table_called(t.host_name)}" if t.game_name != "?" else f"table at {t.address}"
    lines = [head + ("  (you host it)" if room.hosting else "")]
    # The seats first: on a short terminal they are what the room must show.
    for seat in room.seats:
        who = seat.name or "(free)"
        you = " (you)" if seat.me else ""
        state = "ready" if seat.ready else ("waiting" if seat.name else "")
        bot = (
            f"  [{seat.bot or 'a'} bot on {_seat_name(room, seat.bot_of)}'s computer]"
            if seat.bot_of is not None
            else ""
        )
        lines.append(f"  {who}{you}  {state}{bot}".rstrip())  # in seat order; no seat numbers for people
    if not room.seats:
        lines.append("  waiting for the seats...")
    lines += bot_notes(room)
    if t.options:
        lines.append("options: " + options_text(t.game_id, t.options, games))
    if room.timeouts:
        lines.append(f"timeouts: {room.timeouts}")
    if room.auth_words:
        lines.append("table words: " + " ".join(room.auth_words) + "  (compare them aloud)")
    elif room.words_problem:
        lines.append(f"no table words: {room.words_problem}")
    elif room.hosting:
        lines.append("the game starts when every seat is taken and ready")
    else:
        mine = next((s for s in room.seats if s.me), None)
        if mine is not None and not mine.ready:
            lines.append("type 'ready' when you are (or 'leave')")
        else:
            lines.append("waiting for the other seats to be ready")
    return lines


def options_text(game_id: str, options: Mapping[str, Any], games: Sequence[GameChoice] = ()) -> str:
    """A table's options as a person reads them ("first dealer: by lot, going out: face up,
    must be true"); an option the installed game does not know: ``key=value``."""
    return options_words((o for g in games if g.id == game_id for o in g.options), options)


def bot_notes(room: TableRoom) -> list[str]:
    """What the bots some seat's computer plays mean for the others: that computer holds their
    keys, so it sees their cards (and may deduce more by elimination)."""
    by: dict[int, list[int]] = {}
    for seat in room.seats:
        if seat.bot_of is not None:
            by.setdefault(seat.bot_of, []).append(seat.seat)
    notes = []
    for owner, seats in sorted(by.items()):
        mine = any(s.me and s.seat == owner for s in room.seats)
        whose = "your computer" if mine else f"{_seat_name(room, owner)}'s computer"
        listed = ", ".join(_seat_name(room, s) for s in seats)
        notes.append(
            f"{whose} plays {listed}: it holds their keys, so it can "
            f"see their cards (and deduce others' by elimination)"
        )
    return notes


def _seat_name(room: TableRoom, seat: int) -> str:
    """Who sits in a seat, by name ("the player in seat 2" while it is free)."""
    for info in room.seats:
        if info.seat == seat and info.name:
            return info.name
    return f"the player in seat {seat}"


# --------------------------------------------------------------------------------------------
# The create-a-table form.


@dataclass(frozen=True)
class FormField:
    key: str
    label: str
    value: str
    help: str
    focused: bool


@dataclass
class CreateForm:
    """Game, seats, bots and the game's options; Up/Down picks a field, Left/Right changes it."""

    games: Sequence[GameChoice]
    game_index: int = 0
    players: int = 0
    bots: int = 0
    values: dict[str, Any] = field(default_factory=dict)
    focus: int = 0

    def __post_init__(self) -> None:
        if not self.games:
            raise ValueError("no games are installed")
        self._reset_game()

    @property
    def game(self) -> GameChoice:
        return self.games[self.game_index]

    def _reset_game(self) -> None:
        game = self.game
        self.players = game.min_players
        self.bots = game.min_players - 1  # a table that can start at once, against bots
        self.values = {o.name: o.default for o in game.options}

    def keys(self) -> list[str]:
        return ["game", "seats", "bots"] + [o.name for o in self.game.options]

    def move(self, delta: int) -> None:
        self.focus = (self.focus + delta) % len(self.keys())

    def change(self, delta: int) -> None:
        """Left/Right on the focused field: cycle a choice, step a number, flip a switch."""
        key = self.keys()[self.focus]
        if key == "game":
            self.game_index = (self.game_index + delta) % len(self.games)
            self._reset_game()
        elif key == "seats":
            g = self.game
            self.players = min(g.max_players, max(g.min_players, self.players + delta))
            self.bots = min(self.bots, self.players - 1)
        elif key == "bots":
            self.bots = min(self.players - 1, max(0, self.bots + delta))
        else:
            option = self._option(key)
            self.values[key] = _step(option, self.values[key], delta)

    def _option(self, name: str) -> OptionChoice:
        return next(o for o in self.game.options if o.name == name)

    def fields(self) -> list[FormField]:
        g = self.game
        out = [
            FormField("game", "game", g.name, f"{g.id}, {g.min_players}-{g.max_players} players", False),
            FormField("seats", "seats", str(self.players), f"{g.min_players} to {g.max_players}", False),
            FormField(
                "bots",
                "bots",
                str(self.bots),
                "bot peers in the seats after yours; the rest wait for players on the network",
                False,
            ),
        ]
        for o in g.options:
            value = self.values[o.name]
            # A value in words is described in words; the option's own help (for --option)
            # may explain raw values ("-1: nobody did") a person never sees here.
            out.append(FormField(o.name, o.title, o.value_text(value), o.value_help(value) or o.help, False))
        return [FormField(f.key, f.label, f.value, f.help, i == self.focus) for i, f in enumerate(out)]

    def request(self) -> tuple[str, dict[str, Any], int, int]:
        """``(game id, options, players, bots)`` for :meth:`LobbyBackend.create`."""
        return self.game.id, dict(self.values), self.players, self.bots


def _step(option: OptionChoice, value: Any, delta: int) -> Any:
    if option.kind == "bool":
        return not value
    if option.choices:
        index = option.choices.index(value) if value in option.choices else 0
        return option.choices[(index + delta) % len(option.choices)]
    if option.kind == "int":
        low = option.minimum if option.minimum is not None else 0
        high = option.maximum if option.maximum is not None else value + abs(delta)
        return min(high, max(low, int(value) + delta))
    return value  # free text: set it with 'create GAME KEY=VALUE'


# --------------------------------------------------------------------------------------------
# Typed lobby commands.

LOBBY_WORDS = ("create", "join ", "connect ", "watch ", "ready", "leave", "remove ", "help", "quit")


@dataclass(frozen=True)
class LobbyCommand:
    """``verb``: create, join, watch, ready, leave, remove, help, quit; ``error`` when the line is not one."""

    verb: str = ""
    target: str = ""  # join: a table number, an id, or HOST:PORT; remove: a seat number
    game: str = ""
    settings: Mapping[str, str] = field(default_factory=dict)  # create: seats, bots, options
    error: str = ""


def parse_lobby_command(text: str) -> LobbyCommand:
    words = text.split()
    if not words:
        return LobbyCommand()
    verb, args = words[0].lower(), words[1:]
    if verb in ("help", "?", "h", "ready", "leave", "quit", "exit") and not args:
        return LobbyCommand({"?": "help", "h": "help", "exit": "quit"}.get(verb, verb))
    if verb in ("remove", "kick"):
        if len(args) != 1 or not args[0].isdigit():
            return LobbyCommand(error="remove SEAT: the seat number of a player at your table (the host's is 0)")
        return LobbyCommand("remove", target=args[0])
    if verb in ("join", "connect"):
        if len(args) > 1:
            return LobbyCommand(error=f"{verb} takes one table: a number from the list, an id or HOST:PORT")
        if verb == "connect" and (not args or ":" not in args[0]):
            return LobbyCommand(error="connect HOST:PORT, e.g. connect 192.168.1.20:40123")
        return LobbyCommand("join", target=args[0] if args else "")
    if verb == "watch":
        if len(args) > 1:
            return LobbyCommand(error="watch takes one table: a number from the list, an id or HOST:PORT")
        return LobbyCommand("watch", target=args[0] if args else "")
    if verb == "create":
        game, settings = "", {}
        for arg in args:
            key, sep, value = arg.partition("=")
            if sep:
                settings[key] = value
            elif not game:
                game = arg
            else:
                return LobbyCommand(error=f"create GAME [seats=N] [bots=K] [OPTION=VALUE ...], not {arg!r}")
        return LobbyCommand("create", game=game, settings=settings)
    return LobbyCommand(
        error=f"unknown command {words[0]!r}: create, join, connect, watch, ready, leave, remove, help, quit"
    )

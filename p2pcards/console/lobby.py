"""The LAN lobby's contract with the network layer.

The lobby screen (tables found, create a table with a game and options, join, seats, ready, the
table's authentication words) talks only to a :class:`LobbyBackend`; :mod:`.lan` implements it
over zeroconf discovery and the table handshake of :mod:`p2pcards.net`.

Everything here is plain data. Methods that talk to peers are trio coroutines (the console runs
trio as a guest on prompt-toolkit's loop, so the lobby screen awaits them from its trio side);
they raise :class:`LobbyProblem` with a message for people when something cannot be done.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..game import OptionWords
from ..session import TableSession

__all__ = [
    "GameChoice",
    "GameEnd",
    "LobbyBackend",
    "LobbyEvent",
    "LobbyProblem",
    "OptionChoice",
    "SeatInfo",
    "TableAd",
    "TableRoom",
]


class LobbyProblem(Exception):
    """Creating, joining or playing a table failed; the message says why, for people."""


@dataclass(frozen=True)
class OptionChoice(OptionWords):
    """One option of a game, as the create-a-table form offers it."""

    name: str
    kind: str  # "bool", "int" or "str"
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    #: The option's words (see :class:`p2pcards.game.Option`): its label, and
    #: ``(value, label, description)`` for the values that have words.
    label: str = ""
    values: tuple[tuple[Any, str, str], ...] = ()


@dataclass(frozen=True)
class GameChoice:
    """An installed game a table can be created for."""

    id: str
    name: str
    min_players: int
    max_players: int
    options: tuple[OptionChoice, ...] = ()
    #: Named presets of options and each one's words (``("free-order", {...}, "turn order:
    #: free order")``).
    variants: tuple[tuple[str, Mapping[str, Any], str], ...] = ()


@dataclass(frozen=True)
class TableAd:
    """A table seen on the network."""

    table_id: str
    game_id: str
    game_name: str
    host_name: str
    seats_taken: int
    seats_total: int
    options: Mapping[str, Any] = field(default_factory=dict)
    address: str = ""  # "HOST:PORT", for people who connect by hand
    fingerprint: str = ""  # the host's key fingerprint
    playing: bool = False  # its game has started: 'watch N' watches it


@dataclass(frozen=True)
class SeatInfo:
    seat: int
    name: str | None  # None: free
    ready: bool = False
    me: bool = False
    #: A bot that runs on seat ``bot_of``'s computer (the host's bots): that computer holds the
    #: seat's keys and can read its cards. ``bot`` names the bot.
    bot_of: int | None = None
    bot: str = ""


@dataclass(frozen=True)
class TableRoom:
    """The table this peer has created or joined."""

    table: TableAd
    seats: tuple[SeatInfo, ...]
    #: Words derived from the table header (every seat's keys) and a nonce of every seat that
    #: the players read aloud to check that nobody sits in the middle; known once the table
    #: starts (empty before, and when ``words_problem`` says why there are none).
    auth_words: tuple[str, ...] = ()
    hosting: bool = False
    started: bool = False
    #: The table's timeouts, for people ("a deck step 30 s, ..."): shown before the joiner says
    #: ready; the game's header must keep them.
    timeouts: str = ""
    words_problem: str = ""


@dataclass(frozen=True)
class LobbyEvent:
    """``kind``: ``tables`` (the list changed), ``room`` (seats, readiness), ``started`` (the
    game began: :meth:`LobbyBackend.session` has it), ``ended`` (the game is over and the
    transcript saved), ``error``; ``text`` is for people."""

    kind: str
    text: str = ""


@dataclass(frozen=True)
class GameEnd:
    """How the table's game ended for this seat."""

    stopped: str | None  # why the game stopped early, or None when it finished
    transcript: str | None  # the saved transcript


class LobbyBackend(Protocol):
    """What the lobby screen needs from the network layer."""

    def fingerprint(self) -> str:
        """This user's key fingerprint."""
        ...

    def where(self) -> str:
        """Where tables are looked for and announced (an interface), for people."""
        ...

    def games(self) -> Sequence[GameChoice]:
        """The games a table can be created for (the installed plugins)."""
        ...

    def tables(self) -> Sequence[TableAd]:
        """Tables found so far, best first (not this peer's own)."""
        ...

    def room(self) -> TableRoom | None:
        """The created or joined table, or ``None``."""
        ...

    def subscribe(self, callback: Callable[[LobbyEvent], None]) -> None: ...

    async def run(self, *, task_status: Any = ...) -> None:
        """Look for tables (and run the tables created or joined) until cancelled; reports
        ``task_status.started()`` once looking."""
        ...

    async def create(self, game_id: str, options: Mapping[str, Any], players: int, bots: int) -> TableRoom | None:
        """Open a table with this peer in seat 0 and ``bots`` bot peers in the next seats
        (``None``: the table already closed again)."""
        ...

    async def join(self, table: str) -> TableRoom | None:
        """Take a seat at a table found on the network (its id) or at ``HOST:PORT``
        (``None``: the table already closed again)."""
        ...

    async def ready(self) -> None:
        """Say this seat is ready; the table starts when every seat is taken and ready."""
        ...

    async def leave(self) -> None:
        """Leave the room before its game starts."""
        ...

    async def remove(self, seat: int) -> str:
        """The host sends the player in ``seat`` away before the game starts; returns its name."""
        ...

    def session(self) -> TableSession | None:
        """Once the game has started: the table, for the table screen."""
        ...

    async def game_over(self) -> GameEnd:
        """Wait until the started game has ended for this seat (transcript saved)."""
        ...

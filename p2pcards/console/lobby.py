"""The LAN lobby's contract with the network layer.

The lobby screen (tables found, create a table with a game and options, join, seats, ready, the
table's authentication words) is to be built against :class:`LobbyBackend`, which the network
layer implements (zeroconf discovery, ``connect HOST:PORT``, the table handshake). Until a backend
exists, ``p2pcards play`` says that LAN play is not available yet and points to ``p2pcards
demo``; nothing here pretends to find tables.

Everything is plain data; methods that talk to peers are trio coroutines (the console runs trio
as a guest on prompt-toolkit's loop, so the lobby screen can await them from its trio side).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..session import TableSession

__all__ = ["LobbyBackend", "LobbyEvent", "SeatInfo", "TableAd", "TableRoom"]


@dataclass(frozen=True)
class TableAd:
    """A table seen on the network (or reached with ``connect``)."""

    table_id: str
    game_id: str
    game_name: str
    host_name: str
    seats_taken: int
    seats_total: int
    options: Mapping[str, Any] = field(default_factory=dict)
    address: str = ""  # "HOST:PORT", for people who connect by hand


@dataclass(frozen=True)
class SeatInfo:
    seat: int
    name: str | None  # None: free
    ready: bool = False
    me: bool = False


@dataclass(frozen=True)
class TableRoom:
    """The table this peer has joined, before the game starts."""

    table: TableAd
    seats: tuple[SeatInfo, ...]
    #: Words derived from the table's keys that every player reads aloud to check that nobody
    #: sits in the middle (the same words must show on every screen).
    auth_words: tuple[str, ...]


@dataclass(frozen=True)
class LobbyEvent:
    """``kind``: ``tables`` (the list changed), ``room`` (seats, readiness), ``started`` (the
    game began: :meth:`LobbyBackend.session` has it), ``error``; ``text`` is for people."""

    kind: str
    text: str = ""


class LobbyBackend(Protocol):
    """What the lobby screen needs from the network layer."""

    def tables(self) -> Sequence[TableAd]:
        """Tables found so far, best first."""
        ...

    def room(self) -> TableRoom | None:
        """The joined table, or ``None``."""
        ...

    def subscribe(self, callback: Callable[[LobbyEvent], None]) -> None: ...

    async def create(self, game_id: str, options: Mapping[str, Any], players: int) -> TableRoom: ...

    async def join(self, table_id: str) -> TableRoom: ...

    async def connect(self, address: str) -> TableAd:
        """Reach a table by ``HOST:PORT`` when discovery fails."""
        ...

    async def sit(self, seat: int) -> None: ...

    async def ready(self, ready: bool = True) -> None: ...

    async def leave(self) -> None: ...

    def session(self) -> TableSession | None:
        """Once the game has started: the table, for the table screen."""
        ...

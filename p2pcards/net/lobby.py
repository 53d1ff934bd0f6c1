"""Forming a table: the handshake, seats, the agreed header, and the mesh between seats.

The peer that creates a table (the *host*) only gathers the roster: it advertises the table,
seats whoever completes the handshake, and when every seat is taken and ready it sends everyone
the table header. From then on the host is one seat like the others: every log entry is signed
by its author and chained back to the header, so the host can neither forge nor reorder moves.

Messages on a connection, in order (protocol/table.md has the byte-level description):

1. ``hello`` both ways, then ``auth`` both ways (p2pcards.wire.messages);
2. joining the lobby: ``{"type": "lobby", "op": "sit", "host": h, "port": p, "commit": c}`` ->
   ``{"op": "seated", "seat": k, "table": id, "game", "rules", "options", "timeouts"}`` (the
   table's terms, shown to the joiner before it says ready; the header at ``start`` must hold
   the same); the host sends ``{"op": "roster", ...}`` to every seated peer on each change
   (with the key and address of every seated joiner, and which seats are its own bots);
   ``{"op": "ready"}`` -> when every seat is ready, ``{"op": "start", "header": {...},
   "commits": [...], "hellos": [...]}`` (every seat's signed ``hello``: the proof of the keys
   the header gives it, :func:`seat_keys_problem`);
3. the table words: each joiner sends ``{"op": "reveal", "nonce": n}``, then the host sends
   every seat's nonce, its own included, in ``{"op": "nonces", "nonces": [...]}``;
4. or, joining the mesh of the table (while it waits in the lobby, or started, also after a
   restart): ``{"type": "lobby", "op": "mesh", "table": id, "seat": k}``.

Joiners connect to each other while they wait in the lobby (each to the seated joiners below
it), so that the game starts with every connection up: the header at ``start`` must then name
each of them with the key it showed, or that connection is dropped and made again.

The table words (:func:`~p2pcards.wire.identity.table_auth_words`) hash the header and a random
nonce of every seat. Each seat commits to its nonce before anybody reveals one (a joiner in
``sit``, the host in ``start``, which carries every commitment), and reveals it only once every
commitment is fixed, the host last: so a person in the middle, who must choose its keys before it
sees the honest seats' nonces, matches both sides' words with probability 2^-40 per try,
whatever it computes beforehand (protocol/table.md section 2).

Lobby messages are checked against small schemas; a peer that sends anything else is dropped with
a reason (``bye``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from .. import PROTOCOL_VERSION
from ..table.header import Seat, TableHeader
from ..table.timeouts import Timeouts
from ..text import printable
from ..wire.errors import ProtocolError, SchemaError
from ..wire.identity import (
    Identity,
    PublicIdentity,
    TableWords,
    new_words_nonce,
    open_table_words,
    words_commitment,
)
from ..wire.messages import (
    Auth,
    Bye,
    Hello,
    VersionMismatch,
    handshake_proof,
    make_hello,
    new_table_id,
    parse_message,
    version_mismatch,
)
from ..wire.schema import AnyData, Bool, Bytes, Float, Int, ListOf, MapOf, Nullable, Record, Str, Text
from .discovery import TableAdvert, advertise
from .slots import Slot, serve_listener
from .transport import Connection, ConnectionClosed, FrameError, connect

__all__ = [
    "Handshaken",
    "HostBot",
    "HostedLobby",
    "LobbyError",
    "LobbyResult",
    "Roster",
    "TableTerms",
    "accept_mesh",
    "dial_seat",
    "handshake",
    "host_lobby",
    "join_lobby",
    "rematch_options",
    "rematch_problem",
    "serve_listener",
]

#: How long we wait for the other side's handshake when we dial, and for a first lobby message.
#: A connection to one of our listeners also has :data:`.slots.UNPROVEN_SECONDS` for both together.
HANDSHAKE_SECONDS = 10.0
#: A joiner says it is ready once connected to the seated joiners below it, or this long after
#: it sat down at the latest (so that the game starts with its connections up).
MESH_BEFORE_READY = 2.0
ANY_ADDRESS = "0.0.0.0"
#: After ``start``, how long the host waits for the joiners' words nonces (a joiner waits twice
#: as long for the host's ``nonces``: the host may be waiting for a silent seat). A seat that
#: does not reveal costs the table its words, not its game.
REVEAL_SECONDS = 10.0

_MESSAGES = {
    "sit": Record({"type": Str(16), "op": Str(16), "host": Str(64), "port": Int(1, 65535), "commit": Bytes(32)}),
    "seated": Record(
        {
            "type": Str(16),
            "op": Str(16),
            "seat": Int(0, 15),
            "table": Bytes(16),
            "game": Str(64),
            "rules": Str(64),
            "options": MapOf(Str(64), AnyData(), 64),
            "timeouts": Record({"deck": Float(), "turn": Float(), "grace": Float()}),
        }
    ),
    "ready": Record({"type": Str(16), "op": Str(16), "ready": Bool()}),
    "roster": Record(
        {
            "type": Str(16),
            "op": Str(16),
            "names": ListOf(Text(64), 16),
            "ready": ListOf(Bool(), 16),
            "seats": Int(1, 16),
            "mesh": ListOf(
                Record({"seat": Int(1, 15), "ed25519": Bytes(32), "host": Str(64), "port": Int(1, 65535)}), 16
            ),
            "bots": ListOf(Record({"seat": Int(1, 15), "by": Int(0, 15), "bot": Text(64)}), 15),
        }
    ),
    "start": Record(
        {
            "type": Str(16),
            "op": Str(16),
            "header": Record({}, extra=True),
            "commits": ListOf(Bytes(32), 16),
            "hellos": ListOf(Record({}, extra=True), 16),
        }
    ),
    "reveal": Record({"type": Str(16), "op": Str(16), "nonce": Bytes(32)}),
    "nonces": Record({"type": Str(16), "op": Str(16), "nonces": ListOf(Nullable(Bytes(32)), 16)}),
    "mesh": Record({"type": Str(16), "op": Str(16), "table": Bytes(16), "seat": Int(0, 15)}),
    # Spectators (protocol/table.md section 10; p2pcards/net/spectators.py, watch.py).
    "watch": Record({"type": Str(16), "op": Str(16)}),
    "watching": Record({"type": Str(16), "op": Str(16), "header": Record({}, extra=True)}),
    "ended": Record({"type": Str(16), "op": Str(16), "end": Record({}, extra=True)}),
}


class LobbyError(Exception):
    """Joining or forming the table failed; the message says why (for people)."""


class RematchLeft(LobbyError):
    """A rematch's room closed because seated joiners left it (``seats``: theirs in that
    room); the message is the ``bye`` the others were sent."""

    def __init__(self, reason: str, seats: tuple[int, ...]):
        super().__init__(reason)
        self.seats = seats


@dataclass(frozen=True)
class TableTerms:
    """What the host tells a joiner about the table when it sits, before the joiner says ready:
    the header at ``start`` must hold the same (:meth:`mismatch`)."""

    game: str
    rules_version: str
    options: Mapping[str, Any]
    timeouts: Timeouts

    def to_wire(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "rules": self.rules_version,
            "options": dict(self.options),
            "timeouts": self.timeouts.to_wire(),
        }

    @classmethod
    def from_seated(cls, seated: Mapping[str, Any], peer: str) -> TableTerms:
        try:  # the same bounds a header's timeouts must meet
            timeouts = Timeouts(**seated["timeouts"])
        except ValueError as exc:
            raise ProtocolError(peer, f"offers timeouts out of bounds: {exc}") from None
        return cls(seated["game"], seated["rules"], dict(seated["options"]), timeouts)

    def mismatch(self, header: TableHeader) -> str | None:
        """What the header changes from these terms, for people; None when it keeps them."""
        if header.timeouts != self.timeouts:
            return (
                f"the table header's timeouts ({header.timeouts.describe()}) are not those the host "
                f"showed when we sat down ({self.timeouts.describe()})"
            )
        if (header.game, header.rules_version) != (self.game, self.rules_version):
            return (
                f"the table header plays {header.game} {header.rules_version}, not the "
                f"{self.game} {self.rules_version} the host showed when we sat down"
            )
        if dict(header.options) != dict(self.options):
            changed = sorted(
                k for k in set(header.options) | set(self.options) if header.options.get(k) != self.options.get(k)
            )
            return (
                f"the table header's options are not those the host showed when we sat down "
                f"({', '.join(changed)[:200]})"
            )
        return None


@dataclass(frozen=True)
class HostBot:
    """A seat played by a bot that runs on seat ``by``'s computer (``kind``: which bot). That
    computer holds the seat's keys, so it can read the bot's cards."""

    by: int
    kind: str


@dataclass(frozen=True)
class Roster:
    """Who sits where, as the host's latest ``roster`` says: names (``""``: free), who is
    ready, and the seats that are bots of another seat's computer."""

    names: list[str]
    ready: list[bool]
    bots: dict[int, HostBot] = field(default_factory=dict)
    #: At a rematch (:mod:`.rematch`): our seat in this room (a smaller room after a seat
    #: left numbers the seats again), and who left and who plays (for people), if anyone left.
    me: int | None = None
    note: str = ""


@dataclass
class Handshaken:
    conn: Connection
    ours: Hello
    theirs: Hello

    @property
    def keys(self) -> PublicIdentity:
        return self.theirs.keys

    @property
    def name(self) -> str:
        return self.theirs.name


def lobby_message(raw: Any, op: str, peer: str) -> dict[str, Any]:
    """Check a lobby message of kind ``op``; :class:`ProtocolError` naming ``peer`` if not."""
    if not isinstance(raw, dict) or raw.get("type") != "lobby" or raw.get("op") != op:
        if isinstance(raw, dict) and raw.get("type") == "bye":
            raise ProtocolError(peer, f"left: {str(raw.get('reason', ''))[:200]}")
        shown = raw.get("op") if isinstance(raw, dict) else type(raw).__name__
        raise ProtocolError(peer, f"expected lobby {op}, got {shown!r}")
    try:
        _MESSAGES[op].check(raw, op)
    except SchemaError as exc:
        raise ProtocolError(peer, f"malformed lobby {op}: {exc}") from None
    return raw


def _refused(message: Any, peer: str, expected: str) -> ProtocolError:
    """The error for a handshake message that is not the one ``expected``: the peer's own
    reason when it said ``bye`` (a version it cannot play with), else a plain one."""
    if isinstance(message, Bye):
        return ProtocolError(peer, f"refused the connection: {message.reason[:300]}")
    return ProtocolError(peer, f"expected {expected}")


async def handshake(
    conn: Connection, identity: Identity, *, name: str, games: Mapping[str, str], game: str | None = None
) -> Handshaken:
    """Exchange hello and auth; refuse a peer with another protocol or rules version (naming
    both versions, in a ``bye`` to it too) or one that cannot prove its key."""
    ours = make_hello(identity, name=name, games=games)
    try:
        with trio.fail_after(HANDSHAKE_SECONDS):
            await conn.send(ours.to_wire())
            try:
                theirs = parse_message(await conn.receive(), conn.remote)
            except VersionMismatch as exc:  # another protocol version: say why before closing
                await conn.send(Bye(str(exc)[:1000]).to_wire())
                raise
            if not isinstance(theirs, Hello):
                raise _refused(theirs, conn.remote, "hello")
            mismatch = version_mismatch(ours, theirs, game=game, peer=theirs.name or conn.remote)
            if mismatch is not None:
                await conn.send(Bye(str(mismatch)[:1000]).to_wire())
                raise mismatch
            await conn.send(handshake_proof(identity, ours, theirs).to_wire())
            auth = parse_message(await conn.receive(), conn.remote)
            if not isinstance(auth, Auth):
                raise _refused(auth, theirs.name or conn.remote, "auth")
            auth.check(ours, theirs, conn.remote)
    except trio.TooSlowError:
        raise ProtocolError(conn.remote, "handshake timed out") from None
    except FrameError as exc:
        raise ProtocolError(conn.remote, f"malformed frame: {exc.reason}") from None
    conn.label = theirs.name or conn.remote
    return Handshaken(conn, ours, theirs)


async def first_message(conn: Connection, op: str, peer: str, *, also: str | None = None) -> dict[str, Any]:
    """The lobby message ``op`` that must follow the handshake at once (``sit``, ``mesh``; or
    ``also`` if given: a seat's listener takes a spectator's ``watch`` too): a peer that holds
    the connection without it is dropped after :data:`HANDSHAKE_SECONDS` (on our listeners
    sooner: the slot's limit counts from the connection's start)."""
    with trio.move_on_after(HANDSHAKE_SECONDS):
        raw = await conn.receive()
        if also is not None and isinstance(raw, dict) and raw.get("type") == "lobby" and raw.get("op") == also:
            return lobby_message(raw, also, peer)
        return lobby_message(raw, op, peer)
    raise ProtocolError(peer, f"sent no lobby {op} within {HANDSHAKE_SECONDS:g} s")


# ----------------------------------------------------------------------------------------------
# The host's side.


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


@dataclass
class _Sitter:
    peer: Handshaken
    host: str
    port: int
    commit: bytes  # to its words nonce
    ready: bool = False


@dataclass
class LobbyResult:
    """A started table, as one seat sees it."""

    header: TableHeader
    seat: int
    links: dict[int, Connection]  # connections already open to other seats
    listener: Any = None  # this seat's listener (for mesh connections)
    #: The table words, or why there are none; ``None`` for a seat brought back after a restart
    #: (the words were shown when the table started).
    words: TableWords | None = None

    async def aclose(self) -> None:
        """Close what the lobby left open, for a seat that will not play this table."""
        for conn in self.links.values():
            await conn.aclose()
        if self.listener is not None:
            await self.listener.aclose()


@dataclass
class HostedLobby:
    identity: Identity
    name: str
    game: str
    rules_version: str
    options: Mapping[str, Any]
    players: int
    games: Mapping[str, str]
    interface: str
    port: int = 0
    timeouts: Timeouts = field(default_factory=Timeouts)
    on_change: Callable[[Roster], None] | None = None
    #: Keys (Ed25519) of the bot peers this computer runs, and the bot of each: the roster says
    #: which seats they take, so that joiners know this computer can read those seats' cards.
    bots: dict[bytes, str] = field(default_factory=dict)
    #: The address the others reach us at, when it is not the one we listen on (a port
    #: forward, a relay); ``None``: ``interface`` and the bound ``port``.
    advertise: tuple[str, int] | None = None
    #: Joiners seated so far, by seat (seat 0 is the host).
    sitters: dict[int, _Sitter] = field(default_factory=dict)
    table: bytes = field(default_factory=new_table_id)
    listeners: list[Any] = field(default_factory=list)
    #: The host's words nonce: committed to in ``start``, revealed after every joiner's.
    nonce: bytes = field(default_factory=new_words_nonce)
    #: A rematch (:mod:`.rematch`): the keys (both) of every seat of the last game still in the
    #: rematch, in seat order (the host's first). Each is seated only in its own seat, nobody
    #: else at all, and a seat that leaves closes the room (:class:`RematchLeft`; the rematch
    #: may go on in a smaller room). ``None``: an ordinary table.
    reserved: tuple[PublicIdentity, ...] | None = None
    #: At a rematch: the seats (of this room) whose joiners left it, and the ``bye`` to send
    #: the others then (from those seats; default: "NAME declined the rematch").
    left: list[int] = field(default_factory=list)
    on_leave: Callable[[list[int]], str] | None = None
    #: Whether the host's own player has agreed to start (``ready`` of seat 0): set when
    #: ``agreement`` is, if there is one.
    agreement: trio.Event | None = None
    #: Why this rematch room closes (a seat left, or none agreed in time), once it does.
    declined: str | None = None
    #: Spectators may chat (bound into the header: TableHeader.spectator_chat).
    spectator_chat: bool = False
    _changed: trio.Event = field(default_factory=trio.Event)
    #: The table's name in the lobby when it is not the host player's ``name``
    #: (``host --table-name``).
    table_name: str = ""

    @property
    def free(self) -> int:
        return self.players - 1 - len(self.sitters)

    def names(self) -> list[str]:
        return [self.name] + [self.sitters[s].peer.name if s in self.sitters else "" for s in range(1, self.players)]

    def readiness(self) -> list[bool]:
        agreed = self.agreement is None or self.agreement.is_set()
        return [agreed] + [s in self.sitters and self.sitters[s].ready for s in range(1, self.players)]

    def own_bots(self) -> dict[int, HostBot]:
        """The seats our own bot peers sit in."""
        return {
            seat: HostBot(0, self.bots[sitter.peer.keys.ed25519])
            for seat, sitter in sorted(self.sitters.items())
            if sitter.peer.keys.ed25519 in self.bots
        }

    def roster(self) -> Roster:
        return Roster(self.names(), self.readiness(), self.own_bots())

    def _reached_at(self) -> str | None:
        """Listening everywhere: the address the joiners reached us at. One off loopback when a
        joiner came over the network (our own bot peers reach us over loopback)."""
        reached = [sitter.peer.conn.local_address() for _, sitter in sorted(self.sitters.items())]
        routable = [address for address in reached if not _loopback(address)]
        return (routable or reached)[0] if reached else None

    def _seat_host(self, sitter: _Sitter) -> str:
        """The address the other seats dial ``sitter`` at. Our own bot peers listen on every
        interface, as we do, but name the loopback address they reached us at, which no other
        computer can dial: when a joiner came over the network, they are at our address there."""
        if (
            self.interface == ANY_ADDRESS
            and self.advertise is None
            and sitter.peer.keys.ed25519 in self.bots
            and _loopback(sitter.host)
        ):
            reached = self._reached_at()
            if reached is not None and not _loopback(reached):
                return reached
        return sitter.host

    def terms(self) -> TableTerms:
        return TableTerms(self.game, self.rules_version, dict(self.options), self.timeouts)

    async def _roster(self) -> None:
        mesh = [
            {"seat": seat, "ed25519": sitter.peer.keys.ed25519, "host": self._seat_host(sitter), "port": sitter.port}
            for seat, sitter in sorted(self.sitters.items())
        ]
        bots = [{"seat": seat, "by": bot.by, "bot": bot.kind[:64]} for seat, bot in self.own_bots().items()]
        message = {
            "type": "lobby",
            "op": "roster",
            "names": self.names(),
            "ready": self.readiness(),
            "seats": self.players,
            "mesh": mesh,
            "bots": bots,
        }
        if self.on_change:
            self.on_change(self.roster())
        for sitter in list(self.sitters.values()):
            try:
                await sitter.peer.conn.send(message)
            except ConnectionClosed:
                pass

    def _notify(self) -> None:
        self._changed.set()

    async def _seat(self, conn: Connection, slot: Slot | None = None) -> None:
        """Handshake and seat one joiner; keeps its connection as its link to the host (from
        then on it has its ``slot`` at the listener for good)."""
        try:
            peer = await handshake(conn, self.identity, name=self.name, games=self.games, game=self.game)
            sit = await first_message(conn, "sit", peer.name)
            if self.free <= 0:
                await conn.send(Bye("the table is full").to_wire())
                raise ProtocolError(peer.name, "table full")
            if any(s.peer.keys.ed25519 == peer.keys.ed25519 for s in self.sitters.values()):
                await conn.send(Bye("already seated with this identity").to_wire())
                raise ProtocolError(peer.name, "already seated")
            if self.reserved is not None:
                if peer.keys not in self.reserved[1:]:
                    await conn.send(Bye("this table is a rematch for the players of the last game only").to_wire())
                    raise ProtocolError(peer.name, "not a player of the last game")
                seat = self.reserved.index(peer.keys)
            else:
                seat = min(set(range(1, self.players)) - set(self.sitters))
            self.sitters[seat] = _Sitter(peer, sit["host"], sit["port"], sit["commit"])
            if slot is not None:
                slot.admit()
            await conn.send(
                {"type": "lobby", "op": "seated", "seat": seat, "table": self.table, **self.terms().to_wire()}
            )
            await self._roster()
            self._notify()
            # At a rematch a seat that agreed may still leave (and so decline): keep listening
            # until the table starts (this task is then cancelled; receiving is cancel-safe).
            while not self.sitters[seat].ready or self.reserved is not None:
                message = lobby_message(await conn.receive(), "ready", peer.name)
                self.sitters[seat].ready = bool(message["ready"])
                await self._roster()
                self._notify()
        except (ProtocolError, ConnectionClosed, FrameError):
            # The joiner is gone or misbehaved (a frame that is not valid, or its connection
            # cut in the middle of one): free its seat (a ready seat is kept: the table
            # starts and the mesh handles it) and close the connection. At a rematch, it
            # left: the room closes (host_lobby), the rematch may go on without it (rematch.py).
            for seat, sitter in list(self.sitters.items()):
                if sitter.peer.conn is conn and self.reserved is not None:
                    # Only its own connection can say a seat left: nobody speaks for another.
                    if seat not in self.left:
                        self.left.append(seat)
                    self.declined = self.declined or f"{sitter.peer.name} declined the rematch"
                    self._notify()
                elif sitter.peer.conn is conn and not sitter.ready:
                    del self.sitters[seat]
                    await self._roster()
                    self._notify()
            await conn.aclose()

    async def remove(self, seat: int) -> str:
        """Send the joiner in ``seat`` away before the table starts (one who sat down and never
        says ready holds the table up); returns its name. Its seat is free again."""
        sitter = self.sitters.pop(seat, None)
        if sitter is None:
            raise LobbyError(f"nobody sits in seat {seat}")
        try:
            await sitter.peer.conn.send(Bye("the host removed you from the table").to_wire())
        except ConnectionClosed:
            pass
        await sitter.peer.conn.aclose()
        await self._roster()
        self._notify()
        return sitter.peer.name

    def header(self) -> TableHeader:
        address, port = self.advertise or (self.interface, self.port)
        if address == ANY_ADDRESS and self.sitters:
            # Listening everywhere: our address is the one the joiners reached us at.
            address = self._reached_at() or address
        seats = [Seat(self.name, self.identity.public, address, port)]
        for seat in range(1, self.players):
            sitter = self.sitters[seat]
            seats.append(Seat(sitter.peer.name, sitter.peer.keys, self._seat_host(sitter), sitter.port))
        return TableHeader(
            self.table,
            self.game,
            self.rules_version,
            dict(self.options),
            tuple(seats),
            PROTOCOL_VERSION,
            self.timeouts,
            self.spectator_chat,
        )

    def advert(self) -> TableAdvert:
        address, port = self.advertise or (self.interface, self.port)
        return TableAdvert(
            self.table.hex()[:12],
            self.table_name or self.name,
            self.game,
            self.players,
            self.free,
            PROTOCOL_VERSION,
            self.identity.fingerprint,
            address,
            port,
        )


async def host_lobby(lobby: HostedLobby, *, announce: bool = True, task_status=trio.TASK_STATUS_IGNORED) -> LobbyResult:
    """Listen, advertise, seat joiners until every seat is taken and ready, then send the
    header. ``task_status.started`` reports the bound port."""
    try:
        listeners = await trio.open_tcp_listeners(lobby.port, host=lobby.interface)
    except OSError as exc:
        hint = (
            " (another program, or another p2pcards, uses that port: choose another --port, or leave it out)"
            if lobby.port
            else ""
        )
        raise LobbyError(
            f"cannot open the table on {lobby.interface}:{lobby.port}: {exc.strerror or exc}{hint}"
        ) from None
    lobby.port = listeners[0].socket.getsockname()[1]
    lobby.listeners = listeners
    task_status.started(lobby.port)

    async def accept(nursery: trio.Nursery) -> None:
        await serve_listener(listeners[0], lambda stream, slot: lobby._seat(Connection(stream), slot), nursery)

    async def host_agrees(agreement: trio.Event) -> None:
        await agreement.wait()
        await lobby._roster()
        lobby._notify()

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(accept, nursery)
            if lobby.agreement is not None:
                nursery.start_soon(host_agrees, lobby.agreement)
            if announce:
                ad_cm = advertise(lobby.advert(), lobby.interface)
                ad = await ad_cm.__aenter__()
            try:
                while not (lobby.free == 0 and all(lobby.readiness())) and lobby.declined is None:
                    await lobby._changed.wait()
                    lobby._changed = trio.Event()
                    if announce:
                        await ad.update(lobby.advert())
            finally:
                if announce:
                    with trio.CancelScope(shield=True):
                        await ad_cm.__aexit__(None, None, None)
            nursery.cancel_scope.cancel()
    except BaseException:
        # The host leaves a rematch before it starts: it declines, and the others are told.
        if lobby.reserved is not None:
            await _close_rematch(lobby, f"{lobby.name} (the host) declined the rematch")
        raise
    if lobby.declined is not None:
        reason = lobby.declined
        if lobby.left and lobby.on_leave is not None:
            reason = lobby.on_leave(sorted(lobby.left))
        await _close_rematch(lobby, reason)
        if lobby.left:
            raise RematchLeft(reason, tuple(sorted(lobby.left)))
        raise LobbyError(reason)
    header = lobby.header()
    commits = [words_commitment(lobby.nonce)] + [lobby.sitters[s].commit for s in range(1, lobby.players)]
    # Every seat's hello, as it signed it (ours made now): the proof of each seat's keys, which
    # every joiner checks against the header (check_seat_keys).
    hellos = [make_hello(lobby.identity, name=lobby.name, games=lobby.games).to_wire()] + [
        lobby.sitters[s].peer.theirs.to_wire() for s in range(1, lobby.players)
    ]
    start = {"type": "lobby", "op": "start", "header": header.to_wire(), "commits": commits, "hellos": hellos}
    links = {}
    for seat, sitter in lobby.sitters.items():
        try:
            await sitter.peer.conn.send(start)
        except ConnectionClosed:
            # It said ready and left: its seat is in the header; the game names it if it does
            # not come back.
            await sitter.peer.conn.aclose()
            continue
        links[seat] = sitter.peer.conn
    words = await _host_reveals(lobby, header, commits, links)
    return LobbyResult(header, 0, links, listeners[0], words)


async def _close_rematch(lobby: HostedLobby, reason: str) -> None:
    """Tell every seated joiner that the rematch will not be played (``bye`` naming who
    declined), close their connections and the listener; at most a second or so."""
    with trio.CancelScope(shield=True), trio.move_on_after(2):
        for sitter in list(lobby.sitters.values()):
            try:
                await sitter.peer.conn.send(Bye(reason[:1000]).to_wire())
            except ConnectionClosed:
                pass
            await sitter.peer.conn.aclose()
        for listener in lobby.listeners:
            await listener.aclose()


async def _host_reveals(
    lobby: HostedLobby, header: TableHeader, commits: list[bytes], links: dict[int, Connection]
) -> TableWords:
    """The host's half of the table words: every joiner's nonce (at most
    :data:`REVEAL_SECONDS`), then every nonce to every joiner, ours last revealed. A joiner
    whose connection fails here is dropped from ``links`` (it dials us again)."""
    nonces: list[bytes | None] = [lobby.nonce] + [None] * (lobby.players - 1)
    broken: list[int] = []

    async def receive(seat: int, conn: Connection) -> None:
        try:
            reveal = lobby_message(await conn.receive(), "reveal", header.seats[seat].name)
        except ProtocolError:
            return  # not its nonce: it has no words, and the game judges the rest
        except (ConnectionClosed, FrameError):
            broken.append(seat)
            return
        nonces[seat] = reveal["nonce"]

    with trio.move_on_after(REVEAL_SECONDS):
        async with trio.open_nursery() as nursery:
            for seat, conn in links.items():
                nursery.start_soon(receive, seat, conn)
    reveal = {"type": "lobby", "op": "nonces", "nonces": nonces}
    for seat, conn in list(links.items()):
        if seat not in broken:
            try:
                await conn.send(reveal)
                continue
            except ConnectionClosed:
                pass
        await conn.aclose()
        del links[seat]
    return open_table_words(header.to_wire(), commits, nonces)


# ----------------------------------------------------------------------------------------------
# A joiner's side.


async def join_lobby(
    identity: Identity,
    host: str,
    port: int,
    *,
    name: str,
    games: Mapping[str, str],
    listen_host: str,
    on_change: Callable[[Roster], None] | None = None,
    ready: bool | trio.Event = True,
    on_seated: Callable[[int, TableTerms], None] | None = None,
    listen_port: int = 0,
    advertise: tuple[str, int] | None = None,
    rematch_of: TableHeader | None = None,
    seat_options: Mapping[str, Any] | None = None,
) -> LobbyResult:
    """Join the table at ``host:port``; returns once the table starts. ``on_seated`` gets our
    seat and the table's terms (game, options, timeouts) as soon as the host gives them, before
    we say ready; a header at the start that changes them is refused. We listen for the other
    seats at ``listen_host:listen_port`` (0: any free port) and tell them to dial ``advertise``
    instead when it is given (a port forward, a relay). ``rematch_of``: the header of the game
    this table is a rematch of; the new table must keep its game, options, timeouts and seats
    (the same keys in the same order) under a new table id (:func:`rematch_problem`; its
    game's options that name a seat, ``seat_options``, follow their player). Leaving
    before the start (cancelled) says ``bye`` to the host."""
    try:
        listeners = await trio.open_tcp_listeners(listen_port, host=listen_host)
    except OSError as exc:
        hint = " (another program uses that port: choose another --port, or leave it out)" if listen_port else ""
        raise LobbyError(f"cannot listen on {listen_host}:{listen_port}: {exc.strerror or exc}{hint}") from None
    my_port = listeners[0].socket.getsockname()[1]
    try:
        conn = await connect(host, port)
    except ConnectionClosed as exc:
        for listener in listeners:
            await listener.aclose()
        raise LobbyError(
            f"{exc} (check the address the host's screen shows, that its table is still "
            f"open, and that no firewall on the host blocks the port: docs/troubleshooting.md)"
        ) from None
    # Listening on every interface: tell the others the address that reached the host.
    advertised = conn.local_address() if listen_host == ANY_ADDRESS else listen_host
    if advertise is not None:
        advertised, my_port = advertise
    nonce = new_words_nonce()
    early: _EarlyMesh | None = None
    failure: Exception | None = None
    try:
        peer = await handshake(conn, identity, name=name, games=games)
        await conn.send(
            {"type": "lobby", "op": "sit", "host": advertised, "port": my_port, "commit": words_commitment(nonce)}
        )
        seated = lobby_message(await conn.receive(), "seated", peer.name)
        seat = seated["seat"]
        terms = TableTerms.from_seated(seated, peer.name)
        if rematch_of is not None:
            changed = _rematch_terms_problem(rematch_of, identity, seat, terms, seat_options or {})
            if changed is not None:
                raise ProtocolError(peer.name, changed)
        if on_seated:
            on_seated(seat, terms)
        early = _EarlyMesh(identity, name, games, seated["table"], seat, listeners[0])
        async with trio.open_nursery() as nursery:
            nursery.start_soon(early.accept, nursery)
            try:  # caught here: trio would wrap it in an ExceptionGroup
                start = await _wait_for_start(conn, peer.name, ready, on_change, early, nursery)
            except (ProtocolError, ConnectionClosed, FrameError) as exc:
                failure = exc
            nursery.cancel_scope.cancel()
        if failure is not None:
            raise failure
    except (ProtocolError, ConnectionClosed, FrameError) as exc:
        await conn.aclose()
        if early is not None:
            await early.close()
        for listener in listeners:
            await listener.aclose()
        if rematch_of is not None and early is not None:  # seated at the rematch: it is off
            reason = exc.reason if isinstance(exc, ProtocolError) else f"{peer.name} (the host) left"
            raise LobbyError(reason) from None
        raise LobbyError(f"could not join {host}:{port}: {exc}") from None
    except BaseException:
        # Leaving before the start (the player quit, or cancelled): say so, so that the host
        # frees our seat (or, at a rematch, tells the others we declined) at once.
        with trio.CancelScope(shield=True), trio.move_on_after(1):
            try:
                await conn.send(Bye("left the table before it started").to_wire())
            except ConnectionClosed:
                pass
            await conn.aclose()
            if early is not None:
                await early.close()
            for listener in listeners:
                await listener.aclose()
        raise
    problem = None
    try:
        header = TableHeader.from_wire(start["header"])
    except (KeyError, TypeError, ValueError) as exc:
        problem = f"{peer.name} sent a malformed table header ({exc})"
    else:
        problem = seat_keys_problem(header, seat, identity.public, peer, start["hellos"])
        if problem is None and len(start["commits"]) != header.players:
            problem = f"{peer.name} sent {len(start['commits'])} words commitments for {header.players} seats"
        if problem is None:
            problem = terms.mismatch(header)
        if problem is None and rematch_of is not None:
            problem = rematch_problem(rematch_of, header, seat_options)
        if problem is None:
            problem = early.keys_problem(header)
    if problem is not None:
        await conn.aclose()
        await early.close()
        for listener in listeners:
            await listener.aclose()
        raise LobbyError(problem)
    links = {0: conn, **await early.confirmed(header)}
    words = await _joiner_reveal(conn, peer.name, header, seat, start["commits"], nonce)
    return LobbyResult(header, seat, links, listeners[0], words)


def _differs(shown: PublicIdentity, signed: PublicIdentity) -> str:
    """Which key of ``shown`` is not ``signed``'s, for people."""
    return "signing key" if shown.ed25519 != signed.ed25519 else "encryption key"


def seat_keys_problem(
    header: TableHeader, seat: int, ours: PublicIdentity, host: Handshaken, hellos: list[Any]
) -> str | None:
    """What is wrong with the keys a joiner in ``seat`` (our keys ``ours``) is given in the
    header from ``host``, for people (``None``: nothing). Each seat's whole public identity
    (both keys) is compared: ours with our own, the host's with the ones it showed us, every
    other seat's with the ``hello`` it signed, relayed by the host in ``start`` (``hellos``, one
    per seat). Only the host can be at fault for each of these: a seat's hello is signed by its
    signing key, so the host cannot make one up, and a header that differs from it is the
    host's doing (a seat that showed another key to us than to the host is found by
    :meth:`_EarlyMesh.keys_problem`)."""
    by = f"the table header from {host.name} (the host)"
    if not 0 < seat < header.players or header.seats[seat].keys.ed25519 != ours.ed25519:
        return f"{by} does not seat us where the host said"
    if header.seats[seat].keys != ours:
        return (
            f"{by} gives our seat an encryption key that is not ours "
            "(everything sealed to us would open for another key)"
        )
    if header.seats[0].keys != host.keys:
        return f"{by} gives the host another {_differs(header.seats[0].keys, host.keys)} than the one it showed us"
    if len(hellos) != header.players:
        return f"{host.name} (the host) sent {len(hellos)} hellos for {header.players} seats"
    for other in range(1, header.players):
        if other == seat:
            continue
        try:
            signed = Hello.from_wire(hellos[other], host.name).keys
        except ProtocolError:
            return f"{by} proves seat {other}'s keys with a hello that is not valid"
        if header.seats[other].keys != signed:
            shown = header.seats[other].keys
            return f"{by} gives seat {other} another {_differs(shown, signed)} than the one that seat signed"
    return None


def rematch_options(options: Mapping[str, Any], seat_options: Mapping[str, Any], kept: Sequence[int]) -> dict[str, Any]:
    """The last game's ``options`` for its rematch by the last game's seats ``kept`` (in their
    order): each option of ``seat_options`` (name: default) that names a seat names the same
    player's seat at the rematch, or takes its default if that player is not in it (Cal's BS:
    a volunteer to deal first who left: by lot); every other option is kept as it was."""
    out = dict(options)
    for name, default in seat_options.items():
        value = out.get(name)
        if type(value) is int and value >= 0:
            out[name] = kept.index(value) if value in kept else default
    return out


def rematch_problem(
    previous: TableHeader, header: TableHeader, seat_options: Mapping[str, Any] | None = None
) -> str | None:
    """What a rematch's header changes that it must keep from the last game's, for people
    (``None``: a true rematch): the game, rules, options and timeouts, and the players: those of
    the last game (every key, both, as it was), the host first, in their order, at least two of
    them (fewer than the last game's when some left the rematch's room); the table id must be
    new (a new deck, new seeds). An option of ``seat_options`` (name: default, the game's
    options that name a seat) names the same player's new seat, or is its default if that
    player left (:func:`rematch_options`)."""
    if header.table == previous.table:
        return "the rematch's header reuses the last game's table id"
    before = [s.keys.ed25519 for s in previous.seats]
    now = [s.keys.ed25519 for s in header.seats]
    if not (2 <= len(now) <= len(before) and now[0] == before[0] and _in_order(now, before)):
        return "the rematch's header does not seat the players of the last game in their order"
    then = {s.keys.ed25519: s.keys for s in previous.seats}
    for kept in header.seats:
        if kept.keys != then[kept.keys.ed25519]:
            name = printable(kept.name)
            return f"the rematch's header gives {name} another encryption key than the last game's header"
    kept_seats = [before.index(key) for key in now]
    if (header.game, header.rules_version, dict(header.options), header.timeouts) != (
        previous.game,
        previous.rules_version,
        rematch_options(previous.options, seat_options or {}, kept_seats),
        previous.timeouts,
    ):
        return "the rematch's header changes the game, its options or its timeouts"
    return None


def _in_order(keys: list[bytes], among: list[bytes]) -> bool:
    """``keys`` are some of ``among``, each once, in ``among``'s order."""
    rest = iter(among)
    return len(set(keys)) == len(keys) and all(key in rest for key in keys)


def _rematch_terms_problem(
    previous: TableHeader, identity: Identity, seat: int, terms: TableTerms, seat_options: Mapping[str, Any]
) -> str | None:
    """What the host's ``seated`` changes of the last game, at a rematch: our seat (ours, or a
    lower one once seats before ours left), or the terms (an option that names a seat may
    name another once seats left: the header at ``start`` shows who is in, and is checked)."""
    keys = [s.keys for s in previous.seats]
    old = keys.index(identity.public) if identity.public in keys else -1
    if not 0 < seat <= old:
        return "offers a rematch in another seat than ours"
    offered = {k: v for k, v in terms.options.items() if k not in seat_options}
    kept = {k: v for k, v in previous.options.items() if k not in seat_options}
    if set(terms.options) != set(previous.options) or (
        terms.game,
        terms.rules_version,
        offered,
        terms.timeouts,
    ) != (
        previous.game,
        previous.rules_version,
        kept,
        previous.timeouts,
    ):
        return "offers a rematch of another game, other options or other timeouts"
    return None


async def _joiner_reveal(
    conn: Connection, host_name: str, header: TableHeader, seat: int, commits: list[bytes], nonce: bytes
) -> TableWords:
    """A joiner's half of the table words: every commitment is fixed (the header's ``start``),
    so reveal our nonce, and open everyone's from the host's ``nonces`` (at most twice
    :data:`REVEAL_SECONDS`). The connection stays for the game whatever happens here."""
    if commits[seat] != words_commitment(nonce):
        return TableWords(problem=f"the host ({host_name}) changed our words commitment", seat=0)
    nonces = None
    try:
        await conn.send({"type": "lobby", "op": "reveal", "nonce": nonce})
        with trio.move_on_after(2 * REVEAL_SECONDS):
            nonces = lobby_message(await conn.receive(), "nonces", host_name)["nonces"]
    except ConnectionClosed:
        return TableWords(
            problem=f"the host ({host_name}) closed the connection instead of revealing the words nonces", seat=0
        )
    except (ProtocolError, FrameError):
        return TableWords(problem=f"the host ({host_name}) sent something else than the words nonces", seat=0)
    if nonces is None:
        return TableWords(
            problem=f"the host ({host_name}) did not reveal the words nonces within {2 * REVEAL_SECONDS:g} s", seat=0
        )
    if len(nonces) != header.players:
        return TableWords(
            problem=f"the host ({host_name}) sent {len(nonces)} words nonces for {header.players} seats", seat=0
        )
    nonces = list(nonces)
    nonces[seat] = nonce  # ours as we chose it, whatever the host sent back
    words = open_table_words(header.to_wire(), commits, nonces)
    if words.seat not in (None, 0):
        # Another joiner's nonce and commitment both came through the host: either may be wrong.
        return TableWords(
            problem=f"{words.problem}, as the host relayed it (that seat, or the host, cheated)", seat=words.seat
        )
    return words


async def _wait_for_start(
    conn: Connection,
    host_name: str,
    ready: bool | trio.Event,
    on_change: Callable[[Roster], None] | None,
    early: _EarlyMesh,
    nursery: trio.Nursery,
) -> dict[str, Any]:
    """Say we are ready (``ready`` True, or an Event the player sets), once connected to the
    seated joiners below us (at most :data:`MESH_BEFORE_READY` seconds after we sat down), and
    follow the roster until the host sends ``start``, which is returned."""
    said_ready = False
    deadline = trio.current_time() + MESH_BEFORE_READY
    while True:
        player_ready = ready is True or (isinstance(ready, trio.Event) and ready.is_set())
        mesh_ready = early.complete() or trio.current_time() >= deadline
        if not said_ready and player_ready and mesh_ready:
            await conn.send({"type": "lobby", "op": "ready", "ready": True})
            said_ready = True
        if said_ready:
            raw = await conn.receive()
        else:
            raw = None
            # Look again soon while only the connections are missing, now and then while the
            # player has not said ready.
            with trio.move_on_after(0.01 if player_ready else 0.2):
                raw = await conn.receive()
            if raw is None:
                continue
        if isinstance(raw, dict) and raw.get("type") == "bye":  # sent away, or the table closed
            reason = raw.get("reason")
            if not isinstance(reason, str):
                reason = "no reason given"
            raise ProtocolError(host_name, reason[:300])
        if isinstance(raw, dict) and raw.get("op") == "roster":
            roster = lobby_message(raw, "roster", host_name)
            if on_change:
                bots = {
                    b["seat"]: HostBot(b["by"], b["bot"])
                    for b in roster["bots"]
                    if b["seat"] < roster["seats"] and b["by"] < roster["seats"]
                }
                on_change(Roster(roster["names"], roster["ready"], bots))
            early.update(roster["mesh"], nursery)
            continue
        return lobby_message(raw, "start", host_name)


class _EarlyMesh:
    """A joiner's connections to the other joiners, made while the table waits in the lobby: it
    dials the seated joiners below it and accepts those above it, each checked against the key
    the host's latest roster gives for that seat. The game starts with them (:meth:`confirmed`)."""

    def __init__(self, identity: Identity, name: str, games: Mapping[str, str], table: bytes, seat: int, listener: Any):
        self.identity, self.name, self.games = identity, name, games
        self.table, self.seat, self.listener = table, seat, listener
        self.keys: dict[int, bytes] | None = None  # seated joiner -> its key, from the latest roster
        # seated joiner -> the keys it showed us (its hello: both keys) and the connection
        self.links: dict[int, tuple[PublicIdentity, Connection]] = {}
        self._dialling: set[int] = set()
        self._changed = trio.Event()

    def update(self, mesh: list[dict[str, Any]], nursery: trio.Nursery) -> None:
        self.keys = {item["seat"]: item["ed25519"] for item in mesh}
        self._changed.set()
        self._changed = trio.Event()
        for item in mesh:
            seat = item["seat"]
            if seat < self.seat and seat not in self._dialling and not self._linked(seat, item["ed25519"]):
                self._dialling.add(seat)
                nursery.start_soon(self._dial, item)

    def _linked(self, seat: int, key: bytes) -> bool:
        return seat in self.links and self.links[seat][0].ed25519 == key

    def complete(self) -> bool:
        """Connected to every seated joiner below us (as the latest roster has them)."""
        return self.keys is not None and all(
            self._linked(seat, key) for seat, key in self.keys.items() if seat < self.seat
        )

    async def _dial(self, item: dict[str, Any]) -> None:
        try:
            conn, keys = await _dial_mesh(
                self.identity,
                name=self.name,
                games=self.games,
                game=None,
                host=item["host"],
                port=item["port"],
                key=item["ed25519"],
                table=self.table,
                me=self.seat,
                who=f"seat {item['seat']}",
            )
            await self._keep(item["seat"], keys, conn)
        except (ConnectionClosed, ProtocolError, FrameError, LobbyError):
            pass  # the game's own mesh dials it after the start
        finally:
            self._dialling.discard(item["seat"])

    async def accept(self, nursery: trio.Nursery) -> None:
        await serve_listener(self.listener, lambda stream, slot: self._accept_one(Connection(stream), slot), nursery)

    async def _accept_one(self, conn: Connection, slot: Slot) -> None:
        kept = False
        try:
            peer, hello = await _mesh_greeting(conn, self.identity, name=self.name, games=self.games, game=None)
            seat = hello["seat"]
            # It may have the roster that seats it before we do.
            with trio.move_on_after(HANDSHAKE_SECONDS):
                while (self.keys or {}).get(seat) != peer.keys.ed25519:
                    await self._changed.wait()
            if hello["table"] == self.table and seat > self.seat and (self.keys or {}).get(seat) == peer.keys.ed25519:
                slot.admit()
                await self._keep(seat, peer.keys, conn)
                kept = True
        except (ConnectionClosed, ProtocolError, FrameError):
            pass
        finally:
            if not kept:
                await conn.aclose()

    async def _keep(self, seat: int, keys: PublicIdentity, conn: Connection) -> None:
        old = self.links.get(seat)
        self.links[seat] = (keys, conn)
        if old is not None:
            await old[1].aclose()

    def keys_problem(self, header: TableHeader) -> str | None:
        """A seat that showed us other keys than the ones in the header, under the same signing
        key, for people (``None``: none did). Called once the header's keys are found to be the
        ones each seat signed for the host (:func:`seat_keys_problem`): that seat then signed
        two encryption keys, one for the host and one for us, and it alone can have."""
        for seat, (keys, _) in sorted(self.links.items()):
            shown = header.seats[seat].keys if 0 < seat < header.players else None
            if shown is not None and shown.ed25519 == keys.ed25519 and shown != keys:
                return (
                    f"seat {seat} ({header.seats[seat].name}) showed us another encryption key than "
                    "the one it signed for the host: it signed two"
                )
        return None

    async def confirmed(self, header: TableHeader) -> dict[int, Connection]:
        """The connections the header confirms (that seat, under the keys it showed us: both);
        the others are closed."""
        kept = {}
        for seat, (keys, conn) in self.links.items():
            if 0 < seat < header.players and header.seats[seat].keys == keys:
                kept[seat] = conn
            else:
                await conn.aclose()
        return kept

    async def close(self) -> None:
        for _, conn in self.links.values():
            await conn.aclose()


# ----------------------------------------------------------------------------------------------
# The mesh: every pair of seats connected once.


async def _dial_mesh(
    identity: Identity,
    *,
    name: str,
    games: Mapping[str, str],
    game: str | None,
    host: str,
    port: int,
    key: bytes | PublicIdentity,
    table: bytes,
    me: int,
    who: str,
) -> tuple[Connection, PublicIdentity]:
    """Connect to a seat's listener, check that it holds ``key`` (a signing key, as a roster
    gives it, or both keys, as a header does) and introduce ourselves as seat ``me`` of
    ``table``; returns the connection and the keys it showed. :class:`LobbyError` if other keys
    answer there."""
    conn = await connect(host, port)
    try:
        peer = await handshake(conn, identity, name=name, games=games, game=game)
        if (peer.keys.ed25519 if isinstance(key, bytes) else peer.keys) != key:
            raise LobbyError(f"{host}:{port} is not {who} of this table")
        await conn.send({"type": "lobby", "op": "mesh", "table": table, "seat": me})
    except BaseException:
        await conn.aclose()
        raise
    return conn, peer.keys


async def _mesh_greeting(
    conn: Connection,
    identity: Identity,
    *,
    name: str,
    games: Mapping[str, str],
    game: str | None,
    watch: bool = False,
) -> tuple[Handshaken, dict[str, Any]]:
    """The handshake and the ``mesh`` message of a seat that dialled our listener (or, with
    ``watch``, a spectator's ``watch``)."""
    peer = await handshake(conn, identity, name=name, games=games, game=game)
    return peer, await first_message(conn, "mesh", peer.name, also="watch" if watch else None)


@dataclass
class Spectator:
    """A connection to our listener from someone who watches the table (``watch``)."""

    conn: Connection
    name: str
    keys: PublicIdentity


async def accept_seat_or_spectator(
    stream: trio.abc.Stream,
    identity: Identity,
    header: TableHeader,
    me: int,
    *,
    games: Mapping[str, str],
    slot: Slot | None = None,
) -> tuple[int, Connection] | Spectator:
    """:func:`accept_mesh`, or a :class:`Spectator` that sent ``watch`` (admitted to its slot
    at once: the seat limits its spectators itself, spectators.MAX_SPECTATORS)."""
    conn = Connection(stream)
    peer, hello = await _mesh_greeting(
        conn, identity, name=header.seats[me].name, games=games, game=header.game, watch=True
    )
    if hello["op"] == "watch":
        if slot is not None:
            slot.admit()
        return Spectator(conn, peer.name or conn.remote, peer.keys)
    return _seat_of(peer, hello, header, me, slot), conn


async def dial_seat(
    identity: Identity, header: TableHeader, me: int, seat: int, *, games: Mapping[str, str], attempts: int = 20
) -> Connection:
    """Connect to another seat's listener and introduce ourselves as seat ``me``."""
    target = header.seats[seat]
    last: Exception | None = None
    for attempt in range(attempts):
        try:
            conn, _ = await _dial_mesh(
                identity,
                name=header.seats[me].name,
                games=games,
                game=header.game,
                host=target.host,
                port=target.port,
                key=target.keys,
                table=header.table,
                me=me,
                who=target.name,
            )
            return conn
        except (ConnectionClosed, ProtocolError) as exc:
            last = exc
            await trio.sleep(min(0.05 * 2**attempt, 1.0))
    raise LobbyError(f"cannot reach {target.name} at {target.host}:{target.port}: {last}")


async def accept_mesh(
    stream: trio.abc.Stream,
    identity: Identity,
    header: TableHeader,
    me: int,
    *,
    games: Mapping[str, str],
    slot: Slot | None = None,
) -> tuple[int, Connection]:
    """Handshake a connection to our listener from another seat of this table (admitted to its
    ``slot`` once its key is that seat's)."""
    conn = Connection(stream)
    peer, hello = await _mesh_greeting(conn, identity, name=header.seats[me].name, games=games, game=header.game)
    return _seat_of(peer, hello, header, me, slot), conn


def _seat_of(peer: Handshaken, hello: dict[str, Any], header: TableHeader, me: int, slot: Slot | None) -> int:
    """The seat a ``mesh`` message of a connection to our listener is from, once checked."""
    seat: int = hello["seat"]
    if hello["table"] != header.table or not 0 <= seat < header.players or seat == me:
        raise ProtocolError(peer.name, "not a seat of this table")
    if header.seats[seat].keys != peer.keys:  # both keys: the header's are the ones we seal to
        raise ProtocolError(peer.name, f"its keys are not seat {seat}'s")
    if slot is not None:
        slot.admit()
    return seat

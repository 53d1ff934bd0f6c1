"""The spectator's table: a :class:`~p2pcards.session.TableSession` without a seat, fed the
public log entries as they come (p2pcards/net/watch.py), so that the console shows a watched
table as a player sees it, without a hand.

Every seat's moves are the ``action`` entries it signed, taken in turn order as a seat takes
them (an ``absent`` statement of every other seat passes for a follower that is gone, as at
the seats: p2pcards/table/absence.py; a free-order round is ordered by the responses' signed
head echoes). The deck is :class:`SpectatorDeck`: the public numbering of handles, and the
faces of the cards turned up for everyone, read from the signed ``open`` messages through
:class:`~p2pcards.deck.public.PublicCards` (no seed: nothing else can be decoded). A card
dealt or passed to a seat stays a handle without a face. Only at the end, once the
seat has sent the rest of the log and the transcript is written and verified, does the audit
give every face (the seeds revealed at the end show them to anyone anyway).

The spectator's view checks nothing the seats did not: a wrong entry stops only its own view
(the transcript it writes at the end is verified like any seat's).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import trio

from ..cards import Card
from ..deck.public import NotOpened
from ..game import Action, Game, Round
from ..session import SeatPresence, TableEvent, TableSession
from ..table import rounds
from ..table.absence import Absences
from ..table.header import TableHeader
from ..table.protocol import LEFT_TO_BOT, MAX_CHAT, left_to_bot_words
from ..table.rounds import order_by_echoes
from ..text import printable
from ..verify import Report, verify_file
from ..verify.passes import public_game_id, public_passes, shuffling
from ..verify.replay import public_message
from ..verify.seedless import PublicHandles, _NeedsFaces
from ..wire.messages import Entry
from ..wire.sealed import recipients
from .threads import off_the_loop

__all__ = ["SpectatorDeck", "SpectatorFeed", "spectator_session"]

T = TypeVar("T")


class SpectatorFeed:
    """The public entries received so far, in each seat's order; :meth:`wait_for` waits until
    something new makes a question answerable. :meth:`close` says no more will come."""

    def __init__(self, header: TableHeader):
        self.header = header
        self.by_seat: list[dict[int, Entry]] = [{} for _ in range(header.players)]
        self.absences = Absences(header.players)
        self._changed = trio.Event()
        self.closed = False
        #: Why the watch ended before the game did (the seat went away), if it did.
        self.problem: str | None = None
        #: The transcript written at the end (the seat sent the whole log), if it was.
        self.transcript: Path | None = None
        #: Called with each public entry as it comes (chat, goodbyes: the session shows them).
        self.on_entry: Callable[[Entry], None] | None = None

    def add(self, entry: Entry) -> None:
        """A checked entry the seat sent (a private one, after the game, is not used here)."""
        if recipients(entry.body) or entry.seq in self.by_seat[entry.sender]:
            return
        self.by_seat[entry.sender][entry.seq] = entry
        if entry.kind == "absent":
            self.absences.add(entry)
        if self.on_entry is not None:
            self.on_entry(entry)
        self._wake()

    def close(self, problem: str | None = None, transcript: Path | None = None) -> None:
        self.closed, self.problem, self.transcript = True, problem, transcript
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def wait_for(self, answer: Callable[[], T | None], what: str) -> T:
        """``answer()`` once it is not ``None``, re-asked after each new entry; raises
        :class:`WatchEnded` if the feed closes first."""
        while True:
            got = answer()
            if got is not None:
                return got
            if self.closed:
                raise WatchEnded(self.problem or f"the watch ended while the table waited for {what}")
            await self._changed.wait()

    # -- a log, as far as verify's public helpers read one -------------------------------------

    def entries(self, seat: int, start: int = 0) -> list[Entry]:
        return [e for seq, e in sorted(self.by_seat[seat].items()) if seq >= start]

    def canonical(self) -> list[Entry]:
        return [e for seat in range(self.header.players) for e in self.entries(seat)]

    closed_entries = canonical

    def public_deck(self, kind: str, op: int | None = None, seat: int | None = None) -> list[Entry]:
        """The public deck entries of message type ``kind`` (for operation ``op``, by ``seat``)."""
        out = []
        for entry in self.canonical():
            if entry.kind != "deck" or not public_message(entry, kind):
                continue
            if (op is None or entry.body["msg"].get("op") == op) and (seat is None or entry.sender == seat):
                out.append(entry)
        return out


class WatchEnded(Exception):
    """The watch ended (the seat went away) before the table got that far."""


class _LogView:
    """The feed as verify's public helpers read a log (``closed``, ``canonical``, ``entries``)."""

    def __init__(self, feed: SpectatorFeed):
        self.feed = feed
        self.roster = tuple(seat.keys for seat in feed.header.seats)  # as a log's roster

    def canonical(self) -> list[Entry]:
        return self.feed.canonical()

    closed = canonical

    def entries(self, seat: int, start: int = 0) -> list[Entry]:
        return self.feed.entries(seat, start)


class _Frozen:
    """The feed's entries as they are now, read like a log (for a thread)."""

    def __init__(self, feed: SpectatorFeed):
        self._by_seat = [feed.entries(seat) for seat in range(feed.header.players)]
        self.roster = tuple(seat.keys for seat in feed.header.seats)

    def canonical(self) -> list[Entry]:
        return [e for entries in self._by_seat for e in entries]

    closed = canonical

    def entries(self, seat: int, start: int = 0) -> list[Entry]:
        return [e for e in self._by_seat[seat] if e.seq >= start]


class SpectatorDeck:
    """The engine's deck for a spectator (an ``AsyncDeck``): each step waits until the public
    entries that carry it out are in, then numbers handles as the seats do and decodes what
    was opened to everyone."""

    def __init__(self, feed: SpectatorFeed, game: Game, on_done: Callable[[], Any] | None = None):
        self.feed, self.game, self.header = feed, game, feed.header
        self.n = len(game.deck(self.header.options, self.header.players))
        self.log = _LogView(feed)
        self.handles = PublicHandles(self.n, None, self.log, None)
        self.shown: dict[int, Card] = {}  # every face turned up for everyone so far
        self.report: Report | None = None
        self._checked: set[bytes] = set()  # the passes and re-handlings found holding so far

    @property
    def op(self) -> int:
        return self.handles.steps

    async def _game_id(self) -> bytes:
        def ready() -> bytes | None:
            return public_game_id(self.log, self.header, self.game)

        game_id = await self.feed.wait_for(ready, "every seat's deck commitment")
        self.handles.game_id = game_id
        return game_id

    async def shuffle(self) -> list[int]:
        await self._game_id()
        op, players = self.op, self.header.players
        # Every seat's shuffle pass and re-lock pass for this operation (of the seats that
        # had not dropped out: protocol/deck.md §4.6).
        dropped = {seat: (at, None) for seat, at in self.handles.dropped.items()}
        passes = 2 * len(shuffling(players, dropped, op))
        await self.feed.wait_for(
            lambda: (
                True
                if len(self.feed.public_deck("shuffle", op)) + len(self.feed.public_deck("relock", op)) >= passes
                else None
            ),
            "the shuffle",
        )
        await self._rebuild_cards()
        return self.handles.shuffle()

    async def _rebuild_cards(self) -> None:
        """The public cards from every pass so far, checked as the seats check them (their
        proofs: in a thread, the screen keeps moving), keeping the re-handled cards already
        known (verify's public passes do not follow those)."""
        old = self.handles.cards
        frozen = _Frozen(self.feed)
        # (each hand's rebuild checks only what is new: the hands before were checked already)
        cards = await off_the_loop(public_passes, frozen, self.header, self.game, self._checked)
        if old is not None:
            for handle, link in old._links.items():
                cards._links[handle] = link
                cards.points.setdefault(handle, old.points[handle])
        self.handles.cards = cards

    async def coin(self, label: str, bound: int) -> int:
        await self._game_id()
        return self.handles.coin(label, bound)

    async def deal(self, to: Mapping[int, int]) -> None:
        self.handles.deal(to)

    async def drop_out(self, seat: int) -> None:
        # Its keys of the stock come with the next rebuild of the public cards; later
        # shuffles go on without it (shuffle above).
        op = self.op
        await self.feed.wait_for(lambda: True if self.feed.public_deck("drop", op, seat) else None, "a drop-out")
        self.handles.drop_out(seat)
        await self._rebuild_cards()

    async def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]:
        # Always to everyone (``owner`` only says who the game believes holds them).
        op = self.op

        def opened() -> dict[int, Card] | None:
            openings = [e.body["msg"] for e in self.feed.public_deck("open", op)]
            cards = self.handles.cards
            if cards is None:
                return None
            try:
                return cards.opened(list(handles), openings)
            except NotOpened:
                return None

        faces = await self.feed.wait_for(opened, "cards to be turned up")
        self.handles.steps += 1
        self.shown.update(faces)
        return faces

    async def transfer(self, handles: Sequence[int], to: int) -> list[int]:
        op = self.op
        await self.feed.wait_for(
            lambda: True if self.feed.public_deck("rehandle", op, to) else None, "cards to change hands"
        )
        return self.handles.transfer(handles, to)

    def check_claim(
        self, index: int, seat: int, handles: Sequence[int], sets: Sequence[Sequence[Card]], proof: Any
    ) -> str | None:
        """Why a seat's hidden claim (a Cal's BS quads lead) is refused, or None: checked over
        the cards' public points as every seat checks it (PublicHandles.check_claim), so the
        screen never shows a claim the seats refused as standing (review32). A claim whose
        cards' points this spectator lacks is left to the transcript's check at the end."""
        try:
            return self.handles.check_claim(index, seat, handles, sets, proof)
        except _NeedsFaces:
            return None

    def known(self, seat: int) -> Mapping[int, Card]:
        return {}

    async def open_all(self) -> dict[int, Card]:
        """Every face, from the transcript the seat's whole log makes once the game is over,
        verified as any seat's (in a thread: the screen keeps moving meanwhile)."""
        await self.feed.wait_for(lambda: True if self.feed.closed else None, "the end of the game")
        transcript = self.feed.transcript
        if transcript is None:
            raise WatchEnded(self.feed.problem or "the seat sent no end of the game")
        faces: dict[int, Card] = {}

        class Keep:
            def step(self, event: Any, state: Any, known: Any) -> None:
                pass

            def opened(self, all_faces: Mapping[int, Card]) -> None:
                faces.update(all_faces)

        self.report = await off_the_loop(lambda: verify_file(transcript, watch=Keep()))
        return faces


class SpectatorSeat:
    """A seat as a spectator follows it: the moves it signed, in turn order."""

    def __init__(self, feed: SpectatorFeed, seat: int, turns: Callable[[], int]):
        self.feed, self.seat, self.turns = feed, seat, turns
        #: The signed entry of the move ``choose`` returned last (``None``: passed for).
        self.last_entry: Entry | None = None

    async def choose(self, session: TableSession, seat: int) -> Action:
        turn = self.turns()
        absent = session.game.absent_action(session.state, seat)
        feed = self.feed

        def decided() -> tuple[Action, Entry | None] | None:
            move = next(
                (
                    e
                    for e in feed.entries(seat)
                    if e.kind == "action" and isinstance(e.body, dict) and e.body.get("turn") == turn
                ),
                None,
            )
            stated = feed.absences.stated(turn, seat)
            if absent is not None and stated:
                # The statements decide (the move may be void); a spectator lacks the sealed
                # entries of the chain: those are no moves.
                counted = feed.absences.counted(turn, seat)
                held = feed.by_seat[seat]
                chain = [held.get(seq) or _NOT_A_MOVE for seq in range(counted)]
                passed = feed.absences.passed(turn, seat, chain)
                if passed is True:
                    return dict(absent), None
                if passed is None:
                    return None
            if move is None:
                return None
            if rounds.parse_commitment(move.body) is not None:  # sealed: opened with the round
                return dict(rounds.SEALED), move
            action = move.body.get("action")
            return (action, move) if isinstance(action, dict) else None

        action, entry = await feed.wait_for(decided, f"{session.names[seat]}'s move")
        self.last_entry = entry
        if entry is None:
            session.publish("notice", f"{session.names[seat]} is gone: the table passed for it", seat=seat)
        return action


class _NotAMove:
    kind = "sealed"
    body: dict[str, Any] = {}


_NOT_A_MOVE: Any = _NotAMove()


def spectator_session(header: TableHeader, game: Game, feed: SpectatorFeed) -> TableSession:
    """The session a spectator's console shows: no seat of its own (``me`` is ``None``)."""
    turns = [0]
    seats = [SpectatorSeat(feed, s, lambda: turns[0]) for s in range(header.players)]
    deck = SpectatorDeck(feed, game)
    names = [s.name for s in header.seats]
    session = TableSession(game, header.options, header.players, deck, seats, me=None, names=names)
    session.turn_limit = header.timeouts.turn if header.timeouts.turn < math.inf else None

    def count(event: TableEvent) -> None:
        if event.kind == "action":
            turns[0] += 1

    session.subscribe(count)

    def round_order(step: Round, responses: dict[int, Action], arrived: list[int]) -> list[tuple[int, Action]]:
        entries = {seat: seats[seat].last_entry for seat in responses}
        return order_by_echoes(step, responses, entries, header.players)

    session.round_order = round_order

    async def open_round(step: Round, responses: dict[int, Action]) -> dict[int, Action]:
        """The round's sealed responses as their seats opened them (a spectator does not judge
        the openings: the transcript's check at the end does, as ``p2pcards verify``)."""
        turn, opened = turns[0], dict(responses)
        for seat, action in responses.items():
            if not rounds.is_sealed(action):
                continue

            def found(seat: int = seat) -> Action | None:
                for e in feed.entries(seat):
                    parsed = rounds.parse_opening(e.body) if e.kind == "open" else None
                    if parsed is not None and parsed[0] == turn:
                        return parsed[1]
                return None

            opened[seat] = await feed.wait_for(found, f"{names[seat]}'s opening")
        return opened

    session.open_round = open_round

    def on_entry(entry: Entry) -> None:
        name = names[entry.sender]
        body = entry.body if isinstance(entry.body, dict) else {}
        if entry.kind == "chat" and body.get("text") == LEFT_TO_BOT:  # as the players' screens say it
            bot_played.add(entry.sender)  # (its own signed word, as peer.bot_played)
            session.publish("notice", left_to_bot_words(name), seat=entry.sender)
        elif entry.kind == "chat":
            text = printable(" ".join(str(body.get("text", "")).split()))[:MAX_CHAT]
            session.publish("chat", f"{name}: {text}", seat=entry.sender)
        elif entry.kind == "bye":
            reason = printable(str(body.get("reason", "")))[:200]
            session.publish("connection", f"{name} left the table: {reason}", seat=entry.sender)
        elif entry.kind == "stop":
            reason = printable(str(body.get("reason", "")))[:200]
            session.publish("connection", f"{name}'s program stopped the game: {reason}", seat=entry.sender)

    # The seat list marks a seat whose player left and whose program lets a bot finish it
    # ("bot plays"), as the players' lists do; of the others' connections a spectator knows
    # nothing, and says nothing.
    bot_played: set[int] = set()
    session.presence_of = lambda seat: SeatPresence("bot" if seat in bot_played else "")
    feed.on_entry = on_entry
    return session

"""The engine's deck over the network: this seat's deck :class:`~p2pcards.deck.party.Party`,
with the other seats' parties reached through signed log entries (:class:`~p2pcards.net.peer.Peer`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import trio

from ..cards import Card
from ..deck.party import (
    AuditOp,
    CoinOp,
    DealOp,
    Op,
    OpDone,
    Output,
    Party,
    RevealOp,
    ShuffleOp,
    TransferOp,
)
from ..deck.party import (
    Blame as DeckBlame,
)
from ..table.protocol import TableAborted
from .transport import PING_SECONDS, QUIET_SECONDS, SILENCE_SECONDS

if TYPE_CHECKING:
    from .peer import Peer

__all__ = ["CHECK_EVERY", "CHECK_FIRST", "NetworkDeck", "check_intervals", "last_call"]

#: Seconds between checks, while we wait on other seats, for a seat that dropped out (and
#: between asks to the others for what an owing seat may have sent them but not us).
CHECK_EVERY = 1.0
#: The first check comes sooner, and the interval doubles up to CHECK_EVERY: a message
#: withheld from us alone comes from the others within a quarter second, while a long wait
#: (a player thinking) costs one ask a second.
CHECK_FIRST = 0.25


def check_intervals() -> Iterator[float]:
    """The waits between checks while we wait on other seats: CHECK_FIRST, doubling up to
    CHECK_EVERY."""
    wait = CHECK_FIRST
    while True:
        yield wait
        wait = min(CHECK_EVERY, wait * 2)


def last_call(peer: Peer, deadline: float) -> float:
    """The latest a wait on other seats (a deck step, a turn) with ``deadline`` may last, however
    often a seat it waits on drops and comes back: one cut near the deadline (noticed by the
    keepalive, then the grace period, then a moment to catch up) fits within it. Without it, a
    seat that redials before each deadline would stall the table forever, named by nobody."""
    return deadline + peer.header.timeouts.grace + SILENCE_SECONDS + PING_SECONDS + QUIET_SECONDS


def after_return(peer: Peer, deadline: float, waited: float, latest: float) -> float:
    """The deadline once every awaited seat is back after ``waited`` seconds away: the time it
    was away does not count against it, and it has a moment to catch up; never past ``latest``
    (:func:`last_call`)."""
    return min(latest, max(deadline + waited, peer.clock.now() + QUIET_SECONDS))


class NetworkDeck:
    """The engine's deck, backed by this seat's :class:`Party`; the other seats' parties are
    reached through signed log entries."""

    def __init__(self, peer: Peer, party: Party):
        self.peer = peer
        self.party = party
        self._done: dict[int, OpDone] = {}
        self._changed = trio.Condition()
        self.blame: DeckBlame | None = None
        self._started = False

    # The party is called from several tasks (each connection's receive loop, the game loop);
    # the lock keeps each call and the publishing of its output together and in order.

    async def _call(self, method: Any, *args: Any) -> None:
        async with self.peer.send_lock:
            if self.peer.aborted is not None:
                # Our game has stopped: the party signs nothing more (a deck message that
                # arrives later would make it sign its next step after our stop entry and seed,
                # and the transcript would show us going on). The peer reveals our seed.
                return
            out: Output = method(*args)
            await self.peer.publish_deck(out.sends)
            while self.party.deferred:  # our messages are out: now the work that waited
                later = self.party.proceed()
                await self.peer.publish_deck(later.sends)
                out.events += later.events
        async with self._changed:
            for event in out.events:
                if isinstance(event, OpDone):
                    self._done[event.index] = event
                elif self.blame is None:
                    self.blame = event
                    # It may come while no deck step is waiting (an accusation after the
                    # deal): stop the game here, naming the seat, not at some later timeout.
                    self.peer.abort(TableAborted(str(event), event.seat, event.step))
            self._changed.notify_all()
        self.peer.progress(self.party)

    async def start(self) -> None:
        if not self._started:
            self._started = True
            await self._call(self.party.start)

    async def receive(self, sender: int, message: Any) -> None:
        await self._call(self.party.receive, sender, message)

    async def _run(self, op: Op) -> OpDone:
        await self.start()
        index = len(self.party.ops)
        await self._call(self.party.begin, op)
        deadline = self.peer.clock.now() + self.peer.header.timeouts.deck
        latest = last_call(self.peer, deadline)
        intervals = check_intervals()
        due: float | None = None  # trio time the deadline was first found past
        away_since: float | None = None  # when we found an owing seat away (its connection down)
        async with self._changed:
            while index not in self._done and self.blame is None:
                # Wake up now and then to notice an owing seat that dropped out (and, while one
                # is away, to ask around again: no busy loop past the deadline then).
                wait = next(intervals)
                if away_since is None:
                    wait = min(wait, max(0.0, deadline - self.peer.clock.now()))
                with trio.move_on_after(wait):
                    await self._changed.wait()
                    continue
                owed = {seat for seat, _ in self.party.owed()}
                # It may have sent its message to every seat but us: the others pass it on (and
                # if it has stopped its game, ours stops too).
                await self.peer.ask_around(owed)
                away = sorted(seat for seat in owed if not self.peer.connected(seat))
                if away:
                    # It has its grace period, and meanwhile its message may come through the
                    # others (asked around at every look: a link down between two seats only),
                    # so we keep looking, not only wait for it to come back.
                    now = self.peer.clock.now()
                    away_since = now if away_since is None else away_since
                    gone = [seat for seat in away if now >= min(latest, self.peer.grace_end(seat))]
                    if gone and self.blame is None:
                        raise self.peer.gone(gone[0], "connection")
                    continue
                if away_since is not None:  # back (or what it owed came): its time away does not count
                    deadline = after_return(self.peer, deadline, self.peer.clock.now() - away_since, latest)
                    away_since = due = None
                    continue
                if self.peer.clock.now() >= deadline:
                    due = trio.current_time() if due is None else due
                    if any(self.peer.quiet(seat, due) for seat in owed):
                        # It may be cut: the keepalive says so within seconds (away: the grace
                        # period). Heard from again (a stopped process woke), it has a moment more.
                        deadline = self.peer.clock.now() + QUIET_SECONDS
                        continue
                    if self.peer.away_others(owed) and self.peer.clock.now() < latest:
                        # An owing seat may be waiting on a seat that is away (a message only
                        # that seat can send first): nobody is charged while it has its grace.
                        deadline = min(latest, self.peer.clock.now() + QUIET_SECONDS)
                        continue
                    blame = self.party.timeout()
                    waits_for = self.peer.protocol.held_back(blame.seat) if blame is not None else set()
                    if waits_for and blame is not None and self.blame is None:
                        # Its message is here but waits for entries its author had seen that
                        # never came (one may echo entries never signed): not its stall.
                        raise TableAborted(
                            f"seat {blame.seat}'s entries are here but wait for entries of "
                            f"seats {sorted(waits_for)} that never came",
                            None,
                            "deck",
                        )
                    if self.blame is None and blame is not None:
                        # Connected (its pings come) but silent on the deck: a stall, not a
                        # proof of cheating.
                        name = self.peer.header.seats[blame.seat].name
                        raise TableAborted(
                            f"{name} (seat {blame.seat}) did not send its deck message in time (step {blame.step!r})",
                            blame.seat,
                            blame.step,
                        )
                    break
        if self.blame is not None:
            raise TableAborted(self._blame_text(self.blame), self.blame.seat, self.blame.step)
        if index not in self._done:  # timed out with nobody owing a message we know of
            raise TableAborted("a deck step did not complete in time", None, "deck")
        return self._done[index]

    def _blame_text(self, blame: DeckBlame) -> str:
        """The deck's verdict for people: the seat by name."""
        name = self.peer.header.seats[blame.seat].name
        if blame.step == "connection":
            return f"{name} {blame.reason}"
        return f"{name} (seat {blame.seat}) broke the deck protocol at step {blame.step!r}: {blame.reason}"

    async def shuffle(self) -> list[int]:
        return list((await self._run(ShuffleOp())).handles)

    async def coin(self, label: str, bound: int) -> int:
        value = (await self._run(CoinOp(label, bound))).value
        assert value is not None, "a coin step ends with its value"
        return value

    async def deal(self, to: Mapping[int, int]) -> None:
        await self._run(DealOp(dict(to)))

    async def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]:
        return dict((await self._run(RevealOp(tuple(handles), owner))).faces)

    async def transfer(self, handles: Sequence[int], to: int) -> Any:
        done = await self._run(TransferOp(tuple(handles), to))
        return list(done.handles) if done.handles else None

    def known(self, seat: int) -> Mapping[int, Card]:
        return self.party.known if seat == self.peer.seat else {}

    async def open_all(self) -> dict[int, Card]:
        faces = dict((await self._run(AuditOp())).faces)
        if self.party.audit_incomplete is not None:  # our deck store failed: nobody is named for it
            self.peer.session.publish("notice", self.party.audit_incomplete)
        return faces

"""The engine's deck over the network: this seat's deck :class:`~p2pcards.deck.party.Party`,
with the other seats' parties reached through signed log entries (:class:`~p2pcards.net.peer.Peer`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import trio

from ..cards import Card
from ..deck.party import (
    AuditOp,
    CoinOp,
    DealOp,
    DropOp,
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
from ..table.referee import End
from .liveness import WaitingPeer, carry_out, open_wait

__all__ = ["NetworkDeck"]


class NetworkDeck:
    """The engine's deck, backed by this seat's :class:`Party`; the other seats' parties are
    reached through signed log entries."""

    def __init__(self, peer: WaitingPeer, party: Party):
        self.peer = peer
        self.party = party
        self._done: dict[int, OpDone] = {}
        self._changed = trio.Condition()
        self.blame: DeckBlame | None = None
        self._started = False

    def prove_claim(self, seat: int, index: int, handles: Sequence[int], sets: Sequence[Sequence[Card]]) -> Any:
        """Our proof of a hidden claim at move ``index`` (Party.prove_claim; ``seat`` is ours)."""
        assert seat == self.party.seat, "only our own claims"
        return self.party.prove_claim(index, handles, sets)

    def check_claim(
        self, index: int, seat: int, handles: Sequence[int], sets: Sequence[Sequence[Card]], proof: Any
    ) -> str | None:
        """Why a seat's hidden claim is refused, or None (Party.check_claim)."""
        return self.party.check_claim(index, seat, list(handles), sets, proof)

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
        """Run ``op`` to its end. The wait on the seats that owe its messages is the
        referee's (table/referee.py): this drives it, waking at each change of the party."""
        await self.start()
        index = len(self.party.ops)
        await self._call(self.party.begin, op)
        wait = open_wait(self.peer, "deck")
        async with self._changed:
            while index not in self._done and self.blame is None:
                # Wake up now and then to notice an owing seat that dropped out (and, while one
                # is away, to ask around again: no busy loop past the deadline then).
                with trio.move_on_after(wait.sleep(self.peer.clock.now())):
                    await self._changed.wait()
                    continue
                owed = self.party.owed()
                charged = owed[0][0] if owed else None
                held = {charged: self.peer.protocol.held_back(charged)} if charged is not None else {}
                settling = self.peer.settling({seat for seat, _ in owed})
                statements = self.peer.awaited_statements({charged}) if charged is not None else {}
                effects = wait.look(self.peer.links(), owed, held_back=held, settling=settling, statements=statements)
                await carry_out(self.peer, [e for e in effects if not isinstance(e, End)])
                end = next((e for e in effects if isinstance(e, End)), None)
                if end is not None:
                    if end.timeout:
                        self.party.timeout()  # the party records the stall (deck.md section 4.5)
                    if self.blame is None:  # (else a verdict of the deck itself came meanwhile)
                        raise end.aborted
                    break
        if self.blame is not None:
            raise TableAborted(self._blame_text(self.blame), self.blame.seat, self.blame.step)
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

    async def drop_out(self, seat: int) -> None:
        """``seat`` drops out (protocol/deck.md §4.6): it publishes its keys of the stock,
        every other seat checks them; its own cards are set aside for good."""
        await self._run(DropOp(seat))

    def known(self, seat: int) -> Mapping[int, Card]:
        return self.party.known if seat == self.peer.seat else {}

    async def open_all(self) -> dict[int, Card]:
        return dict((await self._run(AuditOp())).faces)

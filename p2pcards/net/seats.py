"""The seats of a networked table as the session sees them: this peer's own
(:class:`LocalSeat`, a person or a bot whose moves are signed and sent) and every other
(:class:`RemoteSeat`, whose moves arrive as signed ``action`` entries)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import trio

from ..game import Action, IllegalAction
from ..wire.messages import Entry
from ..session import SeatAgent, TableSession
from ..table.protocol import TableAborted
from .network_deck import check_intervals
from .transport import shielded

if TYPE_CHECKING:
    from .peer import Peer


__all__ = ["IDLE_SHARE", "LocalSeat", "RemoteSeat"]

#: Share of the turn timeout after which an idle player's client acts for them (rule 28).
IDLE_SHARE = 0.9


class RemoteSeat:
    """A seat played on another peer: its moves arrive as signed ``action`` entries."""

    def __init__(self, peer: Peer, seat: int):
        self.peer = peer
        self.seat = seat
        # Not bounded here: the log's per-seat budget bounds what a seat can sign, and a seat
        # catching up after a restart gets many moves at once (none of them a flood).
        self._send, self._receive = trio.open_memory_channel[tuple[int, Action, Entry]](math.inf)
        #: The signed entry of the move ``choose`` returned last (its head echo orders a
        #: free-order round: protocol/table.md section 9).
        self.last_entry: Entry | None = None

    def deliver(self, turn: int, action: Action, entry: Entry) -> None:
        self._send.send_nowait((turn, action, entry))

    async def choose(self, session: TableSession, seat: int) -> Action:
        deadline = trio.current_time() + self.peer.header.timeouts.turn
        intervals = check_intervals()
        while True:
            # Wake up now and then to notice a seat that dropped out (it gets the grace period).
            with trio.move_on_after(min(next(intervals), max(0.0, deadline - trio.current_time()))):
                turn, action, self.last_entry = await self._receive.receive()
                if turn != self.peer.turns:
                    raise TableAborted(
                        f"seat {seat} sent a move for turn {turn} during turn {self.peer.turns}", seat, "action"
                    )
                return action
            # It may have sent its move to every seat but us: the others pass it on.
            await self.peer.ask_around({seat})
            if not self.peer.connected(seat):
                if not await self.peer.wait_for_return(seat):
                    raise TableAborted(f"{session.names[seat]} left and did not come back in time", seat, "action")
                deadline = trio.current_time() + self.peer.header.timeouts.turn
            elif trio.current_time() >= deadline:
                raise TableAborted(f"{session.names[seat]} did not move in time", seat, "action")


class LocalSeat:
    """This peer's own seat: a person or a bot chooses, then the move is signed and sent."""

    def __init__(self, peer: Peer, agent: SeatAgent):
        self.peer = peer
        self.agent = agent
        self.last_entry: Entry | None = None  # the entry of our last move (see RemoteSeat)

    def __getattr__(self, name: str) -> Any:  # observe(), put() of the wrapped agent
        return getattr(self.agent, name)

    async def _choose_in_time(self, session: TableSession, seat: int) -> Action:
        """The agent's choice; if the turn time is nearly up and the game says what an idle
        player does (``Game.idle_action``), that instead."""
        patience = self.peer.header.timeouts.turn * IDLE_SHARE
        with trio.move_on_after(patience):
            return await self.agent.choose(session, seat)
        idle = session.game.idle_action(session.state, seat, session.known())
        if idle is None:
            return await self.agent.choose(session, seat)
        session.publish("notice", f"time is up: {session.describe(seat, idle)} for you")
        return idle

    async def choose(self, session: TableSession, seat: int) -> Action:
        logged = self.peer.logged_action()
        if logged is not None:  # replaying our journal after a restart: the move is made
            return await self._sign(logged)
        while True:
            action = await self._choose_in_time(session, seat)
            try:
                session.game.check(session.state, seat, action)
            except IllegalAction as exc:
                session.publish("error", str(exc))
                continue
            return await self._sign(action)

    async def pass_late(self, session: TableSession, seat: int, action: Action) -> None:
        """A free-order round was decided before our player acted: our response is a pass."""
        logged = self.peer.logged_action()
        await self._sign(logged if logged is not None else action)

    async def _sign(self, action: Action) -> Action:
        # Never cut off once begun (a round may be decided meanwhile): a response signed but
        # not sent, followed by a pass, would be two responses to one round.
        with shielded():
            self.last_entry = await self.peer.publish("action", {"turn": self.peer.turns, "action": action})
        return action

"""The seats of a networked table as the session sees them: this peer's own
(:class:`LocalSeat`, a person or a bot whose moves are signed and sent) and every other
(:class:`RemoteSeat`, whose moves arrive as signed ``action`` entries)."""

from __future__ import annotations

import math
from collections import deque
from typing import Any

import trio

from ..engine import is_drop_out, with_claim_proof
from ..game import Action, IllegalAction, Round, Turn
from ..plugins import PLUGIN_STEP, plugin_failure
from ..session import SeatAgent, TableSession
from ..table import rounds
from ..table.protocol import TableAborted
from ..table.referee import Wait
from ..wire.messages import Entry
from .liveness import WaitingPeer, carry_out, open_wait

__all__ = ["IDLE_SHARE", "LocalSeat", "RemoteSeat"]

#: Share of the turn timeout after which an idle player's client acts for them (rule 28).
IDLE_SHARE = 0.9


class RemoteSeat:
    """A seat played on another peer: its moves arrive as signed ``action`` entries. A
    follower whose client is gone is passed for once every other seat has stated it absent
    (p2pcards/table/absence.py)."""

    def __init__(self, peer: WaitingPeer, seat: int):
        self.peer = peer
        self.seat = seat
        # Not bounded here: the log's per-seat budget bounds what a seat can sign, and a seat
        # catching up after a restart gets many moves at once (none of them a flood). ``None``
        # wakes ``choose`` (an absent statement came).
        self._send, self._receive = trio.open_memory_channel[tuple[int, Action, Entry] | None](math.inf)
        #: The signed entry of the move ``choose`` returned last (its head echo orders a
        #: free-order round: protocol/table.md section 9); ``None`` when it was passed for.
        self.last_entry: Entry | None = None
        #: Turns the table passed for it (it was gone): a move of it for one of them is void.
        self.passed: set[int] = set()
        #: Its moves for later turns that came while the statements decided on one we hold
        #: (the other seats went on meanwhile): the next ``choose`` takes them first.
        self._later: deque[tuple[int, Action, Entry]] = deque()

        # Its ``open`` entries (the openings of its sealed responses), in its chain's order.
        self._open_send, self._open_receive = trio.open_memory_channel[Entry](math.inf)

    def deliver(self, turn: int, action: Action, entry: Entry) -> None:
        self._send.send_nowait((turn, action, entry))

    def _next_move(self) -> Entry | None:
        """Its next move delivered here (kept for ``choose``), if one is: delivered in its
        chain's order, so one signed before its opening is here by the time the opening is."""
        while True:
            try:
                item = self._receive.receive_nowait()
            except trio.WouldBlock:
                break
            if item is not None:
                self._later.append(item)
        return self._later[0][2] if self._later else None

    def deliver_opening(self, entry: Entry) -> None:
        self._open_send.send_nowait(entry)

    async def opening(self, session: TableSession, turn: int, commitments: dict[int, Entry]) -> Action:
        """Its opening of the response it committed to for round ``turn`` (``last_entry``),
        checked against its commitment and the round's ``commitments`` (every follower's).
        Its client signs it by itself once the round is sealed, so it is waited on like a deck
        message: past the deck timeout (and the grace of a seat away) the game stops, naming
        it by the one stall verdict (table/stall.py). It is never passed for: a seat that
        could see the others' openings and then have the table pass for it could turn a
        committed doubt into a pass."""
        peer, seat = self.peer, self.seat
        wait = open_wait(peer, "open")
        while True:
            with trio.move_on_after(wait.sleep(peer.clock.now())):
                entry = await self._open_receive.receive()
                assert self.last_entry is not None, "only a seat with a commitment is asked to open"
                problem = rounds.moved_before_opening(turn, entry, self._next_move()) or rounds.opening_problem(
                    peer.header.table, entry, self.last_entry, commitments, turn
                )
                if problem is not None:
                    peer.protocol.name(seat, problem)
                    raise TableAborted(f"{session.names[seat]} {problem}", seat, "action")
                parsed = rounds.parse_opening(entry.body)
                assert parsed is not None, "the protocol hands on well-formed openings only"
                return parsed[1]
            effects = wait.look(peer.links(), [(seat, "open")], held_back={seat: peer.protocol.held_back(seat)})
            await carry_out(peer, effects)

    def wake(self) -> None:
        self._send.send_nowait(None)

    async def _next(self, wait: float) -> tuple[int, Action, Entry] | None:
        """Its next move, or ``None`` after ``wait`` seconds or a wake-up."""
        with trio.move_on_after(wait):
            return await self._receive.receive()
        return None

    async def choose(self, session: TableSession, seat: int) -> Action:
        """Its move for this turn, or its absent action once the other seats' statements pass
        for it. The wait is the referee's (table/referee.py): this drives it, waking at each
        move or statement that comes."""
        peer, turn = self.peer, self.peer.turns
        absent = session.game.absent_action(session.state, seat)
        wait = open_wait(peer, "turn")
        held: tuple[Action, Entry] | None = None  # its move, while the statements decide on it
        while True:
            # Wake up now and then to notice a seat that dropped out (it gets the grace period);
            # past the deadline too, while we wait on statements (never a busy loop).
            if self._later and held is None:
                item: tuple[int, Action, Entry] | None = self._later.popleft()
            else:
                item = await self._next(wait.sleep(peer.clock.now()))
            if item is not None:
                got, action, entry = item
                if got in self.passed:
                    continue  # signed for a turn it was passed for
                if got > turn and held is not None:
                    self._later.append(item)
                    continue
                if got != turn:
                    raise TableAborted(f"seat {seat} sent a move for turn {got} during turn {turn}", seat, "action")
                self._check_sealed(session, turn, action)
                if absent is None or not peer.stated_absent(turn, seat):
                    self.last_entry = entry
                    return action
                held = (action, entry)
            if absent is not None:
                passed = peer.protocol.passed_for(turn, seat)
                if passed is False and held is not None:
                    self.last_entry = held[1]
                    return held[0]
                if passed:
                    self.passed.add(turn)
                    self.last_entry = None
                    session.publish(
                        "notice",
                        f"{session.names[seat]} is gone: every other seat "
                        f"says so, and the table {session.describe(seat, absent)} for them",
                        seat=seat,
                    )
                    return absent
                if await self._absent(wait, turn, holding=held is not None):
                    continue
            # It may have sent its move to every seat but us: the others pass it on. A follower
            # that just went is stated absent next time round; any other seat away has its
            # grace period, and meanwhile its move may come through the others.
            passable = {seat} if absent is not None else set()
            held_back = {seat: peer.protocol.held_back(seat)}
            settling = peer.settling({seat})
            effects = wait.look(
                peer.links(),
                [(seat, "action")],
                passable=passable,
                held_back=held_back,
                settling=settling,
                statements=peer.awaited_statements({seat}),
            )
            await carry_out(peer, effects)

    def _check_sealed(self, session: TableSession, turn: int, action: Action) -> None:
        """A response to a free-order round is sealed (a commitment), and only such a
        response is (protocol/table.md section 9): signed, either way is proof."""
        in_round = isinstance(session.step, Round)
        if rounds.is_sealed(action) == in_round:
            return
        what = "an open response to a free-order round" if in_round else "a sealed move outside a free-order round"
        reason = f"signed {what} (turn {turn})"
        self.peer.protocol.name(self.seat, reason)
        raise TableAborted(f"{session.names[self.seat]} {reason}", self.seat, "action")

    async def _absent(self, wait: Wait, turn: int, *, holding: bool) -> bool:
        """A seat that may be passed for. If its client is gone (no connection, or it stopped
        its game), state so; once we have stated, the other seats' statements decide on its
        move, so keep waiting for them (``True``) while they can come (the referee's
        ``Wait.settle``). ``False``: we wait on its move as for any seat."""
        peer, seat = self.peer, self.seat
        waits, effects = wait.settle(
            peer.links(),
            turn,
            seat,
            stated=peer.stated_absent(turn, seat),
            missing=peer.missing_statements(turn, seat),
            holding=holding,
        )
        await carry_out(peer, effects)
        return waits


class LocalSeat:
    """This peer's own seat: a person or a bot chooses, then the move is signed and sent."""

    def __init__(self, peer: WaitingPeer, agent: SeatAgent):
        self.peer = peer
        self.agent = agent
        self.last_entry: Entry | None = None  # the entry of our last move (see RemoteSeat)
        #: ``(turn, response)`` we committed to and have not opened yet (a sealed round).
        self.committed: tuple[int, Action] | None = None

    def __getattr__(self, name: str) -> Any:  # observe(), put() of the wrapped agent
        return getattr(self.agent, name)

    async def _choose_in_time(self, session: TableSession, seat: int) -> Action:
        """The agent's choice; if the turn time is nearly up and the game says what an idle
        player does (``Game.idle_action``), that instead. The game's plugin failing here fails
        at this seat only (the others never run this code): our seat leaves the table, with a
        signed goodbye, rather than stop the others' game as a fault of the rules would."""
        try:
            return await self._agent_choice(session, seat)
        except IllegalAction:
            raise
        except Exception as exc:
            failed = plugin_failure(exc, session.game, here_only=True)
            if failed is None:
                raise  # not the plugin's failure: ours, which is not hidden
            raise TableAborted(failed, seat, PLUGIN_STEP) from exc

    async def _agent_choice(self, session: TableSession, seat: int) -> Action:
        patience = self.peer.timings.turn * IDLE_SHARE
        with trio.move_on_after(patience):
            return await self.agent.choose(session, seat)
        idle = session.game.idle_action(session.state, seat, session.known())
        if idle is None:
            return await self.agent.choose(session, seat)
        session.publish("notice", f"time is up: {session.describe(seat, idle)} for you")
        return idle

    async def choose(self, session: TableSession, seat: int) -> Action:
        turn, absent = self.peer.turns, session.game.absent_action(session.state, seat)
        if absent is not None and self.peer.protocol.passed_for(turn, seat):
            # We were gone and the others passed for us (after a restart, our journal may
            # hold a move for this turn: it is void).
            await self.peer.replay_void_action(turn)
            self.last_entry = None
            return absent
        logged = self.peer.logged_action()
        if logged is not None and "sealed" in logged:  # our commitment: the response is in its box
            opened = rounds.open_box(self._secret(), self.peer.header.table, seat, turn, logged.get("box"))
            if opened is None:
                raise TableAborted("our journal's sealed response does not open with our key", None, "replay")
            logged = opened
        if logged is not None:  # replaying our journal after a restart: the move is made
            return await self._sign(logged)
        while True:
            action = await self._unless_passed_for(session, seat)
            if action is None:  # we were away, and every other seat passed for us
                assert absent is not None, "only a game with an absent action passes for a seat"
                self.last_entry = None
                return absent
            if is_drop_out(action):
                # The table's own move (issue 30): at our turn, where the rules allow it now.
                refusal = (
                    session.game.drop_out_refusal(session.state, seat)
                    if isinstance(session.step, Turn)
                    else "you can drop out only at your own turn"
                )
                if refusal is not None:
                    session.publish("error", f"you cannot drop out now: {refusal}")
                    continue
                return await self._sign(action)
            try:
                session.game.check(session.state, seat, action)
            except IllegalAction as exc:
                session.publish("error", str(exc))
                continue
            if absent is not None and self.peer.protocol.passed_for(turn, seat):
                self.last_entry = None  # passed for meanwhile: a move now would be void
                return absent
            return await self._sign(action)

    async def _unless_passed_for(self, session: TableSession, seat: int) -> Action | None:
        """Our player's choice, or ``None`` once the other seats have passed for us (we were
        away: absence.py) before we signed a move."""
        turn = self.peer.turns
        if session.game.absent_action(session.state, seat) is None:
            return await self._choose_in_time(session, seat)
        choice: list[Action] = []
        async with trio.open_nursery() as nursery:

            async def chosen() -> None:
                choice.append(await self._choose_in_time(session, seat))
                nursery.cancel_scope.cancel()

            nursery.start_soon(chosen)
            await self.peer.passed_for_us(turn)
            nursery.cancel_scope.cancel()
        if choice and not self.peer.protocol.passed_for(turn, seat):
            return choice[0]  # (a choice made as the others passed for us is dropped)
        session.publish("notice", "you were away: the other seats passed for you")
        return None

    async def pass_late(self, session: TableSession, seat: int, action: Action) -> None:
        """A free-order round was decided before our player acted: our response is a pass
        (none if the other seats passed for us already)."""
        if self.peer.protocol.passed_for(self.peer.turns, seat):
            self.last_entry = None  # ordered as at the other seats: after the signed responses
            return
        logged = self.peer.logged_action()
        await self._sign(logged if logged is not None else action)

    def _secret(self) -> bytes:
        return self.peer.identity.secret(rounds.IDENTITY_LABEL)

    async def _sign(self, action: Action) -> Action:
        # Never cut off once signed (a round may be decided meanwhile): a response signed but
        # not sent, followed by a pass, would be two responses to one round. Peer._publish
        # shields it from its signature until it is sent; nothing here waits before that.
        turn = self.peer.turns
        if isinstance(self.peer.session.step, Round):
            # A free-order response is sealed: its commitment now, its opening once every
            # follower's commitment is in (protocol/table.md section 9).
            body = rounds.sealed_body(self._secret(), self.peer.header.table, self.peer.seat, turn, action)
            self.committed = (turn, action)
        else:
            # A hidden claim (a Cal's BS quads lead) goes with its proof (deck protocol 3).
            session = self.peer.session
            action = with_claim_proof(session.game, session.replica, session.deck, self.peer.seat, action)
            body = {"turn": turn, "action": action}
        # (Shielded from its signature until it is sent: Peer._publish.)
        self.last_entry = await self.peer.publish("action", body)
        return action

    async def open(self, turn: int) -> Action:
        """Sign the opening of our sealed response to round ``turn`` (the round is sealed
        here: every follower's commitment is in). After a restart, our journal's opening is
        re-used if it holds one (the same, since the nonce is derived again)."""
        assert self.committed is not None and self.committed[0] == turn, "we committed to this round"
        action = self.committed[1]
        body = rounds.opening_body(self._secret(), self.peer.header.table, self.peer.seat, turn, action)
        await self.peer.publish("open", body)  # (shielded once signed: Peer._publish)
        self.committed = None
        return action

"""Random fault schedules (issue 28, the agreement property): a seeded generator of tables in
which seats fail at random steps, composed from the fault machinery of cheaters.py.

A step is counted in a seat's own signed entries (``log.next_seq(seat)``): deck passes,
openings, moves and statements alike, so a step drawn at random falls in the shuffle, the
deal or the play. The faults:

* honest seats with a faulty network or client (``others`` of run_table, transcripts kept):
  ``blip``: every link drops at step n and stays down for less than the grace period (its
  redials refused meanwhile, as :class:`~.cheaters.LinkDown` does for one link), then comes
  back; ``cut``: the same, never back (the seat is waited for: it ends its own game and its
  verdict is checked); ``quit``: a signed goodbye at step n (:class:`~.cheaters.QuitsSigned`);
  ``bye``: an unsigned goodbye at step n, then silence (:class:`~.cheaters.SaysByeUnsigned`).
  A ``quit`` or ``bye`` seat is not waited for (its verdict is its own choice to leave);
* the cheater seat (no transcript): ``hang``: from step n it signs nothing more, its links
  up (a frozen client: :class:`~.cheaters.SaysByeUnsigned` without the goodbye);
  ``stall-deck``: never sends its k-th shuffle or re-lock pass
  (:class:`~.cheaters.StallsDeck`); ``stall-turn``: never moves from turn k on
  (:class:`~.cheaters.StallsTurnPeer`); ``withhold``: its entries from step n to n+m never
  reach one seat and it answers none of that seat's fetches
  (:class:`~.cheaters.WithholdsFromNext`); ``none``: an honest peer.

:func:`schedule` draws one table from a seed; :meth:`Schedule.run` plays it on virtual time.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from p2pcards.net.peer import Peer
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.messages import Bye

from .adv_table import TableRun, run_table
from .cheaters import (
    Cheater,
    QuitsSigned,
    SaysByeUnsigned,
    StallsDeck,
    StallsTurnPeer,
    StallsTurnSeat,
    WithholdsFromNext,
)

#: Step timeouts of the schedules: a stall costs a deck or turn timeout and a grace period,
#: in virtual seconds, well within adv_table.TABLE_SECONDS.
TIMEOUTS = Timeouts(deck=3.0, turn=3.0, grace=1.5)
#: A step is drawn below this: a 3- or 4-seat game of Cal's BS to one point signs about this
#: many entries per seat (measured: 14-40), so most faults fire, some in the last hand.
STEPS = 30
#: An honest fault is drawn earlier: a stall of the cheater ends the game, often before a
#: late one would come.
HONEST_STEPS = 16
HONEST_FAULTS = ("blip", "cut", "quit", "bye")
CHEATER_FAULTS = ("none", "hang", "stall-deck", "stall-turn", "withhold")
TABLES = (
    ("cals-bs", 3, {"match_target": 1}),
    ("cals-bs", 4, {"match_target": 1}),
    ("cals-bs", 3, {"match_target": 1, "turn_mode": "free"}),
    ("cals-bs", 4, {"match_target": 1, "turn_mode": "free"}),
)


class _Leaves:
    """A ``leaves`` flag for run_table, which reads it off a factory class (True: the seat is not
    waited for), without shadowing :attr:`Peer.leaves` on the peer itself (whether its goodbye
    signs a ``bye`` or a ``stop``): a plain ``leaves = True`` would make a seat that stopped
    for another's fault sign a ``bye``, and verify then names it as having left."""

    def __init__(self, flag: bool):
        self.flag = flag

    def __get__(self, peer: Any, owner: Any = None) -> Any:
        return self.flag if peer is None else Peer.leaves.__get__(peer, owner)


def _own_steps(peer: Any) -> int:
    return peer.log.next_seq(peer.seat)


# -- honest faults --------------------------------------------------------------------------------


class DropsLinks(Cheater):
    """Not a cheater: every link of this seat drops at its step ``at`` and stays down for
    ``outage`` seconds (``inf``: never back); a connection made meanwhile, its own redial or
    another seat's, is closed at once (as :class:`~.cheaters.LinkDown` does for one link)."""

    deviation = "none (every link drops)"
    leaves = _Leaves(False)
    at = 3
    outage = 1.0

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.down_until: float | None = None

    def down(self) -> bool:
        return self.down_until is not None and trio.current_time() < self.down_until

    async def serve_connection(self, seat, conn):
        if self.down():
            await _silence(conn)  # (and read from it: it ends at once, as gone silent)
        await super().serve_connection(seat, conn)

    async def misbehave(self):
        await self.until(lambda: _own_steps(self) >= self.at)
        self.cheated = True
        self.down_until = trio.current_time() + self.outage
        for conn in list(self.connections.values()):
            await _silence(conn)


async def _silence(conn: Any) -> None:
    """Close ``conn`` as this seat's own keepalive closes a link that went silent: a Wi-Fi cut
    is silence on this seat's side (no FIN, no RST reaches it), so its links end as gone
    silent (``Connection.silent``), not as closed by the others. (Closed plainly, the seat cut
    off took the others for gone and named the one it waited on, an innocent: issue 28.)"""
    if hasattr(conn, "silent"):
        conn.silent = True
        conn.failure = "the link went silent"
    await conn.aclose()


class QuitsAt(QuitsSigned):
    """A player who quits (a signed goodbye) once it signed ``at`` entries."""

    leaves = _Leaves(True)
    at = 3

    async def misbehave(self):
        await self.until(lambda: _own_steps(self) >= self.at)
        self.cheated = True
        await self.say_goodbye("quit before the game ended")
        await trio.sleep_forever()


class ByeAt(SaysByeUnsigned):
    """A client that says goodbye unsigned once it signed ``at`` entries, then goes silent."""

    leaves = _Leaves(True)
    at = 3

    async def misbehave(self):
        await self.until(lambda: _own_steps(self) >= self.at)
        for conn in list(self.connections.values()):
            await conn.send(Bye("gone").to_wire())
        self.cheated = True
        await trio.sleep_forever()


# -- the cheater seat ----------------------------------------------------------------------------


class HangsAt(SaysByeUnsigned):
    """A frozen client: from its step ``at`` it signs nothing more (SaysByeUnsigned's silence,
    without the goodbye); its links stay up."""

    at = 3

    async def misbehave(self):
        await self.until(lambda: _own_steps(self) >= self.at)
        self.cheated = True


class StallsDeckAt(StallsDeck):
    """Never sends its ``at``-th shuffle or re-lock pass (counted from 0); the earlier ones go,
    and so do the later ones, should any come: its party counts the withheld one as sent, so a
    later pass is off the protocol (verify proves it from the seed: seen in the schedules)."""

    at = 0

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.passes = 0

    def tamper_deck(self, to, message):
        if self.cheated or message.get("type") not in ("shuffle", "relock"):
            return message
        self.passes += 1
        return None if self.passes > self.at else message


class _StallsTurnAtSeat(StallsTurnSeat):
    async def choose(self, session, seat):
        if self.peer.turns >= self.peer.at:
            return await super().choose(session, seat)
        return await super(StallsTurnSeat, self).choose(session, seat)


class StallsTurnAt(StallsTurnPeer):
    """Never moves at its first turn from turn ``at`` on."""

    at = 0

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.session.seats[self.seat] = _StallsTurnAtSeat(self, self.session.seats[self.seat].agent)


class WithholdsAt(WithholdsFromNext):
    """Its entries ``at`` to ``at + count - 1`` never reach seat ``target``, and it answers
    none of that seat's fetches (from the start: a seat that is sent nothing asks)."""

    at = 3
    count = 2
    target = 0

    @property
    def victim(self) -> int:
        return self.target

    def _withheld(self, entry):
        return self.at <= entry.seq < self.at + self.count


# -- schedules -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    kind: str
    seat: int
    at: int = 0
    #: blip: seconds down; withhold: the seat that misses the entries, and how many.
    outage: float = 0.0
    target: int = 0
    count: int = 0

    def __str__(self) -> str:
        extra = {
            "blip": f" for {self.outage:.2f} s",
            "withhold": f" x{self.count} from seat {self.target}",
        }.get(self.kind, "")
        return f"seat {self.seat} {self.kind} at {self.at}{extra}"

    def peer_class(self) -> type:
        attrs: dict[str, Any] = {"at": self.at}
        base: type = {
            "blip": DropsLinks,
            "cut": DropsLinks,
            "quit": QuitsAt,
            "bye": ByeAt,
            "none": Cheater,
            "hang": HangsAt,
            "stall-deck": StallsDeckAt,
            "stall-turn": StallsTurnAt,
            "withhold": WithholdsAt,
        }[self.kind]
        if self.kind == "blip":
            attrs["outage"] = self.outage
        if self.kind == "cut":
            attrs["outage"] = math.inf
        if self.kind == "withhold":
            attrs.update(target=self.target, count=self.count)
        return type(f"{base.__name__}_{self.kind}", (base,), attrs)


@dataclass(frozen=True)
class Schedule:
    seed: int
    table: tuple[str, int, dict[str, Any]]
    cheater: Fault
    honest: tuple[Fault, ...] = field(default_factory=tuple)

    def __str__(self) -> str:
        game, players, options = self.table
        faults = "; ".join(str(f) for f in (self.cheater, *self.honest))
        return f"seed {self.seed}: {game} {players} seats {options}: {faults}"

    def run(self, transcript_dir: Path, *, known_disagreement: str | None = None) -> TableRun:
        game, players, options = self.table
        return run_table(
            game,
            players,
            options,
            cheater=self.cheater.seat,
            peer_factory=self.cheater.peer_class(),
            transcript_dir=transcript_dir,
            timeouts=TIMEOUTS,
            seed=self.seed,
            others={f.seat: f.peer_class() for f in self.honest},
            virtual_time=True,
            known_disagreement=known_disagreement,
        )


def schedule(seed: int) -> Schedule:
    """The fault schedule of ``seed``: a table, a cheater seat with one of CHEATER_FAULTS, and
    none or one other seat with one of HONEST_FAULTS (at least one fault in all)."""
    rng = random.Random(seed)
    table = rng.choice(TABLES)
    players = table[1]
    seats = list(range(players))
    rng.shuffle(seats)
    cheater_seat, other_seat = seats[0], seats[1]
    kind = rng.choice(CHEATER_FAULTS)
    honest_kind = rng.choice((None, *HONEST_FAULTS)) if kind != "none" else rng.choice(HONEST_FAULTS)
    cheater = _fault(rng, kind, cheater_seat, players)
    honest = () if honest_kind is None else (_fault(rng, honest_kind, other_seat, players, HONEST_STEPS),)
    return Schedule(seed, table, cheater, honest)


def _fault(rng: random.Random, kind: str, seat: int, players: int, steps: int = STEPS) -> Fault:
    if kind == "stall-deck":
        return Fault(kind, seat, rng.randrange(2))
    if kind == "stall-turn":
        return Fault(kind, seat, rng.randrange(12))
    at = rng.randrange(1, steps)
    if kind == "blip":
        return Fault(kind, seat, at, outage=round(rng.uniform(0.1, 0.8) * TIMEOUTS.grace, 2))
    if kind == "withhold":
        target = rng.choice([s for s in range(players) if s != seat])
        return Fault(kind, seat, at, target=target, count=rng.randrange(1, 4))
    return Fault(kind, seat, at)

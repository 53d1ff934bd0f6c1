"""Recording the races of a free-order table at one bot peer, for ``scripts/bench-races``.

:class:`RaceRecorder` watches a :class:`~p2pcards.net.peer.Peer` through the runner's
``on_peer`` hook and changes nothing: it counts the free-order rounds (a ``turn`` event that
names ``seats``), and notes, with ``time.monotonic()`` (``CLOCK_MONOTONIC``: one clock for the
whole machine, network namespaces included):

* ``decided``: ``[[round, t, type], ...]``, when this seat's bot *acted* in each round: the end
  of its human-like reaction time (:class:`TimedBotSeat`), before its commitment is signed.
  Since responses are sealed (protocol version 8) every bot answers every round;
* ``responded``: ``[[round, t, seat, type], ...]``, when each follower's *commitment* reached
  this peer's session (its own included: an ``answered`` event), in arrival order; ``type`` is
  ``None`` (a commitment says nothing of it) unless the table does not seal responses. The
  races are between commitments: the one order of a round is theirs;
* ``applied``: ``[[round, seat, type], ...]``, the responses in the table's order (the signed
  log's: protocol/table.md section 9), as this peer applied them;
* ``delivered``: ``[[t, seat, turn], ...]``, when each other seat's move entry was taken into this
  peer's log and handed to that seat (from then on a move this peer signs echoes it, and comes
  after it in a free-order round).

``python -m p2pcards.net.races host|join ...`` runs one such bot peer, listening on
``--listen`` and telling the others to dial ``--advertise`` (the delaying relay,
:mod:`p2pcards.net.relay`), and appends its line (JSON) to ``--out`` when the game ends.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

from ..session import BotSeat
from .timings import append_line, peer_parser, run_peer

__all__ = ["RaceRecorder", "TimedBotSeat", "main"]


class RaceRecorder:
    """Watches one peer; pass :meth:`attach` as the runner's ``on_peer``."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.round = 0  # free-order rounds begun so far (the current one's number)
        self.in_round = False
        self.decided: list[list[Any]] = []
        self.responded: list[list[Any]] = []
        self.applied: list[list[Any]] = []
        self.delivered: list[list[Any]] = []

    def attach(self, peer: Any) -> None:
        peer.session.subscribe(self._on_event)
        for seat, agent in enumerate(peer.session.seats):
            deliver = getattr(agent, "deliver", None)  # another seat's (RemoteSeat)
            if deliver is not None:
                agent.deliver = self._timed_deliver(seat, deliver)  # this object only, same behaviour

    def _timed_deliver(self, seat: int, deliver: Any) -> Any:
        def timed(turn: int, action: Any, entry: Any) -> None:
            self.delivered.append([self.clock(), seat, turn])
            deliver(turn, action, entry)

        return timed

    def note_decision(self, action: Any) -> None:
        if self.in_round:
            self.decided.append([self.round, self.clock(), action.get("type")])

    def _on_event(self, event: Any) -> None:
        data = event.data
        if event.kind == "turn":
            self.in_round = "seats" in data
            self.round += self.in_round
        elif event.kind == "answered":  # a commitment came (sealed responses)
            self.responded.append([self.round, self.clock(), data["seat"], None])
        elif event.kind == "responded":
            if not any(r == self.round and s == data["seat"] for r, _, s, _ in self.responded):
                self.responded.append([self.round, self.clock(), data["seat"], data["action"].get("type")])
        elif event.kind == "action" and self.in_round:
            self.applied.append([self.round, data["seat"], data["action"].get("type")])

    def to_json(self, outcome: Any, seat: int) -> dict[str, Any]:
        if outcome.aborted is not None:
            status = f"aborted: {outcome.aborted.reason}"
        else:
            status = "finished" if outcome.result is not None else "no result"
        return {
            "seat": seat,
            "pid": os.getpid(),
            "clock": "monotonic",
            "status": status,
            "rounds": self.round,
            "decided": self.decided,
            "responded": self.responded,
            "applied": self.applied,
            "delivered": self.delivered,
            "transcript": str(outcome.transcript) if outcome.transcript else None,
        }


class TimedBotSeat(BotSeat):
    """A bot seat that tells a :class:`RaceRecorder` the moment it acts."""

    def __init__(self, *args: Any, recorder: RaceRecorder, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.recorder = recorder

    async def choose(self, session: Any, seat: int) -> Any:
        action = await super().choose(session, seat)
        self.recorder.note_decision(action)
        return action


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


def _parser() -> argparse.ArgumentParser:
    parser = peer_parser("python -m p2pcards.net.races", __doc__.splitlines()[0], name="racer")
    parser.add_argument("--table", type=_address, help="join: the host's address, HOST:PORT")
    parser.add_argument("--listen", type=_address, required=True, help="HOST:PORT this peer listens on")
    parser.add_argument("--advertise", type=_address, help="HOST:PORT the others dial for this seat")
    parser.add_argument("--reaction", type=float, default=1.0, help="scale of the bots' reaction time")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """One bot peer. The host prints ``port N`` once it listens."""
    import trio

    from ..plugins import load_plugins

    args = _parser().parse_args(argv)
    host = load_plugins()
    recorder = RaceRecorder()
    rng = random.Random()
    seat_of: list[int] = []

    def agent(game: Any, seat: int, options: Any) -> Any:
        seat_of.append(seat)
        available = host.bots_for(game.id)
        cls = available.get(args.bot) or available["random"]
        return TimedBotSeat(
            cls(game, seat, options, random.Random(rng.random())), reaction=args.reaction, recorder=recorder
        )

    async def run() -> Any:
        return await run_peer(
            host, args, agent, on_peer=recorder.attach, listen=args.listen, table=args.table, advertise=args.advertise
        )

    outcome = trio.run(run)
    append_line(args.out, recorder.to_json(outcome, seat_of[0] if seat_of else -1))
    if outcome.aborted is not None:
        print(f"aborted: {outcome.aborted.reason}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

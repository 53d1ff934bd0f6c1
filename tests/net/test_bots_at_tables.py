"""Bots at networked tables are told what their seat sees, as in ``simulate``: the deal of
their own cards, every move, every reveal and the cards handed to them. Until issue 30 a
networked seat's bot (wrapped in net/seats.py's ``LocalSeat``) was told nothing, so the Cal's
BS strategic bot never learnt who doubts and bluffed into the same doubt for thousands of moves.
Real peers on 127.0.0.1; trio's virtual clock (the bots' thinking takes no real time)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from p2pcards.cards import Card
from p2pcards.game import Action
from p2pcards.plugins import load_plugins
from p2pcards.session import HumanSeat
from p2pcards.testing import run_loopback
from p2pcards.wire.transcript import read_transcript


def test_a_networked_seats_bot_is_told_its_deal_the_moves_reveals_and_its_pickups():
    strategic = load_plugins().bots_for("cals-bs")["strategic"]
    told: dict[int, list[dict[str, Any]]] = defaultdict(list)
    hands: dict[int, list[int]] = {}

    class Told(strategic):  # type: ignore[misc,valid-type]
        """The strategic bot, recording what it is told; its first follower turn is a doubt
        (every seat's: the hand's first follower doubts at turn 1), so a reveal and a pickup
        happen whatever the deck deals."""

        doubted = False

        def observe(self, state: Any, event: Mapping[str, Any], known: Mapping[int, Card]) -> None:
            told[self.seat].append(dict(event))
            if event.get("kind") == "deal":
                hands[self.seat] = list(state.hands[self.seat])
            if event.get("kind") == "action" and event["action"].get("type") == "doubt":
                self.doubted = True
            super().observe(state, event, known)

        def choose(self, state: Any, known: Mapping[int, Card]) -> Action:
            if not self.doubted and {"type": "doubt"} in self.game.legal_actions(state, self.seat, known):
                self.doubted = True
                return {"type": "doubt"}
            return super().choose(state, known)

    table = run_loopback("cals-bs", 3, {"match_target": 1}, seats=Told, seed=5)
    table.check()
    transfers = [e for e in told[0] if e["kind"] == "transfer"]
    assert transfers, [e["kind"] for e in told[0]]
    takers = {e["to"] for e in transfers}
    for seat in range(3):
        kinds = [e["kind"] for e in told[seat]]
        assert {"shuffle", "deal", "action", "reveal", "transfer"} <= set(kinds), kinds
        # Its own deal only: the handles it was told are the hand it was dealt.
        deals = [e for e in told[seat] if e["kind"] == "deal"]
        assert len(deals) == 1 and sorted(deals[0]["handles"]) == sorted(hands[seat])
        # Every move of the table, each once, in order.
        turns = [e["index"] for e in told[seat] if e["kind"] == "action"]
        assert turns == list(range(len(turns))) and turns, turns
        # Every seat hears of every pickup (who took it and the new handles; never the faces).
        assert [e for e in told[seat] if e["kind"] == "transfer"] == transfers
    assert takers <= {0, 1, 2}


def test_strategic_bots_at_a_networked_table_end_a_hand_in_a_few_dozen_moves(tmp_path):
    """In 1000 simulated single hands of 3 strategic bots the longest took 208 moves (the median
    60). Told nothing, they took 3,000 and more, until the log's budget or the time ran out."""
    table = run_loopback("cals-bs", 3, {"match_target": 1}, seats="strategic", seed=2, transcript_dir=tmp_path)
    table.check()
    transcript = read_transcript(table.transcripts[0])
    moves = [e for e in transcript.entries if e.kind == "action"]
    assert 0 < len(moves) < 400, len(moves)


def test_a_bot_that_took_over_a_persons_seat_is_told_what_follows():
    told: list[tuple[int, str]] = []

    class Recorder:
        async def choose(self, session, seat):  # pragma: no cover - not asked here
            raise AssertionError

        def observe(self, session, seat, event):
            told.append((seat, event["kind"]))

    seat = HumanSeat()
    seat.observe(None, 1, {"kind": "action"})  # a person plays it: nothing to tell
    seat.hand_over(Recorder())
    seat.observe(None, 1, {"kind": "reveal"})
    assert told == [(1, "reveal")]

"""The table's drop-out move (issue 30, protocol/table.md section 4 "Dropping out"), decided
from signed entries alone: synchronous, no trio, real signed entries, the real rules of Cal's
BS. Who dropped out and what a seat may sign after (table/dropouts.py, one rule for the live
table and verify), the protocol's use of it, the absent statements that no longer wait for a
dropped seat, and Replica.turn_drop's checks."""

from __future__ import annotations

import pytest

from p2pcards.engine import DROP_OUT
from p2pcards.game import IllegalAction, Turn
from p2pcards.plugins import load_plugins
from p2pcards.table.dropouts import DropOuts, is_drop_out_entry
from p2pcards.table.protocol import AbsentIn, MoveIn, Named, Stop, TableProtocol

from .test_absence import GONE, HEADER, IDS, TURN, WIRE, Seats

DROPPER = 1


def _drop(seats, seat=DROPPER, turn=5):
    return seats.sign(seat, "action", {"turn": turn, "action": {"type": DROP_OUT}})


def test_a_move_after_a_drop_out_is_its_signers_fault_and_nothing_else_is():
    seats = Seats()
    drops = DropOuts()
    before = seats.sign(DROPPER, "action", {"turn": 1, "action": {"type": "pass"}})
    drop = _drop(seats)
    chat = seats.sign(DROPPER, "chat", {"text": "bye all"})
    deck = seats.sign(DROPPER, "deck", {"msg": {"type": "drop", "op": 3, "handles": [], "scalars": []}})
    result = seats.sign(DROPPER, "result", {"result": {}, "violations": []})
    assert [drops.note(e) for e in (before, drop, chat, deck, result)] == [None] * 5
    assert is_drop_out_entry(drop) and not is_drop_out_entry(before)
    assert drops.seq == {DROPPER: drop.seq}
    for kind, body in (
        ("action", {"turn": 6, "action": {"type": "pass"}}),
        ("absent", {"turn": 6, "seat": 2}),
        ("open", {"turn": 6, "open": {}, "nonce": bytes(32)}),
    ):
        late = seats.sign(DROPPER, kind, body)
        assert "after dropping out" in drops.note(late)
    # Another seat's moves are no concern of it.
    other = seats.sign(2, "action", {"turn": 5, "action": {"type": "pass"}})
    assert drops.note(other) is None


def test_the_protocol_names_a_move_after_a_drop_out_at_once():
    seats = Seats()
    me = TableProtocol(IDS[0], HEADER, WIRE, 0)
    me.linked.update({1, 2, 3})
    drop = _drop(seats)
    me.receive(DROPPER, drop.to_wire(), 0.0)
    effects = me.meaning(me.next_ready())
    assert [type(e) for e in effects] == [MoveIn] and effects[0].action == {"type": DROP_OUT}
    assert DROPPER in me.absences.gone
    late = seats.sign(DROPPER, "action", {"turn": 6, "action": {"type": "pass"}})
    me.receive(DROPPER, late.to_wire(), 0.0)
    effects = me.meaning(me.next_ready())
    assert [e.seat for e in effects if isinstance(e, Named)] == [DROPPER]
    assert [e.aborted.seat for e in effects if isinstance(e, Stop)] == [DROPPER]


def test_a_goodbye_after_a_drop_out_ends_nothing():
    seats = Seats()
    me = TableProtocol(IDS[0], HEADER, WIRE, 0)
    me.linked.update({1, 2, 3})
    for entry in (_drop(seats), seats.sign(DROPPER, "bye", {"reason": "off to bed"})):
        me.receive(DROPPER, entry.to_wire(), 0.0)
        effects = me.meaning(me.next_ready())
    assert effects == [] and not me.left and me.aborted is None


def test_absent_statements_no_longer_wait_for_a_seat_that_dropped_out():
    """Seat 1 dropped out: once seats 0 and 3 (all the others still in play) state seat 2
    absent, the table passes for it."""
    seats = Seats()
    me = TableProtocol(IDS[0], HEADER, WIRE, 0)
    me.linked.update({1, 2, 3})
    me.receive(DROPPER, _drop(seats, turn=TURN - 1).to_wire(), 0.0)
    me.meaning(me.next_ready())
    me.sign("absent", lambda: {"turn": TURN, "seat": GONE})
    assert me.passed_for(TURN, GONE) is None
    entry = seats.state_gone(3)
    me.receive(3, entry.to_wire(), 0.0)
    assert me.meaning(me.next_ready()) == [AbsentIn(3, TURN, GONE)]
    assert me.absences.missing(TURN, GONE) == set()
    assert me.passed_for(TURN, GONE) is True


def _cals_bs_at_play(players: int):
    """Cal's BS in play, seat 0 to lead (tests/games/cals_bs/bs_table.py)."""
    if "cals-bs" not in load_plugins().games:
        pytest.skip("cals-bs is not installed")
    from tests.games.cals_bs.bs_table import Table

    return Table(players, {0: "5h Kh"}).replica


def test_turn_drop_takes_only_the_bare_move_at_the_seats_own_turn():
    replica = _cals_bs_at_play(4)
    step = replica.next_step()
    assert isinstance(step, Turn)
    other = (step.seat + 1) % 4
    with pytest.raises(IllegalAction, match="only at its own turn"):
        replica.turn_drop(other, {"type": DROP_OUT})
    with pytest.raises(IllegalAction, match="nothing else"):
        replica.turn_drop(step.seat, {"type": DROP_OUT, "seat": other})
    actions = len(replica.actions)
    replica.turn_drop(step.seat, {"type": DROP_OUT})
    assert replica.dropped == [(step.seat, actions)] and len(replica.actions) == actions
    assert replica.next_step() != step  # the turn goes on round the others


def test_turn_drop_where_the_rules_refuse_it_changes_nothing():
    replica = _cals_bs_at_play(3)  # Cal's BS goes on without a player only with 3 others left
    step = replica.next_step()
    with pytest.raises(IllegalAction, match="at least 3 others"):
        replica.turn_drop(step.seat, {"type": DROP_OUT})
    assert replica.dropped == [] and replica.next_step() == step


def test_a_saved_seat_that_dropped_out_ends_its_game_and_anothers_later_goodbye_does_not():
    """``resume`` closing a seat from its journal (net/ended.py): a seat that dropped out and
    signed its result has ended its game (its end record holds no seed: none is revealed since
    protocol version 12), and another seat's goodbye after its own drop-out does not end the
    game."""
    from p2pcards.net.ended import ended_game

    seats = Seats()
    names = [f"p{s}" for s in range(4)]
    commit = seats.sign(DROPPER, "deck", {"msg": {"type": "commit", "commit": bytes(32)}})
    drop = _drop(seats)
    result = seats.sign(DROPPER, "result", {"result": {}, "violations": []})
    over = ended_game([commit, drop, result], DROPPER, names)
    assert over is not None and over.end.status == "finished"
    assert "seeds" not in over.end.to_wire()
    # Seat 3 dropped out, then said goodbye: for seat 0, the game goes on.
    later = [_drop(seats, seat=3, turn=9), seats.sign(3, "bye", {"reason": "quit"})]
    assert ended_game(later, 0, names) is None
    assert ended_game([seats.sign(2, "bye", {"reason": "quit"})], 0, names) is not None

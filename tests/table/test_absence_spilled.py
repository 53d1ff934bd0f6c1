"""The absent-follower questions asked in the hot path (holds_move, passed_for: at every
statement, at every wake of a seat's wait) read no old entry back from a spilled log (issue 23):
late in a long match a statement about a seat with a long chain must stay cheap."""

from __future__ import annotations

from p2pcards.table.protocol import TableProtocol
from p2pcards.wire.spill import MemorySpill

from ..wire.test_spill_review import CountingSpill
from .test_absence import GONE, HEADER, IDS, TURN, WIRE, Seats


def a_long_chain(move_at=None):
    """Seat 0's protocol over a spilled log, holding 60 entries of GONE (a move for TURN at
    ``move_at`` if given) and seat 1's statement that GONE is absent at TURN."""
    seats = Seats()
    me = TableProtocol(IDS[0], HEADER, WIRE, 0)
    store = CountingSpill()
    me.log.spill_to(store, keep=2)
    me.linked.update({1, 2, 3})
    for n in range(60):
        body = {"turn": TURN if n == move_at else 100 + n, "move": n}
        entry = seats.sign(GONE, "action", body)
        seats.deliver(1, entry)
        me.receive(GONE, entry.to_wire(), 0.0)
        assert me.next_ready() is entry or True
    statement = seats.state_gone(1)
    me.receive(1, statement.to_wire(), 0.0)
    while me.next_ready() is not None:
        pass
    me.absences.add(statement)
    return me, store


def test_a_statement_about_a_long_chain_reads_nothing_back():
    me, store = a_long_chain()
    store.reads = 0
    for _ in range(20):
        assert not me.holds_move(GONE, TURN)
        assert me.passed_for(TURN, GONE) is None  # seat 3 has not stated
    assert store.reads == 0


def test_a_spilled_move_still_counts():
    me, store = a_long_chain(move_at=3)  # long spilled by now
    assert me.log.spilled > 3
    assert me.holds_move(GONE, TURN)
    assert me.passed_for(TURN, GONE) is False
    assert not me.holds_move(GONE, TURN + 1)


def test_the_kept_turns_answer_as_the_entries_do():
    # Whatever a hostile seat puts in "turn", the kept column says what reading the entry says.
    from p2pcards.table.absence import _move_for, move_turn, moved_in

    seats = Seats()
    odd = [7, True, False, 7.0, 7.5, -7, (1 << 64) - 1, 1 << 62, "7", b"7", None, [7], {"t": 7}, 0]
    entries = [seats.sign(GONE, "action", {"turn": t}) for t in odd] + [seats.sign(GONE, "chat", {"turn": 7})]
    turns = [move_turn(e) for e in entries]
    for turn in (0, 1, 7, 8, 1 << 62):
        for count in range(len(entries) + 1):
            assert moved_in(turns, turn, count) == any(_move_for(e, turn) for e in entries[:count])
    assert moved_in(turns, -7, 5) is None


class BrokenSpill(MemorySpill):
    broken = False

    def get(self, seat: int, seq: int) -> bytes:
        if self.broken:
            from p2pcards.wire.spill import SpillError

            raise SpillError("the spill file was deleted")
        return super().get(seat, seq)


def test_an_accusation_about_a_spilled_entry_our_spill_cannot_read_names_nobody():
    # Seat 3 accuses seat 1 about a private deck message in an entry long spilled, and our
    # spill file is gone: we cannot judge. Naming the accuser (its evidence "does not open")
    # or the accused would blame on our disk; the peer's loop must not die either. The game
    # stops naming nobody (the seats that can read the entry judge it).
    from p2pcards.table.protocol import DeckIn, Named, Stop

    seats = Seats()
    me = TableProtocol(IDS[0], HEADER, WIRE, 0)
    store = BrokenSpill()
    me.log.spill_to(store, keep=2)
    me.linked.update({1, 2, 3})
    for n in range(10):
        entry = seats.sign(1, "deck", {"to": [0, 3], "box": b"x" * 8, "n": n})
        seats.deliver(3, entry)
        me.receive(1, entry.to_wire(), 0.0)
        while me.next_ready() is not None:
            pass
    accusation = {"type": "accuse", "step": "open", "op": 1, "evidence": {"sender": 1, "entry": 0, "key": b"k" * 32}}
    entry = seats.sign(3, "deck", {"msg": accusation})
    me.receive(3, entry.to_wire(), 0.0)
    ready = me.next_ready()
    assert ready is not None
    store.broken = True
    effects = me.meaning(ready)
    assert not [e for e in effects if isinstance(e, Named)]
    assert not [e for e in effects if isinstance(e, DeckIn)]
    stops = [e for e in effects if isinstance(e, Stop)]
    assert stops and stops[0].aborted.seat is None, effects

"""Passing for an absent follower, decided from the signed log alone (p2pcards/table/absence.py,
protocol/table.md section 9 "Absent followers"): synchronous, no trio, real signed entries."""

from __future__ import annotations

import pytest

from p2pcards.table.absence import Absences, absent_body, settling
from p2pcards.table.header import Seat, TableHeader
from p2pcards.table.protocol import AbsentIn, TableProtocol
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.identity import Identity
from p2pcards.wire.log import Log

PLAYERS = 4
IDS = [Identity.generate() for _ in range(PLAYERS)]
TABLE = bytes(range(16, 32))
HEADER = TableHeader(
    TABLE,
    "cals-bs",
    "2",
    {},
    tuple(Seat(f"p{s}", IDS[s].public, "127.0.0.1", 2000 + s) for s in range(PLAYERS)),
    4,
    Timeouts(),
)
WIRE = HEADER.to_wire()
GONE, TURN = 2, 7


class Seats:
    """Every seat's own log: each signs as it would, having seen what its log holds."""

    def __init__(self):
        self.logs = [Log(TABLE, WIRE, [i.public for i in IDS]) for _ in range(PLAYERS)]

    def sign(self, seat, kind, body):
        return self.logs[seat].make_entry(IDS[seat], seat, kind, dict(body))

    def deliver(self, seat, *entries):
        for entry in entries:
            self.logs[seat].append(entry)

    def state_gone(self, seat):
        return self.sign(seat, "absent", {"turn": TURN, "seat": GONE})


def decide(statements, chain=()):
    absences = Absences(PLAYERS)
    for entry in statements:
        absences.add(entry)
    return absences.passed(TURN, GONE, list(chain))


def test_every_other_seat_stating_it_absent_without_its_move_passes_for_it():
    seats = Seats()
    statements = [seats.state_gone(s) for s in (0, 1, 3)]
    assert decide(statements[:2]) is None  # one seat has not stated yet: nothing decided
    assert decide(statements) is True


def test_a_move_one_stating_seat_held_stands():
    """The gone seat's move reached seat 3 only: seat 3's statement counts it, so it stands
    (a seat that holds the move never helps void it)."""
    seats = Seats()
    move = seats.sign(GONE, "action", {"turn": TURN, "action": {"type": "doubt"}})
    seats.deliver(3, move)
    statements = [seats.state_gone(s) for s in (0, 1, 3)]
    assert decide(statements, [move]) is False


def test_one_statement_that_counts_the_move_settles_it_at_once():
    """No seat can take its first statement back: one that counts the move decides, even while
    another seat (gone too, say) never states."""
    seats = Seats()
    move = seats.sign(GONE, "action", {"turn": TURN, "action": {"type": "doubt"}})
    seats.deliver(3, move)
    assert decide([seats.state_gone(0)], [move]) is None
    assert decide([seats.state_gone(0), seats.state_gone(3)], [move]) is False


def test_a_move_signed_before_but_held_by_no_stating_seat_is_void():
    seats = Seats()
    move = seats.sign(GONE, "action", {"turn": TURN, "action": {"type": "doubt"}})
    statements = [seats.state_gone(s) for s in (0, 1, 3)]
    assert decide(statements, [move]) is True


def test_a_move_for_another_turn_does_not_count():
    seats = Seats()
    earlier = seats.sign(GONE, "action", {"turn": TURN - 3, "action": {"type": "pass"}})
    seats.deliver(0, earlier)
    statements = [seats.state_gone(s) for s in (0, 1, 3)]
    assert decide(statements, [earlier]) is True


def test_one_seat_stating_twice_is_one_statement():
    seats = Seats()
    statements = [seats.state_gone(0), seats.state_gone(0), seats.state_gone(1)]
    assert decide(statements) is None


@pytest.mark.parametrize(
    "body",
    [
        {"turn": TURN},
        {"turn": "7", "seat": GONE},
        {"turn": True, "seat": GONE},
        {"turn": -1, "seat": GONE},
        {"turn": TURN, "seat": PLAYERS},
        {"turn": TURN, "seat": 0},
        {"turn": TURN, "seat": GONE, "more": 1},
    ],
)
def test_a_malformed_statement_is_refused(body):
    """Seat 0 signs it: a statement about itself is malformed too."""
    assert absent_body({**body, "seen": []}, PLAYERS, 0) is None


def test_the_protocol_hands_on_a_statement_and_names_the_signer_of_a_malformed_one():
    seats = Seats()
    me = TableProtocol(IDS[0], HEADER, WIRE, 0)
    me.linked.update({1, 2, 3})
    good = seats.state_gone(1)
    me.receive(1, good.to_wire(), 0.0)
    ready = me.next_ready()
    assert me.meaning(ready) == [AbsentIn(1, TURN, GONE)]
    bad = seats.sign(3, "absent", {"turn": TURN, "seat": 3})
    me.receive(3, bad.to_wire(), 0.0)
    effects = me.meaning(me.next_ready())
    assert [e.seat for e in effects if type(e).__name__ == "Named"] == [3]


def test_our_own_statement_counts_toward_the_decision():
    seats = Seats()
    me = TableProtocol(IDS[0], HEADER, WIRE, 0)
    me.linked.update({1, 3})
    me.sign("absent", lambda: {"turn": TURN, "seat": GONE})
    for seat in (1, 3):
        entry = seats.state_gone(seat)
        me.receive(seat, entry.to_wire(), 0.0)
        me.meaning(me.next_ready())
    assert me.passed_for(TURN, GONE) is True


# -- which seats may be waiting on statements (absence.settling, fed to referee.Wait.look) ---------


def _settling(seats, absences, seat, turns=TURN, decided=True):
    """absence.settling for ``seat`` as the seat holding ``absences`` sees it, from ``seat``'s
    last signed entry in seat 0's log."""
    log = seats.logs[0]
    count = log.next_seq(seat)
    seen = log.entry(seat, count - 1).body["seen"] if count else None
    return settling(absences, seat, seen, turns, lambda turn, follower: decided)


def _absences(*entries):
    absences = Absences(PLAYERS)
    for entry in entries:
        absences.add(entry)
    return absences


def test_settling_rules():
    """One row per rule: a seat's claim that it waits on statements counts only while its own
    statement is open (referee.Wait.look), and a deck timeout does not charge it meanwhile."""
    seats = Seats()
    s1 = seats.state_gone(1)  # seat 1 states seat 2 absent, having seen nothing else
    seats.deliver(0, s1)
    s3 = seats.state_gone(3)
    seats.deliver(0, s3)
    # no statement of its own: never settling, whatever it says elsewhere
    assert not _settling(seats, _absences(s3), 1)
    assert not _settling(seats, _absences(s1, s3), 0)  # (seat 0 has signed nothing here)
    # its own statement, the statements undecided (a seat has not stated): settling
    assert _settling(seats, _absences(s1, s3), 1, decided=False)
    # decided, but its last entry had not seen seat 3's statement: still settling
    assert _settling(seats, _absences(s1, s3), 1)
    # decided, and its last entry had seen every other statement: settled
    seats.deliver(1, s3)
    seats.deliver(0, seats.sign(1, "chat", {"text": "ok"}))
    assert not _settling(seats, _absences(s1, s3), 1)
    # at the next turn (the statements are about the one just played): the same
    assert not _settling(seats, _absences(s1, s3), 1, turns=TURN + 1)
    # a statement about an older turn than the one just played: settled long ago
    assert not _settling(seats, _absences(s1, s3), 1, turns=TURN + 2, decided=False)
    assert _settling(seats, _absences(s1, s3), 1, turns=TURN + 1, decided=False)


def test_a_statement_of_the_follower_itself_is_not_waited_on():
    """Seat 1 stated seat 2 absent; a statement of seat 2 (about seat 3, at the same turn) is
    not one seat 1 waits on for seat 2's move."""
    seats = Seats()
    s1 = seats.state_gone(1)
    seats.deliver(0, s1)
    by_follower = seats.sign(GONE, "absent", {"turn": TURN, "seat": 3})
    seats.deliver(0, by_follower)
    assert not _settling(seats, _absences(s1, by_follower), 1)

"""The order of a free-order round from signed entries (p2pcards/table/rounds.py): what each
response's author had seen (its head echo) comes first; concurrent responses go to the seat
nearest the opener's left. Synchronous, real signatures."""

from __future__ import annotations

from p2pcards.game import Round
from p2pcards.table.rounds import order_by_echoes
from p2pcards.wire.identity import Identity
from p2pcards.wire.log import Log

PLAYERS = 4
IDS = [Identity.generate() for _ in range(PLAYERS)]
TABLE = bytes(range(16))
HEADER = {"game": "cals-bs"}


def logs():
    return [Log(TABLE, HEADER, [i.public for i in IDS]) for _ in range(PLAYERS)]


def respond(log, seat, kind):
    return log.make_entry(IDS[seat], seat, "action", {"turn": 5, "action": {"type": kind}})


def test_concurrent_responses_go_to_the_seat_nearest_the_openers_left():
    seat_logs = logs()
    entries = {s: respond(seat_logs[s], s, "doubt") for s in (1, 2, 3)}
    ordered = order_by_echoes(Round((1, 2, 3), 0), {s: e.body["action"] for s, e in entries.items()}, entries, 4)
    assert [s for s, _ in ordered] == [1, 2, 3]
    ordered = order_by_echoes(
        Round((3, 0, 1), 2),
        {s: {"type": "doubt"} for s in (3, 0, 1)},
        {s: respond(logs()[s], s, "doubt") for s in (3, 0, 1)},
        4,
    )
    assert [s for s, _ in ordered] == [3, 0, 1]


def test_a_response_signed_after_seeing_another_comes_after_it():
    seat_logs = logs()
    first = respond(seat_logs[3], 3, "doubt")
    seat_logs[1].append(first)  # seat 1 received seat 3's doubt before it answered
    second = respond(seat_logs[1], 1, "doubt")
    entries = {3: first, 1: second}
    ordered = order_by_echoes(Round((1, 2, 3), 0), {1: {"type": "doubt"}, 3: {"type": "doubt"}}, entries, 4)
    assert [s for s, _ in ordered] == [3, 1]

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


# -- sealed responses (protocol version 8): commit, then open -------------------------------------

from p2pcards.table import rounds  # noqa: E402


def _secret(seat):
    return IDS[seat].secret(rounds.IDENTITY_LABEL)


def _commit(log, seat, action, turn=5):
    entry = log.make_entry(IDS[seat], seat, "action", rounds.sealed_body(_secret(seat), TABLE, seat, turn, action))
    log.append(entry)
    return entry


def _open(log, seat, action, turn=5):
    entry = log.make_entry(IDS[seat], seat, "open", rounds.opening_body(_secret(seat), TABLE, seat, turn, action))
    log.append(entry)
    return entry


def test_a_commitment_hides_its_response_and_opens_only_to_it():
    """Pass and doubt look alike (same shape, same length); the opening matches its own
    commitment only; a seat's own box gives it its response back (after a restart)."""
    log = logs()[0]
    passed = rounds.sealed_body(_secret(1), TABLE, 1, 5, {"type": "pass"})
    doubted = rounds.sealed_body(_secret(1), TABLE, 1, 5, {"type": "doubt"})
    assert set(passed) == set(doubted) and len(passed["sealed"]) == len(doubted["sealed"]) == 32
    played = rounds.sealed_body(_secret(1), TABLE, 1, 5, {"type": "play", "cards": [1, 2, 3, 4], "rank": "Q"})
    assert len(passed["box"]) == len(doubted["box"]) == len(played["box"])  # padded alike
    assert rounds.open_box(_secret(1), TABLE, 1, 5, doubted["box"]) == {"type": "doubt"}
    assert rounds.open_box(_secret(2), TABLE, 1, 5, doubted["box"]) is None  # not another seat's
    # The nonce is derived again the same way: a resumed seat opens what it committed to.
    assert rounds.response_secrets(_secret(1), TABLE, 1, 5) == rounds.response_secrets(_secret(1), TABLE, 1, 5)
    assert rounds.response_secrets(_secret(1), TABLE, 1, 5) != rounds.response_secrets(_secret(1), TABLE, 1, 6)
    commits = {s: _commit(log, s, {"type": "pass"}) for s in (1, 2)}
    good = _open(log, 1, {"type": "pass"})
    assert rounds.opening_problem(TABLE, good, commits[1], commits, 5) is None
    assert rounds.moved_before_opening(5, good, None) is None


def test_an_opening_of_another_response_or_before_the_seal_is_a_fault():
    log = logs()[0]
    commits = {1: _commit(log, 1, {"type": "pass"})}
    early = _open(log, 1, {"type": "pass"})  # seat 2's commitment is not in yet
    commits[2] = _commit(log, 2, {"type": "doubt"})
    assert "before the round was sealed" in rounds.opening_problem(TABLE, early, commits[1], commits, 5)
    other = _open(log, 2, {"type": "pass"})  # committed to a doubt
    assert "other than it committed to" in rounds.opening_problem(TABLE, other, commits[2], commits, 5)
    wrong_turn = _open(log, 1, {"type": "pass"}, turn=6)
    assert "turn 6" in rounds.opening_problem(TABLE, wrong_turn, commits[1], commits, 5)


def test_a_second_commitment_before_the_opening_is_a_fault():
    log = logs()[0]
    first = _commit(log, 1, {"type": "pass"})
    second = _commit(log, 1, {"type": "doubt"})
    opening = _open(log, 1, {"type": "pass"})
    assert "committed twice" in rounds.moved_before_opening(5, opening, second)
    assert rounds.parse_commitment(first.body) is not None and rounds.parse_opening(opening.body) is not None

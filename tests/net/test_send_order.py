"""The order in which a peer writes an entry to its connections (p2pcards.net.peer.send_order)."""

from p2pcards.net.peer import send_order


def test_around_the_table_from_the_left():
    assert send_order(2, 5, [0, 1, 3, 4], set()) == [3, 4, 0, 1]
    assert send_order(0, 3, {2: "conn", 1: "conn"}, set()) == [1, 2]


def test_seats_waiting_on_us_come_first():
    # Seat 3 makes the next shuffle pass: it gets our pass before anyone else.
    assert send_order(1, 7, [0, 2, 3, 4, 5, 6], {3}) == [3, 2, 4, 5, 6, 0]
    # Several waiting seats keep their order around the table.
    assert send_order(1, 7, [0, 2, 3, 4, 5, 6], {0, 5}) == [5, 0, 2, 3, 4, 6]


def test_a_waiting_seat_we_are_not_connected_to_is_skipped():
    assert send_order(0, 4, [1, 3], {2}) == [1, 3]

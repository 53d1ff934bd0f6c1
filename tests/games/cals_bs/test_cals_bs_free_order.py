"""Cal's BS in free order (turn_mode=free, rules.md I.29; the seed: after the lead "players play
in arbitrary order, but each player must make a move"). Once a set is placed every other seat
responds once, the responses are put in one order (who acted first: protocol/table.md section
9) and applied while the round goes on; the rest are void. Races are stated with ``saw``: whose
responses a seat had seen when it acted (none: they acted at the same moment)."""

from __future__ import annotations

import pytest

from p2pcards.engine import order_round
from p2pcards.game import IllegalAction, Round, Turn

from .bs_table import Table

FREE = {"turn_mode": "free"}


def test_after_a_lead_every_other_seat_may_respond_in_a_round():
    t = Table(4, {0: "7h 7s 2c"}, **FREE)
    assert t.step() == Turn(0)  # the lead is one seat's
    t.act(0, "play 7h 7s as 7")
    assert t.step() == Round((1, 2, 3), 0)  # from the placer's left; never the placer


def test_two_doubts_together_the_one_nearest_the_placers_left_counts():
    t = Table(4, {0: "7h 2s 2c", 1: "8h", 2: "9h", 3: "Th"}, **FREE)
    t.act(0, "play 2s as 2")
    # Seats 3 and 2 doubt at the same moment; seat 1 passes.
    indices = t.race((3, "doubt"), (2, "doubt"), (1, "pass"))
    assert indices[0] is None and indices[1] is not None  # seat 2 is nearer seat 0's left
    assert t.state.events[-1]["taker"] == 2  # the set was true: the doubter takes the pile


def test_a_doubt_seen_by_another_seat_comes_first_whatever_the_seats():
    t = Table(4, {0: "7h 2s 2c"}, **FREE)
    t.act(0, "play 7h as 2")  # a lie
    # Seat 3 doubted first; seat 1 had seen it when it doubted too.
    indices = t.race((1, "doubt"), (3, "doubt"), (2, "pass"), saw={1: {3}, 2: {3}})
    assert indices[1] is not None and indices[0] is None
    assert t.state.events[-1]["taker"] == 0 and t.state.turn == 3  # the liar takes it; 3 leads


def test_a_doubt_racing_a_pass_and_a_follow():
    t = Table(3, {0: "7h 2s 2c", 1: "2h 9s", 2: "Kd"}, **FREE)
    t.act(0, "play 7h as 2")
    # Seat 1 follows, seat 2 doubts, at the same moment: seat 1 is nearer, so the follow counts
    # and the doubt is void (it was about a set that is no longer on top).
    indices = t.race((2, "doubt"), (1, "play 2h as 2"))
    assert indices[0] is None and indices[1] is not None
    assert t.state.top.owner == 1
    assert t.step() == Round((2, 0), 1)  # a new round on the new set


def test_passes_before_the_decisive_response_are_applied_and_the_rest_are_void():
    t = Table(4, {0: "7h 2s 2c"}, **FREE)
    t.act(0, "play 2s as 2")
    indices = t.race((1, "pass"), (3, "doubt"), (2, "pass"), saw={3: {1}, 2: {1, 3}})
    assert indices[0] is not None and indices[1] is not None and indices[2] is None


def test_everyone_passes_the_placer_leads_again():
    t = Table(3, {0: "7h 2s 2c"}, **FREE)
    t.act(0, "play 2s as 2")
    t.race((1, "pass"), (2, "pass"))
    assert t.step() == Turn(0) and t.state.must_lead  # rule 19


def test_a_seat_acts_at_most_once_per_set():
    t = Table(4, {0: "7h 2s 2c"}, **FREE)
    t.act(0, "play 2s as 2")
    t.replica.act(1, {"type": "pass"})
    assert t.step() == Round((2, 3), 0)
    with pytest.raises(IllegalAction):
        t.replica.act(1, {"type": "doubt"})
    with pytest.raises(IllegalAction, match="passed on this set already"):
        t.game.check(t.state, 1, {"type": "doubt"})
    with pytest.raises(IllegalAction, match="placed the top set"):
        t.game.check(t.state, 0, {"type": "pass"})


def test_responses_to_a_decided_round_never_apply_to_the_next_one():
    """Seat 2's pass was for seat 0's set: once seat 1 placed a new set, it is void, not a pass
    on seat 1's set."""
    t = Table(3, {0: "7h 2s 2c", 1: "2h 9s"}, **FREE)
    t.act(0, "play 2s as 2")
    indices = t.race((1, "play 2h as 2"), (2, "pass"), saw={2: {1}})
    assert indices == [0 + indices[0], None]
    assert t.step() == Round((2, 0), 1) and t.state.passed == []


def test_clockwise_is_the_default_and_unchanged():
    t = Table(3, {0: "7h 2s 2c"})
    t.act(0, "play 2s as 2")
    assert t.step() == Turn(1)


def test_order_round_is_a_total_order_that_respects_what_each_seat_had_seen():
    acts = {s: {"type": "pass"} for s in range(1, 5)}
    # Seat 4 had seen seat 2's; the rest concurrent: nearest the opener's (seat 0) left first.
    assert [s for s, _ in order_round(acts, {4: {2}}, 0, 5)] == [1, 2, 3, 4]
    assert [s for s, _ in order_round({2: {}, 4: {}}, {2: {4}}, 0, 5)] == [4, 2]
    # Claims that contradict each other fall back to seat order.
    assert [s for s, _ in order_round({1: {}, 2: {}}, {1: {2}, 2: {1}}, 0, 3)] == [1, 2]

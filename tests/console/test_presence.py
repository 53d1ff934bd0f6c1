"""What the seat list and the toolbar say about the players as plain data: online, away (with
the grace period left) or gone; the turn clock with the table's limit; cards just picked up;
the bell when the local seat's turn comes."""

from __future__ import annotations

from types import SimpleNamespace

import trio
from prompt_toolkit.formatted_text import fragment_list_to_text

from p2pcards.cards import parse_card
from p2pcards.console.render import ASCII, bell_enabled, hand_fragments, seats_fragments
from p2pcards.console.viewmodel import FRESH_SECONDS, SeatLine, TableModel, TableTracker, clock, seat_facts, turn_clock
from p2pcards.net.peer import Peer
from p2pcards.net.stallclock import StallClock
from p2pcards.session import SeatPresence, TableEvent
from p2pcards.table.referee import Timings
from p2pcards.table.timeouts import Timeouts


def test_clock_and_turn_clock_show_the_limit():
    assert clock(0) == "0:00" and clock(65.9) == "1:05" and clock(3725) == "1:02:05"
    assert turn_clock(12, 600.0) == "0:12 of 10:00"
    assert turn_clock(12, None) == "0:12"
    assert turn_clock(None, 600.0) == ""


def test_seat_line_presence_marks():
    assert SeatLine(0, "bob", (), False, False, "online").presence_text == "online"
    assert SeatLine(0, "bob", (), False, False, "away", 65).presence_text == "away 1:05"
    assert SeatLine(0, "bob", (), False, False, "gone").presence_text == "gone"
    assert SeatLine(0, "bob", (), False, False).presence_text is None  # a table in this process


def _model(seats, hand=(), fresh=()):
    return TableModel("Calypso", tuple(seats), (), tuple(hand), "your hand", "", tuple(fresh))


def test_seats_show_presence_and_keep_columns_whole_when_narrow():
    facts = (("cards", "13"), ("trump", "♠"), ("calypsos", "0"), ("won", "0"), ("score", "0"))
    model = _model(
        [
            SeatLine(0, "you", facts, True, True, "online"),
            SeatLine(1, "bob", facts, False, False, "away", 42),
            SeatLine(2, "carol", facts, False, False, "gone"),
        ]
    )
    wide = fragment_list_to_text(seats_fragments(model, ASCII, 120)).splitlines()
    assert wide[0].startswith("> you    online     cards 13")
    assert wide[1].startswith("  bob    away 0:42  cards 13")
    assert wide[2].startswith("  carol  gone       cards 13")
    narrow = fragment_list_to_text(seats_fragments(model, ASCII, 45)).splitlines()
    assert all(len(line) <= 45 for line in narrow), narrow
    assert narrow[:3] == [  # what does not fit goes under the first column
        "> you    online     cards 13  trump s",
        " " * 18 + "  calypsos 0  won 0",
        " " * 18 + "  score 0",
    ]
    for line in narrow:  # no column cut in two
        assert "sc\n" not in line and not line.rstrip().endswith(("sc", "calyp"))


def test_a_mark_fact_shows_its_label_alone():
    """``{"dropped out": True}`` reads "dropped out" (issue 30's review: "out dropped out" under
    a seat that dropped out); ``False`` hides the mark."""
    view = {"seats": [{"cards": 0, "dropped out": True}, {"cards": 4, "dropped out": False}]}
    facts = seat_facts(view, 2)
    assert facts == [[("cards", "0"), ("dropped out", "")], [("cards", "4")]]
    model = _model([SeatLine(s, n, tuple(facts[s]), False, False, "online") for s, n in enumerate(["carol", "bob"])])
    lines = fragment_list_to_text(seats_fragments(model, ASCII, 120)).splitlines()
    assert lines == ["  carol  online  cards 0  dropped out", "  bob    online  cards 4"]
    narrow = fragment_list_to_text(seats_fragments(model, ASCII, 30)).splitlines()
    assert narrow[:2] == ["  carol  online  cards 0", " " * 15 + "  dropped out"], narrow


def test_hand_highlights_cards_just_picked_up():
    hand = [parse_card(c) for c in ("3s", "9s", "9s", "Kh")]
    fragments = hand_fragments(_model([], hand, [parse_card("9s")]), ASCII)
    fresh = [text for style, text, *_ in fragments if "card.fresh" in style]
    assert fresh == ["9s"]  # one of the two nines: only the one picked up


class FakeSession:
    """Just what a TableTracker reads."""

    def __init__(self, hand):
        self.hand = list(hand)
        self.me = 0
        self.names = ["you", "bob"]
        self.history: list[TableEvent] = []
        self.result = None
        self.phase = "playing"
        self.turn_limit = 600.0
        self.game = SimpleNamespace(commands_help=lambda: "play CARD   play a card", name="test")
        self._subscribers = []

    def subscribe(self, callback):
        self._subscribers.append(callback)

    def publish(self, kind, text="", **data):
        event = TableEvent(kind, text, data)
        self.history.append(event)
        for callback in self._subscribers:
            callback(event)

    def view(self):
        return {"hand": [str(c) for c in self.hand]}

    def known(self):
        return {}


def test_tracker_marks_cards_picked_up_for_a_moment_and_rings_on_my_turn():
    now = [100.0]
    rings = []
    session = FakeSession([parse_card("3s")])
    tracker = TableTracker(session, clock=lambda: now[0], on_my_turn=lambda: rings.append(now[0]))
    session.hand += [parse_card("Kh"), parse_card("Kd")]
    session.publish("transfer", "2 hidden cards go to you", to=0)
    assert sorted(map(str, tracker.fresh_cards())) == ["Kd", "Kh"]
    session.hand.remove(parse_card("Kh"))  # played at once: no longer in the hand
    session.publish("action", "you play Kh", seat=0)
    assert [str(c) for c in tracker.fresh_cards()] == ["Kd"]
    now[0] += FRESH_SECONDS + 0.1
    assert tracker.fresh_cards() == []
    session.publish("turn", "bob to play", seat=1)
    session.publish("turn", "you to play", seat=0)
    assert rings == [now[0]]
    assert tracker.turn_clock() == "0:00 of 10:00"
    now[0] += 75
    assert tracker.turn_clock() == "1:15 of 10:00"


def test_a_whole_hand_dealt_is_not_highlighted():
    session = FakeSession([])
    tracker = TableTracker(session)
    session.hand += [parse_card("3s"), parse_card("Kh")]
    session.publish("deal", "2 cards dealt")
    assert tracker.fresh_cards() == []


def test_bell_is_off_unless_asked_for():
    assert not bell_enabled(False, {})
    assert bell_enabled(True, {}) and bell_enabled(False, {"P2PCARDS_BELL": "1"})


async def test_peer_presence_online_away_with_grace_left_and_gone():
    now = trio.current_time()
    peer = SimpleNamespace(
        seat=0,
        header=SimpleNamespace(timeouts=Timeouts(grace=90.0)),
        timings=Timings.of(Timeouts(grace=90.0)),
        left={3: "bye"},
        protocol=SimpleNamespace(halted={}),
        _away_since={2: now - 30.0, 4: now - 120.0},
        connected=lambda seat: seat == 1,
        clock=StallClock(),  # not running: the trio clock itself
    )
    seen = [Peer.presence(peer, seat) for seat in range(6)]  # type: ignore[arg-type]
    assert [p.state for p in seen] == ["online", "online", "away", "gone", "gone", "away"]
    assert 59 < seen[2].grace_left <= 60  # 90 s of grace, 30 gone
    assert seen[5] == SeatPresence("away")  # not reached yet: no clock


def test_session_presence_is_none_for_a_table_in_this_process(host):
    from .support import table

    session = table(host, "high-card", players=2)
    assert session.presence() is None and session.turn_limit is None
    session.presence_of = lambda seat: SeatPresence("online" if seat == 0 else "away", 12.5)
    assert session.presence() == [SeatPresence("online", 12.5), SeatPresence("away", 12.5)]

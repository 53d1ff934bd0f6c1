"""The table session under trio: a person and bots, with the local dealer."""

import re

import pytest
import trio

from p2pcards.cards import parse_card
from p2pcards.game import IllegalAction, Reveal, Transfer
from p2pcards.plugins import PluginHost
from p2pcards.session import local_session


@pytest.fixture
def host(highcard_path, with_path):
    with_path(highcard_path)
    host = PluginHost()
    host.load_entry_points()
    return host


async def test_a_person_plays_through_the_session(host):
    session = local_session(host, "high-card", players=3, options={"cards": 3}, me=1, deck="local", seed=4)
    events = []
    session.subscribe(events.append)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        with trio.fail_after(5):
            while not session.my_turn:
                await trio.sleep(0.001)
        view_hand = session.state.hands[1]
        assert set(session.known()) >= set(view_hand)
        # Showing a card that is not the best is refused, with the reason.
        worst = min(view_hand, key=lambda h: session.known()[h].rank)
        best = max(view_hand, key=lambda h: session.known()[h].rank)
        if session.known()[worst].rank != session.known()[best].rank:
            with pytest.raises(IllegalAction, match="best card"):
                session.submit({"type": "show", "card": worst})
        with pytest.raises(IllegalAction, match="expected: show CARD"):
            session.parse("play it")
        session.submit(session.parse(f"show {session.known()[best]}"))
    assert session.phase == "done" and session.violations == []
    kinds = [e.kind for e in events]
    assert kinds.count("action") == 3 and kinds[-1] == "done"
    assert any(e.kind == "turn" and e.data["seat"] == 1 for e in events)


async def test_submit_out_of_turn_is_refused(host):
    session = local_session(host, "high-card", players=2, me=1, deck="local", seed=1)
    with pytest.raises(IllegalAction, match="not your turn"):
        session.submit({"type": "show", "card": 0})


async def test_bots_only_table_runs_to_the_end(host):
    session = local_session(host, "high-card", players=4, me=None, deck="local", seed=9)
    result = await session.run()
    assert result.winners and session.phase == "done"


async def test_a_person_in_a_free_order_round_answers_or_is_passed_for_at_once(autojump_clock):
    """Cal's BS in free order: while a set is on top the person may answer at any moment;
    once a bot's answer decides the round first, the person's seat passes at once (its
    answer would come after) and a late input is refused, never kept for the next set."""
    from p2pcards.game import Round
    from p2pcards.plugins import load_plugins

    session = local_session(
        load_plugins(),
        "cals-bs",
        players=3,
        options={"turn_mode": "free", "match_target": 1},
        me=0,
        deck="local",
        seed=5,
    )
    submitted = passed_for = 0
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        with trio.fail_after(3600):
            while session.result is None and (submitted < 3 or passed_for < 3):
                await trio.sleep(0.01)
                step = session.step
                if not (isinstance(step, Round) and session.my_turn):
                    continue
                # The person waits (the bots take 0.3-1.5 s); if a bot decides the set, the
                # seat is passed for; if both bots pass, the round waits for the person.
                with trio.move_on_after(2):
                    while session.step is step and session.my_turn:
                        await trio.sleep(0.01)
                if session.step is step and session.my_turn:
                    session.submit({"type": "pass"})
                    submitted += 1
                    with pytest.raises(IllegalAction):  # one answer per set, even typed quickly
                        session.submit({"type": "doubt"})
                else:
                    passed_for += 1
                while session.step is step:
                    await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    assert submitted and passed_for
    mine = [e for e in session.history if e.kind == "responded" and e.data["seat"] == 0]
    assert all(e.data["action"] == {"type": "pass"} for e in mine)  # the refused doubt never played


# -- the story of the game (issue 22) --------------------------------------------------------


def _story_run(game: str, seed: int, names: list[str], **options):
    from p2pcards.plugins import load_plugins

    session = local_session(load_plugins(), game, me=None, deck="local", seed=seed, names=names, options=options)
    events = []
    session.subscribe(events.append)
    trio.run(session.run)
    return session, events


def test_a_table_tells_the_story_by_name_and_a_play_turned_up_at_once_in_one_line():
    from p2pcards.console.viewmodel import TableTracker

    session, events = _story_run("crazy-eights", 1, ["alice", "bob"])
    coin = next(e for e in events if e.kind == "coin")
    assert coin.text in ("alice deals (drawn by lot)", "bob deals (drawn by lot)")  # not "dealer: 0"
    assert coin.data["story"] == [{"event": "dealer", "seat": coin.data["value"]}]
    plays = [i for i, e in enumerate(events) if e.kind == "action" and e.data["action"]["type"] == "play"]
    assert plays and all(events[i].data.get("reveal_follows") for i in plays)
    for i in plays:  # the reveal that follows says the move with its face
        reveal = events[i + 1]
        assert reveal.kind == "reveal" and reveal.data["index"] == events[i].data["index"]
        assert reveal.data["seat"] == events[i].data["seat"] and reveal.data["action"] == events[i].data["action"]
        assert re.fullmatch(r"(alice|bob) play \w+( naming \w+)?", reveal.text), reveal.text
    out = [e for e in events if e.kind == "story" and e.data["entry"]["event"] == "out"]
    assert len(out) == 1 and re.fullmatch(r"(alice|bob) goes out with \w+", out[0].text)
    done = events[-1]
    assert done.kind == "done" and done.text.startswith(("alice", "bob")) and done.data["result"]["winners"]
    assert not [e.text for e in events if re.search(r"\bseats? \d", e.text)]  # names, never "seat 1"
    # The console shows one line per card played, said as the other seats say it.
    lines = [line.text for line in TableTracker(session).log]
    assert not [line for line in lines if "a card" in line]
    assert sum(bool(re.fullmatch(r"(alice|bob) plays \w+( naming \w+)?", line)) for line in lines) == len(plays)


def test_a_pile_taken_after_a_doubt_is_not_called_hidden_and_the_doubt_says_who_was_right():
    session, events = _story_run("cals-bs", 3, ["alice", "bob", "carol"], match_target=1)
    transfers = [e for e in events if e.kind == "transfer"]
    assert transfers and all(e.data["shown"] for e in transfers)  # a doubted set is in every pile taken
    for event in transfers:
        assert "hidden" not in event.text and "seen face up" in event.text, event.text
    for event in events:
        if event.kind == "reveal":
            assert re.match(r"(alice|bob|carol) (shows|plays) ", event.text), event.text
    doubts = [e for e in events if e.kind == "story" and e.data["entry"]["event"] == "doubt"]
    assert doubts and all(" lied: " in e.text or " was wrong to doubt: " in e.text for e in doubts)
    assert [e for e in events if e.kind == "story" and e.data["entry"]["event"] == "hand won"]


def test_deck_lines_say_who_shows_cards_and_call_hidden_only_cards_never_seen():
    from p2pcards.plugins import load_plugins

    session = local_session(load_plugins(), "crazy-eights", me=None, deck="local", names=["alice", "bob"])
    step = Reveal((4, 5), 1)
    faces = {4: parse_card("Qd"), 5: parse_card("Qh")}
    assert session._deck_text(step, {"kind": "reveal", "faces": faces}) == "bob shows Q♦ Q♥"
    assert (
        session._deck_text(Reveal((4,), None), {"kind": "reveal", "faces": {4: faces[4]}})
        == "turned face up from the stock: Q♦"
    )
    session.names = ["alice", "you"]  # a console's own player
    assert session._deck_text(step, {"kind": "reveal", "faces": faces}) == "you show Q♦ Q♥"
    session.names = ["alice", "bob"]

    def moved(handles: tuple[int, ...]) -> str:
        return session._deck_text(Transfer(handles, 1), {"kind": "transfer", "handles": [90, 91, 92], "to": 1})

    assert moved((1,)) == "1 hidden card goes to bob"
    assert moved((1, 2, 3)) == "3 hidden cards go to bob"
    session._shown = {1, 2}
    assert moved((1, 2, 3)) == "3 cards go to bob (2 of them seen face up)"
    assert moved((1, 2)) == "2 cards go to bob (seen face up)"


def test_a_long_match_keeps_the_newest_events_not_all_of_them(host):
    # Issue 23: a session's history must not grow with the match; the console keeps its own log.
    from p2pcards.session import HISTORY_EVENTS

    session = local_session(host, "high-card", players=3, options={"cards": 3}, me=1, deck="local", seed=4)
    heard = []
    session.subscribe(heard.append)
    for n in range(3 * HISTORY_EVENTS):
        session.publish("chat", f"line {n}")
        assert len(session.history) <= HISTORY_EVENTS
    assert len(heard) == 3 * HISTORY_EVENTS  # every event still reaches the subscribers
    assert session.history[-1].text == f"line {3 * HISTORY_EVENTS - 1}"
    assert [e.text for e in session.history] == [e.text for e in heard[-len(session.history) :]]

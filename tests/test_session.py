"""The table session under trio: a person and bots, with the local dealer."""

import pytest
import trio

from p2pcards.game import IllegalAction
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

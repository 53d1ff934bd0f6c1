"""Free order at a networked table (protocol version 8, protocol/table.md section 9): the console
log of a seat shows each follower's sealed answer as "X has answered" (never what it was) until
every follower has answered, then the opened answers; a player who never types is passed for by
its own client at the turn timeout (its commitment), and every game ends and verifies. Over
loopback TCP with real peers; trio's virtual clock (the bots' reaction times take no real time)."""

from p2pcards.console.viewmodel import TableTracker
from p2pcards.net import seats as net_seats
from p2pcards.session import HumanSeat
from p2pcards.table.timeouts import Timeouts
from p2pcards.testing import play_loopback

FREE = {"match_target": 1, "turn_mode": "free"}


async def test_the_log_shows_who_answered_then_the_opened_answers(autojump_clock):
    trackers = {}

    def watch(peer):
        trackers[peer.seat] = TableTracker(peer.session)

    table = await play_loopback("cals-bs", 3, FREE, seats="strategic", seed=3, reaction=0.05, on_peer=watch)
    assert all(o.aborted is None and o.result is not None for o in table.outcomes), [o.aborted for o in table.outcomes]
    for tracker in trackers.values():
        lines = [line.text for line in tracker.log]
        answered = [i for i, text in enumerate(lines) if text.endswith("has answered")]
        assert answered, lines[:40]
        # An answer is shown as answered before any opened answer of its round: the first
        # "has answered" line comes before the first opened response of a free-order round.
        first_opened = next(
            (i for i, text in enumerate(lines) if i > answered[0] and ("doubt" in text or "pass" in text)), None
        )
        assert first_opened is not None, lines[:40]
        # Nothing of an answer's content is in its "has answered" line.
        assert all(lines[i].split()[-2:] == ["has", "answered"] for i in answered)


async def test_an_idle_follower_commits_to_a_pass_by_its_own_client(monkeypatch, autojump_clock):
    monkeypatch.setattr(net_seats, "IDLE_SHARE", 0.5)
    notices = []

    def watch(peer):
        if peer.seat == 0:
            peer.session.subscribe(lambda e: notices.append(e.text) if e.kind == "notice" else None)

    # A game may never make seat 0 a follower (a lead player whose truthful sets are doubted
    # and lost leads again, and may go out so): a few games, until one does.
    for seed in range(5):
        table = await play_loopback(
            "cals-bs",
            3,
            FREE,
            seats=[HumanSeat(), "random", "random"],  # seat 0: a person who never types anything
            seed=seed,
            timeouts=Timeouts(deck=20, turn=0.4, grace=5),
            on_peer=watch,
        )
        outcomes = table.outcomes
        assert all(o.aborted is None and o.result is not None for o in outcomes), [o.aborted for o in outcomes]
        if any("time is up: passes for you" in n or "time is up: pass" in n for n in notices):
            break
    else:
        raise AssertionError(f"seat 0 was never an idle follower in 5 games: {notices[:10]}")

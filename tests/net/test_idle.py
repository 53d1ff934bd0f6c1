"""Rule 28 over the network: a connected player who lets the turn time run out has their own
client act for them (Cal's BS: a follower passes, a lead player leads one card as its rank)."""

from p2pcards.net import seats as net_seats
from p2pcards.session import HumanSeat
from p2pcards.table.timeouts import Timeouts
from p2pcards.testing import play_loopback


async def test_an_idle_player_is_passed_for_and_leads_by_their_own_client(monkeypatch, autojump_clock):
    # The idle client acts at half the turn time here (90% in play): 0.2 s before the others'
    # deadline, with short idle turns. Time is trio's virtual clock: it jumps only when every
    # task of every peer waits and no socket has anything to read, so a loaded machine cannot
    # eat into that margin (real seconds did), and the idle turns take no real time.
    monkeypatch.setattr(net_seats, "IDLE_SHARE", 0.5)
    notices = []

    def watch(peer):
        if peer.seat == 0:
            peer.session.subscribe(lambda e: notices.append(e.text) if e.kind == "notice" else None)

    table = await play_loopback(
        "cals-bs",
        3,
        {"match_target": 1},
        seats=[HumanSeat(), "random", "random"],  # seat 0: a person who never types anything
        seed=5,
        timeouts=Timeouts(deck=20, turn=0.4, grace=5),
        on_peer=watch,
    )
    outcomes = table.outcomes
    assert all(o.aborted is None and o.result is not None for o in outcomes), [o.aborted for o in outcomes]
    assert any("time is up: passes for you" in n or "time is up: pass" in n for n in notices), notices[:5]
    assert any("time is up" in n and "as" in n for n in notices), notices[:5]

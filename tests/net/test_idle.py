"""Rule 28 over the network: a connected player who lets the turn time run out has their own
client act for them (Cal's BS: a follower passes, a lead player leads one card as its rank)."""

import random

import trio

from p2pcards.net import seats as net_seats
from p2pcards.net.runner import bot_agent, host_table, join_table
from p2pcards.plugins import load_plugins
from p2pcards.session import HumanSeat
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.identity import Identity

LOOPBACK = "127.0.0.1"


async def test_an_idle_player_is_passed_for_and_leads_by_their_own_client(monkeypatch):
    # The idle client acts at half the turn time here (90% in play): 0.2 s before the others'
    # deadline, which a loaded machine does not eat (0.03 s did), with short idle turns.
    monkeypatch.setattr(net_seats, "IDLE_SHARE", 0.5)
    host = load_plugins()
    game = host.game("cals-bs")
    notices = []

    def asleep(game, seat, options):
        return HumanSeat()  # a person who never types anything

    def watch(peer):
        peer.session.subscribe(lambda e: notices.append(e.text) if e.kind == "notice" else None)

    outcomes = []
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            port = trio.Event()
            ports = []

            async def run_host():
                outcomes.extend(
                    await host_table(
                        host,
                        Identity.generate(),
                        "cals-bs",
                        options={"match_target": 1},
                        players=3,
                        agent=asleep,
                        name="idle",
                        interface=LOOPBACK,
                        announce=False,
                        bots=1,
                        bot_name="random",
                        timeouts=Timeouts(deck=20, turn=0.4, grace=5),
                        on_port=lambda p: (ports.append(p), port.set()),
                        on_peer=watch,
                    )
                )

            async def run_joiner():
                await port.wait()
                outcomes.append(
                    await join_table(
                        host,
                        Identity.generate(),
                        LOOPBACK,
                        ports[0],
                        name="bot",
                        agent=bot_agent(host, game, "random", random.Random(5)),
                        listen_host=LOOPBACK,
                    )
                )

            nursery.start_soon(run_host)
            nursery.start_soon(run_joiner)
    assert all(o.aborted is None and o.result is not None for o in outcomes), [o.aborted for o in outcomes]
    assert any("time is up: passes for you" in n or "time is up: pass" in n for n in notices), notices[:5]
    assert any("time is up" in n and "as" in n for n in notices), notices[:5]

"""A seat whose program could not connect to every seat never joined the game: nobody says it
left, nobody is named, and verify says the game never started (issue 30, review). Everything on
127.0.0.1; bob tells the others to dial him at a port nobody listens on, so carol cannot reach
him (nor he her: of each pair the higher seat dials)."""

from __future__ import annotations

import random
import socket

import trio

from p2pcards.net.runner import bot_agent, host_table, join_table
from p2pcards.plugins import load_plugins
from p2pcards.table.referee import Links, gone_verdict
from p2pcards.testing.loopback import LOOPBACK
from p2pcards.verify import EXIT_NOT_STARTED, verify_file
from p2pcards.wire.identity import Identity
from p2pcards.wire.transcript import read_transcript


def _unused_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


async def test_a_seat_that_could_not_connect_is_not_said_to_have_left(tmp_path, autojump_clock):
    # (Virtual time: the mesh's 20 s and bob's grace pass at once.)
    plugins = load_plugins()
    game = plugins.game("crazy-eights")
    out = {}
    port = trio.Event()
    ports: list[int] = []
    bob_seated = trio.Event()
    with trio.fail_after(300):
        async with trio.open_nursery() as nursery:

            async def host() -> None:
                out["alice"] = (
                    await host_table(
                        plugins,
                        Identity.generate(),
                        "crazy-eights",
                        options={},
                        players=3,
                        agent=bot_agent(plugins, game, "random", random.Random(1)),
                        name="alice",
                        interface=LOOPBACK,
                        announce=False,
                        transcript_dir=tmp_path,
                        on_port=lambda p: (ports.append(p), port.set()),
                    )
                )[0]

            async def join(name: str, advertise: tuple[str, int] | None) -> None:
                await port.wait()
                if name == "carol":
                    await bob_seated.wait()
                out[name] = await join_table(
                    plugins,
                    Identity.generate(),
                    LOOPBACK,
                    ports[0],
                    name=name,
                    agent=bot_agent(plugins, game, "random", random.Random(2)),
                    listen_host=LOOPBACK,
                    transcript_dir=tmp_path,
                    advertise=advertise,
                    on_seated=(lambda seat, terms: bob_seated.set()) if name == "bob" else None,
                )

            nursery.start_soon(host)
            nursery.start_soon(join, "bob", (LOOPBACK, _unused_port()))
            nursery.start_soon(join, "carol", None)
    assert out["bob"].aborted.reason == "could not connect to carol"
    assert out["carol"].aborted.reason == "could not connect to bob"
    # alice reached both: bob went away before signing anything, and nobody is named.
    alice = out["alice"].aborted
    assert alice.seat is None and alice.reason.startswith("bob could not join the game"), alice.reason
    for name, outcome in out.items():
        transcript = read_transcript(outcome.transcript)
        assert not [e for e in transcript.entries if e.kind == "bye"], name  # no goodbye signed
        report = verify_file(outcome.transcript)
        # Not a failure, nor a goodbye: a game that never started (exit 5, issue 30).
        assert report.status == EXIT_NOT_STARTED and report.problem.seat is None, (name, report.problem_line())
        assert report.verdict == "not-started"
        line = report.to_text().splitlines()[1]
        assert line.startswith("verdict: NOT STARTED: bob and carol signed nothing at this table"), line
        assert "FAILED" not in line and "left" not in line and "to blame:" not in line, line
        assert "the game never started; nobody is to blame" in line


def test_a_goodbye_before_any_entry_names_nobody():
    """The referee's words (table/referee.py): a seat that left having signed nothing never
    joined; one that left after signing is named as before; one that only went silent too."""
    names = ["alice", "bob", "carol"]
    base = dict(me=0, players=3, now=100.0, wall=100.0, connected=frozenset({2}))
    never = gone_verdict(Links(**base, left=frozenset({1}), unsigned=frozenset({1})), names, 1, "deck")
    assert never.seat is None and never.reason.startswith("bob could not join the game")
    left = gone_verdict(Links(**base, left=frozenset({1})), names, 1, "deck")
    assert left.seat == 1 and left.reason == "bob left and did not come back in time"
    silent = gone_verdict(Links(**base, unsigned=frozenset({1})), names, 1, "deck")
    assert silent.seat == 1

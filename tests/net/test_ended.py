"""Leaving and coming back (issue 22, section 4): a seat whose game cannot go on is told so
within seconds, and its saved folder is cleaned up; a seat whose game may still go on is kept.

Three seats of Cal's BS on 127.0.0.1 (no zeroconf): the host, its bot peer, and dave, whose
seat is saved in his own data folder as ``p2pcards join`` saves it."""

from __future__ import annotations

import random
import shutil
import time

import pytest
import trio

from p2pcards import cli
from p2pcards.net import table as table_module
from p2pcards.net.ended import game_over_in
from p2pcards.net.peer import Peer
from p2pcards.net.runner import bot_agent, host_table, join_table
from p2pcards.net.table import GameEnded, resume_seat
from p2pcards.plugins import load_plugins
from p2pcards.table.timeouts import Timeouts
from p2pcards.verify import verify_file
from p2pcards.wire.identity import Identity
from p2pcards.wire.transcript import read_transcript

LOOPBACK = "127.0.0.1"
pytestmark = pytest.mark.skipif("cals-bs" not in load_plugins().games, reason="cals-bs is not installed")


async def _killed_say_goodbye(self: Peer, reason: str) -> None:
    """What a program killed with SIGKILL says: nothing. The system closes its sockets."""
    with trio.CancelScope(shield=True):
        for conn in list(self.connections.values()):
            await conn.aclose()


def dave_leaves(tmp_path, *, grace: float, host_waits: bool = True) -> tuple[list, trio.Event]:
    """Play until dave's seat has made some moves, then dave's program stops (cancelled: 'quit'
    or Ctrl-C, or a kill where the test patched that in). With ``host_waits`` the host's table
    is played to its end; else it is stopped too, as dave is. Returns the host's outcomes."""
    host = load_plugins()
    game = host.game("cals-bs")
    outcomes: list = []
    moves = trio.Event()

    def watch(peer):
        def seen(event):
            if event.kind == "action" and peer.turns >= 6:
                moves.set()

        peer.session.subscribe(seen)

    async def main():
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                port, ports = trio.Event(), []

                async def run_host():
                    with trio.CancelScope() as scope:
                        hosts.append(scope)
                        outcomes.extend(
                            await host_table(
                                host,
                                Identity.generate(),
                                "cals-bs",
                                options={"match_target": 3},
                                players=3,
                                agent=bot_agent(host, game, "random", random.Random(1)),
                                name="ended",
                                interface=LOOPBACK,
                                announce=False,
                                bots=1,
                                bot_name="random",
                                timeouts=Timeouts(deck=20, turn=20, grace=grace),
                                transcript_dir=tmp_path / "host-transcripts",
                                on_port=lambda p: (ports.append(p), port.set()),
                                persist=True,
                                state_home=tmp_path / "host",
                            )
                        )

                async def run_dave():
                    await port.wait()
                    with trio.CancelScope() as leaving:
                        nursery.start_soon(stop_after_some_moves, leaving)
                        await join_table(
                            host,
                            Identity.generate(),
                            LOOPBACK,
                            ports[0],
                            name="dave",
                            agent=bot_agent(host, game, "random", random.Random(2)),
                            listen_host=LOOPBACK,
                            transcript_dir=tmp_path / "transcripts",
                            on_peer=watch,
                            persist=True,
                            state_home=tmp_path / "dave",
                        )

                async def stop_after_some_moves(scope):
                    await moves.wait()
                    scope.cancel()
                    if not host_waits:
                        for other in hosts:
                            other.cancel()

                hosts: list[trio.CancelScope] = []
                nursery.start_soon(run_host)
                nursery.start_soon(run_dave)

    trio.run(main)
    return outcomes, moves


def dave_folders(tmp_path):
    root = tmp_path / "dave" / "tables"
    return sorted(root.iterdir()) if root.is_dir() else []


def test_a_player_who_quits_gets_the_transcript_and_leaves_no_seat_folder(tmp_path):
    outcomes, _ = dave_leaves(tmp_path, grace=60)
    assert outcomes and all("dave left the table" in o.aborted.reason for o in outcomes)
    # Dave's bye is signed: his game cannot go on, so nothing is kept for 'resume'.
    assert dave_folders(tmp_path) == []
    (path,) = (tmp_path / "transcripts").glob("*.p2pt")
    transcript = read_transcript(path)
    assert transcript.complete and transcript.end.status == "abandoned"
    dave = transcript.header.names.index("dave")
    assert transcript.end.absent == (dave,)
    assert any(e.kind == "bye" and e.sender == dave for e in transcript.entries)
    report = verify_file(str(path))
    assert report.problem is not None and report.problem.seat == dave


def test_resume_of_a_seat_whose_player_left_says_so_at_once_and_cleans_up(tmp_path, monkeypatch, capsys):
    # The program died just after signing its goodbye, before it could close the seat.
    monkeypatch.setattr(table_module, "_finish_after_leaving", lambda *args: None)
    dave_leaves(tmp_path, grace=60)
    (folder,) = dave_folders(tmp_path)
    copy = tmp_path / "copy" / folder.name
    shutil.copytree(folder, copy)
    assert game_over_in(folder) is not None
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path / "dave"))
    transcripts = tmp_path / "transcripts"

    started = time.monotonic()
    status = cli.main(["resume", "--transcript-dir", str(transcripts)])
    assert time.monotonic() - started < 3
    out, err = capsys.readouterr()
    assert status == 2 and "no unfinished game to resume" in err
    assert "has ended: you left this game (quit before the game ended)" in out
    assert dave_folders(tmp_path) == []  # cleaned up while looking for a seat to resume
    (path,) = transcripts.glob("*.p2pt")
    assert f"transcript: {path}" in out
    transcript = read_transcript(path)
    assert transcript.complete and transcript.end.status == "abandoned"
    report = verify_file(str(path))  # as the others' transcripts say: dave left
    assert report.problem is not None and report.problem.seat == transcript.header.names.index("dave")

    # Asked for by its folder: the same, with the transcript already there.
    started = time.monotonic()
    status = cli.main(["resume", str(copy), "--transcript-dir", str(transcripts)])
    assert time.monotonic() - started < 3
    out, _ = capsys.readouterr()
    assert status == 1 and "has ended: you left this game" in out
    assert not copy.exists()


@pytest.mark.slow  # games in real time
def test_resume_after_the_table_ended_without_us_says_so_within_seconds(tmp_path, monkeypatch):
    # Dave's program is killed (no goodbye); the others wait the grace period, end the game
    # and go home.
    monkeypatch.setattr(Peer, "say_goodbye", _killed_say_goodbye)
    outcomes, _ = dave_leaves(tmp_path, grace=2)
    assert outcomes and all(o.aborted is not None for o in outcomes)
    (folder,) = dave_folders(tmp_path)
    assert game_over_in(folder) is None  # the journal alone cannot tell
    host = load_plugins()

    async def resume():
        agent = bot_agent(host, host.game("cals-bs"), "random", random.Random(3))
        return await resume_seat(folder, host, agent, transcript_dir=tmp_path / "transcripts")

    started = time.monotonic()
    outcome = trio.run(resume)
    assert time.monotonic() - started < 8
    assert "nobody at the table answered within 5 s" in outcome.aborted.reason
    assert "the game has ended" in outcome.aborted.reason
    assert dave_folders(tmp_path) == []
    transcript = read_transcript(outcome.transcript)
    assert transcript.complete and transcript.end.status == "abandoned"
    # Dave's record stops where his program did: it blames nobody (the seat the game waited on
    # then was not stalling; dave was gone).
    report = verify_file(str(outcome.transcript))
    assert report.status != 0 and report.problem is not None and report.problem.seat is None


@pytest.mark.slow  # games in real time
def test_a_seat_whose_game_may_go_on_stays_saved(tmp_path, monkeypatch):
    """Every program at the table stopped without a goodbye (a power cut, say): the seat that
    comes back first finds nobody, says so, and keeps its folder: the others may come back."""
    monkeypatch.setattr(Peer, "say_goodbye", _killed_say_goodbye)
    dave_leaves(tmp_path, grace=60, host_waits=False)
    (folder,) = dave_folders(tmp_path)
    before = (folder / "journal.p2pt").read_bytes()
    host = load_plugins()

    async def resume():
        agent = bot_agent(host, host.game("cals-bs"), "random", random.Random(3))
        return await resume_seat(folder, host, agent, transcript_dir=tmp_path / "transcripts")

    started = time.monotonic()
    outcome = trio.run(resume)
    assert time.monotonic() - started < 8
    assert "nobody at the table answered within 5 s" in outcome.aborted.reason
    assert "the seat stays saved" in outcome.aborted.reason
    assert outcome.transcript is None and not (tmp_path / "transcripts").exists()
    assert dave_folders(tmp_path) == [folder]
    assert (folder / "journal.p2pt").read_bytes() == before
    assert game_over_in(folder) is None


@pytest.mark.slow  # a game in real time
def test_resume_whose_port_another_program_took_says_so_and_keeps_the_seat(tmp_path, monkeypatch):
    """The others dial a seat at the address the table's header gives it, so a resumed seat
    listens there again. If another program took that port meanwhile, resume says which address
    and what to do, in one line (not "Address already in use" alone), and the seat stays saved
    for the next try."""
    import socket

    from p2pcards.net.lobby import LobbyError
    from p2pcards.net.store import load_seat_state
    from p2pcards.table.header import TableHeader

    monkeypatch.setattr(Peer, "say_goodbye", _killed_say_goodbye)
    dave_leaves(tmp_path, grace=60, host_waits=False)
    (folder,) = dave_folders(tmp_path)
    state = load_seat_state(folder)
    me = TableHeader.from_wire(state.header).seats[state.seat]
    before = (folder / "journal.p2pt").read_bytes()
    host = load_plugins()

    async def resume():
        return await resume_seat(folder, host, lambda *a: None, transcript_dir=tmp_path / "transcripts")

    with socket.socket() as other_program:
        # As a listening program does (dave's links may have left connections in TIME_WAIT).
        other_program.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            other_program.bind((me.host, me.port))
            other_program.listen()
        except OSError:
            pass  # another program did take it meanwhile (a fresh-clone run beside another)
        with pytest.raises(LobbyError) as refused:
            trio.run(resume)
    message = str(refused.value)
    assert f"{me.host}:{me.port}" in message and "resume again" in message and "stays saved" in message
    assert dave_folders(tmp_path) == [folder]
    assert (folder / "journal.p2pt").read_bytes() == before


def test_resume_seat_of_an_ended_game_raises_game_ended(tmp_path, monkeypatch):
    monkeypatch.setattr(table_module, "_finish_after_leaving", lambda *args: None)
    dave_leaves(tmp_path, grace=60)
    (folder,) = dave_folders(tmp_path)
    host = load_plugins()

    async def resume():
        return await resume_seat(folder, host, lambda *a: None, transcript_dir=tmp_path / "transcripts")

    with pytest.raises(GameEnded) as raised:
        trio.run(resume)
    assert "you left this game" in raised.value.reason and raised.value.transcript is not None
    assert dave_folders(tmp_path) == []

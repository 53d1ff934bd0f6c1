"""End to end in a real terminal: ``p2pcards host`` in person inside tmux, on 127.0.0.1, with two
bot peers; at the end of the game ``again`` plays a rematch with the same players (the bots agree
at once), and the running score shows on the end screen and at the next game's start. Skipped
without tmux."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time

import pytest

from p2pcards.plugins import load_plugins
from p2pcards.testing.loopback import unused_port

from .test_terminal import P2PCARDS, TMUX, Terminal, terminal  # noqa: F401  (fixture)

pytestmark = [
    pytest.mark.system,  # a terminal in tmux running p2pcards
    pytest.mark.skipif(TMUX is None, reason="needs tmux (apt-get install tmux)"),
    pytest.mark.skipif("crazy-eights" not in load_plugins().games, reason="crazy-eights is not installed"),
]


def play_crazy_eights(term: Terminal, max_turns: int = 300) -> str:
    """Until the game is over: at each turn ask for the legal moves and play a card that is not
    an eight if there is one, else an eight (naming spades), else draw. The final screen."""
    for _ in range(max_turns):
        found = term.wait_for(r"YOUR TURN|game over:", timeout=30)
        if found.group(0) == "game over:":
            return term.screen()
        term.type_line("legal")
        reply = term.wait_for(r"legal now: ([^\n]+)|[✗!] wait|your turn now|game over:", timeout=20, stable=True)
        if not reply.group(0).startswith("legal now:"):
            continue
        moves = [m.split("(")[0].strip() for m in re.split(r", |; ", reply.group(1))]
        plays = [m for m in moves if re.fullmatch(r"play \w+", m)]
        move = next((m for m in plays if not m.startswith("play 8")), None)
        if move is None and plays:
            move = f"{plays[0]} suit spades"
        term.type_line(move or moves[0])
        term.wait_until(
            lambda screen: re.search(r"^> *$", screen, re.MULTILINE) and "legal now:" not in screen,
            "the move to be taken",
        )
    raise AssertionError("the game did not end:\n" + term.screen())


def _left(screen: str) -> str:
    """The left column (seats, table or end panel, hand), its lines joined: the panel wraps."""
    return " ".join(line.split("│")[0].strip() for line in screen.splitlines())


def _score(screen: str, games: int) -> dict[str, int]:
    """The running score on the end panel."""
    left = _left(screen)
    found = re.search(
        rf"score after {games} games?: ((?:[\w ]+? won \d+(?:, |(?= rematch| no rematch| looking)))+)", left
    )
    assert found, screen
    return {name.strip(): int(wins) for name, wins in re.findall(r"([\w ]+?) won (\d+)(?:,|$)", found.group(1).strip())}


def test_again_plays_a_rematch_with_a_running_score(terminal, tmp_path):
    transcripts = tmp_path / "transcripts"
    term = terminal(
        "host",
        "--game",
        "crazy-eights",
        "--seats",
        "3",
        "--bots",
        "2",
        "--name",
        "carol",
        "--interface",
        "127.0.0.1",
        "--port",  # the rematch's room opens on it again (testing.loopback.unused_port)
        str(unused_port()),
        "--bot-delay",
        "0",
        "--transcript-dir",
        str(transcripts),
        P2PCARDS_HOME=str(tmp_path / "carol"),
    )
    term.wait_for(r"table words: \w+ \w+ \w+ \w+ \w+", timeout=30)
    head = term.wait_for(r"Crazy Eights · 3 players").string
    assert "game 1" not in head and "game 2" not in head, head  # a table of its own has no number
    first = play_crazy_eights(term)
    assert "audit: clean, every card shown checked" in first
    # 'again' is offered at once; the running score comes with the rematch room.
    screen = term.wait_for(r"score after 1 game", timeout=30).string
    after_one = _score(screen, 1)
    assert set(after_one) == {"carol", "strategic bot 1", "strategic bot 2"}, screen
    # One win for each winner: a blocked game's lowest hands may tie (two winners, CI run 13).
    assert 1 <= sum(after_one.values()) <= 3, screen
    # The bots sat down again and agreed at once: only carol is missing.
    term.wait_until(
        lambda screen: re.search(
            r"rematch: type 'again' to play again; agreed: strategic bot \d, strategic bot \d", _left(screen)
        ),
        "both bots to agree",
    )
    term.type_line("again")
    # A new table (new words), game 2, said in words, with the score so far in the log.
    term.wait_for(r"players · rematch: game 2", timeout=30)
    term.wait_for(r"rematch: game 2; score after 1 game", timeout=10)
    second = play_crazy_eights(term)
    assert "audit: clean, every card shown checked" in second
    screen = term.wait_for(r"score after 2 games: ", timeout=30).string
    after_two = _score(screen, 2)
    assert 1 <= sum(after_two.values()) - sum(after_one.values()) <= 3, screen
    assert all(after_two[name] >= wins for name, wins in after_one.items()), screen
    term.wait_for(r"type 'again' for a rematch or 'quit' to leave", timeout=30)
    term.type_line("quit")
    term.wait_for(r"result: ", timeout=20)
    term.wait_for(r"EXITED 0")
    assert len(list(transcripts.glob("*.p2pt"))) >= 2


def test_again_at_game_over_is_taken_at_once_at_80x24(terminal, tmp_path):
    """The end screen offers 'again' the moment the game is over, before the last results are
    in and the rematch room is open: typed then, it is agreed to as soon as the room opens
    (never refused as 'one table per run'), and the rematch starts; so again after game 2.
    At 80x24 the end panel's details are cut before the rematch lines and the hint: those
    stay on the screen (once they were cut off under the transcript's path, and the next
    rematch looked as if it never came)."""
    term = terminal(
        "host",
        "--game",
        "crazy-eights",
        "--seats",
        "3",
        "--bots",
        "2",
        "--name",
        "carol",
        "--interface",
        "127.0.0.1",
        "--port",  # the rematch's room opens on it again (testing.loopback.unused_port)
        str(unused_port()),
        "--bot-delay",
        "0",
        "--transcript-dir",
        str(tmp_path / "transcripts"),
        size=(80, 24),
        P2PCARDS_HOME=str(tmp_path / "carol"),
    )
    term.wait_for(r"Crazy Eights · \d players", timeout=30)
    first = play_crazy_eights(term)
    assert "type 'again' for a rematch" in _left(first), first
    term.type_line("again")
    screen = term.wait_for(r"you agreed to a rematch", timeout=10).string
    assert "one table per run" not in screen
    term.wait_for(r"rematch: game 2", timeout=30)
    second = play_crazy_eights(term)
    assert "type 'again' for a rematch" in _left(second), second
    term.type_line("again")
    term.wait_for(r"game 3", timeout=30)
    play_crazy_eights(term)
    # Once the transcript is saved and the room is open: the score, who agreed and the hint,
    # all on the 80x24 screen.
    screen = term.wait_until(
        lambda screen: "score after 3 games" in _left(screen) and "agreed: strategic bot" in _left(screen),
        "the next rematch on the end panel",
    )
    assert "type 'again' for a rematch or 'quit' to leave" in screen, screen
    term.type_line("quit")
    term.wait_for(r"EXITED 0", timeout=30)


def test_a_host_back_from_resume_offers_again_too(terminal, tmp_path):
    """A host killed mid-game (SIGKILL) and brought back by ``p2pcards resume`` finishes the
    game and offers 'again' as any host does: its bot peers (resumed in programs of their own)
    are seated again by the rematch, and game 2 starts."""
    home = tmp_path / "carol"
    transcripts = tmp_path / "transcripts"
    name = f"carolr{os.getpid()}"
    term = terminal(
        "host",
        "--game",
        "crazy-eights",
        "--seats",
        "3",
        "--bots",
        "2",
        "--name",
        name,
        "--interface",
        "127.0.0.1",
        "--port",  # the rematch's room opens on it again (testing.loopback.unused_port)
        str(unused_port()),
        "--bot-delay",
        "0",
        "--transcript-dir",
        str(transcripts),
        P2PCARDS_HOME=str(home),
    )
    term.wait_for(r"YOUR TURN", timeout=30)
    time.sleep(1.0)
    pids = subprocess.run(["pgrep", "-f", f"python.* host .*--name {name} "], capture_output=True, text=True)
    assert pids.stdout.split(), "the console's process was not found"
    for pid in pids.stdout.split():
        os.kill(int(pid), signal.SIGKILL)
    term.wait_for(r"EXITED 137", timeout=20)
    term.close()
    back = Terminal(
        tmp_path / "back.sock",
        [str(P2PCARDS), "resume", "--transcript-dir", str(transcripts)],
        {
            "LC_ALL": "C.UTF-8",
            "LANG": "C.UTF-8",
            "TERM": "xterm-256color",
            "PATH": os.environ.get("PATH", ""),
            "P2PCARDS_HOME": str(home),
        },
    )
    try:
        play_crazy_eights(back)
        back.wait_for(r"type 'again' for a rematch", timeout=30)
        back.type_line("again")
        back.wait_for(r"rematch: game 2", timeout=60)
        play_crazy_eights(back)
        back.wait_for(r"type 'again' for a rematch or 'quit' to leave", timeout=30)
        back.type_line("quit")
        back.wait_for(r"EXITED 0", timeout=30)
    finally:
        back.close()


def test_a_joiner_who_quits_at_the_end_screen_leaves_the_rematch_to_the_others(terminal, tmp_path):
    """bob (joined in person, 80x24) types 'quit' the moment the game is over, before his
    program has sat down in the rematch's room: it tells the room and ends within seconds, and
    carol's end screen says who left and who plays; her 'again' starts a rematch of two (her
    bot agreed at once)."""
    import threading

    carol = terminal(
        "host",
        "--game",
        "crazy-eights",
        "--seats",
        "3",
        "--bots",
        "1",
        "--name",
        "carol",
        "--interface",
        "127.0.0.1",
        "--port",  # the rematch's room opens on it again (testing.loopback.unused_port)
        str(unused_port()),
        "--bot-delay",
        "0",
        "--transcript-dir",
        str(tmp_path / "carol-transcripts"),
        size=(80, 24),
        P2PCARDS_HOME=str(tmp_path / "carol"),
    )
    port = carol.wait_for(r"is open at[\s│]*127\.0\.0\.1:(\d+)").group(1)
    bob = Terminal(
        tmp_path / "bob.sock",
        [
            str(P2PCARDS),
            "join",
            f"127.0.0.1:{port}",
            "--name",
            "bob",
            "--interface",
            "127.0.0.1",
            "--transcript-dir",
            str(tmp_path / "bob-transcripts"),
        ],
        {
            "LC_ALL": "C.UTF-8",
            "LANG": "C.UTF-8",
            "TERM": "xterm-256color",
            "PATH": os.environ.get("PATH", ""),
            "P2PCARDS_HOME": str(tmp_path / "bob"),
        },
        size=(80, 24),
    )
    try:
        bobs: list[str] = []
        bob_plays = threading.Thread(target=lambda: bobs.append(play_crazy_eights(bob)), daemon=True)
        bob_plays.start()
        play_crazy_eights(carol)
        bob_plays.join(timeout=60)
        assert bobs, bob.screen()
        bob.type_line("quit")
        bob.wait_for(r"EXITED 0", timeout=15)
        screen = carol.wait_until(
            lambda screen: "bob left; the rematch is carol and strategic bot 1" in _left(screen),
            "carol's screen to say who left and who plays",
        )
        assert "type 'again' for a rematch or 'quit' to leave" in screen, screen
        carol.type_line("again")
        carol.wait_for(r"Crazy Eights · 2 players · rematch: game 2", timeout=30)
        play_crazy_eights(carol)
        carol.wait_for(r"type 'again' for a rematch or 'quit' to leave", timeout=30)
        carol.type_line("quit")
        carol.wait_for(r"EXITED 0", timeout=30)
    finally:
        bob.close()

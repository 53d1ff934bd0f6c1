"""End to end in a real terminal: ``p2pcards replay`` of a real transcript (Crazy Eights played
by bot peers over 127.0.0.1), stepped forward and back by keys and commands, then quit. Skipped
without tmux."""

from __future__ import annotations

import os
import re
import shutil

import pytest
import trio

from p2pcards.plugins import load_plugins

from ..history_tables import play_recorded_game
from .test_terminal import P2PCARDS, TMUX, Terminal

pytestmark = [
    pytest.mark.system,  # a terminal in tmux running p2pcards
    pytest.mark.skipif(TMUX is None, reason="needs tmux (apt-get install tmux)"),
    pytest.mark.skipif("crazy-eights" not in load_plugins().games, reason="crazy-eights is not installed"),
]


CARD = re.compile(r"(?<![\w])(10|[2-9JQKA])[♠♥♦♣]")


def step_on(screen: str) -> int:
    found = re.search(r"step (\d+) of (\d+)", screen)
    assert found, screen
    return int(found.group(1))


def test_stepping_through_a_replay(tmp_path):
    played = trio.run(lambda: play_recorded_game(tmp_path, history=False))
    path = played.alice.transcript
    env = {"LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "TERM": "xterm-256color", "PATH": os.environ.get("PATH", "")}
    term = Terminal(tmp_path / "tmux.sock", [str(P2PCARDS), "replay", str(path)], env)
    try:
        screen = term.wait_for(r"step 1 of (\d+)").string
        total = int(re.search(r"step 1 of (\d+)", screen).group(1))
        assert "✓ VERIFIED" in screen and "Crazy Eights" in screen
        assert "Log: what alice saw" in screen  # the seat that saved the file
        # Forward with n, Space and Right; back with p and Left.
        term.keys("n")
        term.wait_for(r"step 2 of")
        term.keys("Space", "Right")
        term.wait_for(r"step 4 of")
        term.keys("p")
        term.wait_for(r"step 3 of")
        term.keys("Left")
        screen = term.wait_for(r"step 2 of").string
        assert "the deck is shuffled" in screen
        # The deal. Issue 32: verify uses no seed, so the file shows no face-down card, alice's
        # own included (they are in boxes only her key opens): a replay shows what the table saw.
        term.keys("n")
        screen = term.wait_for(r"step 3 of").string
        assert "15 cards dealt" in screen
        assert not re.search(r"your hand: 5 cards *│.*\n((?:(?:10|[2-9JQKA])[♠♥♦♣] ?){5}) ", screen), screen
        # Commands: a move by its turn number, another seat, every hand, the end.
        term.type_line("turn 4")
        screen = term.wait_for(r"· turn 4 ").string
        term.type_line("seat 1")  # (who sits where was decided as the peers joined)
        found = term.wait_for(r"Log: what (?!alice )(.+?) saw")  # by name, not "(seat 1)"
        assert f"{found.group(1)}'s hand" in found.string
        term.type_line("all")
        term.wait_for(r"Every hand \(the cards the table saw\)")
        term.keys("End")
        screen = term.wait_for(rf"step {total} of {total}").string
        assert "game over: " in screen
        term.keys("n")
        term.wait_for(r"this is the last step")
        term.type_line("hand 7")
        term.wait_for(r"no hand 7: this game has hands 1 to 1")
        term.keys("C-u", "q")
        term.wait_for(r"EXITED 0", timeout=10)
    finally:
        term.close()

    # The same game saved by a spectator (``p2pcards watch`` saves the players' bytes under
    # watch-TABLE.p2pt): the table's view, no hand, and it says whose file it is.
    watched = tmp_path / f"watch-{path.name.split('-seat')[0]}.p2pt"
    shutil.copy(path, watched)
    term = Terminal(tmp_path / "tmux2.sock", [str(P2PCARDS), "replay", str(watched)], env)
    try:
        screen = term.wait_for(r"step 1 of").string
        assert "a spectator's transcript" in screen and "seeing: the table" in screen
        term.type_line("step 3")  # the deal
        screen = term.wait_for(r"step 3 of").string
        assert "15 cards dealt" in screen and " gets " not in screen and " get " not in screen
        assert "Hands: hidden from the table" in screen and not CARD.search(screen.split("Hands:")[1])
        term.keys("q")
        term.wait_for(r"EXITED 0", timeout=10)
    finally:
        term.close()

"""End to end in a real terminal: ``p2pcards history`` after three real games (Crazy Eights between
alice, a bot of hers and bob, played over 127.0.0.1 by bot peers and recorded as each ended),
then the per-opponent record. Skipped without tmux."""

from __future__ import annotations

import os
import re

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


def test_the_history_after_three_games(tmp_path):
    first = trio.run(lambda: play_recorded_game(tmp_path, seed=1))
    for seed in (2, 3):  # the same two people (their keys), a new bot of alice's each time
        trio.run(lambda seed=seed: play_recorded_game(tmp_path, seed=seed, identities=first.identities))
    env = {
        "LC_ALL": "C.UTF-8",
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "PATH": os.environ.get("PATH", ""),
        "P2PCARDS_HOME": str(first.alice_home),
    }
    command = [str(P2PCARDS), "history", ";", str(P2PCARDS), "history", "--opponents"]
    term = Terminal(tmp_path / "tmux.sock", command, env, size=(120, 34))
    try:
        screen = term.wait_for(r"EXITED 0", timeout=30).string
        games = re.findall(r"^\d{4}-\d\d-\d\d \d\d:\d\d +Crazy Eights +(.+?) won +(\w+) +with (.+)$", screen, re.M)
        assert len(games) == 3, screen
        assert {verdict for _, verdict, _ in games} == {"verified"}, screen
        assert all("bob" in others for _, _, others in games), screen
        # bob is one opponent, told apart by his key, with all three games; each bot a row of its own.
        bob = re.search(r"^bob +([0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}) +(\d+) +(\d+) +(\d+) +(\d+)", screen, re.M)
        assert bob, screen
        assert int(bob.group(2)) == 3, screen
        won, lost, other = (int(bob.group(i)) for i in (3, 4, 5))
        assert won + lost + other == 3, screen
        assert len(re.findall(r"^strategic bot 1 ", screen, re.M)) == 3, screen
        assert "(won, lost and other count finished games that verified" in screen
    finally:
        term.close()

"""protocol/games/*.md against real tables: the deck schedule that the game vectors
(protocol/vectors/games/, ``game-run`` in tests/test_vectors.py) derive from a game's rules
and moves is the one a real table runs.

Each case plays one whole game between bot peers over 127.0.0.1 (each its own process-local
peer with its own keys, sealed boxes and signed log), then replays the transcript's moves with
its header and the seats' seeds (from each seat's own memory, as its data folder holds it: no
seed is revealed since protocol version 12) through the vectors' driver (the game's rules asking, one
``Party`` per seat answering, operations numbered as the schedule pages say). Every public deck
message of the transcript must come out byte for byte, with its operation number, and every
private one (an ``open`` sealed to one seat) between the same pair of seats."""

from __future__ import annotations

import collections
import hashlib
from pathlib import Path

import pytest

from p2pcards.testing import run_loopback
from p2pcards.wire import framing
from p2pcards.wire.sealed import recipients
from p2pcards.wire.transcript import read_transcript

from .. import test_vectors as tv  # the game vectors' driver (one copy: its cache is shared)

CASES = [
    pytest.param("crazy-eights", 3, {"hand_size": 3}, id="crazy-eights"),
    pytest.param("cals-bs", 3, {"match_target": 1}, id="cals-bs"),
    # Slow tier: a whole Calypso game (~7 s); its schedule's rules are run in the fast tier by
    # the Calypso vectors (tests/test_vectors.py), the two other games' tables here.
    pytest.param("calypso", 3, {"mode": "three", "removed_suit": "random"}, marks=pytest.mark.slow, id="calypso"),
    # Slow tier too (~3.5 s): three hands of Hold'em; the Hold'em vectors run its schedule fast.
    pytest.param("holdem", 3, {"starting_stack": 200, "hand_limit": 3}, marks=pytest.mark.slow, id="holdem"),
]


def replay_input(path: Path, seeds: list[bytes]) -> dict:
    """A ``game-run`` vector input from a real transcript (its header and moves) and the seats'
    seeds."""
    transcript = read_transcript(path)
    lobby = transcript.header.lobby
    players = len(lobby["seats"])
    moves = sorted((e.body["turn"], e.sender, e.body["action"]) for e in transcript.entries if e.kind == "action")
    assert [turn for turn, _, _ in moves] == list(range(len(moves)))
    return {
        "game": lobby["game"],
        "rules": lobby["rules"],
        "options": lobby["options"],
        "players": players,
        "header": framing.encode(lobby).hex(),
        "seeds": [seeds[seat].hex() for seat in range(players)],
        "moves": [[seat, action] for _, seat, action in moves],
    }


@pytest.mark.parametrize("game, players, options", CASES)
def test_a_real_table_runs_the_documented_schedule(game, players, options, tmp_path):
    table = run_loopback(game, players, options, seats="strategic", seed=3, transcript_dir=tmp_path)
    paths = [path for path in table.transcripts if path is not None]
    assert len(paths) == players, table.problems()
    transcript = read_transcript(paths[0])
    seeds = [outcome.peer.party._seed for outcome in table.outcomes]
    replayed = tv.KINDS["game-run"](replay_input(paths[0], seeds))

    public, private = collections.Counter(), collections.Counter()
    for entry in transcript.entries:
        if entry.kind != "deck":
            continue
        if "msg" in entry.body:
            message = entry.body["msg"]
            digest = hashlib.sha256(framing.encode(message)).hexdigest()
            public[(message.get("op"), message["type"], entry.sender, digest)] += 1
        else:
            for to in recipients(entry.body):
                private[(entry.sender, to)] += 1
    messages = replayed["messages"]
    assert public == collections.Counter(
        (m["op"], m["type"], m["from"], m["sha256"]) for m in messages if m["to"] is None
    )
    assert private == collections.Counter((m["from"], m["to"]) for m in messages if m["to"] is not None)
    assert replayed["result"] == transcript.end.result
    assert replayed["steps"][-1] == {"op": len([s for s in replayed["steps"] if "op" in s]) - 1, "deck": "audit"}

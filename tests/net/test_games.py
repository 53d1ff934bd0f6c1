"""Whole games between bot peers over loopback TCP, every peer found through real zeroconf on
127.0.0.1, each with its own keys and its own mental-poker party."""

import filecmp
from collections import defaultdict
from pathlib import Path

import pytest

from p2pcards.net.runner import simulate_network
from p2pcards.plugins import load_plugins
from p2pcards.wire.transcript import read_transcript

CASES = [
    ("cals-bs", 3, {"match_target": 1}),
    ("cals-bs", 7, {"match_target": 1, "quads": "on"}),
    ("calypso", 4, {"mode": "partnership"}),
    ("calypso", 4, {"mode": "solo"}),
    ("calypso", 3, {"mode": "three"}),
]


@pytest.mark.slow  # whole games on the mental-poker deck, zeroconf on loopback
@pytest.mark.parametrize(
    "game, players, options", CASES, ids=[f"{g}-{n}-{'-'.join(map(str, o.values()))}" for g, n, o in CASES]
)
async def test_whole_game_over_loopback_with_discovery(game, players, options, tmp_path):
    report = await simulate_network(
        load_plugins(),
        game,
        players=players,
        options=options,
        bots=["strategic"],
        games=1,
        seed=f"net-{game}-{players}",
        transcript_dir=tmp_path,
        interface="127.0.0.1",
        discover=True,
    )
    assert report.problems == []
    assert sum(report.wins) >= 1 or report.draws == 1
    # Every peer wrote the same transcript, byte for byte, and it is complete.
    files = sorted(Path(p) for p in report.transcripts)
    assert len(files) == players
    by_table = defaultdict(list)
    for path in files:
        by_table[path.name.split("-seat")[0]].append(path)
    (same_table,) = by_table.values()
    assert all(filecmp.cmp(same_table[0], other, shallow=False) for other in same_table[1:])
    transcript = read_transcript(same_table[0])
    assert transcript.complete and transcript.end.status == "finished"
    assert "seeds" not in transcript.end.to_wire()  # no seed is revealed (protocol version 12)
    assert not any(e.kind == "deck" and e.body.get("msg", {}).get("type") == "seed" for e in transcript.entries)
    kinds = {entry.kind for entry in transcript.entries}
    assert {"deck", "action", "result"} <= kinds

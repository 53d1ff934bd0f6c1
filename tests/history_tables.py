"""Real games for the history tests: Crazy Eights over loopback TCP (127.0.0.1, no zeroconf)
between alice (the host, with a bot peer of hers) and bob, each recording the game in the
history of a data folder of their own."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path

import trio

from p2pcards.net.runner import bot_agent, host_table, join_table
from p2pcards.net.table import SeatOutcome
from p2pcards.plugins import load_plugins
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.identity import IDENTITY_FILE, Identity

LOOPBACK = "127.0.0.1"


@dataclass
class Played:
    alice_home: Path
    bob_home: Path
    alice: SeatOutcome  # seat 0
    bot: SeatOutcome  # alice's bot peer
    bob: SeatOutcome
    identities: dict[str, Identity]


def save_identity(identity: Identity, home: Path) -> None:
    """Make ``identity`` the data folder's own (as load_or_create_identity leaves it)."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = home / IDENTITY_FILE
    path.write_bytes(identity.to_file_bytes())
    os.chmod(path, 0o600)


async def play_recorded_game(
    folder: Path,
    *,
    history: bool = True,
    seed: int = 1,
    identities: dict[str, Identity] | None = None,
    game_id: str = "crazy-eights",
    options: dict[str, str] | None = None,
    time_limit: float = 60,
) -> Played:
    """Play one whole game (Crazy Eights unless ``game_id``, with ``options``); the
    transcripts go to ``folder/transcripts``, the histories to ``folder/alice-home`` and
    ``folder/bob-home`` (``identities``: alice's and bob's keys, else new ones)."""
    host = load_plugins()
    game = host.game(game_id)
    homes = {"alice": folder / "alice-home", "bob": folder / "bob-home"}
    identities = identities or {name: Identity.generate() for name in homes}
    for name, home in homes.items():
        save_identity(identities[name], home)
    transcripts = folder / "transcripts"
    hosted: list[SeatOutcome] = []
    joined: list[SeatOutcome] = []
    with trio.fail_after(time_limit):
        async with trio.open_nursery() as nursery:
            port = trio.Event()
            ports: list[int] = []

            async def run_host() -> None:
                hosted.extend(
                    await host_table(
                        host,
                        identities["alice"],
                        game_id,
                        options=dict(options or {}),
                        players=3,
                        agent=bot_agent(host, game, "strategic", random.Random(seed)),
                        name="alice",
                        interface=LOOPBACK,
                        announce=False,
                        bots=1,
                        timeouts=Timeouts(deck=20, turn=20, grace=20),
                        transcript_dir=transcripts,
                        on_port=lambda p: (ports.append(p), port.set()),
                        state_home=homes["alice"],
                        history=history,
                    )
                )

            async def run_joiner() -> None:
                await port.wait()
                joined.append(
                    await join_table(
                        host,
                        identities["bob"],
                        LOOPBACK,
                        ports[0],
                        name="bob",
                        agent=bot_agent(host, game, "strategic", random.Random(seed + 1)),
                        listen_host=LOOPBACK,
                        transcript_dir=transcripts,
                        state_home=homes["bob"],
                        history=history,
                    )
                )

            nursery.start_soon(run_host)
            nursery.start_soon(run_joiner)
    return Played(homes["alice"], homes["bob"], hosted[0], hosted[1], joined[0], identities)

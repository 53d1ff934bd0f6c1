"""``p2pcards demo``: a table with bots in the other seats, played in the console.

:func:`demo_table` is the one place where the demo's table is built. Today it is an in-process
table (:func:`p2pcards.session.local_session`); when the network layer is ready it becomes real
peers on 127.0.0.1, and nothing else here needs to change.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..plugins import PluginHost
from ..session import TableSession, local_session

__all__ = ["DemoSettings", "DeckUnavailable", "DemoTables", "ask_game", "ask_variant", "demo_table"]


class DeckUnavailable(RuntimeError):
    """The mental-poker deck is not installed in this build."""


@dataclass
class DemoSettings:
    game_id: str
    players: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: str | None = None
    deck: str = "mental-poker"
    bot_delay: float = 0.8
    #: Your name at the table ("you" unless ``demo --name`` gives one).
    name: str = "you"


def demo_table(host: PluginHost, settings: DemoSettings, seed: str | None) -> TableSession:
    """Build one demo table: the player in seat 0, the game's best bot everywhere else."""
    try:
        return local_session(
            host,
            settings.game_id,
            players=settings.players,
            options=settings.options,
            me=0,
            bot="strategic",
            bot_delay=settings.bot_delay,
            deck=settings.deck,
            seed=seed,
            names=demo_names(settings, host),
        )
    except ImportError as exc:  # p2pcards.deck.backend is not there yet
        raise DeckUnavailable(f"the {settings.deck} deck is not available in this build ({exc})") from None


def demo_names(settings: DemoSettings, host: PluginHost) -> list[str]:
    """ "you" (or your ``--name``), "bot 1", "bot 2" ...: short names keep the seat columns on
    one line."""
    players = settings.players or host.game(settings.game_id).min_players
    return [settings.name] + [f"bot {seat}" for seat in range(1, players)]


class DemoTables:
    """A new table for every game of a demo. With a seed the first game uses it as given and
    later games ``SEED/2``, ``SEED/3`` ..., so a run replays exactly; without one every game
    is fresh."""

    def __init__(self, host: PluginHost, settings: DemoSettings, build: Callable[..., TableSession] = demo_table):
        self.host = host
        self.settings = settings
        self.build = build
        self.count = 0

    def __call__(self) -> TableSession:
        self.count += 1
        seed = self.settings.seed
        if seed is not None and self.count > 1:
            seed = f"{seed}/{self.count}"
        return self.build(self.host, self.settings, seed)


def ask_game(host: PluginHost, *, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> str | None:
    """Ask which installed game to play (before the full-screen app starts); ``None`` to stop."""
    games = sorted(host.games.values(), key=lambda g: g.name.lower())
    if not games:
        return None
    if len(games) == 1:
        return games[0].id
    print("Which game?", file=stdout)
    for number, game in enumerate(games, 1):
        print(f"  {number}. {game.name}  ({game.id}, {game.min_players}-{game.max_players} players)", file=stdout)
    while True:
        print("number or id [1]: ", end="", file=stdout, flush=True)
        answer = stdin.readline()
        if not answer:
            return None
        answer = answer.strip()
        if not answer:
            return games[0].id
        if answer.isdigit() and 1 <= int(answer) <= len(games):
            return games[int(answer) - 1].id
        for game in games:
            if answer.lower() in (game.id, game.name.lower()):
                return game.id
        print(f"no game {answer!r}; type a number from 1 to {len(games)}", file=stdout)


def ask_variant(
    host: PluginHost, game_id: str, *, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout
) -> str | None:
    """Ask which way to play a game with named variants, each said in words ("free order (turn
    order: free order)"); ``""`` for the standard rules, ``None`` to stop."""
    from ..plugins import variant_text

    game = host.game(game_id)
    if not game.variants:
        return ""

    def shown(variant: str) -> str:
        # "free order (turn order: free order)"; a variant named after its one option says it
        # once: "quads: on", not "quads: quads: on".
        words, text = variant.replace("-", " "), variant_text(game, variant)
        if not text or text == words or text.startswith(f"{words}: "):
            return text or words
        return f"{words} ({text})"

    choices = [("", "standard rules")] + [(v, shown(v)) for v in game.variants]
    print(f"How do you want to play {game.name}?", file=stdout)
    for number, (_, text) in enumerate(choices, 1):
        print(f"  {number}. {text}", file=stdout)
    while True:
        print("number or name [1]: ", end="", file=stdout, flush=True)
        answer = stdin.readline()
        if not answer:
            return None
        answer = answer.strip().lower()
        if not answer:
            return ""
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            return choices[int(answer) - 1][0]
        for variant, _ in choices[1:]:
            if answer in (variant, variant.replace("-", " ")):
                return variant
        print(f"no way {answer!r}; type a number from 1 to {len(choices)}", file=stdout)

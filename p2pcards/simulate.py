"""Whole games between bots, for testing rules and measuring bots.

``simulate(...)`` plays ``games`` games and summarises them. The deck is chosen by the caller:
the local open-faced dealer (fast, one process) or any other backend factory.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .dealer import LocalDealer
from .engine import DeckBackend, GameRecord, play, seeded_rng
from .game import Game, OptionError
from .plugins import PluginHost, UnknownName

__all__ = ["SimulationReport", "local_deck", "simulate"]

DeckFactory = Callable[[Game, Mapping[str, Any], int, int], DeckBackend]
"""``factory(game, options, players, game_index) -> deck backend``"""


def local_deck(seed: int | str) -> DeckFactory:
    def factory(game: Game, options: Mapping[str, Any], players: int, index: int) -> DeckBackend:
        return LocalDealer(game.deck(options, players), players, seeded_rng(seed, "deck", index))

    return factory


@dataclass
class SimulationReport:
    game: str
    players: int
    options: dict[str, Any]
    bots: list[str]
    games: int
    seed: int | str
    wins: list[int]
    draws: int = 0
    total_actions: int = 0
    violations: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    results: list[dict[str, Any]] = field(default_factory=list)

    @property
    def average_actions(self) -> float:
        return self.total_actions / self.games if self.games else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "options": self.options,
            "bots": self.bots,
            "games": self.games,
            "seed": self.seed,
            "wins": self.wins,
            "win_rate": [w / self.games if self.games else 0.0 for w in self.wins],
            "draws": self.draws,
            "average_actions": round(self.average_actions, 2),
            "violations": self.violations,
            "seconds": round(self.seconds, 3),
        }

    def to_text(self) -> str:
        opts = " ".join(f"{k}={v}" for k, v in self.options.items())
        lines = [
            f"{self.games} games of {self.game}, {self.players} players ({opts}), seed {self.seed}",
            f"{self.seconds:.2f} s, {self.average_actions:.1f} actions per game on average",
        ]
        for seat, wins in enumerate(self.wins):
            share = 100 * wins / self.games if self.games else 0
            lines.append(f"  seat {seat} ({self.bots[seat]:>9}): {wins} wins ({share:.1f}%)")
        if self.draws:
            lines.append(f"  draws: {self.draws}")
        lines.append(f"audit: {len(self.violations)} violations" if self.violations else "audit: clean")
        return "\n".join(lines)


def simulate(
    host: PluginHost,
    game_id: str,
    *,
    players: int | None = None,
    options: Mapping[str, Any] | None = None,
    bots: Sequence[str] = ("random",),
    games: int = 1,
    seed: int | str = 0,
    deck_factory: DeckFactory | None = None,
    keep_results: bool = False,
) -> SimulationReport:
    """Play ``games`` games; ``bots`` names one bot per seat, or one for every seat."""
    game = host.game(game_id)
    players = players or game.default_players(options or {})
    resolved = game.resolve_options(options or {}, players)
    if players not in game.player_counts(resolved):
        counts = game.player_counts(resolved)
        raise OptionError(f"{game.name} with these options takes {counts.start}-{counts.stop - 1} players")
    names = list(bots) * players if len(bots) == 1 else list(bots)
    if len(names) != players:
        raise OptionError(f"give one bot, or one bot per seat ({players}), not {len(names)}")
    available = host.bots_for(game_id)
    for name in names:
        if name not in available:
            raise UnknownName(f"no bot {name!r} for {game_id} (available: {', '.join(sorted(available))})")
    deck_factory = deck_factory or local_deck(seed)

    report = SimulationReport(game_id, players, resolved, names, games, seed, [0] * players)
    started = time.perf_counter()
    for index in range(games):
        seats = [
            available[name](game, seat, resolved, seeded_rng(seed, "bot", index, seat))
            for seat, name in enumerate(names)
        ]
        record: GameRecord = play(game, resolved, players, deck_factory(game, resolved, players, index), seats)
        winners = record.result.winners
        if not winners:
            report.draws += 1
        for seat in winners:  # a side's win counts for each of its players
            report.wins[seat] += 1
        report.total_actions += len(record.actions)
        report.violations += [dict(v.to_wire(), game=index) for v in record.violations]
        if keep_results:
            report.results.append(record.result.to_wire())
    report.seconds = time.perf_counter() - started
    return report

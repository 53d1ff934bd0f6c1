"""How well each game's strategic bot plays: its win rate against a script and against random.

``p2pcards bench-bots`` plays, for each bundled game, one strategic bot against opponents that
are all the same baseline bot: the game's script (``truthful`` in Cal's BS, ``simple`` in
Calypso and Crazy Eights, ``calling`` in Hold'em) or ``random``. The strategic bot takes each seat in turn (game ``i``
seats it at ``i mod players``), so the position at the table does not bias the figure, and the
win rate is set against its fair share, ``1 / players``.

It runs :func:`p2pcards.simulate.simulate` in this one process with the local open-faced dealer
(:mod:`p2pcards.dealer`), which shows every bot exactly what the mental-poker deck would show
its seat (its own deals and transfers, every reveal), so the results are those of real play;
only the cryptography is skipped. The same seed gives the same table.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from typing import Any

from .plugins import PluginHost
from .simulate import simulate

__all__ = ["CASES", "BenchCase", "Row", "add_arguments", "bench_bots", "run_from_args"]


@dataclass(frozen=True)
class BenchCase:
    game: str
    players: int
    options: tuple[tuple[str, Any], ...]
    script: str  # the game's honest script bot
    note: str


#: One table per game. Calypso is played solo (each for themselves), so that one strategic bot
#: has a fair share of 1 in 4; in partnerships the cut seats the partners.
CASES = (
    BenchCase("cals-bs", 4, (), "truthful", "a match to 3 hand wins"),
    BenchCase("calypso", 4, (("mode", "solo"),), "simple", "solo: 4 deals, each for themselves"),
    BenchCase("crazy-eights", 3, (), "simple", "one hand"),
    BenchCase("holdem", 3, (("hand_limit", 30),), "calling", "a match of at most 30 hands, most chips wins"),
)


@dataclass
class Row:
    game: str
    players: int
    opponent: str
    games: int
    wins: int
    draws: int
    seconds: float

    @property
    def share(self) -> float:
        return 1 / self.players

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "opponent": self.opponent,
            "games": self.games,
            "wins": self.wins,
            "win_rate": round(self.rate, 4),
            "fair_share": round(self.share, 4),
            "draws": self.draws,
            "seconds": round(self.seconds, 2),
        }


def bench_one(
    host: PluginHost, case: BenchCase, opponent: str, games: int, seed: int | str, bot: str = "strategic"
) -> Row:
    """``games`` games of one strategic bot against ``players - 1`` copies of ``opponent``."""
    players = case.players
    wins = draws = played = 0
    started = time.perf_counter()
    for seat in range(players):
        count = games // players + (1 if seat < games % players else 0)
        if not count:
            continue
        names = [opponent] * players
        names[seat] = bot
        report = simulate(
            host,
            case.game,
            players=players,
            options=dict(case.options),
            bots=names,
            games=count,
            seed=f"{seed}/{case.game}/{opponent}/seat{seat}",
        )
        if report.violations:
            raise RuntimeError(f"{case.game}: the audit found {len(report.violations)} violations")
        wins += report.wins[seat]
        draws += report.draws
        played += count
    return Row(case.game, players, opponent, played, wins, draws, time.perf_counter() - started)


def bench_bots(
    host: PluginHost,
    *,
    games: int = 200,
    seed: int | str = 0,
    only: list[str] | None = None,
    opponents: list[str] | None = None,
    bot: str = "strategic",
) -> list[Row]:
    rows = []
    for case in CASES:
        if only and case.game not in only:
            continue
        if case.game not in host.games:
            continue
        for opponent in opponents or [case.script, "random"]:
            rows.append(bench_one(host, case, opponent, games, seed, bot))
    return rows


def to_text(rows: list[Row], games: int, seed: int | str, bot: str = "strategic") -> str:
    lines = [
        f"{bot} bot, one seat against the same opponent in every other seat, seats rotated; "
        f"{games} games per row, seed {seed}, local dealer, one process",
        f"{'game':<13} {'players':>7}  {'opponent':<9} {'games':>5} {'wins':>5} {'win rate':>8}"
        f" {'fair share':>10} {'draws':>5} {'seconds':>7}",
    ]
    for row in rows:
        lines.append(
            f"{row.game:<13} {row.players:>7}  {row.opponent:<9} {row.games:>5} {row.wins:>5}"
            f" {100 * row.rate:>7.1f}% {100 * row.share:>9.1f}% {row.draws:>5} {row.seconds:>7.1f}"
        )
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=200, help="games per game and opponent (default 200)")
    parser.add_argument("--seed", default="0", help="the same seed gives the same games")
    parser.add_argument("--game", action="append", metavar="ID", help="only this game; repeatable")
    parser.add_argument(
        "--opponent",
        action="append",
        metavar="BOT",
        help="the opponents' bot; repeatable (default: the game's script, then random)",
    )
    parser.add_argument("--bot", default="strategic", help="the bot measured (default strategic)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run_from_args(host: PluginHost, args: argparse.Namespace) -> int:
    if args.games < 1:
        raise ValueError("--games must be at least 1")
    rows = bench_bots(host, games=args.games, seed=args.seed, only=args.game, opponents=args.opponent, bot=args.bot)
    if args.json:
        print(json.dumps({"games": args.games, "seed": args.seed, "rows": [r.to_json() for r in rows]}, indent=2))
    else:
        print(to_text(rows, args.games, args.seed, args.bot))
    return 0

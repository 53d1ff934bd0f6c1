"""The ``p2pcards`` command line.

Each subcommand is a function ``cmd_NAME(args) -> exit status`` registered in :func:`build_parser`.
Errors people can act on are printed as one line on stderr with exit status 2; tracebacks are for
bugs only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import __version__
from .engine import PlayerError
from .game import OptionError
from .plugins import PluginHost, UnknownName, load_plugins
from .table.timeouts import Timeouts, check_seconds
from .text import printable, printable_json, table_called, unshowable

__all__ = ["main"]


class UsageError(Exception):
    """A mistake in what the user asked for; printed without a traceback."""


def _seconds(name: str):
    """An argparse type: a timeout within its bounds (table/timeouts.py), or a clear error."""

    def parse(text: str) -> float:
        try:
            return check_seconds(name, float(text))
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def _display_name(text: str) -> str:
    """An argparse type: a name the others' terminals can show (at most 64 characters, no
    control or format characters), or a clear error."""
    bad = unshowable(text)
    if bad is not None:
        raise argparse.ArgumentTypeError(f"a name cannot hold a control or format character (U+{ord(bad):04X})")
    if not 0 < len(text) <= 64:
        raise argparse.ArgumentTypeError("a name is 1 to 64 characters")
    return text


def parse_option_pairs(pairs: Sequence[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--option takes KEY=VALUE, not {pair!r}")
        options[key.strip()] = value.strip()
    return options


def report_plugin_errors(host) -> None:
    for error in host.errors:
        print(f"warning: {printable(error)}", file=sys.stderr)


# --------------------------------------------------------------------------------------------


def cmd_plugins(args: argparse.Namespace) -> int:
    host = load_plugins()
    data = host.describe()
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    if not data["plugins"]:
        print("no plugins installed")
    for plugin in data["plugins"]:
        print(f"{plugin['name']}  ({plugin['distribution']} {plugin['version']})")
        for game in plugin["games"]:
            lo, hi = game["players"]
            print(f"  game {game['id']}: {game['name']}, rules {game['rules_version']}, {lo}-{hi} players")
            for line in game_words(game):
                print(f"  {line}")
        for bot in plugin["bots"]:
            print(f"  bot {bot}")
    report_plugin_errors(host)
    return 0


def game_words(game: dict[str, Any]) -> list[str]:
    """A game's options and variants in words, from :func:`p2pcards.plugins.describe_game`:
    each option's label, its default, what it does, and what its named values mean."""
    lines = []
    for opt in game["options"]:
        default = opt["default"]
        said = next((v["label"] for v in opt.get("values", ()) if v["value"] == default), None)
        if said is None:
            said = ("on" if default else "off") if isinstance(default, bool) else str(default)
        raw = ("on" if default else "off") if isinstance(default, bool) else str(default)
        lines.append(f"  {opt.get('label', opt['name'])}: {said}  (--option {opt['name']}={raw})")
        lines.append(f"      {opt['help']}")
        for value in opt.get("values", ()):
            text = ("on" if value["value"] else "off") if isinstance(value["value"], bool) else str(value["value"])
            said = "" if value["label"] == text else f"{value['label']} - "
            lines.append(f"      {text}: {said}{value['help']}")
        named = {v["value"] for v in opt.get("values", ())}
        rest = [c for c in opt.get("choices", ()) if c not in named]
        if rest:
            lines.append(f"      also: {', '.join(rest)}")
    for variant, values in game["variants"].items():
        words = game.get("variant_help", {}).get(variant) or " ".join(f"{k}={v}" for k, v in values.items())
        lines.append(f"  --variant {variant}: {words}")
    return lines


class _GameHelpParser(argparse.ArgumentParser):
    """A command's parser whose ``--help`` ends with every installed game's options in words
    (the plugins load only when the help is shown)."""

    def __init__(self, *args: Any, game_words: bool = False, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.game_words = game_words

    def format_help(self) -> str:
        text = super().format_help()
        if not self.game_words:
            return text
        try:
            data = load_plugins().describe()
        except Exception:  # a broken plugin: 'p2pcards plugins' says what is wrong
            return text
        lines = ["", "games and their options:"]
        for plugin in data["plugins"]:
            for game in plugin["games"]:
                lo, hi = game["players"]
                lines.append(f"{game['name']} (--game {game['id']}, {lo}-{hi} players)")
                lines += game_words(game)
        return text + "\n".join(lines) + "\n"


def game_options(game, args: argparse.Namespace) -> dict[str, Any]:
    """``--option K=V`` pairs over the named ``--variant``'s presets (``p2pcards plugins``
    lists both)."""
    options = parse_option_pairs(args.option)
    variant = getattr(args, "variant", None)
    if variant:
        if variant not in game.variants:
            have = ", ".join(game.variants) or "none"
            raise UsageError(f"{game.id} has no variant {variant!r} (variants: {have})")
        options = {**game.variants[variant], **options}
    return options


def cmd_simulate(args: argparse.Namespace) -> int:
    from .simulate import simulate

    host = load_plugins()
    report_plugin_errors(host)
    game = host.game(args.game)
    options = game_options(game, args)
    deck_factory = None
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.local and args.in_process:
        raise UsageError("choose one of --local and --in-process")
    if not args.local and not args.in_process:
        return simulate_over_network(host, game, options, args)
    if args.in_process:
        deck_factory = mental_poker_deck_factory(args.seed)
    try:
        report = simulate(
            host,
            args.game,
            players=args.players,
            options=options,
            bots=args.bot or ["random"],
            games=args.games,
            seed=args.seed,
            deck_factory=deck_factory,
        )
    except PlayerError as exc:
        # A bot broke the rules: a bug in its plugin, reported without a traceback.
        raise UsageError(f"{exc} (a bug in the {args.game} plugin's bot or rules)") from None
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(report.to_text())
    return 1 if report.violations else 0


def simulate_over_network(host, game, options: dict[str, str], args: argparse.Namespace) -> int:
    """Every bot its own peer over loopback TCP, found through zeroconf on 127.0.0.1."""
    import trio

    from .net.runner import simulate_network

    players = args.players or game.default_players(options)
    bots = args.bot or ["random"]
    if len(bots) not in (1, players):
        raise UsageError(f"give one bot, or one bot per seat ({players}), not {len(bots)}")
    available = host.bots_for(game.id)
    for name in bots:
        if name not in available:
            raise UsageError(f"no bot {name!r} for {game.id} (available: {', '.join(sorted(available))})")
    transcripts = Path(args.transcript_dir) if args.transcript_dir else None
    report = trio.run(
        lambda: simulate_network(
            host,
            game.id,
            players=players,
            options=options,
            bots=bots,
            games=args.games,
            seed=args.seed,
            transcript_dir=transcripts,
            interface="127.0.0.1",
        )
    )
    print(json.dumps(report.to_json(), indent=2) if args.json else report.to_text())
    return 1 if report.problems else 0


def mental_poker_deck_factory(seed: Any):
    from .deck.backend import mental_poker_factory

    return mental_poker_factory(seed)


def cmd_demo(args: argparse.Namespace) -> int:
    from .console.app import run_console
    from .console.demo import DeckUnavailable, DemoSettings, DemoTables, ask_game, ask_variant, demo_table
    from .console.render import bell_enabled, choose_glyphs

    host = load_plugins()
    report_plugin_errors(host)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("the demo is a full-screen program: run it in a terminal")
    asked = args.game is None
    game_id = args.game or ask_game(host)
    if game_id is None:
        raise UsageError("no game chosen (installed games: see 'p2pcards plugins')")
    if asked and args.variant is None and not args.option:
        # Asked for the game: ask how to play it too (the named variants, in words).
        args.variant = ask_variant(host, game_id)
        if args.variant is None:
            raise UsageError("no variant chosen")
    game = host.game(game_id)
    options = game_options(game, args)
    players = args.players or demo_players(game, options)
    game.resolve_options(options, players)  # fail here, not in the app
    if args.bot_delay < 0:
        raise UsageError("--bot-delay must be 0 or more")
    settings = DemoSettings(
        game_id, players, options, args.seed, args.deck or "mental-poker", args.bot_delay, name=args.name or "you"
    )
    notices = []
    tables = DemoTables(host, settings)
    try:
        demo_table(host, settings, args.seed)  # fails early if the deck is missing
    except DeckUnavailable as exc:
        if args.deck:
            raise UsageError(f"{exc}; try --deck local") from None
        settings.deck = "local"
        notices.append("the mental-poker deck is not in this build yet: using the local open dealer")
    run_console(
        tables, glyphs=choose_glyphs(True if args.ascii else None), notices=notices, bell=bell_enabled(args.bell)
    )
    return 0


def demo_players(game, options: dict[str, str]) -> int:
    """The smallest player count these options allow (Calypso's partnership mode needs 4)."""
    for players in range(game.min_players, game.max_players + 1):
        try:
            game.resolve_options(options, players)
        except OptionError:
            continue
        return players
    return game.min_players


def cmd_play(args: argparse.Namespace) -> int:
    """The LAN lobby in the console: find, create and join tables, then play them."""
    from .console.app import run_console
    from .console.lan import LanLobby
    from .console.render import bell_enabled, choose_glyphs
    from .wire.identity import load_or_create_identity

    _check_port(args)
    host = load_plugins()
    report_plugin_errors(host)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            "the lobby is a full-screen program: run it in a terminal (or use 'p2pcards list', 'host' and 'join')"
        )
    if not host.games:
        raise UsageError("no games are installed (see 'p2pcards plugins')")
    _check_interface(args)
    hint = _mark_data_folder()
    lobby = LanLobby(
        host,
        load_or_create_identity(),
        name=args.name or _default_name(),
        interface=args.interface,
        transcript_dir=Path(args.transcript_dir),
        bot_delay=args.bot_delay,
        port=args.port,
    )
    run_console(
        lobby=lobby,
        glyphs=choose_glyphs(True if args.ascii else None),
        notices=[hint] if hint else [],
        bell=bell_enabled(args.bell),
    )
    for path in lobby.transcripts:  # the screen that showed them is gone
        print(f"transcript: {path}  (check it: p2pcards verify {path})")
    return 0


def _default_name() -> str:
    import getpass

    try:
        return getpass.getuser()[:32] or "player"
    except Exception:  # no user name in this environment
        return "player"


def cmd_new_game(args: argparse.Namespace) -> int:
    from importlib import metadata
    from pathlib import Path

    from .newgame import GameNames, NewGameError, create_game

    try:
        wanted = GameNames.from_text(args.name)
    except NewGameError as exc:
        raise UsageError(str(exc)) from None
    # 'pip install -e' of a distribution with an installed one's name silently replaces it
    # (the bundled games are p2pcards-cals-bs, p2pcards-calypso, p2pcards-crazy-eights).
    if wanted.name in load_plugins().games:
        raise UsageError(f"a game {wanted.name!r} is already installed: choose another name")
    try:
        metadata.distribution(wanted.distribution)
    except metadata.PackageNotFoundError:
        pass
    else:
        raise UsageError(
            f"{wanted.distribution} is already installed (installing the new game "
            "would replace it): choose another name"
        )
    try:
        names, folder, written = create_game(args.name, Path(args.dir) if args.dir else None)
    except NewGameError as exc:
        raise UsageError(str(exc)) from None
    print(f"Wrote the game {names.name!r} ({names.distribution}) to {folder}:")
    for path in written:
        print(f"  {path.relative_to(folder)}")
    print(
        "\nNext:\n"
        f"  pip install -e {folder} pytest\n"
        "  p2pcards plugins\n"
        f"  p2pcards simulate --game {names.name} --players 3 --local --games 100\n"
        f"  python -m pytest {folder / 'tests'}\n"
        f"Then edit {folder / names.package / 'rules.py'} (see docs/plugin-tutorial.md)."
    )
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from .doctor import run_doctor

    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be between 0 and 65535")
    if args.timeout <= 0:
        raise UsageError("--timeout must be more than 0")
    report = run_doctor(args.interface, args.port, args.timeout)
    print(report.to_text())
    return 0 if report.ok else 1


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import run_from_args

    try:
        return run_from_args(args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def cmd_bench_bots(args: argparse.Namespace) -> int:
    from .bench_bots import run_from_args

    host = load_plugins()
    report_plugin_errors(host)
    try:
        return run_from_args(host, args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


# --------------------------------------------------------------------------------------------
# Network play.

DEFAULT_TRANSCRIPTS = "transcripts"
IN_PERSON_BOT_DELAY = 0.5  # bot peers' thinking time when a person plays this seat


def _interface(args: argparse.Namespace) -> str:
    """The IPv4 address to listen and announce on. ``--interface`` wins; the default is every
    interface's wildcard for listening, announced on all interfaces (real LAN play)."""
    return args.interface or "0.0.0.0"


def _check_port(args: argparse.Namespace) -> None:
    """``--port`` of host, join and play: the port this seat listens on (0: any free one)."""
    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be between 1 and 65535 (or 0, the default: any free port)")


def _check_interface(args: argparse.Namespace) -> None:
    """``--interface`` must be an IPv4 address of this computer: say so instead of a traceback."""
    wanted = getattr(args, "interface", None)
    if not wanted:
        return
    from .doctor import interfaces

    have = sorted({address for _, address in interfaces()})
    if wanted not in have:
        raise UsageError(
            f"--interface {wanted} is not an IPv4 address of this computer "
            f"(it has: {', '.join(have) or 'none'}; 'p2pcards doctor' shows which one is in use)"
        )


def _announce_interface(address: str) -> str | None:
    return None if address == "0.0.0.0" else address


def _local_agent(host, args: argparse.Namespace):
    """The agent for this peer's own seat when ``--bot`` names a bot to play it."""
    import random

    from .net.runner import bot_agent

    delay = args.bot_delay or 0.0
    return lambda game, seat, options: bot_agent(host, game, args.bot, random.Random(), delay=delay)(
        game, seat, options
    )


#: Set for the bot seats 'resume' brings back in processes of their own: they share the data
#: folder with the program that started them on purpose (no hint about it).
COMPANION_ENV = "P2PCARDS_COMPANION"
_folder_use: Any = None  # this program's mark in the data folder, held until it ends


def _mark_data_folder() -> str | None:
    """Mark this program as one that plays from the data folder; if another program uses the
    same folder, print a one-line hint (to set P2PCARDS_HOME) and return it. Sharing the folder
    is safe (see datafolder.py), so it never stops this program."""
    global _folder_use
    from .datafolder import claim_data_folder, shared_folder_hint

    first = _folder_use is None
    if _folder_use is None:
        import atexit

        _folder_use = claim_data_folder()
        atexit.register(_folder_use.release)  # (a program killed leaves it: the next removes it)
    if os.environ.get(COMPANION_ENV):
        return None
    hint = shared_folder_hint(_folder_use)  # (the programs found when it was first marked)
    if hint is not None and first:
        print(printable(hint), file=sys.stderr, flush=True)
    return hint


def _need_terminal(command: str) -> None:
    """Without --play-as-bot the person at the console plays the seat: that needs a terminal."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            f"'p2pcards {command}' without --play-as-bot is played in person in the console: "
            "run it in a terminal, or give --play-as-bot KIND to let a bot play this seat"
        )


def _play_in_console(table, args: argparse.Namespace) -> int:
    """Play one networked seat in person (a :class:`~.console.seat.SeatTable`), then say how
    it ended, as the --bot runs do."""
    import asyncio

    from .console.app import ConsoleApp
    from .console.render import bell_enabled, choose_glyphs

    hint = _mark_data_folder()
    console = ConsoleApp(
        table,
        again=False,
        confirm_leaving=True,
        glyphs=choose_glyphs(True if args.ascii else None),
        notices=[hint] if hint else [],
        bell=bell_enabled(getattr(args, "bell", False)),
    )
    asyncio.run(console.run())
    if table.outcome is None:
        print(printable(console.stopped or "left the table before its game ended"))
        if table.left_transcript is not None:
            path = table.left_transcript
            print(f"transcript: {path}  (check it: p2pcards verify {path})")
        return 1
    return _print_outcome(table.outcome)


def _print_outcome(outcome) -> int:
    """How a networked seat's game ended, naming the players ("bob wins", never "seat 1")."""
    from .game import result_words
    from .session import clean_audit_words
    from .text import name_seats

    session = outcome.peer.session
    names = session.names
    if outcome.aborted is not None:
        # Our own reason in our own words (CannotWrite: which file), else the table's.
        reason = getattr(outcome.aborted, "detail", outcome.aborted.reason)
        print(f"the game stopped: {printable(name_seats(reason, names))}")
    elif outcome.result is not None:
        print(f"result: {printable(name_seats(result_words(session.game, outcome.result), names))}")
        violations = session.violations
        print(clean_audit_words(session) if not violations else f"audit: {len(violations)} violations")
        for v in violations:
            who = names[v.seat] if 0 <= v.seat < len(names) else f"seat {v.seat}"
            print(f"  {printable(who)}, action {v.action_index}: {printable(name_seats(v.message, names))}")
    if outcome.transcript:
        print(f"transcript: {outcome.transcript}  (check it: p2pcards verify {outcome.transcript})")
    if outcome.problem and outcome.problem != getattr(outcome.aborted, "detail", None):
        print(f"p2pcards: {printable(outcome.problem)}", file=sys.stderr)
    if outcome.history_warning:
        print(f"warning: {printable(outcome.history_warning)}", file=sys.stderr)
    ok = outcome.aborted is None and not outcome.peer.session.violations and not outcome.problem
    return 0 if ok else 1


def cmd_host(args: argparse.Namespace) -> int:
    import trio

    from .net.runner import host_table
    from .wire.identity import load_or_create_identity

    host = load_plugins()
    report_plugin_errors(host)
    game = host.game(args.game)
    options = game_options(game, args)
    players = args.seats or game.default_players(options)
    # --name names the player; the table is named by --table-name, else by the player's
    # name (as --name named both before --table-name, so 'join NAME' still finds it).
    args.name = args.name or _default_name()
    args.table_name = args.table_name or args.name
    if not 0 <= args.bots < players:
        raise UsageError(f"--bots must leave at least this seat: 0 to {players - 1}")
    _check_port(args)
    _check_interface(args)
    if not args.bot:
        return _host_in_person(host, game, options, players, args)
    _mark_data_folder()
    identity = load_or_create_identity()
    agent = _local_agent(host, args)
    address = _interface(args)

    def on_port(port: int) -> None:
        where = f"{args.interface}:{port}" if args.interface else f"port {port} on every interface"
        print(
            f"{printable(table_called(args.table_name))} ({game.name}, {players} seats) is open at {where}; "
            f"waiting for {players - 1 - args.bots} player(s)",
            flush=True,
        )

    def on_roster(roster) -> None:
        seated = ", ".join(printable(n) for n in roster.names if n)
        print(f"seated: {seated}", flush=True)

    outcomes = trio.run(
        lambda: host_table(
            host,
            identity,
            args.game,
            options=options,
            players=players,
            agent=agent,
            name=args.name,
            interface=address,
            port=args.port,
            bots=args.bots,
            bot_name=args.bot_kind,
            transcript_dir=Path(args.transcript_dir),
            on_port=on_port,
            on_roster=on_roster,
            timeouts=Timeouts(deck=args.deck_timeout, turn=args.turn_timeout, grace=args.grace),
            persist=True,
            seat_bot=args.bot,
            bot_delay=args.bot_delay or 0.0,
            history=True,
            spectator_chat=args.spectator_chat,
            table_name=args.table_name,
        )
    )
    return _print_outcome(outcomes[0])


def _host_in_person(host, game, options: dict[str, str], players: int, args: argparse.Namespace) -> int:
    from .console.seat import hosted_seat
    from .wire.identity import load_or_create_identity

    _need_terminal("host")
    game.resolve_options(options, players)  # fail here, not in the console
    table = hosted_seat(
        host,
        load_or_create_identity(),
        game.id,
        options=options,
        players=players,
        name=args.name,
        interface=_interface(args),
        port=args.port,
        bots=args.bots,
        bot_name=args.bot_kind,
        bot_delay=IN_PERSON_BOT_DELAY if args.bot_delay is None else args.bot_delay,
        transcript_dir=Path(args.transcript_dir),
        timeouts=Timeouts(deck=args.deck_timeout, turn=args.turn_timeout, grace=args.grace),
        rematch=True,
        spectator_chat=args.spectator_chat,
        table_name=args.table_name,
    )
    return _play_in_console(table, args)


def _game_names(host: PluginHost) -> dict[str, str]:
    """The installed games' names by id (a table found on the network names its game by id)."""
    return {game_id: game.name for game_id, game in host.games.items()}


def cmd_join(args: argparse.Namespace) -> int:
    import trio

    from .net.runner import find_table, join_table
    from .wire.identity import load_or_create_identity

    host = load_plugins()
    report_plugin_errors(host)
    _, sep, port_text = args.table.rpartition(":")
    if sep and port_text.isdigit() and not 0 < int(port_text) <= 65535:
        raise UsageError(f"{args.table}: a port is between 1 and 65535")
    if sep and not port_text.isdigit():
        # Not looked up as a table's name on the network: a mistyped address, most likely.
        raise UsageError(f"{args.table}: HOST:PORT needs the port as a number")
    _check_port(args)
    _check_interface(args)
    if not args.bot:
        _need_terminal("join")
    args.name = args.name or _default_name()
    identity = load_or_create_identity()
    listen = args.interface or "0.0.0.0"
    found: list[tuple[str, int]] = []

    async def find() -> tuple[str, int]:
        target = args.table
        address, sep, port = target.rpartition(":")
        if sep and port.isdigit():
            return address, int(port)
        if found:  # looked up before the screen opened
            return found.pop()
        advert = await find_table(
            _announce_interface(_interface(args)), target, timeout=args.timeout, game_names=_game_names(host)
        )
        return advert.host, advert.port

    if not args.bot and not (sep and port_text.isdigit()):
        # A table that is not there fails here, with the tables that are, not in the screen.
        found.append(trio.run(find))

    if not args.bot:
        from .console.seat import joined_seat

        return _play_in_console(
            joined_seat(
                host,
                identity,
                find,
                name=args.name,
                listen_host=listen,
                listen_port=args.port,
                transcript_dir=Path(args.transcript_dir),
                label=args.table,
                rematch=True,
            ),
            args,
        )
    agent = _local_agent(host, args)
    _mark_data_folder()

    codes: list[int] = []

    async def run():
        where, port_number = await find()
        outcome = await join_table(
            host,
            identity,
            where,
            port_number,
            name=args.name,
            agent=agent,
            listen_host=listen,
            listen_port=args.port,
            transcript_dir=Path(args.transcript_dir),
            persist=True,
            seat_bot=args.bot,
            history=True,
        )
        if not args.rematches:
            return outcome
        # As a person's seat does: the bot sits down in each rematch the host opens and
        # agrees at once, until one is declined or none is opened.
        from .net.rematch import follow_rematches

        codes.append(_print_outcome(outcome))

        def next_game(outcome) -> None:
            print("rematch:", flush=True)
            codes.append(_print_outcome(outcome))

        why = await follow_rematches(
            host,
            outcome,
            listen_host=listen,
            listen_port=args.port,
            agent=agent,
            on_outcome=next_game,
            transcript_dir=Path(args.transcript_dir),
            persist=True,
            seat_bot=args.bot,
            history=True,
        )
        print(why, flush=True)
        return None

    last = trio.run(run)
    return _print_outcome(last) if last is not None else codes[-1]


def cmd_watch(args: argparse.Namespace) -> int:
    """Watch a started table without a seat: in a terminal, the table screen as a player sees
    it without a hand (console/spectator.py); with ``--plain`` (or no terminal), its public
    log line by line. Then the transcript, verified (protocol/table.md section 10)."""
    import trio

    from .net.runner import find_table
    from .net.watch import watch_table
    from .verify import verify_file
    from .wire.identity import load_or_create_identity

    host = load_plugins()
    report_plugin_errors(host)
    address, sep, port_text = args.table.rpartition(":")
    if sep and not (port_text.isdigit() and 0 < int(port_text) <= 65535):
        raise UsageError(f"{args.table}: HOST:PORT needs a port between 1 and 65535")
    _check_interface(args)
    identity = load_or_create_identity()

    async def where() -> tuple[str, int]:
        if sep:
            return address, int(port_text)
        advert = await find_table(
            _announce_interface(_interface(args)),
            args.table,
            timeout=args.timeout,
            playing=True,
            game_names=_game_names(host),
        )
        return advert.host, advert.port

    if not args.plain and sys.stdin.isatty() and sys.stdout.isatty():
        return _watch_in_console(trio.run(where), identity, host, args)

    async def run() -> Any:
        at, port = await where()
        return await watch_table(
            at,
            port,
            identity,
            name=args.name,
            games=host.rules_versions(),
            transcript_dir=Path(args.transcript_dir),
            on_header=lambda h: print(
                f"watching {printable(h.game)}: " + ", ".join(printable(s.name) for s in h.seats), flush=True
            ),
            on_line=lambda line: print(line, flush=True),
        )

    watched = trio.run(run)  # a WatchError is a LobbyError: main prints it in one line
    if watched.problem is not None:
        print(f"p2pcards: {printable(watched.problem)}", file=sys.stderr)
    if watched.transcript is None:
        return 1
    report = verify_file(watched.transcript)
    print(f"transcript: {printable(str(watched.transcript))}: {report.verdict}")
    return report.status


def _watch_in_console(at: tuple[str, int], identity: Any, host: Any, args: argparse.Namespace) -> int:
    """``p2pcards watch`` in a terminal: the spectator's table screen, then how it ended."""
    import asyncio

    from .console.app import ConsoleApp
    from .console.render import choose_glyphs
    from .console.spectator import WatchTable

    runner = WatchTable(
        at[0], at[1], identity, host, name=args.name, transcript_dir=Path(args.transcript_dir), follow=True
    )
    console = ConsoleApp(runner, again=False, glyphs=choose_glyphs(True if args.ascii else None))
    asyncio.run(console.run())
    if runner.outcome is None:
        print(printable(console.stopped or "stopped watching before the game ended"))
        return 1
    print(printable(runner.outcome))
    return runner.report.status if runner.report is not None else 1


def cmd_resume(args: argparse.Namespace) -> int:
    import trio

    from .net.store import load_seat_state, seat_in_use
    from .net.table import resume_seat

    host = load_plugins()
    report_plugin_errors(host)
    transcripts = Path(args.transcript_dir)
    if args.folder:
        folder, companions = Path(args.folder), list[Path]()
        if seat_in_use(folder):
            raise UsageError(f"the seat in {folder} is still being played by another program")
        if _close_if_ended(folder, transcripts):
            return 1
    else:
        folder, companions = _seats_to_resume(transcripts)
    try:
        state = load_seat_state(folder)
    except FileNotFoundError:
        # (Also a seat whose game just ended: its program removes the folder as it leaves.)
        raise UsageError(
            f"nothing to resume in {folder}: no seat is saved there (a game that ended is in 'p2pcards history')"
        ) from None
    except (OSError, ValueError, KeyError) as exc:
        raise UsageError(f"cannot resume from {folder}: {exc}") from None
    bot = args.bot or state.bot
    if bot is None:
        _need_terminal("resume")
    _mark_data_folder()  # before the companions: they share the folder on purpose
    for other in companions:  # the bot peers this program ran ('host --bots'): a process each
        _resume_in_background(other, args)
    if bot is None:  # a person's seat: back into the console
        from .console.seat import resumed_seat

        # Offered a rematch at the end, as at any table played in person; a host seats its bot
        # peers (resumed in programs of their own) again itself.
        bot_peers, bot_names = [], []
        for other in companions:
            try:
                companion = load_seat_state(other)
            except (OSError, ValueError, KeyError):
                continue
            bot_peers.append((companion.seat, companion.identity))
            bot_names.append(companion.bot or "strategic")
        seat = resumed_seat(
            host,
            folder,
            transcript_dir=Path(args.transcript_dir),
            rematch=True,
            bot_peers=bot_peers,
            bot_name=bot_names[0] if bot_names else "strategic",
            bot_delay=args.bot_delay,
        )
        return _play_in_console(seat, args)
    agent = _local_agent(host, argparse.Namespace(bot=bot, bot_delay=args.bot_delay))
    print(f"resuming seat {state.seat} of table {state.table.hex()[:12]} from {folder}", flush=True)
    # A bot seat of this user's ('host --bot') is in the history; a host's bot peers are not.
    mine = state.identity.public == _own_identity_key()
    return _print_outcome(
        trio.run(lambda: resume_seat(folder, host, agent, transcript_dir=Path(args.transcript_dir), history=mine))
    )


def _own_identity_key():
    """This user's public identity, if the data folder has one we can read."""
    from .wire.identity import IDENTITY_FILE, IdentityError, data_dir, load_identity

    try:
        return load_identity(data_dir() / IDENTITY_FILE).public
    except (IdentityError, OSError):
        return None


def _close_if_ended(folder: Path, transcripts: Path) -> bool:
    """If the game saved in ``folder`` cannot go on (its journal shows its end: the table
    ended, or its player left), say so, write its transcript and remove the folder. A folder
    that cannot be read is left to the caller, which names the problem."""
    from .net.ended import close_ended_seat, game_over_in
    from .net.store import SeatInUse
    from .wire.transcript import TranscriptError

    try:
        over = game_over_in(folder)
        if over is None or over.exchange_results:  # resume goes back to the table for the results
            return False
        path = close_ended_seat(folder, over, transcripts)
    except (OSError, ValueError, KeyError, TranscriptError, SeatInUse):
        return False
    print(f"the game saved in {folder} has ended: {printable(over.reason)}", flush=True)
    if path is not None:
        print(f"transcript: {path}  (check it: p2pcards verify {path}); the seat's folder is removed", flush=True)
    return True


def _seats_to_resume(transcripts: Path) -> tuple[Path, list[Path]]:
    """The newest unfinished game's seat to resume here (a person's, if one of its seats is)
    and its other seats saved on this computer that bots play (a host's bot peers), which no
    program is playing now. Seats whose game has ended are closed and removed on the way
    (their transcripts go to ``transcripts``)."""
    from .net.store import load_seat_state, unfinished_seats

    seats = []
    for folder in unfinished_seats():
        if _close_if_ended(folder, transcripts):
            continue
        try:
            seats.append((folder, load_seat_state(folder)))
        except (OSError, ValueError, KeyError):
            continue  # one we cannot read is named when it is asked for by its folder
    if not seats:
        raise UsageError("no unfinished game to resume")
    table = seats[0][1].table
    same = [(folder, state) for folder, state in seats if state.table == table]
    folder = next((f for f, state in same if state.bot is None), same[0][0])
    return folder, [f for f, state in same if f != folder and state.bot is not None]


def _resume_in_background(folder: Path, args: argparse.Namespace) -> None:
    """``p2pcards resume FOLDER`` for a bot's seat, in a process of its own; its output goes to
    a log next to the transcripts."""
    transcripts = Path(args.transcript_dir)
    transcripts.mkdir(parents=True, exist_ok=True)
    log = transcripts / f"resume-{folder.name}.log"
    with open(log, "ab") as out:
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "p2pcards",
                "resume",
                str(folder),
                "--transcript-dir",
                str(transcripts),
                "--bot-delay",
                str(args.bot_delay),
            ],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, COMPANION_ENV: "1"},
        )
    print(f"resuming the bot seat in {folder} in the background (its output: {log})", flush=True)


def cmd_list(args: argparse.Namespace) -> int:
    import trio

    from .net.discovery import browse

    _check_interface(args)
    tables = trio.run(lambda: browse(_announce_interface(_interface(args)), timeout=args.timeout))
    if args.json:
        print(json.dumps([t.__dict__ for t in tables], indent=2))
        return 0
    if not tables:
        print("no tables found (is a table open? try 'p2pcards doctor')")
    games = load_plugins().games if tables else {}
    for t in tables:
        # Every field but the numbers is what a stranger's zeroconf record says. The game by
        # its name where it is installed here ("Cal's BS"), else by its id; the table's id is
        # for programs (--json).
        # Named as the lobby names it ("alice's table"; 'join alice' or "join \"alice's table\"").
        game = games.get(t.game)
        print(
            f"{printable(table_called(t.name))}  {printable(game.name if game is not None else t.game)}  "
            f"{t.seats - t.free}/{t.seats} seated  at {printable(t.address)}  host key {printable(t.fingerprint)}"
        )
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from .progress import ProgressBar
    from .verify import EXIT_UNREADABLE, verify_file

    with ProgressBar(f"verifying {printable(Path(args.file).name)}") as bar:
        report = verify_file(args.file, progress=bar.update)
    if args.json:
        print(printable_json(report.to_json(show_hands=args.show_hands), indent=2))
    elif report.status == EXIT_UNREADABLE:
        assert report.problem is not None, "an unreadable transcript comes with its problem"
        print(f"p2pcards: error: {printable(args.file)}: {printable(report.problem.reason)}", file=sys.stderr)
    else:
        print(report.to_text(show_hands=args.show_hands))
    return report.status


def cmd_replay(args: argparse.Namespace) -> int:
    """Verify a transcript, then step through it: on screen, or every step as text."""
    from .replay import SPECTATOR, is_spectator_file, load_replay, seat_of_file
    from .verify import EXIT_UNREADABLE

    if not args.print and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("the replay is a full-screen program: run it in a terminal, or use --print")
    from .progress import ProgressBar

    if not args.print:
        print(f"verifying {printable(args.file)} ...", file=sys.stderr, flush=True)
    with ProgressBar(f"verifying {printable(Path(args.file).name)}") as bar:
        replay = load_replay(args.file, progress=bar.update)
    report = replay.report
    if report.status == EXIT_UNREADABLE or replay.game is None:
        reason = report.problem.reason if report.problem else "the game is not installed here"
        print(f"p2pcards: error: {printable(args.file)}: {printable(reason)}", file=sys.stderr)
        return EXIT_UNREADABLE
    if args.seat is not None and not 0 <= args.seat < replay.players:
        raise UsageError(f"--seat {args.seat}: this table has seats 0 to {replay.players - 1}")
    if args.all and replay.faces is None:
        raise UsageError("--all: the audit did not open every card of this game (it did not finish): choose a --seat")
    # A seat's own file is replayed as that seat saw it, and says "you" of it; a spectator's
    # (``p2pcards watch``) as the table saw it: only the cards turned up for everyone.
    replay.from_spectator = is_spectator_file(args.file)
    replay.own = None if replay.from_spectator else seat_of_file(args.file, replay.players)
    default = SPECTATOR if replay.from_spectator else replay.own
    seat = None if args.all else SPECTATOR if args.table else args.seat if args.seat is not None else default
    if not replay.steps:
        print(f"verdict: {replay.verdict_line()}", file=sys.stderr if args.print else sys.stdout)
        print("p2pcards: nothing to replay: the file failed before the game could be replayed", file=sys.stderr)
        return report.status
    from .console.replay import print_replay, run_replay

    if args.print:
        print(print_replay(replay, seat))
    else:
        run_replay(replay, seat, ascii=True if args.ascii else None)
    return report.status


def cmd_history(args: argparse.Namespace) -> int:
    """The games recorded in the data folder's history, or everyone played with
    (``--opponents``); ``--import`` records transcripts first."""
    import sqlite3

    from .history import History, HistoryError, games_text, opponents_text, verify_pending
    from .progress import ProgressBar

    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    try:
        if args.sources is not None:
            return _import_transcripts(args)
        history = History.open(create=False)
        if history is None:
            rows: list[dict[str, Any]] = []
        else:
            with history:
                if not args.no_verify:
                    # Games recorded as they ended, from what their seat checked live: their
                    # transcripts are fully verified now, once, before they are listed.
                    with ProgressBar("verifying") as bar:

                        def shown(index: int, count: int, game: dict[str, Any], done: float) -> None:
                            what = f"verifying {printable(game['game']['name'])} ({index + 1} of {count})"
                            bar.update((index + done) / count, what)

                        verify_pending(history, progress=shown)
                rows = history.opponents(args.limit) if args.opponents else history.games(args.limit or 20)
    except (HistoryError, sqlite3.Error) as exc:
        raise UsageError(f"the history cannot be read: {exc}") from None
    if args.json:
        print(printable_json(rows, indent=2))
    else:
        print(opponents_text(rows) if args.opponents else games_text(rows))
    return 0


def _import_transcripts(args: argparse.Namespace) -> int:
    """``history --import``: verify and record each transcript (the default transcript folder
    if none is given); a file that is not a whole transcript is skipped with its reason."""
    from .history import History, HistoryError, record_transcript, transcript_files, verdict_mark

    sources = args.sources or [DEFAULT_TRANSCRIPTS]
    if not args.sources and not Path(DEFAULT_TRANSCRIPTS).is_dir():
        raise UsageError(f"no transcripts given, and no ./{DEFAULT_TRANSCRIPTS} folder here to import from")
    files = transcript_files(sources)
    done: list[dict[str, Any]] = []
    history = History.open()
    assert history is not None, "History.open creates the database"
    with history:
        for path in files:
            try:
                rec, new = record_transcript(path, history=history)
            except HistoryError as exc:
                done.append({"file": str(path), "recorded": None, "reason": str(exc)})
                if not args.json:
                    print(f"skipped: {printable(exc)}", file=sys.stderr)
                continue
            done.append({"file": str(path), "recorded": "new" if new else "updated", "verdict": rec.verdict})
            if not args.json:
                mark, _ = verdict_mark(rec.to_json())
                print(f"{'recorded' if new else 'updated '}: {printable(path)}  ({printable(rec.game_name)}, {mark})")
    if args.json:
        print(printable_json(done, indent=2))
    elif not files:
        print("no transcripts found")
    return 1 if any(d["recorded"] is None for d in done) else 0


# --------------------------------------------------------------------------------------------


def _screen_flags(p: argparse.ArgumentParser, *, in_person: bool = False) -> None:
    """``--ascii`` and ``--bell``, for every command that may open the console (``in_person``:
    one that may also run without it, a bot playing the seat)."""
    when = "in person: " if in_person else ""
    p.add_argument("--ascii", action="store_true", help=f"{when}ASCII cards and markers (also P2PCARDS_ASCII=1)")
    p.add_argument(
        "--bell", action="store_true", help=f"{when}ring the terminal bell when your turn comes (also P2PCARDS_BELL=1)"
    )


def _on_screen_flags(p: argparse.ArgumentParser) -> None:
    """The flags of a command that always plays on screen (``play``, ``demo``)."""
    p.add_argument(
        "--bot-delay",
        type=float,
        default=IN_PERSON_BOT_DELAY,
        metavar="SECONDS",
        help=f"bots' thinking time per move (default {IN_PERSON_BOT_DELAY:g}, as whenever you play on screen)",
    )
    _screen_flags(p)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="p2pcards",
        description="A card table for home networks with no server and no trusted dealer.",
    )
    parser.add_argument("--version", action="version", version=f"p2pcards {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_GameHelpParser)

    p = sub.add_parser("play", help="open the LAN lobby: find, create and join tables, and play")
    p.add_argument(
        "--interface", metavar="IP", help="IPv4 address to look for and announce tables on (default: every interface)"
    )
    p.add_argument("--name", type=_display_name, help="your name at the table (default: your user name)")
    p.add_argument(
        "--port",
        type=int,
        default=0,
        help="TCP port your seat listens on, at the tables you create or join (default: any free port)",
    )
    p.add_argument("--transcript-dir", default=DEFAULT_TRANSCRIPTS, metavar="DIR", help="where to save transcripts")
    _on_screen_flags(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("demo", help="play a game against bots on this computer", game_words=True)
    p.add_argument("--game", help="game id (default: ask; see 'p2pcards plugins')")
    p.add_argument("--players", type=int, help="number of seats (default: the game's minimum)")
    p.add_argument("--seats", type=int, dest="players", help=argparse.SUPPRESS)  # as host took it
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option; repeatable")
    p.add_argument("--variant", help="a named preset of options (see 'p2pcards plugins')")
    p.add_argument("--seed", help="the same seed deals the same games")
    p.add_argument("--name", type=_display_name, help="your name at the table (default: you)")
    p.add_argument("--deck", choices=["local", "mental-poker"], help="mental-poker (default) or the local open dealer")
    _on_screen_flags(p)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("host", help="open a table on the network and play", game_words=True)
    p.add_argument("--game", required=True, help="game id (see 'p2pcards plugins')")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option; repeatable")
    p.add_argument("--variant", help="a named preset of options (see 'p2pcards plugins')")
    p.add_argument("--players", type=int, dest="seats", help="number of seats (default: the game's minimum)")
    p.add_argument("--seats", type=int, dest="seats", help=argparse.SUPPRESS)  # the old name
    p.add_argument("--bots", type=int, default=0, help="bot peers to fill seats with (default 0)")
    p.add_argument(
        "--bot-kind", metavar="KIND", default="strategic", help="the kind of bot for --bots (default strategic)"
    )
    p.add_argument(
        "--play-as-bot",
        "--bot",
        dest="bot",
        metavar="KIND",
        help="no screen: a bot of this kind plays your seat (default: you play it in the console)",
    )
    p.add_argument("--name", type=_display_name, help="your name at the table (default: your user name)")
    p.add_argument("--table-name", type=_display_name, help="the table's name in the lobby (default: NAME's table)")
    p.add_argument("--interface", metavar="IP", help="IPv4 address to listen and announce on (default: all)")
    p.add_argument("--port", type=int, default=0, help="TCP port (default: any free port)")
    p.add_argument("--transcript-dir", default=DEFAULT_TRANSCRIPTS, metavar="DIR", help="where to save the transcript")
    p.add_argument(
        "--spectator-chat",
        action="store_true",
        help="let spectators chat (their lines reach the players, marked as a spectator's; default off)",
    )
    p.add_argument(
        "--grace",
        type=_seconds("grace"),
        default=Timeouts.grace,
        metavar="SECONDS",
        help=f"how long a dropped player may take to come back (default {Timeouts.grace:g})",
    )
    p.add_argument(
        "--deck-timeout",
        type=_seconds("deck"),
        default=Timeouts.deck,
        metavar="SECONDS",
        help=f"how long one deck step may take (default {Timeouts.deck:g})",
    )
    p.add_argument(
        "--turn-timeout",
        type=_seconds("turn"),
        default=Timeouts.turn,
        metavar="SECONDS",
        help=f"how long a player may think (default {Timeouts.turn:g})",
    )
    p.add_argument(
        "--bot-delay",
        type=float,
        metavar="SECONDS",
        help=(
            f"bots' thinking time per move (default {IN_PERSON_BOT_DELAY:g} when you play on screen, "
            "0 with --play-as-bot)"
        ),
    )
    _screen_flags(p, in_person=True)
    p.set_defaults(func=cmd_host)

    p = sub.add_parser("join", help="join a table found on the network, or at HOST:PORT")
    p.add_argument("table", metavar="TABLE-OR-HOST:PORT", help="a table id or name from 'p2pcards list', or HOST:PORT")
    p.add_argument("--name", type=_display_name, help="your name at the table (default: your user name)")
    p.add_argument(
        "--play-as-bot",
        "--bot",
        dest="bot",
        metavar="KIND",
        help="no screen: a bot of this kind plays your seat (default: you play it in the console)",
    )
    p.add_argument(
        "--rematches",
        action="store_true",
        help="with --play-as-bot: follow the table into each rematch its host opens, agreeing at once, "
        "as a person's seat does (until one is declined, or none opens within 30 s)",
    )
    p.add_argument("--interface", metavar="IP", help="IPv4 address to use (default: all)")
    p.add_argument(
        "--port",
        type=int,
        default=0,
        help="TCP port the other seats reach you at, in each rematch too (default: any free port)",
    )
    p.add_argument("--timeout", type=float, default=5.0, metavar="SECONDS", help="how long to look for the table")
    p.add_argument("--transcript-dir", default=DEFAULT_TRANSCRIPTS, metavar="DIR", help="where to save the transcript")
    p.add_argument(
        "--bot-delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="bots' thinking time per move (default 0: only bots play here)",
    )
    _screen_flags(p, in_person=True)
    p.set_defaults(func=cmd_join)

    p = sub.add_parser("list", help="list the tables on the network")
    p.add_argument("--interface", metavar="IP", help="IPv4 address to browse on (default: all)")
    p.add_argument("--timeout", type=float, default=3.0, metavar="SECONDS", help="how long to listen (default 3)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("watch", help="watch a started table without a seat (its public moves only)")
    p.add_argument("table", metavar="TABLE-OR-HOST:PORT", help="a table id or name from 'p2pcards list', or HOST:PORT")
    p.add_argument("--name", type=_display_name, default="spectator", help="your name, shown to the players")
    p.add_argument("--interface", metavar="IP", help="IPv4 address to look for the table on (default: all)")
    p.add_argument("--timeout", type=float, default=5.0, metavar="SECONDS", help="how long to look for the table")
    p.add_argument("--transcript-dir", default=DEFAULT_TRANSCRIPTS, metavar="DIR", help="where to save the transcript")
    p.add_argument("--plain", action="store_true", help="print the public log line by line (no full screen)")
    p.add_argument("--ascii", action="store_true", help="ASCII cards and markers")
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser("resume", help="bring a seat back into its game after a crash")
    p.add_argument("folder", nargs="?", help="the seat's folder (default: the newest unfinished game)")
    p.add_argument(
        "--play-as-bot",
        "--bot",
        dest="bot",
        metavar="KIND",
        help="no screen: a bot of this kind plays the seat (default: the one that played it, or you in the "
        "console if a person did)",
    )
    _screen_flags(p)
    p.add_argument("--transcript-dir", default=DEFAULT_TRANSCRIPTS, metavar="DIR", help="where to save the transcript")
    p.add_argument(
        "--bot-delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="bots' thinking time per move (default 0: only bots play here)",
    )
    p.set_defaults(func=cmd_resume)

    p = sub.add_parser("bench-bots", help="win rates of each game's strategic bot against its script and random bots")
    from .bench_bots import add_arguments as add_bench_bots_arguments

    add_bench_bots_arguments(p)
    p.set_defaults(func=cmd_bench_bots)

    p = sub.add_parser("history", help="the games played here, newest first, and a record per opponent")
    p.add_argument("--opponents", action="store_true", help="everyone played with, by key: games, wins, losses")
    p.add_argument(
        "--limit", type=int, metavar="N", help="show at most N games (default 20) or opponents (default all)"
    )
    p.add_argument(
        "--import",
        dest="sources",
        nargs="*",
        metavar="FILE",
        help=f"record these transcripts or folders of them (default: ./{DEFAULT_TRANSCRIPTS}) after verifying each",
    )
    p.add_argument(
        "--no-verify",
        action="store_true",
        help="list at once: leave the games recorded as they ended (verdict 'pending') unverified for now",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_history)

    p = sub.add_parser("replay", help="verify a transcript, then step through it as one seat saw it, or every hand")
    p.add_argument("file", help="a transcript (.p2pt)")
    shown = p.add_mutually_exclusive_group()
    shown.add_argument(
        "--seat", type=int, metavar="N", help="show what seat N saw (default: the seat that saved the file)"
    )
    shown.add_argument("--all", action="store_true", help="show every hand (once the audit opened every card)")
    shown.add_argument(
        "--table",
        action="store_true",
        help="show only what the table saw face up, as a spectator (the default for a file of 'p2pcards watch')",
    )
    p.add_argument("--print", action="store_true", help="print every step as text instead of opening the screen")
    p.add_argument("--ascii", action="store_true", help="ASCII cards and markers (also P2PCARDS_ASCII=1)")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("verify", help="re-check a game from its transcript: signatures, shuffles, moves, result")
    p.add_argument("file", help="a transcript (.p2pt)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--show-hands", action="store_true", help="show every deal, transfer and move with its faces")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("plugins", help="list installed game plugins, their games and options")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_plugins)

    p = sub.add_parser("new-game", help="write a new game plugin (pyproject, rules, bot, tests) to a folder")
    p.add_argument("name", help="the game id, e.g. high-card")
    p.add_argument("--dir", help="the folder to write (default: ./p2pcards-NAME); must be new or empty")
    p.set_defaults(func=cmd_new_game)

    p = sub.add_parser("simulate", help="play whole games between bots", game_words=True)
    p.add_argument("--game", required=True, help="game id (see 'p2pcards plugins')")
    p.add_argument("--players", type=int, help="number of seats (default: the game's minimum)")
    p.add_argument("--seats", type=int, dest="players", help=argparse.SUPPRESS)  # as host took it
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option; repeatable")
    p.add_argument("--variant", help="a named preset of options")
    p.add_argument("--bot", action="append", metavar="NAME", help="bot for every seat, or repeat once per seat")
    p.add_argument("--games", type=int, default=1, help="how many games (default 1)")
    p.add_argument("--seed", default="0", help="the same seed gives the same games")
    p.add_argument("--local", action="store_true", help="use the local open-faced dealer (fast, one process)")
    p.add_argument(
        "--in-process",
        action="store_true",
        help="use the mental-poker deck with every party in this process (no network)",
    )
    p.add_argument(
        "--transcript-dir", metavar="DIR", help="over the network (the default): save every peer's transcript here"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("doctor", help="check interfaces, the port and discovery; print firewall hints")
    p.add_argument("--interface", metavar="IP", help="test this IPv4 address (default: self-test on 127.0.0.1)")
    p.add_argument("--port", type=int, default=0, help="the TCP port to check (default: any free port)")
    p.add_argument("--timeout", type=float, default=8.0, metavar="SECONDS", help="discovery wait (default 8)")
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("bench", help="time setup, moves and verification with real peers over 127.0.0.1")
    from .bench import add_arguments as add_bench_arguments

    add_bench_arguments(p)
    p.set_defaults(func=cmd_bench)

    return parser


def _leaf_exceptions(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaf_exceptions(inner)]
    return [exc]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return args.func(args)
    except BrokenPipeError:
        # Output piped to a reader that stopped reading (``history --json | head``): as other
        # command-line tools, stop quietly; stdout goes to /dev/null so that Python's flush at
        # exit does not fail again (docs.python.org, "Note on SIGPIPE").
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (UsageError, OptionError, UnknownName) as exc:
        print(f"p2pcards: error: {printable(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:
        # Joining or forming a table failed in a way people can act on (no such table, a
        # version mismatch, a refused seat): one line, not a traceback. Under a nursery the
        # error arrives inside an exception group.
        from .net.lobby import LobbyError

        leaves = _leaf_exceptions(exc)
        if leaves and all(isinstance(e, LobbyError) for e in leaves):
            print(f"p2pcards: error: {printable(leaves[0])}", file=sys.stderr)
            return 2
        # A file we cannot write or read (a full disk, lost permissions): one line, which file.
        failed = next((e for e in leaves if isinstance(e, OSError)), None)
        if failed is None:
            raise
        from .wire.files import write_problem

        where = f"{failed.filename}: " if failed.filename else ""
        print(f"p2pcards: error: {printable(where + write_problem(failed))}", file=sys.stderr)
        return 1
    except BaseException as exc:
        # Ctrl-C, also from inside a nursery (then in an exception group): a seat at a table
        # has told the others it left (net/table.py); no traceback.
        if not all(isinstance(e, KeyboardInterrupt) for e in _leaf_exceptions(exc)):
            raise
        print("p2pcards: interrupted", file=sys.stderr)
        return 130

"""The plugin host: loads games and bots from entry points in the group ``p2pcards``.

The bundled games are ordinary distributions in ``plugins/`` and load through the same path as
any third-party game. A plugin that fails to import, fails in a hook, or registers something
that breaks the contract is reported by name in :attr:`PluginHost.errors`; the other plugins
still load.

Environment variables (as datasette and tox do):

``P2PCARDS_LOAD_PLUGINS``
    a comma-separated allow-list of entry-point or distribution names; only these load.
``P2PCARDS_DISABLE_PLUGINS``
    a comma-separated block-list; these do not load.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import pluggy

from . import hookspecs
from .bots import RandomBot
from .game import Bot, Game

__all__ = [
    "PLUGIN_STEP",
    "PluginError",
    "PluginHost",
    "PluginInfo",
    "UnknownName",
    "load_plugins",
    "plugin_failure",
]

ENTRY_POINT_GROUP = "p2pcards"
ALLOW_ENV = "P2PCARDS_LOAD_PLUGINS"
BLOCK_ENV = "P2PCARDS_DISABLE_PLUGINS"


class UnknownName(LookupError):
    """A game or bot name that no installed plugin provides."""


@dataclass
class PluginError:
    plugin: str
    message: str

    def __str__(self) -> str:
        return f"plugin {self.plugin}: {self.message}"


@dataclass
class PluginInfo:
    name: str
    distribution: str
    version: str
    hooks: list[str] = field(default_factory=list)
    games: list[str] = field(default_factory=list)
    bots: list[str] = field(default_factory=list)


@dataclass
class BotEntry:
    cls: type[Bot]
    game: str | None
    plugin: str


def _names(env: str) -> set[str] | None:
    raw = os.environ.get(env)
    if raw is None:
        return None
    return {n.strip() for n in raw.split(",") if n.strip()}


class PluginHost:
    """Everything the installed plugins provide."""

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager("p2pcards")
        self.pm.add_hookspecs(hookspecs)
        self.games: dict[str, Game] = {}
        self.game_plugin: dict[str, str] = {}
        self.bots: list[BotEntry] = [BotEntry(RandomBot, None, "p2pcards")]
        self.plugins: dict[str, PluginInfo] = {}
        self.errors: list[PluginError] = []

    # -- loading --------------------------------------------------------------------------

    def load_entry_points(self, entry_points: Iterable[metadata.EntryPoint] | None = None) -> None:
        allow, block = _names(ALLOW_ENV), _names(BLOCK_ENV) or set()
        if entry_points is None:
            entry_points = metadata.entry_points(group=ENTRY_POINT_GROUP)
        for ep in sorted(entry_points, key=lambda e: e.name):
            dist = ep.dist.name if ep.dist else "?"
            if allow is not None and not {ep.name, dist} & allow:
                continue
            if {ep.name, dist} & block:
                continue
            try:
                module = ep.load()
            except Exception as exc:  # any failure of foreign code is reported, not raised
                self.errors.append(PluginError(ep.name, f"failed to import: {_short(exc)}"))
                continue
            version = ep.dist.version if ep.dist else "?"
            self.register(module, ep.name, dist, version)

    def register(self, module: Any, name: str, distribution: str = "?", version: str = "?") -> None:
        """Register one plugin object (a module or any object with hook implementations)."""
        if self.pm.has_plugin(name):
            self.errors.append(PluginError(name, "registered twice; the second copy is ignored"))
            return
        try:
            self.pm.register(module, name=name)
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:
            if self.pm.has_plugin(name):
                self.pm.unregister(name=name)
            self.errors.append(PluginError(name, f"breaks the hook contract: {_short(exc)}"))
            return
        info = PluginInfo(name, distribution, version)
        info.hooks = sorted(h.name for h in self.pm.get_hookcallers(module) or [])
        if not info.hooks:
            # pluggy ignores a function without the marker, so a forgotten decorator is silent.
            undecorated = sorted(h for h in ("register_games", "register_bots") if callable(getattr(module, h, None)))
            hint = f" ({', '.join(undecorated)} lacks @p2pcards.hookimpl)" if undecorated else ""
            self.errors.append(PluginError(name, f"implements no hooks{hint}"))
        self.plugins[name] = info
        self._collect(name, info)

    def _collect(self, name: str, info: PluginInfo) -> None:
        plugin = self.pm.get_plugin(name)
        for hook_name, add in (("register_games", self._add_game), ("register_bots", self._add_bot)):
            for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
                if impl.plugin is not plugin:
                    continue
                try:
                    impl.function(register=lambda *a, **k: add(name, info, *a, **k))
                except Exception as exc:
                    self.errors.append(PluginError(name, f"{hook_name} failed: {_short(exc)}"))

    def _add_game(self, plugin: str, info: PluginInfo, game: Any) -> None:
        problem = contract_problem(game)
        if problem:
            self.errors.append(PluginError(plugin, problem))
            return
        if game.id in self.games:
            other = self.game_plugin[game.id]
            self.errors.append(PluginError(plugin, f"game id {game.id!r} is already taken by {other}"))
            return
        self.games[game.id] = game
        self.game_plugin[game.id] = plugin
        info.games.append(game.id)

    def _add_bot(self, plugin: str, info: PluginInfo, cls: Any, game: str | None = None) -> None:
        if not (isinstance(cls, type) and issubclass(cls, Bot) and isinstance(getattr(cls, "name", None), str)):
            self.errors.append(PluginError(plugin, f"{cls!r} is not a Bot subclass with a name"))
            return
        self.bots.append(BotEntry(cls, game, plugin))
        info.bots.append(f"{cls.name}" + (f" ({game})" if game else ""))

    # -- queries --------------------------------------------------------------------------

    def game(self, game_id: str) -> Game:
        try:
            return self.games[game_id]
        except KeyError:
            have = ", ".join(sorted(self.games)) or "none installed"
            raise UnknownName(f"no game {game_id!r} (installed: {have})") from None

    def bots_for(self, game_id: str) -> dict[str, type[Bot]]:
        """Bot classes that can play ``game_id``, by name; a game's own bot overrides a generic
        one of the same name."""
        found: dict[str, type[Bot]] = {}
        for entry in self.bots:
            if entry.game is None:
                found.setdefault(entry.cls.name, entry.cls)
        for entry in self.bots:
            if entry.game == game_id:
                found[entry.cls.name] = entry.cls
        return found

    def rules_versions(self) -> dict[str, str]:
        return {gid: g.rules_version for gid, g in sorted(self.games.items())}

    def describe(self) -> dict[str, Any]:
        """Plain data for ``p2pcards plugins --json``."""
        plugins = []
        for info in sorted(self.plugins.values(), key=lambda i: i.name):
            plugins.append(
                {
                    "name": info.name,
                    "distribution": info.distribution,
                    "version": info.version,
                    "hooks": info.hooks,
                    "games": [describe_game(self.games[g]) for g in info.games],
                    "bots": info.bots,
                }
            )
        return {"plugins": plugins, "errors": [str(e) for e in self.errors]}


def describe_game(game: Game) -> dict[str, Any]:
    return {
        "id": game.id,
        "name": game.name,
        "rules_version": game.rules_version,
        "players": [game.min_players, game.max_players],
        "options": [o.describe() for o in game.options],
        "variants": {k: dict(v) for k, v in game.variants.items()},
        "variant_help": {k: variant_text(game, k) for k in game.variants},
    }


def variant_text(game: Game, variant: str) -> str:
    """A variant in words: "free order: turn order free (...)"."""
    options = {o.name: o for o in game.options}
    parts = []
    for key, value in game.variants.get(variant, {}).items():
        opt = options.get(key)
        if opt is None:
            parts.append(f"{key}={value}")
            continue
        try:
            parsed = opt.parse(value)
        except ValueError:
            parsed = value
        parts.append(f"{opt.title}: {opt.value_text(parsed)}")
    return ", ".join(parts)


_REQUIRED = {"id": str, "name": str, "rules_version": str, "min_players": int, "max_players": int}


def contract_problem(game: Any) -> str | None:
    """Why ``game`` cannot be used as a game, or ``None`` when it fits the contract."""
    if not isinstance(game, Game):
        return f"registered {game!r}, which is not a p2pcards.game.Game instance"
    for attr, kind in _REQUIRED.items():
        if not isinstance(getattr(game, attr, None), kind):
            return f"game {type(game).__name__} has no {attr} of type {kind.__name__}"
    if not 1 <= game.min_players <= game.max_players:
        return f"game {game.id}: player counts {game.min_players}..{game.max_players} make no sense"
    names = [o.name for o in game.options]
    if len(set(names)) != len(names):
        return f"game {game.id}: two options share a name"
    for opt in game.options:
        if opt.type not in (bool, int, str):
            return f"game {game.id}: option {opt.name} has type {opt.type.__name__}; options are bool, int or str"
        try:
            opt.parse(opt.default)
        except ValueError as exc:
            return f"game {game.id}: the default of option {opt.name} is invalid ({exc})"
        if not isinstance(opt.label, str) or not isinstance(opt.values, tuple):
            return f"game {game.id}: option {opt.name}: label is text and values a tuple"
        for entry in opt.values:
            if not (isinstance(entry, tuple) and len(entry) == 3 and all(isinstance(t, str) for t in entry[1:])):
                return f"game {game.id}: option {opt.name}: each of values is (value, label, description)"
            try:
                opt.parse(entry[0])
            except ValueError as exc:
                return f"game {game.id}: option {opt.name}: a labelled value is invalid ({exc})"
    options = {o.name: o for o in game.options}
    for variant, values in game.variants.items():
        for key, value in values.items():
            if key not in options:
                return f"game {game.id}: variant {variant!r} sets {key!r}, which is not an option"
            try:
                options[key].parse(value)
            except ValueError as exc:
                return f"game {game.id}: variant {variant!r}: {exc}"
    return None


def _short(exc: BaseException) -> str:
    """The error and, for a plugin author, where in their code it was raised."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)[1:] if not f.filename.startswith("<")]
    where = f" ({frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    if isinstance(exc, SyntaxError):
        where = ""  # its message already names the file and line
    return f"{type(exc).__name__}: {exc}{where}"


_host: PluginHost | None = None


def load_plugins(*, fresh: bool = False) -> PluginHost:
    """The process-wide plugin host, loaded from entry points on first use."""
    global _host
    if _host is None or fresh:
        host = PluginHost()
        host.load_entry_points()
        _host = host
    return _host


# -- a game plugin that fails during a game ---------------------------------------------------


#: The step of a stop on a game plugin's failure (live, and in ``p2pcards verify``).
PLUGIN_STEP = "game plugin"


def _plugin_files(game: Game) -> tuple[str, bool]:
    """Where ``game``'s code lives: its package's folder (``True``), or its one module file
    (``False``: a module of its own, or a game defined inside p2pcards itself)."""
    module = sys.modules.get(type(game).__module__)
    top = sys.modules.get(type(game).__module__.split(".")[0])
    if top is not None and top.__name__ != "p2pcards" and getattr(top, "__path__", None) and top.__file__:
        return os.path.dirname(os.path.abspath(top.__file__)), True
    return os.path.abspath(getattr(module, "__file__", None) or ""), False


def plugin_failure(exc: BaseException, game: Game, *, here_only: bool = False) -> str | None:
    """Why the game stops when ``game``'s plugin raised ``exc``, an exception other than the
    rules' refusal (:class:`~p2pcards.game.IllegalAction`), in our words: the plugin (its game
    id and module), the exception's type and the plugin's innermost line on the way. ``None``
    if the plugin's code is not on ``exc``'s traceback (not its failure: a bug of ours, which
    is not hidden). The exception's message is not quoted: a plugin may put a peer's move in
    it, and a verdict never repeats a peer's words. A plugin bug is not a player's fault:
    whoever made the move that tripped it, nobody is named (a move the table's own field
    checks refuse names its author before any plugin sees it).

    ``here_only``: it failed in code that only this seat runs (its own player's or bot's
    choice of a move, not the rules every seat runs alike on the log): this seat's program
    failed, and it leaves the table (a signed goodbye), as a player who quits does."""
    if not isinstance(exc, Exception) or exc.__traceback__ is None:
        return None
    where, folder = _plugin_files(game)
    if not where:
        return None
    last: traceback.FrameSummary | None = None
    for frame in traceback.extract_tb(exc.__traceback__):
        path = os.path.abspath(frame.filename)
        if path.startswith(where + os.sep) if folder else path == where:
            last = frame
    if last is None:
        return None
    module = type(game).__module__
    consequence = (
        "at this seat only, as it chose its move: this seat leaves the table"
        if here_only
        else "a bug in the plugin, not a player's fault: nobody is named"
    )
    return (
        f"the game plugin for {game.id} ({module}) failed: {type(exc).__name__} at "
        f"{os.path.basename(last.filename)} line {last.lineno} ({consequence})"
    )

"""The hooks a p2pcards plugin may implement.

Hooks are registry style (after llm's ``register_models``): each receives a ``register``
callback and calls it once per thing it provides. Arguments are passed by keyword, so a hook
implementation may accept just the arguments it needs and hooks can grow new ones.

A plugin module looks like this::

    from p2pcards import hookimpl

    @hookimpl
    def register_games(register):
        register(HighCard())

    @hookimpl
    def register_bots(register):
        register(CautiousBot, game="high-card")
"""

from __future__ import annotations

import pluggy

hookspec = pluggy.HookspecMarker("p2pcards")
hookimpl = pluggy.HookimplMarker("p2pcards")


@hookspec
def register_games(register):
    """Call ``register(game)`` for each :class:`p2pcards.game.Game` instance provided."""


@hookspec
def register_bots(register):
    """Call ``register(bot_class, game=ID)`` for each bot provided; ``game=None`` means a bot
    that plays any game. ``bot_class`` subclasses :class:`p2pcards.game.Bot`."""

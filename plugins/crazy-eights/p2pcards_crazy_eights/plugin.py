"""Entry point (group ``p2pcards``): registers the game and its bot."""

from p2pcards import hookimpl

from .bots import SimpleBot, StrategicBot
from .rules import CrazyEights


@hookimpl
def register_games(register):
    register(CrazyEights())


@hookimpl
def register_bots(register):
    # The core's "random" bot plays any game through legal_actions(); this one plays better.
    register(StrategicBot, game=CrazyEights.id)
    register(SimpleBot, game=CrazyEights.id)

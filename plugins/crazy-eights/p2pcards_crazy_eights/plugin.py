"""Entry point (group ``p2pcards``): registers the game and its bot."""

from p2pcards import hookimpl

from .bots import StrategicBot
from .rules import CrazyEights


@hookimpl
def register_games(register):
    register(CrazyEights())


@hookimpl
def register_bots(register):
    # The core's "random" bot plays any game through legal_actions(); this one plays better.
    register(StrategicBot, game=CrazyEights.id)

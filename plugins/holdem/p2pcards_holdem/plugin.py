"""Entry point (group ``p2pcards``): registers the game and its bots."""

from p2pcards import hookimpl

from .bots import CallingBot, StrategicBot
from .rules import Holdem


@hookimpl
def register_games(register):
    register(Holdem())


@hookimpl
def register_bots(register):
    # The core's "random" bot plays any game through legal_actions(); these play better.
    register(StrategicBot, game=Holdem.id)
    register(CallingBot, game=Holdem.id)

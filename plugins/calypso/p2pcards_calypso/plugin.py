"""Entry point of the p2pcards-calypso distribution: registers the game and its bots."""

from p2pcards import hookimpl

from .bots import SimpleBot, StrategicBot
from .rules import Calypso


@hookimpl
def register_games(register):
    register(Calypso())


@hookimpl
def register_bots(register):
    register(StrategicBot, game=Calypso.id)
    register(SimpleBot, game=Calypso.id)

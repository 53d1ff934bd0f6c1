"""Entry point (group ``p2pcards``): registers the game and its strategic bot."""

from p2pcards import hookimpl

from .bots import StrategicBot, TruthfulBot
from .rules import CalsBS


@hookimpl
def register_games(register):
    register(CalsBS())


@hookimpl
def register_bots(register):
    # The generic "random" bot of the core plays over legal_actions() and needs nothing here.
    register(StrategicBot, game=CalsBS.id)
    register(TruthfulBot, game=CalsBS.id)

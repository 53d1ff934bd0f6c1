"""Tools for testing a game: scenarios from a stated position, and whole games checked against
the contract. A plugin's own tests use them; so do p2pcards' tests of the bundled games.

* :class:`ScenarioTable` starts a game from stated hands, dealer, coins or a stacked stock, plays
  typed commands for the seats and reads the outcome, with the local open-faced dealer.
  :class:`StackedDealer` is its deck; :func:`stack_deal` stacks the stock for a deal the test
  knows; :func:`pick_cards` picks physical copies for stated faces.
* :func:`check_game` plays whole games between random bots for every variant and player count,
  and checks every legal action against ``check``, ``check_own`` and the text grammar, a
  peer's replica against the table's, the result and the audit.

docs/testing.md shows how a plugin author uses them. Nothing here needs pytest.
"""

from .check import GameCheck, GameCheckFailure, check_game
from .scenario import Cards, ScenarioTable, StackedDealer, load_game, pick_cards, stack_deal

__all__ = [
    "Cards",
    "GameCheck",
    "GameCheckFailure",
    "ScenarioTable",
    "StackedDealer",
    "check_game",
    "load_game",
    "pick_cards",
    "stack_deal",
]

"""Tools for testing a game: scenarios from a stated position, and whole games checked against
the contract. A plugin's own tests use them; so do p2pcards' tests of the bundled games.

* :class:`ScenarioTable` starts a game from stated hands, dealer, coins or a stacked stock, plays
  typed commands for the seats and reads the outcome, with the local open-faced dealer.
  :class:`StackedDealer` is its deck; :func:`stack_deal` stacks the stock for a deal the test
  knows; :func:`pick_cards` picks physical copies for stated faces.
* :func:`check_game` plays whole games between random bots for every variant and player count,
  and checks every legal action against ``check``, ``check_own`` and the text grammar, a
  peer's replica against the table's, the result and the audit.
* :func:`play_loopback` (under trio) and :func:`run_loopback` play a whole networked table, every
  seat a peer of its own over TCP on 127.0.0.1, with bots or agents of the test's own, and
  return each seat's outcome and transcript (:class:`LoopbackTable`); on virtual time
  (:func:`virtual_clock`, trio's autojump clock) unless told otherwise.

docs/testing.md shows how a plugin author uses them. Nothing here needs pytest.
"""

from .check import GameCheck, GameCheckFailure, check_game
from .loopback import LoopbackFailure, LoopbackTable, SeatSpec, play_loopback, run_loopback, virtual_clock
from .scenario import Cards, ScenarioTable, StackedDealer, load_game, pick_cards, stack_deal

__all__ = [
    "Cards",
    "GameCheck",
    "GameCheckFailure",
    "LoopbackFailure",
    "LoopbackTable",
    "ScenarioTable",
    "SeatSpec",
    "StackedDealer",
    "check_game",
    "load_game",
    "pick_cards",
    "play_loopback",
    "run_loopback",
    "stack_deal",
    "virtual_clock",
]

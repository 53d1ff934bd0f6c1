"""A seat drops out of a game dealt by the real mental-poker deck (issue 30): the rules set its
cards aside, the deck publishes its keys of the cards nobody holds and goes on without it, and
bots play the game to its end and audit it with no seed of the seat that dropped out."""

from __future__ import annotations

import random

import pytest

from p2pcards.bots import RandomBot
from p2pcards.deck.backend import mental_poker_factory
from p2pcards.engine import DECK_STEPS, Replica, carry_out, play
from p2pcards.game import Turn
from p2pcards.testing import load_game


def _to_first_turn(game, replica, deck) -> None:
    for _ in range(200):
        step = replica.next_step()
        if isinstance(step, Turn):
            return
        assert isinstance(step, DECK_STEPS)
        carry_out(game, replica.state, step, deck)
    raise AssertionError("no turn")


@pytest.mark.slow  # whole games with proofs
@pytest.mark.parametrize(
    ("game_id", "players", "options", "dropper"),
    [("cals-bs", 4, {"match_target": 2}, 2), ("crazy-eights", 3, {}, 1)],
)
def test_a_real_deck_game_goes_on_to_its_audit_after_a_drop_out(game_id, players, options, dropper):
    game = load_game(game_id)
    options = game.resolve_options(options, players)
    deck = mental_poker_factory(seed="drop-out")(game, options, players, 0)
    replica = Replica(game, options, players)
    _to_first_turn(game, replica, deck)
    set_aside = list(replica.state.hands[dropper])
    replica.drop_out(dropper)
    deck.drop_out(dropper)
    rng = random.Random(11)
    bots = [RandomBot(game, seat, options, rng) for seat in range(players)]
    record = play(game, options, players, deck, bots, replica=replica)
    assert dropper not in record.result.winners
    assert record.result.details["out"] == [dropper]
    assert record.violations == []
    assert not set(set_aside) & set(record.faces)  # never opened, not even by the audit
    assert all(p.blame is None for p in deck.playing)
    assert all(dropper in p.dropped for p in deck.playing)

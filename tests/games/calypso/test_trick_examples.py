"""rules.md II.c: the seed's eight trick examples, reconstructed, under both trick rules.

Seats: N (seat 2) has ♣ and leads, E (1) ♥, S (3) ♦, W (0) ♠; cards in playing order N E S W.
"""

import pytest

from .calypso_table import E, N, S, Table, W

RULES = ["BEAT_THE_LEADER", "ANY_RUFF_BEATS_TRUMP_LEAD"]

# (example, N E S W cards, seats void in a suit, winner)
EXAMPLES = [
    (1, ["8h", "Kh", "2h", "10h"], {}, E),
    (2, ["4d", "7h", "Ad", "9d"], {"E": "d"}, E),
    (3, ["3s", "5h", "9d", "As"], {"E": "s", "S": "s"}, S),
    (4, ["9c", "Kc", "2c", "5c"], {}, N),
    (5, ["6c", "8h", "10d", "3c"], {"E": "c", "S": "c"}, S),
    (6, ["6s", "Qh", "Qd", "10s"], {"E": "s", "S": "s"}, E),
]


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("number, cards, void, winner", EXAMPLES)
def test_seed_example(rule, number, cards, void, winner):
    hands = {seat: [card] for seat, card in zip("NESW", cards)}
    t = Table(hands=hands, void=void, trump_lead_rule=rule)
    assert t.state.trump == {0: t.state.trump[0], **t.state.trump}
    assert [t.state.trump[s].value for s in (N, E, S, W)] == ["c", "h", "d", "s"]
    assert t.trick(*cards) == winner


@pytest.mark.parametrize("rule", RULES)
def test_seed_examples_7_and_8_allocation(rule):
    """Ex. 7: ♣4 ♣6 ♣J ♣6, North keeps 4, 6, J and discards the second 6. Ex. 8 (North leads
    again): ♣8 ♣J ♣7 ♦8 (West void in clubs): 8 and 7 to North, ♦8 to South's calypso, the
    ♣J to North's pile since he already has a jack."""
    hands = {"N": ["4c", "8c"], "E": ["6c", "Jc"], "S": ["Jc", "7c"], "W": ["6c", "8d"]}
    t = Table(hands=hands, void={"W": "c"}, trump_lead_rule=rule)
    assert t.trick("4c", "6c", "Jc", "6c") == N
    assert t.calypso("N") == {"4", "6", "J"}
    assert t.pile("N") == ["6c"]
    assert t.trick("8c", "Jc", "7c", "8d") == N
    # State after ex. 7-8, as in the seed.
    assert t.calypso("N") == {"4", "6", "7", "8", "J"}
    assert t.calypso("S") == {"8"}
    assert t.pile("N") == ["6c", "Jc"]
    assert t.calypso("E") == t.calypso("W") == set() and t.pile("S") == []

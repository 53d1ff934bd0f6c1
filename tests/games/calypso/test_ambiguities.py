"""One scenario per ambiguity resolution of rules.md II.b (Q-CY-1 to Q-CY-22)."""

import pytest
from p2pcards_calypso import tricks

from p2pcards.cards import Suit
from p2pcards.game import Turn

from .calypso_table import E, N, S, Table, W, game  # noqa: F401 (game is a fixture)


@pytest.mark.parametrize("rule, winner", [("BEAT_THE_LEADER", N), ("ANY_RUFF_BEATS_TRUMP_LEAD", E)])
def test_Q_CY_01_a_lower_ruff_against_a_led_own_trump(rule, winner):
    t = Table(hands={"N": ["Qc"], "E": ["5h"], "S": ["2c"], "W": ["3c"]}, void={"E": "c"}, trump_lead_rule=rule)
    assert t.trick("Qc", "5h", "2c", "3c") == winner


def test_Q_CY_02_following_with_your_own_suit_is_plain():
    # North leads ♥ (East's suit); East's ♥3 follows and is beaten by West's higher heart.
    t = Table(hands={"N": ["2h"], "E": ["3h"], "S": ["4h"], "W": ["5h"]})
    assert t.trick("2h", "3h", "4h", "5h") == W


def test_Q_CY_03_ruffs_of_different_suits_compare_by_rank_first_played_on_ties():
    t = Table(hands={"N": ["6s"], "E": ["Jh"], "S": ["Qd"], "W": ["10s"]}, void={"E": "s", "S": "s"})
    assert t.trick("6s", "Jh", "Qd", "10s") == S


def test_Q_CY_04_identical_cards_first_played_wins():
    t = Table(hands={"N": ["Kd"], "E": ["2d"], "S": ["3d"], "W": ["Kd"]})
    assert t.trick("Kd", "2d", "3d", "Kd") == N


def test_Q_CY_05_a_void_player_may_discard_instead_of_trumping():
    t = Table(hands={"N": ["4d"], "E": ["7h", "2s"], "S": ["Ad"], "W": ["9d"]}, void={"E": "d"})
    t.act(N, "4d")
    assert t.trick("2s", "Ad", "9d") == S  # E discards ♠2; the highest diamond wins


def test_Q_CY_06_placement_is_mandatory_and_automatic():
    t = Table(hands={"N": ["Ac"], "E": ["Ah"], "S": ["Kc"], "W": ["Kh"]}, void={"E": "c", "W": "c"})
    # E's ♥A ruff only equals the led ♣A, so North wins (default rule) and nobody is asked.
    assert t.trick("Ac", "Ah", "Kc", "Kh") == N
    assert t.game.next_step(t.state) == Turn(N)
    assert t.calypso("N") == {"A", "K"} and t.pile("N") == ["Ah", "Kh"] and t.calypso("E") == set()


def test_Q_CY_07_duplicates_and_the_partners_duplicates_go_to_the_winners_pile():
    t = Table(hands={"N": ["Ac"], "E": ["2c"], "S": ["3c"], "W": ["8d"]}, void={"W": "c"})
    t.state.tableaux[S].current = {tricks.Rank.EIGHT: -1}
    t.trick("Ac", "2c", "3c", "8d")
    assert t.pile("N") == ["8d"] and t.pile("S") == []


def test_Q_CY_08_opponents_cards_are_dead_in_the_winners_pile_10_each():
    t = Table(hands={"N": ["Ac"], "E": ["Kh"], "S": ["2c"], "W": ["Ks"]}, void={"E": "c", "W": "c"})
    assert t.trick("Ac", "Kh", "2c", "Ks") == N  # E's ♥K ruff is lower than the led ♣A
    assert t.pile("N") == ["Kh", "Ks"] and t.state.totals()[N] == 2 * 20 + 2 * 10


def test_Q_CY_09_completing_mid_trick_the_rest_starts_the_next():
    t = Table(hands={"N": ["Ac"], "E": ["Ac"], "S": ["9c"], "W": ["Kc"]})
    t.state.tableaux[N].current = {tricks.Rank(r): -r for r in range(2, 14)}  # lacks only the ace
    t.trick("Ac", "Ac", "9c", "Kc")
    assert len(t.state.tableaux[N].completed) == 1 and t.calypso("N") == {"A", "9", "K"}


def test_Q_CY_10_no_holding_back_for_a_second_calypso():
    t = Table(hands={"N": ["Ac"], "E": ["Ac"], "S": ["2c"], "W": ["3c"]})
    t.trick("Ac", "Ac", "2c", "3c")
    assert t.pile("N") == ["Ac"] and not t.state.tableaux[N].completed


def test_Q_CY_11_calypso_ordinal_per_player_not_per_side():
    one = tricks.Tableau(completed=[[0] * 13])
    assert tricks.player_points(one) * 2 == 1000  # two partners with one each: 500 + 500


def test_Q_CY_12_state_persists_and_scores_only_at_the_end():
    t = Table()
    import random

    rng = random.Random(3)
    while t.state.deal_number < 2:
        step = t.game.next_step(t.state)
        t.replica.act(step.seat, rng.choice(t.game.legal_actions(t.state, step.seat, t.known(step.seat))))
        t.advance()
    assert t.state.result is None and sum(x.card_count() for x in t.state.tableaux.values()) == 52


def test_Q_CY_13_cut_ties_recut_and_the_highest_deals_first():
    t = Table(cuts=[14, 14, 5, 4], coins={"cut2/seat0": 2, "cut2/seat1": 9})
    assert t.state.ranking == [1, 0, 2, 3] and t.state.order[0] == 1
    assert t.state.partner(1) == 0


def test_Q_CY_14_deals_come_from_the_stock_without_reshuffling():
    t = Table()
    stock = list(t.dealer_stock)
    t.play_out()
    dealt = [h for d in t.deal_steps() for h in d.to]
    assert dealt == stock and t.dealer.shuffles == 1


def test_Q_CY_15_revoke_handling_is_rule_30():
    assert tricks.REVOKE_PENALTY == 260 and tricks.UNESTABLISHED_TRICK == 12


def test_Q_CY_16_solo_other_suits_go_to_the_winners_pile():
    # Seat 1 (♥) leads ♥A; seat 0 (♠) discards ♥? no: seat 0 is void and throws ♠ (his own: ruff)
    t = Table(mode="solo", hands={1: ["Ah"], 2: ["2d"], 3: ["3c"], 0: ["4h"]}, void={2: "h", 3: "h"})
    assert t.trick("Ah", "2d", "3c", "4h") == 1
    assert t.calypso(1) == {"A", "4"} and t.pile(1) == ["2d", "3c"] and t.calypso(2) == set()


def test_Q_CY_17_three_removes_the_suit_from_all_three_packs(game):
    deck = game.deck(game.resolve_options({"mode": "three"}, 3), 3)
    assert len(deck) == 117 == 3 * 3 * 13 and Suit.CLUBS not in {c.suit for c in deck}


def test_Q_CY_18_trumps_by_draw_in_solo_and_three():
    t = Table(mode="three", cuts=[9, 12, 3], choices=["d", "h"])
    assert t.state.ranking == [1, 0, 2]
    assert t.state.trump == {1: Suit.DIAMONDS, 0: Suit.HEARTS, 2: Suit.SPADES}


def test_Q_CY_19_totals_and_difference_reported_no_money():
    result = Table().play_out().result
    assert {"sides", "difference", "players"} <= set(result.details)


def test_Q_CY_20_the_reconstructed_examples_are_tested():
    from . import test_trick_examples

    assert len(test_trick_examples.EXAMPLES) == 6  # plus examples 7 and 8 in one test


def test_Q_CY_21_east_trumped_in_example_2():
    t = Table(hands={"N": ["4d"], "E": ["7h"], "S": ["Ad"], "W": ["9d"]}, void={"E": "d"})
    assert t.trick("4d", "7h", "Ad", "9d") == E


def test_Q_CY_22_what_players_may_see(game):
    t = Table(hands={"N": ["4c", "Ah", "2s"], "E": ["6c"], "S": ["Jc"], "W": ["6c"]})
    t.trick("4c", "6c", "Jc", "6c")
    t.act(N, "play Ah")
    view = game.view(t.state, N, t.known(N))
    north = view["players"][N]
    assert north["calypso"] == ["Jc", "6c", "4c"] and north["pile"] == 1 and north["completed"] == 0
    assert view["trick"] == [{"seat": N, "card": "Ah"}]
    assert "tricks" not in view and "history" not in view  # earlier tricks are not reviewable
    assert view["hand"] == sorted(view["hand"], key=lambda c: c.sort_key())  # faces (Card)
    assert "hand" not in game.view(t.state, None, {})
    assert game.next_step(t.state) == Turn(E)

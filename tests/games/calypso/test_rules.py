"""One scenario per rule of rules.md Part II (II.1 to II.30), named after the rule."""

import random

import pytest
from p2pcards_calypso import tricks

from p2pcards.cards import Card, Rank, Suit
from p2pcards.game import IllegalAction, OptionError, Shuffle, Turn

from .calypso_table import E, N, S, Table, W, game  # noqa: F401 (game is a fixture)


def fill_calypso(table, seat, ranks):
    """Put ranks into a seat's calypso in progress (dummy handles: these cards are not in play)."""
    table.state.tableaux[seat].current = {Rank(r): -100 - r for r in ranks}


def test_II_01_ranks_ace_high_and_a_calypso_runs_ace_to_two():
    t = Table(hands={"N": ["2h"], "E": ["Ah"], "S": ["Kh"], "W": ["10h"]})
    assert t.trick("2h", "Ah", "Kh", "10h") == E
    tableau = tricks.Tableau()
    for rank in list(Rank)[:-1]:
        tableau.add(rank, int(rank))
    assert len(tableau.current) == 12 and not tableau.completed
    tableau.add(Rank.ACE, 14)
    assert len(tableau.completed) == 1 and tableau.current == {}


@pytest.mark.parametrize("first, partner", [("s", "h"), ("h", "s"), ("d", "c"), ("c", "d")])
def test_II_02_partner_suits(first, partner):
    t = Table(choices=[first, "d" if first in "sh" else "s"])
    assert t.state.trump[W].value == first and t.state.trump[E].value == partner
    assert tricks.PARTNER_SUIT[Suit(first)] == Suit(partner)


def test_II_03_modes_and_player_counts(game):
    assert game.player_counts({"mode": "partnership"}) == range(4, 5)
    assert game.player_counts({"mode": "solo"}) == range(4, 5)
    assert game.player_counts({"mode": "three"}) == range(3, 4)
    with pytest.raises(OptionError):
        game.resolve_options({"mode": "three"}, 4)
    with pytest.raises(OptionError):
        game.resolve_options({}, 3)
    assert game.default_players({"mode": "three"}) == 3 and game.default_players({}) == 4


def test_II_04_deck_four_packs_or_three_packs_less_a_suit(game):
    deck = game.deck(game.resolve_options({}, 4), 4)
    assert len(deck) == len(set(deck)) == 208 and {c.pack for c in deck} == {0, 1, 2, 3}
    three = game.deck(game.resolve_options({"mode": "three", "removed_suit": "hearts"}, 3), 3)
    assert len(three) == 117 and Suit.HEARTS not in {c.suit for c in three}
    assert {c.pack for c in three} == {0, 1, 2}


def test_II_05_copies_are_identical_in_play():
    """Two copies of ♣J: the second is a duplicate for the calypso, whatever its pack."""
    t = Table(hands={"N": ["Jc"], "E": ["Jc"], "S": ["2c"], "W": ["3c"]})
    held = [t.known(N)[h] for h in t.state.hands[N] if t.known(N)[h].face == Card(Rank.JACK, Suit.CLUBS)]
    t.trick("Jc", "Jc", "2c", "3c")
    assert t.calypso("N") == {"J", "2", "3"} and t.pile("N") == ["Jc"] and held


def test_II_06_shuffled_once_per_game():
    t = Table()
    t.play_out()
    assert sum(isinstance(s, Shuffle) for s in t.steps) == 1 and t.dealer.shuffles == 1


def test_II_07_thirteen_each_one_at_a_time_clockwise_from_the_dealers_left():
    t = Table()
    deal = t.deal_steps()[0]
    order = t.state.order
    assert len(deal.to) == 52
    for i, handle in enumerate(t.dealer_stock[:52]):  # the top of the stock, in order
        assert deal.to[handle] == order[(0 + 1 + i) % 4]
    assert all(len(t.state.hands[s]) == 13 for s in range(4))


@pytest.mark.parametrize("mode, sizes", [("partnership", [208, 156, 104, 52]), ("three", [117, 78, 39])])
def test_II_08_number_of_deals_and_the_stock(mode, sizes):
    t = Table(mode=mode)
    seen = []
    state = t.state
    t.play_out()
    deals = t.deal_steps()
    assert len(deals) == len(sizes)
    n = t.players
    stock = sizes[0]
    for deal in deals:
        assert len(deal.to) == 13 * n
        seen.append(stock)
        stock -= 13 * n
    assert seen == sizes and state.stock == []


def test_II_09_dealer_rotation_and_first_leader():
    t = Table()
    order = t.state.order
    for number in range(4):
        assert t.state.order[t.state.dealer_position] == order[number]
        assert t.state.leader == order[(number + 1) % 4]
        rng = random.Random(number)
        while t.state.deal_number == number + 1 and t.state.phase == "playing":
            step = t.game.next_step(t.state)
            t.replica.act(step.seat, rng.choice(t.game.legal_actions(t.state, step.seat, t.known(step.seat))))
            t.advance()


def test_II_10_partnership_cut_two_highest_are_partners_opposite_highest_deals():
    # Seat 3 cuts A, seat 1 K, seat 0 Q, seat 2 J.
    t = Table(cuts=[12, 13, 11, 14], choices=["h", "c"])
    assert t.state.ranking == [3, 1, 0, 2]
    assert t.state.order == [3, 0, 1, 2]  # 3 deals; partners 3 and 1 sit opposite
    assert t.state.partner(3) == 1 and t.state.partner(0) == 2
    assert t.state.trump == {3: Suit.HEARTS, 1: Suit.SPADES, 0: Suit.CLUBS, 2: Suit.DIAMONDS}
    assert t.state.order[t.state.dealer_position] == 3


def test_II_10b_tied_cutters_cut_again_among_themselves():
    t = Table(
        cuts=[10, 10, 14, 10],
        coins={"cut2/seat0": 3, "cut2/seat1": 5, "cut2/seat3": 3, "cut3/seat0": 1, "cut3/seat3": 0},
    )
    assert t.state.ranking == [2, 1, 0, 3]
    assert [label for label in t.dealer.coin_log if label.startswith("cut2")] == [
        "cut2/seat0",
        "cut2/seat1",
        "cut2/seat3",
    ]
    assert [label for label in t.dealer.coin_log if label.startswith("cut3")] == ["cut3/seat0", "cut3/seat3"]


def test_II_11_trump_suits_never_change():
    t = Table()
    before = dict(t.state.trump)
    t.play_out()
    assert t.state.trump == before


def test_II_12_solo_highest_chooses_first_lowest_gets_the_rest():
    t = Table(mode="solo", cuts=[11, 14, 12, 13], choices=["d", "s", "h"])
    assert t.state.ranking == [1, 3, 2, 0]
    assert t.state.trump == {1: Suit.DIAMONDS, 3: Suit.SPADES, 2: Suit.HEARTS, 0: Suit.CLUBS}
    assert t.state.partner(1) is None


def test_II_13_three_players_choose_among_the_suits_left_in_the_deck():
    t = Table(mode="three", removed_suit="spades", choices=["h", "c"])
    assert t.state.trump == {0: Suit.HEARTS, 1: Suit.CLUBS, 2: Suit.DIAMONDS}
    with pytest.raises(IllegalAction):
        Table(mode="three", removed_suit="spades", choices=["s"])


def test_II_14_thirteen_tricks_first_lead_left_of_dealer_winner_leads():
    t = Table(hands={"N": ["8h"], "E": ["Kh"], "S": ["2h"], "W": ["10h"]})
    assert t.game.next_step(t.state) == Turn(N)
    t.trick("8h", "Kh", "2h", "10h")
    assert t.game.next_step(t.state) == Turn(E) and t.state.trick_number == 2


def test_II_15_clockwise_one_card_each_three_in_the_three_player_game():
    t = Table(mode="three")
    assert t.game.next_step(t.state) == Turn(1)
    seats = []
    for _ in range(3):
        step = t.game.next_step(t.state)
        seats.append(step.seat)
        t.replica.act(step.seat, t.game.legal_actions(t.state, step.seat, t.known(step.seat))[0])
        t.advance()
    assert seats == [1, 2, 0] and t.state.trick_number == 2


def test_II_16_follow_suit_if_able_else_anything():
    t = Table(hands={"N": ["4d"], "E": ["7h", "2s"], "S": ["Ad", "Kc"]}, void={"E": "d"})
    t.act(N, "play 4d")
    e_moves = {str(t.known(E)[a["card"]]) for a in t.game.legal_actions(t.state, E, t.known(E))}
    assert {"7h", "2s"} <= e_moves  # void: discard or own trump
    t.act(E, "play 2s")
    s_moves = {t.known(S)[a["card"]].suit for a in t.game.legal_actions(t.state, S, t.known(S))}
    assert s_moves == {Suit.DIAMONDS}


def test_II_17_the_client_refuses_a_revoke_that_peers_cannot_see():
    t = Table(hands={"N": ["4d"], "E": ["Kd", "7h"]})
    t.act(N, "play 4d")
    action = t.parse(E, "play 7h")
    t.game.check(t.state, E, action)  # public information cannot tell
    with pytest.raises(IllegalAction, match="follow suit"):
        t.game.check_own(t.state, E, action, t.known(E))


def test_II_18_following_your_own_suit_is_not_a_trump_and_partner_suit_is_a_discard():
    # E follows hearts (his own suit) when North led it: plain; W discards ♥ partner cards? No:
    # S (♦) is void in ♠ and throws ♣ (his partner's suit): a discard that cannot win.
    t = Table(hands={"N": ["2s"], "E": ["3s"], "S": ["Ac"], "W": ["4s"]}, void={"S": "s"})
    assert t.trick("2s", "3s", "Ac", "4s") == W  # W's ♠4 follows (his own suit led by N: plain)
    assert not tricks.is_ruff(Card(Rank.ACE, Suit.CLUBS), Suit.DIAMONDS, Suit.SPADES)
    assert not tricks.is_ruff(Card(Rank.FOUR, Suit.SPADES), Suit.SPADES, Suit.SPADES)


@pytest.mark.parametrize("rule, winner", [("BEAT_THE_LEADER", N), ("ANY_RUFF_BEATS_TRUMP_LEAD", E)])
def test_II_19_and_20_a_led_trump_against_an_equal_ruff(rule, winner):
    t = Table(hands={"N": ["9c"], "E": ["9h"], "S": ["2c"], "W": ["3c"]}, void={"E": "c"}, trump_lead_rule=rule)
    assert t.trick("9c", "9h", "2c", "3c") == winner


@pytest.mark.parametrize("rule", ["BEAT_THE_LEADER", "ANY_RUFF_BEATS_TRUMP_LEAD"])
def test_II_19_and_20_a_higher_ruff_and_overruffs(rule):
    # North leads ♣5, E ruffs ♥9, S over-ruffs... S is N's partner: ♦J ruff; W under-ruffs ♠2.
    t = Table(
        hands={"N": ["5c"], "E": ["9h"], "S": ["Jd"], "W": ["2s"]},
        void={"E": "c", "S": "c", "W": "c"},
        trump_lead_rule=rule,
    )
    assert t.trick("5c", "9h", "Jd", "2s") == S


def test_II_21_the_rules_differ_only_on_a_trump_lead_beaten_by_a_lower_or_equal_ruff():
    trump_of = {0: Suit.SPADES, 1: Suit.HEARTS, 2: Suit.CLUBS, 3: Suit.DIAMONDS}
    rng = random.Random(5)
    deck = [Card(r, s) for s in Suit for r in Rank]
    for _ in range(3000):
        plays = list(zip([2, 1, 3, 0], rng.sample(deck, 4)))
        a = tricks.trick_winner(plays, trump_of, tricks.BEAT_THE_LEADER)
        b = tricks.trick_winner(plays, trump_of, tricks.ANY_RUFF_BEATS_TRUMP_LEAD)
        led = plays[0][1]
        ruffs = [c for s, c in plays[1:] if tricks.is_ruff(c, trump_of[s], led.suit)]
        differs = led.suit == trump_of[2] and ruffs and max(c.rank for c in ruffs) <= led.rank
        assert (a != b) == bool(differs)


def test_II_22_identical_cards_the_first_played_wins():
    t = Table(hands={"N": ["5h"], "E": ["Qh"], "S": ["Qh"], "W": ["2h"]})
    assert t.trick("5h", "Qh", "Qh", "2h") == E


def test_II_23_one_calypso_in_progress_a_completed_count_and_a_pile():
    t = Table(hands={"N": ["Ac"], "E": ["Ac"], "S": ["Kc"], "W": ["Qh"]}, void={"W": "c"})
    t.trick("Ac", "Ac", "Kc", "Qh")
    tableau = t.state.tableaux[N]
    assert t.calypso("N") == {"A", "K"} and t.pile("N") == ["Ac", "Qh"] and tableau.completed == []


def test_II_24_who_gets_which_card_partnership_and_solo():
    cards = {"N": ["Ac"], "E": ["2c"], "S": ["3c"], "W": ["8d"]}
    t = Table(hands=cards, void={"W": "c"})
    t.trick("Ac", "2c", "3c", "8d")
    assert t.calypso("N") == {"A", "2", "3"} and t.calypso("S") == {"8"} and t.pile("N") == []
    # Solo: seat 1 (♥) leads; seat 2 has ♦, seat 3 ♣, seat 0 ♠. Nothing goes to anyone else.
    solo = Table(mode="solo", hands={1: ["Ah"], 2: ["2h"], 3: ["3h"], 0: ["8s"]}, void={0: "h"})
    assert solo.trick("Ah", "2h", "3h", "8s") == 1
    assert solo.calypso(1) == {"A", "2", "3"} and solo.pile(1) == ["8s"] and solo.calypso(0) == set()


def test_II_25_placement_is_automatic_no_action_is_asked():
    t = Table(hands={"N": ["Ac"], "E": ["2c"], "S": ["3c"], "W": ["4c"]})
    t.trick("Ac", "2c", "3c", "4c")
    assert t.game.next_step(t.state) == Turn(N) and t.calypso("N") == {"A", "2", "3", "4"}


def test_II_26a_one_copy_of_a_rank_per_trick():
    t = Table(hands={"N": ["4c"], "E": ["6c"], "S": ["Jc"], "W": ["6c"]})
    t.trick("4c", "6c", "Jc", "6c")
    assert t.calypso("N") == {"4", "6", "J"} and t.pile("N") == ["6c"]


def test_II_26b_a_rank_already_held_goes_to_the_pile():
    t = Table(hands={"N": ["Jc"], "E": ["2c"], "S": ["3c"], "W": ["4c"]})
    fill_calypso(t, N, [11])
    t.trick("Jc", "2c", "3c", "4c")
    assert t.calypso("N") == {"J", "2", "3", "4"} and t.pile("N") == ["Jc"]


def test_II_26c_completion_mid_trick_starts_the_next_calypso():
    t = Table(hands={"N": ["5c"], "E": ["5c"], "S": ["2c"], "W": ["3c"]})
    fill_calypso(t, N, [r for r in range(2, 15) if r != 5])
    t.trick("5c", "5c", "2c", "3c")
    tableau = t.state.tableaux[N]
    assert len(tableau.completed) == 1 and t.calypso("N") == {"5", "2", "3"} and t.pile("N") == []


def test_II_26d_cards_in_a_pile_are_dead():
    t = Table(hands={"N": ["4c", "2c"], "E": ["4c", "3s"], "S": ["7c", "3c"], "W": ["8c", "5c"]})
    fill_calypso(t, N, [r for r in range(5, 15) if r not in (7, 8)] + [3])  # lacks 2, 4, 7, 8
    t.trick("4c", "4c", "7c", "8c")  # second ♣4 dead
    assert t.pile("N") == ["4c"]
    fill_calypso(t, N, [r for r in range(3, 15)])  # now lacks only the 2...
    t.trick("2c", "3s", "3c", "5c")  # ...which completes; the new calypso takes 3 and 5
    assert len(t.state.tableaux[N].completed) == 1 and t.calypso("N") == {"3", "5"}
    assert t.pile("N") == ["3s", "4c"]  # the dead ♣4 never comes back


def test_II_27_calypsos_and_piles_carry_over_between_deals():
    t = Table()
    rng = random.Random(1)
    while t.state.deal_number == 1:
        step = t.game.next_step(t.state)
        t.replica.act(step.seat, rng.choice(t.game.legal_actions(t.state, step.seat, t.known(step.seat))))
        t.advance()
    counts = {s: tab.card_count() for s, tab in t.state.tableaux.items()}
    assert t.state.deal_number == 2 and sum(counts.values()) == 52
    step = t.game.next_step(t.state)
    t.replica.act(step.seat, t.game.legal_actions(t.state, step.seat, t.known(step.seat))[0])
    assert {s: tab.card_count() for s, tab in t.state.tableaux.items()} == counts


def test_II_28_scoring_per_player():
    assert [tricks.calypso_points(n) for n in range(5)] == [0, 500, 1250, 2250, 3250]
    tableau = tricks.Tableau(current={Rank.TWO: 1, Rank.FIVE: 2}, completed=[[0] * 13] * 2, pile=[3, 4, 5])
    assert tricks.player_points(tableau) == 1250 + 40 + 30


@pytest.mark.parametrize("mode", ["partnership", "solo", "three"])
def test_II_29_totals_difference_ranking_and_every_card_in_one_place(mode):
    t = Table(mode=mode)
    result = t.play_out().result
    details = result.details
    deck = 117 if mode == "three" else 208
    assert details["cards_accounted"] == deck
    places = [
        h
        for tab in t.state.tableaux.values()
        for h in [*tab.pile, *tab.current.values(), *(x for c in tab.completed for x in c)]
    ]
    assert len(places) == len(set(places)) == deck
    totals = {int(s): p["total"] for s, p in details["players"].items()}
    assert list(result.scores) == [totals[s] for s in range(t.players)]
    if mode == "partnership":
        sides = details["sides"]
        assert [s["total"] for s in sides] == [sum(totals[x] for x in s["seats"]) for s in sides]
        assert details["difference"] == abs(sides[0]["total"] - sides[1]["total"])
    else:
        ranking = details["ranking"]
        assert [totals[s] for s in ranking] == sorted(totals.values(), reverse=True)
        assert result.winners == (ranking[0],) or totals[ranking[0]] == totals[ranking[1]]


def test_II_30_revoke_honour_mode_allowed_and_penalised_not_in_trick_12():
    revokes = tricks.find_revokes(
        1,
        {1: [10, 11], 2: [20, 21]},
        [[(2, 20, 0), (1, 11, 1)], [(1, 10, 2), (2, 21, 3)]],
        {
            10: Card(Rank.TWO, Suit.CLUBS),
            11: Card(Rank.TWO, Suit.HEARTS),
            20: Card(Rank.ACE, Suit.CLUBS),
            21: Card(Rank.KING, Suit.SPADES),
        },
    )
    assert [(r.seat, r.trick, r.action_index) for r in revokes] == [(1, 1, 1)]
    assert revokes[0].established
    assert not tricks.Revoke(1, 1, 12, 0, 0, Suit.CLUBS).established
    t = Table(hands={"N": ["4d"], "E": ["Kd", "7h"]}, allow_revoke=True)
    t.act(N, "play 4d")
    t.act(E, "play 7h")  # the client lets it through in honour mode
    assert t.state.trick[-1][0] == E

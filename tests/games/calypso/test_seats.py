"""Solo and three-player: the cutters draw for seats and trump suits (seed-CY l.153, rules.md
II.12-13). Each, from the highest, chooses its place with its suit; places are counted
clockwise from the highest cutter's (0), who deals first."""

import random

import pytest

from p2pcards.bots import RandomBot
from p2pcards.cards import Suit
from p2pcards.game import IllegalAction, Shuffle, Turn
from p2pcards.plugins import load_plugins

from .calypso_table import Table, calypso_game
from .test_whole_games import run

# Seat 1 cuts A, seat 3 K, seat 2 Q, seat 0 J.
SOLO_CUTS = [11, 14, 12, 13]


def solo(**kw):
    return Table(mode="solo", cuts=SOLO_CUTS, choices=[], **kw)


def choice(suit, place):
    return {"type": "choose_suit", "suit": suit, "place": place}


def test_the_second_highest_sits_opposite_the_highest_and_the_order_follows():
    t = solo()
    assert t.state.ranking == [1, 3, 2, 0]
    t.act(1, "trump diamonds")
    assert t.state.order == []  # not known until everyone has a place
    t.act(3, "trump hearts opposite")
    assert t.state.places == {1: 0, 3: 2}
    t.act(2, "trump spades left")
    # seat 0 is left with the right-hand place and clubs
    assert t.state.places == {1: 0, 3: 2, 2: 1, 0: 3}
    assert t.state.order == [1, 2, 3, 0]
    assert t.state.trump == {1: Suit.DIAMONDS, 3: Suit.HEARTS, 2: Suit.SPADES, 0: Suit.CLUBS}
    assert t.game.view(t.state, None, {})["places"] == {"1": 0, "3": 2, "2": 1, "0": 3}


def test_a_chooser_is_offered_every_open_place_with_every_suit_left():
    t = solo()
    # the highest cutter keeps its own place: it deals first
    assert t.game.legal_actions(t.state, 1, t.known(1)) == [choice(s, 0) for s in "shdc"]
    assert t.game.legal_actions(t.state, 3, t.known(3)) == []  # not its turn
    t.act(1, "trump d")
    assert t.game.legal_actions(t.state, 3, t.known(3)) == [choice(s, p) for s in "shc" for p in (1, 2, 3)]
    t.act(3, "trump h opposite")
    assert t.game.legal_actions(t.state, 2, t.known(2)) == [choice(s, p) for s in "sc" for p in (1, 3)]


def test_the_last_cutter_gets_the_last_place_and_suit_without_a_turn():
    t = solo()
    t.act(1, "trump d")
    t.act(3, "trump h right")
    assert t.game.legal_actions(t.state, 2, t.known(2)) == [choice(s, p) for s in "sc" for p in (1, 2)]
    t.act(2, "trump c opposite")
    assert t.state.phase == "playing"
    assert t.state.trump[0] == Suit.SPADES and t.state.places[0] == 1
    shuffled = next(i for i, s in enumerate(t.steps) if isinstance(s, Shuffle))
    assert [s.seat for s in t.steps[:shuffled] if isinstance(s, Turn)] == [1, 3, 2]  # not seat 0


@pytest.mark.parametrize(
    "second, third, order",
    [
        ("h left", "s opposite", [1, 3, 2, 0]),
        ("h opposite", "s left", [1, 2, 3, 0]),
        ("h right", "s opposite", [1, 0, 2, 3]),  # seat 0, the lowest, gets the left: it leads
    ],
)
def test_the_highest_deals_first_and_whoever_sits_at_its_left_leads(second, third, order):
    t = solo()
    t.act(1, "trump d")
    t.act(3, f"trump {second}")
    t.act(2, f"trump {third}")
    assert t.state.order == order
    assert t.state.order[t.state.dealer_position] == 1  # rule 10d: the highest cutter deals
    assert t.state.leader == order[1]  # rule 14: the dealer's left leads
    assert t.game.next_step(t.state) == Turn(order[1])
    # the first deal goes round from the dealer's left too (rule 7)
    deal = t.deal_steps()[0]
    assert [deal.to[h] for h in t.dealer_stock[:4]] == order[1:] + order[:1]


def test_places_are_checked_by_every_peer():
    t = solo()
    game, state = t.game, t.state
    with pytest.raises(IllegalAction, match="place"):
        game.check(state, 1, {"type": "choose_suit", "suit": "d"})
    with pytest.raises(IllegalAction, match="place"):
        game.check(state, 1, choice("d", 1))  # the highest's place is 0
    t.act(1, "trump d")
    for bad in (None, 0, 4, True, "1"):
        with pytest.raises(IllegalAction, match="place"):
            game.check(state, 3, {"type": "choose_suit", "suit": "h", "place": bad})
    t.act(3, "trump h opposite")
    with pytest.raises(IllegalAction, match="place"):
        game.check(state, 2, choice("s", 2))  # taken
    game.check(state, 2, choice("s", 3))


def test_three_players_choose_left_or_right():
    t = Table(mode="three", removed_suit="clubs", cuts=[9, 12, 3], choices=[])
    assert t.state.ranking == [1, 0, 2]
    assert t.game.legal_actions(t.state, 1, t.known(1)) == [choice(s, 0) for s in "shd"]
    t.act(1, "trump hearts")
    assert t.game.legal_actions(t.state, 0, t.known(0)) == [choice(s, p) for s in "sd" for p in (1, 2)]
    with pytest.raises(IllegalAction, match="no place opposite"):
        t.parse(0, "trump spades opposite")
    t.act(0, "trump spades right")
    assert t.state.order == [1, 2, 0] and t.state.places == {1: 0, 0: 2, 2: 1}
    assert t.state.trump == {1: Suit.HEARTS, 0: Suit.SPADES, 2: Suit.DIAMONDS}
    assert t.state.leader == 2 and t.state.order[t.state.dealer_position] == 1


def test_partnership_seats_still_follow_the_cut():
    # Seat 3 cuts A, seat 1 K, seat 0 Q, seat 2 J: as test_II_10.
    t = Table(cuts=[12, 13, 11, 14], choices=[])
    assert t.state.order == [3, 0, 1, 2] and not t.state.chooses_places()
    assert t.game.legal_actions(t.state, 3, t.known(3)) == [{"type": "choose_suit", "suit": s} for s in "shdc"]
    with pytest.raises(IllegalAction, match="cut sets the seats"):
        t.game.check(t.state, 3, choice("h", 0))
    with pytest.raises(IllegalAction, match="cut sets the seats"):
        t.parse(3, "trump hearts left")
    t.act(3, "trump h")
    t.act(0, "trump c")
    assert t.state.order == [3, 0, 1, 2] and t.state.leader == 0


@pytest.mark.parametrize("mode", ["solo", "three"])
def test_random_seating_is_unchanged(mode):
    t = Table(mode=mode, seating="random", choices=[])
    assert t.state.phase == "playing" and not t.state.chooses_places()
    assert sorted(t.state.order) == list(range(t.players)) and t.state.order == t.state.ranking
    assert not any(isinstance(s, Turn) for s in t.steps[:-1])  # coins did every choice


def test_the_console_reads_places_and_describes_them():
    t = solo()
    assert t.parse(1, "trump hearts") == choice("h", 0)
    assert t.parse(1, "choose hearts, as the first dealer") == choice("h", 0)  # the log's words
    with pytest.raises(IllegalAction, match="you cut highest"):
        t.parse(1, "trump hearts left")
    t.act(1, "trump d")
    for text, place in [
        ("trump hearts left", 1),
        ("hearts opposite", 2),
        ("h right", 3),
        ("choose ♥ across", 2),
        ("hearts, sit on the left", 1),
        ("hearts left of seat 1", 1),
        ("Hearts RIGHT", 3),
        ("hearts opposite the first dealer", 2),
        ("h, the first dealer's right", 3),
    ]:
        assert t.parse(3, text) == choice("h", place), text
    with pytest.raises(IllegalAction, match="choose your place too"):
        t.parse(3, "trump hearts")
    with pytest.raises(IllegalAction, match="expected a place"):
        t.parse(3, "trump hearts behind")
    with pytest.raises(IllegalAction, match=r"seen from the first dealer \(seat 1"):
        t.parse(3, "hearts left of seat 2")
    # the log's wording, as the console's Tab and 'legal' type it back
    for place in (1, 2, 3):
        said = t.game.format_action(t.state, 3, choice("h", place), {})
        assert t.parse(3, said.replace("chooses", "choose", 1)) == choice("h", place)
    described = {p: t.game.format_action(t.state, 3, choice("h", p), {}) for p in (1, 2, 3)}
    assert described == {
        1: "chooses hearts and the place at the first dealer's left",
        2: "chooses hearts and the place opposite the first dealer",
        3: "chooses hearts and the place at the first dealer's right",
    }
    assert t.game.format_action(t.state, 1, choice("d", 0), {}) == "chooses diamonds, as the first dealer"
    t.act(3, "hearts opposite")
    with pytest.raises(IllegalAction, match="is taken"):
        t.parse(2, "spades opposite")
    view = t.game.view(t.state, 2, t.known(2))
    assert "around seat 1 (deals first; its left leads): left open, opposite seat 3, right open" in view["table"]
    assert "seat 2 chooses a trump suit (left: ♠ ♣) and a place (left or right)" in view["table"]
    assert view["status"] == (
        "your turn: choose a trump suit and a place, e.g. 'trump spades left' (spades, clubs; left or right of seat 1)"
    )
    assert t.game.view(t.state, 0, t.known(0))["status"] == (
        "seat 2 chooses a trump suit (spades, clubs) and a place (left or right of seat 1)"
    )


def test_the_help_says_how_to_choose_a_place():
    help_text = calypso_game().commands_help()
    assert "trump SUIT PLACE" in help_text and "'trump hearts left'" in help_text
    assert "opposite" in help_text and "right" in help_text


@pytest.mark.parametrize("mode, players", [("solo", 4), ("three", 3)])
def test_whole_games_between_bots_with_chosen_places(mode, players):
    strategic = load_plugins().bots_for("calypso")["strategic"]
    orders = set()
    for seed in range(4):
        record = run({"mode": mode}, players, [strategic, RandomBot, strategic, RandomBot][:players], seed)
        assert record.violations == []
        assert record.result.details["cards_accounted"] == (208 if mode == "solo" else 117)
        choices = [a for _, a in record.actions if a["type"] == "choose_suit"]
        assert len(choices) == players - 1 and choices[0]["place"] == 0
        assert sorted(c["place"] for c in choices[1:]) == sorted(set(c["place"] for c in choices[1:]))
        orders.add(tuple(c["place"] for c in choices))
    assert len(orders) > 1  # the bots do choose, not always the first open place


def test_bots_choose_the_same_places_from_the_same_seed():
    a = run({"mode": "solo"}, 4, [RandomBot] * 4, seed=9)
    b = run({"mode": "solo"}, 4, [RandomBot] * 4, seed=9)
    assert [x for _, x in a.actions if x["type"] == "choose_suit"] == [
        x for _, x in b.actions if x["type"] == "choose_suit"
    ]
    assert a.result.scores == b.result.scores


def test_a_played_out_solo_game_keeps_the_chosen_order():
    t = solo()
    t.act(1, "trump d")
    t.act(3, "trump h opposite")
    t.act(2, "trump s right")
    order = list(t.state.order)
    assert order == [1, 0, 3, 2]
    done = t.play_out(random.Random(1))
    assert t.state.order == order and done.result.details["cards_accounted"] == 208


@pytest.mark.parametrize("mode", ["partnership", "solo"])
def test_nobody_drops_out_of_calypso(mode):
    """Issue 30: a Calypso seat cannot drop out (docs/games/calypso.md, "Nobody drops out")."""
    t = Table(mode=mode)
    refusal = calypso_game().drop_out_refusal(t.state, 1)
    assert refusal is not None and refusal.startswith("Calypso cannot go on without a player")
    with pytest.raises(IllegalAction, match="Calypso cannot go on"):
        t.drop_out(1)

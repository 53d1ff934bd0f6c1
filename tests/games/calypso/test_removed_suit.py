"""Three-player Calypso with ``removed_suit=random`` (rules.md II.4, II.13; seed: "one (any)
suit"): a public coin picks the suit, the deck keeps three whole packs, and after each deal the
players set the removed suit's cards aside face up and are dealt replacements."""

from collections import Counter

import pytest

from p2pcards.bots import RandomBot
from p2pcards.cards import Suit
from p2pcards.game import Coin, Deal, IllegalAction, Reveal, Turn
from p2pcards.net.runner import simulate_network
from p2pcards.plugins import load_plugins
from p2pcards.verify import EXIT_VERIFIED, verify_file

from .calypso_table import Table, game  # noqa: F401 (the fixture)
from .test_whole_games import run

SUITS = [Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS]
#: Stacked hands are padded to 13 with other suits than clubs: the clubs are the ones listed.
NO_PADDING_CLUBS = {seat: ["c"] for seat in range(3)}


def random_table(removed: int = 3, **kw) -> Table:
    """A three-player table whose coin removes ``SUITS[removed]``; seat 0 deals, seat 1 leads."""
    kw.setdefault("choices", [s.value for s in SUITS if s != SUITS[removed]][:2])
    return Table(mode="three", removed_suit="random", coins={"removed-suit": removed}, **kw)


def sort_out(t: Table) -> None:
    """Every seat sets aside what its client says, until the first card is to be led."""
    while t.state.phase == "sorting":
        step = t.game.next_step(t.state)
        t.act(step.seat, "aside")


def test_the_option_keeps_the_fixed_choice_and_adds_random(game):
    option = next(o for o in game.options if o.name == "removed_suit")
    assert option.default == "clubs"
    assert option.choices == ("spades", "hearts", "diamonds", "clubs", "random")
    fixed = game.deck(game.resolve_options({"mode": "three", "removed_suit": "hearts"}, 3), 3)
    assert len(fixed) == 117 and Suit.HEARTS not in {c.suit for c in fixed}
    whole = game.deck(game.resolve_options({"mode": "three", "removed_suit": "random"}, 3), 3)
    assert len(whole) == 156 and Counter(c.suit for c in whole) == {s: 39 for s in SUITS}
    assert game.rules_version == "3"


@pytest.mark.parametrize("removed", range(4))
def test_the_coin_comes_first_and_the_others_choose_among_the_three_left(removed):
    t = random_table(removed, choices=[])
    assert t.steps[0] == Coin("removed-suit", 4)
    assert t.dealer.coin_log[0] == "removed-suit"
    assert t.state.removed_suit == SUITS[removed]
    assert t.state.available_suits() == [s for s in SUITS if s != SUITS[removed]]
    with pytest.raises(IllegalAction, match="not available"):
        t.act(t.game.next_step(t.state).seat, f"trump {SUITS[removed].value}")


def test_a_fixed_removed_suit_has_no_coin_and_nothing_to_set_aside():
    t = Table(mode="three", removed_suit="spades", choices=["h", "c"])
    assert "removed-suit" not in t.dealer.coin_log
    assert t.state.phase == "playing" and not any(isinstance(s, Reveal) for s in t.steps)


def test_each_seat_in_turn_sets_aside_exactly_its_cards_of_the_removed_suit_face_up():
    t = random_table(3, hands={1: ["2c", "3c", "Ah"], 2: ["4c"]}, void=NO_PADDING_CLUBS)
    deal = t.deal_steps()[0]
    assert len(deal.to) == 39 and t.state.phase == "sorting"
    assert t.state.sorting == [1, 2, 0]  # from the dealer's left, the dealer last
    assert t.parse(1, "aside") == {
        "type": "set_aside",
        "cards": sorted(h for h in t.state.hands[1] if t.known(1)[h].suit == Suit.CLUBS),
    }
    # The cards may follow, as the log lists them, but they must be all of them.
    assert t.parse(1, "sets aside 2♣ 3♣") == t.parse(1, "aside 3c 2c") == t.parse(1, "aside")
    with pytest.raises(IllegalAction, match="every card of the removed suit"):
        t.parse(1, "set aside 2c")
    with pytest.raises(IllegalAction, match="type 'aside'"):
        t.parse(1, "sets nothing aside")
    t.act(1, "aside")
    reveal = t.steps[-2]
    assert isinstance(reveal, Reveal) and reveal.owner == 1 and len(reveal.handles) == 2
    assert sorted(str(t.state.faces[h]) for h in reveal.handles) == ["2c", "3c"]
    t.act(2, "set aside")
    assert t.parse(0, "sets nothing aside") == {"type": "set_aside", "cards": []}
    t.act(0, "aside")  # seat 0 holds no club: it sets nothing aside, and nothing is opened
    assert sorted(str(t.state.faces[h]) for h in t.state.aside) == ["2c", "3c", "4c"]
    # Only cards of the removed suit were ever turned face up.
    assert {c.suit for c in t.state.faces.values()} == {Suit.CLUBS}


def test_replacements_come_one_at_a_time_from_the_top_to_the_seats_still_short():
    t = random_table(3, hands={1: ["2c", "3c"], 0: ["4c"]}, void=NO_PADDING_CLUBS)
    stock_before = list(t.state.stock)
    for seat in (1, 2, 0):
        t.act(seat, "aside")
    deal = next(s for s in reversed(t.steps) if isinstance(s, Deal))
    # Seat 1 is short of 2, seat 0 of 1: clockwise from the dealer's left, one at a time.
    assert list(deal.to.items()) == [(stock_before[0], 1), (stock_before[1], 0), (stock_before[2], 1)]
    assert len(t.state.stock) == len(stock_before) - 3


def test_before_the_first_lead_every_hand_is_13_cards_of_the_suits_in_play():
    t = random_table(1)
    sort_out(t)
    assert t.state.phase == "playing" and t.game.next_step(t.state) == Turn(1)
    for seat in range(3):
        hand = [t.known(seat)[h] for h in t.state.hands[seat]]
        assert len(hand) == 13 and Suit.HEARTS not in {c.suit for c in hand}
    dealt = sum(len(h) for h in t.state.deals[0].hands.values())
    assert dealt == 39 and t.state.deal_number == 1


def test_the_client_sets_aside_all_and_only_the_removed_suit():
    t = random_table(3, hands={1: ["2c", "3c", "Ah"]}, void=NO_PADDING_CLUBS)
    known = t.known(1)
    clubs = sorted(h for h in t.state.hands[1] if known[h].suit == Suit.CLUBS)
    other = next(h for h in t.state.hands[1] if known[h].suit != Suit.CLUBS)
    for wrong in ([clubs[0]], clubs + [other], []):
        with pytest.raises(IllegalAction, match="every card of the removed suit"):
            t.game.check_own(t.state, 1, {"type": "set_aside", "cards": wrong}, known)
    assert t.game.legal_actions(t.state, 1, known) == [{"type": "set_aside", "cards": clubs}]
    assert t.game.idle_action(t.state, 1, known) == {"type": "set_aside", "cards": clubs}
    assert t.game.idle_action(t.state, 2, t.known(2)) is None


@pytest.mark.parametrize(
    "action, message",
    [
        ({"type": "play", "card": 0}, "set aside your cards"),
        ({"type": "set_aside", "cards": [10**6]}, "from your hand"),
        ({"type": "set_aside", "cards": "all"}, "from your hand"),
        ({"type": "set_aside", "cards": [True]}, "from your hand"),
    ],
)
def test_every_peer_refuses_a_malformed_set_aside(action, message):
    t = random_table()
    with pytest.raises(IllegalAction, match=message):
        t.game.check(t.state, 1, action)


def test_only_the_seat_whose_turn_it_is_sets_aside_and_not_twice():
    t = random_table()
    hand = t.state.hands[2]
    with pytest.raises(IllegalAction, match="not your turn"):
        t.game.check(t.state, 2, {"type": "set_aside", "cards": hand[:1]})
    sort_out(t)
    with pytest.raises(IllegalAction, match="nothing is set aside now"):
        t.game.check(t.state, 1, {"type": "set_aside", "cards": []})


def test_the_console_words_and_what_the_table_shows():
    t = random_table(3, hands={1: ["2c", "Ah"]}, void=NO_PADDING_CLUBS)
    view = t.game.view(t.state, 1, t.known(1))
    assert view["status"] == "your turn: set aside your clubs (the removed suit): type 'aside'"
    assert t.game.view(t.state, 2, t.known(2))["status"] == "seat 1 sets aside their clubs (the removed suit)"
    with pytest.raises(IllegalAction, match="type 'aside'"):
        t.parse(1, "play Ah")
    action = t.parse(1, "aside")
    assert t.game.format_action(t.state, 1, action, {}) == "sets aside 1 card"
    t.act(1, "aside")
    assert t.game.format_action(t.state, 1, action, t.state.faces) == "sets aside 2♣"
    assert t.game.format_action(t.state, 2, {"type": "set_aside", "cards": []}, {}) == "sets nothing aside"
    assert "removed suit: ♣ (1 card set aside)" in t.game.view(t.state, None, {})["table"]
    assert "aside" in t.game.commands_help()


class WithholdingBot(RandomBot):
    """A modified client that keeps one card of the removed suit and plays it later."""

    def choose(self, state, known):
        if state.phase == "sorting":
            cards = self.game.legal_actions(state, self.seat, known)[0]["cards"]
            return {"type": "set_aside", "cards": cards[1:]}
        return super().choose(state, known)


class OverAsideBot(RandomBot):
    """A modified client that sets aside one card of a suit in play as well."""

    def choose(self, state, known):
        if state.phase == "sorting":
            cards = self.game.legal_actions(state, self.seat, known)[0]["cards"]
            extra = [h for h in state.hands[self.seat] if known[h].suit != state.removed_suit][:1]
            return {"type": "set_aside", "cards": cards + extra}
        return super().choose(state, known)


@pytest.mark.parametrize(
    "cheat, word", [(WithholdingBot, "must be set aside"), (OverAsideBot, "not a card of the removed suit")]
)
def test_the_audit_names_a_client_that_cheats_the_set_aside_and_the_game_still_ends(cheat, word):
    record = run({"mode": "three", "removed_suit": "random"}, 3, [RandomBot, cheat, RandomBot], seed=3, check_own=False)
    assert record.violations and {v.seat for v in record.violations} == {1}
    assert all(word in v.message for v in record.violations)
    for v in record.violations:
        seat, action = record.actions[v.action_index]
        assert seat == 1 and action["type"] == ("play" if cheat is WithholdingBot else "set_aside")
    details = record.result.details
    assert (
        sum(p["calypsos"] * 13 + p["in_progress"] + p["pile"] for p in details["players"].values())
        == details["cards_accounted"]
    )


def test_an_honest_client_will_not_withhold():
    from p2pcards.engine import PlayerError

    with pytest.raises(PlayerError, match="removed suit"):
        run({"mode": "three", "removed_suit": "random"}, 3, [WithholdingBot] * 3, seed=3)


@pytest.mark.parametrize("seating", ["cut", "random"])
def test_whole_three_player_games_between_bots(seating):
    strategic = load_plugins().bots_for("calypso")["strategic"]
    removed = Counter()
    for seed in range(8):
        record = run(
            {"mode": "three", "removed_suit": "random", "seating": seating}, 3, [strategic, RandomBot, strategic], seed
        )
        assert record.violations == []
        details = record.result.details
        assert details["cards_accounted"] == 117
        plays = [a for _, a in record.actions if a["type"] == "play"]
        asides = [h for _, a in record.actions if a["type"] == "set_aside" for h in a["cards"]]
        assert len(plays) == 117
        suit = record.faces[asides[0]].suit
        removed[suit] += 1
        assert {record.faces[h].suit for h in asides} == {suit}
        assert suit not in {record.faces[a["card"]].suit for a in plays}
        assert suit.value not in {p["trump"] for p in details["players"].values()}
    assert len(removed) > 1  # the coin does pick different suits


@pytest.mark.parametrize("seed", range(20))
def test_the_hands_are_the_stocks_cards_of_the_suits_in_play_in_order(seed):
    """Each deal's hands are exactly the next 39 cards of the other suits in the shuffled
    stock, whatever the removed suit's positions: the other suits' order in a shuffled deck is
    uniformly random, so this deals as from a shuffled 117-card stock."""
    t = random_table(seed % 4, seed=seed)
    removed = t.state.removed_suit
    in_play = [h for h in t.dealer_stock if t.dealer.faces[h].suit != removed]
    for deal in range(3):
        sort_out(t)
        hands = t.state.deals[deal].hands
        assert sorted(h for hand in hands.values() for h in hand) == sorted(in_play[39 * deal : 39 * deal + 39])
        assert all(len(hand) == 13 for hand in hands.values())
        while t.state.phase == "playing" and t.state.deal_number == deal + 1:
            step = t.game.next_step(t.state)
            t.replica.act(step.seat, t.game.legal_actions(t.state, step.seat, t.known(step.seat))[0])
            t.advance()
    # The removed suit's cards that were dealt were all set aside; the rest were never dealt.
    dealt_aside = {t.dealer.faces[h].suit for h in t.state.aside}
    assert dealt_aside <= {removed}


@pytest.mark.slow  # whole games on the mental-poker deck
async def test_a_whole_game_over_loopback_verifies(tmp_path):
    report = await simulate_network(
        load_plugins(),
        "calypso",
        players=3,
        options={"mode": "three", "removed_suit": "random"},
        bots=["strategic"],
        games=1,
        seed="calthree-random-suit",
        transcript_dir=tmp_path,
        interface="127.0.0.1",
        discover=False,
    )
    assert report.problems == []
    (path, *_others) = sorted(report.transcripts)
    verified = verify_file(path)
    assert verified.status == EXIT_VERIFIED, verified.problem_line()
    assert verified.result.details["cards_accounted"] == 117


def test_seeded_random_bots_replay_the_same_set_aside():
    a = run({"mode": "three", "removed_suit": "random"}, 3, [RandomBot] * 3, seed=5)
    b = run({"mode": "three", "removed_suit": "random"}, 3, [RandomBot] * 3, seed=5)
    assert a.actions == b.actions and a.result == b.result

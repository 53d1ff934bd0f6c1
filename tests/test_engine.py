"""The engine with the local dealer, on the fixture game loaded from its entry point."""

import pytest

from p2pcards.dealer import LocalDealer
from p2pcards.engine import PlayerError, play, seeded_rng
from p2pcards.game import Bot, IllegalAction
from p2pcards.plugins import PluginHost
from p2pcards.simulate import simulate


@pytest.fixture
def host(highcard_path, with_path):
    with_path(highcard_path)
    host = PluginHost()
    host.load_entry_points()
    return host


class Recorder(Bot):
    """Shows the best card, and remembers what it was shown."""

    name = "recorder"

    def __init__(self, *a):
        super().__init__(*a)
        self.events = []

    def observe(self, state, event, known):
        self.events.append((event["kind"], dict(known)))

    def choose(self, state, known):
        return self.game.legal_actions(state, self.seat, known)[0]


class WorstCard(Bot):
    """A modified client: shows its worst card, which the rules forbid."""

    name = "worst"

    def choose(self, state, known):
        hand = state.hands[self.seat]
        return {"type": "show", "card": min(hand, key=lambda h: known[h].rank)}


def bots(game, options, classes):
    return [cls(game, seat, options, seeded_rng(0, seat)) for seat, cls in enumerate(classes)]


def test_whole_game_with_the_local_dealer(host):
    game = host.game("high-card")
    options = game.resolve_options({"cards": 3}, 3)
    seats = bots(game, options, [Recorder] * 3)
    deck = LocalDealer(game.deck(options, 3), 3, seeded_rng(1))
    record = play(game, options, 3, deck, seats)
    assert record.violations == []
    assert [seat for seat, _ in record.actions] == [0, 1, 2]
    shown = [record.faces[a["card"]].rank for _, a in record.actions]
    assert set(record.result.winners) == {s for s, r in enumerate(shown) if r == max(shown)}


def test_a_seat_sees_only_its_own_cards_until_they_are_revealed(host):
    game = host.game("high-card")
    options = game.resolve_options({"cards": 2}, 3)
    seats = bots(game, options, [Recorder] * 3)
    play(game, options, 3, LocalDealer(game.deck(options, 3), 3, seeded_rng(2)), seats)
    for seat in seats:
        kinds = [k for k, _ in seat.events]
        assert kinds[:2] == ["shuffle", "deal"]
        after_deal = seat.events[1][1]
        assert len(after_deal) == 2  # its own two cards, nothing else
    # After seat 0 shows, the others can see that one card too.
    after_first_reveal = [known for kind, known in seats[1].events if kind == "reveal"][0]
    assert len(after_first_reveal) == 3


def test_a_cheating_client_is_refused_by_its_own_check(host):
    game = host.game("high-card")
    options = game.resolve_options({"cards": 5}, 2)
    seats = bots(game, options, [WorstCard, Recorder])
    with pytest.raises(PlayerError) as caught:
        play(game, options, 2, LocalDealer(game.deck(options, 2), 2, seeded_rng(3)), seats)
    assert caught.value.seat == 0 and "best card" in caught.value.reason


def test_the_audit_names_a_client_that_skips_its_own_check(host):
    game = host.game("high-card")
    options = game.resolve_options({"cards": 5}, 2)
    seats = bots(game, options, [WorstCard, Recorder])
    deck = LocalDealer(game.deck(options, 2), 2, seeded_rng(3))
    record = play(game, options, 2, deck, seats, check_own=False)
    assert [(v.seat, v.action_index) for v in record.violations] == [(0, 0)]


def test_public_check_refuses_a_card_not_held(host):
    game = host.game("high-card")
    options = game.resolve_options({}, 2)
    state = game.new_state(options, 2)
    game.on_shuffled(state, list(range(52)))
    with pytest.raises(IllegalAction, match="your own"):
        game.check(state, 0, {"type": "show", "card": 51})


def test_same_seed_same_games(host):
    a = simulate(host, "high-card", players=4, options={"cards": 2}, games=50, seed=7, keep_results=True)
    b = simulate(host, "high-card", players=4, options={"cards": 2}, games=50, seed=7, keep_results=True)
    c = simulate(host, "high-card", players=4, options={"cards": 2}, games=50, seed=8, keep_results=True)
    assert a.results == b.results and a.wins == b.wins
    assert a.results != c.results


class EnumAction(Recorder):
    """A plugin bug: an enum in an action, which the game's own checks let through."""

    name = "enum"

    def choose(self, state, known):
        from p2pcards.cards import Suit

        return {**super().choose(state, known), "suit": Suit.HEARTS}


def test_an_action_that_is_not_plain_data_is_refused_before_any_peer_sees_it(host):
    """No peer could send it: every game's replica refuses it, so a plugin's local tests find it."""
    game = host.game("high-card")
    options = game.resolve_options({"cards": 3}, 3)
    deck = LocalDealer(game.deck(options, 3), 3, seeded_rng(1))
    with pytest.raises(PlayerError, match="plain data: Suit is not allowed on the wire"):
        play(game, options, 3, deck, bots(game, options, [EnumAction] * 3))


def test_the_local_dealer_refuses_a_coin_label_used_twice():
    import random

    from p2pcards.cards import build_deck
    from p2pcards.dealer import LocalDealer

    deck = LocalDealer(build_deck(), 2, random.Random(0))
    deck.coin("dealer", 2)
    with pytest.raises(ValueError, match="'dealer' used twice"):
        deck.coin("dealer", 2)


def test_play_goes_on_from_a_replica_under_way_and_reports_every_step(host):
    from p2pcards.engine import Replica, carry_out
    from p2pcards.game import Deal, Done, Reveal, Shuffle, Turn

    game = host.game("high-card")
    options = game.resolve_options({"cards": 2}, 2)
    deck = LocalDealer(game.deck(options, 2), 2, seeded_rng(4))
    replica = Replica(game, options, 2)
    while not isinstance(step := replica.next_step(), Turn):  # deal by hand, then let bots play
        carry_out(game, replica.state, step, deck)
    steps = []
    record = play(game, options, 2, deck, bots(game, options, [Recorder] * 2), replica=replica, on_step=steps.append)
    assert [type(s) for s in steps] == [Turn, Reveal, Turn, Reveal, Done]
    assert record.actions is replica.actions and len(record.actions) == 2
    assert steps[-1].result == record.result and record.violations == []
    assert not any(isinstance(s, (Shuffle, Deal)) for s in steps)

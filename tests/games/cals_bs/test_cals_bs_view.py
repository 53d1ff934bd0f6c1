"""view() is safe to call for every seat (and a spectator) at every step of any game, including
the moments between an action and the reveals or the transfer it causes (a face-up going-out
set before its faces are known once raised KeyError), and it fills the contract's generic keys."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.bots import RandomBot
from p2pcards.cards import Card
from p2pcards.dealer import LocalDealer
from p2pcards.engine import Replica, carry_out, seeded_rng
from p2pcards.game import Done, Reveal, Turn
from p2pcards.plugins import load_plugins


def check_view(game, state, seat, known, players):
    view = game.view(state, seat, known)
    assert isinstance(view["status"], str) and view["status"]
    assert isinstance(view["table"], list) and all(isinstance(line, str) for line in view["table"])
    assert len(view["seats"]) == players
    assert all(set(row) == {"cards", "hands won"} for row in view["seats"])
    if seat is None:
        assert "hand" not in view
    else:
        hand = view["hand"]
        assert all(isinstance(c, Card) for c in hand) and len(hand) == len(state.hands[seat])
    return view


def run_checking_views(players, options, seed):
    game = load_plugins().game("cals-bs")
    resolved = game.resolve_options(options, players)
    deck = LocalDealer(game.deck(resolved, players), players, seeded_rng(seed, "deck"))
    replica = Replica(game, resolved, players)
    state = replica.state
    bots = [RandomBot(game, seat, resolved, seeded_rng(seed, "bot", seat)) for seat in range(players)]
    for _ in range(20_000):
        for seat in [None, *range(players)]:
            check_view(game, state, seat, deck.known(seat) if seat is not None else {}, players)
        step = replica.next_step()
        if isinstance(step, Done):
            return state
        if isinstance(step, Turn):
            replica.act(step.seat, bots[step.seat].choose(state, deck.known(step.seat)))
        else:
            carry_out(game, state, step, deck)
    raise AssertionError("the game did not end")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(3, 7),
    quads=st.booleans(),
    going_out=st.sampled_from(["face_up_must_be_true", "challengeable"]),
    match_target=st.integers(1, 2),
    seed=st.integers(0, 10_000),
)
def test_view_never_raises_at_any_step(players, quads, going_out, match_target, seed):
    options = {"quads": quads, "going_out": going_out, "match_target": match_target}
    state = run_checking_views(players, options, seed)
    assert state.result is not None


def test_view_of_a_face_up_going_out_set_before_its_reveal():
    from .bs_table import Table

    t = Table(3, {0: "7h 7s", 1: "2c"}, match_target=1)
    t.state.hands[0] = t.handles(0, "7h 7s")  # scenario shortcut: the last two cards
    action = t.parse(0, "play 7h 7s as 7")
    t.game.check_own(t.state, 0, action, t.deck.known(0))
    t.replica.act(0, action)  # the set is face up, its Reveal not yet carried out
    assert isinstance(t.step(), Reveal)
    view = t.view(1)
    assert view["pile"] == [{"owner": 0, "count": 2, "claim": "2x7"}]  # faces not known yet
    assert view["status"] == "seat 0 turns cards face up"
    t.advance()
    view = t.view(1)
    assert view["status"] == "the match is over" and t.state.result.winners == (0,)


def test_generic_keys_say_whose_turn_and_what_is_claimed():
    from .bs_table import Table

    t = Table(3, {0: "7h 7s 9c", 1: "Ks 2d JK 10c"})
    assert t.view(0)["status"] == "your turn: lead 1-6 cards face down and name any rank"
    t.act(0, "play 7h 7s as 7")
    view = t.view(0)
    assert view["status"] == "seat 1 to play: pass, place 1-6 cards as 7, or doubt"
    assert view["table"][:2] == ["pile: 2 cards in 1 set, claiming 7", "  seat 0: 2 cards, claimed 2x7"]
    assert view["table"][-1] == "hand 1 of the match (first to win 3 hands), dealer seat 2"
    assert view["seats"][0] == {"cards": 16, "hands won": 0}
    t.act(1, "pass")
    assert "passes since the last set: 1" in t.view(None)["table"]


def test_status_in_a_quads_context_offers_doubt_once_a_plus_n_set_is_on_top():
    """Rules 31-32: no doubt while the quads are on top; after the first +N reply, doubt is legal
    again and the status must say so."""
    from .bs_table import Table

    t = Table(4, {0: "9h 9s 9d 9c", 1: "Jh", 2: "Js"}, quads=True)
    t.act(0, "quads 9h 9s 9d 9c")
    assert t.view(1)["status"] == "your turn: pass, or place 1-6 cards claiming +N (1-12) (quads cannot be doubted)"
    t.act(1, "+2 Jh")
    assert "doubt" in {a["type"] for a in t.game.legal_actions(t.state, 2, t.deck.known(2))}
    assert t.view(2)["status"] == "your turn: pass, place 1-6 cards claiming +2, or doubt"
    assert t.view(1)["status"] == "seat 2 to play: pass, place 1-6 cards claiming +2, or doubt"

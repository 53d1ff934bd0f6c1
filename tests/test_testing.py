"""p2pcards.testing itself: the stacked dealer, scenario tables, and check_game on a small game
of this module and on broken copies of it (each must be named for what it breaks)."""

from __future__ import annotations

import functools
import inspect
import os
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trio

from p2pcards.bots import RandomBot
from p2pcards.cards import Card, Suit, build_deck, parse_card
from p2pcards.game import (
    Bot,
    Deal,
    Done,
    Game,
    IllegalAction,
    Option,
    Result,
    Reveal,
    Shuffle,
    Turn,
    Violation,
)
from p2pcards.testing import (
    GameCheckFailure,
    ScenarioTable,
    StackedDealer,
    check_game,
    load_game,
    pick_cards,
    stack_deal,
)


@dataclass
class ShowState:
    players: int
    cards: int
    stock: list[int] | None = None
    hands: list[list[int]] = field(default_factory=list)
    shown: dict[int, int] = field(default_factory=dict)
    faces: dict[int, Card] = field(default_factory=dict)
    revealing: int | None = None


class Show(Game[ShowState]):
    """Everyone is dealt ``cards`` cards and shows one, in seat order; the highest rank wins."""

    id = "show"
    name = "Show"
    rules_version = "1"
    min_players = 2
    max_players = 4
    lists_every_action = True
    options = (Option("cards", int, 2, "cards dealt to each player", minimum=1, maximum=5),)
    variants = {"one-card": {"cards": 1}}

    def deck(self, options, players):
        return build_deck()

    def new_state(self, options, players):
        return ShowState(players, options["cards"], hands=[[] for _ in range(players)])

    def next_step(self, state):
        if state.stock is None:
            return Shuffle()
        if not any(state.hands) and not state.shown:
            count = state.cards * state.players
            return Deal({h: i % state.players for i, h in enumerate(state.stock[:count])})
        if state.revealing is not None:
            return Reveal((state.shown[state.revealing],), state.revealing)
        if len(state.shown) < state.players:
            return Turn(len(state.shown))
        ranks = [state.faces[state.shown[s]].rank for s in range(state.players)]
        winners = tuple(s for s, r in enumerate(ranks) if r == max(ranks))
        return Done(Result(winners, tuple(float(r) for r in ranks), "the highest card wins"))

    def on_shuffled(self, state, handles):
        state.stock = list(handles)

    def on_dealt(self, state, deal):
        for handle, seat in deal.to.items():
            state.hands[seat].append(handle)

    def on_reveal(self, state, faces):
        state.faces.update(faces)
        state.revealing = None

    def legal_actions(self, state, seat, known):
        return [{"type": "show", "card": h} for h in state.hands[seat]]

    def check(self, state, seat, action):
        if action.get("type") != "show" or action.get("card") not in state.hands[seat]:
            raise IllegalAction("show one of your own cards")

    def apply(self, state, seat, action):
        state.hands[seat].remove(action["card"])
        state.shown[seat] = action["card"]
        state.revealing = seat

    def view(self, state, seat, known):
        return {"hand": [] if seat is None else [known[h] for h in state.hands[seat]]}

    def format_action(self, state, seat, action, faces):
        card = faces.get(action["card"])
        return f"show {card}" if card else "show a card"

    def parse_action(self, state, seat, text, known):
        words = text.split()
        if len(words) != 2 or words[0] != "show":
            raise IllegalAction("expected: show CARD")
        face = parse_card(words[1])
        for handle in state.hands[seat]:
            if handle in known and known[handle].face == face:
                return {"type": "show", "card": handle}
        raise IllegalAction(f"you do not hold {face}")


# -- the stacked dealer and stacking ------------------------------------------------------------


def test_pick_cards_takes_each_copy_once():
    deck = build_deck(jokers=2)
    assert pick_cards("JK 7h JK", deck) == [Card(None, None, 0), parse_card("7h"), Card(None, None, 1)]
    with pytest.raises(ValueError, match="no other copy of 7h"):
        pick_cards("7h 7h", deck)
    with pytest.raises(ValueError, match="no copy of 7h"):
        pick_cards("7h", build_deck(without_suits=[Suit.HEARTS]))


def test_stack_deal_deals_round_the_seats_and_fills_each_hand():
    deck = build_deck()
    top = stack_deal(deck, {2: "Kc", 0: "7h 8h"}, [1, 2, 0], 3, avoid={1: lambda c: c.suit == Suit.CLUBS})
    assert [str(c) for c in top] == ["2d", "Kc", "7h", "3d", "2c", "8h", "4d", "3c", "4c"]
    sizes = stack_deal(deck, {}, [0, 1], {0: 2, 1: 1})
    assert [str(c) for c in sizes] == ["2c", "4c", "3c"]  # a longer hand takes the last card
    with pytest.raises(ValueError, match="seat 0 is dealt 1 cards, not 2"):
        stack_deal(deck, {0: "7h 8h"}, [0, 1], 1)
    with pytest.raises(ValueError, match="seat 3 is not dealt to"):
        stack_deal(deck, {3: "7h"}, [0, 1], 1)


def test_the_stacked_dealer_stacks_the_first_shuffles_then_shuffles_at_random():
    deck = build_deck()
    dealer = StackedDealer(deck, 2, random.Random(1), stacks=["Qs Kc", "2d"], coins={"dealer": 1})
    first = dealer.shuffle()
    assert [str(dealer.faces[h]) for h in first[:3]] == ["Qs", "Kc", "2c"]  # then deck order
    second = dealer.shuffle()
    assert str(dealer.faces[second[0]]) == "2d" and not set(first) & set(second)
    third = dealer.shuffle()
    assert {dealer.faces[h] for h in third} == set(deck) and dealer.shuffles == 3
    assert dealer.coin("dealer", 2) == 1 and dealer.coin("other", 5) in range(5)
    assert dealer.coins_drawn == {"dealer": 1, "other": dealer.coins_drawn["other"]}
    with pytest.raises(ValueError, match="used twice"):
        dealer.coin("dealer", 2)
    with pytest.raises(ValueError, match="range"):
        StackedDealer(deck, 2, coins={"c": 3}).coin("c", 3)


def test_a_shuffle_must_lay_out_the_whole_deck():
    dealer = StackedDealer(build_deck(), 2)
    with pytest.raises(ValueError, match="every card"):
        dealer.lay_out(build_deck()[1:])


# -- scenario tables ----------------------------------------------------------------------------


def test_a_scenario_from_stated_hands_to_the_result():
    table = ScenarioTable(Show(), 3, hands={0: "7h 2c", 2: "Ks"})
    assert table.turn == 0 and table.hand(0) == ["7h", "2c"] and "Ks" in table.hand(2)
    assert table.legal(0) == ["show 2c", "show 7h"]
    assert table.act(0, "show 7h") == {"type": "show", "card": table.state.shown[0]}
    assert table.reveals == [((table.state.shown[0],), 0)] and table.turn == 1
    with pytest.raises(IllegalAction, match="you do not hold Ks"):
        table.act(1, "show Ks")
    table.act(1, {"type": "show", "card": table.state.hands[1][0]})
    table.act(2, "show Ks")
    assert table.done and table.result.winners == (2,) and table.violations == []
    assert [type(s) for s in table.log[:2]] == [Shuffle, Deal] and isinstance(table.log[-1], Done)
    assert len(table.deals) == 1 and table.transfers == []


def test_a_modified_client_skips_its_own_check_and_the_audit_names_it():
    class StrictShow(Show):
        def check_own(self, state, seat, action, known):
            self.check(state, seat, action)
            if known[action["card"]].rank != max(known[h].rank for h in state.hands[seat]):
                raise IllegalAction("show your best card")

        def audit(self, state, actions, faces):
            return [
                Violation(seat, i, "not the best card")
                for i, (seat, a) in enumerate(actions)
                if faces[a["card"]].rank == 2
            ]

    table = ScenarioTable(StrictShow(), 2, hands={0: "2c Ah", 1: "3c 4c"})
    with pytest.raises(IllegalAction, match="best card"):
        table.act(0, "show 2c")
    table.act(0, "show 2c", check_own=False)
    table.act(1, "show 4c")
    assert [(v.seat, v.action_index) for v in table.violations] == [(0, 0)]


def test_then_puts_cards_after_the_deal_and_coins_choose_the_dealer():
    table = ScenarioTable(
        "crazy-eights",
        3,
        {"hand_size": 2},
        hands={0: "9s 8d", 1: "2h 5c", 2: "Qs Js"},
        then="9h 2c",
        coins={"dealer": 2},
    )
    assert table.state.dealer == 2 and table.turn == 0
    assert str(table.state.top) == "9h" and table.faces(table.state.stock[:1]) == ["2c"]
    assert table.hand(1) == ["5c", "2h"]  # as its view shows it


def test_hands_need_a_deal_before_anyone_acts():
    with pytest.raises(ValueError, match="before its first deal"):
        ScenarioTable("calypso", 4, hands={0: "7h"})  # the cut and the suit choices come first
    with pytest.raises(ValueError, match="gives seat 0 2 cards, not 3"):
        ScenarioTable(Show(), 2, hands={0: "7h 8h 9h"})
    with pytest.raises(ValueError, match="give hands or stacks"):
        ScenarioTable(Show(), 2, hands={0: "7h"}, stacks=["7h"])


def test_stacks_and_a_deck_of_ones_own():
    table = ScenarioTable(Show(), 2, {"cards": 1}, stacks=["Kd 3d"])
    assert table.hand(0) == ["Kd"] and table.hand(1) == ["3d"]
    made = []

    def deck(cards, players):
        made.append(StackedDealer(cards, players, stacks=["2d Ad"]))
        return made[0]

    table = ScenarioTable(Show(), 2, {"cards": 1}, deck=deck)
    assert table.deck is made[0] and table.hand(1) == ["Ad"]


def test_a_helper_answers_some_turns_by_itself():
    class FirstSeatShowsItsFirstCard(ScenarioTable):
        def answer(self, step):
            return {"type": "show", "card": self.state.hands[0][0]} if step.seat == 0 else None

    table = FirstSeatShowsItsFirstCard(Show(), 2, {"cards": 1}, hands={0: "5s"})
    assert table.turn == 1 and table.faces([table.state.shown[0]]) == ["5s"]


def test_play_out_lets_bots_finish_from_the_position_reached():
    table = ScenarioTable(Show(), 3, hands={0: "Ac 2c"})
    table.act(0, "show Ac")
    logged = len(table.log)
    record = table.play_out()
    assert record.result.winners and 0 in record.result.winners and record.violations == []
    assert table.result == record.result and len(table.actions) == 3
    later = table.log[logged:]
    assert [type(s) for s in later] == [Reveal, Turn, Reveal, Done]  # the turn it stood at is logged once


def test_load_game_names_what_is_missing():
    assert load_game("crazy-eights").id == "crazy-eights"
    with pytest.raises(LookupError, match="no game 'nonesuch'"):
        load_game("nonesuch")


# -- check_game ---------------------------------------------------------------------------------


def test_check_game_plays_every_variant_and_player_count():
    checks = check_game(Show(), games=2)
    assert [(c.variant, c.players, c.index) for c in checks] == [
        (variant, players, index) for variant in (None, "one-card") for players in (2, 3, 4) for index in (0, 1)
    ]
    assert all(c.record.violations == [] and c.decisions == c.players for c in checks)
    assert sum(c.actions_checked for c in checks if c.variant == "one-card") == sum(
        c.players for c in checks if c.variant == "one-card"
    )
    assert check_game(Show(), variants=["one-card"], players=3, games=1)[0].options == {"cards": 1}


def test_check_game_plays_the_bots_it_is_given_and_is_reproducible():
    class FirstCard(Bot):
        name = "first"

        def choose(self, state, known):
            return {"type": "show", "card": state.hands[self.seat][0]}

    checks = check_game(Show(), variants=[None], players=2, bots=[FirstCard, RandomBot])
    assert {a["card"] for seat, a in checks[0].record.actions if seat == 0} <= set(checks[0].record.faces)
    again = check_game(Show(), variants=[None], players=2, bots=[FirstCard, RandomBot])
    assert [c.record.actions for c in checks] == [c.record.actions for c in again]
    with pytest.raises(ValueError, match="one per seat"):
        check_game(Show(), players=3, bots=[FirstCard, RandomBot])
    with pytest.raises(LookupError, match="no bot 'nonesuch'"):
        check_game("crazy-eights", players=2, bots="nonesuch")
    with pytest.raises(ValueError, match="no variant 'x'"):
        check_game(Show(), variants=["x"])


class Says(Show):
    """Writes actions as log phrases ("shows 7h"), which its parser does not read."""

    def format_action(self, state, seat, action, faces):
        return "s" + super().format_action(state, seat, action, faces).replace("show", "hows", 1)


class OffersTooMuch(Show):
    def legal_actions(self, state, seat, known):
        return super().legal_actions(state, seat, known) + [{"type": "show", "card": -1}]


class RemembersWhatItSaw(Show):
    def legal_actions(self, state, seat, known):
        state.faces.update({h: known[h] for h in state.hands[seat]})  # a leak into public state
        return super().legal_actions(state, seat, known)


class CountsApplies(Show):
    applied = 0  # shared by every replica: they cannot agree

    def apply(self, state, seat, action):
        CountsApplies.applied += 1
        super().apply(state, seat, action)
        state.cards = CountsApplies.applied


class BlamesEveryone(Show):
    def audit(self, state, actions, faces):
        return [Violation(seat, i, "made up") for i, (seat, _) in enumerate(actions)]


class SuitInAction(Show):
    def legal_actions(self, state, seat, known):
        return [{**a, "suit": Suit.HEARTS} for a in super().legal_actions(state, seat, known)]


class LosesTheSeats(Show):
    def next_step(self, state):
        step = super().next_step(state)
        return Done(Result((7,), (), "")) if isinstance(step, Done) else step


class Stuck(Show):
    def legal_actions(self, state, seat, known):
        return []


@pytest.mark.parametrize(
    "game, problem",
    [
        (Says(), r"writes \{'type': 'show', 'card': \d+\} as 'shows \w+', which parse_action refuses"),
        (OffersTooMuch(), r"legal_actions offers seat 0 \{'type': 'show', 'card': -1\}, but the rules refuse it"),
        (RemembersWhatItSaw(), r"changed the state .*: state.faces"),
        (CountsApplies(), "replicas' final states differ: state.cards"),
        (BlamesEveryone(), "the audit found violations in a game between honest bots: action 0 .seat 0.: made"),
        (SuitInAction(), "not plain data"),
        (LosesTheSeats(), r"winners \(7,\) are not distinct seats"),
        (Stuck(), "offers seat 0 nothing"),
    ],
)
def test_check_game_names_what_a_broken_game_breaks(game, problem):
    with pytest.raises(GameCheckFailure, match=problem) as caught:
        check_game(game, variants=[None], players=2, games=1)
    assert str(caught.value).startswith("show (default options, 2 players, game 0, seed 0), at action ")


def test_round_trip_false_asks_only_for_some_text():
    check_game(Says(), round_trip=False, games=1)


def test_an_error_inside_the_game_is_raised_with_where_it_happened():
    class Crashes(Show):
        def format_action(self, state, seat, action, faces):
            raise KeyError("oops")

    with pytest.raises(KeyError) as caught:
        check_game(Crashes(), variants=["one-card"], players=2, games=1)
    assert "in check_game: show (one-card, 2 players, game 0, seed 0), at action 0" in caught.value.__notes__


def test_check_game_names_a_bot_whose_choice_the_rules_refuse():
    class ShowsAnother(Bot):
        name = "wrong"

        def choose(self, state, known):
            return {"type": "show", "card": state.hands[1 - self.seat][0]}

    with pytest.raises(GameCheckFailure, match=r"seat 0's bot chose .*, which the rules refuse: show one"):
        check_game(Show(), variants=[None], players=2, games=1, bots=ShowsAnother)


# -- docs/testing.md ----------------------------------------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs" / "testing.md"


def doc_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)\n```$", DOCS.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL)


def _example(number: int, block: str) -> object:
    """An example that plays whole games (``check_game``, a loopback table) is the slow
    tier's: 7-12 s each in a --fast run; the same calls run in the fast tier in
    tests/games/crazy_eights/test_crazy_eights_games.py and tests/net/test_loopback.py."""
    whole_games = any(word in block for word in ("check_game(", "run_loopback(", "async def test_"))
    return pytest.param(number, marks=pytest.mark.slow) if whole_games else number


@pytest.mark.parametrize("number", [_example(n, b) for n, b in enumerate(doc_blocks())])
def test_every_example_of_the_testing_docs_runs(number, tmp_path):
    namespace: dict = {}
    exec(compile(doc_blocks()[number], f"docs/testing.md block {number}", "exec"), namespace)
    tests = [value for name, value in namespace.items() if name.startswith("test_") and callable(value)]
    assert tests
    for test in tests:
        marks = [m for m in getattr(test, "pytestmark", []) if m.name == "parametrize"]
        fixtures = {"tmp_path": tmp_path} if "tmp_path" in inspect.signature(test).parameters else {}
        if not marks:
            run_example(test, **fixtures)
        for mark in marks:  # one parameter in these examples
            name, values = mark.args
            for value in values:
                run_example(test, **fixtures, **{name: value})


def run_example(test, **arguments) -> None:
    """Call an example test as pytest would (an async one under trio, as pytest-trio does)."""
    if inspect.iscoroutinefunction(test):
        trio.run(functools.partial(test, **arguments))
    else:
        test(**arguments)


def test_unused_port_is_never_handed_to_two_programs_at_once(tmp_path, monkeypatch):
    """Each program reserves the ports it hands out (a file per port), so another program (an
    xdist worker, a suite side by side) skips them even before they are bound: a side-by-side
    run had a host fail with "Address already in use" on a port another worker had been
    handed. A dead program's reservation goes stale; a program's own go at its exit."""
    import subprocess
    import sys

    from p2pcards.testing import loopback

    monkeypatch.setattr(loopback, "_RESERVED", tmp_path)
    monkeypatch.setattr(loopback, "_OURS", [])
    # Another program holds every port but one of a small range: only that one comes out.
    monkeypatch.setattr(loopback, "_PORTS", _Cycle([21_000, 21_001, 21_002]))
    for port in (21_000, 21_001):
        (tmp_path / str(port)).touch()
    assert loopback.unused_port() == 21_002
    assert (tmp_path / "21002").exists() and [tmp_path / "21002"] == loopback._OURS
    # An hour old: a dead program's, taken over.
    old = tmp_path / "21000"
    os.utime(old, (old.stat().st_atime - 7200, old.stat().st_mtime - 7200))
    assert loopback._reserve(21_000) and not loopback._reserve(21_001)
    # A program's own reservations go when it exits.
    code = (
        "import sys; from pathlib import Path; from p2pcards.testing import loopback; "
        "loopback._RESERVED = Path(sys.argv[1]); print(loopback.unused_port())"
    )
    port = int(
        subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True).stdout
    )
    assert 20_000 <= port < 32_000 and not (tmp_path / str(port)).exists()


class _Cycle:
    """A stand-in for the port generator: the given ports, in turn."""

    def __init__(self, ports):
        self.ports, self.next = list(ports), 0

    def randrange(self, start, stop):
        port = self.ports[self.next % len(self.ports)]
        self.next += 1
        return port

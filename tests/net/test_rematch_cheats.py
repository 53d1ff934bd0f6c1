"""A rematch host that changes what the players agreed to: each joiner checks the new table's
header against the last game's (lobby.rematch_problem) and leaves it; an honest rematch passes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from p2pcards import PROTOCOL_VERSION
from p2pcards.net.lobby import rematch_problem
from p2pcards.table.header import Seat, TableHeader
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.identity import Identity, PublicIdentity
from p2pcards.wire.messages import new_table_id

KEYS = [Identity.generate().public for _ in range(3)]
SWAPPED = PublicIdentity(KEYS[2].ed25519, Identity.generate().public.x25519)


def last_game() -> TableHeader:
    seats = tuple(Seat(name, keys, "127.0.0.1", 40000 + i) for i, (name, keys) in enumerate(zip("abc", KEYS)))
    return TableHeader(new_table_id(), "cals-bs", "2", {"match_target": 1}, seats, PROTOCOL_VERSION)


def test_an_honest_rematch_is_accepted():
    previous = last_game()
    # A new id; new ports and even new names are the players' own business.
    seats = tuple(replace(s, port=s.port + 10, name=s.name.upper()) for s in previous.seats)
    assert rematch_problem(previous, replace(previous, table=new_table_id(), seats=seats)) is None


@pytest.mark.parametrize("kept", [(0, 1), (0, 2)])
def test_a_smaller_rematch_of_the_players_who_stayed_is_accepted(kept):
    """A seat left the rematch's room: the others play it, in their order, the host first."""
    previous = last_game()
    seats = tuple(previous.seats[i] for i in kept)
    assert rematch_problem(previous, replace(previous, table=new_table_id(), seats=seats)) is None


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda h: {}, "table id"),  # the same table: the same deck seeds' context
        (lambda h: {"seats": (h.seats[1], h.seats[0], h.seats[2])}, "in their order"),
        (lambda h: {"seats": (h.seats[0], h.seats[2], h.seats[1])}, "in their order"),
        (lambda h: {"seats": h.seats[:2] + (replace(h.seats[2], keys=Identity.generate().public),)}, "in their order"),
        # A smaller rematch (a seat left) keeps the host first and at least two players.
        (lambda h: {"seats": h.seats[1:]}, "in their order"),
        (lambda h: {"seats": h.seats[:1]}, "in their order"),
        (lambda h: {"seats": (h.seats[0], h.seats[1], h.seats[1])}, "in their order"),
        (lambda h: {"seats": h.seats + (replace(h.seats[2], keys=Identity.generate().public),)}, "in their order"),
        # The same signing key with an encryption key of the host's (issue 28).
        (lambda h: {"seats": h.seats[:2] + (replace(h.seats[2], keys=SWAPPED),)}, "gives c another encryption key"),
        (lambda h: {"game": "calypso"}, "changes the game"),
        (lambda h: {"rules_version": "3"}, "changes the game"),
        (lambda h: {"options": {"match_target": 5}}, "options"),
        (lambda h: {"timeouts": Timeouts(turn=1.0)}, "timeouts"),
    ],
)
def test_a_rematch_that_changes_the_table_is_refused(change, words):
    previous = last_game()
    fields = change(previous)
    header = replace(previous, **({"table": new_table_id()} if fields else {}), **fields)
    problem = rematch_problem(previous, header)
    assert problem is not None and words in problem, problem


def test_how_many_a_smaller_rematch_needs_in_words():
    """Who may play a rematch without those who left: each game's own counts, said plainly."""
    from p2pcards.net.rematch import playable, too_few
    from p2pcards.plugins import load_plugins

    plugins = load_plugins()
    expected = {
        "cals-bs": ({3, 4, 5, 6, 7}, "Cal's BS needs at least 3 players"),
        "crazy-eights": ({2, 3, 4, 5}, "Crazy Eights needs at least 2 players"),
        "calypso": ({4}, "Calypso needs 4 players"),  # its default mode: partnerships of four
    }
    for game_id, (counts, words) in expected.items():
        if game_id not in plugins.games:
            continue
        game = plugins.game(game_id)
        options = game.resolve_options({}, min(counts))
        assert {n for n in range(1, 9) if playable(game, options, n)} == counts, game_id
        assert too_few(game, options) == words


def four_seats(first_dealer: int) -> TableHeader:
    keys = [Identity.generate().public for _ in range(4)]
    seats = tuple(Seat(name, k, "127.0.0.1", 40000 + i) for i, (name, k) in enumerate(zip("abcd", keys)))
    options = {"match_target": 1, "first_dealer": first_dealer}
    return TableHeader(new_table_id(), "cals-bs", "2", options, seats, PROTOCOL_VERSION)


@pytest.mark.parametrize(
    "volunteer, kept, now",
    [
        (3, (0, 1, 2), -1),  # the volunteer left: by lot
        (3, (0, 2, 3), 2),  # a seat before the volunteer's left: its new seat
        (1, (0, 1, 3), 1),  # a seat after it left: the same seat
        (-1, (0, 1, 3), -1),  # by lot stays by lot
    ],
)
def test_an_option_that_names_a_seat_follows_its_player_to_a_smaller_rematch(volunteer, kept, now):
    """Cal's BS's first_dealer names a seat: at a smaller rematch it names the same player's
    seat there, or takes its default if that player left; any other value is refused."""
    from p2pcards.game import seat_options
    from p2pcards.net.lobby import rematch_options
    from p2pcards.plugins import load_plugins

    plugins = load_plugins()
    if "cals-bs" not in plugins.games:
        pytest.skip("cals-bs is not installed")
    by_seat = seat_options(plugins.game("cals-bs"))
    assert by_seat == {"first_dealer": -1}
    previous = four_seats(volunteer)
    assert rematch_options(previous.options, by_seat, list(kept)) == {"match_target": 1, "first_dealer": now}
    seats = tuple(previous.seats[i] for i in kept)
    for dealer in (-1, 0, 1, 2):
        header = replace(
            previous, table=new_table_id(), seats=seats, options={"match_target": 1, "first_dealer": dealer}
        )
        problem = rematch_problem(previous, header, by_seat)
        assert (problem is None) == (dealer == now), (dealer, problem)
        if problem is not None:
            assert "options" in problem
    # A rematch of every seat keeps the option as it was.
    same = replace(previous, table=new_table_id())
    assert rematch_problem(previous, same, by_seat) is None

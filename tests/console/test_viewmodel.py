"""View models of the table screen for each game, and how they are rendered."""

from __future__ import annotations

import pytest
import trio
from prompt_toolkit.formatted_text import fragment_list_to_text

from p2pcards.cards import Card, parse_card
from p2pcards.console.render import (
    ASCII,
    UNICODE,
    choose_glyphs,
    colour_enabled,
    console_style,
    end_fragments,
    hand_fragments,
    seats_fragments,
    text_fragments,
    word_wrap,
)
from p2pcards.console.viewmodel import (
    TableTracker,
    end_model,
    name_seats,
    seat_facts,
    table_lines,
    table_model,
)
from p2pcards.game import Violation
from p2pcards.session import TableEvent

from .support import require_game, table


async def first_turn_of_mine(session, *, need_hand=True):
    """Run the table in the background until it is the local seat's turn (with cards)."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        with trio.fail_after(10):
            while True:
                if session.my_turn:
                    if not need_hand or session.view().get("hand"):
                        break
                    session.submit(session.legal_actions()[0])  # e.g. Calypso's trump choice
                await trio.sleep(0.001)
        model = table_model(session)
        nursery.cancel_scope.cancel()
    return model


async def test_high_card_table_falls_back_to_the_cards_the_seat_can_see(host):
    session = table(host, "high-card", players=3, options={"cards": 3}, me=1)
    model = await first_turn_of_mine(session, need_hand=False)
    assert [s.name for s in model.seats] == session.names
    assert [s.me for s in model.seats] == [False, True, False]
    # The fixture game's view() is empty: the console says what it shows instead of a hand.
    assert model.hand_label == "cards you can see"
    assert len(model.hand) >= 3 and all(isinstance(c, Card) for c in model.hand)
    assert model.status.startswith("your turn")
    text = fragment_list_to_text(seats_fragments(model, UNICODE))
    assert "you" in text and "random bot 0" in text


async def test_cals_bs_table_shows_hand_sizes_the_pile_and_claims(host):
    require_game(host, "cals-bs")
    session = table(host, "cals-bs", players=3, me=0, seed=1)
    model = await first_turn_of_mine(session)
    view = session.view()
    assert model.hand_label == "your hand"
    assert list(model.hand) == view["hand"]  # the game's own order (by rank)
    sizes = [dict(s.facts)["cards"] for s in model.seats]
    assert sizes == [str(n) for n in view["hand_sizes"]]
    assert [dict(s.facts)["hands won"] for s in model.seats] == ["0", "0", "0"]
    assert [s.to_act for s in model.seats] == [True, False, False]
    assert model.table[0].startswith("pile:")
    assert any(line.startswith("hand 1 of the match") for line in model.table)
    if view["pile"]:
        assert any("claimed" in line for line in model.table)
    assert model.status.startswith("your turn: ") and "Tab lists" in model.status
    assert "seat " not in " ".join(model.table)  # seats are shown by name


async def test_calypso_table_shows_trick_trumps_and_scores(host):
    require_game(host, "calypso")
    session = table(host, "calypso", players=4, me=0, seed=2)
    model = await first_turn_of_mine(session)
    view = session.view()
    assert len(model.hand) == len(view["hand"]) == 13 - sum(1 for p in view["trick"] if p["seat"] == 0)
    facts = [dict(s.facts) for s in model.seats]
    assert all(f["trump"] in "♠♥♦♣" for f in facts)
    assert all("score" in f and "cards" in f and "calypsos" in f for f in facts)
    assert model.table[0].startswith("trick 1:")
    assert any(line.startswith("trumps: ") and "you" in line for line in model.table)
    assert any(line.startswith("deal 1 of 4") for line in model.table)
    assert model.status.startswith("your turn: ")


async def test_crazy_eights_table_comes_from_the_generic_keys(host):
    require_game(host, "crazy-eights")
    session = table(host, "crazy-eights", players=3, me=0, seed=3)
    model = await first_turn_of_mine(session)
    assert model.hand_label == "your hand" and model.hand
    assert all("cards" in dict(s.facts) for s in model.seats)
    assert model.table[0].startswith("pile: ")
    # One wording for the player's turn in every game (the game says "you to play: ..."; the
    # review of issue 30 read "you to play" here and "your turn" in Cal's BS).
    assert model.status.startswith("your turn: play a") and "Tab lists" in model.status, model.status


def test_generic_view_keys_are_rendered_for_any_game():
    view = {
        "seats": [{"cards": 3, "tricks": 1, "bid": None}, {"cards": 2, "tricks": 0, "seat": 1}],
        "table": ["lead: 7h by seat 1", "trumps: ♥", "seat 0's turn"],
        "pile": [],  # a game's own key: not rendered, the game drew its own table lines
        "hand": ["Qh", "7s"],
    }
    assert seat_facts(view, 2) == [[("cards", "3"), ("tricks", "1")], [("cards", "2"), ("tricks", "0")]]
    assert table_lines(view, ["you", "bot 1"]) == ["lead: 7h by bot 1", "trumps: ♥", "your turn"]
    assert table_lines({"table": "a\nseat 1 b"}, ["you", "bot 1"]) == ["a", "bot 1 b"]
    assert seat_facts({"players": [{"cards": 3}]}, 1) == [[]]  # only the generic key counts


def test_name_seats_leaves_unknown_seats_and_other_words_alone():
    names = ["you", "bot 1"]
    assert name_seats("seat 1 to play, seat 7 left, seats 2", names) == "bot 1 to play, seat 7 left, seats 2"
    assert name_seats("seat 1's card and seat 0's", names) == "bot 1's card and your"


def test_name_seats_names_groups_and_keeps_the_verb_right():
    names = ["you", "bot 1", "bot 2", "bot 3"]
    assert name_seats("seat 0 wins the match (1-0-0 in hands won)", names) == "you win the match (1-0-0 in hands won)"
    assert name_seats("seat 0 chooses a trump suit", names) == "you choose a trump suit"
    assert name_seats("seat 0 to play", names) == "you to play"
    assert name_seats("seats 2 and 3 win 1980 to 1850", names) == "bot 2 and bot 3 win 1980 to 1850"
    assert name_seats("seats 1, 2 and 9 win", names) == "seats 1, 2 and 9 win"


def test_unknown_view_shapes_fall_back_to_scalar_keys():
    assert table_lines({"round": 2, "bid": "3 tricks", "hand": ["7h"], "deep": {"x": 1}}, ["a"]) == [
        "round: 2",
        "bid: 3 tricks",
    ]


def test_cards_in_text_get_symbols_and_colours():
    frags = text_fragments("you play 7h 10s as 7, JK, trump ♦", UNICODE)
    assert fragment_list_to_text(frags) == "you play 7♥ 10♠ as 7, JK, trump ♦"
    styles = {text: style for style, text in frags}
    assert "card.red" in styles["7♥"] and "card.black" in styles["10♠"]
    assert "card.joker" in styles["JK"] and "card.red" in styles["♦"]
    # Not cards: claims like 3x8, words, lower-case ranks.
    assert fragment_list_to_text(text_fragments("claimed 3x8 as 8s", UNICODE)) == "claimed 3x8 as 8♠"
    assert all("card" not in s for s, t in text_fragments("as Ahead", UNICODE))


def test_ascii_fallback_keeps_card_text_plain():
    frags = text_fragments("trump ♦, play 7♥ 10s", ASCII)
    assert fragment_list_to_text(frags) == "trump d, play 7h 10s"
    model_hand = hand_fragments(type("M", (), {"hand": (parse_card("Qh"), parse_card("2s")), "fresh": ()})(), ASCII)
    assert fragment_list_to_text(model_hand) == "Qh 2s"


def test_ascii_and_colour_switches():
    assert choose_glyphs(None, {}, "utf-8") is UNICODE
    assert choose_glyphs(None, {"P2PCARDS_ASCII": "1"}, "utf-8") is ASCII
    assert choose_glyphs(None, {}, "ANSI_X3.4-1968") is ASCII  # a C locale terminal
    assert choose_glyphs(True, {}, "utf-8") is ASCII
    assert colour_enabled({}) and not colour_enabled({"NO_COLOR": "1"})
    mono = console_style(colour=False)
    attrs = mono.get_attrs_for_style_str("class:card.red")
    assert attrs.color in (None, "") and attrs.bold


async def test_tracker_shows_progress_then_the_phase(host):
    session = table(host, "high-card", players=4, me=0)
    changes = []
    tracker = TableTracker(session, on_change=lambda: changes.append(1))
    assert tracker.busy and tracker.busy_text() == "setting up the table"
    session.publish("phase", "shuffling", phase="shuffling")
    session.phase = "shuffling"
    assert tracker.busy_text().startswith("shuffling the deck")
    session.publish("progress", "shuffling: 3 of 4 players done", done=3, total=4)
    assert tracker.busy_text() == "shuffling: 3 of 4 players done"
    session.publish("chat", "bob: hi")
    assert tracker.log[-1].text == "bob: hi" and len(changes) == 3
    session.phase = "playing"
    session.publish("phase", "playing")
    assert not tracker.busy and tracker.progress is None


async def test_a_long_match_keeps_the_newest_log_lines(host):
    # Issue 23: the console's log must not grow with the match; it keeps a long scroll-back.
    from p2pcards.console.viewmodel import LOG_LINES

    session = table(host, "high-card", players=4, me=0)
    tracker = TableTracker(session)
    for n in range(2 * LOG_LINES + 1):
        session.publish("chat", f"bob: line {n}")
        assert len(tracker.log) <= LOG_LINES
    assert len(tracker.log) > LOG_LINES // 2 and tracker.log[-1].text == f"bob: line {2 * LOG_LINES}"


async def test_tracker_turn_clock(host):
    now = [100.0]
    session = table(host, "high-card", players=2, me=0)
    tracker = TableTracker(session, clock=lambda: now[0])
    tracker.on_event(TableEvent("turn", "you to play", {"seat": 0}))
    now[0] = 165.5
    assert tracker.turn == 0 and tracker.turn_seconds() == 65


async def test_end_model_says_result_audit_and_transcript(host):
    session = table(host, "high-card", players=3, me=0, seed=4)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        with trio.fail_after(5):
            while session.result is None:
                if session.my_turn:
                    session.submit(session.legal_actions()[0])
                await trio.sleep(0.001)
    end = end_model(session)
    assert end.audit == ("audit: clean, every card shown checked",)
    assert end.transcript is None and end.verify is None
    text = fragment_list_to_text(end_fragments(end, UNICODE))
    assert "no transcript was saved" in text and "'new'" in text and "'quit'" in text
    session.transcript_path = "/tmp/t.p2pcards"
    session.violations = [Violation(2, 1, "did not show the best card")]
    end = end_model(session)
    assert end.verify == "p2pcards verify /tmp/t.p2pcards"
    assert end.audit[0] == "audit: 1 violation(s) found"
    assert "random bot 2, action 1: did not show the best card" in end.audit[1]
    # Not "saved" before it is: the file is written once every seat has its result.
    text = fragment_list_to_text(end_fragments(end, UNICODE))
    assert "transcript: not saved yet" in text
    assert "transcript saved" not in text and "/tmp/t.p2pcards" not in text and "p2pcards verify" not in text
    session.transcript_saved = True
    text = fragment_list_to_text(end_fragments(end_model(session), UNICODE))
    assert "transcript saved to /tmp/t.p2pcards" in text and "p2pcards verify /tmp/t.p2pcards" in text


@pytest.mark.parametrize("me_wins", [True, False])
def test_end_model_names_the_winner(host, me_wins):
    from p2pcards.game import Result

    session = table(host, "high-card", players=2, me=0)
    session.result = Result((0,) if me_wins else (1,), (9.0, 5.0), "summary")
    end = end_model(session)
    assert end.winners == ("you win" if me_wins else "winner: random bot 1")
    assert end.scores == (("you: 9", "random bot 1: 5") if me_wins else ("random bot 1: 5", "you: 9"))


def test_word_wrap_breaks_between_words_not_inside_cards_or_addresses():
    def text(fragments):
        return "".join(t for _, t in fragments)

    address = [("", "table 'carol' (Crazy Eights, 3 seats) is open at 127.0.0.1:33209")]
    assert text(word_wrap(address, 62)).splitlines()[-1] == "127.0.0.1:33209"
    cards = [("r", "10"), ("s", "♠"), ("", " "), ("r", "J"), ("s", "♦"), ("", " "), ("r", "10"), ("s", "♦")]
    assert [line.strip() for line in text(word_wrap(cards, 9)).splitlines()] == ["10♠ J♦", "10♦"]
    assert word_wrap(address, None) == address


def test_commands_said_of_another_seat_read_as_sentences():
    from p2pcards.text import command_words as _command_words
    from p2pcards.text import third_person as _third_person

    verbs = _command_words("play CARD   play a card\ndraw        take the top card\npass        when you cannot draw")
    assert verbs == ["play", "draw", "pass"]
    assert _third_person("bot 1 play a card", "bot 1", verbs) == "bot 1 plays a card"
    assert _third_person("bot 1 pass", "bot 1", verbs) == "bot 1 passes"
    assert _third_person("bot 1 draw", "bot 1", verbs) == "bot 1 draws"
    assert _third_person("bot 1 passes", "bot 1", verbs) == "bot 1 passes"  # worded as a sentence already
    assert _third_person("carol chooses hearts", "bot 1", verbs) == "carol chooses hearts"

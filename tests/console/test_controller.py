"""Enter and Tab: legal moves as typed text the game reads back, refusals that keep the text."""

from __future__ import annotations

import pytest
import trio
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from p2pcards.console.completion import TableCompleter
from p2pcards.console.controller import Feedback, TableController
from p2pcards.console.viewmodel import TableTracker

from .support import require_game, table


def controller_for(session):
    return TableController(session, TableTracker(session))


def completions(controller, typed):
    doc = Document(typed, len(typed))
    return [c.text for c in TableCompleter(controller).get_completions(doc, CompleteEvent(completion_requested=True))]


@pytest.mark.parametrize(
    "game_id,players,options,seed",
    [
        ("high-card", 3, {}, 3),
        ("cals-bs", 3, {"match_target": 1}, 3),
        ("calypso", 4, {}, 3),
        # Set-aside turns after each deal: "aside" alone, the game picks the cards.
        ("calypso", 3, {"mode": "three", "removed_suit": "random"}, 3),
        # solo and three: seat 0 cuts second and chooses a place with its suit ("trump hearts left")
        ("calypso", 4, {"mode": "solo"}, 2),
        ("calypso", 3, {"mode": "three"}, 2),
    ],
)
async def test_every_legal_move_has_a_typed_form_the_game_reads_back(host, game_id, players, options, seed):
    """Over a whole game, at each of the local seat's turns: every legal action gets a text that
    the game's own grammar parses back to it, and Tab offers exactly those texts."""
    require_game(host, game_id)
    session = table(host, game_id, players=players, options=options, me=0, seed=seed)
    controller = controller_for(session)
    turns = 0
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        with trio.fail_after(30):
            while session.result is None:
                # The seat must be asking too: my_turn stays true until the session has taken
                # the move just submitted, and a second one would be refused.
                if session.my_turn and session.seats[0].waiting:
                    turns += 1
                    legal = session.legal_actions()
                    choices = controller.move_choices()
                    described = {session.describe(0, a) for a in legal}
                    assert {c.description for c in choices} == described
                    for choice in choices:
                        assert session.describe(0, session.parse(choice.text)) == choice.description
                    offered = completions(controller, "")
                    assert [c.text for c in choices] == [
                        t for t in offered if t not in ("help", "legal", "say ", "quit")
                    ]
                    session.submit(session.parse(choices[-1].text))
                await trio.sleep(0.001)
    assert turns >= 1


async def test_refusals_keep_the_text_and_say_why(host):
    session = table(host, "high-card", players=2, me=1, seed=5)
    controller = controller_for(session)
    feedback = controller.handle("show 2h")
    assert feedback.error and feedback.keep_text and "wait" in feedback.message
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        with trio.fail_after(5):
            while not session.my_turn:
                await trio.sleep(0.001)
        feedback = controller.handle("jump")
        assert feedback.error and feedback.keep_text
        assert feedback.message.startswith("can't read that: expected: show CARD")
        hand = sorted(session.state.hands[1], key=lambda h: session.known()[h].rank)
        if session.known()[hand[0]].rank != session.known()[hand[-1]].rank:
            feedback = controller.handle(f"show {session.known()[hand[0]]}")
            assert feedback.error and feedback.keep_text
            assert feedback.message == "not allowed: you must show your best card"
        feedback = controller.handle("legal")
        assert feedback.message.startswith("legal now: show ") and not feedback.error
        assert controller.handle(controller.move_choices()[0].text) == type(feedback)()
        nursery.cancel_scope.cancel()


async def test_console_commands(host):
    session = table(host, "high-card", players=2, me=0)
    controller = controller_for(session)
    assert controller.handle("help").intent == "help"
    assert controller.handle("F1").intent is None  # only 'help' and '?' open help
    assert controller.handle("quit").intent == "quit"
    assert controller.handle("new").error  # not while the game is on
    assert controller.handle("say").error
    assert controller.handle("say  hello   there ") == type(controller.handle(""))()
    assert session.history[-1].kind == "chat" and session.history[-1].text == "you: hello there"
    assert completions(controller, "q") == ["quit"]
    assert completions(controller, "he") == ["help"]
    assert "new" not in completions(controller, "")


def test_completion_matches_arguments_too(host):
    require_game(host, "calypso")

    async def main():
        session = table(host, "calypso", players=4, me=0, seed=2)
        controller = controller_for(session)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(session.run)
            with trio.fail_after(10):
                while not (session.my_turn and session.view().get("hand")):
                    if session.my_turn and session.seats[0].waiting:
                        session.submit(session.legal_actions()[0])
                    await trio.sleep(0.001)
            first = controller.move_choices()[0].text  # e.g. "play 7d"
            card = first.split()[-1]
            assert first in completions(controller, card)
            assert first in completions(controller, first[:3])
            nursery.cancel_scope.cancel()

    trio.run(main)


def test_typed_forms_are_what_a_player_types(host):
    """Tab and 'legal' offer the command ("pass", "play 7h as 7"), not the log's third person
    ("passes", "plays 7h as 7"), even where the grammar reads both."""
    require_game(host, "cals-bs")

    async def main():
        session = table(host, "cals-bs", players=3, options={"match_target": 1}, me=0, seed=3)
        controller = controller_for(session)
        seen: set[str] = set()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(session.run)
            with trio.fail_after(20):
                while session.result is None and len(seen) < 3:
                    if session.my_turn and session.seats[0].waiting:
                        texts = [c.text for c in controller.move_choices()]
                        seen.update(text.split()[0] for text in texts)
                        session.submit(session.parse(texts[-1]))
                    await trio.sleep(0.001)
            nursery.cancel_scope.cancel()
        assert seen and not seen & {"passes", "doubts", "plays", "leads"}, seen

    trio.run(main)


@pytest.mark.parametrize(
    "options",
    [
        {"mode": "three", "removed_suit": "random"},  # a set-aside after every deal
        {"allow_revoke": True},  # honour mode: 'stand' turns where no correction is possible
    ],
)
async def test_an_empty_enter_plays_the_only_legal_move_and_nothing_else(host, options):
    """At each of the local seat's turns: with one legal action the controller names it and an
    empty Enter plays it; with several, an empty Enter plays nothing and the seat still waits."""
    require_game(host, "calypso")
    session = table(host, "calypso", players=3 if options.get("mode") == "three" else 4, options=options, me=0, seed=4)
    controller = controller_for(session)
    mine = []  # the local seat's actions, as the table played them

    def note(event):
        if event.kind == "action" and event.data.get("seat") == 0:
            mine.append(event.data["action"])

    session.subscribe(note)
    forced_turns = open_turns = 0
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        with trio.fail_after(30):
            while session.result is None and (forced_turns < 3 or open_turns < 3):
                if session.my_turn and not controller.move_pending:
                    legal = session.legal_actions()
                    played = len(mine)
                    forced = controller.forced_move()
                    assert controller.handle("") == Feedback()  # no message, no refusal either way
                    if len(legal) == 1:
                        forced_turns += 1
                        assert forced is not None and forced.action == legal[0]
                        assert session.parse(forced.text) == legal[0]  # what the status line says to type
                        assert controller.move_pending
                        while len(mine) == played:
                            await trio.sleep(0.001)
                        assert mine[-1] == legal[0]
                    else:
                        open_turns += 1
                        assert forced is None and not controller.move_pending
                        assert session.seats[0].waiting  # nothing was handed to the seat
                        await trio.sleep(0.01)
                        assert len(mine) == played and session.my_turn
                        controller.handle(controller.move_choices()[0].text)
                await trio.sleep(0.001)
        nursery.cancel_scope.cancel()
    assert forced_turns >= 3 and open_turns >= 3


async def test_legal_moves_are_fresh_after_the_session_history_is_trimmed(host):
    """The session keeps its last HISTORY_EVENTS events, so the history's length comes back
    to values it had before: the moves offered are still those legal now (a cache keyed on
    that length offered a past turn's moves, and Enter played one the game refuses)."""
    from p2pcards.session import HISTORY_EVENTS

    require_game(host, "cals-bs")
    session = table(host, "cals-bs", players=3, options={"match_target": 1}, me=0, seed=3)
    controller = controller_for(session)
    mark: int | None = None
    checked = 0

    def pad_to(length: int) -> None:
        # Trimming happens past HISTORY_EVENTS: going round once brings any length back.
        while len(session.history) != length:
            session.publish("notice", "filler")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        with trio.fail_after(30):
            while session.result is None and checked < 3:
                if session.my_turn and session.seats[0].waiting:
                    if mark is None:
                        mark = HISTORY_EVENTS // 2 + 500
                    pad_to(mark)
                    described = {session.describe(0, a) for a in session.legal_actions()}
                    assert {c.description for c in controller.move_choices()} == described
                    forced = controller.forced_move()
                    if forced is not None:
                        assert len(session.legal_actions()) == 1
                    checked += 1
                    session.submit(session.legal_actions()[-1])
                await trio.sleep(0.001)
        nursery.cancel_scope.cancel()
    assert checked >= 2

"""The real console application on a pipe input: whole games typed line by line against bots."""

from __future__ import annotations

import asyncio

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text

from p2pcards.console.render import ASCII

from .support import BUNDLED, drawn, require_game, run_console, table


def choose(console, prefer=()):
    """A legal move as typed text: the first choice starting with one of ``prefer``, else the
    first one offered."""
    choices = [c.text for c in console.controller.move_choices()]
    assert choices, "the console offers no legal move on my turn"
    for word in prefer:
        for text in choices:
            if text.startswith(word):
                return text
    return choices[0]


async def play_to_the_end(driver, prefer=(), max_turns=2000):
    """Play legal moves typed into the input line until the game ends; returns the largest
    hand shown on the way."""
    console = driver.console
    largest = 0
    for _ in range(max_turns):
        await driver.my_turn_or_end(timeout=20)
        if console.session.result is not None or console.stopped:
            return largest
        largest = max(largest, len(console.model().hand))
        move = choose(console, prefer)
        await driver.enter(move)
        assert not console.message.error, f"{move!r} refused: {console.message.message}"
    raise AssertionError("the game did not end")


@pytest.mark.slow  # a whole game through the console, in real time
def test_a_whole_high_card_game_through_the_input_line(host):
    tables = iter([table(host, "high-card", players=3, options={"cards": 3}, me=0, seed=11)])
    seen = {}

    async def script(driver):
        console = driver.console
        await driver.my_turn_or_end()
        seen["hand"] = list(console.model().hand)
        # A card we do not hold: refused with the game's reason, and the text stays for editing.
        held = {str(c) for c in console.session.known().values()}
        missing = next(f"{r}s" for r in "23456789JQKA" if f"{r}s" not in held)
        await driver.enter(f"show {missing}")
        assert console.message.error and "you do not hold" in console.message.message
        assert console.input_area.text == f"show {missing}"
        await driver.clear_line()
        # Malformed input: the grammar says what it expected.
        await driver.enter("dance")
        assert "expected: show CARD" in console.message.message
        await driver.clear_line()
        await play_to_the_end(driver)
        assert console.session.result is not None
        assert console.end_text().count("audit: clean, every card shown checked") == 1
        await driver.enter("quit")

    console = run_console(lambda: next(tables), script)
    assert len(seen["hand"]) >= 3
    kinds = [line.kind for line in console.tracker.log]
    assert "action" in kinds and "done" in kinds and "error" not in kinds


def test_the_toolbar_says_your_turn_only_while_a_move_would_be_taken(host):
    """Between Enter on a move and its being played the seat is still to move, but the console
    refuses another move ("your last move is still being played"): the toolbar says so instead
    of YOUR TURN, which a person (and the tmux tests) read as "type your move now"."""
    tables = iter([table(host, "high-card", players=3, options={"cards": 3}, me=0, seed=11)])
    seen = []

    async def script(driver):
        console = driver.console
        for _ in range(3):
            await driver.my_turn_or_end()
            if console.session.result is not None:
                break
            assert "YOUR TURN" in fragment_list_to_text(console._toolbar())
            # Enter's handler, called directly: the toolbar is read before the table (trio, in
            # this thread) can play the move.
            buffer = console.input_area.buffer
            buffer.text = choose(console)
            console._accept(buffer)
            buffer.reset()
            assert console.controller.move_pending and console.session.my_turn
            bar = fragment_list_to_text(console._toolbar())
            assert "YOUR TURN" not in bar and "playing your move" in bar, bar
            seen.append(bar)
            await driver.until(lambda: not console.controller.move_pending, 5, "the move played")
        await driver.enter("quit")

    run_console(lambda: next(tables), script)
    assert seen


@pytest.mark.slow  # a whole game through the console, in real time
def test_help_say_and_not_your_turn(host):
    tables = iter([table(host, "high-card", players=2, me=1, seed=3, bot_delay=0.3)])

    async def script(driver):
        console = driver.console
        await driver.until(lambda: console.session is not None and console.session.phase == "playing")
        assert not console.session.my_turn  # seat 0 (a bot, thinking for 0.3 s) plays first
        await driver.enter("show 2h")
        assert console.message.error and "not yours" in console.message.message
        assert console.input_area.text == "show 2h"
        # Kept, selected: what is typed next replaces it (issue 30's review typed a move again
        # after a refusal and got "play 8splay 8s hearts"), Backspace clears it.
        await driver.keys("say hi")
        await driver.until(lambda: console.input_area.text == "say hi", 2, "the typed text to replace it")
        await driver.enter("show 2h")
        await driver.keys("\x7f")  # Backspace
        await driver.until(lambda: console.input_area.text == "", 2, "Backspace to clear it")
        await driver.enter("show 2h")
        await driver.clear_line()
        await driver.keys("\x1bOP")  # F1
        await driver.until(lambda: console.show_help, 2, "F1 opens help")
        assert "Everyone shows their best card" in console.help_text()
        assert "say TEXT" in console.help_text()
        await driver.keys("\x1bOP")
        await driver.until(lambda: not console.show_help, 2, "F1 closes help")
        await driver.enter("help")
        assert console.show_help
        await driver.keys("\x1bOP")
        await driver.enter("say good luck all")
        assert ("chat", "you: good luck all") in [(line.kind, line.text) for line in console.tracker.log]
        await driver.enter("new")
        assert "still on" in console.message.message
        await driver.clear_line()
        await play_to_the_end(driver)
        await driver.enter("quit")

    run_console(lambda: next(tables), script)


@pytest.mark.slow  # two games through the console, in real time
def test_new_game_after_the_end_then_quit(host):
    made = []

    def new_table():
        made.append(table(host, "high-card", players=2, me=0, seed=len(made)))
        return made[-1]

    async def script(driver):
        console = driver.console
        await play_to_the_end(driver)
        await driver.enter("show 2h")
        assert "the game is over" in console.message.message
        await driver.clear_line()
        await driver.enter("new")
        await driver.until(lambda: len(made) == 2, 5, "a second table")
        await play_to_the_end(driver)
        await driver.enter("quit")

    console = run_console(new_table, script)
    assert console.games_played == 2 and all(t.result is not None for t in made)


@pytest.mark.slow  # a game through the console, in real time
def test_quitting_in_the_middle_of_a_game(host):
    tables = iter([table(host, "high-card", players=4, me=2, seed=1, bot_delay=0.05)])

    async def script(driver):
        await driver.until(lambda: driver.console.session is not None)
        await driver.keys("\x04")  # Ctrl-D on an empty line

    console = run_console(lambda: next(tables), script, timeout=10)
    assert console.session.result is None


@pytest.mark.slow  # a whole game through the console, in real time
@pytest.mark.parametrize("game_id", BUNDLED)
def test_a_whole_bundled_game_through_the_input_line(host, game_id):
    require_game(host, game_id)
    options = {"match_target": 1} if game_id == "cals-bs" else {}
    players = 3 if game_id == "cals-bs" else 4
    tables = iter([table(host, game_id, players=players, options=options, me=0, seed=5)])

    async def script(driver):
        console = driver.console
        largest = await play_to_the_end(driver, prefer=("pass", "play", "trump"))
        assert largest >= 10  # both games deal at least 10 cards to each of 3 or 4 players
        assert console.session.result is not None, console.stopped
        assert "audit: clean, every card shown checked" in console.end_text()
        await driver.enter("quit")

    console = run_console(lambda: next(tables), script, glyphs=ASCII, colour=False, timeout=120)
    assert console.session.violations == []


def test_a_failing_game_view_is_shown_not_raised(host):
    session = table(host, "high-card", players=2, me=0, seed=1)

    async def script(driver):
        console = driver.console
        await driver.my_turn_or_end()
        good = console.model()
        assert good.hand

        def broken_view(*args):
            raise KeyError(12345)

        session.game.view = broken_view  # this host's own game instance
        await driver.enter("say still alive?")
        await driver.until(lambda: console.view_error is not None, 5, "the view error")
        assert "KeyError" in console.view_error and console.model() is good
        assert console.application.is_running
        await driver.enter("quit")

    run_console(lambda: session, script)


def test_leaving_a_game_others_play_takes_a_second_quit(host):
    """With other people at the table, the first 'quit' (or Ctrl-D) during a game only warns:
    leaving ends the game for them."""
    tables = iter([table(host, "high-card", players=4, me=2, seed=1, bot_delay=0.05)])

    async def script(driver):
        console = driver.console
        await driver.until(lambda: console.session is not None)
        await driver.enter("quit")
        assert console.message.error and "type 'quit' again" in console.message.message
        assert console.session.result is None and not console.stopped
        await driver.keys("\x04")  # Ctrl-D: the second 'quit'

    console = run_console(lambda: next(tables), script, timeout=10, confirm_leaving=True)
    assert console.session.result is None


def test_ctrl_c_at_a_game_others_play_asks_first_and_a_second_leaves(host):
    """Ctrl-C during a game others play warns like 'quit' does; a second Ctrl-C leaves."""
    tables = iter([table(host, "high-card", players=4, me=2, seed=1, bot_delay=0.05)])

    async def script(driver):
        console = driver.console
        await driver.until(lambda: console.session is not None)
        await driver.keys("\x03")
        await driver.until(lambda: console.message.error, 5, "the warning")
        assert "ends this game for everyone at the table: press Ctrl-C again to leave" in console.message.message
        await asyncio.sleep(0.3)  # it did not leave
        assert console.application.is_running and console.session.result is None and not console.stopped
        await driver.keys("\x03")
        await driver.until(lambda: not console.application.is_running, 5, "the console to close")

    console = run_console(lambda: next(tables), script, timeout=10, confirm_leaving=True)
    assert console.session.result is None


def test_ctrl_c_then_quit_leaves_and_alone_ctrl_c_leaves_at_once(host):
    """'quit' confirms a first Ctrl-C; with nobody else at the table (the local demo) Ctrl-C
    leaves at once, as before."""
    tables = iter([table(host, "high-card", players=4, me=2, seed=1, bot_delay=0.05)])

    async def script(driver):
        console = driver.console
        await driver.until(lambda: console.session is not None)
        await driver.keys("\x03")
        await driver.until(lambda: console.message.error, 5, "the warning")
        await driver.enter("quit")
        await driver.until(lambda: not console.application.is_running, 5, "the console to close")

    run_console(lambda: next(tables), script, timeout=10, confirm_leaving=True)

    alone = iter([table(host, "high-card", players=4, me=2, seed=1, bot_delay=0.05)])

    async def leave_at_once(driver):
        console = driver.console
        await driver.until(lambda: console.session is not None)
        await driver.keys("\x03")
        await driver.until(lambda: not console.application.is_running, 5, "the console to close")
        assert not console.message.error

    console = run_console(lambda: next(alone), leave_at_once, timeout=10)
    assert console.session.result is None


@pytest.mark.slow  # a whole game through the console, in real time
def test_a_free_order_cals_bs_game_through_the_input_line(host):
    """turn_mode=free: the person answers sets at any moment; a set a bot decided first is
    passed for at once (an answer typed then is refused, saying why); the log shows each
    answer as it came and says who was first in a race."""
    require_game(host, "cals-bs")
    tables = iter(
        [
            table(
                host,
                "cals-bs",
                players=3,
                options={"match_target": 1, "turn_mode": "free"},
                me=0,
                seed=5,
                bot_reaction=0.01,
            )
        ]
    )
    refused = []

    async def script(driver):
        console = driver.console
        for _ in range(2000):
            await driver.my_turn_or_end(timeout=20)
            if console.session.result is not None or console.stopped:
                break
            await driver.enter(choose(console, ("pass", "play")))
            if console.message.error:
                refused.append(console.message.message)
                await driver.clear_line()  # a refused move stays on the line, to press Enter again
        assert console.session.result is not None, (console.stopped, refused[-5:])
        assert "audit: clean, every card shown checked" in console.end_text()
        await driver.enter("quit")

    console = run_console(lambda: next(tables), script, glyphs=ASCII, colour=False, timeout=180)
    assert console.session.violations == []
    # Only answers overtaken by a decided set may be refused (or typed as the round closed,
    # before the next turn: "between turns"), and they say why.
    reasons = ("not your turn", "not asking", "between turns")
    assert all(any(reason in text for reason in reasons) for text in refused), refused
    kinds = {event.kind for event in console.session.history}
    assert {"responded", "action"} <= kinds


def test_an_empty_enter_plays_a_forced_set_aside_and_nothing_where_several_moves_are_legal(host):
    """Calypso for three with removed_suit=random: after the deal the set-aside is the only
    move. The status line names it and an empty Enter plays it; on a turn with several legal
    moves an empty Enter plays nothing. Nothing is played without the key press."""
    require_game(host, "calypso")
    tables = iter(
        [table(host, "calypso", players=3, options={"mode": "three", "removed_suit": "random"}, me=0, seed=7)]
    )
    seen = {}

    def my_actions(console):
        return [e.data["action"] for e in console.session.history if e.kind == "action" and e.data.get("seat") == 0]

    async def script(driver):
        console = driver.console
        for _ in range(200):
            await driver.my_turn_or_end()
            assert console.session.result is None and not console.stopped
            legal = console.session.legal_actions()
            played = len(my_actions(console))
            if len(legal) > 1 and "several" not in seen:
                seen["several"] = console.model().status
                await driver.enter("")
                await asyncio.sleep(0.2)  # time enough for a move to be played, were one sent
                assert len(my_actions(console)) == played and console.session.my_turn
                assert not console.controller.move_pending and not console.message.message
            if len(legal) == 1 and legal[0]["type"] == "set_aside":
                seen["forced"] = fragment_list_to_text(console._status())
                await asyncio.sleep(0.2)  # the seat waits for the person: nothing is played alone
                assert len(my_actions(console)) == played and console.session.my_turn
                await driver.enter("")
                await driver.until(lambda: len(my_actions(console)) > played, 5, "the set-aside played")
                seen["played"] = my_actions(console)[-1]
                assert seen["played"] == legal[0] and not console.message.error
                break
            await driver.enter(choose(console, ("trump", "play")))
        await driver.enter("quit")

    run_console(lambda: next(tables), script, glyphs=ASCII, colour=False, timeout=60)
    assert "(your only move)" not in seen["several"] and "Tab lists" in seen["several"]
    # "your turn: set aside 6c (your only move): press Enter, or type 'set aside 6c'", in ASCII.
    assert seen["forced"].startswith(" your turn: set ")
    assert "(your only move): press Enter, or type 'set aside " in seen["forced"], seen["forced"]
    assert seen["forced"].isascii()


@pytest.mark.parametrize(
    ("game_id", "players", "offered"),
    [
        ("cals-bs", 4, "stay · drop: drop out, your cards set aside unseen"),
        ("calypso", 4, "stay · no drop out now (the log says why)"),
        ("cals-bs", 3, "stay · no drop out now (the log says why)"),
    ],
)
def test_the_leave_offer_says_whether_the_rules_let_you_drop_out(host, game_id, players, offered):
    """At a table others play (a network table sets the session's leave hooks; here they only
    record), the first 'quit' offers dropping out where the game's rules allow it now and says
    the game's reason where they do not, before anything is confirmed (issue 30); 'drop' takes
    it only where they allow it. At 80 columns the offer fits its two rows whole (the review
    of issue 30 read "stay · (no drop out: Cal's BS goes on without a player only while at
    least 3 …"): a reason too long for them is in the log, whole."""
    require_game(host, game_id)
    tables = iter([table(host, game_id, players=players, me=1, seed=3, bot_delay=0.05)])
    dropped: list = []

    async def script(driver):
        console = driver.console
        # At our first turn: the state stands still while the table waits for us, and no set
        # of ours is on the pile yet (Cal's BS allows the drop there).
        await driver.until(lambda: console.session is not None and console.session.my_turn, 20)
        console.session.leave_to_bot = lambda bot: None
        console.session.leave_to_drop_out = dropped.append
        await driver.enter("quit")
        assert console.message.message.endswith(offered), console.message.message
        assert console.session.result is None and not console.stopped
        screen = await drawn(driver)
        rows = screen.splitlines()[-4:-2]  # the message's two rows, above the input line
        assert "…" not in screen and " ".join(rows).strip() == f"✗ {console.message.message}", screen
        # The reason there is no drop out: in the log, whole.
        noted = [line.text for line in console.tracker.log if line.text.startswith("no drop out now: ")]
        refusal = console._drop_out_refusal()
        assert noted == ([] if refusal is None else [f"no drop out now: {refusal}"]), noted
        await driver.enter("drop")
        if refusal is not None:
            assert not dropped and console.message.message == f"you cannot drop out: {refusal}"
            assert not console.left_to_bot
        else:
            assert len(dropped) == 1 and console.left_to_bot
            # The message stays on screen after the drop: it must not say "at your next turn".
            assert console.message.message == "you left the table to drop out; the others play on"
            assert "until you drop out at your next turn" in "".join(t for _, t in console._status())
        await driver.keys("\x03")
        await driver.keys("\x03")

    run_console(lambda: next(tables), script, timeout=30, confirm_leaving=True, size=(80, 24))

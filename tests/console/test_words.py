"""Issue 30, "names and words": what the console says is in names and words, never seat
numbers or raw option values, and what 'legal' shows is what a player types and Tab completes."""

from __future__ import annotations

import trio
from prompt_toolkit.formatted_text import fragment_list_to_text

from p2pcards.console.completion import next_words, rest_of_moves
from p2pcards.console.controller import MoveChoice
from p2pcards.console.lan import game_choices
from p2pcards.console.lobby import SeatInfo, TableAd, TableRoom
from p2pcards.console.lobbyview import CreateForm, room_lines
from p2pcards.console.render import UNICODE, seats_fragments
from p2pcards.console.seat import roster_text
from p2pcards.console.viewmodel import TableTracker, end_model, table_model
from p2pcards.game import Result

from .support import require_game, run_console, table

WORDS = ("lily", "stone", "canal", "bone", "field")


def test_your_row_is_marked_you_when_your_name_is_not_you(host):
    session = table(host, "high-card", players=3, me=1, names=["alice", "bob", "carol"])
    text = fragment_list_to_text(seats_fragments(table_model(session), UNICODE))
    rows = text.splitlines()
    assert rows[1].split()[0:2] == ["bob", "(you)"] and "(you)" not in rows[0] + rows[2]
    demo = table(host, "high-card", players=2, me=0)  # the demo names its player "you": no "you (you)"
    assert "(you)" not in fragment_list_to_text(seats_fragments(table_model(demo), UNICODE))


def test_a_partnership_win_says_you_and_your_partner(host):
    session = table(host, "high-card", players=4, me=0, names=["you", "bot 1", "bot 2", "bot 3"])
    session.result = Result((0, 2), (1.0, 0.0, 1.0, 0.0), "seats 0 and 2 win")
    end = end_model(session)
    assert end.winners == "you and bot 2 win"
    assert end.result == "you and bot 2 win"
    session.result = Result((1, 3), (0.0, 1.0, 0.0, 1.0), "seats 1 and 3 win")
    assert end_model(session).winners == "winners: bot 1, bot 3"


def test_bots_another_computer_plays_are_named(host):
    from p2pcards.net.lobby import HostBot

    text = roster_text(["carol", "bot 1", "dave"], [True, True, True], {1: HostBot(0, "strategic")})
    assert "carol's computer plays bot 1 (bot)" in text and "seat" not in text.splitlines()[1]
    ad = TableAd("a1", "cals-bs", "Cal's BS", "alice", 3, 3)
    seats = (SeatInfo(0, "alice", True, me=True), SeatInfo(1, "bot 1", True, bot_of=0, bot="strategic"))
    assert any(line.startswith("your computer plays bot 1:") for line in room_lines(TableRoom(ad, seats)))


def test_the_lobby_form_shows_options_and_values_in_words(host):
    form = CreateForm(game_choices(host))
    while form.game.id != "cals-bs":
        form.focus = 0
        form.change(1)
    fields = {f.key: f for f in form.fields()}
    assert (fields["first_dealer"].label, fields["first_dealer"].value) == ("first dealer", "by lot")
    assert fields["going_out"].value == "face up, must be true"
    assert fields["turn_mode"].label == "turn order"
    form.focus = form.keys().index("turn_mode")
    form.change(1)
    turn = {f.key: f for f in form.fields()}["turn_mode"]
    assert turn.value == "free order" and turn.help.startswith("after a set, every other player answers")
    assert form.request()[1]["turn_mode"] == "free"  # the machine value goes to the table
    cals = next(g for g in game_choices(host) if g.id == "cals-bs")
    assert ("free-order", {"turn_mode": "free"}, "turn order: free order") in cals.variants


def test_the_lobby_form_describes_a_value_in_words_on_indented_lines(host):
    """The form says what the chosen value means, not the option's help for --option (which
    explains raw values: "-1: nobody did"), and the hint's lines stay under the field."""
    from p2pcards.console.lobbyscreen import LobbyScreen

    form = CreateForm(game_choices(host))
    while form.game.id != "cals-bs":
        form.focus = 0
        form.change(1)
    fields = {f.key: f for f in form.fields()}
    assert fields["first_dealer"].help == "nobody volunteered: the first dealer is drawn by lot"
    assert fields["quads"].help == "sets of 1-6 cards claiming one rank"
    assert fields["match_target"].help.startswith("hand wins needed")  # no words for 3: the option's
    assert not any("-1" in f.help for f in fields.values())

    class Backend:
        def subscribe(self, callback):
            pass

    screen = LobbyScreen(Backend(), lambda: None)  # type: ignore[arg-type]
    screen.form = form
    form.focus = form.keys().index("bots")
    lines = fragment_list_to_text(screen._form(40)).split("\n")
    hint = lines[lines.index(next(line for line in lines if line.startswith("> bots"))) + 1 :][:3]
    assert len(hint[1].strip()) > 0 and all(line.startswith("    ") and len(line) <= 40 for line in hint[:2]), lines


def test_the_rest_of_a_move_is_offered_after_its_card():
    choices = [MoveChoice(f"play 8c naming {suit}", "") for suit in ("clubs", "diamonds", "hearts", "spades")]
    choices += [MoveChoice("play 9c", ""), MoveChoice("draw", "")]
    hand = ["8c", "9c", "Kd"]
    offered = next_words("play 8c ", choices, hand, every=True)
    assert [text for text, _, _ in offered] == ["naming clubs", "naming diamonds", "naming hearts", "naming spades"]
    assert next_words("play 8c naming s", choices, hand, every=True) == [("spades", "s", "move")]
    assert rest_of_moves(["play", "8c", "naming"], "s", choices) == [("spades", "s", "move")]
    assert rest_of_moves(["play", "8♣"], "", choices)[0][0] == "naming clubs"  # typed as a symbol
    # Without the game listing every move, the hand's cards (Cal's BS builds sets card by card).
    assert ("9c", "", "card") in next_words("play 8c ", choices, hand)


def test_crazy_eights_legal_shows_what_a_player_types(host):
    """An eight's moves read "play 8c naming spades": 'legal' lists them whole, set apart, and
    each one parses back; the refusal of a bare eight suggests the same words."""
    require_game(host, "crazy-eights")
    from p2pcards.console.controller import TableController

    for seed in range(40):
        session = table(host, "crazy-eights", players=2, me=0, seed=seed)
        tracker = TableTracker(session)

        async def until_my_turn(session=session):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(session.run)
                with trio.fail_after(10):
                    while not session.my_turn:
                        await trio.sleep(0.01)
                nursery.cancel_scope.cancel()

        trio.run(until_my_turn)
        controller = TableController(session, tracker)
        eights = [c.text for c in controller.move_choices() if " naming " in c.text]
        if not eights:
            continue
        assert all("," not in text for text in eights)
        said = controller.handle("legal").message
        assert eights[0] in said and ";" not in said  # no comma in a move: ", " sets them apart
        card = eights[0].split()[1]
        refused = controller.handle(f"play {card}")
        assert refused.error and f"play {card} naming spades" in refused.message
        return
    raise AssertionError("no deal of 40 gave seat 0 an eight on its first turn")


def test_a_draw_is_one_line_in_the_log(host):
    require_game(host, "crazy-eights")
    session = table(host, "crazy-eights", players=2, me=None, seed="x1")
    tracker = TableTracker(session)
    trio.run(session.run)
    lines = [line.text for line in tracker.log]
    draws = [i for i, text in enumerate(lines) if text.endswith(" draws")]
    assert draws, lines
    for i in draws:  # no "-- dealing --" and "1 card dealt to ..." after each
        assert lines[i + 1] != "-- dealing --" and "card dealt to" not in lines[i + 1], lines[i : i + 3]
    assert lines.count("-- dealing --") == 1  # the deal of the hands
    assert any(text.startswith("turned face up from the stock: ") for text in lines)  # the starter


def test_table_words_get_their_own_line_at_80_columns(host):
    """DummyOutput is 80 columns: the title cannot hold the words (the five longest of the
    word list), so they take a line of their own, all five."""
    from p2pcards.wire.wordlist import WORDS as WORD_LIST

    longest = tuple(sorted(WORD_LIST, key=len)[-5:])
    seen = {}

    async def script(driver):
        console = driver.console
        await driver.until(lambda: console.session is not None, 10, "the table")
        console.table_words = longest
        seen["title"] = fragment_list_to_text(console._title())
        seen["height"] = console._title_height()
        console.table_words = ()
        seen["plain"] = console._title_height()
        seen["log"] = [line.text for line in console.tracker.log]

    tables = iter([table(host, "high-card", players=3, me=0, names=["alice", "bob", "carol"])])
    run_console(lambda: next(tables), script)
    head, words = seen["title"].split("\n")
    assert "High Card" in head or "p2pcards" in head
    assert words.strip() == "table words: " + " ".join(longest)
    assert (seen["height"], seen["plain"]) == (2, 1)
    assert any("you play as alice; F1 for help" in line for line in seen["log"]), seen["log"]
    assert not any("seat 0" in line for line in seen["log"])


def test_a_long_message_ends_with_an_ellipsis_between_moves(host):
    seen = {}

    async def script(driver):
        console = driver.console
        await driver.until(lambda: console.session is not None, 10, "the table")
        from p2pcards.console.controller import Feedback

        moves = [f"play {r}h naming spades" for r in range(2, 11)] * 3
        console.message = Feedback("legal now: " + ", ".join(moves))
        seen["fit"] = fragment_list_to_text(console._message_fitted(60))
        console.message = Feedback("short")
        seen["short"] = fragment_list_to_text(console._message_fitted(60))

    tables = iter([table(host, "high-card", players=2, me=0)])
    run_console(lambda: next(tables), script)
    assert seen["fit"].endswith("naming spades … (Tab lists them all)"), seen["fit"]
    assert len(seen["fit"]) <= 120
    assert seen["short"] == " short"


def test_the_room_says_the_table_options_in_words(host):
    ad = TableAd("a1", "cals-bs", "Cal's BS", "alice", 1, 3, options={"first_dealer": -1, "turn_mode": "free"})
    room = TableRoom(ad, (SeatInfo(0, "alice", True, me=True),))
    lines = room_lines(room, game_choices(host))
    # In the game's order, as the host's form lists them (issue 30's review: a joiner's room
    # listed them by key, the host's in the game's order), whatever order they came in.
    assert "options: turn order: free order, first dealer: by lot" in lines
    assert "options: first_dealer=-1, turn_mode=free" in room_lines(room)  # a game not installed here
    ad = TableAd("a1", "cals-bs", "Cal's BS", "alice", 1, 3, options={"turn_mode": "free", "first_dealer": -1})
    assert room_lines(TableRoom(ad, room.seats), game_choices(host)) == lines


def test_the_demo_asks_for_a_variant_in_words(host):
    import io

    from p2pcards.console.demo import ask_variant

    out = io.StringIO()
    assert ask_variant(host, "cals-bs", stdin=io.StringIO("free order\n"), stdout=out) == "free-order"
    shown = out.getvalue()
    assert "1. standard rules" in shown and "free order (turn order: free order)" in shown
    # A variant named after its option says it once (issue 30's review read "2. quads: quads: on").
    assert "\n  2. quads: on\n" in shown and "quads: quads" not in shown, shown
    assert ask_variant(host, "cals-bs", stdin=io.StringIO("\n"), stdout=io.StringIO()) == ""
    assert ask_variant(host, "cals-bs", stdin=io.StringIO("9\n2\n"), stdout=io.StringIO()) == "quads"
    assert ask_variant(host, "cals-bs", stdin=io.StringIO(""), stdout=io.StringIO()) is None  # end of input: stop


def test_help_lists_the_tables_options_in_words(host):
    """F1's help says the options as the lobby does, not first_dealer=-1."""
    from types import SimpleNamespace

    from p2pcards.console.help import help_text

    game = host.game("cals-bs")
    session = SimpleNamespace(game=game, options={**game.resolve_options({}, 4), "made_up": 7})
    text = " ".join(help_text(session, width=200).split())  # type: ignore[arg-type]  # game and options are all it reads
    assert "options: quads: off, going out: face up, must be true, hands to win: 3" in text
    assert "first dealer: by lot" in text and "made_up=7" in text and "first_dealer" not in text.split("options:")[1]


def test_the_rematch_names_who_is_not_back_yet():
    """The rematch waits for a seat that has not sat down again by its name from the last
    game (a rematch keeps every seat), not "a player not back yet"."""
    from p2pcards.console.seat import Rematch
    from p2pcards.net.lobby import Roster
    from p2pcards.net.rematch import Score

    score = Score(names={"a": "Alice", "b": "strategic bot 1", "c": "Bob", "d": "Carol"})
    rematch = Rematch(score, 0, "Alice")
    rematch.on_roster(Roster(["Alice", "strategic bot 1", "", "Carol"], [False, True, False, False], {}))
    assert rematch.lines()[-1] == (
        "rematch: type 'again' to play again; agreed: strategic bot 1; waiting for Bob (not back yet), Carol"
    )

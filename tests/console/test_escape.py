"""Text from other players reaches the screen escaped (issue 19): a chat line, a move's field
formatted by the game, a stop reason, a table in the lobby list. None can start a line of its
own, clear the screen or turn the text around."""

from __future__ import annotations

from prompt_toolkit.formatted_text import fragment_list_to_text

from p2pcards.console.lobby import TableAd, TableRoom
from p2pcards.console.lobbyview import room_lines
from p2pcards.console.render import ASCII, end_fragments, screen_fragments
from p2pcards.console.viewmodel import EndModel

from .support import run_console, table

FORGED = "verdict: VERIFIED"
HOSTILE = f"hi\n{FORGED}\r{FORGED}\x1b[2J{FORGED}\u202e{FORGED}\u2028{FORGED}\x85\u200b"
RAW = ("\r", "\x1b", "\u202e", "\u2028", "\x85", "\u200b")


def assert_escaped(shown: str, *, escapes=("\\n", "\\r", "\\x1b[2J", "\\u202e", "\\u2028")) -> None:
    for char in RAW:
        assert char not in shown, (repr(char), shown)
    for escape in escapes:
        assert escape in shown, (escape, shown)
    assert not any(line.lstrip().startswith(FORGED) for line in shown.split("\n")), shown


def window_text(control) -> str:
    """What a window of the console hands prompt-toolkit to draw."""
    return fragment_list_to_text(control.text())


def test_chat_and_a_move_field_from_a_peer_are_shown_escaped(host):
    """A networked seat publishes a peer's chat and moves into the session as events; here
    seat 1's are written as a hostile client would have them shown: chat text it chose, and a
    claim whose rank is an escape sequence, formatted by Cal's BS itself."""
    tables = iter([table(host, "high-card", players=2, me=0, seed=3, bot_delay=0.3)])
    seen = {}

    async def script(driver):
        console = driver.console
        await driver.until(lambda: console.session is not None and console.session.phase == "playing")
        session = console.session
        session.publish("chat", f"bot 1: {HOSTILE}", seat=1)
        claim = host.game("cals-bs").format_action(None, 1, {"type": "play", "cards": [], "rank": HOSTILE}, {})
        assert HOSTILE in claim  # the game formats the field as it is: the screen must not
        session.publish("action", f"bot 1 {claim}", seat=1)
        await driver.until(lambda: len(console.tracker.log) >= 2, 5, "the lines in the log")
        seen["log"] = window_text(console._log_window.content)  # as drawn: escaped, then wrapped
        seen["lines"] = fragment_list_to_text(screen_fragments(console._log())).split("\n")
        await driver.enter("quit")

    run_console(lambda: next(tables), script, glyphs=ASCII, colour=False)
    log = seen["log"]
    assert_escaped(log)
    chat, move = seen["lines"][-2:]  # one line each
    assert chat.startswith("bot 1: hi\\nverdict: VERIFIED\\rverdict: VERIFIED\\x1b[2Jverdict")
    assert move.startswith("bot 1 plays") and "as hi\\nverdict: VERIFIED\\r" in move
    assert_escaped(chat)
    assert_escaped(move)


def test_the_end_panel_and_a_stop_reason_are_shown_escaped():
    end = EndModel(
        result=f"seat 1 wins {HOSTILE}",
        winners=f"winner: {HOSTILE}",
        scores=(f"{HOSTILE}: 3",),
        audit=("audit: 1 violation(s) found", f"  {HOSTILE}, action 2: {HOSTILE}"),
        transcript="/tmp/t.p2pt",
        verify="p2pcards verify /tmp/t.p2pt",
    )
    shown = fragment_list_to_text(screen_fragments(end_fragments(end, ASCII)))
    assert_escaped(shown)
    assert shown.split("\n")[0] == "game over: winner: " + HOSTILE.replace("\n", "\\n").replace("\r", "\\r").replace(
        "\x1b", "\\x1b"
    ).replace("\u202e", "\\u202e").replace("\u2028", "\\u2028").replace("\x85", "\\x85").replace("\u200b", "\\u200b")


def test_a_hostile_table_in_the_lobby_list_and_room_is_shown_escaped():
    """The lobby's rows and room come from zeroconf records and a host's header: the lobby
    screen's windows show them escaped (and the discovery layer does not list such a record at
    all, see tests/net/test_discovery.py)."""
    from p2pcards.console.lobbyscreen import LobbyScreen

    ad = TableAd(
        "a1" + HOSTILE,
        "cals-bs",
        f"Cal's BS{HOSTILE}",
        HOSTILE,
        1,
        3,
        {"rank": HOSTILE},
        address="127.0.0.1:4000",
        fingerprint=HOSTILE,
    )

    class Listing:  # what the lobby backend reports, as the network would fill it
        def subscribe(self, callback):
            pass

        def tables(self):
            return [ad]

        def room(self):
            return TableRoom(ad, ())

    screen = LobbyScreen(Listing(), lambda: None)
    rows = fragment_list_to_text(screen_fragments(screen._tables()))
    room = fragment_list_to_text(screen_fragments(screen._room()))
    assert_escaped(rows)
    assert_escaped(room)
    assert len(rows.rstrip("\n").split("\n")) == 1
    assert len(room.rstrip("\n").split("\n")) == len(room_lines(TableRoom(ad, ())))

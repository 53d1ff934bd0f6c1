"""The end panel at 80x24, drawn (issue 30's group-of-friends review): a panel too tall for
the terminal loses whole lines, never half a sentence ("audit: clean (the cards set aside by a
player who" and then the rematch's lines), and the transcript's path stays on screen with a
rematch offer (a joiner's screen showed it only after 'quit'). The real console, a real game
played through the input line, the rematch offer as :class:`~p2pcards.console.seat.Rematch`
makes it from a room's roster (no network here: tests/net/test_rematch.py has the room)."""

from __future__ import annotations

import trio

from p2pcards.console.seat import Rematch
from p2pcards.net.lobby import Roster
from p2pcards.net.rematch import Score

from .support import drawn, run_console, table
from .test_app import play_to_the_end

NAMES = ["carol", "bob", "alice", "dave"]
PATH = "/home/carol/.local/share/p2pcards/transcripts/2026-12-05T09-12-44-cals-bs-ab12cd34-seat1.p2pt"


class Joiner:
    """A table runner as a joiner's :class:`~p2pcards.console.seat.SeatTable` is: the game
    (played in person, in seat 1), its transcript saved, then the rematch offered with the
    room's roster (carol and alice agreed), until the player chooses."""

    rematch = True  # the console offers 'again' (ConsoleApp.offers_rematch)

    def __init__(self, host):
        self.host = host

    async def __call__(self, started) -> None:
        session = table(self.host, "cals-bs", players=4, me=1, names=NAMES, seed=7)
        session.transcript_path = PATH
        started(session)
        await session.run()
        session.transcript_saved = True
        score = Score(names=dict(zip("abcd", NAMES)), wins={"a": 0, "b": 0, "c": 0, "d": 1}, games=1)
        offer = Rematch(score, 1, "carol")
        offer.on_roster(Roster(list(NAMES), [True, False, True, False]))
        started.offer_rematch(offer)
        while started.chosen() is None:
            await trio.sleep(0.02)


def _panel(screen: str) -> list[str]:
    """The end panel's rows: the left column between 'Game over' and the hand's title."""
    rows = [row.split("│")[0] for row in screen.splitlines()]
    start = next(i for i, row in enumerate(rows) if row.strip() == "Game over")
    end = next(i for i, row in enumerate(rows) if row.strip().startswith("Your hand"))
    return rows[start + 1 : end]


def test_at_80x24_the_end_panel_loses_whole_lines_and_keeps_the_transcript(host):
    seen = {}

    async def script(driver):
        console = driver.console
        await play_to_the_end(driver)
        await driver.until(lambda: console.rematch is not None, 20, "the rematch offer")
        seen["screen"] = await drawn(driver)
        seen["end"] = console.end_text()
        await driver.enter("quit")

    run_console(Joiner(host), script, size=(80, 24), timeout=120, again=False)
    screen, lines = seen["screen"], seen["end"].splitlines()
    panel = "".join(_panel(screen)).replace(" ", "")
    shown = [line for line in lines if line.replace(" ", "") in panel]
    assert len(shown) < len(lines), screen  # too tall for 80x24 (this test is about the cut)
    for line in lines:  # every line whole, or not there at all
        assert line in shown or line.replace(" ", "")[:14] not in panel, (line, screen)
    # The first lines, the transcript's path, the rematch and what to type: on screen.
    assert lines[0] in shown and lines[0].startswith("game over: "), screen
    assert f"transcript saved to {PATH}" in shown, screen
    assert "rematch: type 'again' to play again; agreed: carol, alice; waiting for dave" in shown, screen
    assert shown[-1] == "type 'again' for a rematch or 'quit' to leave", screen
    # What is left out is the body's end (the command to check the transcript comes first).
    assert lines.index(shown[1]) == 1
    assert f"check the transcript any time with: p2pcards verify {PATH}" not in shown

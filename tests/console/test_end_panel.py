"""The end panel at 80x24, drawn (issue 30's group-of-friends review): a panel too tall for
the terminal loses whole lines, never half a sentence ("audit: clean (the cards set aside by a
player who" and then the rematch's lines), and the transcript's path stays on screen with a
rematch offer (a joiner's screen showed it only after 'quit'). The real console, a real game
played through the input line, the rematch offer as :class:`~p2pcards.console.seat.Rematch`
makes it from a room's roster (no network here: tests/net/test_rematch.py has the room)."""

from __future__ import annotations

import pytest
import trio

from p2pcards.console.seat import Rematch
from p2pcards.net.lobby import Roster
from p2pcards.net.rematch import Score

from .support import drawn, require_game, run_console, table
from .test_app import play_to_the_end

NAMES = ["carol", "bob", "alice", "dave"]
PATH = "/home/carol/.local/share/p2pcards/transcripts/2026-12-05T09-12-44-cals-bs-ab12cd34-seat1.p2pt"


class Joiner:
    """A table runner as a joiner's :class:`~p2pcards.console.seat.SeatTable` is: the game
    (played in person, in seat 1), its transcript saved, then the rematch offered with the
    room's roster (carol and alice agreed), until the player chooses."""

    rematch = True  # the console offers 'again' (ConsoleApp.offers_rematch)

    def __init__(self, host, path=PATH, note=""):
        self.host = host
        self.path = path
        self.note = note

    async def __call__(self, started) -> None:
        session = table(self.host, "cals-bs", players=4, me=1, names=NAMES, seed=7)
        session.transcript_path = self.path
        started(session)
        await session.run()
        session.transcript_saved = True
        score = Score(names=dict(zip("abcd", NAMES)), wins={"a": 0, "b": 0, "c": 0, "d": 1}, games=1)
        offer = Rematch(score, 1, "carol")
        offer.on_roster(Roster(list(NAMES), [True, False, True, False]))
        offer.note = self.note
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


def test_at_80x24_a_long_transcript_path_gives_way_to_what_to_type(host):
    # CI: a pytest folder one digit longer ("pytest-1548/popen-gw2/...") made the path three
    # rows; with a note of who left, the panel's last row ("type 'again' for a rematch...")
    # was the one cut.
    long_path = "/tmp/pytest-of-root/pytest-1548/popen-gw2/test_a_joiner_who_quits_at_the0/" + PATH.rsplit("/", 1)[1]
    note = "dave left; the rematch is carol, bob and alice (dave's seat stays empty)"
    seen = {}

    async def script(driver):
        await play_to_the_end(driver)
        await driver.until(lambda: driver.console.rematch is not None, 20, "the rematch offer")
        seen["screen"] = await drawn(driver)
        await driver.enter("quit")

    run_console(Joiner(host, long_path, note), script, size=(80, 24), timeout=120, again=False)
    screen = seen["screen"]
    panel = [row.rstrip() for row in _panel(screen)]
    assert panel[-1] == "type 'again' for a rematch or 'quit' to leave", screen
    assert "rematch: type 'again' to play again; agreed: carol, alice; waiting" in " ".join(panel), screen
    assert "dave left; the rematch is carol, bob and alice (dave's seat" in " ".join(panel), screen
    text = "".join(panel).replace(" ", "")
    # The path moved up to the details, cut first: whole there, or not on screen at all.
    assert long_path in text or long_path[:20] not in text, screen


def test_the_scores_are_broken_into_lines_between_players_never_inside_one():
    from p2pcards.console.render import UNICODE, score_lines

    scores = ["strategic bot 4: 3,000"] + [f"strategic bot {n}: 0" for n in (1, 2, 3, 5, 6, 7, 8)] + ["alice: 0"]
    lines = score_lines(scores, UNICODE, 49)
    assert len(lines) > 1 and all(len(line) <= 49 for line in lines), lines
    assert lines[0].startswith("scores: strategic bot 4: 3,000 ·")  # the first kept on a short panel
    assert [s.strip(" ·") for line in lines for s in line.removeprefix("scores: ").split(" · ")] == scores
    assert score_lines(scores, UNICODE) == ["scores: " + " · ".join(scores)]  # no width: one line


HOLDEM_END = {"starting_stack": 100, "small_blind": 50, "big_blind": 100, "hand_limit": 1}


@pytest.mark.parametrize(
    ("game", "players", "options"), [("holdem", 6, HOLDEM_END), ("holdem", 9, HOLDEM_END), ("cals-bs", 3, {})]
)
def test_at_80x24_the_scores_are_whole_and_the_winners_come_first(host, game, players, options):
    # Issue 33: "scores: alice: 0 · strategic bot 1: 0 · strategic│" hid the winner's score.
    require_game(host, game)
    names = ["alice"] + [f"strategic bot {n}" for n in range(1, players)]
    seen = {}

    async def script(driver):
        await play_to_the_end(driver, prefer=("all", "goes all"))
        seen["screen"] = await drawn(driver)
        seen["result"] = driver.console.session.result
        await driver.enter("quit")

    new = lambda: table(host, game, players=players, me=0, names=names, options=options)  # noqa: E731
    run_console(new, script, size=(80, 24), timeout=120, again=False)
    screen, result = seen["screen"], seen["result"]
    rows = [row.rstrip() for row in _panel(screen)]
    width = max(len(row) for row in screen.splitlines()[1].split("│")[:1])
    scores = [f"{names[s]}: {v:g}" for s, v in enumerate(result.scores)]
    at = [i for i, row in enumerate(rows) if row.startswith("scores: ")]
    shown = " ".join(rows[at[0] :]) if at else ""
    for score in scores:  # each one whole on one row, or not on the panel at all
        assert any(score in row for row in rows) or score.split(":")[0] + ":" not in shown, (score, screen)
    assert all(len(row) <= width for row in rows), screen
    winner = result.winners[0]
    if players < 9:  # room for every score, the winner's first
        assert at and rows[at[0]].startswith(f"scores: {scores[winner]}"), screen
        assert all(score in shown for score in scores), screen
    else:  # nine seats leave the panel four rows: the result line says the winner's chips
        assert f"{names[winner]} wins the match with {result.scores[winner]:,.0f} " in " ".join(rows), screen

"""A game plugin that raises something else than its refusal of a move (:class:`IllegalAction`)
during a game: a bug in the plugin, or a move that trips one. The peer must not crash nor lose
its log: the table stops cleanly naming nobody (a plugin bug is not a player's cheat), its
transcript is written, the output says which plugin failed and how, and ``p2pcards verify``
of that transcript says the same (exit 4, ``PLUGIN FAILED``, nobody named).

The plugin is a real installed distribution (dist-info with its entry point, on ``sys.path``:
the ``make_distribution`` fixture), loaded by the plugin host as any third-party game."""

from __future__ import annotations

import json
import sys

import pytest

from p2pcards.net.peer import Peer
from p2pcards.plugins import PLUGIN_STEP, load_plugins
from p2pcards.verify import EXIT_LEFT

from . import adv_table
from .adv_table import run_table, verify
from .cheaters import CHEATERS, Cheater

BUGGY = '''
from p2pcards import hookimpl
from p2pcards.cards import build_deck
from p2pcards.game import Deal, Done, Game, IllegalAction, Result, Reveal, Shuffle, Turn


class State:
    def __init__(self, players):
        self.players = players
        self.stock = None
        self.hands = [[] for _ in range(players)]
        self.dealt = False
        self.shown = {}
        self.faces = {}
        self.pending = None


class Buggy(Game):
    """High card, with a bug: ``where`` says where it raises."""

    name = "Buggy high card"
    rules_version = "1"
    min_players = 2
    max_players = 4
    where = ""

    def deck(self, options, players):
        return build_deck()

    def new_state(self, options, players):
        return State(players)

    def next_step(self, state):
        if state.stock is None:
            return Shuffle()
        if not state.dealt:
            return Deal({h: i % state.players for i, h in enumerate(state.stock[: state.players])})
        if state.pending is not None:
            return Reveal((state.shown[state.pending],), state.pending)
        if len(state.shown) < state.players:
            return Turn(len(state.shown))
        return Done(Result((0,), tuple(0.0 for _ in range(state.players)), "seat 0 wins"))

    def on_shuffled(self, state, handles):
        state.stock = list(handles)

    def on_dealt(self, state, deal):
        for handle, seat in deal.to.items():
            state.hands[seat].append(handle)
        state.dealt = True

    def on_reveal(self, state, faces):
        state.faces.update(faces)
        state.pending = None

    def legal_actions(self, state, seat, known):
        if self.where == "legal" and seat == 1:
            return 1 // 0  # a bug, met only by seat 1's own bot as it chooses
        return [{"type": "show", "card": h} for h in state.hands[seat]]

    def check(self, state, seat, action):
        if action.get("type") != "show":
            raise IllegalAction("show a card")
        if self.where == "check" and action["card"] < 0:  # a string card: TypeError
            raise IllegalAction("no such card")
        if action.get("card") not in state.hands[seat]:
            raise IllegalAction("show one of your own cards")

    def format_action(self, state, seat, action, faces):
        return "shows a card"

    def parse_action(self, state, seat, text, known):
        raise IllegalAction("bots only")

    def apply(self, state, seat, action):
        if self.where == "apply" and seat == 1:
            return 1 // 0  # a bug, on a legal move
        state.shown[seat] = action["card"]
        state.pending = seat


class BugInApply(Buggy):
    id = "bug-apply"
    where = "apply"


class BugInCheck(Buggy):
    id = "bug-check"
    where = "check"


class BugInLegal(Buggy):
    id = "bug-legal"
    where = "legal"


@hookimpl
def register_games(register):
    register(BugInApply())
    register(BugInCheck())
    register(BugInLegal())
'''


@pytest.fixture
def buggy(make_distribution):
    """The buggy plugin installed (on sys.path) and loaded by the plugin host, for one test."""
    site = make_distribution("p2pcards-buggyhigh", {"p2pcards_buggyhigh": BUGGY}, {"buggyhigh": "p2pcards_buggyhigh"})
    sys.path.insert(0, str(site))
    adv_table.plugins.cache_clear()
    assert {"bug-apply", "bug-check", "bug-legal"} <= set(load_plugins(fresh=True).games)
    try:
        yield site
    finally:
        sys.path.remove(str(site))
        adv_table.plugins.cache_clear()
        load_plugins(fresh=True)


def _stopped_on_the_plugin(run, game_id: str, seats) -> None:
    info = run.describe()
    for seat in seats:
        outcome = run.outcomes[seat]
        assert outcome is not None, info
        aborted = outcome.aborted
        assert aborted is not None and aborted.seat is None and aborted.step == PLUGIN_STEP, f"seat {seat}\n{info}"
        assert f"game plugin for {game_id} (p2pcards_buggyhigh) failed" in aborted.reason, aborted.reason
        assert outcome.transcript is not None and outcome.transcript.exists(), info
        assert not outcome.peer.blames, f"seat {seat}\n{info}"
        status, report = verify(outcome.transcript)
        assert status == 4 and report["verdict"] == "plugin-failed", f"seat {seat}: {report}"
        assert report["problem"]["seat"] is None, report
        assert f"game plugin for {game_id}" in report["problem"]["reason"], report


def test_a_plugin_bug_on_a_legal_move_stops_the_table_naming_nobody(buggy, tmp_path):
    """``apply`` raises ZeroDivisionError on seat 1's (legal) move, at every seat alike."""
    run = run_table("bug-apply", 3, {}, cheater=2, peer_factory=Peer, transcript_dir=tmp_path)
    _stopped_on_the_plugin(run, "bug-apply", (0, 1))
    reason = run.outcomes[0].aborted.reason
    assert "ZeroDivisionError at p2pcards_buggyhigh.py line" in reason and "nobody is named" in reason, reason


def test_a_plugin_that_fails_at_one_seat_only_makes_that_seat_leave(buggy, tmp_path):
    """``legal_actions`` raises for seat 1 only, as its own bot chooses its move: code no other
    seat runs. Seat 1's program failed, not the rules: it leaves with a signed goodbye (as a
    player who quits), the others end the game on it, and verify says it left (exit 3), not
    that it stalled nor that it cheated."""
    run = run_table("bug-legal", 3, {}, cheater=2, peer_factory=Peer, transcript_dir=tmp_path)
    info = run.describe()
    left = run.outcomes[1]
    assert left is not None and left.aborted is not None and left.aborted.seat == 1, info
    assert "at this seat only" in left.aborted.reason and "ZeroDivisionError" in left.aborted.reason, info
    other = run.outcomes[0]
    assert other is not None and other.aborted is not None and other.aborted.seat == 1, info
    assert "left" in other.aborted.reason, info
    for outcome in (left, other):
        assert not outcome.peer.blames, info
        status, report = verify(outcome.transcript)
        assert status == EXIT_LEFT and report["problem"]["seat"] == 1, report
        assert "left" in report["problem"]["reason"], report


class TripsThePlugin(Cheater):
    """Its move has the fields a move has (a turn, a map), with a card that is a string: the
    plugin's ``check`` compares it with an integer and raises TypeError."""

    deviation = "a move that trips the plugin"

    def cheat_move(self, session, seat):
        return {"type": "show", "card": "x"}


def test_a_move_that_trips_the_plugin_names_nobody(buggy, tmp_path):
    """The move passes the table's field checks (a move the checks refuse names its mover
    before any plugin sees it: test_cheaters' malformed moves); the plugin's TypeError stops
    every seat naming nobody, not the mover: from the table's side, a bug in the plugin and a
    move that trips it look the same, and a plugin bug is not a player's cheat."""
    CHEATERS["TripsThePlugin"] = TripsThePlugin
    run = run_table("bug-check", 3, {}, cheater=1, peer_factory=TripsThePlugin, transcript_dir=tmp_path)
    assert run.cheater_peer is not None and run.cheater_peer.cheated, run.describe()
    _stopped_on_the_plugin(run, "bug-check", (0, 2))
    assert "TypeError" in run.outcomes[0].aborted.reason


def test_the_cli_says_the_plugin_failed(buggy, tmp_path, cli):
    """``p2pcards simulate`` over the network (loopback) and ``p2pcards verify`` of a seat's
    transcript, as a user runs them."""
    out = cli(
        "simulate", "--game", "bug-apply", "--players", "3", "--transcript-dir", str(tmp_path), pythonpath=[buggy]
    )
    text = out.stdout + out.stderr
    assert "game plugin for bug-apply (p2pcards_buggyhigh) failed: ZeroDivisionError" in text, text
    assert "Traceback" not in text, text
    transcripts = sorted(tmp_path.glob("*.p2pt")) or sorted(p for p in tmp_path.iterdir() if p.is_file())
    assert transcripts, list(tmp_path.iterdir())
    checked = cli("verify", "--json", str(transcripts[0]), pythonpath=[buggy])
    assert checked.returncode == 4, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert report["verdict"] == "plugin-failed" and report["problem"]["seat"] is None, report
    said = cli("verify", str(transcripts[0]), pythonpath=[buggy])
    assert "verdict: PLUGIN FAILED" in said.stdout and "ZeroDivisionError" in said.stdout, said.stdout

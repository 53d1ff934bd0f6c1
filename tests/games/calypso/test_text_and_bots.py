"""Console grammar, action text, the plugin registration and the strategic bot."""

import pytest

from p2pcards.game import IllegalAction
from p2pcards.plugins import load_plugins
from p2pcards.simulate import simulate

from .calypso_table import N, Table


def test_registered_through_the_real_entry_point():
    host = load_plugins()
    assert host.game_plugin["calypso"] == "calypso"
    assert "strategic" in host.bots_for("calypso") and "random" in host.bots_for("calypso")
    game = host.game("calypso")
    assert game.summary and "play" in game.commands_help() and "trump" in game.commands_help()


def test_choosing_a_suit_by_text():
    t = Table(choices=[])  # nobody chooses automatically
    for text in ["trump hearts", "choose h", "suit ♥", "hearts", "TRUMP Hearts"]:
        assert t.parse(0, text) == {"type": "choose_suit", "suit": "h"}
    with pytest.raises(IllegalAction, match="trump SUIT"):
        t.parse(0, "trump purple")
    with pytest.raises(IllegalAction, match="choose your trump suit"):
        t.parse(0, "play Qh")
    t.act(0, "trump diamonds")
    with pytest.raises(IllegalAction, match="not available"):
        t.act(2, "trump clubs")  # seat 1 (the partner) already has clubs


def test_playing_a_card_by_text_maps_to_a_held_copy():
    t = Table(hands={"N": ["Qh", "Qh", "10s"]}, void={"N": "d"})
    known = t.known(N)
    for text in ["play Qh", "Qh", "p qh", "Q♥", "play Q♥"]:
        action = t.parse(N, text)
        assert action["type"] == "play" and known[action["card"]].face == known[t.parse(N, "Qh")["card"]].face
    assert str(known[t.parse(N, "10s")["card"]]) == "10s"
    with pytest.raises(IllegalAction, match="you hold no"):
        t.parse(N, "play 2d")
    with pytest.raises(IllegalAction, match="expected a card"):
        t.parse(N, "play banana")
    with pytest.raises(IllegalAction, match="already chosen"):
        t.parse(N, "trump hearts")


def test_format_action():
    t = Table(hands={"N": ["Qh"]})
    action = t.parse(N, "Qh")
    # the verb phrase only, as every game says it: the console puts the seat's name before it
    assert t.game.format_action(t.state, N, action, t.known(N)) == "plays Q♥"
    assert t.game.format_action(t.state, N, action, {}) == "plays a card"
    assert t.game.format_action(t.state, 0, {"type": "choose_suit", "suit": "h"}, {}) == "chooses hearts"


def test_the_logs_phrases_read_back():
    t = Table(choices=[])
    assert t.parse(0, "chooses hearts") == {"type": "choose_suit", "suit": "h"}
    t = Table(hands={"N": ["Qh", "10s"]})
    assert t.parse(N, "plays Q♥") == t.parse(N, "Qh")
    assert t.parse(N, "plays 10♠") == t.parse(N, "10s")
    with pytest.raises(IllegalAction, match="no revoke"):
        t.parse(N, "plays Q♥, owning to a revoke in the last trick")


@pytest.mark.slow  # many whole games
def test_strategic_bot_beats_random_bots_in_solo():
    report = simulate(
        load_plugins(),
        "calypso",
        options={"mode": "solo"},
        bots=["strategic", "random", "random", "random"],
        games=40,
        seed=3,
    )
    assert report.violations == []
    assert report.wins[0] > 40 * 0.45  # a fair share would be 25%

"""The plugin host with real installed distributions, working and broken."""

import pytest

from p2pcards.plugins import PluginHost, UnknownName

GOOD_GAME = """
    from p2pcards import hookimpl
    from p2pcards_highcard import HighCard

    class Other(HighCard):
        id = "other-high-card"
        name = "Other"

    @hookimpl
    def register_games(register):
        register(Other())
"""


def loaded(monkeypatch, *, allow=None, block=None) -> PluginHost:
    for env, value in (("P2PCARDS_LOAD_PLUGINS", allow), ("P2PCARDS_DISABLE_PLUGINS", block)):
        if value is None:
            monkeypatch.delenv(env, raising=False)
        else:
            monkeypatch.setenv(env, value)
    host = PluginHost()
    host.load_entry_points()
    return host


def test_third_party_game_loads_through_its_entry_point(highcard_path, with_path, monkeypatch):
    with_path(highcard_path)
    host = loaded(monkeypatch)
    assert "high-card" in host.games
    info = host.plugins["highcard"]
    assert (info.distribution, info.version, info.games) == ("p2pcards-highcard", "1.0.0", ["high-card"])
    assert info.hooks == ["register_games"]
    described = {p["name"]: p for p in host.describe()["plugins"]}["highcard"]
    assert described["games"][0]["options"][0]["name"] == "cards"
    assert described["games"][0]["variants"] == {"three-cards": {"cards": 3}}


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import no_such_module\n", "broken: failed to import: ModuleNotFoundError"),
        ("raise RuntimeError('boom')\n", "broken: failed to import: RuntimeError: boom"),
        (
            "from p2pcards import hookimpl\n@hookimpl\ndef register_gmaes(register): pass\n",
            "broken: breaks the hook contract",
        ),
        (
            "from p2pcards import hookimpl\n@hookimpl\ndef register_games(register, extra): pass\n",
            "broken: breaks the hook contract",
        ),
        (
            "from p2pcards import hookimpl\n@hookimpl\ndef register_games(register): register(42)\n",
            "broken: registered 42, which is not a p2pcards.game.Game instance",
        ),
        (
            "from p2pcards import hookimpl\n@hookimpl\ndef register_games(register): 1/0\n",
            "broken: register_games failed: ZeroDivisionError",
        ),
        (
            "from p2pcards import hookimpl\n@hookimpl\ndef register_bots(register): register(object)\n",
            "is not a Bot subclass",
        ),
        ("def register_games(register): pass\n", "implements no hooks (register_games lacks @p2pcards.hookimpl)"),
        (
            "from p2pcards import hookimpl\nfrom p2pcards.game import Option\nfrom p2pcards_highcard import HighCard\n"
            "class F(HighCard):\n    id = 'f'\n    options = (Option('x', float, 0.5, 'x'),)\n"
            "@hookimpl\ndef register_games(register): register(F())\n",
            "option x has type float; options are bool, int or str",
        ),
        (
            "from p2pcards import hookimpl\nfrom p2pcards_highcard import HighCard\n"
            "class V(HighCard):\n    id = 'v'\n    variants = {'big': {'cardz': 3}}\n"
            "@hookimpl\ndef register_games(register): register(V())\n",
            "variant 'big' sets 'cardz', which is not an option",
        ),
    ],
)
def test_a_broken_plugin_is_named_and_the_others_still_load(
    source, expected, highcard_path, with_path, make_distribution, monkeypatch
):
    broken = make_distribution("p2pcards-broken", {"broken_plugin": source}, {"broken": "broken_plugin"})
    with_path(highcard_path, broken)
    host = loaded(monkeypatch)
    assert any(expected in str(e) for e in host.errors), host.errors
    assert "high-card" in host.games


def test_duplicate_game_id_is_refused_and_named(highcard_path, with_path, make_distribution, monkeypatch):
    dup = make_distribution(
        "p2pcards-dup",
        {"dup_plugin": GOOD_GAME.replace('id = "other-high-card"', 'id = "high-card"')},
        {"zz-dup": "dup_plugin"},
    )
    with_path(highcard_path, dup)
    host = loaded(monkeypatch)
    assert host.game_plugin["high-card"] == "highcard"
    assert any("zz-dup: game id 'high-card' is already taken by highcard" in str(e) for e in host.errors)


def test_allow_and_block_lists(highcard_path, with_path, make_distribution, monkeypatch):
    other = make_distribution("p2pcards-other", {"other_plugin": GOOD_GAME}, {"other": "other_plugin"})
    with_path(highcard_path, other)
    assert {"high-card", "other-high-card"} <= set(loaded(monkeypatch).games)
    assert set(loaded(monkeypatch, allow="other").games) == {"other-high-card"}
    # The allow-list also takes distribution names.
    assert set(loaded(monkeypatch, allow="p2pcards-highcard").games) == {"high-card"}
    blocked = loaded(monkeypatch, block="highcard")
    assert "high-card" not in blocked.games and "other-high-card" in blocked.games


def test_unknown_game_lists_what_is_installed(highcard_path, with_path, monkeypatch):
    with_path(highcard_path)
    with pytest.raises(UnknownName, match="no game 'poker'.*high-card"):
        loaded(monkeypatch).game("poker")


def test_random_bot_is_available_for_every_game(highcard_path, with_path, monkeypatch):
    with_path(highcard_path)
    assert "random" in loaded(monkeypatch).bots_for("high-card")

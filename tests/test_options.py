import pytest

from p2pcards.game import Option, OptionError


def test_bool_option_accepts_words():
    opt = Option("quads", bool, False, "quads variant")
    assert opt.parse("on") is True and opt.parse("OFF") is False and opt.parse(True) is True
    with pytest.raises(OptionError, match="quads: expected on or off"):
        opt.parse("maybe")


def test_int_option_bounds():
    opt = Option("target", int, 3, "hands to win", minimum=1, maximum=9)
    assert opt.parse("5") == 5
    with pytest.raises(OptionError, match="at least 1"):
        opt.parse("0")
    with pytest.raises(OptionError, match="whole number"):
        opt.parse("three")


def test_choice_option_is_case_insensitive_and_canonical():
    opt = Option("mode", str, "partnership", "mode", choices=("partnership", "solo", "three"))
    assert opt.parse("SOLO") == "solo"
    with pytest.raises(OptionError, match="one of partnership, solo, three"):
        opt.parse("duo")


def test_resolve_options_names_unknown_option_and_player_count(highcard_path, with_path):
    from p2pcards.plugins import PluginHost

    with_path(highcard_path)
    host = PluginHost()
    host.load_entry_points()
    game = host.game("high-card")
    assert game.resolve_options({}, 3) == {"cards": 1}
    assert game.resolve_options({"cards": "4"}, 3) == {"cards": 4}
    with pytest.raises(OptionError, match="no option 'card'.*cards"):
        game.resolve_options({"card": "2"}, 3)
    with pytest.raises(OptionError, match="2 to 8 players, not 9"):
        game.resolve_options({}, 9)


def test_a_tables_options_must_be_complete_and_parsed():
    from p2pcards.game import OptionError
    from p2pcards.plugins import load_plugins

    game = load_plugins().game("cals-bs")
    complete = game.resolve_options({"match_target": "2"}, 4)
    game.check_table_options(complete, 4)  # what a host puts in its header
    for options, named in (({"match_target": 2}, "quads"), ({**complete, "match_target": "2"}, "match_target")):
        with pytest.raises(OptionError, match=f"not complete and parsed .*{named}"):
            game.check_table_options(options, 4)
    with pytest.raises(OptionError, match="no option 'colour'"):
        game.check_table_options({**complete, "colour": "red"}, 4)

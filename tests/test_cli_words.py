"""Issue 30, "names and words, not numbers and ids": the command line's one vocabulary, options
in words, results that name players, and a doctor that says what 127.0.0.1 means."""

from __future__ import annotations

import json
import re

import pytest

from p2pcards.cli import build_parser
from p2pcards.game import Option, Result, result_words
from p2pcards.plugins import contract_problem, load_plugins, variant_text
from p2pcards.text import name_seats


def _commands(help_text: str) -> list[str]:
    block = help_text.split("positional arguments:")[1].split("options:")[0]
    return re.findall(r"^    (\S+)", block, re.MULTILINE)


def test_help_lists_what_a_player_needs_first():
    commands = _commands(build_parser().format_help())
    assert commands[:5] == ["play", "demo", "host", "join", "list"]
    assert commands.index("plugins") > commands.index("history")
    assert commands.index("simulate") > commands.index("verify")


@pytest.mark.parametrize("command", ["host", "demo", "simulate"])
def test_players_and_seats_are_one_flag(command):
    parser = build_parser()
    extra = ["--game", "cals-bs"]
    for flag in ("--players", "--seats"):
        args = parser.parse_args([command, *extra, flag, "4"])
        assert (args.seats if command == "host" else args.players) == 4
    shown = parser._subparsers._group_actions[0].choices[command].format_help()
    assert "--players" in shown and "--seats" not in shown  # one documented, the other kept


def test_host_names_the_player_and_the_table_apart():
    parser = build_parser()
    args = parser.parse_args(["host", "--game", "cals-bs", "--name", "carol", "--table-name", "Friday cards"])
    assert (args.name, args.table_name) == ("carol", "Friday cards")
    # --bot kept working as --play-as-bot; --bot-kind is the kind of the --bots peers
    args = parser.parse_args(["host", "--game", "cals-bs", "--bot", "random", "--bots", "1"])
    assert (args.bot, args.bot_kind, args.bots) == ("random", "strategic", 1)
    args = parser.parse_args(["join", "alice", "--play-as-bot", "random"])
    assert args.bot == "random" and args.name is None  # the user's name, not "player"
    assert "default: your user name" in parser._subparsers._group_actions[0].choices["join"].format_help()


def test_bot_delay_defaults_say_one_rule():
    choices = build_parser()._subparsers._group_actions[0].choices
    for command in ("demo", "play"):
        args = build_parser().parse_args([command])
        assert args.bot_delay == 0.5, command
        assert "as whenever you play on screen" in " ".join(choices[command].format_help().split())
    assert "0.5 when you play on screen, 0 with --play-as-bot" in " ".join(choices["host"].format_help().split())


def test_host_help_lists_each_game_option_in_words(cli):
    run = cli("host", "--help")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "games and their options:" in out
    assert "first dealer: by lot  (--option first_dealer=-1)" in out
    assert "going out: face up, must be true  (--option going_out=face_up_must_be_true)" in out
    assert "hand size: by table size  (--option hand_size=0)" in out
    assert "--variant free-order: turn order: free order" in out


def test_plugins_json_gives_labels_and_value_words(cli):
    run = cli("plugins", "--json")
    assert run.returncode == 0, run.stderr
    games = {g["id"]: g for p in json.loads(run.stdout)["plugins"] for g in p["games"]}
    first = next(o for o in games["cals-bs"]["options"] if o["name"] == "first_dealer")
    assert first["label"] == "first dealer"
    assert first["values"] == [
        {"value": -1, "label": "by lot", "help": "nobody volunteered: the first dealer is drawn by lot"}
    ]
    assert games["cals-bs"]["variant_help"]["free-order"] == "turn order: free order"
    for game in games.values():  # every option of the bundled games has a label, every choice words
        for option in game["options"]:
            assert option["label"], (game["id"], option["name"])
            worded = {v["value"] for v in option.get("values", ())}
            assert set(option.get("choices", ())) <= worded, (game["id"], option["name"])
            if option["type"] == "bool":
                assert worded == {True, False}, (game["id"], option["name"])


def test_an_option_without_words_still_works():
    """A third-party plugin's options from before labels: the name and raw value stand in."""
    plain = Option("cards", int, 1, "cards each")
    assert plain.title == "cards" and plain.value_text(3) == "3" and plain.value_help(3) == ""
    assert Option("fast_mode", bool, False, "x").title == "fast mode"
    assert plain.describe()["label"] == "cards" and "values" not in plain.describe()
    worded = Option("first", int, -1, "x", minimum=-1, values=((-1, "by lot", "drawn by lot"),))
    assert worded.value_text(-1) == "by lot" and worded.value_text(2) == "2"
    assert worded.value_text(True) == "on"  # True == 1 but is not the int 1


def test_the_contract_checks_option_words():
    from p2pcards.game import Game

    base = load_plugins().game("crazy-eights")

    class Worded(type(base)):  # type: ignore[misc]
        options = (Option("hand_size", int, 0, "x", minimum=0, maximum=10, values=((99, "too many", "x"),)),)

    assert isinstance(Worded(), Game)
    assert "a labelled value is invalid" in (contract_problem(Worded()) or "")


def test_variants_in_words():
    game = load_plugins().game("cals-bs")
    assert variant_text(game, "free-order") == "turn order: free order"
    assert variant_text(game, "classic-cheat") == "going out: face down, may be doubted"


def test_cals_bs_result_names_each_count_next_to_its_player():
    game = load_plugins().game("cals-bs")
    result = Result((2,), (2.0, 0.0, 3.0), "seat 2 wins the match (2-0-3 in hands won)")
    text = name_seats(result_words(game, result), ["you", "bob", "carol"])
    assert text == "carol wins the match (hands: you won 2, bob won 0, carol won 3)"
    # A result from a file that does not fit: the recorded summary, not a crash.
    odd = Result((2,), ("x",), "seat 2 wins")  # type: ignore[arg-type]
    assert result_words(game, odd) == "seat 2 wins"
    assert result_words(None, result) == result.summary


def test_the_plugin_template_names_the_winner(tmp_path):
    template = (
        __import__("pathlib").Path(__import__("p2pcards").__file__).parent / "templates/game/PACKAGE/rules.py.tmpl"
    ).read_text()
    assert "seats {list(winners)}" not in template
    assert name_seats("seats 0 and 2 share the highest card", ["you", "bob", "carol"]) == (
        "you and carol share the highest card"
    )


def test_doctor_on_loopback_says_friends_cannot_reach_it(cli):
    run = cli("doctor", "--interface", "127.0.0.1", "--timeout", "8")
    assert run.returncode == 0, run.stdout + run.stderr
    last = run.stdout.rstrip().splitlines()[-1]
    assert "which only this computer can reach" in last
    assert "friends on other computers cannot reach a table there" in last


def test_history_json_names_the_winners_and_keeps_the_seats():
    from p2pcards.history import GameRecord, PlayerRecord

    players = [PlayerRecord(s, n, f"{s:064x}", f"000{s}") for s, n in enumerate(["alice", "bob", "carol"])]
    result = {"winners": [2], "scores": [1.0, 0.0, 3.0], "summary": "seat 2 wins the match", "details": {}}
    rec = GameRecord("ab" * 16, 0, "cals-bs", "Cal's BS", "2", {}, players, "finished", result, "verified")
    shown = rec.to_json()["result"]
    assert shown["summary"] == "carol wins the match" and shown["winners"] == [2]
    assert shown["winner_names"] == ["carol"]
    assert rec.result is not None and rec.result["summary"] == "seat 2 wins the match"  # stored as verify gave it


def test_history_names_the_seat_of_a_bye_entry():
    from p2pcards import history as hist

    game = {
        "our_seat": 0,
        "players": [{"seat": 0, "name": "alice"}, {"seat": 1, "name": "bob"}, {"seat": 2, "name": "carol"}],
        "status": "abandoned",
        "result": None,
        "verdict": "failed",
        "problem": {"step": "bye entry of seat 2 (log #12)", "reason": "it was not signed", "seat": 2},
    }
    mark, line = hist.verdict_mark(game)
    assert line == "not verified: bye entry of carol (log #12): it was not signed; to blame: carol"
    assert "seat 2" not in line


def test_play_as_bot_is_one_flag_on_every_command():
    parser = build_parser()
    for argv in (["join", "alice"], ["resume"], ["host", "--game", "cals-bs"]):
        for flag in ("--play-as-bot", "--bot"):
            assert parser.parse_args([*argv, flag, "random"]).bot == "random", (argv, flag)

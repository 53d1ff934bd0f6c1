"""The command line, run as a real process."""

import json


def test_plugins_json_lists_the_third_party_game(highcard_path, cli):
    out = cli("plugins", "--json", pythonpath=[highcard_path])
    assert out.returncode == 0, out.stderr
    plugins = {p["name"]: p for p in json.loads(out.stdout)["plugins"]}
    game = plugins["highcard"]["games"][0]
    assert (game["id"], game["rules_version"], game["players"]) == ("high-card", "1", [2, 8])
    assert plugins["highcard"]["version"] == "1.0.0"


def test_plugins_text_shows_options(highcard_path, cli):
    out = cli("plugins", pythonpath=[highcard_path])
    assert "game high-card: High card, rules 1, 2-8 players" in out.stdout
    assert "--option cards=1" in out.stdout


def test_simulate_local_json(highcard_path, cli):
    out = cli(
        "simulate",
        "--game",
        "high-card",
        "--players",
        "3",
        "--option",
        "cards=2",
        "--games",
        "200",
        "--local",
        "--json",
        "--seed",
        "5",
        pythonpath=[highcard_path],
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["games"] == 200 and report["players"] == 3
    assert sum(report["wins"]) >= 200  # ties give every tied seat a win
    assert report["violations"] == [] and report["options"] == {"cards": 2}


def test_simulate_variant(highcard_path, cli):
    out = cli(
        "simulate", "--game", "high-card", "--variant", "three-cards", "--local", "--json", pythonpath=[highcard_path]
    )
    assert json.loads(out.stdout)["options"] == {"cards": 3}


def test_errors_are_one_line_with_exit_status_2(highcard_path, cli):
    cases = [
        (["simulate", "--game", "poker", "--local"], "no game 'poker'"),
        (["simulate", "--game", "high-card", "--option", "cards=9", "--local"], "cards: must be at most 5"),
        (["simulate", "--game", "high-card", "--option", "cards", "--local"], "KEY=VALUE"),
        (["simulate", "--game", "high-card", "--bot", "genius", "--local"], "no bot 'genius'"),
        (["simulate", "--game", "high-card", "--players", "1", "--local"], "2 to 8 players"),
    ]
    for args, message in cases:
        out = cli(*args, pythonpath=[highcard_path])
        assert out.returncode == 2, (args, out.stderr)
        assert message in out.stderr and "Traceback" not in out.stderr


def test_joining_a_table_that_is_not_there_is_a_one_line_error(cli, tmp_path):
    out = cli(
        "join", "127.0.0.1:9", "--bot", "random", "--interface", "127.0.0.1", env={"P2PCARDS_HOME": str(tmp_path)}
    )
    assert out.returncode == 2
    assert "cannot reach 127.0.0.1:9" in out.stderr and "Traceback" not in out.stderr


def test_a_mistyped_address_is_refused_before_any_lookup(cli, tmp_path):
    """Not taken for a table's name (which would be looked up on the network): refused at once."""
    for target, message in (
        ("nohost:notaport", "needs the port as a number"),
        ("127.0.0.1:99999", "a port is between 1 and 65535"),
    ):
        out = cli("join", target, "--bot", "random", "--interface", "127.0.0.1", env={"P2PCARDS_HOME": str(tmp_path)})
        assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr
    out = cli(
        "host",
        "--game",
        "cals-bs",
        "--bot",
        "random",
        "--interface",
        "10.77.255.254",
        env={"P2PCARDS_HOME": str(tmp_path)},
    )
    assert out.returncode == 2 and "not an IPv4 address of this computer" in out.stderr


def test_a_timeout_out_of_bounds_is_refused(cli, tmp_path):
    for flag, value, message in (
        ("--grace", "inf", "positive number of seconds"),
        ("--deck-timeout", "1e300", "at most 600 s"),
        ("--turn-timeout", "0", "positive number of seconds"),
    ):
        out = cli(
            "host",
            "--game",
            "cals-bs",
            "--bot",
            "random",
            "--interface",
            "127.0.0.1",
            flag,
            value,
            env={"P2PCARDS_HOME": str(tmp_path)},
        )
        assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr, out.stderr


def test_a_name_with_a_control_character_is_refused(cli, tmp_path):
    out = cli(
        "host",
        "--game",
        "cals-bs",
        "--bot",
        "random",
        "--interface",
        "127.0.0.1",
        "--name",
        "bob\nverdict: VERIFIED",
        env={"P2PCARDS_HOME": str(tmp_path)},
    )
    assert out.returncode == 2 and "control or format character (U+000A)" in out.stderr, out.stderr

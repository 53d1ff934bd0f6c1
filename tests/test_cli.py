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


def test_resuming_a_folder_with_no_saved_seat_says_so(cli, tmp_path):
    # (As a seat whose game just ended: its program removed the folder as it left.)
    gone = tmp_path / "tables" / "0123456789ab-seat1"
    gone.mkdir(parents=True)
    out = cli("resume", str(gone), "--transcript-dir", str(tmp_path), env={"P2PCARDS_HOME": str(tmp_path)})
    assert out.returncode == 2, out.stderr
    assert f"nothing to resume in {gone}: no seat is saved there" in out.stderr and "Errno" not in out.stderr


def test_join_port_out_of_range_or_taken_is_a_one_line_error(cli, tmp_path):
    """``join --port`` (and ``play --port``): the port the other seats reach this seat at. Out
    of range: refused at once; taken by another program: one line naming it and what to do, before anything is sent
    (127.0.0.1 only)."""
    import socket

    from p2pcards.testing.loopback import unused_port

    for command in (["join", "127.0.0.1:9", "--bot", "random"], ["play"]):
        out = cli(*command, "--interface", "127.0.0.1", "--port", "70000")
        assert out.returncode == 2 and "--port must be between 1 and 65535" in out.stderr, out.stderr
    with socket.socket() as other_program:
        port = unused_port()
        other_program.bind(("127.0.0.1", port))
        other_program.listen()
        out = cli(
            "join", "127.0.0.1:9", "--bot", "random", "--interface", "127.0.0.1", "--port", str(port),
            env={"P2PCARDS_HOME": str(tmp_path)},
        )  # fmt: skip
    assert out.returncode == 2, out.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in out.stderr and "choose another --port" in out.stderr
    assert "Traceback" not in out.stderr


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


def test_history_imports_lists_and_counts_opponents(cli, tmp_path):
    import trio

    from .history_tables import play_recorded_game

    played = trio.run(lambda: play_recorded_game(tmp_path, history=False))
    env = {"P2PCARDS_HOME": str(played.alice_home)}  # alice's data folder: her identity
    out = cli("history", env=env)
    assert out.returncode == 0 and out.stdout.startswith("no games recorded yet")
    # No file named: the default transcript folder, ./transcripts (all three seats' copies).
    out = cli("history", "--import", env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("recorded: ") == 1 and out.stdout.count("updated : ") == 2
    assert "(Crazy Eights, verified)" in out.stdout
    out = cli("history", env=env)
    (line,) = out.stdout.splitlines()
    assert "Crazy Eights" in line and "verified" in line and "with " in line
    assert "bob" in line and "strategic bot 1" in line and "seat" not in line
    (game,) = json.loads(cli("history", "--json", env=env).stdout)
    assert game["our_seat"] == 0 and game["verdict"] == "verified"
    assert [p["name"] for p in game["players"]][0] == "alice"
    opponents = json.loads(cli("history", "--opponents", "--json", env=env).stdout)
    assert {o["name"]: o["fingerprint"] for o in opponents}["bob"] == played.identities["bob"].public.fingerprint
    out = cli("history", "--opponents", "--limit", "1", env=env)
    assert out.stdout.splitlines()[0].startswith("opponent") and len(out.stdout.splitlines()) == 3
    # A file that is no transcript is skipped with its reason (exit 1); a bad limit is exit 2.
    junk = tmp_path / "junk.p2pt"
    junk.write_bytes(b"junk")
    out = cli("history", "--import", str(junk), "--json", env=env)
    assert out.returncode == 1 and json.loads(out.stdout)[0]["recorded"] is None
    out = cli("history", "--limit", "0", env=env)
    assert out.returncode == 2 and "--limit must be at least 1" in out.stderr


def test_history_of_a_damaged_database_is_a_one_line_error(cli, tmp_path):
    (tmp_path / "history.sqlite3").write_bytes(b"not a database" * 200)
    out = cli("history", env={"P2PCARDS_HOME": str(tmp_path)})
    assert out.returncode == 2 and len(out.stderr.splitlines()) == 1
    assert "move it away to start a new history" in out.stderr


def test_the_printout_after_a_network_game_names_the_players(capsys):
    from types import SimpleNamespace

    from p2pcards.cli import _print_outcome
    from p2pcards.game import Result, Violation
    from p2pcards.plugins import load_plugins

    session = SimpleNamespace(
        names=["alice", "bob", "carol"],
        violations=[Violation(2, 7, "passed on seat 0's lead")],
        game=load_plugins().game("cals-bs"),
    )
    outcome = SimpleNamespace(
        aborted=None,
        result=Result((1,), (0.0, 2.0, 0.0), "seat 1 wins the match (0-2-0 in hands won)"),
        peer=SimpleNamespace(session=session),
        transcript=None,
        history_warning=None,
        problem=None,
    )
    assert _print_outcome(outcome) == 1
    out = capsys.readouterr().out
    assert out.splitlines() == [
        # each count next to its player's name, not "0-2-0" in seat order
        "result: bob wins the match (hands: alice won 0, bob won 2, carol won 0)",
        "audit: 1 violations",
        "  carol, action 7: passed on alice's lead",
    ]

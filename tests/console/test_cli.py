"""The console's subcommands on the command line (no terminal needed)."""

import pytest

from tests.conftest import run_cli


@pytest.mark.system  # the p2pcards command
def test_play_needs_a_terminal():
    done = run_cli("play", "--interface", "127.0.0.1")
    assert done.returncode == 2
    assert "run it in a terminal" in done.stderr and "p2pcards list" in done.stderr
    assert "--interface" in run_cli("play", "--help").stdout


@pytest.mark.system  # the p2pcards command
def test_demo_needs_a_terminal_and_checks_options_first():
    done = run_cli("demo", "--game", "cals-bs")
    assert done.returncode == 2 and "run it in a terminal" in done.stderr
    assert "--deck" in run_cli("demo", "--help").stdout


@pytest.mark.system  # the p2pcards command
def test_host_and_join_in_person_need_a_terminal(highcard_path):
    for args in (["host", "--game", "high-card", "--interface", "127.0.0.1"], ["join", "127.0.0.1:9"]):
        done = run_cli(*args, pythonpath=[highcard_path])
        assert done.returncode == 2, done.stderr
        # The flag as --help names it (issue 30: one vocabulary; --bot is only its short alias).
        assert "run it in a terminal, or give --play-as-bot KIND" in done.stderr and "Traceback" not in done.stderr
    assert "you play it in the console" in " ".join(run_cli("host", "--help").stdout.split())


def test_demo_takes_your_name_as_play_host_and_join_do():
    from p2pcards.console.demo import DemoSettings, demo_names
    from p2pcards.plugins import load_plugins

    host = load_plugins()
    assert demo_names(DemoSettings("cals-bs"), host) == ["you", "bot 1", "bot 2"]
    assert demo_names(DemoSettings("cals-bs", name="Alice"), host) == ["Alice", "bot 1", "bot 2"]
    assert "--name NAME" in run_cli("demo", "--help").stdout

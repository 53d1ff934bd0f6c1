"""The console's subcommands on the command line (no terminal needed)."""

from tests.conftest import run_cli


def test_play_says_lan_play_is_not_available_yet():
    done = run_cli("play")
    assert done.returncode == 2
    assert "LAN play is not available yet" in done.stderr and "p2pcards demo" in done.stderr


def test_demo_needs_a_terminal_and_checks_options_first():
    done = run_cli("demo", "--game", "cals-bs")
    assert done.returncode == 2 and "run it in a terminal" in done.stderr
    assert "--deck" in run_cli("demo", "--help").stdout

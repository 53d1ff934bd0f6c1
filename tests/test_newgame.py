"""``p2pcards new-game``: the generated plugin installs, is listed, plays whole games against
bots with ``p2pcards simulate --local``, and its own tests pass."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from p2pcards.newgame import GameNames, NewGameError, create_game

pytestmark = pytest.mark.system  # the command, pip installs, a nested pytest

P2PCARDS = Path(sys.executable).with_name("p2pcards")


@pytest.fixture(scope="module")
def generated(tmp_path_factory, pip_install):
    """The plugin of a game 'lucky-draw' written by the command and pip-installed to a target."""
    base = tmp_path_factory.mktemp("newgame")
    folder = base / "lucky"
    run = subprocess.run(
        [str(P2PCARDS), "new-game", "lucky-draw", "--dir", str(folder)], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    target = base / "site"
    pip_install(folder, target)
    return run, folder, target


def test_writes_a_complete_distribution(generated):
    run, folder, _ = generated
    # pip leaves build/ and *.egg-info behind in the folder: take the list the command printed.
    listing = run.stdout.split("\n\n")[0].splitlines()[1:]
    files = sorted(line.strip() for line in listing)
    assert files == [
        "README.md",
        "p2pcards_lucky_draw/__init__.py",
        "p2pcards_lucky_draw/bots.py",
        "p2pcards_lucky_draw/plugin.py",
        "p2pcards_lucky_draw/rules.py",
        "pyproject.toml",
        "tests/test_game.py",
    ]
    pyproject = (folder / "pyproject.toml").read_text()
    assert 'name = "p2pcards-lucky-draw"' in pyproject
    assert '[project.entry-points.p2pcards]\nlucky-draw = "p2pcards_lucky_draw.plugin"' in pyproject
    assert "class LuckyDraw(Game[State]):" in (folder / "p2pcards_lucky_draw/rules.py").read_text()
    assert not [f for f in files if "{{" in (folder / f).read_text()]
    assert "pip install -e" in run.stdout and "p2pcards simulate --game lucky-draw" in run.stdout


def test_listed_by_p2pcards_plugins(generated, cli):
    _, _, target = generated
    run = cli("plugins", "--json", pythonpath=[target])
    data = json.loads(run.stdout)
    [plugin] = [p for p in data["plugins"] if p["name"] == "lucky-draw"]
    assert plugin["distribution"] == "p2pcards-lucky-draw"
    assert plugin["games"][0]["id"] == "lucky-draw" and plugin["bots"] == ["greedy (lucky-draw)"]
    assert data["errors"] == []


@pytest.mark.parametrize("players", ["2", "4", "6"])
def test_plays_whole_games_against_bots(generated, cli, players):
    _, _, target = generated
    bots = ["--bot", "greedy"] + ["--bot", "random"] * (int(players) - 1)
    run = cli(
        "simulate",
        "--game",
        "lucky-draw",
        "--players",
        players,
        "--local",
        "--games",
        "200",
        "--json",
        *bots,
        pythonpath=[target],
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["games"] == 200 and report["violations"] == []
    assert report["win_rate"][0] > max(report["win_rate"][1:])  # the greedy bot shows its best card


def test_plays_on_the_mental_poker_deck(generated, cli):
    _, _, target = generated
    run = cli("simulate", "--game", "lucky-draw", "--players", "3", "--games", "2", pythonpath=[target])
    assert run.returncode == 0, run.stderr
    assert "audit: clean" in run.stdout


def test_its_own_tests_pass(generated):
    _, folder, target = generated
    env = dict(os.environ, PYTHONPATH=str(target))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder / "tests")],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert " passed" in run.stdout and "failed" not in run.stdout


def test_names_and_refusals(tmp_path, cli):
    names = GameNames.from_text("p2pcards-Go-Fish")
    assert (names.name, names.title, names.class_name, names.package, names.distribution) == (
        "go-fish",
        "Go Fish",
        "GoFish",
        "p2pcards_go_fish",
        "p2pcards-go-fish",
    )
    for bad in ("9lives", "two--hyphens", "with space", "-x", ""):
        with pytest.raises(NewGameError):
            GameNames.from_text(bad)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "file").write_text("x")
    with pytest.raises(NewGameError, match="not empty"):
        create_game("snap", tmp_path / "taken")
    run = cli("new-game", "Bad Name", "--dir", str(tmp_path / "x"))
    assert run.returncode == 2 and "not a game name" in run.stderr
    # an installed game's name would replace that game on 'pip install -e'
    run = cli("new-game", "calypso", "--dir", str(tmp_path / "y"))
    assert run.returncode == 2 and "'calypso' is already installed" in run.stderr
    assert not (tmp_path / "y").exists()

"""docs/plugin-tutorial.md is followed step by step: its code blocks, put together file by file,
are exactly the bundled plugins/crazy-eights; written into an empty folder they install, appear
in ``p2pcards plugins``, play whole games against bots and pass their own tests."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "plugin-tutorial.md"
PLUGIN = ROOT / "plugins" / "crazy-eights"
BLOCK = re.compile(r'^```\w+ title="(?P<path>[^"]+)"\n(?P<code>.*?)\n```$', re.MULTILINE | re.DOTALL)


def tutorial_files(markdown: str) -> dict[str, str]:
    """The files a reader ends with: every block labelled with a path, appended in order. A block
    that continues a class body (indented) follows one blank line, a top-level block two."""
    files: dict[str, str] = {}
    for match in BLOCK.finditer(markdown):
        path, code = match["path"], match["code"]
        if path in files:
            gap = "\n" if code.startswith((" ", "\t")) else "\n\n"
            files[path] += gap + code + "\n"
        else:
            files[path] = code + "\n"
    return files


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    return tutorial_files(TUTORIAL.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def installed(files, tmp_path_factory, pip_install) -> tuple[Path, Path]:
    """Step 1 to 12: an empty folder, the tutorial's files, ``pip install``."""
    folder = tmp_path_factory.mktemp("tutorial") / "crazy-eights"
    folder.mkdir()
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")
    target = tmp_path_factory.mktemp("tutorial-site")
    pip_install(folder, target)
    return folder, target


def plugin_sources() -> dict[str, str]:
    sources = {}
    for path in sorted(PLUGIN.rglob("*")):
        relative = path.relative_to(PLUGIN).as_posix()
        if path.is_file() and (path.suffix in (".py", ".toml")) and not relative.startswith("build/"):
            sources[relative] = path.read_text(encoding="utf-8")
    return sources


def test_the_tutorial_code_is_the_bundled_plugin(files):
    assert sorted(files) == sorted(plugin_sources())
    for path, text in plugin_sources().items():
        assert files[path] == text, f"{path} in the tutorial differs from plugins/crazy-eights/{path}"


def test_rules_module_is_built_over_several_steps(files):
    markdown = TUTORIAL.read_text(encoding="utf-8")
    assert len([m for m in BLOCK.finditer(markdown) if m["path"].endswith("rules.py")]) >= 6
    for name in ("next_step", "check_own", "audit", "view", "parse_action", "register_games"):
        assert name in markdown


def test_the_tutorial_plugin_imports_only_the_public_contract(files):
    allowed = {"p2pcards", "p2pcards.game", "p2pcards.cards"}
    for path, text in files.items():
        if path.startswith("p2pcards_crazy_eights/"):
            used = set(re.findall(r"^(?:from|import) (p2pcards[\w.]*)", text, re.MULTILINE))
            assert used <= allowed, f"{path} imports {used - allowed}"


@pytest.mark.system  # pip install, a process
def test_the_installed_tutorial_is_what_runs(installed):
    _, target = installed
    env = dict(os.environ, PYTHONPATH=str(target))
    run = subprocess.run(
        [sys.executable, "-c", "import p2pcards_crazy_eights as m; print(m.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.strip().startswith(str(target))


def test_listed_by_p2pcards_plugins(installed, cli):
    _, target = installed
    data = json.loads(cli("plugins", "--json", pythonpath=[target]).stdout)
    [plugin] = [p for p in data["plugins"] if p["name"] == "crazy-eights"]
    assert plugin["distribution"] == "p2pcards-crazy-eights" and plugin["bots"] == [
        "strategic (crazy-eights)",
        "simple (crazy-eights)",
    ]
    [game] = plugin["games"]
    assert game["id"] == "crazy-eights" and game["players"] == [2, 5]
    assert [o["name"] for o in game["options"]] == ["hand_size", "draw_until_playable"]
    assert data["errors"] == []


#: Games per player count: all with --full, else a sample (still enough for the strategic bot to
#: win more often than each random one, by a wide margin).
GAMES, SAMPLED_GAMES = 200, 60


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_simulates_whole_games_against_bots(installed, cli, players, sample):
    _, target = installed
    games = sample.number(GAMES, SAMPLED_GAMES)
    bots = ["--bot", "strategic"] + ["--bot", "random"] * (players - 1)
    run = cli(
        "simulate",
        "--game",
        "crazy-eights",
        "--players",
        str(players),
        "--local",
        "--games",
        str(games),
        "--json",
        *bots,
        pythonpath=[target],
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["violations"] == [] and report["games"] == games
    assert report["win_rate"][0] > max(report["win_rate"][1:])


def test_simulates_with_the_mental_poker_deck(installed, cli):
    _, target = installed
    run = cli(
        "simulate",
        "--game",
        "crazy-eights",
        "--players",
        "3",
        "--games",
        "2",
        "--variant",
        "draw-one",
        pythonpath=[target],
    )
    assert run.returncode == 0, run.stderr
    assert "audit: clean" in run.stdout


@pytest.mark.system  # a nested pytest
def test_the_tutorials_own_tests_pass(installed):
    folder, target = installed
    env = dict(os.environ, PYTHONPATH=str(target))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "9 passed" in run.stdout

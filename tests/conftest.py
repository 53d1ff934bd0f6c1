"""Shared fixtures: real distributions installed into temporary folders.

Plugins in these tests are never mocked: ``highcard_path`` is the fixture game in
tests/fixtures/highcard built and installed by pip, and ``make_distribution`` writes an installed
distribution (dist-info with entry points) the way pip leaves one, for plugins that are broken on
purpose.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def pip_install_target(source: Path, target: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--disable-pip-version-check",
            "--target",
            str(target),
            str(source),
        ],
        check=True,
    )


@pytest.fixture(scope="session", autouse=True)
def private_data_home(tmp_path_factory):
    """Seats saved while they play (``persist``), identities and the like go to a folder of
    this test run, never to the user's data folder (a test may still set its own)."""
    home = tmp_path_factory.mktemp("p2pcards-home")
    saved = os.environ.get("P2PCARDS_HOME")
    os.environ["P2PCARDS_HOME"] = str(home)
    yield home
    if saved is None:
        os.environ.pop("P2PCARDS_HOME", None)
    else:
        os.environ["P2PCARDS_HOME"] = saved


@pytest.fixture(scope="session")
def pip_install():
    """``pip_install(source, target)``: build the distribution in ``source`` and install it into
    the folder ``target`` (as a real install, with its entry points)."""
    return pip_install_target


@pytest.fixture(scope="session")
def highcard_path(tmp_path_factory) -> Path:
    """A folder holding the installed p2pcards-highcard distribution (a third-party game)."""
    target = tmp_path_factory.mktemp("highcard-install")
    pip_install_target(FIXTURES / "highcard", target)
    return target


@pytest.fixture
def with_path(monkeypatch):
    """Put folders on sys.path (so their distributions' entry points are found) for one test."""

    def add(*folders: Path) -> None:
        for folder in folders:
            monkeypatch.syspath_prepend(str(folder))

    return add


@pytest.fixture
def make_distribution(tmp_path):
    """Write an installed distribution: ``make_distribution(name, {module: source}, {ep: target})``
    returns the folder to put on sys.path."""

    def make(name: str, modules: dict[str, str], entry_points: dict[str, str], version="0.1") -> Path:
        site = tmp_path / f"site-{name}"
        site.mkdir()
        for module, source in modules.items():
            (site / f"{module}.py").write_text(textwrap.dedent(source))
            sys.modules.pop(module, None)  # an earlier test may have imported another version
        info = site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        eps = "".join(f"{k} = {v}\n" for k, v in entry_points.items())
        (info / "entry_points.txt").write_text(f"[p2pcards]\n{eps}")
        return site

    return make


@pytest.fixture
def cli():
    """Run the installed ``p2pcards`` command: ``cli(*args, pythonpath=[...])``."""
    return run_cli


def run_cli(
    *args: str, pythonpath: list[Path] = (), env: dict | None = None, timeout: float = 120, cwd: Path | None = None
):
    """Run the installed ``p2pcards`` command (in the folder ``cwd``); returns the CompletedProcess."""
    full_env = dict(os.environ)
    if pythonpath:
        full_env["PYTHONPATH"] = os.pathsep.join(str(p) for p in pythonpath)
    full_env.update(env or {})
    exe = Path(sys.executable).with_name("p2pcards")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=full_env, timeout=timeout, cwd=cwd)

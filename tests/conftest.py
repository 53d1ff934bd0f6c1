"""Shared fixtures, the test tiers and the sampled suites.

Tiers (markers, registered in pyproject.toml). Mark a test by what it does, with a module's
``pytestmark = pytest.mark.system`` or on the test itself:

* no marker: the fast tier. Unit tests, sans-IO protocol tests, and tables in this process on
  127.0.0.1 on trio's autojump clock (adv_table's ``run_table`` and p2pcards.testing's
  ``run_loopback`` are on virtual time unless the test says in one line why not). A test here
  takes well under a second or two and never sleeps longer than 2 s of real time.
* ``system``: real processes (the ``p2pcards`` command, subprocess tables, pip installs, a
  nested pytest), a terminal in tmux, or real time the kernel keeps (TCP timers, SIGSTOP).
  A test that asks for the ``cli`` fixture is marked ``system`` here, without a word.
* ``netns``: builds network namespaces (needs root; skipped otherwise). Also ``system``.
* ``slow``: takes more than a few seconds however it runs (many games, long real waits).

``scripts/test --fast`` (or ``pytest --fast``) leaves out ``slow``, ``system`` and ``netns``:
the command to run before every commit. ``scripts/test`` runs everything, in parallel.

Sampled suites (kill points, silent cuts, stopped seats, lossy networks, the tutorial's games):
they enumerate many cases, each a real game of processes. By default a test runs a seeded
sample of them (``sample``); ``--full`` runs every case. The seed is printed at the start of
the run and in a failing test's report; ``--sample-seed N`` reruns the same sample.

Real distributions are installed into temporary folders.

Plugins in these tests are never mocked: ``highcard_path`` is the fixture game in
tests/fixtures/highcard built and installed by pip, and ``make_distribution`` writes an installed
distribution (dist-info with entry points) the way pip leaves one, for plugins that are broken on
purpose.
"""

from __future__ import annotations

import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
#: What ``--fast`` leaves out.
NOT_FAST = ("slow", "system", "netns")
T = TypeVar("T")


# -- tiers and sampling -----------------------------------------------------------------------


def pytest_addoption(parser):
    group = parser.getgroup("p2pcards", "p2pcards test tiers")
    group.addoption(
        "--fast",
        action="store_true",
        help=f"the fast tier: leave out the tests marked {', '.join(NOT_FAST)}",
    )
    group.addoption(
        "--full",
        action="store_true",
        help="sampled suites (kill points, silent cuts, stopped seats, lossy networks, the tutorial's games) "
        "play every case instead of a seeded sample",
    )
    group.addoption(
        "--sample-seed",
        type=int,
        default=None,
        metavar="N",
        help="the seed of the sampled suites' sample (printed at the start of every run); random if not given",
    )


def pytest_configure(config):
    seed = getattr(config, "workerinput", {}).get("sample_seed", config.getoption("sample_seed"))
    config.p2pcards_sample_seed = seed if seed is not None else secrets.randbelow(1_000_000)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist: every worker samples with the controller's seed (they must collect alike)."""
    node.workerinput["sample_seed"] = node.config.p2pcards_sample_seed


def _sampling(config) -> str:
    if config.getoption("full"):
        return "sampled suites: --full, every case"
    seed = config.p2pcards_sample_seed
    return f"sampled suites: a sample, seed {seed} (rerun it: --sample-seed {seed}; every case: --full)"


def pytest_report_header(config):
    return [_sampling(config)]


def pytest_terminal_summary(terminalreporter, config):
    if not hasattr(config, "workerinput"):
        terminalreporter.write_line(_sampling(config))


class Sample:
    """Which cases of a sampled suite this run plays: all of them with ``--full``, else a
    sample drawn from the run's seed and the test's id (the same seed, the same sample)."""

    def __init__(self, full: bool, seed: int, key: str):
        self.full = full
        self.seed = seed
        self.rng = random.Random(f"{seed}:{key}")

    def pick(self, cases: Iterable[T], count: int) -> list[T]:
        """``count`` of ``cases`` (all with ``--full``), in their order."""
        cases = list(cases)
        if self.full or count >= len(cases):
            return cases
        chosen = set(self.rng.sample(range(len(cases)), count))
        return [case for index, case in enumerate(cases) if index in chosen]

    def number(self, full: int, sampled: int) -> int:
        """``full`` with ``--full``, else ``sampled``."""
        return full if self.full else sampled


@pytest.fixture
def sample(request) -> Sample:
    """The :class:`Sample` of this test (its seed is in the run's header and, for a failure,
    in the test's captured output)."""
    config = request.config
    found = Sample(config.getoption("full"), config.p2pcards_sample_seed, request.node.nodeid)
    print(f"sample: {'--full' if found.full else f'--sample-seed {found.seed}'}")
    return found


def pytest_collection_modifyitems(config, items):
    """``--fast`` leaves out the marked tiers; ``@pytest.mark.sample(N)`` on a parametrized
    test keeps N of its cases (all with ``--full``), drawn from the run's seed
    (``sample(N, per="PARAM")``: N of each value of that parameter)."""
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    fast = config.getoption("fast")
    full = config.getoption("full")
    groups: dict[tuple[str, str], list[pytest.Item]] = {}
    # A test named on the command line (file::name or file::name[case]) is never sampled away.
    named = {arg.rsplit("::", 1)[1] for arg in config.args if "::" in arg}
    for item in items:
        if "cli" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.system)  # it runs the installed command: a process
        if fast and any(item.get_closest_marker(name) for name in NOT_FAST):
            dropped.append(item)
            continue
        marker = item.get_closest_marker("sample")
        if marker is not None and not full and not named & {item.name, item.originalname}:
            groups.setdefault(_sample_group(item, marker), []).append(item)
        keep.append(item)
    chosen: set[str] = set()
    for (path, name, stratum), group in groups.items():
        count = group[0].get_closest_marker("sample").args[0]
        key = f"{Path(path).name}::{name}" + (f"[{stratum}]" if stratum else "")
        picked = Sample(False, config.p2pcards_sample_seed, key).pick(group, count)
        chosen.update(item.nodeid for item in picked)
        dropped += [item for item in group if item.nodeid not in chosen]
    if dropped:
        gone = {id(item) for item in dropped}
        items[:] = [item for item in keep if id(item) not in gone]
        config.hook.pytest_deselected(items=dropped)
    if hasattr(config, "workerinput"):
        _spread_the_waiting(items)


def _sample_group(item: pytest.Item, marker: pytest.Mark) -> tuple[str, str, str]:
    """The cases a ``sample`` marker draws from together: a test's cases, or with
    ``per="PARAM"`` those with one value of that parameter (``sample(1, per="stage")``: one
    case of each stage, so that a run never draws only the slowest stage's)."""
    per = marker.kwargs.get("per")
    stratum = str(item.callspec.params[per]) if per else ""  # type: ignore[attr-defined]
    return str(item.path), item.originalname, stratum


def _spread_the_waiting(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (a worker's collection; every worker orders alike): the ``system``
    tests, which mostly wait (processes, tmux, namespaces, the kernel's timers), spread evenly
    among the others, which mostly compute (the deck's crypto). In the files' order they came
    in runs (the terminal tests, then the network's), and for minutes every worker waited
    while the cores idled."""
    waiting = [item for item in items if item.get_closest_marker("system") or item.get_closest_marker("netns")]
    if not waiting or len(waiting) == len(items):
        return
    is_waiting = {id(item) for item in waiting}
    others = [item for item in items if id(item) not in is_waiting]
    step = len(others) / len(waiting)
    spread: list[pytest.Item] = []
    placed = 0
    for index, item in enumerate(others):
        while placed < len(waiting) and placed * step <= index:
            spread.append(waiting[placed])
            placed += 1
        spread.append(item)
    items[:] = spread + waiting[placed:]


def pip_install_target(source: Path, target: Path) -> None:
    # From a copy: setuptools builds in the source folder (build/, *.egg-info), and two workers
    # building one fixture there at once failed ("File exists: build/bdist...").
    with tempfile.TemporaryDirectory(prefix="p2pcards-build-") as scratch:
        copy = Path(scratch) / source.name
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        _pip_install(copy, target)


def _pip_install(source: Path, target: Path) -> None:
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


@pytest.fixture
def virtual_clock():
    """For a trio test: run it on the loopback tables' autojump clock (p2pcards.testing's
    ``virtual_clock``, which jumps after 2 ms of real idleness, where pytest-trio's
    ``autojump_clock`` jumps at once)."""
    from p2pcards.testing import virtual_clock

    return virtual_clock()

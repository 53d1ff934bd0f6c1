"""``p2pcards new-game NAME``: write a new game plugin distribution from the template.

The template (``p2pcards/templates/game/``, shipped as package data) is a complete, playable
game: everyone shows one card and the highest rank wins. It has a pyproject with the entry
point, the rules, a bot and tests; the author then edits it into their own game. Template files
end in ``.tmpl``; ``{{placeholders}}`` are replaced and the folder ``PACKAGE`` is renamed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from . import __version__

__all__ = ["GameNames", "NewGameError", "create_game"]

_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


class NewGameError(ValueError):
    """A name or folder that cannot be used, with a message for the user."""


@dataclass(frozen=True)
class GameNames:
    """Every spelling of a new game's name."""

    name: str  # the game id: "high-card"

    @classmethod
    def from_text(cls, text: str) -> GameNames:
        name = text.strip().lower().removeprefix("p2pcards-")
        if not _NAME.match(name):
            raise NewGameError(
                f"not a game name: {text!r} (use lowercase letters, digits and single hyphens, "
                "starting with a letter, e.g. high-card)"
            )
        return cls(name)

    @property
    def title(self) -> str:
        return " ".join(part.capitalize() for part in self.name.split("-"))

    @property
    def class_name(self) -> str:
        return "".join(part.capitalize() for part in self.name.split("-"))

    @property
    def package(self) -> str:
        return "p2pcards_" + self.name.replace("-", "_")

    @property
    def distribution(self) -> str:
        return "p2pcards-" + self.name

    def substitutions(self) -> dict[str, str]:
        return {
            "core": core_requirement(),
            "name": self.name,
            "title": self.title,
            "class_name": self.class_name,
            "package": self.package,
            "distribution": self.distribution,
        }


def core_requirement() -> str:
    """The range of p2pcards a plugin written against this one declares: the same minor
    release (before 1.0, a minor release may change the game contract; CONTRIBUTING.md)."""
    major, minor = (int(part) for part in __version__.split(".")[:2])
    return f"p2pcards>={major}.{minor},<{major}.{minor + 1}"


def _template_files(folder, prefix: str = ""):
    """(relative path, text) of every template file, depth first."""
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            if entry.name != "__pycache__":
                yield from _template_files(entry, f"{prefix}{entry.name}/")
        elif entry.name.endswith(".tmpl"):
            yield prefix + entry.name.removesuffix(".tmpl"), entry.read_text(encoding="utf-8")


def create_game(name: str, folder: Path | None = None) -> tuple[GameNames, Path, list[Path]]:
    """Write the plugin for game ``name`` into ``folder`` (default ``./p2pcards-NAME``), which
    must not exist or be empty. Returns the names, the folder and the files written."""
    names = GameNames.from_text(name)
    folder = Path(folder) if folder is not None else Path.cwd() / names.distribution
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise NewGameError(f"{folder} already exists and is not empty")
    values = names.substitutions()
    written = []
    for relative, text in _template_files(resources.files("p2pcards") / "templates" / "game"):
        for key, value in values.items():
            text = text.replace("{{" + key + "}}", value)
        path = folder / relative.replace("PACKAGE", names.package)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return names, folder, written

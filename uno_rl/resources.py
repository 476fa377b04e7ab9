"""Where the shipped data and the user's own files are found.

Four kinds of named files: rule ``presets`` (``NAME.toml`` with a ``[rules]`` table),
``decks`` (``NAME.toml`` with a ``[cards]`` table, in ``envs/decks``), ``agents`` (spec files
``NAME.toml`` and their checkpoints) and ``experiments`` (configs ``NAME.toml``). Each kind is looked up in the folders of its environment variable
(``UNO_RL_PRESETS``, ``UNO_RL_DECKS``, ``UNO_RL_AGENTS``, ``UNO_RL_EXPERIMENTS``; several folders separated by
:data:`os.pathsep`), first to last, and then in the folder shipped inside the package.

The shipped folders are ``uno_rl/data/{envs,agents,experiments}``, found with
:mod:`importlib.resources` (:func:`data_dir`); ``uno_rl/data/notebooks`` holds the analysis
notebooks that ``uno_rl notebooks`` copies (:mod:`uno_rl.notebooks`). In the repository the
top-level ``envs/``, ``agents/``, ``experiments/`` and ``notebooks/`` are the source of truth:
``uno_rl/data/*`` are symbolic links to them (so a clone works with or without an editable
install), and the wheel build (hatchling's ``force-include`` in ``pyproject.toml``) copies the
real folders to the same place.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

__all__ = [
    "KINDS",
    "Entry",
    "data_dir",
    "entries",
    "find",
    "search_dirs",
    "shipped_dir",
    "user_dirs",
]

#: kind -> (folder name under ``uno_rl/data``, environment variable of the user folders)
KINDS: dict[str, tuple[str, str]] = {
    "presets": ("envs", "UNO_RL_PRESETS"),
    "agents": ("agents", "UNO_RL_AGENTS"),
    "experiments": ("experiments", "UNO_RL_EXPERIMENTS"),
    "decks": ("envs/decks", "UNO_RL_DECKS"),
}


def _kind(kind: str) -> tuple[str, str]:
    try:
        return KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown kind {kind!r} (kinds: {', '.join(KINDS)})") from None


def data_dir(folder: str) -> Path:
    """The folder ``uno_rl/data/FOLDER`` shipped with the package (``envs``, ``agents``,
    ``experiments``, ``notebooks``)."""
    return Path(str(files("uno_rl") / "data" / folder))


def shipped_dir(kind: str) -> Path:
    """The folder of the files of ``kind`` shipped with the package."""
    folder, _ = _kind(kind)
    return data_dir(folder)


def user_dirs(kind: str) -> list[Path]:
    """The user folders of ``kind`` from its environment variable, in search order."""
    _, variable = _kind(kind)
    return [Path(part) for part in os.environ.get(variable, "").split(os.pathsep) if part]


def search_dirs(kind: str) -> list[Path]:
    """The user folders, then the shipped folder."""
    return [*user_dirs(kind), shipped_dir(kind)]


def find(kind: str, filename: str) -> Path | None:
    """The first ``folder / filename`` (a file or a directory) in :func:`search_dirs`."""
    for folder in search_dirs(kind):
        candidate = folder / filename
        if candidate.exists():
            return candidate
    return None


@dataclass(frozen=True)
class Entry:
    """One named file: its name, one-line description, path and source."""

    name: str
    description: str
    path: Path
    source: str  # "user" or "shipped"


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    end = re.search(r"[.!?](?=\s+[A-Z(])", text)
    return text[: end.start() + 1] if end else text


def _description(path: Path) -> str:
    """One line about a TOML file: the first sentence of its ``description``, or else of its
    leading ``#`` comment block ('' if it has neither or cannot be read)."""
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return ""
    described = data.get("description")
    if isinstance(described, str) and described.strip():
        return _first_sentence(described)
    comment = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        comment.append(line.lstrip("#"))
    return _first_sentence(" ".join(comment))


def entries(kind: str) -> list[Entry]:
    """Every ``*.toml`` of ``kind``, sorted by name; a user file hides a shipped one of its name."""
    found: dict[str, Entry] = {}
    shipped = shipped_dir(kind)
    for folder in search_dirs(kind):
        if not folder.is_dir():
            continue
        source = "shipped" if folder == shipped else "user"
        for path in sorted(folder.glob("*.toml")):
            if path.is_file() and path.stem not in found:
                found[path.stem] = Entry(path.stem, _description(path), path, source)
    return [found[name] for name in sorted(found)]

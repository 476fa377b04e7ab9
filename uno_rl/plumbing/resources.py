"""Where the shipped data and the user's own files are found.

Four kinds of named files: rule ``presets`` (``NAME.toml`` with a ``[rules]`` table),
``decks`` (``NAME.toml`` with a ``[cards]`` table, in ``envs/decks``), ``agents`` (spec files
``NAME.toml`` and their checkpoints) and ``experiments`` (configs ``NAME.toml``). Each kind
is looked up in the folders of its environment variable (``UNO_RL_PRESETS``,
``UNO_RL_DECKS``, ``UNO_RL_AGENTS``, ``UNO_RL_EXPERIMENTS``; several folders separated by
:data:`os.pathsep`), first to last, and then in the folder shipped inside the package.

The shipped folders are ``uno_rl/data/{envs,agents,experiments}``, found with
:mod:`importlib.resources` (:func:`data_dir`); ``uno_rl/data/notebooks`` holds the analysis
notebooks that ``uno_rl notebooks`` copies (:mod:`uno_rl.programs.notebooks`). In the repository the
top-level ``envs/``, ``agents/``, ``experiments/`` and ``notebooks/`` are the source of truth:
``uno_rl/data/*`` are symbolic links to them (so a clone works with or without an editable
install), and the wheel build (hatchling's ``force-include`` in ``pyproject.toml``) copies the
real folders to the same place.

What cannot be read is said, never silently passed over: a user folder that cannot be read is
skipped by a look-up (the other folders still answer; :class:`ResourceError` only when the
name is found nowhere else) and named by the listings (:func:`scan`); a user file that cannot
be followed (a symlink loop, a dangling symlink) is an error when its name is looked up, not a
reason to fall back on a shipped file of the same name.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tomllib
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from uno_rl.plumbing.safe_text import printable
from uno_rl.plumbing.tomlfile import FileReadError, read_small_file

__all__ = [
    "KINDS",
    "Entry",
    "ResourceError",
    "data_dir",
    "entries",
    "find",
    "locate",
    "problems",
    "scan",
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

#: kind -> what one of its files is called in messages ("deck file ...", "deck 'x' not found").
FILE_LABELS: dict[str, str] = {
    "presets": "preset",
    "agents": "agent spec",
    "experiments": "experiment config",
    "decks": "deck",
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


class ResourceError(ValueError):
    """A user's file that is there but cannot be followed (a symlink loop, a dangling symlink,
    a link into a folder that cannot be read), or a name looked for in vain while a user
    folder could not be read: one line naming the file or the folder."""


def _where(kind: str, folder: Path) -> str:
    """``of $UNO_RL_DECKS`` for a user folder, ``shipped with uno_rl`` for the shipped one."""
    return "shipped with uno_rl" if folder == shipped_dir(kind) else f"of ${_kind(kind)[1]}"


def _reason(error: OSError) -> str:
    """Words for why a path cannot be followed."""
    if error.errno == errno.ELOOP:
        return "it is a symlink loop"
    if error.errno == errno.ENOENT:
        return "it is a symlink to nothing (its target does not exist)"
    return str(error.strerror or error)


def folder_problem(kind: str, folder: Path, error: OSError) -> str:
    """One line saying that the user folder ``folder`` of ``kind`` cannot be read."""
    reason = error.strerror or error
    return f"folder {printable(folder)} {_where(kind, folder)} cannot be read ({reason})"


def entry_problem(kind: str, path: Path, error: OSError) -> str:
    """One line saying that ``path``, an entry of a folder of ``kind``, cannot be followed."""
    return f"{FILE_LABELS[kind]} file {printable(path)} cannot be read: {_reason(error)}"


def locate(kind: str, filename: str) -> tuple[Path | None, list[str]]:
    """The first ``folder / filename`` (a file or a directory) in :func:`search_dirs`, and a
    line for each folder before it that could not be searched (unreadable: it is skipped).

    Raises:
        ResourceError: the first folder holding ``filename`` holds it as something that
            cannot be followed (a symlink loop, a dangling symlink): that is the user's
            file, and a later folder's file of the same name is not what they meant.
    """
    skipped: list[str] = []
    for folder in search_dirs(kind):
        candidate = folder / filename
        try:
            os.lstat(candidate)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except (OSError, ValueError) as error:  # the folder cannot be searched; a NUL byte
            if isinstance(error, OSError):
                skipped.append(folder_problem(kind, folder, error))
            continue
        try:
            os.stat(candidate)
        except OSError as error:
            raise ResourceError(entry_problem(kind, candidate, error)) from None
        return candidate, skipped
    return None, skipped


def find(kind: str, filename: str) -> Path | None:
    """The first ``folder / filename`` (a file or a directory) in :func:`search_dirs`; a user
    folder that cannot be read is skipped, and None only where every folder could be read.

    Raises:
        ResourceError: as :func:`locate`, and for a name found nowhere while a user folder
            could not be read (it may be there).
    """
    found, skipped = locate(kind, filename)
    if found is None and skipped:
        name = Path(filename).stem  # repr() escapes it
        raise ResourceError(f"{FILE_LABELS[kind]} {name!r} not found: {skipped[0]}")
    return found


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
        text = read_small_file(path).decode("utf-8-sig")
        data = tomllib.loads(text)
    except (FileReadError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError):
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


def _toml_names(folder: Path) -> list[str]:
    """The names ``*.toml`` in ``folder``, sorted (``OSError`` when it cannot be listed)."""
    with os.scandir(folder) as listing:
        return sorted(item.name for item in listing if item.name.endswith(".toml"))


def scan(kind: str, describe: bool = True) -> tuple[list[Entry], list[str]]:
    """Every ``*.toml`` of ``kind``, sorted by name, and a line for each thing that could not
    be read: a user folder that is missing, not a folder or unreadable (skipped) and a file
    that cannot be followed (a symlink loop, a dangling symlink). A user file hides a shipped
    one of its name, and so does a user file that cannot be followed: looking that name up
    fails (:func:`locate`). ``describe=False`` leaves the descriptions empty (no file read)."""
    found: dict[str, Entry | None] = {}
    problems: list[str] = []
    shipped = shipped_dir(kind)
    for folder in search_dirs(kind):
        source = "shipped" if folder == shipped else "user"
        try:
            names = _toml_names(folder)
        except FileNotFoundError:
            problems.append(f"folder {printable(folder)} {_where(kind, folder)} does not exist")
            continue
        except NotADirectoryError:
            problems.append(f"{printable(folder)} {_where(kind, folder)} is not a folder")
            continue
        except OSError as error:
            problems.append(folder_problem(kind, folder, error))
            continue
        for filename in names:
            path, stem = folder / filename, filename.removesuffix(".toml")
            if not stem or stem in found:
                continue
            try:
                os.lstat(path)
            except OSError as error:  # names listed, but the folder cannot be searched
                problems.append(folder_problem(kind, folder, error))
                break
            try:
                mode = os.stat(path).st_mode
            except OSError as error:
                problems.append(entry_problem(kind, path, error))
                found[stem] = None
                continue
            if stat.S_ISREG(mode):
                found[stem] = Entry(stem, _description(path) if describe else "", path, source)
    return [entry for _, entry in sorted(found.items()) if entry is not None], problems


def entries(kind: str) -> list[Entry]:
    """Every ``*.toml`` of ``kind``, sorted by name; a user file hides a shipped one of its name
    (what cannot be read is left out: :func:`scan` says what)."""
    return scan(kind)[0]


def problems(kind: str) -> list[str]:
    """A line for each user folder or file of ``kind`` that cannot be read (:func:`scan`)."""
    return scan(kind, describe=False)[1]

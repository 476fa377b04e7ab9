"""Preset files: where they are (the shipped ones and ``$UNO_RL_PRESETS``'s folders) and
reading one's ``[rules]`` table, with one clear :class:`~uno_rl.core.switches.RulesError`
for any problem with the file. :func:`uno_rl.core.rules.read_preset` then validates the
table.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from uno_rl.plumbing import resources
from uno_rl.plumbing.tomlfile import (
    FileReadError,
    not_a_file,
    parsed_value_problem,
    read_small_file,
)

from .switches import RulesError


def presets_dir() -> Path:
    """The folder of the shipped preset TOML files (``uno_rl/data/envs``, from ``envs/``)."""
    return resources.shipped_dir("presets")


def available_presets() -> list[str]:
    """Names of the presets: the user folders' (``$UNO_RL_PRESETS``) and the shipped, sorted."""
    return [entry.name for entry in resources.entries("presets")]


def preset_path(name_or_path: str | os.PathLike[str]) -> Path:
    """The file of a preset given by name (``NAME.toml`` in ``$UNO_RL_PRESETS``'s folders, then
    the shipped presets) or by path to a TOML file."""
    text = os.fspath(name_or_path) if isinstance(name_or_path, os.PathLike) else str(name_or_path)
    path = Path(text)
    as_path = isinstance(name_or_path, os.PathLike) or text.endswith(".toml") or "/" in text
    if as_path and not_a_file(path) is not None:
        return path  # read_preset names what it is (a folder, a FIFO, a symlink loop...)
    if text.endswith(".toml") and path.is_file():
        return path
    try:
        named = resources.find("presets", f"{text}.toml") or presets_dir() / f"{text}.toml"
    except ValueError as error:  # a user folder's entry that cannot be followed
        raise RulesError(str(error)) from None
    if named.is_file() or not_a_file(named) is not None:
        return named
    if as_path:
        raise RulesError(f"preset file {text} does not exist")
    raise RulesError(
        f"unknown preset {text!r}; available presets: {', '.join(available_presets()) or 'none'}"
    )


def _toml_type(value: Any) -> str:
    """How TOML calls the type of ``value`` (for error messages)."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        tables = bool(value) and all(isinstance(v, dict) for v in value)
        return "an array of tables" if tables else "an array"
    if isinstance(value, dict):
        return "a table"
    return "a date or time"


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_preset_table(name_or_path: str | os.PathLike[str]) -> tuple[Path, dict[str, Any]]:
    """The file of a preset (by name or path, :func:`preset_path`) and its ``[rules]`` table,
    not yet validated. Any problem with the file (no such preset, a directory, unreadable or
    non-UTF-8 bytes, bad TOML, a ``rules`` that is not a table) raises :class:`RulesError`
    naming the file and the problem."""
    path = preset_path(name_or_path)
    try:
        raw = read_small_file(path)
    except FileReadError as error:
        words = str(error)
        if error.kind == "a folder":
            words = "is a folder, not a preset file (a TOML file with a [rules] table)"
        raise RulesError(f"preset file {path} {words}") from None
    try:
        text = raw.decode("utf-8-sig")  # an editor's byte-order mark is fine
    except UnicodeDecodeError as error:
        raise RulesError(
            f"preset file {path} is not a text file: byte {error.start} is not UTF-8 "
            "(a preset is TOML text)"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"preset file {path} is not valid TOML: {error}") from error
    except RecursionError:
        raise RulesError(f"preset file {path} is not usable TOML: nested too deeply") from None
    except ValueError as error:  # int() refuses a number of 4,300 or more digits
        raise RulesError(
            f"preset file {path} is not usable TOML: {parsed_value_problem(error)}"
        ) from None
    extra = set(data) - {"description", "rules"}
    if extra:
        raise RulesError(f"preset file {path}: unknown top-level keys {sorted(extra)}; use [rules]")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise RulesError(
            f"preset file {path}: description must be a string, got {_toml_type(description)}"
        )
    table = data.get("rules", {})
    if not isinstance(table, dict):
        raise RulesError(
            f"preset file {path}: rules must be a table (a [rules] section of key = value "
            f"lines), got {_toml_type(table)}: rules = {_short(table)}"
        )
    return path, dict(table)

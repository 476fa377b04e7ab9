"""The checks every part of an experiment config shares: one error type, one message form.

Each failure is a :class:`ConfigError` whose message names the file and the key
(``experiments/x.toml: part[1].rounds: must be an integer >= 1, got 0``): the CLI prints it
as one line and exits with status 2.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ConfigError", "check_keys", "fail", "integer", "non_empty_list"]


class ConfigError(ValueError):
    """An experiment config that cannot run: the message names the file and the key."""


def fail(path: str, key: str, message: str) -> ConfigError:
    """The error of ``key`` in the config at ``path`` (to raise)."""
    return ConfigError(f"{path}: {key}: {message}")


def check_keys(path: str, where: str, table: dict, allowed: set[str]) -> None:
    """Raise on the first key of ``table`` (at ``where``) not in ``allowed``."""
    for key in table:
        if key not in allowed:
            full = f"{where}.{key}" if where else key
            raise fail(path, full, f"unknown key (allowed: {', '.join(sorted(allowed))})")


def integer(path: str, key: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` if it is an integer (not a bool) in [low, high]; else raise."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < low
        or (high is not None and value > high)
    ):
        bound = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise fail(path, key, f"must be an integer {bound}, got {value!r}")
    return value


def non_empty_list(path: str, key: str, value: Any) -> list:
    """``value`` if it is a non-empty list; else raise."""
    if not isinstance(value, list) or not value:
        raise fail(path, key, f"must be a non-empty list, got {value!r}")
    return value

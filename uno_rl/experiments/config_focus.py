"""The ``[[focus]]`` entries of an experiment config: cells that get more rounds or matches.

    [[focus]]
    players = [2]                                  # optional: which cells (all if absent)
    presets = ["official"]
    switches = { draw_four_legal = "no-current-color" }
    rounds = 20000                                 # and/or matches = 2000

A cell matches an entry when its preset, player count and every named switch agree (a switch
compares with the cell's full rules, so naming a default value matches too).
"""

from __future__ import annotations

import dataclasses
import difflib
from typing import Any

from uno_rl.core.rules import Rules
from uno_rl.eval.run import MAX_MATCHES, MAX_ROUNDS
from uno_rl.experiments.config_checks import check_keys, fail, integer, non_empty_list

__all__ = ["FOCUS_KEYS", "focus_entries", "matches_focus"]

#: What a ``[[focus]]`` entry may set.
FOCUS_KEYS = {"presets", "players", "switches", "rounds", "matches"}


def focus_entries(path: str, value: Any, pre: str = "") -> list[dict]:
    """The ``[[focus]]`` entries at ``pre`` (``""`` or ``part[i].``) of the config at ``path``,
    validated (raises :class:`~uno_rl.experiments.config_checks.ConfigError` naming the entry)."""
    if not isinstance(value, list) or not all(isinstance(f, dict) for f in value):
        raise fail(path, f"{pre}focus", "must be an array of tables ([[focus]])")
    for i, entry in enumerate(value):
        where = f"{pre}focus[{i}]"
        check_keys(path, where, entry, FOCUS_KEYS)
        if "rounds" not in entry and "matches" not in entry:
            raise fail(path, f"{where}.rounds", "is required (or matches, or both)")
        if "rounds" in entry:
            integer(path, f"{where}.rounds", entry["rounds"], 1, MAX_ROUNDS)
        if "matches" in entry:
            integer(path, f"{where}.matches", entry["matches"], 1, MAX_MATCHES)
        for key in ("presets", "players"):
            if key in entry:
                non_empty_list(path, f"{where}.{key}", entry[key])
        if not all(isinstance(p, str) for p in entry.get("presets", [])):
            raise fail(path, f"{where}.presets", "must be a list of preset names")
        for p in entry.get("players", []):
            integer(path, f"{where}.players", p, 2, 10)
        switches = entry.get("switches", {})
        if not isinstance(switches, dict):
            raise fail(path, f"{where}.switches", "must be a table of key = value")
        names = [f.name for f in dataclasses.fields(Rules)]
        for key in switches:
            if key not in names:
                close = difflib.get_close_matches(key, names, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise fail(
                    path,
                    f"{where}.switches",
                    f"unknown rule switch {key!r}{hint}; valid switches: {', '.join(names)}",
                )
    return value


def matches_focus(entry: dict, preset: str, rules: Rules) -> bool:
    """Whether a cell matches a ``[[focus]]`` entry: its preset, player count and rule values
    (switches compare with the cell's full rules, so a default value matches too)."""
    return (
        preset in entry.get("presets", [preset])
        and rules.players in entry.get("players", [rules.players])
        and all(getattr(rules, k, None) == v for k, v in entry.get("switches", {}).items())
    )

"""Experiment configs: the TOML schema, its validation, and the grid of cells it spans.

An experiment config (``experiments/NAME.toml``)::

    description = "what the experiment asks"
    seed = 0                 # optional, default 0
    rounds = 10000           # rounds per match-up and cell (required)
    workers = 2              # optional, default: every CPU
    confidence = 0.95        # optional
    rating_rounds = 20000    # optional: rounds fed to the OpenSkill ratings per cell

    [grid]
    presets = ["official", "house"]   # rule presets (required)
    players = [2, 4]                  # player counts (required)
    [grid.switches]                   # optional: every combination of these values is a variant
    caught_bluffer = ["draws-4", "takes-back"]

    [agents]
    specs = ["color-first", "rule"]   # agent specs (required)
    mode = "round-robin"              # optional: table, head-to-head or round-robin

A cell is one (preset, switch combination, player count). Everything is checked before any
game is played: unknown keys, unknown presets, agents or parameters, impossible values (a
``table`` needing as many agents as players, a switch the rules reject) raise
:class:`ConfigError` naming the key.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import tomllib
from pathlib import Path
from typing import Any

from uno_rl.agents import AgentError, make_agent
from uno_rl.core.rules import Rules, RulesError, load_rules, read_preset

from .run import variant_label
from .tournament import MODES, Matchup, make_matchups

__all__ = ["Cell", "ConfigError", "ExperimentConfig", "load_config"]

_TOP = {"description", "seed", "rounds", "workers", "confidence", "rating_rounds", "grid", "agents"}
_GRID = {"presets", "players", "switches"}
_AGENTS = {"specs", "mode"}


class ConfigError(ValueError):
    """An experiment config that cannot run: the message names the file and the key."""


@dataclasses.dataclass(frozen=True)
class Cell:
    """One grid point: a rule variant at a player count, and its match-ups."""

    index: int
    preset: str
    switches: tuple[tuple[str, Any], ...]
    rules: Rules
    matchups: tuple[Matchup, ...]

    @property
    def variant(self) -> str:
        return variant_label(self.preset, dict(self.switches))

    @property
    def players(self) -> int:
        return self.rules.players


@dataclasses.dataclass(frozen=True)
class ExperimentConfig:
    """A validated experiment config (see the module docstring)."""

    name: str
    path: str
    description: str
    seed: int
    rounds: int
    workers: int | None
    confidence: float
    rating_rounds: int
    presets: tuple[str, ...]
    players: tuple[int, ...]
    switches: tuple[tuple[str, tuple[Any, ...]], ...]
    agents: tuple[str, ...]
    mode: str | None
    cells: tuple[Cell, ...]

    def resolved(self) -> dict[str, Any]:
        """Everything that determines the results, as plain data (logged beside them)."""
        return {
            "name": self.name,
            "description": self.description,
            "seed": self.seed,
            "rounds": self.rounds,
            "confidence": self.confidence,
            "rating_rounds": self.rating_rounds,
            "agents": list(self.agents),
            "mode": self.mode,
            "cells": [
                {
                    "index": c.index,
                    "variant": c.variant,
                    "players": c.players,
                    "rules": c.rules.to_dict(),
                    "matchups": [list(m.lineup) for m in c.matchups],
                }
                for c in self.cells
            ],
        }


def _fail(path: str, key: str, message: str) -> ConfigError:
    return ConfigError(f"{path}: {key}: {message}")


def _check_keys(path: str, where: str, table: dict, allowed: set[str]) -> None:
    for key in table:
        if key not in allowed:
            full = f"{where}.{key}" if where else key
            raise _fail(path, full, f"unknown key (allowed: {', '.join(sorted(allowed))})")


def _int(path: str, key: str, value: Any, low: int, high: int | None = None) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < low
        or (high is not None and value > high)
    ):
        bound = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise _fail(path, key, f"must be an integer {bound}, got {value!r}")
    return value


def _list(path: str, key: str, value: Any) -> list:
    if not isinstance(value, list) or not value:
        raise _fail(path, key, f"must be a non-empty list, got {value!r}")
    return value


def load_config(path: str | os.PathLike[str]) -> ExperimentConfig:
    """Read and validate an experiment config; builds every cell's rules and agents once."""
    path = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such experiment config") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    _check_keys(path, "", data, _TOP)
    for required in ("rounds", "grid", "agents"):
        if required not in data:
            raise _fail(path, required, "is required")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise _fail(path, "description", "must be a string")
    seed = _int(path, "seed", data.get("seed", 0), 0)
    rounds = _int(path, "rounds", data["rounds"], 1, 100_000_000)
    workers = data.get("workers")
    if workers is not None:
        workers = _int(path, "workers", workers, 1, 1024)
    confidence = data.get("confidence", 0.95)
    if isinstance(confidence, bool) or not isinstance(confidence, float) or not 0 < confidence < 1:
        raise _fail(path, "confidence", f"must be a number in (0, 1), got {confidence!r}")
    rating_rounds = _int(path, "rating_rounds", data.get("rating_rounds", 20_000), 0)

    grid = data["grid"]
    if not isinstance(grid, dict):
        raise _fail(path, "grid", "must be a table")
    _check_keys(path, "grid", grid, _GRID)
    for required in ("presets", "players"):
        if required not in grid:
            raise _fail(path, f"grid.{required}", "is required")
    presets = _list(path, "grid.presets", grid["presets"])
    players = [
        _int(path, "grid.players", p, 2, 10) for p in _list(path, "grid.players", grid["players"])
    ]
    switch_table = grid.get("switches", {})
    if not isinstance(switch_table, dict):
        raise _fail(path, "grid.switches", "must be a table of key = [values]")
    switch_names = list(switch_table)
    for name in switch_names:
        _list(path, f"grid.switches.{name}", switch_table[name])
        if name == "players":
            raise _fail(path, "grid.switches.players", "use grid.players for player counts")

    agents_table = data["agents"]
    if not isinstance(agents_table, dict):
        raise _fail(path, "agents", "must be a table")
    _check_keys(path, "agents", agents_table, _AGENTS)
    if "specs" not in agents_table:
        raise _fail(path, "agents.specs", "is required")
    specs = _list(path, "agents.specs", agents_table["specs"])
    if not all(isinstance(s, str) for s in specs):
        raise _fail(path, "agents.specs", "must be a list of agent spec strings")
    mode = agents_table.get("mode")
    if mode is not None and mode not in MODES:
        raise _fail(path, "agents.mode", f"must be one of {', '.join(MODES)}, got {mode!r}")

    cells = []
    for preset in presets:
        if not isinstance(preset, str):
            raise _fail(path, "grid.presets", f"must hold preset names, got {preset!r}")
        for values in itertools.product(*(switch_table[n] for n in switch_names)):
            switches = tuple(zip(switch_names, values))
            for p in players:
                try:
                    read_preset(preset)
                except RulesError as error:
                    raise _fail(path, "grid.presets", str(error)) from None
                try:
                    rules = load_rules(preset, **dict(switches), players=p)
                except RulesError as error:
                    raise _fail(path, "grid.switches", str(error)) from None
                try:
                    for spec in dict.fromkeys(specs):
                        make_agent(spec, rules)
                except AgentError as error:
                    raise _fail(path, "agents.specs", str(error)) from None
                cell_mode = mode or ("head-to-head" if len(specs) == 2 else "round-robin")
                try:
                    matchups = make_matchups(specs, p, cell_mode)
                except ValueError as error:
                    raise _fail(path, "agents.mode", f"{error} (players = {p})") from None
                cells.append(Cell(len(cells), preset, switches, rules, tuple(matchups)))
    return ExperimentConfig(
        name=Path(path).stem,
        path=path,
        description=description,
        seed=seed,
        rounds=rounds,
        workers=workers,
        confidence=float(confidence),
        rating_rounds=rating_rounds,
        presets=tuple(presets),
        players=tuple(players),
        switches=tuple((n, tuple(switch_table[n])) for n in switch_names),
        agents=tuple(specs),
        mode=mode,
        cells=tuple(cells),
    )

"""Experiment configs: the TOML schema, its validation, and the grid of cells it spans.

An experiment config (``experiments/NAME.toml``)::

    description = "what the experiment asks"
    seed = 0                 # optional, default 0
    rounds = 10000           # single rounds per match-up and cell
    matches = 1000           # and/or: whole matches per match-up and cell (match = true)
    workers = 2              # optional, default: every CPU
    confidence = 0.95        # optional
    rating_rounds = 20000    # optional: rounds fed to the OpenSkill ratings per cell
    analysis = "bluff"       # optional: a post-processing step of the finished run (ANALYSES)

    [grid]
    presets = ["official", "house"]   # rule presets (required)
    players = [2, 4]                  # player counts (required)
    [grid.switches]                   # optional: every combination of these values is a variant
    caught_bluffer = ["draws-4", "takes-back"]

    [agents]
    specs = ["color-first", "rule"]   # agent specs (required, unless focal and opponents)
    mode = "round-robin"              # optional: table, head-to-head or round-robin
    # or, instead of specs: every focal agent against P - 1 copies of every opponent
    # focal = ["color-first:bluff=0.0", "color-first:bluff=0.5"]
    # opponents = ["color-first:challenge=never", "color-first:challenge=bayes"]

    [[focus]]                         # optional, repeatable: cells that get more rounds
    presets = ["official"]            # a cell matches when every key given matches
    players = [2, 4]
    switches = {caught_bluffer = "draws-4"}
    rounds = 200000                   # rounds and/or matches
    matches = 20000

    [[part]]                          # optional, repeatable: a part of the experiment; its
    grid = { players = [4] }          # keys (rounds, matches, grid, agents, focus) replace the
    agents = { specs = ["rule", "color-first"] }  # top-level ones (tables key by key)

    [[behaviour]]                     # optional, repeatable: for the analysis step, agents
    players = 2                       # whose +4 decisions it records situation by situation
    agents = ["ppo-official-2p"]      # (each against P - 1 copies of opponent; preset
    opponent = "color-first:bluff=0.5"  # default official, switches default none)
    rounds = 20000

    [quick]                           # optional: what --quick replaces (any keys above)
    rounds = 2000

A cell is one (preset, switch combination, player count) played in single rounds (``rounds``
per match-up) or as whole matches (``matches`` per match-up: ``match = true`` on top of the
preset, which keeps its ``match_target`` and ``scoring``; ``match=true`` is one of its
switches). At least one of ``rounds`` and ``matches`` is required; with both, every grid
point makes two cells, the rounds cell first. A preset (or switch) that already plays matches
(``kids``) makes one cell whose count is ``matches`` if given, else ``rounds`` (then counting
matches). A ``[[focus]]`` entry's ``rounds`` raise the rounds cells it matches, its
``matches`` the matches cells (a focus may match ``switches = {match = true}``).

A cell's *variant* (the label of tables, progress bars, titles and plots) names what differs
from its preset: ``official`` when nothing does, else ``official, caught_bluffer=takes-back,
draw_four_legal=no-playable-card`` (:func:`variant_name`; a switch set to the preset's own
value is left out). Every switch the config set, defaults included, stays in the data: the
cell's :attr:`Cell.switches_label` (the ``switches`` column of the experiment's tables), its
switches and full rules in ``config.json``.

Without ``[[part]]`` the top-level keys make the cells; with parts, each part merged over the
top-level keys makes its cells, in order (different agents at different player counts, say);
a bad key in a part is named ``part[i].key``.

Everything is checked before any
game is played: unknown keys, unknown presets, agents or parameters, impossible values (a
``table`` needing as many agents as players, a switch the rules reject) raise
:class:`ConfigError` naming the key; so is a config larger than the computer can hold (too
many cells, match-ups, rounds in all, or results for memory: :mod:`uno_rl.experiments.config_limits`),
counted from the lengths of its lists before any cell is built.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from pathlib import Path
from typing import Any

from uno_rl.agents import AgentError, make_agent
from uno_rl.core.rules import Rules, RulesError, load_rules, read_preset
from uno_rl.eval.run import MAX_MATCHES, MAX_ROUNDS
from uno_rl.eval.tournament import MODES, Matchup, cross_matchups, make_matchups
from uno_rl.eval.variant_names import switches_label, variant_name
from uno_rl.experiments.config_behaviour import behaviour_entries
from uno_rl.experiments.config_checks import ConfigError
from uno_rl.experiments.config_checks import check_keys as _check_keys
from uno_rl.experiments.config_checks import fail as _fail
from uno_rl.experiments.config_checks import integer as _int
from uno_rl.experiments.config_checks import non_empty_list as _list
from uno_rl.experiments.config_focus import focus_entries as _focus
from uno_rl.experiments.config_focus import matches_focus as _matches
from uno_rl.experiments.config_limits import check_cell_sizes, check_grid_sizes
from uno_rl.plumbing.cli import MAX_COUNT, MAX_SEED
from uno_rl.plumbing.tomlfile import read_toml

__all__ = [
    "ANALYSES",
    "DEAL_ANALYSES",
    "Cell",
    "ConfigError",
    "ExperimentConfig",
    "load_config",
    "switches_label",
    "variant_name",
]

_TOP = {
    "description", "seed", "rounds", "matches", "workers", "confidence", "rating_rounds", "grid",
    "agents", "focus", "analysis", "quick", "part", "behaviour",
}  # fmt: skip
#: What a ``[[part]]`` may set (over the top-level keys).
_PART = {"description", "rounds", "matches", "grid", "agents", "focus"}
_GRID = {"presets", "players", "switches"}
_AGENTS = {"specs", "mode", "focal", "opponents"}
#: Post-processing steps a config may name, with what each is (the runner's
#: :func:`~uno_rl.experiments.runner.write_analysis` runs them).
ANALYSES = {
    "bluff": "the bluff study (uno_rl.analysis.study)",
    "bluff-when": "when a +4 bluff pays (uno_rl.analysis.situations)",
}
#: The analyses that read each match-up's scores deal by deal (the run keeps ``deals``).
DEAL_ANALYSES = frozenset({"bluff-when"})


@dataclasses.dataclass(frozen=True)
class Cell:
    """One grid point: a rule variant at a player count, and its match-ups."""

    index: int
    preset: str
    switches: tuple[tuple[str, Any], ...]
    rules: Rules
    matchups: tuple[Matchup, ...]
    #: rounds per match-up, or matches when ``rules.match`` (see :attr:`unit`)
    rounds: int
    #: the short label (:func:`variant_name`); every switch is in :attr:`switches`
    variant: str

    @property
    def unit(self) -> str:
        """What :attr:`rounds` counts: ``rounds``, or ``matches`` under match rules."""
        return "matches" if self.rules.match else "rounds"

    @property
    def switches_label(self) -> str:
        """Every switch the config set for this cell, defaults included (:func:`switches_label`)."""
        return switches_label(self.switches)

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
    analysis: str | None = None
    matches: int | None = None
    #: the ``[[behaviour]]`` entries, checked, with their defaults filled in
    behaviour: tuple[dict, ...] = ()

    def resolved(self) -> dict[str, Any]:
        """Everything that determines the results, as plain data (logged beside them)."""
        return {
            "name": self.name,
            "description": self.description,
            "seed": self.seed,
            "rounds": self.rounds,
            "matches": self.matches,
            "confidence": self.confidence,
            "rating_rounds": self.rating_rounds,
            "agents": list(self.agents),
            "mode": self.mode,
            "analysis": self.analysis,
            "behaviour": [dict(b) for b in self.behaviour],
            "cells": [
                {
                    "index": c.index,
                    "variant": c.variant,
                    "preset": c.preset,
                    "switches": {n: v for n, v in c.switches},
                    "players": c.players,
                    "rounds": c.rounds,
                    "unit": c.unit,
                    "rules": c.rules.to_dict(),
                    "matchups": [list(m.lineup) for m in c.matchups],
                }
                for c in self.cells
            ],
        }


def load_config(path: str | os.PathLike[str], quick: bool = False) -> ExperimentConfig:
    """Read and validate an experiment config; builds every cell's rules and agents once.

    ``quick``: apply the config's ``[quick]`` table (its keys replace the top-level ones, a
    ``grid`` or ``agents`` table key by key); the run is then named ``NAME-quick``.
    """
    path = str(path)
    data = read_toml(path, "an experiment config", ConfigError)
    _check_keys(path, "", data, _TOP)
    name = Path(path).stem
    if quick:
        data = _apply_quick(path, data)
        name += "-quick"
    description = data.get("description", "")
    if not isinstance(description, str):
        raise _fail(path, "description", "must be a string")
    seed = _int(path, "seed", data.get("seed", 0), 0, MAX_SEED)
    workers = data.get("workers")
    if workers is not None:
        workers = _int(path, "workers", workers, 1, 1024)
    confidence = data.get("confidence", 0.95)
    if isinstance(confidence, bool) or not isinstance(confidence, float) or not 0 < confidence < 1:
        raise _fail(path, "confidence", f"must be a number in (0, 1), got {confidence!r}")
    rating_rounds = _int(path, "rating_rounds", data.get("rating_rounds", 20_000), 0, MAX_COUNT)
    analysis = data.get("analysis")
    if analysis is not None and analysis not in ANALYSES:
        raise _fail(path, "analysis", f"must be one of {', '.join(ANALYSES)}, got {analysis!r}")

    parts = data.get("part")
    if parts is None:
        sections = [("", data)]
    else:
        if not isinstance(parts, list) or not parts or not all(isinstance(p, dict) for p in parts):
            raise _fail(path, "part", "must be a non-empty array of tables ([[part]])")
        sections = []
        for i, part in enumerate(parts):
            _check_keys(path, f"part[{i}]", part, _PART)
            sections.append((f"part[{i}].", _merged(data, part)))
    check_grid_sizes(path, sections)  # by arithmetic, before a single cell is built
    cells: list[Cell] = []
    specs: list[str] = []
    modes = []
    for pre, section in sections:
        part_cells, part_specs, mode = _section_cells(path, pre, section, len(cells))
        cells += part_cells
        specs += part_specs
        modes.append(mode)
    check_cell_sizes(path, cells)
    grid = data.get("grid", {}) if isinstance(data.get("grid"), dict) else {}
    players = sorted({c.players for c in cells})
    return ExperimentConfig(
        name=name,
        path=path,
        description=description,
        seed=seed,
        rounds=data.get("rounds"),
        workers=workers,
        confidence=float(confidence),
        rating_rounds=rating_rounds,
        presets=tuple(dict.fromkeys(c.preset for c in cells)),
        players=tuple(players),
        switches=tuple((n, tuple(v)) for n, v in grid.get("switches", {}).items()),
        agents=tuple(dict.fromkeys(specs)),
        mode=modes[0] if len(set(modes)) == 1 else None,
        cells=tuple(cells),
        analysis=analysis,
        matches=data.get("matches"),
        behaviour=behaviour_entries(path, data.get("behaviour")),
    )


def _merged(data: dict, part: dict) -> dict:
    """``data`` with ``part``'s keys applied (tables merged one level deep, as ``[quick]``)."""
    merged = {k: v for k, v in data.items() if k not in ("part", "quick")}
    for key, value in part.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def _section_cells(
    path: str, pre: str, data: dict, first: int
) -> tuple[list[Cell], list[str], str | None]:
    """The cells of one section (the whole config, or one ``[[part]]`` merged over it), their
    agent specs and mode; ``pre`` prefixes the keys its errors name; cells count from
    ``first``."""
    if "rounds" not in data and "matches" not in data:
        raise _fail(path, f"{pre}rounds", "is required (or matches, or both)")
    rounds = data.get("rounds")
    if rounds is not None:
        rounds = _int(path, f"{pre}rounds", rounds, 1, MAX_ROUNDS)
    matches = data.get("matches")
    if matches is not None:
        matches = _int(path, f"{pre}matches", matches, 1, MAX_MATCHES)
    for required in ("grid", "agents"):
        if required not in data:
            raise _fail(path, f"{pre}{required}", "is required")
    grid = data["grid"]
    if not isinstance(grid, dict):
        raise _fail(path, f"{pre}grid", "must be a table")
    _check_keys(path, f"{pre}grid", grid, _GRID)
    for required in ("presets", "players"):
        if required not in grid:
            raise _fail(path, f"{pre}grid.{required}", "is required")
    presets = _distinct(
        path, f"{pre}grid.presets", _list(path, f"{pre}grid.presets", grid["presets"])
    )
    players = [
        _int(path, f"{pre}grid.players", p, 2, 10)
        for p in _list(path, f"{pre}grid.players", grid["players"])
    ]
    _distinct(path, f"{pre}grid.players", players)
    switch_table = grid.get("switches", {})
    if not isinstance(switch_table, dict):
        raise _fail(path, f"{pre}grid.switches", "must be a table of key = [values]")
    switch_names = list(switch_table)
    for switch in switch_names:
        key = f"{pre}grid.switches.{switch}"
        _distinct(path, key, _list(path, key, switch_table[switch]))
        if switch == "players":
            raise _fail(path, f"{pre}grid.switches.players", "use grid.players for player counts")

    specs, mode, lineups = _agents(path, data["agents"], pre)
    focus = _focus(path, data.get("focus", []), pre)
    used = [False] * len(focus)

    cells = []
    for preset in presets:
        if not isinstance(preset, str):
            raise _fail(path, f"{pre}grid.presets", f"must hold preset names, got {preset!r}")
        try:
            read_preset(preset)
        except RulesError as error:
            raise _fail(path, f"{pre}grid.presets", str(error)) from None
        for values in itertools.product(*(switch_table[n] for n in switch_names)):
            switches = tuple(zip(switch_names, values))
            for p in players:
                try:
                    rules = load_rules(preset, **dict(switches), players=p)
                except RulesError as error:
                    raise _fail(path, f"{pre}grid.switches", str(error)) from None
                base = load_rules(preset, players=p)
                for spec in dict.fromkeys(specs):
                    try:
                        make_agent(spec, rules)
                    except AgentError as error:
                        key = "agents.specs"
                        if lineups is not None:
                            key = "agents.focal" if spec in lineups[0] else "agents.opponents"
                        raise _fail(path, pre + key, str(error)) from None
                matchups = tuple(_cell_matchups(path, specs, mode, lineups, p, pre))
                for cell_switches, cell_rules, count, unit in _plays(
                    switches, rules, rounds, matches
                ):
                    hits = [
                        i
                        for i, f in enumerate(focus)
                        if unit in f and _matches(f, preset, cell_rules)
                    ]
                    for i in hits:
                        used[i] = True
                    cell_count = max([count] + [focus[i][unit] for i in hits])
                    index = first + len(cells)
                    label = variant_name(preset, cell_switches, base)
                    cells.append(
                        Cell(index, preset, cell_switches, cell_rules, matchups, cell_count, label)
                    )
    for i, entry in enumerate(focus):
        if not used[i]:
            units = " or ".join(u for u in ("rounds", "matches") if u in entry)
            raise _fail(
                path,
                f"{pre}focus[{i}]",
                f"matches no {units} cell of the grid (presets {presets}, players {players}, "
                f"switches {dict(switch_table)}); check its presets, players and switch values",
            )
    return cells, specs, mode


def _distinct(path: str, key: str, values: list) -> list:
    seen = []
    for value in values:
        if value in seen:
            raise _fail(path, key, f"names {value!r} twice")
        seen.append(value)
    return values


def _plays(switches, rules: Rules, rounds: int | None, matches: int | None):
    """(switches, rules, count, focus key) of the cells one grid point makes: single rounds
    (``rounds``) and whole matches (``matches``, ``match = true`` added); rules that already
    play matches make one cell of ``matches`` (or else ``rounds``) matches."""
    if rules.match:
        count = matches if matches is not None else rounds
        return [(switches, rules, count, "matches" if matches is not None else "rounds")]
    out = []
    if rounds is not None:
        out.append((switches, rules, rounds, "rounds"))
    if matches is not None:
        out.append((switches + (("match", True),), rules.replace(match=True), matches, "matches"))
    return out


def _apply_quick(path: str, data: dict) -> dict:
    """``data`` with its ``[quick]`` table applied (tables merged one level deep)."""
    quick = data.get("quick")
    if quick is None:
        raise _fail(path, "quick", "this config has no [quick] table: --quick needs one")
    if not isinstance(quick, dict):
        raise _fail(path, "quick", "must be a table")
    _check_keys(path, "quick", quick, _TOP - {"quick"})
    merged = {k: v for k, v in data.items() if k != "quick"}
    for key, value in quick.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def _agents(
    path: str, table: Any, pre: str = ""
) -> tuple[list[str], str | None, tuple[list, list] | None]:
    """(every spec, mode, (focal, opponents) or None) of the ``[agents]`` table."""
    if not isinstance(table, dict):
        raise _fail(path, f"{pre}agents", "must be a table")
    _check_keys(path, f"{pre}agents", table, _AGENTS)
    mode = table.get("mode")
    crossed = "focal" in table or "opponents" in table
    if crossed:
        for key in ("focal", "opponents"):
            if key not in table:
                raise _fail(path, f"{pre}agents.{key}", "is required with agents.focal/opponents")
        if "specs" in table:
            raise _fail(path, f"{pre}agents.specs", "give either specs or focal and opponents")
        if mode is not None and mode != "cross":
            raise _fail(
                path, f"{pre}agents.mode", f"must be 'cross' with focal/opponents, got {mode!r}"
            )
        focal = _specs(path, f"{pre}agents.focal", table["focal"], distinct=True)
        opponents = _specs(path, f"{pre}agents.opponents", table["opponents"], distinct=True)
        return list(dict.fromkeys(focal + opponents)), "cross", (focal, opponents)
    if "specs" not in table:
        raise _fail(path, f"{pre}agents.specs", "is required")
    specs = _specs(path, f"{pre}agents.specs", table["specs"])
    if mode is not None and mode not in MODES:
        raise _fail(path, f"{pre}agents.mode", f"must be one of {', '.join(MODES)}, got {mode!r}")
    return specs, mode, None


def _specs(path: str, key: str, value: Any, distinct: bool = False) -> list[str]:
    specs = _list(path, key, value)
    if not all(isinstance(s, str) for s in specs):
        raise _fail(path, key, "must be a list of agent spec strings")
    if distinct and len(set(specs)) != len(specs):
        raise _fail(path, key, "names an agent twice")
    return specs


def _cell_matchups(path, specs, mode, lineups, players, pre: str = "") -> list[Matchup]:
    if lineups is not None:
        focal, opponents = lineups
        return cross_matchups(focal, opponents, players)
    cell_mode = mode or ("head-to-head" if len(specs) == 2 else "round-robin")
    try:
        return make_matchups(specs, players, cell_mode)
    except ValueError as error:
        raise _fail(path, f"{pre}agents.mode", f"{error} (players = {players})") from None

"""The size bounds of an experiment config (:mod:`uno_rl.eval.limits`), checked twice:

* :func:`check_grid_sizes`, before any cell is built: the cells and match-ups each section
  makes, counted by arithmetic from the lengths of its lists (a grid of millions of cells is
  refused at once, in a few milliseconds, without making any);
* :func:`check_cell_sizes`, once the (bounded) cells are built: the rounds and matches asked
  in all, and each cell's results against the computer's memory.

A section whose lists are malformed is skipped here: the full validation names its key.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from uno_rl.core.rules import RulesError, read_preset
from uno_rl.eval import limits
from uno_rl.eval.limits import number, plural
from uno_rl.eval.run import MAX_MATCHES, MAX_ROUNDS
from uno_rl.experiments.config_checks import fail

__all__ = ["check_cell_sizes", "check_grid_sizes"]

#: Above this many presets, their files are not read to see which play matches.
_MAX_PRESETS_READ = 100
_SPLIT = "split the experiment into smaller ones"


@dataclasses.dataclass(frozen=True)
class _Section:
    """What one section (the whole config, or a ``[[part]]``) spans, counted."""

    pre: str
    presets: list
    combinations: int
    players: list
    #: cells of single rounds and of whole matches, at each player count
    round_cells: int
    match_cells: int
    #: the rounds and matches a match-up plays at least, as given (0: not given)
    rounds: int
    matches: int
    #: match-ups of one cell, per player count
    matchups: dict[int, int]
    #: how the match-ups are made: (mode, agents, focal agents)
    agents: tuple[str, int, int]

    @property
    def cells(self) -> int:
        return (self.round_cells + self.match_cells) * len(self.players)

    def games(self, match: bool) -> int:
        """The rounds (matches) its match-ups play in all, at least (``[[focus]]`` adds)."""
        if match:  # a preset that plays matches counts them with rounds, without matches
            cells, count = self.match_cells, self.matches or self.rounds
        else:
            cells, count = self.round_cells, self.rounds
        return cells * count * sum(self.matchups.values())


def check_grid_sizes(path: str, sections: Sequence[tuple[str, dict]]) -> None:
    """Raise :class:`~uno_rl.experiments.config_checks.ConfigError` when the ``sections`` (``(key
    prefix, table)``) make more than :data:`~uno_rl.eval.limits.MAX_CELLS` cells, a cell
    more than :data:`~uno_rl.eval.limits.MAX_MATCHUPS` match-ups, all cells more than
    :data:`~uno_rl.eval.limits.MAX_EXPERIMENT_MATCHUPS`, or more rounds or matches than one
    run may play; nothing is built."""
    cells = matchups = 0
    games = {False: 0, True: 0}
    for pre, data in sections:
        section = _count(pre, data)
        if section is None:
            continue
        mode, agents, focal = section.agents
        for players, count in section.matchups.items():
            if count > limits.MAX_MATCHUPS:
                try:
                    limits.check_matchup_count(agents, players, mode, focal)
                except ValueError as error:
                    key = "agents.focal" if mode == "cross" else "agents.specs"
                    raise fail(path, pre + key, f"in every cell, {error}") from None
        cells += section.cells
        if cells > limits.MAX_CELLS:
            whole = "" if cells == section.cells else f"{number(cells)} with the parts before; "
            raise fail(
                path,
                f"{pre}grid",
                f"the grid has {number(section.cells)} cells ({_factors(section)}); "
                f"{whole}at most {number(limits.MAX_CELLS)} are allowed: {_SPLIT}",
            )
        per_players = section.round_cells + section.match_cells
        matchups += sum(per_players * section.matchups[p] for p in section.players)
        if matchups > limits.MAX_EXPERIMENT_MATCHUPS:
            raise fail(
                path,
                f"{pre}agents",
                f"the experiment has {number(matchups)} match-ups over its cells (this "
                f"{'part' if pre else 'grid'}: {plural(section.cells, 'cell')}, "
                f"{_matchups_text(section)}); at most {number(limits.MAX_EXPERIMENT_MATCHUPS)} "
                f"are allowed: {_SPLIT}",
            )
        for match, unit in ((False, "rounds"), (True, "matches")):
            games[match] += section.games(match)
            subject = f"the experiment ({number(matchups)} match-ups over {plural(cells, 'cell')})"
            try:
                limits.check_total_games(
                    games[match], match, subject, f"ask fewer {unit} or {_SPLIT}"
                )
            except ValueError as error:
                message = str(error).replace(" asks ", " asks at least ", 1)
                raise fail(path, pre + unit, message) from None


def _count(pre: str, data: dict) -> _Section | None:
    """What a section spans, or None when its lists are malformed."""
    grid, agents = data.get("grid"), data.get("agents")
    if not isinstance(grid, dict) or not isinstance(agents, dict):
        return None
    presets, players = grid.get("presets"), grid.get("players")
    switches = grid.get("switches", {})
    if not (isinstance(presets, list) and isinstance(players, list) and players):
        return None
    if not isinstance(switches, dict) or not all(isinstance(v, list) for v in switches.values()):
        return None
    if not all(isinstance(p, int) for p in players):
        return None
    rounds, matches = data.get("rounds"), data.get("matches")
    if not _count_or_absent(rounds, MAX_ROUNDS) or not _count_or_absent(matches, MAX_MATCHES):
        return None
    if rounds is None and matches is None:
        return None
    rounds, matches = rounds or 0, matches or 0
    combinations = math.prod(len(values) for values in switches.values())
    round_cells = match_cells = 0
    for preset in presets:
        plays_rounds, plays_matches = _cells_per_combination(
            preset, switches, bool(rounds), bool(matches), len(presets) <= _MAX_PRESETS_READ
        )
        round_cells += round(plays_rounds * combinations)
        match_cells += round(plays_matches * combinations)
    made = _matchups(agents, players)
    if made is None:
        return None
    matchups, how = made
    return _Section(
        pre, presets, combinations, players, round_cells, match_cells, rounds,
        matches, matchups, how,
    )  # fmt: skip


def _count_or_absent(value: Any, high: int) -> bool:
    """Whether ``value`` is a valid count (an integer in [1, high]) or None (not given)."""
    if value is None:
        return True
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= high


def _cells_per_combination(
    preset: Any, switches: dict, rounds: bool, matches: bool, read: bool
) -> tuple[float, float]:
    """(rounds cells, matches cells) a preset makes per switch combination at one player
    count (fractions when the grid's ``match`` switch splits the combinations): a rule set
    that plays matches makes one matches cell, one that does not a cell of each count given.
    ``read``: read the preset to see whether it plays matches."""
    if "match" in switches:
        values = switches["match"] or [False]
        playing = sum(1 for value in values if value is True) / len(values)
    else:
        try:
            plays = read and isinstance(preset, str) and read_preset(preset).get("match") is True
            playing = float(plays)
        except RulesError:  # named by the full validation
            playing = 0.0
    return (1 - playing) * rounds, playing + (1 - playing) * matches


def _matchups(agents: dict, players: list) -> tuple[dict[int, int], tuple[str, int, int]] | None:
    """(match-ups of one cell per player count, (mode, agents, focal)) of an ``[agents]``
    table, or None when it is malformed."""
    if "focal" in agents or "opponents" in agents:
        focal, opponents = agents.get("focal"), agents.get("opponents")
        if not isinstance(focal, list) or not isinstance(opponents, list) or not focal:
            return None
        count = len(focal) * len(opponents)
        return dict.fromkeys(players, count), ("cross", count, len(focal))
    specs = agents.get("specs")
    if not isinstance(specs, list):
        return None
    mode = agents.get("mode") or ("head-to-head" if len(specs) == 2 else "round-robin")
    if not isinstance(mode, str):
        return None
    count = {p: limits.matchup_count(len(specs), p, mode) for p in players}
    return count, (mode, len(specs), 0)


def _factors(section: _Section) -> str:
    """How a section's cells multiply: presets x switch combinations x player counts."""
    factors = [
        plural(len(section.presets), "preset"),
        plural(section.combinations, "switch combination"),
        plural(len(section.players), "player count"),
    ]
    both = ", in rounds and in matches" if section.rounds and section.matches else ""
    return " x ".join(factors) + both


def _matchups_text(section: _Section) -> str:
    counts = sorted(set(section.matchups.values()))
    return " or ".join(number(c) for c in counts) + " match-ups a cell"


def check_cell_sizes(path: str, cells: Sequence[Any]) -> None:
    """Raise :class:`~uno_rl.experiments.config_checks.ConfigError` when the built ``cells`` ask
    more rounds or matches in all than one run may play, or a cell's results would not fit in
    memory (:mod:`uno_rl.eval.limits`)."""
    for match, unit in ((False, "rounds"), (True, "matches")):
        mine = [c for c in cells if c.rules.match == match]
        games = sum(len(c.matchups) * c.rounds for c in mine)
        largest = max((c.rounds for c in mine), default=0)
        subject = (
            f"the experiment ({plural(len(mine), 'cell')} of {unit}, "
            f"{number(sum(len(c.matchups) for c in mine))} match-ups, up to "
            f"{number(largest)} {unit} each)"
        )
        try:
            limits.check_total_games(games, match, subject, f"ask fewer {unit} or {_SPLIT}")
        except ValueError as error:
            raise fail(path, unit, str(error)) from None
    if not cells:
        return

    def games(cell) -> int:  # whole deals: a multiple of the player count
        return math.ceil(cell.rounds / cell.players) * cell.players

    cell = max(cells, key=lambda c: len(c.matchups) * games(c) * limits.bytes_per_game(c.players))
    how = (
        f"cell {cell.index} ({cell.variant}, {cell.players} players: "
        f"{plural(len(cell.matchups), 'match-up')} x {number(cell.rounds)} {cell.unit})"
    )
    try:
        limits.check_cell_memory(
            len(cell.matchups),
            games(cell),
            cell.players,
            cell.rules.match,
            how,
            f"ask fewer {cell.unit} a cell",
        )
    except ValueError as error:
        raise fail(path, cell.unit, str(error)) from None

"""The findings of a finished experiment run (rule variants x player counts x agents) as text.

:func:`narrative` reads the run's ``summary`` table (one row per variant, player count and
agent, over all its match-ups) and its ``pairs`` table (paired tests over the same deals) and
says, for each cell and each measure (rounds won, net points per round, matches won under
match rules), which agent leads *only where the lead is separable*: the leader's interval does
not overlap any other agent's. Otherwise it names the tied group (every agent whose interval
overlaps the leader's) or says that no agent is separable. Non-overlap of two intervals is a
conservative test of their difference whatever the correlation between the two estimates
(agents of one match-up share their deals), so a lead called here is a real one; the paired
tests of the leader against the runner-up in their common match-ups are quoted beside it.
Across cells, a leader changes with the rules or the table size only where the tied groups
of two cells do not overlap.

``uno_rl experiment`` writes it as ``narrative.md`` into every run without an ``analysis``
step (:func:`write_narrative`) and prints it after the summary.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from uno_rl.eval import formats

__all__ = ["MEASURES", "leaders", "narrative", "write_narrative"]

#: (name, column, pair-table prefix, value format) of each measure a cell is ranked by.
MEASURES: tuple[tuple[str, str, str, Callable[[object], str]], ...] = (
    ("rounds won", "win_rate", "win", formats.rate),
    ("points per round", "points", "points", formats.points),
    ("matches won", "match_win_rate", "match", formats.rate),
)
_BOUNDS = {
    "win_rate": ("win_low", "win_high"),
    "points": ("points_low", "points_high"),
    "match_win_rate": ("match_win_low", "match_win_high"),
}
_PAIR_COLUMNS = {
    "win": ("win_difference", "win_diff_low", "win_diff_high"),
    "points": ("points_difference", "points_diff_low", "points_diff_high"),
    "match": ("match_win_difference", "match_diff_low", "match_diff_high"),
}


def leaders(cell: pd.DataFrame, column: str) -> list[str]:
    """The agents of one cell (rows of the summary table) tied for the lead in ``column``:
    the top agent and every agent whose interval overlaps the top one's, best first. One
    name: a separable leader."""
    low, high = _BOUNDS[column]
    part = cell.dropna(subset=[column]).sort_values(column, ascending=False)
    if part.empty:
        return []
    top = part.iloc[0]
    return list(part.loc[part[high] >= top[low], "agent"])


def _head_to_head(pairs: pd.DataFrame | None, cell_keys, a: str, b: str, prefix: str) -> str:
    """The paired tests of ``a`` minus ``b`` in their common match-ups of one cell, as text."""
    if pairs is None or pairs.empty or f"{prefix}_p_value" not in pairs:
        return ""
    variant, players = cell_keys
    here = pairs[(pairs["variant"] == variant) & (pairs["players"] == players)]
    shown = []
    diff, low, high = _PAIR_COLUMNS[prefix]
    kind = formats.points if prefix == "points" else formats.rate_difference
    for row in here.itertuples(index=False):
        pair = (row.agent_a, row.agent_b)
        if set(pair) != {a, b}:
            continue
        sign = 1.0 if pair == (a, b) else -1.0
        lo, hi = sorted((sign * getattr(row, low), sign * getattr(row, high)))
        shown.append(
            f"{row.matchup}: {formats.with_interval(sign * getattr(row, diff), lo, hi, kind)}, "
            f"{formats.p_value(getattr(row, f'{prefix}_p_value'), getattr(row, f'{prefix}_log10_p', None))}"
        )
    return f"; {a} minus {b} over the same deals: " + "; ".join(shown) if shown else ""


def _cell_line(cell: pd.DataFrame, keys, pairs, measure) -> tuple[str, list[str]] | None:
    name, column, prefix, kind = measure
    if column not in cell or cell[column].isna().all():
        return None
    low, high = _BOUNDS[column]
    group = leaders(cell, column)
    ranked = cell.dropna(subset=[column]).sort_values(column, ascending=False)

    def shown(agent: str) -> str:
        row = ranked[ranked["agent"] == agent].iloc[0]
        return f"{agent} {formats.with_interval(row[column], row[low], row[high], kind)}"

    if len(ranked) == 1:
        return f"  - {name}: only {shown(group[0])}", group
    if len(group) == 1:
        second = ranked.iloc[1]["agent"]
        text = (
            f"  - {name}: **{group[0]}** leads, {shown(group[0])}, ahead of "
            f"{shown(second)}{_head_to_head(pairs, keys, group[0], second, prefix)}"
        )
    elif len(group) == len(ranked):
        text = f"  - {name}: not separable (every interval overlaps the top one): " + ", ".join(
            shown(a) for a in group
        )
    else:
        text = (
            f"  - {name}: tied for the lead, not separable: "
            + ", ".join(shown(a) for a in group)
            + f"; ahead of the rest ({', '.join(a for a in ranked['agent'] if a not in group)})"
        )
    return text, group


def narrative(summary: pd.DataFrame, pairs: pd.DataFrame | None = None) -> list[str]:
    """Markdown lines (see the module docstring) from a run's ``summary`` table (and its
    ``pairs`` table, for the paired tests quoted beside a lead)."""
    lines: list[str] = []
    groups: dict[str, dict[tuple, list[str]]] = {m[0]: {} for m in MEASURES}
    for keys, cell in summary.groupby(["variant", "players"], sort=False):
        variant, players = keys
        lines.append(f"- **{variant}, {players} players** (fair share {formats.rate(1 / players)})")
        for measure in MEASURES:
            found = _cell_line(cell, keys, pairs, measure)
            if found is not None:
                lines.append(found[0])
                groups[measure[0]][keys] = found[1]
    for name, by_cell in groups.items():
        lines.extend(_changes(name, by_cell))
    return lines


def _changes(name: str, by_cell: dict[tuple, list[str]]) -> list[str]:
    """Where the lead in one measure changes with the rules or the table size: two cells
    whose tied groups share no agent."""
    if not by_cell:
        return []
    lines = []
    single = [g[0] for g in by_cell.values() if len(g) == 1]
    if single:
        counts = pd.Series(single).value_counts()
        lines.append(
            f"- {name}: a separable leader in {len(single)} of {len(by_cell)} cells; "
            + ", ".join(f"{agent} in {n}" for agent, n in counts.items())
        )
    else:
        lines.append(f"- {name}: no cell has a separable leader")
    for position, what in ((1, "player count"), (0, "variant")):
        other = 1 - position
        fixed = dict.fromkeys(k[other] for k in by_cell)
        for value in fixed:
            cells = {k[position]: g for k, g in by_cell.items() if k[other] == value}
            sets = list(map(set, cells.values()))
            if any(not (a & b) for i, a in enumerate(sets) for b in sets[i + 1 :]):
                where = f"{value} players" if other == 1 else f"under {value}"
                unit = "p" if position == 1 else ""
                shown = "; ".join(f"{k}{unit}: {', '.join(g)}" for k, g in cells.items())
                lines.append(f"- {name}, {where}: the lead changes with the {what}: {shown}")
    return lines


def write_narrative(folder: str | Path) -> str:
    """Write ``narrative.md`` from the run folder's ``summary`` and ``pairs`` tables; returns
    its text."""
    folder = Path(folder)
    summary = pd.read_parquet(folder / "summary.parquet")
    pairs_path = folder / "pairs.parquet"
    pairs = pd.read_parquet(pairs_path) if pairs_path.exists() else None
    text = "\n".join(narrative(summary, pairs)) + "\n"
    (folder / "narrative.md").write_text(text)
    return text

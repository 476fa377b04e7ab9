"""A scorecard's rows and texts: the tidy table, the Markdown, the JSON, the exploitability.

The rows (:func:`scorecard_rows`, :data:`ROW_COLUMNS`) come from the per-agent tables of
the parts (:func:`uno_rl.eval.scorecard_protocol.play_scorecard`): one row per player count,
opponent and measure, the agent's value with its interval, the fair share and the count:

==============  ==============================================================================
column          meaning
==============  ==============================================================================
agent           the agent's spec, as given
players         seats at the table (2, or 4: the agent and three copies of the opponent)
opponent        the opponent's name
measure         ``rounds_won``, ``points_per_round`` (net, zero-sum; single rounds) or
                ``matches_won`` (matches to 500)
value           the agent's figure (float64): a share of rounds or matches, or points a round
low, high       its interval at ``confidence`` (Wilson for the shares, the delta method for
                points: :mod:`uno_rl.eval.summary`)
fair            what a player as good as the others gets: 1/players of rounds and matches, 0
                points
count           rounds or matches the agent played (int64)
unit            ``rounds`` or ``matches``
confidence      0.99
seed            the seed of the deals (:data:`~uno_rl.eval.scorecard_protocol.SEEDS`)
variant         the evaluator's variant label: ``official`` or ``official, match=true``
quick           a ``--quick`` scorecard's row (too small for findings)
==============  ==============================================================================

The exploitability (:func:`exploitability`) is looked up, not measured: the row of
``uno_rl exploit``'s results table (by default the one shipped with uno_rl, a copy of the
docs' ``docs/results/tables/exploitability.csv`` that :mod:`uno_rl.docsite.exploit_tables`
writes) for the agent's spec at the player count, its net
points a round. Of several runs the one of the largest budget (training decisions) is taken,
and of those the highest bound. The figure is a lower bound: what one best response found.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from uno_rl.plumbing.resources import data_dir

from . import formats
from .limits import plural
from .scorecard_protocol import CONFIDENCE, PRESET, SEEDS, Part, Plan, opponents

__all__ = [
    "EXPLOITABILITY_TABLE",
    "MEASURES",
    "ROW_COLUMNS",
    "exploitability",
    "quick_note",
    "size_note",
    "read_exploitability",
    "shipped_exploitability",
    "scorecard_json",
    "scorecard_markdown",
    "scorecard_rows",
    "opponent_rows",
    "rows_frame",
]

#: Columns of the rows (``rows.csv``).
ROW_COLUMNS = [
    "agent", "players", "opponent", "measure", "value", "low", "high", "fair", "count", "unit",
    "confidence", "seed", "variant", "quick",
]  # fmt: skip
#: measure -> (unit, the per-agent table's value column, its interval's prefix, is a share).
MEASURES = {
    "rounds_won": ("rounds", "win_rate", "win", True),
    "points_per_round": ("rounds", "points", "points", False),
    "matches_won": ("matches", "match_win_rate", "match_win", True),
}
#: The exploitability table shipped with uno_rl (``agents/exploitability.csv``: ``uno_rl
#: exploit``'s results for the shipped agents, gathered by :mod:`uno_rl.docsite.exploit_tables`).
EXPLOITABILITY_TABLE = "agents/exploitability.csv"


def shipped_exploitability() -> Path:
    """Where the installed package keeps :data:`EXPLOITABILITY_TABLE`."""
    return data_dir("agents") / Path(EXPLOITABILITY_TABLE).name


#: What the scorecard says where no best response was trained against the agent.
NOT_MEASURED = "not measured"


def scorecard_rows(plan: Plan, tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The :data:`ROW_COLUMNS` rows of the agent against each opponent it played, from the
    parts' per-agent ``tables`` (by part name), by player count, opponent and measure."""
    rows = [
        row
        for part in plan.parts()
        for opponent in part.opponents
        for row in opponent_rows(plan, part, opponent, tables[part.name])
    ]
    return rows_frame(rows)


def opponent_rows(plan: Plan, part: Part, opponent: str, table: pd.DataFrame) -> list[dict]:
    """The rows (dicts of :data:`ROW_COLUMNS`) of the agent against ``opponent`` in ``part``,
    from a per-agent ``table`` holding that match-up: one per measure of the part's unit."""
    matchup = part.matchups()[part.opponents.index(opponent)]
    found = table[(table["matchup"] == matchup.label) & (table["agent"] == plan.agent)]
    if len(found) != 1:
        raise ValueError(f"part {part.name}: no row of {plan.agent} vs {opponent}")
    r = found.iloc[0]
    rows = []
    for measure, (unit, value, interval, share) in MEASURES.items():
        if unit != part.unit:
            continue
        count = r["matches"] if unit == "matches" else r["rounds"]
        rows.append({
            "agent": plan.agent, "players": part.players, "opponent": opponent,
            "measure": measure, "value": float(r[value]),
            "low": float(r[f"{interval}_low"]), "high": float(r[f"{interval}_high"]),
            "fair": 1 / part.players if share else 0.0, "count": int(count),
            "unit": unit, "confidence": CONFIDENCE, "seed": part.seed,
            "variant": r["variant"], "quick": plan.quick,
        })  # fmt: skip
    return rows


def rows_frame(rows: list[dict]) -> pd.DataFrame:
    """The rows as a :data:`ROW_COLUMNS` frame with integer players, counts and seeds."""
    out = pd.DataFrame(rows, columns=ROW_COLUMNS)
    return out.astype({"players": np.int64, "count": np.int64, "seed": np.int64})


def read_exploitability(path: str | Path) -> pd.DataFrame | None:
    """The exploitability table at ``path``; None when there is no file; ``ValueError`` (one
    line naming the file) when it cannot be read or lacks the columns."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        table = pd.read_csv(path)
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"--exploitability {path}: cannot be read ({error})") from None
    needed = {"target", "measure", "value", "low", "high", "decisions", "players", "run"}
    missing = sorted(needed - set(table.columns))
    if missing:
        raise ValueError(
            f"--exploitability {path}: not a table of uno_rl exploit results (no column "
            f"{', '.join(missing)}; python -m uno_rl.docsite.exploit_tables writes one)"
        )
    return table


def exploitability(
    table: pd.DataFrame | None, agent: str, players: int, source: str = EXPLOITABILITY_TABLE
) -> dict:
    """The exploitability figure of ``agent`` at ``players`` from ``table``
    (:func:`read_exploitability` of ``source``): ``{"status": "measured", "at_least": bound,
    "value", "low", "high", "decisions", "run", ...}`` (``at_least``: ``max(0, low)`` of the
    best response's net points a round; ``count``, ``confidence`` and ``starts_from`` where the
    table has them), or ``{"status": "not measured", "reason": ...}``."""
    if table is None:
        return {"status": NOT_MEASURED, "reason": f"no exploitability table at {source}"}
    rows = table[
        (table["target"] == agent)
        & (table["players"] == players)
        & (table["measure"] == "points_per_round")
    ]
    if rows.empty:
        return {
            "status": NOT_MEASURED,
            "reason": f"no uno_rl exploit run against it at {players} players in {source}",
        }
    best = rows.sort_values(["decisions", "low"], ascending=False).iloc[0]
    figure = {
        "status": "measured",
        "at_least": max(0.0, float(best["low"])),
        "value": float(best["value"]),
        "low": float(best["low"]),
        "high": float(best["high"]),
        "decisions": int(best["decisions"]),
        "run": str(best["run"]),
    }
    for key in ("count", "confidence", "starts_from"):
        if key in best and not pd.isna(best[key]):
            value = best[key]
            figure[key] = value.item() if hasattr(value, "item") else value
    return figure


def quick_note(plan: Plan) -> str:
    """``Quick run (...): too small for findings; ...`` for a ``--quick`` plan, else ``""``."""
    if not plan.quick:
        return ""
    return (
        f"Quick run ({plural(plan.sizes.rounds, 'round')} and "
        f"{plural(plan.sizes.matches, 'match', 'matches')} an opponent): too small for "
        "findings; run without --quick for the scorecard."
    )


def size_note(plan: Plan) -> str:
    """What a scorecard below the full sizes must say first: :func:`quick_note` for a quick
    run, the search sizes' note for ``--search``, else ``""``."""
    if plan.size != "search":
        return quick_note(plan)
    return (
        f"Search sizes ({plural(plan.sizes.rounds, 'round')} and "
        f"{plural(plan.sizes.matches, 'match', 'matches')} an opponent, for an agent that "
        "searches at every decision): the protocol's seeds and opponents, wider intervals "
        "than the full sizes'."
    )


def scorecard_json(
    plan: Plan, rows: pd.DataFrame, command: str, figures: dict[int, dict], source: str
) -> str:
    """The scorecard as JSON text: :func:`size_note` as ``note`` first (a quick run, the
    search sizes), the size's name (``size``), the uno_rl version, the
    command line, the protocol (preset, seeds, sizes, confidence, opponents), per player
    count whether it was played (and why not), the rows (:data:`ROW_COLUMNS`) and the
    exploitability ``figures`` by player count (:func:`exploitability`, read from
    ``source``)."""
    settings = plan.settings()
    note = size_note(plan)
    data = {"note": note} if note else {}  # a quick run or the search sizes say so first
    data.update({
        "size": plan.size,
        "uno_rl": settings.pop("uno_rl"),
        "command": command,
        "agent": plan.agent,
        "quick": plan.quick,
        "protocol": settings,
        "players": {str(p): _played(plan, p) for p in sorted({*plan.players, *plan.skipped})},
        "rows": json.loads(rows.to_json(orient="records")),
        "exploitability": {"source": source, **{str(p): f for p, f in figures.items()}},
    })  # fmt: skip
    return json.dumps(data, indent=2) + "\n"


def _played(plan: Plan, players: int) -> dict:
    """``{"status": "measured"}``, or ``"not applicable"`` with the reason."""
    if players in plan.players:
        return {"status": "measured"}
    return {"status": "not applicable", "reason": plan.skipped.get(players, "")}


def _cell(rows: pd.DataFrame, opponent: str, measure: str) -> str:
    found = rows[(rows["opponent"] == opponent) & (rows["measure"] == measure)]
    if found.empty:
        return "-"
    r = found.iloc[0]
    kind = formats.rate if MEASURES[measure][3] else formats.points
    return formats.with_interval(r["value"], r["low"], r["high"], kind)


def _exploitability_line(figure: dict, players: int) -> str:
    if figure.get("status") != "measured":
        reason = figure.get("reason", "no uno_rl exploit run against it")
        return f"Exploitability at {players} players: {NOT_MEASURED} ({reason})."
    start = figure.get("starts_from")
    started = f", started from {start}" if isinstance(start, str) and start else ""
    gain = formats.with_interval(figure["value"], figure["low"], figure["high"], formats.points)
    return (
        f"Exploitability at {players} players: **at least {figure['at_least']:.2f} net points "
        f"a round**, a lower bound: the best response `{figure['run']}` "
        f"({figure['decisions'] / 1e6:.0f}M decisions{started}) won {gain} points a round "
        "against it."
    )


def scorecard_markdown(
    plan: Plan, rows: pd.DataFrame, command: str, figures: dict[int, dict]
) -> str:
    """The scorecard as Markdown: what was played and how to repeat it, then per player
    count a table of the opponents (rounds won, net points a round, matches won, each
    ``value [low, high]``) and the exploitability line."""
    sizes = plan.sizes
    pct = f"{CONFIDENCE:.0%}"
    lines = [f"# Scorecard: `{plan.agent}`", ""]
    note = size_note(plan)
    if note:
        lines += [f"**{note}**", ""]
    lines += [
        f"uno_rl {plan.settings()['uno_rl']}, the scorecard protocol: rules `{PRESET}`, "
        f"{plural(sizes.rounds, 'single round')} (deals of seed {SEEDS['rounds']}) and "
        f"{plural(sizes.matches, 'match', 'matches')} to 500 (seed {SEEDS['matches']}) against "
        "each opponent, "
        f"duplicate deals (every deal replayed in every seating), {pct} intervals.",
        "",
        "```sh",
        command,
        "```",
        "",
    ]
    for players in sorted({*plan.players, *plan.skipped}):
        seats = "one opponent" if players == 2 else f"{players - 1} copies of the opponent"
        lines += [f"## {players} players: the agent against {seats}", ""]
        if players not in plan.players:
            lines += [f"Not applicable: {plan.skipped[players]}.", ""]
            continue
        fair = formats.rate(1 / players)
        lines += [
            f"Fair share: {fair} of rounds and matches, 0 points a round.",
            "",
            "| opponent | rounds won | net points a round | matches won |",
            "|---|---|---|---|",
        ]
        for opponent in opponents(players):
            if opponent == plan.agent:
                lines.append(f"| `{opponent}` (itself) | not played: fair by symmetry | | |")
                continue
            cells = [_cell(rows[rows["players"] == players], opponent, m) for m in MEASURES]
            lines.append(f"| `{opponent}` | {cells[0]} | {cells[1]} | {cells[2]} |")
        lines += ["", _exploitability_line(figures.get(players, {}), players), ""]
    return "\n".join(lines)

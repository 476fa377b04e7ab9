"""The one-page advice of the bluff study by situation, written from its tables.

:func:`rule_of_thumb` turns :func:`uno_rl.analysis.situations.best_answers` into Markdown: per
side, each situation with how often it pays or costs over the study's cells and its gain in
the headline cells, then one line per cell. Every figure comes from the table.
"""

from __future__ import annotations

import pandas as pd

from uno_rl.eval import formats as fmt

from .quick import interval_level

__all__ = ["rule_of_thumb"]


def rule_of_thumb(answers: pd.DataFrame, confidence: float = 0.95, note: str = "") -> list[str]:
    """Markdown lines of advice for human players, computed from :func:`best_answers`.

    First the page: per side, each situation with the number of cells (rule variant x table
    size x unit) where it pays, costs or is unclear against the field, sorted by the share of
    cells where it pays minus the share where it costs (then by the cells where it is best), each with its gain in the headline cells (the
    official rules' rounds cells, else the first cell); then one line per cell with its best
    answers and what pays there. ``confidence``: the level of the intervals; ``note``: a
    quick run's warning (:func:`uno_rl.analysis.quick.quick_note`), the first line."""
    lines = ([note, ""] if note else []) + ["# The +4 bluff: a rule of thumb", ""]
    if not len(answers):
        return lines + ["No situation was measured."]
    keys = ["variant", "players", "unit"]
    level = interval_level(confidence)
    cells = answers.drop_duplicates(keys)[keys]
    lines.append(
        f"Computed from the bluff-when study over {len(cells)} cells (rule variant, table size, "
        "rounds or matches): each policy against a field of heuristic players, in net points "
        "per round (matches won per match in match cells), paired with never doing it over the "
        f"same deals. *Pays*: the {level} of the gain lies above 0; *costs*: below. "
        f"Figures in brackets are {level}s."
    )
    headline = answers[(answers["variant"] == "official") & (answers["unit"] == "rounds")]
    if not len(headline):
        headline = answers.merge(cells.head(1), on=keys)
    for side, title in (("bluff", "Bluffing a +4"), ("challenge", "Challenging a +4")):
        part = answers[answers["side"] == side]
        if not len(part):
            continue
        lines += ["", f"## {title}"]
        tally = part.groupby("policy", sort=False).agg(
            cells=("verdict", "size"),
            pays=("verdict", lambda v: int((v == "pays").sum())),
            costs=("verdict", lambda v: int((v == "costs").sum())),
            best=("best", "sum"),
        )
        tally["score"] = (tally["pays"] - tally["costs"]) / tally["cells"]
        tally = tally.sort_values(["score", "best"], ascending=False, kind="stable")
        for policy, row in tally.iterrows():
            head = _advice(row["pays"], row["costs"], row["cells"])
            shown = headline[(headline["side"] == side) & (headline["policy"] == policy)]
            if not len(shown):  # a match-only policy: its first cell
                mine = part[part["policy"] == policy]
                shown = mine[mine["variant"] == mine["variant"].iloc[0]]
            figures = ", ".join(f"{int(r.players)} players {_shown(r)}" for r in
                                shown.itertuples())  # fmt: skip
            where = shown["variant"].iloc[0]
            lines.append(
                f"- {head} {verb(side)} {_situation(policy)}: pays in {int(row['pays'])}, costs "
                f"in {int(row['costs'])} of {int(row['cells'])} cells; best in "
                f"{int(row['best'])} ({where}: "
                f"{figures})"
            )
    lines += ["", "## Cell by cell"]
    for (variant, players, unit), cell in answers.groupby(keys, sort=False):
        parts = []
        for side in ("bluff", "challenge"):
            here = cell[cell["side"] == side]
            if not len(here):
                continue
            pays = [_situation(p) for p in here[here["verdict"] == "pays"]["policy"]]
            if here["best"].any():
                best = here[here["best"]].iloc[0]
                head = f"{side}: best `{best['policy']}` ({_shown(best)})"
            else:  # too few deals for an interval
                head = f"{side}: no interval"
            parts.append(f"{head}; pays " + (", ".join(pays) if pays else "nowhere"))
        lines.append(f"- **{variant}, {players} players** ({unit}): " + "; ".join(parts))
    return lines


def _advice(pays: int, costs: int, cells: int) -> str:
    """The head of a policy's line: how often it pays or costs, in words."""
    if pays > cells / 2:
        return "**Do**"
    if costs > cells / 2:
        return "**Don't**"
    if pays and not costs:
        return "**Often worth it:**"
    if costs and not pays:
        return "**Rather not:**"
    if not pays and not costs:
        return "No clear effect:"
    return "Depends on the rules and table:"


def verb(side: str) -> str:
    """``bluff`` or ``challenge``: the verb of a side in the rule of thumb."""
    return "bluff" if side == "bluff" else "challenge"


def _situation(policy: str) -> str:
    """``bluff if next<=2`` -> ``when next<=2``; ``bluff always`` -> ``at every chance``."""
    for head in ("bluff if ", "challenge if "):
        if policy.startswith(head):
            return "when " + policy[len(head) :]
    if policy in ("bluff always", "challenge always"):
        return "at every chance"
    return f"as `{policy}`"


def _shown(row) -> str:
    """A row's gain with its interval, in its measure's unit."""
    get = row.get if isinstance(row, pd.Series) else lambda k: getattr(row, k)
    prefix = get("measure")
    value, low, high = get(prefix), get(f"{prefix}_low"), get(f"{prefix}_high")
    if prefix == "match_gain":
        return fmt.with_interval(value, low, high, fmt.rate_difference) + " matches won"
    return fmt.with_interval(value, low, high, fmt.points) + " points per round"

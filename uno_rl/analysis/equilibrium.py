"""Best answers and equilibrium of the +4 bluff study's game: the bluffer picks a bluff
probability, the challengers a challenge policy, and the payoff is the bluffer's win rate in
each cell (:func:`uno_rl.analysis.study.study_table`). :func:`best_responses` finds each side's
best answer with the answers statistically tied with it, :func:`matrix_equilibrium` solves the
zero-sum matrix game exactly (a linear program) and :func:`equilibrium_table` lays the mixes out
per cell.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["best_responses", "equilibrium_table", "mark_equilibrium_region", "matrix_equilibrium"]


def best_responses(table: pd.DataFrame) -> pd.DataFrame:
    """Each side's best answer in every cell.

    The bluffer answers a challenge policy with the bluff probability that maximises its win
    rate; the challengers answer a bluff probability with the policy that minimises it. Answers
    whose interval overlaps the best one's are listed in ``tied``. One row per ``variant``,
    ``players``, ``responder`` (``bluffer`` or ``challenger``) and ``against`` (the other
    side's strategy), with ``best``, ``best_win_rate``, ``tied`` (comma-separated) and
    ``gain`` (the bluffer's win rate at the best answer minus at the worst).
    """
    rows = []
    for (variant, players), cell in table.groupby(["variant", "players"], sort=False):
        for policy, column in cell.groupby("challenge", sort=False):
            best = column.loc[column["win_rate"].idxmax()]
            tied = column[column["win_high"] >= best["win_low"]]["bluff"]
            rows.append({
                "variant": variant, "players": players, "responder": "bluffer",
                "against": policy, "best": f"{best['bluff']:g}",
                "best_win_rate": best["win_rate"], "tied": ",".join(f"{b:g}" for b in tied),
                "spread": best["win_rate"] - column["win_rate"].min(),
            })  # fmt: skip
        for bluff, row in cell.groupby("bluff", sort=True):
            best = row.loc[row["win_rate"].idxmin()]
            tied = row[row["win_low"] <= best["win_high"]]["challenge"]
            rows.append({
                "variant": variant, "players": players, "responder": "challenger",
                "against": f"{bluff:g}", "best": best["challenge"],
                "best_win_rate": best["win_rate"], "tied": ",".join(tied),
                "spread": row["win_rate"].max() - best["win_rate"],
            })  # fmt: skip
    return pd.DataFrame(rows)


def mark_equilibrium_region(table: pd.DataFrame, best: pd.DataFrame) -> pd.DataFrame:
    """``table`` with ``equilibrium_like``: both strategies are (tied) best answers to each
    other."""
    out = table.copy()
    index = best.set_index(["variant", "players", "responder", "against"])["tied"]

    def mutual(row) -> bool:
        bluffs = index[(row["variant"], row["players"], "bluffer", row["challenge"])]
        policies = index[(row["variant"], row["players"], "challenger", f"{row['bluff']:g}")]
        return f"{row['bluff']:g}" in bluffs.split(",") and row["challenge"] in policies.split(",")

    out["equilibrium_like"] = out.apply(mutual, axis=1)
    return out


def matrix_equilibrium(payoff) -> tuple[np.ndarray, np.ndarray, float]:
    """An exact mixed equilibrium of the zero-sum game ``payoff`` ((R, C) float: the row
    player's payoff, here the bluffer's win rate, which the rows maximise and the columns
    minimise): ``((R,) row mix, (C,) column mix, game value)``.

    The game is not symmetric (the two sides choose among different strategies), so each
    side's mix is the linear program of its guarantee, solved by
    :func:`scipy.optimize.linprog` (HiGHS): the rows maximise ``v`` subject to
    ``x @ payoff >= v`` for every column, the columns minimise ``w`` subject to
    ``payoff @ y <= w`` for every row, each mix summing to 1. Both values are the game value
    (minimax theorem). Where the equilibrium is not unique, one of them (a vertex) is
    returned.
    """
    from scipy.optimize import linprog

    payoff = np.asarray(payoff, np.float64)
    if payoff.ndim != 2 or payoff.size == 0 or not np.isfinite(payoff).all():
        raise ValueError(
            f"matrix_equilibrium needs a non-empty finite 2-D payoff matrix, got shape "
            f"{payoff.shape}{'' if np.isfinite(payoff).all() else ' with nan or inf'}"
        )

    def guarantee(matrix: np.ndarray) -> tuple[np.ndarray, float]:
        """The mix over the rows of ``matrix`` maximising its worst column, and that worst."""
        rows, cols = matrix.shape
        cost = np.r_[np.zeros(rows), -1.0]  # maximise v: minimise -v
        a_ub = np.c_[-matrix.T, np.ones(cols)]  # v - x @ matrix[:, j] <= 0
        a_eq = np.r_[np.ones(rows), 0.0][None, :]
        bounds = [(0.0, None)] * rows + [(None, None)]
        found = linprog(cost, a_ub, np.zeros(cols), a_eq, [1.0], bounds, method="highs")
        if not found.success:  # a bounded feasible LP: only a solver failure lands here
            raise RuntimeError(f"linprog failed on the equilibrium: {found.message}")
        mix = np.clip(found.x[:rows], 0.0, None)
        return mix / mix.sum(), float(found.x[-1])

    row_mix, value = guarantee(payoff)
    col_mix, _ = guarantee(-payoff.T)  # the columns maximise minus the payoff
    return row_mix, col_mix, value


def equilibrium_table(table: pd.DataFrame) -> pd.DataFrame:
    """One row per cell and strategy with its weight in the mixed equilibrium of the
    win-rate matrix: ``variant``, ``players``, ``side``, ``strategy``, ``weight``, ``value``
    (the bluffer's win rate at the equilibrium)."""
    rows = []
    for (variant, players), cell in table.groupby(["variant", "players"], sort=False):
        matrix = cell.pivot(index="bluff", columns="challenge", values="win_rate")
        row_mix, col_mix, value = matrix_equilibrium(matrix.to_numpy())
        for bluff, weight in zip(matrix.index, row_mix):
            rows.append((variant, players, "bluffer", f"{bluff:g}", weight, value))
        for policy, weight in zip(matrix.columns, col_mix):
            rows.append((variant, players, "challenger", policy, weight, value))
    return pd.DataFrame(rows, columns=["variant", "players", "side", "strategy", "weight", "value"])

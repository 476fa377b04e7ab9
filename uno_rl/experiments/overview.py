"""The ``summary`` table of an experiment run and its printed form.

:func:`summarize` pools each agent's rows of the ``agents`` table (one per variant, player
count, match-up and agent) over its match-ups: rounds won, net points per round and, where the
rules are matches, matches won and the final score, each with an interval combined from the
match-ups'. :func:`format_summary` prints a ``summary`` or ``agents`` table one line per row,
every figure with its interval (:mod:`uno_rl.eval.formats`). ``uno_rl experiment`` writes the
first into every run folder and prints the second (:mod:`uno_rl.programs.experiment`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from uno_rl.eval import formats
from uno_rl.eval.stats import wilson_interval, z_value
from uno_rl.eval.summary import MATCH_COLUMNS

__all__ = ["SUMMARY_COLUMNS", "format_summary", "summarize"]


def summarize(agents: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Each agent per variant and player count, over all its match-ups (the ``agents`` table).

    Columns: ``variant``, ``players``, ``agent``; ``rounds``, ``wins``, ``truncated`` (sums)
    and rounds won per round ``win_rate`` with its interval ``win_low``, ``win_high`` (Wilson;
    in match cells the match-ups' intervals, taken over matches, combined as for the points);
    net points per round ``points`` (``points_low``, ``points_high``); under match rules
    ``matches``, ``match_wins``, ``match_win_rate`` (``match_win_low``, ``match_win_high``:
    Wilson) and ``final_score`` (``final_score_low``, ``final_score_high``) when any cell
    played matches (missing in the single-round rows; as in :mod:`uno_rl.eval.summary`). Means are weighted by rounds (by matches for
    the final score); their intervals combine the match-ups' intervals as independent
    estimates (different games): ``se = sqrt(sum (w_i se_i)^2)`` with ``w_i`` the weights.
    """
    keys = ["variant", "players", "agent"]
    z = z_value(confidence)
    frame = agents.assign(
        _points=agents["points"] * agents["rounds"],
        _points_var=((agents["points_high"] - agents["points_low"]) / (2 * z) * agents["rounds"])
        ** 2,
        _win_var=((agents["win_high"] - agents["win_low"]) / (2 * z) * agents["rounds"]) ** 2,
    )
    groups = frame.groupby(keys, sort=False)
    columns = ["rounds", "wins", "truncated", "_points", "_points_var", "_win_var"]
    sums = groups[columns].sum().reset_index()
    sums["win_rate"] = sums["wins"] / sums["rounds"]
    sums["win_low"], sums["win_high"] = wilson_interval(sums["wins"], sums["rounds"], confidence)
    if "matches" in agents:
        # Rounds inside a match are not independent: combine the match-ups' intervals (taken
        # over matches) as for the points, instead of Wilson over all the rounds.
        in_matches = agents["matches"].notna().groupby([agents[k] for k in keys], sort=False)
        in_matches = in_matches.any().reset_index(drop=True).to_numpy()
        half = z * np.sqrt(sums["_win_var"]) / sums["rounds"]
        low = (sums["win_rate"] - half).clip(lower=0.0)
        high = (sums["win_rate"] + half).clip(upper=1.0)
        sums.loc[in_matches, "win_low"] = low[in_matches]
        sums.loc[in_matches, "win_high"] = high[in_matches]
    sums["points"] = sums["_points"] / sums["rounds"]
    half = z * np.sqrt(sums["_points_var"]) / sums["rounds"]
    sums["points_low"], sums["points_high"] = sums["points"] - half, sums["points"] + half
    if "matches" not in agents:  # no cell played matches
        return sums[[c for c in SUMMARY_COLUMNS if c not in MATCH_COLUMNS]]
    played = agents["matches"].astype("float64")
    frame = agents.assign(
        _score=agents["final_score"] * played,
        _score_var=((agents["final_score_high"] - agents["final_score_low"]) / (2 * z) * played)
        ** 2,
    )
    matches = frame.groupby(keys, sort=False)[["matches", "match_wins", "_score", "_score_var"]]
    sums = sums.join(matches.sum(min_count=1).reset_index(drop=True))
    n = sums["matches"].astype("float64")
    sums["match_win_rate"] = sums["match_wins"].astype("float64") / n
    sums["match_win_low"], sums["match_win_high"] = wilson_interval(
        sums["match_wins"].astype("float64"), n.fillna(0), confidence
    )
    sums["final_score"] = sums["_score"] / n
    half = z * np.sqrt(sums["_score_var"]) / n
    sums["final_score_low"] = sums["final_score"] - half
    sums["final_score_high"] = sums["final_score"] + half
    for name in ("matches", "match_wins"):
        sums[name] = sums[name].astype("Int64")
    return sums[SUMMARY_COLUMNS]


SUMMARY_COLUMNS = [
    "variant", "players", "agent", "rounds", "wins", "truncated", "win_rate", "win_low",
    "win_high", "points", "points_low", "points_high", "matches", "match_wins",
    "match_win_rate", "match_win_low", "match_win_high", "final_score", "final_score_low",
    "final_score_high",
]  # fmt: skip


def _cells(rate, low, high, kind) -> list[str]:
    return [formats.with_interval(r, lo, hi, kind) for r, lo, hi in zip(rate, low, high)]


def format_summary(summary: pd.DataFrame, confidence: float = 0.95) -> str:
    """One line per variant, player count (match-up, for an ``agents`` table) and agent:
    "rounds won" (%), "points/round" (net) and, where the rules are matches, "matches won"
    (%) and "final score", each with its interval (``63.9% [63.4%, 64.4%]``, ``+1.23 [+1.10,
    +1.36]``: :mod:`uno_rl.eval.formats`)."""
    keys = [k for k in ("variant", "players", "matchup", "agent") if k in summary]
    shown = summary[keys].copy()
    shown["rounds"] = summary["rounds"].map("{:,}".format)
    shown["rounds won"] = _cells(
        summary["win_rate"], summary["win_low"], summary["win_high"], formats.rate
    )
    shown["points/round"] = _cells(
        summary["points"], summary["points_low"], summary["points_high"], formats.points
    )
    if "matches" in summary and summary["matches"].notna().any():
        shown["matches"] = ["-" if pd.isna(m) else f"{int(m):,}" for m in summary["matches"]]
        shown["matches won"] = _cells(
            summary["match_win_rate"],
            summary["match_win_low"],
            summary["match_win_high"],
            formats.rate,
        )
        shown["final score"] = _cells(
            summary["final_score"],
            summary["final_score_low"],
            summary["final_score_high"],
            lambda v: f"{float(v):.1f}",
        )
    pct = f"{round(confidence * 100)}%"
    return f"(intervals: {pct})\n" + shown.to_string(index=False)

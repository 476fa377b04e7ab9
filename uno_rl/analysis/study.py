"""The +4 bluff study: tables, best responses, heatmaps and calibration from an experiment run.

``experiments/bluff.toml`` plays, in every cell (rule variant and player count), a *bluffer*
(a base heuristic with ``bluff = b``, never challenging) against ``P - 1`` copies of a
*challenger* (the same heuristic, never bluffing, with one challenge policy). Its ``analysis =
"bluff"`` step calls :func:`write_bluff_study` on the finished run, which writes:

=====================  =========================================================================
file                   content
=====================  =========================================================================
bluff.*                one row per variant, player count, bluff probability and challenge
                       policy (:func:`study_table`)
best_responses.*       each side's best answer to each strategy of the other, with the
                       answers statistically tied with it (:mod:`.equilibrium`)
equilibrium.*          the mixed equilibrium of the bluff-probability x challenge-policy game
                       per cell, solved exactly (a linear program, :mod:`.equilibrium`)
calibration.*          the Bayesian bluff probability against observed bluffs, binned
                       (:mod:`uno_rl.analysis.calibration`), and ``calibration_scores.*``
heatmap-VARIANT.png    win-rate gain of bluffing against each policy, one panel per player count
                       (:mod:`uno_rl.analysis.study_plots`)
calibration.png        the reliability diagram
=====================  =========================================================================

Tables are Parquet and CSV. Intervals use the run's confidence level. Differences between two
match-ups (gains) use independent-sample normal intervals; the match-ups share their deals, so
these intervals are conservative.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

from uno_rl.agents import make_agent
from uno_rl.core.rules import Rules
from uno_rl.eval import formats as fmt
from uno_rl.eval.run import write_atomic
from uno_rl.eval.stats import wilson_interval, z_value
from uno_rl.eval.tournament import Matchup

from .calibration import (
    calibration_samples,
    calibration_scores,
    reliability_table,
    write_calibration,
)
from .equilibrium import best_responses, equilibrium_table, mark_equilibrium_region
from .quick import interval_level, quick_note
from .study_plots import heatmap_figure, plot_calibration, plot_heatmaps

__all__ = [
    "calibration_settings",
    "calibration_tables",
    "challenge_label",
    "heatmap_figure",
    "narrative",
    "plot_calibration",
    "plot_heatmaps",
    "study_summary",
    "study_table",
    "write_bluff_study",
]

#: Cards a +4 moves: accepted (victim draws 4), challenged but legal (challenger draws 6).
_ACCEPTED, _FAILED_CHALLENGE = 4, 6
#: Rounds of each calibration setting (at most the cell's rounds).
CALIBRATION_ROUNDS = 20_000
#: Bluff probabilities whose calibration is measured (those present in the run).
CALIBRATION_BLUFFS = (0.1, 0.5, 1.0)


def challenge_label(params: dict) -> str:
    """A short name of a challenge policy: ``never``, ``always``, ``bayes``, ``hand>=4``,
    ``color``, ``hand>=4|color``."""
    policy = params["challenge"]
    if policy != "threshold":
        return policy
    parts = []
    if params["challenge_hand"] > 0:
        parts.append(f"hand>={params['challenge_hand']}")
    if params["challenge_color"]:
        parts.append("color")
    return "|".join(parts) or "threshold-off"


def _run_cells(folder: Path) -> tuple[dict, list[dict]]:
    config = json.loads((folder / "config.json").read_text())
    return config, config["cells"]


def study_table(folder: str | Path) -> pd.DataFrame:
    """The tidy study table of a finished run of a bluffer-versus-challenger experiment.

    One row per ``variant``, ``players``, ``bluff`` (the bluffer's probability) and
    ``challenge`` (the challengers' policy), with ``caught_bluffer``, ``draw_four_legal``,
    ``bluffer`` and ``challenger`` (the specs), ``rounds``, and for the bluffer:

    * ``win_rate`` (``win_low``, ``win_high``) and ``fair_share`` (1/P); ``gain`` (``gain_low``,
      ``gain_high``): win rate minus the win rate of the non-bluffing bluffer (``bluff = 0``)
      against the same policy, in the same cell;
    * ``points`` (winner takes the others' points) and ``penalty`` (the other school: points
      left in its own hand), each with an interval, and ``points_gain`` against ``bluff = 0``;
    * ``draw4_per_round``, ``bluffs_per_round``; ``bluff_share``: bluffs among its +4s;
      ``bluff_challenged``: share of its bluffs that were challenged (always caught);
      ``challenge_success``: share of the challengers' challenges that caught a bluff (all
      their challenges, also of each other's +4s); ``cards_per_draw4``: cards the +4s moved in
      its favour on average (4 accepted, 6 challenged but legal, minus 4, or 5 under
      ``takes-back``, when caught); ``points_per_bluff``: ``points_gain`` per extra bluff a
      round (the value of a bluff in points), with an interval.

    Rate intervals are Wilson intervals on event counts.
    """
    folder = Path(folder)
    config, cells = _run_cells(folder)
    confidence = float(config["confidence"])
    z = z_value(confidence)
    agents = pd.read_parquet(folder / "agents.parquet")
    rows = []
    for cell in cells:
        rules = Rules.from_dict(cell["rules"])
        players = cell["players"]
        here = agents[(agents["variant"] == cell["variant"]) & (agents["players"] == players)]
        by_key = {(r.matchup, r.agent): r for r in here.itertuples(index=False)}
        for lineup in cell["matchups"]:
            focal, opponent = lineup[0], lineup[1]
            label = Matchup(tuple(lineup)).label
            f, o = by_key[(label, focal)], by_key[(label, opponent)]
            bluff = float(make_agent(focal, rules).params["bluff"])
            challenger = make_agent(opponent, rules)
            # A search agent's challenges come from its search: it is named by its spec.
            params = challenger.params
            policy = challenge_label(params) if "challenge" in params else challenger.spec
            n, n_opp = int(f.rounds), int(o.rounds)
            d4, bluffs = f.draw4_plays * n, f.bluffs * n
            challenged, caught = f.draw4_challenged * n, f.bluffs_caught * n
            penalty = _ACCEPTED + (1 if rules.caught_bluffer == "takes-back" else 0)
            swing = (
                _ACCEPTED * (d4 - challenged)
                + _FAILED_CHALLENGE * (challenged - caught)
                - penalty * caught
            )
            rows.append({
                "variant": cell["variant"], "players": players,
                "caught_bluffer": rules.caught_bluffer, "draw_four_legal": rules.draw_four_legal,
                "bluff": bluff, "challenge": policy, "bluffer": focal, "challenger": opponent,
                "rounds": n, "fair_share": 1.0 / players,
                "win_rate": f.win_rate, "win_low": f.win_low, "win_high": f.win_high,
                "points": f.points, "points_low": f.points_low, "points_high": f.points_high,
                "penalty": f.penalty, "penalty_low": f.penalty_low,
                "penalty_high": f.penalty_high,
                "draw4_per_round": f.draw4_plays, "bluffs_per_round": f.bluffs,
                "_d4": round(d4), "_bluffs": round(bluffs), "_caught": round(caught),
                "_challenges": round(o.challenges * n_opp),
                "_challenges_won": round(o.challenges_won * n_opp),
                "cards_per_draw4": swing / d4 if d4 else math.nan,
            })  # fmt: skip
    table = pd.DataFrame(rows)
    for name, hits, trials in (
        ("bluff_share", "_bluffs", "_d4"),
        ("bluff_challenged", "_caught", "_bluffs"),
        ("challenge_success", "_challenges_won", "_challenges"),
    ):
        hit, trial = table[hits].to_numpy(float), table[trials].to_numpy(float)
        low, high = wilson_interval(hit, np.maximum(trial, 1), confidence)
        table[name] = np.where(trial > 0, hit / np.maximum(trial, 1), np.nan)
        table[f"{name}_low"] = np.where(trial > 0, low, np.nan)
        table[f"{name}_high"] = np.where(trial > 0, high, np.nan)
    table = table.drop(columns=["_d4", "_bluffs", "_caught", "_challenges", "_challenges_won"])
    return _add_gains(table, z)


def _add_gains(table: pd.DataFrame, z: float) -> pd.DataFrame:
    """Gains against the ``bluff = 0`` row of the same cell and policy."""
    keys = ["variant", "players", "challenge"]
    base = table[table["bluff"] == 0.0]
    joined = table.merge(base, on=keys, how="left", suffixes=("", "_0"))
    win_se = np.sqrt(
        joined["win_rate"] * (1 - joined["win_rate"]) / joined["rounds"]
        + joined["win_rate_0"] * (1 - joined["win_rate_0"]) / joined["rounds_0"]
    )
    out = table.copy()
    out["gain"] = joined["win_rate"] - joined["win_rate_0"]
    out["gain_low"], out["gain_high"] = out["gain"] - z * win_se, out["gain"] + z * win_se
    points_se = np.hypot(
        (joined["points_high"] - joined["points_low"]) / (2 * z),
        (joined["points_high_0"] - joined["points_low_0"]) / (2 * z),
    )
    out["points_gain"] = joined["points"] - joined["points_0"]
    out["points_gain_low"] = out["points_gain"] - z * points_se
    out["points_gain_high"] = out["points_gain"] + z * points_se
    extra = joined["bluffs_per_round"] - joined["bluffs_per_round_0"]
    usable = extra > 1e-3
    for suffix in ("", "_low", "_high"):
        out[f"points_per_bluff{suffix}"] = np.where(
            usable, out[f"points_gain{suffix}"] / extra.where(usable, 1.0), np.nan
        )
    return out


# ----------------------------------------------------------------- calibration
def calibration_settings(config: dict) -> list[tuple[dict, str, str, int]]:
    """(cell, bluffer spec, challenger spec, rounds) measured for calibration: the run's
    cells with the most rounds (its focus cells), each bluffer whose probability is in
    :data:`CALIBRATION_BLUFFS`, against the first challenger."""
    cells = [c for c in config["cells"] if Rules.from_dict(c["rules"]).challenge_enabled]
    if not cells:
        return []
    most = max(c["rounds"] for c in cells)
    settings = []
    for cell in (c for c in cells if c["rounds"] == most):
        rules = Rules.from_dict(cell["rules"])
        bluffers = list(dict.fromkeys(m[0] for m in cell["matchups"]))
        challenger = cell["matchups"][0][1]
        for spec in bluffers:
            if float(make_agent(spec, rules).params["bluff"]) in CALIBRATION_BLUFFS:
                settings.append((cell, spec, challenger, min(cell["rounds"], CALIBRATION_ROUNDS)))
    return settings


def calibration_tables(
    config: dict, progress: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(samples, reliability, scores) over :func:`calibration_settings`, each with
    ``variant``, ``players``, ``bluff`` and ``setting`` (a label) columns."""
    samples, reliability, scores = [], [], []
    settings = calibration_settings(config)
    for i, (cell, bluffer, challenger, rounds) in enumerate(
        tqdm(settings, desc="calibration", disable=not progress, leave=False)
    ):
        rules = Rules.from_dict(cell["rules"])
        bluff = float(make_agent(bluffer, rules).params["bluff"])
        found = calibration_samples(rules, bluffer, challenger, rounds, seed=config["seed"] + i)
        keys = {
            "variant": cell["variant"],
            "players": cell["players"],
            "bluff": bluff,
            "setting": f"{cell['variant']} {cell['players']}p bluff={bluff:g}",
        }
        samples.append(found.assign(**keys))
        reliability.append(reliability_table(found, confidence=config["confidence"]).assign(**keys))
        scores.append({**keys, **calibration_scores(found)})
    if not settings:
        return pd.DataFrame(), pd.DataFrame(), pd.DataFrame()
    return (
        pd.concat(samples, ignore_index=True),
        pd.concat(reliability, ignore_index=True),
        pd.DataFrame(scores),
    )


# ---------------------------------------------------------------------- entry
def write_bluff_study(folder: str | Path, workers: int | None = None, progress: bool = True):
    """Write every output of the module docstring into the run ``folder`` (``workers`` is
    accepted for the experiment runner; the analysis runs in this process)."""
    folder = Path(folder)
    config, _ = _run_cells(folder)
    table = study_table(folder)
    best = best_responses(table)
    table = mark_equilibrium_region(table, best)
    write_atomic(table, str(folder / "bluff"))
    write_atomic(best, str(folder / "best_responses"))
    write_atomic(equilibrium_table(table), str(folder / "equilibrium"))
    note = run_note(config, table)
    write_calibration(folder, *calibration_tables(config, progress), note=note)
    plot_heatmaps(table, folder, note)


def run_note(config: dict, table: pd.DataFrame) -> str:
    """The quick run's warning (:func:`~uno_rl.analysis.quick.quick_note`) with the rounds
    a match-up of its cells, ``""`` for a full run."""
    rounds = table["rounds"] if len(table) else pd.Series([0])
    return quick_note(config, int(rounds.min()), int(rounds.max()), "rounds")


# ------------------------------------------------------------------ narrative


def narrative(
    table: pd.DataFrame,
    best: pd.DataFrame,
    equilibrium: pd.DataFrame,
    scores: pd.DataFrame | None = None,
    confidence: float = 0.95,
) -> list[str]:
    """Findings computed from the study's tables, as Markdown bullet lines: the value of
    bluffing against each policy, the best answers (a single best only where it is
    separable: otherwise the tied group, from ``best``), the equilibrium-like region, where
    the answers flip with the table size or the rules, and the calibration. Figures are in
    the formats of :mod:`uno_rl.eval.formats`, intervals at the level ``confidence``."""
    lines = []
    tied = best.set_index(["variant", "players", "responder", "against"])["tied"]
    for (variant, players), cell in table.groupby(["variant", "players"], sort=False):
        lines.append(
            f"**{variant}, {players} players** ({int(cell['rounds'].max()):,} rounds "
            "per match-up at most)"
        )
        for policy, col in cell.groupby("challenge", sort=False):
            top = col.loc[col["win_rate"].idxmax()]
            full = col.loc[col["bluff"].idxmax()]
            group = tied.get((variant, players, "bluffer", policy), f"{top['bluff']:g}")
            group = group.split(",")
            if len(group) == 1:
                answer = (
                    f"best bluff probability {top['bluff']:g} (win rate "
                    f"{fmt.rate(top['win_rate'])})"
                )
            else:
                shown = col[col["bluff"].map(lambda b: f"{b:g}").isin(group)]["win_rate"]
                answer = (
                    f"no single best bluff probability: {', '.join(group)} are not separable "
                    f"(win rates {fmt.rate(shown.min())} to {fmt.rate(shown.max())})"
                )
            gain = fmt.with_interval(
                full["gain"], full["gain_low"], full["gain_high"], fmt.rate_difference
            )
            lines.append(
                f"- against `{policy}`: {answer}; always bluffing changes the win rate by "
                f"{gain} ({interval_level(confidence)}), "
                f"{fmt.points(full['points_per_bluff'])} points per bluff"
            )
        region = cell[cell["equilibrium_like"]]
        pairs = ", ".join(f"({b:g}, {c})" for b, c in zip(region["bluff"], region["challenge"]))
        lines.append(f"- mutual best answers (bluff, policy): {pairs or 'none'}")
        eq = equilibrium[(equilibrium["variant"] == variant) & (equilibrium["players"] == players)]
        if len(eq):
            lines.append(
                f"- mixed equilibrium: bluffer {_mix(eq, 'bluffer')}; challengers "
                f"{_mix(eq, 'challenger')}; "
                f"bluffer's win rate {fmt.rate(eq['value'].iloc[0])} "
                f"(fair share {fmt.rate(1 / players)})"
            )
    lines.extend(_flips(best))
    if scores is not None and len(scores):
        for row in scores.itertuples(index=False):
            lines.append(
                f"- calibration, {row.setting}: {row.draw4s:,} challengeable +4s, "
                f"{fmt.rate(row.bluff_rate)} were bluffs, predicted "
                f"{fmt.rate(row.mean_predicted)} on "
                f"average; Brier score {row.brier:.3f} against {row.base_brier:.3f} for the "
                f"base rate (skill {row.skill:+.2f})"
            )
    return lines


def _mix(eq: pd.DataFrame, side: str) -> str:
    """``0 80.0%, 0.1 20.0%``: the strategies of one side with a weight of at least 0.5%."""
    part = eq[eq["side"] == side]
    return ", ".join(
        f"{s} {fmt.rate(w)}" for s, w in zip(part["strategy"], part["weight"]) if w >= 0.005
    )


def _flips(best: pd.DataFrame) -> list[str]:
    """Lines naming where a best answer changes with the player count or the rules: two
    groups whose sets of (tied) best answers do not overlap."""
    lines = []
    for (responder, against), group in best.groupby(["responder", "against"], sort=False):
        what = "best bluff probability" if responder == "bluffer" else "best challenge policy"
        versus = f"against `{against}`" if responder == "bluffer" else f"against bluff {against}"
        for key, label in (("players", "the table size"), ("variant", "the rules")):
            answers = {
                k: set.intersection(*(set(t.split(",")) for t in g["tied"]))
                for k, g in group.groupby(key, sort=False)
            }
            values = list(answers.values())
            disjoint = any(not (a & b) for i, a in enumerate(values) for b in values[i + 1 :])
            if disjoint:
                shown = "; ".join(
                    f"{k}{'p' if key == 'players' else ''}: {', '.join(sorted(v)) or 'varies'}"
                    for k, v in answers.items()
                )
                lines.append(f"- the {what} {versus} changes with {label}: {shown}")
    return lines or ["- no best answer changes with the table size or the rules"]


def study_summary(folder: str | Path) -> str:
    """The findings of a finished study run as text (what the experiment runner prints), a
    quick run's warning first."""
    folder = Path(folder)
    config = json.loads((folder / "config.json").read_text())
    scores = folder / "calibration_scores.parquet"
    table = pd.read_parquet(folder / "bluff.parquet")
    lines = narrative(
        table,
        pd.read_parquet(folder / "best_responses.parquet"),
        pd.read_parquet(folder / "equilibrium.parquet"),
        pd.read_parquet(scores) if scores.exists() else None,
        config["confidence"],
    )
    note = run_note(config, table)
    return "\n".join(([note, ""] if note else []) + lines)

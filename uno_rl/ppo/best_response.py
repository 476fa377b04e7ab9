"""Approximate exploitability: a best response trained against a frozen agent, and its gain.

The exploitability of an agent is what a best response to it wins. In a game the size of UNO
it is approximated as OpenSpiel and the work on learned best responses do: train a policy
against the frozen target with the ordinary trainer, then measure what it wins. Here the
best response is the PPO trainer of ``uno_rl train`` with the target in every other seat of
every game (no self-play, no snapshot pool, a zoo of one: :func:`best_response_config`), for
a budget of decisions; during training it plays the target on fresh duplicate deals every few
updates (the curve, :func:`curve_table`), and after it the final evaluation
(:func:`evaluate_gain`) plays it against the target on duplicate deals of seeds the training
never used, in single rounds (net points a round, rounds won) and in matches to 500 (matches
won), with intervals.

The figure is a **lower bound**: a longer run, a larger network or another method may find
more. A gain whose interval lies above the fair share shows the target can be exploited by at
least that much; a gain near zero says only that this budget found nothing.

Tables (tidy, one row per measure or evaluation):

* ``gain.csv`` (:data:`GAIN_COLUMNS`): per measure (``points_per_round``, ``rounds_won``,
  ``matches_won``) the best response's value with its interval, the fair share (0 points;
  ``1/P`` of rounds and matches), the gain over it, the count and the unit.
* ``curve.csv`` (:data:`CURVE_COLUMNS`): per periodic evaluation, the decisions trained so
  far (all seats', the budget's unit, and the best response's own), net points a round and
  rounds won with 95% intervals.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from uno_rl.agents import Agent, make_agent
from uno_rl.core.rules import Rules, load_rules

from .config import TrainConfig
from .config_checks import TrainConfigError
from .logger import STEP

__all__ = [
    "CURVE_COLUMNS",
    "FIXED_FIELDS",
    "GAIN_COLUMNS",
    "INIT_AUTO",
    "INIT_TARGET",
    "best_response_config",
    "curve_interval",
    "curve_table",
    "starting_point",
    "evaluate_gain",
    "format_gain",
    "plot_curve",
    "run_name",
]

#: ``init_from`` values of a best response besides those of training: ``auto`` (the target's
#: own weights where the target is a PPO bot, else a fresh network) and ``target`` (the
#: target's weights; an error for a target without any).
INIT_AUTO, INIT_TARGET = "auto", "target"
#: Config fields the best response sets itself: who it plays, and how it is evaluated.
FIXED_FIELDS = (
    "zoo", "self_play", "pool_share", "zoo_share", "eval_agents", "eval_every", "eval_rounds",
    "eval_matches", "final_eval_rounds", "final_eval_matches",
)  # fmt: skip
#: Rounds a match to 500 lasts, roughly: under match rules the curve's evaluations play
#: ``curve_rounds / MATCH_ROUNDS`` matches.
MATCH_ROUNDS = 10
#: Columns of ``gain.csv``.
GAIN_COLUMNS = [
    "target", "measure", "value", "low", "high", "fair", "gain", "gain_low", "gain_high",
    "count", "unit", "confidence", "decisions", "players", "variant",
]  # fmt: skip
#: Columns of ``curve.csv``.
CURVE_COLUMNS = [
    "target", "update", "decisions", "learner_decisions", "points_per_round", "points_low",
    "points_high", "rounds_won", "rounds_won_low", "rounds_won_high", "count", "unit",
]  # fmt: skip


def run_name(target: str) -> str:
    """A run name for the best response to ``target`` (``exploit-color-first``): the spec
    with every character a run name refuses replaced by ``-``."""
    text = re.sub(r"[^A-Za-z0-9._-]+", "-", target).strip("-.") or "agent"
    return f"exploit-{text}"[:100]


def _ppo_target(agent: Agent) -> bool:
    from .agent import PPOAgent

    return isinstance(agent, PPOAgent)


def best_response_config(
    config: TrainConfig, target: str, curve_points: int, curve_rounds: int
) -> TrainConfig:
    """``config`` turned into the training of a best response to ``target``.

    The target fills every other seat of every game (``zoo = [target]``, ``zoo_share = 1``,
    no self-play, no pool) and is the one eval agent, evaluated ``curve_rounds`` rounds about
    ``curve_points`` times along the run (the last update included); the trainer's own final
    evaluation is off (:func:`evaluate_gain` does it). ``init_from``: ``auto`` or ``target``
    start from the target's weights (and take its hidden sizes and features), ``auto`` only
    where the target is a PPO bot. The target is built once here, so a spec that does not
    resolve, or does not fit the rules, fails before anything runs
    (:class:`~uno_rl.agents.AgentError`, :class:`~uno_rl.core.rules.RulesError`).
    """
    rules = config.rules()
    agent = make_agent(target, rules)
    changes: dict[str, Any] = {
        "zoo": [target], "self_play": 0.0, "pool_share": 0.0, "zoo_share": 1.0,
        "eval_agents": [target], "eval_rounds": curve_rounds,
        "eval_matches": max(2, curve_rounds // MATCH_ROUNDS),
        "final_eval_rounds": 0, "final_eval_matches": 0,
    }  # fmt: skip
    if config.init_from in (INIT_AUTO, INIT_TARGET):
        if _ppo_target(agent):
            from .checkpoint import load_checkpoint, network_spec
            from .runs import init_from_path

            path = init_from_path(target)
            spec = network_spec(load_checkpoint(path), path)
            changes.update(init_from=target, hidden=list(spec["hidden"]))
            changes["features"] = list(spec["features"])
        elif config.init_from == INIT_TARGET:
            raise TrainConfigError(
                f"init_from: 'target' starts from the target's weights, and {target} has none "
                "(not a PPO bot): use 'auto' or '' to start from a fresh network"
            )
        else:
            changes["init_from"] = ""
    fields = {**config.to_dict(), **changes}
    fields["eval_every"] = 1
    planned = TrainConfig(**fields)  # the rounded number of updates, with these sizes
    fields["eval_every"] = curve_interval(planned.num_updates, curve_points)
    return TrainConfig(**fields)


def curve_interval(updates: int, points: int) -> int:
    """Updates between the curve's evaluations, for about ``points`` of them over ``updates``.

    The trainer also evaluates after the last update, so the interval is one that ends its
    evaluations there (a divisor of ``updates``) or at least half an interval before, the one
    giving the nearest count to ``points`` among those giving half to twice as many: never
    two points side by side at the end. ``updates // points`` where none does (tiny runs)."""
    points = max(points, 1)

    def fits(every: int) -> bool:
        spare = updates % every
        return points / 2 <= updates // every <= 2 * points and (spare == 0 or 2 * spare >= every)

    chosen = [every for every in range(1, updates + 1) if fits(every)]
    if not chosen:
        return max(1, updates // points)
    return min(chosen, key=lambda every: (abs(updates / every - points), updates % every, every))


def starting_point(config: TrainConfig, target: str, seed: int, progress: bool = False):
    """The curve's first row (:data:`CURVE_COLUMNS`, update 0, no decisions trained): the
    weights the best response starts from (``config.init_from``) against ``target``, on the
    periodic evaluations' size and rules, with 95% intervals; None for a fresh network."""
    if not config.init_from:
        return None
    from uno_rl.eval.run import evaluate_variant
    from uno_rl.eval.tournament import make_matchups

    from .runs import init_from_path

    rules = config.rules()
    _, count = config.eval_size(False, rules.match)
    unit = "matches" if rules.match else "rounds"
    start = make_agent(f"ppo:checkpoint={init_from_path(config.init_from)}", rules)
    matchups = make_matchups(["best-response", target], config.players, "head-to-head")
    result = evaluate_variant(
        rules, "start", matchups, count, seed, 1, progress=progress,
        description=f"the starting weights vs {target}: {count:,} {unit}",
        live={"best-response": start},
    )  # fmt: skip
    r = result.agents[result.agents.agent == "best-response"].iloc[0]
    row = {
        "target": target, "update": 0, "decisions": 0, "learner_decisions": 0,
        "points_per_round": r.points, "points_low": r.points_low, "points_high": r.points_high,
        "rounds_won": r.win_rate, "rounds_won_low": r.win_low, "rounds_won_high": r.win_high,
        "count": count, "unit": unit,
    }  # fmt: skip
    return pd.DataFrame([row], columns=CURVE_COLUMNS)


def curve_table(
    metrics: pd.DataFrame, config: TrainConfig, target: str, start: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The periodic evaluations of a best-response run's ``metrics.csv`` (``config``: the
    run's) against ``target`` (:data:`CURVE_COLUMNS`; intervals at 95%, the trainer's),
    after ``start`` (:func:`starting_point`) where given; ``count`` and ``unit`` give the
    size of each evaluation."""
    from uno_rl.eval.tournament import make_matchups

    # The trainer names each opponent as the match-up does: "3 x color-first" at 4 players.
    matchup = make_matchups(["ppo", target], config.players, "head-to-head")[0]
    opponent = matchup.label.split(" vs ")[-1]
    key = f"eval/points_per_round_vs_{opponent}"
    wins = f"eval/win_rate_vs_{opponent}"
    if metrics.empty or key not in metrics:
        return pd.DataFrame(columns=CURVE_COLUMNS) if start is None else start
    rows = metrics[metrics["eval/evaluated"] == 1]
    frame = pd.DataFrame(
        {
            "target": target,
            "update": rows["charts/update"].astype(int).to_numpy(),
            "decisions": rows["charts/decisions"].astype(np.int64).to_numpy(),
            "learner_decisions": rows[STEP].astype(np.int64).to_numpy(),
            "points_per_round": rows[key].to_numpy(float),
            "points_low": rows[f"{key}_ci95_low"].to_numpy(float),
            "points_high": rows[f"{key}_ci95_high"].to_numpy(float),
            "rounds_won": rows[wins].to_numpy(float),
            "rounds_won_low": rows[f"{wins}_ci95_low"].to_numpy(float),
            "rounds_won_high": rows[f"{wins}_ci95_high"].to_numpy(float),
        }
    )
    match = config.rules().match
    _, count = config.eval_size(False, match)
    frame = frame.assign(count=count, unit="matches" if match else "rounds")[CURVE_COLUMNS]
    return frame if start is None else pd.concat([start, frame], ignore_index=True)


def evaluation_rules(config: TrainConfig, match: bool) -> tuple[Rules, str]:
    """The run's rules played as single rounds (``match`` False) or as matches, with their
    variant label in the tables."""
    from uno_rl.eval.run import variant_label

    switches = {**config.switches, "match": match}
    base = load_rules(config.preset, players=config.players)
    rules = load_rules(config.preset, players=config.players, **switches)
    return rules, variant_label(config.preset, switches, base)


def evaluate_gain(
    policy: Path,
    config: TrainConfig,
    target: str,
    rounds: int,
    matches: int,
    seed: int,
    decisions: int,
    confidence: float = 0.99,
    workers: int = 1,
    progress: bool = False,
) -> pd.DataFrame:
    """The best response (``policy``: its ``policy.pt``; named ``best-response`` in the
    evaluator's tables) against ``P - 1`` copies of ``target`` on duplicate deals of ``seed``:
    ``rounds`` single rounds (net points a round, rounds won) and ``matches`` matches
    (matches won; the rules' ``match_target``), each skipped at 0. Returns the
    :data:`GAIN_COLUMNS` table; ``decisions``: the best response's training budget, for the
    table."""
    from uno_rl.eval.run import evaluate_variant
    from uno_rl.eval.tournament import make_matchups

    players = config.players
    rows = []
    for count, match in ((rounds, False), (matches, True)):
        if not count:
            continue
        rules, label = evaluation_rules(config, match)
        matchups = make_matchups(["best-response", target], players, "head-to-head")
        agent = make_agent(f"ppo:checkpoint={policy}", rules)
        unit = "matches" if match else "rounds"
        result = evaluate_variant(
            rules, label, matchups, count, seed, workers, confidence=confidence,
            progress=progress, description=f"best response vs {target}: {count:,} {unit}",
            live={"best-response": agent},
        )  # fmt: skip
        r = result.agents[result.agents.agent == "best-response"].iloc[0]
        measures = (
            [("matches_won", "match_win_rate", "match_win", 1 / players)]
            if match
            else [("points_per_round", "points", "points", 0.0),
                  ("rounds_won", "win_rate", "win", 1 / players)]
        )  # fmt: skip
        for measure, value, interval, fair in measures:
            low, high = float(r[f"{interval}_low"]), float(r[f"{interval}_high"])
            rows.append(
                {
                    "target": target, "measure": measure, "value": float(r[value]),
                    "low": low, "high": high, "fair": fair, "gain": float(r[value]) - fair,
                    "gain_low": low - fair, "gain_high": high - fair, "count": count,
                    "unit": unit, "confidence": confidence, "decisions": decisions,
                    "players": players,
                    "variant": label,
                }
            )  # fmt: skip
    return pd.DataFrame(rows, columns=GAIN_COLUMNS)


def format_gain(gain: pd.DataFrame, target: str, decisions: int) -> str:
    """The lines that report a best response's gain."""
    if gain.empty:
        return f"best response to {target}: no final evaluation (--rounds 0 --matches 0)"
    confidence = float(gain["confidence"].iloc[0])
    lines = [
        f"Best response to {target} after {decisions:,} decisions (a lower bound on its "
        f"exploitability; duplicate deals unseen in training, {confidence:.0%} intervals):"
    ]
    for r in gain.itertuples():
        if r.measure == "points_per_round":
            lines.append(
                f"  net points a round  {r.value:+7.2f} [{r.low:+.2f}, {r.high:+.2f}] over "
                f"{r.count:,} rounds"
            )
        else:
            name = "rounds won " if r.measure == "rounds_won" else "matches won"
            lines.append(
                f"  {name}        {r.value:7.1%} [{r.low:.1%}, {r.high:.1%}] of {r.count:,} "
                f"{r.unit} (fair share {r.fair:.1%}, gain {100 * r.gain:+.1f} pp)"
            )
    points = gain[gain.measure == "points_per_round"]
    if len(points):
        bound = max(0.0, float(points["low"].iloc[0]))
        lines.append(
            f"  exploitability: at least {bound:.2f} net points a round (the interval's low "
            "end; never below 0, what the target itself scores)"
        )
    return "\n".join(lines)


def plot_curve(curve: pd.DataFrame, gain: pd.DataFrame, path: Path, target: str) -> None:
    """The gain of the best response against decisions (``curve.png``): net points a round
    and rounds won at each periodic evaluation, with their 95% bands, the fair share, and the
    final evaluation's value at the end."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from uno_rl.plumbing.durable import replace_durably

    fig, (points, wins) = plt.subplots(1, 2, figsize=(10, 3.8))
    x = curve["decisions"].to_numpy(float) / 1e6
    players = int(gain["players"].iloc[0]) if not gain.empty else None
    for ax, value, low, high, fair, label in (
        (points, "points_per_round", "points_low", "points_high", 0.0, "net points a round"),
        (wins, "rounds_won", "rounds_won_low", "rounds_won_high",
         1 / players if players else None, "rounds won"),
    ):  # fmt: skip
        ax.plot(x, curve[value], marker="o", color="tab:blue", label="periodic (95%)")
        ax.fill_between(x, curve[low], curve[high], color="tab:blue", alpha=0.2, lw=0)
        final = gain[gain.measure == value] if not gain.empty else gain
        if len(final) and len(x):
            f = final.iloc[0]
            ax.errorbar([x[-1]], [f.value], yerr=[[f.value - f.low], [f.high - f.value]],
                        fmt="s", color="tab:red", capsize=4,
                        label=f"final ({f.confidence:.0%}, {int(f['count']):,} rounds)")  # fmt: skip
        if fair is not None:
            ax.axhline(fair, color="grey", lw=1, ls="--", label="fair share")
        ax.set_xlabel("decisions trained (millions, all seats)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    wins.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    title = f"Best response to {target}: its gain while it trains"
    fig.suptitle(title)
    fig.tight_layout()
    with replace_durably(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)

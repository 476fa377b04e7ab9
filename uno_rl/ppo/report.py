"""What a training run reports: each update's measures of its games (:func:`rollout_metrics`)
and of its periodic duplicate-deal evaluations (:func:`eval_metrics`), under the names
:mod:`uno_rl.ppo.logger` documents; the TensorBoard HPARAMS tab's metric columns
(:func:`hparam_metrics`); the final evaluation's table with its 95% intervals."""

from __future__ import annotations

from pathlib import Path

from uno_rl.agents.base import Agent

from .config import TrainConfig
from .selfplay import Stats

__all__ = [
    "eval_metrics",
    "evaluate_policy",
    "evaluation_variant",
    "final_report",
    "format_final",
    "hparam_metrics",
    "rollout_metrics",
]


def _rate(count: float, total: float) -> float | None:
    """``count / total``; None (no value: an empty cell) where nothing was counted."""
    return count / total if total else None


def rollout_metrics(stats: Stats, config: TrainConfig, match: bool) -> dict[str, float | None]:
    """The ``charts/`` and ``behaviour/`` measures of one update's games (``stats``).

    Rates over zero events are None. The sample sizes against the pool and the zoo are
    given where the config plays such games (``pool_share``, ``zoo_share`` above 0);
    ``match``: the rules play matches (match win rates)."""
    s = stats
    row = {
        "charts/round_length": _rate(s.round_decisions, s.rounds),
        "charts/truncation_rate": _rate(s.truncated_rounds, s.rounds),
        "charts/episodic_return": _rate(s.learner_reward, s.learner_episodes),
        "charts/win_rate_all_lineups": _rate(s.learner_wins, s.learner_rounds),
    }
    for name, share in (("pool", config.pool_share), ("zoo", config.zoo_share)):
        if share > 0 and (name == "pool" or config.zoo):
            row[f"charts/rounds_vs_{name}"] = getattr(s, f"{name}_rounds")
    for name in ("pool", "zoo"):
        played = getattr(s, f"{name}_rounds")
        row[f"charts/win_rate_vs_{name}"] = _rate(getattr(s, f"{name}_wins"), played)
        row[f"charts/points_per_round_vs_{name}"] = _rate(getattr(s, f"{name}_points"), played)
        if match:
            row[f"charts/match_win_rate_vs_{name}"] = _rate(
                getattr(s, f"{name}_match_wins"), getattr(s, f"{name}_matches")
            )
    row.update({
        "behaviour/draw4_per_round": _rate(s.draw4_plays, s.learner_rounds),
        "behaviour/bluff_share": _rate(s.bluffs, s.draw4_plays),
        "behaviour/challenges_per_round": _rate(s.challenges, s.learner_rounds),
        "behaviour/challenge_success": _rate(s.challenges_won, s.challenges),
    })  # fmt: skip
    return row


#: Each eval measure: (name in the logs, column of ``Evaluation.agents``, its interval's).
EVAL_MEASURES = (
    ("win_rate", "win_rate", "win"),
    ("points_per_round", "points", "points"),
    ("match_win_rate", "match_win_rate", "match_win"),
)


def eval_metrics(result, match: bool) -> dict[str, float]:
    """The ``eval/`` measures of an evaluation (:func:`evaluate_policy`): per opponent, rounds
    won, net points per round and (``match``) matches won, each with its 95% interval."""
    row: dict[str, float] = {"eval/evaluated": 1}
    for r in result.agents[result.agents.agent == "ppo"].itertuples():
        opponent = r.matchup.split(" vs ")[-1]
        for name, column, interval in EVAL_MEASURES:
            if name == "match_win_rate" and not match:
                continue
            key = f"eval/{name}_vs_{opponent}"
            row[key] = getattr(r, column)
            row[f"{key}_ci95_low"] = getattr(r, f"{interval}_low")
            row[f"{key}_ci95_high"] = getattr(r, f"{interval}_high")
    return row


def hparam_metrics(config: TrainConfig, match: bool) -> list[str]:
    """Scalar tags shown as the metric columns of TensorBoard's HPARAMS tab (the last value
    of each): the evaluations' measures, the rollout's against the zoo, the value fit, SPS."""
    tags = []
    if config.eval_every:
        for opponent in config.eval_agents:
            tags += [f"eval/win_rate_vs_{opponent}", f"eval/points_per_round_vs_{opponent}"]
            tags += [f"eval/match_win_rate_vs_{opponent}"] * match
    if config.zoo_share > 0 and config.zoo:
        tags += ["charts/win_rate_vs_zoo", "charts/points_per_round_vs_zoo"]
    return [*tags, "losses/explained_variance", "charts/SPS"]


def evaluation_variant(config: TrainConfig):
    """The rules of the run's evaluations (:meth:`TrainConfig.rules`) and their variant label
    in the tables (the preset and the switches that differ from it)."""
    from uno_rl.core.rules import load_rules
    from uno_rl.eval.run import variant_label

    base = load_rules(config.preset, players=config.players)
    return config.rules(), variant_label(config.preset, dict(config.switches), base)


def evaluate_policy(
    policy: Path | Agent,
    config: TrainConfig,
    count: int,
    seed: int,
    workers: int = 1,
    progress: bool = False,
    what: str = "evaluation",
):
    """Duplicate-deal evaluation of ``policy`` against each eval agent (head to head):
    ``count`` rounds each, or whole matches where the rules play matches. ``progress``: the
    evaluator's bar, one per opponent, named ``WHAT: COUNT rounds vs OPPONENT``.

    ``policy``: the agent itself (the policy in training,
    :class:`~uno_rl.ppo.live_policy.LivePolicyAgent`, made for the run's rules), or a policy
    file played as ``ppo:checkpoint=FILE``; either way the tables name it ``ppo``, and the same
    weights and seed give the same numbers."""
    from uno_rl.eval.run import Evaluation, evaluate_variant
    from uno_rl.eval.tournament import make_matchups

    rules, label = evaluation_variant(config)
    unit = "matches" if rules.match else "rounds"
    live = {"ppo": policy} if isinstance(policy, Agent) else {}
    spec = "ppo" if live else f"ppo:checkpoint={policy}"
    parts = []
    for opponent in config.eval_agents:
        matchups = make_matchups([spec, opponent], rules.players, "head-to-head")
        named = f"{what}: {count:,} {unit} vs {opponent}"
        parts.append(
            evaluate_variant(
                rules, label, matchups, count, seed, workers, progress=progress,
                description=named, live=live,
            )
        )  # fmt: skip
    result = Evaluation.concat(parts)
    if not live:
        for table in (result.agents, result.seats, result.pairs):
            for column in ("agent", "agent_a", "agent_b", "matchup"):
                if column in table:
                    table[column] = table[column].str.replace(spec, "ppo", regex=False)
    return result


def final_report(
    run: Path,
    config: TrainConfig,
    summary: dict,
    progress: bool = False,
    policy: Agent | None = None,
) -> str:
    """Evaluate the trained policy against the eval agents (``final_eval_rounds`` rounds
    each, or ``final_eval_matches`` matches where the rules play matches; "" when that is 0),
    with the evaluator's bar where ``progress``; save and format the table. ``policy``: the
    trained policy as an agent, where it is at hand (:func:`evaluate_policy`); else the run's
    ``policy.pt``."""
    from uno_rl.eval.run import default_workers

    rules = config.rules()
    _, count = config.eval_size(True, rules.match)
    if not count:
        return ""
    result = evaluate_policy(
        run / "policy.pt" if policy is None else policy, config, count, config.seed + 10**6,
        default_workers(), progress, "final evaluation",
    )  # fmt: skip
    result.save(run / "final_eval")
    return format_final(result, count, rules.match)


def format_final(result, count: int, match: bool) -> str:
    """The final evaluation's lines: rounds won, net points per round and, in matches,
    matches won and the mean final score, each with its 95% interval."""
    unit = "matches" if match else "rounds"
    lines = [f"Final evaluation ({count:,} duplicate-deal {unit} per opponent, 95% intervals):"]
    for r in result.agents[result.agents.agent == "ppo"].itertuples():
        line = (
            f"  ppo vs {r.matchup.split(' vs ', 1)[1]}: rounds won {r.win_rate:.2%} "
            f"[{r.win_low:.2%}, {r.win_high:.2%}], points/round {r.points:+.2f} "
            f"[{r.points_low:+.2f}, {r.points_high:+.2f}]"
        )
        if match:
            line += (
                f", matches won {r.match_win_rate:.2%} [{r.match_win_low:.2%}, "
                f"{r.match_win_high:.2%}], final score {r.final_score:.0f}"
            )
        lines.append(line)
    return "\n".join(lines)

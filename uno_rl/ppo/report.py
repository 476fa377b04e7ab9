"""What a training run reports: duplicate-deal evaluations of its policy against the eval
agents (periodic and final), and the final table's lines with their 95% intervals."""

from __future__ import annotations

from pathlib import Path

from .config import TrainConfig

__all__ = ["evaluate_policy", "final_report", "format_final"]


def evaluate_policy(policy: Path, config: TrainConfig, rounds: int, seed: int, workers: int = 1):
    """Duplicate-deal evaluation of ``policy`` against each eval agent (head to head)."""
    from uno_rl.eval.run import Evaluation, evaluate_variant, resolve_variant
    from uno_rl.eval.tournament import make_matchups

    rules, label = resolve_variant(config.preset, config.players, dict(config.switches))
    spec = f"ppo:checkpoint={policy}"
    parts = []
    for opponent in config.eval_agents:
        matchups = make_matchups([spec, opponent], rules.players, "head-to-head")
        parts.append(
            evaluate_variant(rules, label, matchups, rounds, seed, workers, progress=False)
        )
    result = Evaluation.concat(parts)
    for table in (result.agents, result.seats, result.pairs):
        for column in ("agent", "agent_a", "agent_b", "matchup"):
            if column in table:
                table[column] = table[column].str.replace(spec, "ppo", regex=False)
    return result


def final_report(run: Path, config: TrainConfig, summary: dict) -> str:
    """Evaluate ``policy.pt`` against the eval agents; save and format the table."""
    if not config.final_eval_rounds:
        return ""
    from uno_rl.eval.run import default_workers

    result = evaluate_policy(
        run / "policy.pt", config, config.final_eval_rounds, config.seed + 10**6, default_workers()
    )
    result.save(run / "final_eval")
    return format_final(result, config.final_eval_rounds, "match_win_rate" in result.agents)


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

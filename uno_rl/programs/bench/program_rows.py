"""The bench's rows that time whole programs: ``evaluate`` (the evaluator) and ``train`` (PPO
self-play); what each row times is in :mod:`uno_rl.programs.bench.command`."""

from __future__ import annotations

import math
import time

__all__ = ["evaluate_row", "train_config", "train_row"]


def evaluate_row(rounds: int, workers: int | None = None, seed: int = 0) -> dict:
    """One evaluation of ``color-first`` against ``random-playable`` (2 players, official):
    ``rounds`` rounds with duplicate deals on ``workers`` processes (default: every CPU)."""
    from uno_rl.eval.run import default_workers, evaluate

    workers = default_workers() if workers is None else workers
    start = time.perf_counter()
    result = evaluate(["color-first", "random-playable"], rounds=rounds, seed=seed, workers=workers)
    elapsed = time.perf_counter() - start
    agents = result.agents
    played = int(agents["rounds"].iloc[0])
    decisions = float(agents["decisions"].iloc[0]) * played
    return {
        "name": "evaluate",
        "players": 2,
        "batch": 4096,
        "decisions_per_s": decisions / elapsed,
        "rounds_per_s": played / elapsed,
        "step_latency_us": math.nan,
        "bytes_per_game": math.nan,
        "note": f"{played:,} rounds on {workers} worker(s) in {elapsed:.1f} s, one timed run",
    }


def train_config(decisions: int, seed: int = 0, name: str = "decisions"):
    """The train row's config: the defaults, ``decisions`` decisions, no evaluations.

    ``ValueError`` (naming ``decisions`` as ``name``) when ``decisions`` is less than one
    rollout, which would play more than asked; ``TrainConfigError`` for a value it refuses.
    """
    from uno_rl.ppo.config import TrainConfig

    config = TrainConfig(
        name="bench", seed=seed, total_decisions=decisions, eval_every=0, final_eval_rounds=0,
        tensorboard=False,
    )  # fmt: skip
    if decisions < config.decisions_per_rollout:
        raise ValueError(
            f"{name} must be at least one rollout ({config.decisions_per_rollout:,} "
            f"decisions: {config.num_games} games x {config.rollout_steps} steps), "
            f"got {decisions:,}"
        )
    return config


def train_row(decisions: int, seed: int = 0) -> dict:
    """PPO self-play with the default config for ``decisions`` decisions, in a temporary run."""
    import tempfile
    from pathlib import Path

    from uno_rl.programs.train import train

    config = train_config(decisions, seed)
    with tempfile.TemporaryDirectory() as folder:
        summary = train(config, Path(folder), progress=False)
    return {
        "name": "train",
        "players": config.players,
        "batch": config.num_games,
        "decisions_per_s": summary["decisions"] / summary["seconds"],
        "rounds_per_s": summary["rounds"] / summary["seconds"],
        "step_latency_us": math.nan,
        "bytes_per_game": math.nan,
        "note": (
            f"{summary['decisions']:,} decisions ({config.num_updates} updates) in "
            f"{summary['seconds']:.1f} s, one timed run, {summary['precision']} trunk; rounds/s "
            "grows as the policy learns"
        ),
    }

"""Is the Bayesian bluff probability calibrated? Predictions against what really happened.

Every time a +4 can be challenged, the victim's public-information estimate that it was a bluff
(:func:`uno_rl.agents.challenge.bluff_estimate`, exact when the unseen cards are uniformly
spread) is recorded with the truth from the hidden state. :func:`calibration_samples` plays
duplicate-deal rounds to collect those pairs; :func:`reliability_table` bins them (mean
prediction against the empirical bluff frequency, with a Wilson interval) and
:func:`calibration_scores` gives the Brier score, the Brier score of always predicting the base
rate, and the skill score ``1 - brier / base_brier`` (above 0: the estimate carries
information).

The estimate ignores *why* a +4 was played: a strategic player who bluffs rarely makes most +4s
legal whatever the card counts say, so the estimate is calibrated only when the +4 player's
choice does not depend on holding the color. The tables show by how much it is off otherwise.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from uno_rl.agents import make_agent
from uno_rl.agents.challenge import bluff_estimate
from uno_rl.agents.view import ObservationView
from uno_rl.core.actions import CHALLENGE
from uno_rl.core.observe import observe
from uno_rl.core.phases import RESPOND
from uno_rl.core.rng import new_seeds
from uno_rl.core.rules import Rules
from uno_rl.core.state import State
from uno_rl.eval.jobs import play_jobs
from uno_rl.eval.stats import wilson_interval

__all__ = [
    "brier_score",
    "calibration_samples",
    "calibration_scores",
    "reliability_table",
    "write_calibration",
]


def calibration_samples(
    rules: Rules,
    bluffer: str,
    opponent: str,
    rounds: int,
    seed: int = 0,
    slots: int = 4096,
) -> pd.DataFrame:
    """Play ``bluffer`` against ``P - 1`` copies of ``opponent`` and record every challengeable
    +4 played by the bluffer.

    Args:
        rules: rules with a +4 challenge (``rules.challenge_enabled``).
        bluffer, opponent: agent specs (:func:`uno_rl.agents.make_agent`).
        rounds: rounds to play (rounded up to whole deals of ``P`` rotations).
        seed: seeds deals and agents; the same seed gives the same samples.

    Returns:
        One row per +4: ``predicted`` (float64, the victim's bluff probability), ``bluff``
        (bool, the truth), ``hand`` (int, the +4 player's cards after playing it).
    """
    if not rules.challenge_enabled:
        raise ValueError("these rules have no +4 challenge: nothing to calibrate")
    p = rules.players
    lineup = [make_agent(bluffer, rules)] + [make_agent(opponent, rules)] * (p - 1)
    gen = np.random.default_rng(seed)
    deal_seeds = new_seeds(gen, -(-rounds // p))
    records: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def observer(state: State, live: np.ndarray, masks: np.ndarray, position, actions) -> None:
        asked = (state.phase[live] == RESPOND) & masks[:, CHALLENGE]
        player = state.draw4_player[live].astype(np.int64)
        asked &= position[np.arange(live.size), player] == 0  # the bluffer's +4s only
        if not asked.any():
            return
        games, player = live[asked], player[asked]
        view = ObservationView(observe(state.take(games), state.actor[games].astype(np.int64)), p)
        hand = state.hand_size[games, player].astype(np.int64)
        records.append((bluff_estimate(rules, view), state.draw4_bluff[games].copy(), hand))

    play_jobs(rules, lineup, deal_seeds, gen, slots=slots, observer=observer)
    if not records:
        return pd.DataFrame(
            {"predicted": np.zeros(0), "bluff": np.zeros(0, bool), "hand": np.zeros(0, np.int64)}
        )
    predicted, truth, hand = (np.concatenate(parts) for parts in zip(*records))
    return pd.DataFrame({"predicted": predicted, "bluff": truth, "hand": hand})


def brier_score(predicted: np.ndarray, truth: np.ndarray) -> float:
    """Mean squared error of probabilities ``predicted`` against 0/1 outcomes ``truth``."""
    predicted = np.asarray(predicted, np.float64)
    truth = np.asarray(truth, np.float64)
    if predicted.size == 0:
        return float("nan")
    return float(np.mean((predicted - truth) ** 2))


def calibration_scores(samples: pd.DataFrame) -> dict[str, float]:
    """``samples`` (rows of :func:`calibration_samples`) summarised: ``draw4s``,
    ``bluff_rate`` (the empirical base rate), ``mean_predicted``, ``brier``, ``base_brier``
    (always predicting the base rate) and ``skill`` (``1 - brier / base_brier``)."""
    truth = samples["bluff"].to_numpy(np.float64)
    predicted = samples["predicted"].to_numpy(np.float64)
    rate = float(truth.mean()) if truth.size else float("nan")
    brier = brier_score(predicted, truth)
    base = brier_score(np.full(truth.size, rate), truth)
    return {
        "draw4s": int(truth.size),
        "bluff_rate": rate,
        "mean_predicted": float(predicted.mean()) if truth.size else float("nan"),
        "brier": brier,
        "base_brier": base,
        "skill": 1.0 - brier / base if base > 0 else float("nan"),
    }


def reliability_table(
    samples: pd.DataFrame, bins: int = 10, confidence: float = 0.95
) -> pd.DataFrame:
    """Predictions binned into ``bins`` equal-width bins of [0, 1]: ``bin``, ``low_edge``,
    ``high_edge``, ``count``, ``mean_predicted``, ``empirical`` (share that were bluffs) with
    its Wilson interval ``empirical_low``, ``empirical_high``. Empty bins are left out."""
    predicted = samples["predicted"].to_numpy(np.float64)
    truth = samples["bluff"].to_numpy(bool)
    index = np.minimum((predicted * bins).astype(np.int64), bins - 1)
    count = np.bincount(index, minlength=bins)
    bluffs = np.bincount(index, weights=truth, minlength=bins)
    summed = np.bincount(index, weights=predicted, minlength=bins)
    used = count > 0
    low, high = wilson_interval(bluffs[used], count[used], confidence)
    edges = np.arange(bins) / bins
    return pd.DataFrame(
        {
            "bin": np.flatnonzero(used),
            "low_edge": edges[used],
            "high_edge": edges[used] + 1 / bins,
            "count": count[used],
            "mean_predicted": summed[used] / count[used],
            "empirical": bluffs[used] / count[used],
            "empirical_low": np.asarray(low),
            "empirical_high": np.asarray(high),
        }
    )


def write_calibration(
    folder, samples: pd.DataFrame, reliability: pd.DataFrame, scores: pd.DataFrame, note: str = ""
) -> None:
    """Write a study's calibration outputs into its run ``folder`` (nothing without samples):
    ``calibration_samples.parquet``, ``calibration.*`` (the reliability table),
    ``calibration_scores.*`` and the reliability diagram ``calibration.png`` (a quick run's
    ``note`` marks its title)."""
    from pathlib import Path

    from uno_rl.eval.run import write_atomic

    from .study_plots import plot_calibration

    if not len(samples):
        return
    folder = Path(folder)
    samples.to_parquet(folder / "calibration_samples.parquet", index=False)
    write_atomic(reliability, str(folder / "calibration"))
    write_atomic(scores, str(folder / "calibration_scores"))
    plot_calibration(reliability, folder / "calibration.png", note)

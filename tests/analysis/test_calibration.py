"""Calibration of the Bayesian bluff probability against simulated truth."""

import numpy as np
import pandas as pd
import pytest

from uno_rl.analysis.calibration import (
    brier_score,
    calibration_samples,
    calibration_scores,
    reliability_table,
)
from uno_rl.core.rules import load_rules


def test_samples_record_only_the_bluffers_challengeable_draw_fours():
    rules = load_rules("official", players=3)
    honest = calibration_samples(rules, "color-first", "color-first", 600, seed=1)
    assert len(honest) > 50 and not honest["bluff"].any()  # bluff=0 never bluffs
    bluffing = calibration_samples(rules, "color-first:bluff=1.0", "color-first", 600, seed=1)
    assert bluffing["bluff"].mean() > 0.3
    assert bluffing["predicted"].between(0, 1).all() and (bluffing["hand"] >= 1).all()
    again = calibration_samples(rules, "color-first:bluff=1.0", "color-first", 600, seed=1)
    pd.testing.assert_frame_equal(bluffing, again)


def test_the_estimate_is_informative_and_ranks_bluffs():
    """The calibration check: over 3000 official 2-player rounds of an always-bluffer, the
    public-information probability beats the base rate (Brier skill above 0) and the observed
    bluff share rises with it; it over-predicts, because a player who can choose shows a +4
    more often when it is legal than the card counts alone suggest."""
    rules = load_rules("official", players=2)
    samples = calibration_samples(rules, "color-first:bluff=1.0", "color-first", 3000, seed=2)
    scores = calibration_scores(samples)
    assert scores["draw4s"] == len(samples) > 1000
    assert scores["brier"] < scores["base_brier"] and scores["skill"] > 0.1
    assert scores["mean_predicted"] > scores["bluff_rate"]
    table = reliability_table(samples, bins=5)
    well_filled = table[table["count"] >= 50]
    assert np.corrcoef(well_filled["mean_predicted"], well_filled["empirical"])[0, 1] > 0.8
    assert table["count"].sum() == len(samples)
    assert (table["empirical_low"] <= table["empirical"] + 1e-12).all()


def test_brier_and_reliability_by_hand():
    samples = pd.DataFrame(
        {"predicted": [0.05, 0.15, 0.95, 0.95], "bluff": [False, False, True, False], "hand": 1}
    )
    assert brier_score(samples["predicted"], samples["bluff"]) == pytest.approx(
        (0.05**2 + 0.15**2 + 0.05**2 + 0.95**2) / 4
    )
    scores = calibration_scores(samples)
    assert scores["bluff_rate"] == 0.25 and scores["base_brier"] == pytest.approx(0.1875)
    table = reliability_table(samples, bins=10)
    assert table["bin"].tolist() == [0, 1, 9] and table["count"].tolist() == [1, 1, 2]
    assert table["empirical"].tolist() == [0.0, 0.0, 0.5]


def test_rules_without_a_challenge_are_refused():
    with pytest.raises(ValueError, match="no \\+4 challenge"):
        calibration_samples(load_rules("no-bluff"), "color-first", "color-first", 10)

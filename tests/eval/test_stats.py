"""Intervals and the paired test."""

import math

import numpy as np
import pytest

from uno_rl.eval.stats import mean_interval, paired_test, wilson_interval, z_value


def test_z_values():
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert z_value(0.99) == pytest.approx(2.575829, abs=1e-6)
    with pytest.raises(ValueError):
        z_value(1.0)


def test_wilson_known_values():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.40383, abs=1e-5) and high == pytest.approx(0.59617, abs=1e-5)
    low, high = wilson_interval(0, 10)
    assert low == pytest.approx(0.0, abs=1e-12) and high == pytest.approx(0.27754, abs=1e-5)
    low, high = wilson_interval([10, 0], [0, 5])
    assert math.isnan(low[0]) and high[1] > 0


def test_mean_interval_matches_numpy():
    x = np.random.default_rng(0).normal(3.0, 2.0, 5000)
    mean, low, high = mean_interval(x.sum(), (x * x).sum(), x.size)
    se = x.std(ddof=1) / np.sqrt(x.size)
    assert mean == pytest.approx(x.mean())
    assert high - mean == pytest.approx(1.959964 * se, rel=1e-6)
    assert low < 3.0 < high
    _, low1, _ = mean_interval(1.0, 1.0, 1)
    assert math.isnan(low1)


def test_paired_test():
    rng = np.random.default_rng(1)
    a = rng.random(4000)
    test = paired_test(a + 0.05, a + rng.normal(0, 0.1, 4000))
    assert test.n == 4000 and test.low < 0.05 < test.high and test.p_value < 1e-6
    same = paired_test(a, a)
    assert same.mean_difference == 0.0 and same.p_value == 1.0
    null = [paired_test(rng.random(500), rng.random(500)).p_value for _ in range(400)]
    assert 0.02 < np.mean(np.array(null) < 0.05) < 0.09  # about 5% false positives
    assert math.isnan(paired_test([1.0], [0.0]).p_value)

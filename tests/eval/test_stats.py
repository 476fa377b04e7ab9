"""Intervals and the paired test (SciPy underneath), and p-values past float64's range."""

import math

import numpy as np
import pytest
from scipy import stats

from uno_rl.eval.formats import p_value
from uno_rl.eval.stats import (
    paired_test,
    ratio_interval,
    t_log10_sf,
    wilson_interval,
    z_value,
)


def test_z_values():
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert z_value(0.99) == pytest.approx(2.575829, abs=1e-6)
    with pytest.raises(ValueError, match="confidence"):
        z_value(1.0)


def test_wilson_known_values():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.40383, abs=1e-5) and high == pytest.approx(0.59617, abs=1e-5)
    low, high = wilson_interval(0, 10)
    assert low == pytest.approx(0.0, abs=1e-12) and high == pytest.approx(0.27754, abs=1e-5)
    low, high = wilson_interval([10, 0], [0, 5])
    assert math.isnan(low[0]) and high[1] > 0
    low, high = wilson_interval(np.array([np.nan, 3.0]), np.array([np.nan, 9.0]), 0.99)
    assert math.isnan(low[0]) and 0 < low[1] < 1 / 3 < high[1]


def test_wilson_is_scipys_elementwise_and_rejects_bad_counts():
    k, n = np.array([[1, 7], [120, 0]]), np.array([[9, 7], [400, 1]])
    low, high = wilson_interval(k, n, 0.9)
    assert low.shape == high.shape == (2, 2)
    for index in np.ndindex(k.shape):
        ci = stats.binomtest(int(k[index]), int(n[index])).proportion_ci(0.9, method="wilson")
        assert (low[index], high[index]) == pytest.approx((ci.low, ci.high))
    with pytest.raises(ValueError, match="whole counts"):
        wilson_interval(2.5, 10)
    with pytest.raises(ValueError, match="whole counts"):
        wilson_interval(11, 10)


def test_ratio_interval_with_unit_weights_is_the_normal_mean_interval():
    x = np.random.default_rng(0).normal(3.0, 2.0, 5000)
    ones = np.ones_like(x)
    mean, low, high = ratio_interval(
        x.sum(), (x * x).sum(), ones.sum(), ones.sum(), x.sum(), x.size
    )
    se = x.std(ddof=1) / np.sqrt(x.size)
    assert mean == pytest.approx(x.mean())
    assert high - mean == pytest.approx(1.959964 * se, rel=1e-6)
    assert low < 3.0 < high
    _, low1, _ = ratio_interval(1.0, 1.0, 1.0, 1.0, 1.0, 1)
    assert math.isnan(low1)


def test_paired_test():
    rng = np.random.default_rng(1)
    a = rng.random(4000)
    b = a + rng.normal(0, 0.1, 4000)
    test = paired_test(a + 0.05, b)
    assert test.n == 4000 and test.low < 0.05 < test.high and test.p_value < 1e-6
    scipy_test = stats.ttest_rel(a + 0.05, b)
    assert test.t == pytest.approx(scipy_test.statistic)
    assert test.p_value == pytest.approx(scipy_test.pvalue)
    assert test.log10_p == pytest.approx(math.log10(scipy_test.pvalue))
    ci = scipy_test.confidence_interval(0.95)
    assert (test.low, test.high) == pytest.approx((ci.low, ci.high))
    same = paired_test(a, a)
    assert same.mean_difference == 0.0 and same.p_value == 1.0 and same.log10_p == 0.0
    shifted = paired_test(a + 1.0, a)  # every difference the same non-zero value
    assert shifted.mean_difference == pytest.approx(1.0)
    assert all(math.isnan(v) for v in (shifted.low, shifted.high, shifted.t, shifted.p_value))
    few = paired_test([3.0, 3.0], [1.0, 1.0])  # two equal deals: no interval, no verdict
    assert few.mean_difference == 2.0 and math.isnan(few.low) and math.isnan(few.log10_p)
    null = [paired_test(rng.random(500), rng.random(500)).p_value for _ in range(400)]
    assert 0.02 < np.mean(np.array(null) < 0.05) < 0.09  # about 5% false positives
    assert math.isnan(paired_test([1.0], [0.0]).p_value)


def test_a_paired_interval_is_cut_to_the_bounds_of_the_difference():
    # 49 deals won on both seatings, one split: +98 points of win rate, whose t interval at
    # 99% passes +100.
    a = np.r_[np.ones(49), 0.5]
    b = 1.0 - a
    free = paired_test(a, b, 0.99)
    cut = paired_test(a, b, 0.99, bounds=(-1.0, 1.0))
    assert free.high > 1.0 and cut.high == 1.0
    assert cut.low == free.low < cut.mean_difference == free.mean_difference
    assert (cut.t, cut.p_value) == (free.t, free.p_value)
    low_cut = paired_test(b, a, 0.99, bounds=(-1.0, 1.0))
    assert low_cut.low == -1.0 and low_cut.high == pytest.approx(-free.low)
    inside = paired_test(a[:10] * 0.3, b[:10] * 0.3 + 0.05, 0.95, bounds=(-1.0, 1.0))
    untouched = paired_test(a[:10] * 0.3, b[:10] * 0.3 + 0.05, 0.95)
    assert (inside.low, inside.high) == (untouched.low, untouched.high)


def test_t_tail_is_scipys_where_finite_and_continues_past_it():
    for t, df in ((3.0, 5.0), (20.0, 3999.0), (38.0, 3999.0)):
        assert t_log10_sf(t, df) == pytest.approx(stats.t.logsf(t, df) / math.log(10), rel=1e-9)
    # The closed form used past SciPy's range agrees with SciPy on its range's edge ...
    edge = 39.0
    assert np.isfinite(stats.t.logsf(edge, 3999.0))
    # ... and keeps falling, finitely, where SciPy's logsf is -inf.
    far = [t_log10_sf(t, 3999.0) for t in (45.0, 100.0, 1e3, 1e6)]
    assert all(np.isfinite(far)) and np.all(np.diff(far) < 0)
    assert not np.isfinite(stats.t.logsf(100.0, 3999.0))
    # Student's tail ~ c t^-df: log10 sf drops by df = 3999 per decade of t (three here).
    assert far[3] - far[2] == pytest.approx(-3 * 3999.0, rel=1e-3)
    assert t_log10_sf(math.inf, 10.0) == -math.inf and math.isnan(t_log10_sf(math.nan, 3.0))


def test_an_underflowing_p_value_is_reported_not_zero():
    rng = np.random.default_rng(2)
    a = rng.random(4000)
    test = paired_test(a + 0.3 + rng.normal(0, 0.01, 4000), a)  # t about 1900
    assert test.p_value == 0.0  # SciPy's p-value underflows ...
    assert np.isfinite(test.log10_p) and test.log10_p < -5000  # ... its logarithm does not
    assert p_value(test.p_value, test.log10_p) == "p < 1e-300"
    assert p_value(test.p_value) == "p < 1e-300"  # a 0 alone is read as underflow too

"""Confidence intervals and the paired test the evaluation tables report (SciPy).

All intervals are two-sided at ``confidence`` (default 95%). What SciPy does is taken from
SciPy: the normal quantile (:data:`scipy.stats.norm`), the Wilson interval of a proportion
(:func:`scipy.stats.binomtest`), the paired t-test and its interval
(:func:`scipy.stats.ttest_rel`). What is left here is what no library does: Wilson bounds
elementwise over arrays of counts, the ratio interval from sums over independent units, and
the base-10 logarithm of a paired test's p-value far past the float64 range (where SciPy's
p-value underflows to 0).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import special, stats

__all__ = [
    "RATE_DIFFERENCE",
    "PairedTest",
    "paired_test",
    "ratio_interval",
    "t_log10_sf",
    "wilson_interval",
    "z_value",
]


def z_value(confidence: float = 0.95) -> float:
    """Two-sided normal quantile: 1.96 for 95%, 2.576 for 99%."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return float(stats.norm.ppf(0.5 + confidence / 2.0))


def _wilson_one(k: float, n: float, confidence: float) -> tuple[float, float]:
    if not (np.isfinite(k) and np.isfinite(n)) or n <= 0:
        return math.nan, math.nan
    if k != round(k) or n != round(n) or not 0 <= k <= n:
        raise ValueError(
            f"wilson_interval needs whole counts 0 <= successes <= trials, got {k}/{n}"
        )
    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence, method="wilson")
    return float(ci.low), float(ci.high)


def wilson_interval(successes, trials, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of binomial proportions, elementwise: ``(low, high)`` float64
    arrays of the broadcast shape (0-d for scalars).

    ``successes`` and ``trials`` are whole counts (any numeric dtype); ``trials == 0`` or a
    NaN count gives ``nan`` bounds. Each bound is SciPy's
    ``binomtest(k, n).proportion_ci(confidence, method="wilson")``.
    """
    z_value(confidence)  # the one check of confidence, before any element
    k, n = np.broadcast_arrays(np.asarray(successes, np.float64), np.asarray(trials, np.float64))
    low, high = np.empty(k.shape), np.empty(k.shape)
    for index in np.ndindex(k.shape):  # one SciPy call per count: tables have few rows
        low[index], high[index] = _wilson_one(k[index], n[index], confidence)
    return low, high


def ratio_interval(sx, sxx, sn, snn, sxn, units, confidence: float = 0.95):
    """Ratio estimate ``sum(x) / sum(n)`` over independent units, with its interval, elementwise.

    Each unit ``i`` (a match, or a round's job) contributes a total ``x_i`` over ``n_i``
    sub-units (its rounds, or its copies of an agent), which need not be independent of each
    other. The mean per sub-unit is ``R = sum x / sum n``; its standard error is the usual
    linearized (delta-method) one, ``sqrt(sum (x_i - R n_i)^2 / (units - 1) * units) / sum n``,
    and the interval normal. With every ``n_i = 1`` this is the normal interval of a mean.
    The tables keep only these sums per row, so the interval is computed from them here.

    Args:
        sx, sxx: sums of ``x_i`` and of ``x_i ** 2``; sn, snn: of ``n_i`` and ``n_i ** 2``;
            sxn: of ``x_i * n_i``; units: how many units.

    Returns:
        ``(ratio, low, high)`` float64 arrays (``nan`` bounds where ``units < 2``).
    """
    z = z_value(confidence)
    sx, sxx, sn, snn, sxn, k = (np.asarray(v, np.float64) for v in (sx, sxx, sn, snn, sxn, units))
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = sx / sn
        residual = np.maximum(sxx - 2.0 * ratio * sxn + ratio * ratio * snn, 0.0)
        half = z * np.sqrt(residual / (k - 1.0) * k) / sn
    half = np.where(k >= 2, half, np.nan)
    return ratio, ratio - half, ratio + half


def t_log10_sf(t: float, df: float) -> float:
    """``log10 P(T > t)`` for Student's t with ``df`` degrees of freedom, finite far past the
    float64 range (``t`` of 1e6 at 4,000 degrees of freedom: about ``-16,794``).

    SciPy's ``t.logsf`` is used where it is finite; past it (it returns ``-inf`` from about
    ``t = 40`` at 4,000 degrees of freedom) the tail is the regularized incomplete beta
    ``I_x(df/2, 1/2) / 2``, ``x = df / (df + t^2)``, whose logarithm is taken in closed form,
    ``I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) 2F1(a + b, 1; a + 1; x)``.
    """
    if math.isnan(t) or math.isnan(df):
        return math.nan
    if t == math.inf:
        return -math.inf
    log_sf = float(stats.t.logsf(t, df))
    if math.isfinite(log_sf):
        return log_sf / math.log(10.0)
    x, a = df / (df + t * t), df / 2.0
    log_i = (
        a * math.log(x)
        + 0.5 * math.log1p(-x)
        - math.log(a)
        - float(special.betaln(a, 0.5))
        + math.log(float(special.hyp2f1(a + 0.5, 1.0, a + 1.0, x)))
    )
    return (log_i - math.log(2.0)) / math.log(10.0)


#: What a difference of two rates (rounds or matches won per round or match) can be: the
#: bounds of the paired intervals of win differences (:func:`paired_test`).
RATE_DIFFERENCE = (-1.0, 1.0)


@dataclasses.dataclass(frozen=True)
class PairedTest:
    """A paired comparison over the same deals: mean of ``a - b`` with its interval, the t
    statistic and the two-sided p-value; ``log10_p`` is ``log10(p_value)``, finite also where
    ``p_value`` underflows to 0 (``-inf`` only when every difference is the same non-zero
    value)."""

    n: int
    mean_difference: float
    low: float
    high: float
    t: float
    p_value: float
    log10_p: float


def paired_test(
    a, b, confidence: float = 0.95, bounds: tuple[float, float] | None = None
) -> PairedTest:
    """Two-sided paired t-test of ``mean(a - b) = 0`` (one pair per deal), by
    :func:`scipy.stats.ttest_rel`, with its t interval of the mean difference.

    ``bounds`` ``(low, high)``: the values the mean difference can take (rates in [0, 1]:
    ``(-1, 1)``); the t interval is cut to them. Near a bound the t interval's normal
    approximation can pass it (a side winning 98% of the matches: +98 points [+92.6,
    +103.4]); cut, it covers the true difference at least as often, as the cut-off part
    holds none of its possible values.

    With fewer than 2 pairs the result is all ``nan``. When every difference is the same
    value the sample has no spread and the t interval is undefined: if that value is 0 (the
    same results deal by deal) ``t = 0``, ``p = 1`` and the interval is ``[0, 0]``; otherwise
    the mean difference is that value and the interval, ``t`` and ``p`` are ``nan`` -- a
    handful of equal deals is no proof, and a zero-width interval would claim one.
    """
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    d = a - b
    n = int(d.size)
    if n < 2:
        return PairedTest(n, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)
    mean = float(d.mean())
    # No spread (up to rounding): SciPy would warn and return nan or a huge t.
    if np.ptp(d) <= 8 * np.finfo(np.float64).eps * float(np.abs(d).max()):
        if mean == 0.0:
            return PairedTest(n, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0)
        return PairedTest(n, mean, math.nan, math.nan, math.nan, math.nan, math.nan)
    result = stats.ttest_rel(a, b)
    ci = result.confidence_interval(confidence)
    low, high = float(ci.low), float(ci.high)
    if bounds is not None:
        low, high = max(low, float(bounds[0])), min(high, float(bounds[1]))
    t = float(result.statistic)
    log10_p = min(0.0, math.log10(2.0) + t_log10_sf(abs(t), float(result.df)))
    return PairedTest(n, mean, low, high, t, float(result.pvalue), log10_p)

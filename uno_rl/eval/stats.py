"""Confidence intervals and the paired test the evaluation tables report (NumPy + stdlib).

All intervals are two-sided at ``confidence`` (default 95%); the normal quantile comes from
:class:`statistics.NormalDist`, so no SciPy is needed.
"""

from __future__ import annotations

import dataclasses
import math
from statistics import NormalDist

import numpy as np

__all__ = [
    "PairedTest",
    "mean_interval",
    "paired_test",
    "ratio_interval",
    "wilson_interval",
    "z_value",
]


def z_value(confidence: float = 0.95) -> float:
    """Two-sided normal quantile: 1.96 for 95%, 2.576 for 99%."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(successes, trials, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of binomial proportions, elementwise: ``(low, high)`` float64.

    ``trials == 0`` gives ``nan`` bounds.
    """
    z = z_value(confidence)
    k = np.asarray(successes, np.float64)
    n = np.asarray(trials, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denom
        half = z * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
        low, high = np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
    bad = n <= 0
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


def mean_interval(total, total_sq, count, confidence: float = 0.95):
    """Mean and its normal-approximation interval from sums, elementwise.

    Args:
        total: sum of the values; total_sq: sum of their squares; count: how many.

    Returns:
        ``(mean, low, high)`` float64 arrays (``nan`` where ``count < 2`` for the bounds).
    """
    z = z_value(confidence)
    s = np.asarray(total, np.float64)
    s2 = np.asarray(total_sq, np.float64)
    n = np.asarray(count, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s / n
        variance = np.maximum(s2 - n * mean * mean, 0.0) / (n - 1.0)
        half = z * np.sqrt(variance / n)
    half = np.where(n >= 2, half, np.nan)
    return mean, mean - half, mean + half


def ratio_interval(sx, sxx, sn, snn, sxn, units, confidence: float = 0.95):
    """Ratio estimate ``sum(x) / sum(n)`` over independent units, with its interval, elementwise.

    Each unit ``i`` (a match, or a round's job) contributes a total ``x_i`` over ``n_i``
    sub-units (its rounds, or its copies of an agent), which need not be independent of each
    other. The mean per sub-unit is ``R = sum x / sum n``; its standard error is the usual
    linearized (delta-method) one, ``sqrt(sum (x_i - R n_i)^2 / (units - 1) * units) / sum n``.
    With every ``n_i = 1`` this is :func:`mean_interval`.

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


@dataclasses.dataclass(frozen=True)
class PairedTest:
    """A paired comparison over the same deals: mean of ``a - b`` with interval and p-value."""

    n: int
    mean_difference: float
    low: float
    high: float
    z: float
    p_value: float


def paired_test(a, b, confidence: float = 0.95) -> PairedTest:
    """Two-sided paired z-test of ``mean(a - b) = 0`` (one pair per deal).

    With thousands of deals the normal approximation of the mean difference is accurate; with
    fewer than 2 pairs the result is all ``nan``.
    """
    d = np.asarray(a, np.float64) - np.asarray(b, np.float64)
    n = int(d.size)
    if n < 2:
        return PairedTest(n, math.nan, math.nan, math.nan, math.nan, math.nan)
    mean = float(d.mean())
    se = float(d.std(ddof=1)) / math.sqrt(n)
    half = z_value(confidence) * se
    if se == 0.0:
        z = 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
    else:
        z = mean / se
    p = 2.0 * (1.0 - NormalDist().cdf(abs(z))) if math.isfinite(z) else 0.0
    return PairedTest(n, mean, mean - half, mean + half, z, p)

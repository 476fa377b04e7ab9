"""One text format per kind of figure, for every table and narrative the programs print.

* win rate (a share): ``54.3%`` (:func:`rate`);
* difference of two win rates: ``+1.2 pp``, percentage points (:func:`rate_difference`);
* net points per round: ``+1.23`` (:func:`points`);
* p-value: ``p = 0.31``, ``p = 0.004``, ``p = 3.2e-12``, and ``p < 1e-300`` past float64's
  normal range, never ``p = 0`` (:func:`p_value`);
* any of them with its interval: ``54.3% [53.1%, 55.4%]`` (:func:`with_interval`).

A missing value (``None``, NaN, ``pd.NA``) prints as ``-``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = [
    "P_FLOOR",
    "p_value",
    "points",
    "rate",
    "rate_difference",
    "with_interval",
]

#: Smallest p-value printed as a number; below it (and where it underflowed to 0): ``p < 1e-300``.
P_FLOOR = 1e-300


def _missing(value) -> bool:
    try:
        return value is None or math.isnan(float(value))
    except (TypeError, ValueError):
        return True  # pd.NA and other non-numbers


def rate(value) -> str:
    """A share as a percentage with one decimal: ``0.5432`` -> ``54.3%``."""
    return "-" if _missing(value) else f"{100 * float(value):.1f}%"


def rate_difference(value) -> str:
    """A difference of two shares in percentage points: ``0.012`` -> ``+1.2 pp``."""
    return "-" if _missing(value) else f"{100 * float(value):+.1f} pp"


def points(value) -> str:
    """Net points per round, signed, two decimals: ``1.234`` -> ``+1.23``."""
    return "-" if _missing(value) else f"{float(value):+.2f}"


def p_value(p, log10_p=None) -> str:
    """A two-sided p-value: ``p = 0.31``, ``p = 0.004``, ``p = 3.2e-12`` or ``p < 1e-300``.

    ``log10_p`` (optional, as the pair tables' ``*_log10_p``) decides when ``p`` underflowed;
    a ``p`` of 0 without it is taken as underflow too, so no p-value prints as ``p = 0``.
    """
    if _missing(p) and _missing(log10_p):
        return "p = -"
    if not _missing(log10_p):
        tiny = float(log10_p) < math.log10(P_FLOOR)
    else:
        tiny = float(p) < P_FLOOR
    if tiny:
        return f"p < {P_FLOOR:.0e}"
    p = float(p) if not _missing(p) else 10.0 ** float(log10_p)
    if p >= 0.01:
        return f"p = {p:.2f}"
    if p >= 0.001:
        return f"p = {p:.3f}"
    return f"p = {p:.1e}"


def with_interval(value, low, high, kind: Callable[[object], str] = rate) -> str:
    """``value [low, high]`` each in the format ``kind`` (:func:`rate`, :func:`points`, ...):
    ``54.3% [53.1%, 55.4%]``; ``-`` when the value is missing, the value alone without
    bounds."""
    if _missing(value):
        return "-"
    if _missing(low) or _missing(high):
        return kind(value)
    return f"{kind(value)} [{kind(low)}, {kind(high)}]"

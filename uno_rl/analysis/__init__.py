"""Analytic companions to the simulations (NumPy only): the +4 bluff and its challenge."""

from .bluff import (
    OBJECTIVES,
    bluff_kinds,
    bluff_probability,
    challenge_break_even,
    unseen_counts,
)

__all__ = [
    "OBJECTIVES",
    "bluff_kinds",
    "bluff_probability",
    "challenge_break_even",
    "unseen_counts",
]

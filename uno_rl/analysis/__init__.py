"""The +4 bluff and its challenge: the analytic side (:mod:`.bluff`, NumPy only), the
calibration of the Bayesian bluff probability against simulation (:mod:`.calibration`) and the
bluff study's tables, best answers and plots (:mod:`.study`)."""

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

"""The +4 bluff and its challenge: the analytic side (:mod:`.bluff`, NumPy only), the
calibration of the Bayesian bluff probability against simulation (:mod:`.calibration`), the
bluff study's tables, best answers and equilibrium (:mod:`.study`) and its figures
(:mod:`.study_plots`); and the narrative of any experiment run, who leads where the lead is
separable (:mod:`.variants`)."""

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

"""The +4 bluff and its challenge: the analytic side (:mod:`uno_rl.agents.bluff`, NumPy only,
beside the agents that challenge with it; its names re-exported here), the calibration of the
Bayesian bluff probability against simulation (:mod:`.calibration`), the bluff study's tables
(:mod:`.study`), best answers and equilibrium (:mod:`.equilibrium`) and figures
(:mod:`.study_plots`); and the narrative of any experiment run, who leads where the lead is
separable (:mod:`.variants`)."""

from uno_rl.agents.bluff import (
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

"""The +4 bluff, analytically: re-exported from :mod:`uno_rl.agents.bluff`.

The math lives a layer down, beside the agents that challenge with it
(:mod:`uno_rl.agents.challenge`), so that agents never import from the analysis layer.
"""

from uno_rl.agents.bluff import (
    FAILED_CHALLENGE_EXTRA,
    OBJECTIVES,
    bluff_kinds,
    bluff_probability,
    challenge_break_even,
    unseen_counts,
)

__all__ = [
    "FAILED_CHALLENGE_EXTRA",
    "OBJECTIVES",
    "bluff_kinds",
    "bluff_probability",
    "challenge_break_even",
    "unseen_counts",
]

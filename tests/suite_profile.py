"""How long the suite's sweeps run: the ``ci`` profile (the default) or the ``long`` one.

The sweeps (rounds played engine against reference, Hypothesis examples) are sized here, not in
each test. ``ci`` fits ``make test`` in its time budget; ``long`` plays every sweep at full size
(more rounds, five times the Hypothesis examples) and is run on demand::

    UNO_RL_TEST_PROFILE=long make test        # or: make test-long

Both profiles run the same tests with the same assertions: only the sizes change.
"""

from __future__ import annotations

import os

#: The environment variable that picks the profile.
VARIABLE = "UNO_RL_TEST_PROFILE"

#: Per profile: the share of a sweep's full round count that is played, and the multiple of a
#: Hypothesis test's base example count that is drawn.
PROFILES = {
    "ci": {"rounds": 0.04, "examples": 0.07},
    "long": {"rounds": 1.0, "examples": 5.0},
}

#: The active profile (``tests/conftest.py`` refuses an unknown name before collection).
NAME = os.environ.get(VARIABLE, "").strip() or "ci"


def problem() -> str | None:
    """One line naming what is wrong with the chosen profile, or None."""
    if NAME in PROFILES:
        return None
    return f"{VARIABLE}={NAME!r} is not a test profile (choose from {', '.join(PROFILES)})"


def rounds(full: int) -> int:
    """Rounds a sweep plays under the active profile: ``full`` in ``long``, a share in ``ci``."""
    return max(1, round(full * PROFILES[NAME]["rounds"]))


def examples(base: int) -> int:
    """Hypothesis examples for a test whose base count is ``base`` under the active profile."""
    return max(1, round(base * PROFILES[NAME]["examples"]))

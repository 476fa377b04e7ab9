"""Choosing a color: the color a heuristic names, and the color it favours when ranking cards.

Every heuristic names the color it holds most of (a Wild, a +4, any card of rules specification
§11 that names a color, the color of a first-card Wild); ``color-first`` and ``aggressive``
favour that color's cards too. Ties between colors are broken at random with the caller's
generator, so a seeded run replays exactly.
"""

from __future__ import annotations

import numpy as np

from .view import ObservationView

__all__ = ["TIE_NOISE", "most_held_color"]

#: Scale of the random tie-break added to counts (hand sizes, color counts): far below the
#: difference of one card, so it only orders equal counts.
TIE_NOISE = 1e-3


def most_held_color(view: ObservationView, rng: np.random.Generator) -> np.ndarray:
    """(k,) int64: the color (0 red .. 3 blue) the player holds most cards of, ties at random
    (one draw of ``rng.random((k, 4))``)."""
    counts = view.color_counts + rng.random(view.color_counts.shape) * TIE_NOISE
    return counts.argmax(axis=1)

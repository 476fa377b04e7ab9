"""Uniformly random legal actions compiled: :func:`sample_legal_actions` is
:func:`uno_rl.core.sampling.sample_legal_actions` (the same generator draws, the same
actions, the same error), one pass over each mask row instead of NumPy's passes over the
batch."""

from __future__ import annotations

import numpy as np

from .nb_jit import batch


@batch
def pick_actions(mask, uniforms, out, legal):
    """Into ``out[i]``: legal action number ``floor(uniforms[i] * count)`` of row ``i`` of
    ``mask`` ((N, A) uint8, a bool mask's bytes), in ascending order; returns the first row
    without a legal action, or -1. ``legal`` ((A,) int64) is scratch: one branch-free pass
    lists a row's legal actions."""
    n, width = mask.shape
    for i in range(n):
        count = 0
        for action in range(width):
            legal[count] = action  # kept only if legal: the next one overwrites it if not
            count += np.int64(mask[i, action])
        if count == 0:
            return i
        out[i] = legal[np.int64(uniforms[i] * count)]
    return -1


def sample_legal_actions(mask: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """(N,) int64: a uniformly random legal action per game (each game needs one), as
    :func:`uno_rl.core.sampling.sample_legal_actions` draws it.

    Args:
        mask: (N, A) bool legal mask.
        generator: explicit, seeded ``numpy.random.Generator``.
    """
    mask = np.ascontiguousarray(mask, dtype=bool)
    n = mask.shape[0]
    before = generator.bit_generator.state  # NumPy's draws nothing for a game without actions
    uniforms = generator.random(n)
    out = np.empty(n, np.int64)
    legal = np.empty(mask.shape[1], np.int64)
    empty = pick_actions(mask.view(np.uint8), uniforms, out, legal)
    if empty >= 0:
        generator.bit_generator.state = before
        raise ValueError(f"game {empty} has no legal action (is it over?)")
    return out

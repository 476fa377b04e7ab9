"""Uniformly random legal actions over a batch of (N, A) bool legal masks.

:func:`sample_legal_actions` is the random policy every layer uses (random agents, the
envs' opponents, the bench); its randomness is the caller's explicit, seeded Generator.
"""

from __future__ import annotations

import numpy as np

from .backend import compiled_engine


def _true_positions(flat: np.ndarray) -> np.ndarray:
    """(m,) int64 positions of the True entries of a 1-d bool array, ascending.

    Same as ``np.flatnonzero`` but faster on the sparse legal masks: it scans the array as
    8-byte words first and looks inside the nonzero words only.
    """
    if flat.size < 4096:
        return np.flatnonzero(flat)
    head = flat.size - flat.size % 8
    words = np.flatnonzero(flat[:head].view(np.uint64) != 0)
    inside = np.flatnonzero(np.take(flat[:head].reshape(-1, 8), words, axis=0))
    found = words[inside >> 3] * 8 + (inside & 7)
    if head == flat.size:
        return found
    return np.concatenate([found, head + np.flatnonzero(flat[head:])])


def sample_legal_actions(mask: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """(N,) int64: a uniformly random legal action per game, from the engine in use
    (:mod:`uno_rl.core.backend`; both draw the same actions): see :func:`sample_numpy`."""
    compiled = compiled_engine()
    if compiled is not None:
        return compiled.sample_legal_actions(mask, generator)
    return sample_numpy(mask, generator)


def sample_numpy(mask: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """(N,) int64: a uniformly random legal action per game (each game needs one; NumPy).

    Args:
        mask: (N, A) bool legal mask (A: the layout's actions, :mod:`uno_rl.core`).
        generator: explicit, seeded ``numpy.random.Generator``.
    """
    n, width = mask.shape
    # Index into the row-major list of all legal (game, action) pairs: no per-row cumsum.
    legal = _true_positions(np.ascontiguousarray(mask, dtype=bool).reshape(-1))
    counts = np.bincount(legal // width, minlength=n)
    if not counts.all():
        raise ValueError(
            f"game {int(np.flatnonzero(counts == 0)[0])} has no legal action (is it over?)"
        )
    first = np.cumsum(counts) - counts
    pick = first + (generator.random(n) * counts).astype(np.int64)
    return legal[pick] - np.arange(n, dtype=np.int64) * width

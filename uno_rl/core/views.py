"""Batched addressing shared by the engine modules: flat views, (game, seat) rows, seat order.

Every helper takes ``s`` and ``g`` (conventions: :mod:`uno_rl.core`); ``seats`` may be int8
or int64 here. Advanced indexing with one flat index is several times faster than with two or
three index arrays, so the hot paths address (game, seat) pairs and cards through flat 1-d
views: ``hands.reshape(-1)[(g * P + seat) * K + kind]``, ``pile.reshape(-1)[g * D + lane]``.
"""

from __future__ import annotations

import numpy as np

from .state import State
from .tables import NEXT_SEAT

#: (0,) int64: an empty group of games.
NO_ROWS = np.zeros(0, np.int64)


def flat_view(a: np.ndarray) -> np.ndarray:
    """A 1-d view of the C-contiguous state array ``a`` (writes go through)."""
    if not a.flags.c_contiguous:
        raise ValueError("State arrays must be C-contiguous (build states with State.empty)")
    return a.reshape(-1)


def seat_rows(s: State, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(k,) int64 flat (game, seat) index: row of ``hands.reshape(N * P, K)``."""
    return g * s.rules.players + seats


def hands_rows(s: State) -> np.ndarray:
    """``s.hands`` as an (N * P, K) view: one row per (game, seat) (K kinds of the layout)."""
    return flat_view(s.hands).reshape(-1, s.hands.shape[2])


def hand_of(s: State, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(k, K) int8 copy of the hands of ``seats`` in games ``g``."""
    # np.take copies whole rows: several times faster than fancy indexing for row gathers.
    return np.take(hands_rows(s), seat_rows(s, g, seats), axis=0)


def next_seat(s: State, g: np.ndarray, seats: np.ndarray, steps: int = 1) -> np.ndarray:
    """(k,) int8: the seat ``steps`` places after ``seats`` in the direction of play."""
    p = s.rules.players
    # NEXT_SEAT[p, steps] flattened: row direction + 1 (0 or 2), column seat.
    return NEXT_SEAT[p, steps][(s.direction[g] + 1) * p + seats]


def group(keys: np.ndarray, count: int) -> list[np.ndarray]:
    """Indices of ``keys`` ((k,) small non-negative ints below ``count``) grouped by value:
    ``count`` (m_i,) int64 arrays, each ascending. One stable sort, not ``count`` scans."""
    if keys.size and (keys == keys[0]).all():  # the common case: one group, no sort
        groups = [NO_ROWS] * count
        groups[int(keys[0])] = np.arange(keys.size)
        return groups
    order = np.argsort(keys, kind="stable")
    bounds = np.bincount(keys, minlength=count).cumsum().tolist()
    return [order[start:stop] for start, stop in zip([0, *bounds[:-1]], bounds)]

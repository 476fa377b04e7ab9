"""Lookup tables of the batched engine, built at import from :mod:`.cards` and :mod:`.actions`.

The engine turns rules into index-and-compare on these tables (no Python loop over cards).
What a card kind *is* (color, rank, points, copies) lives in :mod:`.cards`; the tables here
are what the engine derives from it for matching, masking and scoring:

================  ==================  ========================================================
name              shape, dtype        meaning
================  ==================  ========================================================
``MATCHES``       (54, 5, 54) bool    ``[top, color, kind]``: colored ``kind`` matches the
                                      current ``color`` (index -1 = 4: none yet) or the
                                      symbol of the ``top`` card
``MATCH_ROWS``    (270, 54) bool      ``MATCHES`` with one row per ``top * 5 + color + 1``
``IS_DRAW_TWO``   (54,) bool          the four +2 kinds
``KIND_ACTIONS``  (54, 77) bool       the actions that play a card of each kind
``POINTS``        (54,) int32         points of a card left in hand
``NEXT_SEAT``     dict of (3P,) int8  ``[(P, steps)][(direction + 1) * P + seat]``: the seat
                                      ``steps`` places after ``seat`` (P 2..10, steps 1, 2)
``LANES``         (1000,) int64       ``0 .. 999``: lane index of a pile row
``KINDS_INT8``    (54,) int8          ``0 .. 53``: the kinds, in canonical order
================  ==================  ========================================================
"""

from __future__ import annotations

import numpy as np

from .actions import ACTION_CARD, NUM_ACTIONS
from .cards import DRAW_TWO_RANK, KIND_COLOR, KIND_POINTS, NUM_KINDS, SAME_SYMBOL

#: (54 top kinds, 5 colors incl. -1 at index 4, 54 kinds) bool: colored kind matches color or symbol.
MATCHES = np.zeros((NUM_KINDS, 5, NUM_KINDS), dtype=bool)
for _top in range(NUM_KINDS):
    for _c in range(-1, 4):
        MATCHES[_top, _c] = ((KIND_COLOR == _c) & (KIND_COLOR >= 0)) | SAME_SYMBOL[_top]
#: MATCHES with (top, color) flattened to one row index ``top * 5 + color + 1``.
MATCH_ROWS = np.ascontiguousarray(MATCHES[:, [4, 0, 1, 2, 3]]).reshape(-1, NUM_KINDS)
#: (54,) bool: the four +2 kinds.
IS_DRAW_TWO = np.zeros(NUM_KINDS, dtype=bool)
IS_DRAW_TWO[[c * 13 + DRAW_TWO_RANK for c in range(4)]] = True
#: (54, 77) bool: the actions that play a card of each kind.
KIND_ACTIONS = np.zeros((NUM_KINDS, NUM_ACTIONS), dtype=bool)
for _k in range(NUM_KINDS):
    KIND_ACTIONS[_k, ACTION_CARD == _k] = True
#: (54,) int32: points of a card left in hand, widened for sums over hands.
POINTS = KIND_POINTS.astype(np.int32)
#: (1000,) int64: lane index of a (k, D) pile row (D at most 1000 cards, decks.MAX_CARDS).
LANES = np.arange(1000)
#: (54,) int8: every kind, in canonical order.
KINDS_INT8 = np.arange(NUM_KINDS, dtype=np.int8)
#: (players, steps) -> (3 * players,) int8: seat ``steps`` after each seat, by direction + 1.
NEXT_SEAT = {
    (_p, _steps): np.concatenate(
        [(np.arange(_p) - _steps) % _p, np.zeros(_p, np.int64), (np.arange(_p) + _steps) % _p]
    ).astype(np.int8)
    for _p in range(2, 11)
    for _steps in (1, 2)
}

"""Lookup tables of the batched engine that no card layout changes, built at import.

The engine turns rules into index-and-compare on tables (no Python loop over cards). The
tables of a card layout (matching, the actions of each kind, points) are cached properties of
its :class:`~uno_rl.core.layout.Layout` (``rules.layout``); the ones here depend only on the
player count or a pile's length (conventions: :mod:`uno_rl.core`):

================  ==================  ========================================================
name              shape, dtype        meaning
================  ==================  ========================================================
``NEXT_SEAT``     dict of (3P,) int8  ``[(P, steps)][(direction + 1) * P + seat]``: the seat
                                      ``steps`` places after ``seat`` (P 2..10, steps 1, 2)
``LANES``         (1000,) int64       ``0 .. 999``: lane index of a pile row
``MATCHES``       (54, 5, 54) bool    the classic layout's ``matches``, and
``KIND_ACTIONS``  (54, 77) bool       its ``kind_actions``, built here from :mod:`.cards` and
                                      :mod:`.actions` alone: the independent check that
                                      ``tests/core/test_decks.py`` holds the layout's to
================  ==================  ========================================================
"""

from __future__ import annotations

import numpy as np

from .actions import ACTION_CARD, NUM_ACTIONS
from .cards import KIND_COLOR, NUM_KINDS, SAME_SYMBOL

#: (54 top kinds, 5 colors incl. -1 at index 4, 54 kinds) bool: colored kind matches color or
#: symbol (the classic layout's; the engine reads ``rules.layout.matches``).
MATCHES = np.zeros((NUM_KINDS, 5, NUM_KINDS), dtype=bool)
for _top in range(NUM_KINDS):
    for _c in range(-1, 4):
        MATCHES[_top, _c] = ((KIND_COLOR == _c) & (KIND_COLOR >= 0)) | SAME_SYMBOL[_top]
#: (54, 77) bool: the actions that play a card of each kind (the classic layout's; the engine
#: reads ``rules.layout.kind_actions``).
KIND_ACTIONS = np.zeros((NUM_KINDS, NUM_ACTIONS), dtype=bool)
for _k in range(NUM_KINDS):
    KIND_ACTIONS[_k, ACTION_CARD == _k] = True
#: (1000,) int64: lane index of a (k, D) pile row (D at most 1000 cards, decks.MAX_CARDS).
LANES = np.arange(1000)
#: (players, steps) -> (3 * players,) int8: seat ``steps`` after each seat, by direction + 1.
NEXT_SEAT = {
    (_p, _steps): np.concatenate(
        [(np.arange(_p) - _steps) % _p, np.zeros(_p, np.int64), (np.arange(_p) + _steps) % _p]
    ).astype(np.int8)
    for _p in range(2, 11)
    for _steps in (1, 2)
}

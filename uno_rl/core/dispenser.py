"""The random card dispenser (decks that have one, ``dispenser``): pressing it, and what it
shoots when it fires.

Without a dispenser a press is a draw of one card. The hit cards
(:mod:`.draw_penalties`), a voluntary draw and a forgotten UNO's penalty
(:mod:`.card_moves`) press it. Arguments follow the core's conventions (:mod:`uno_rl.core`;
``seats`` the seats pressing).
"""

from __future__ import annotations

import numpy as np

from . import rng
from .piles import draw_cards
from .state import State


def fire_counts(s: State, g: np.ndarray) -> np.ndarray:
    """(k,) int64: cards shot by the fire of each game's press ``press_index`` (used up)."""
    cdf = np.cumsum(s.rules.dispenser_count)
    u = rng.uniform(s.key[g], rng.DISPENSER, s.press_index[g], 1)
    s.press_index[g] += 1
    return np.minimum(np.searchsorted(cdf, u, side="right"), cdf.size - 1) + 1


def press(s: State, g: np.ndarray, seats: np.ndarray, presses: np.ndarray, until_fire=False):
    """``seats`` press the dispenser ``presses[i]`` times ((k,) int64), or until it fires;
    without a dispenser they draw as many cards (until fire: one fire's count).

    A press fires when ``uniform(key, DISPENSER, press_index, 0)`` is below
    ``dispenser_hazard[presses since the last fire]``; a fire shoots a count from
    ``dispenser_count`` (:func:`fire_counts`). ``g`` holds each game at most once.
    """
    rules = s.rules
    if not rules.dispenser_on:
        if until_fire:
            draw_cards(s, g, seats, fire_counts(s, g))
        else:
            draw_cards(s, g, seats, presses)
        return
    hazard = np.asarray(rules.dispenser_hazard)
    left = np.ones(g.size, np.int64) if until_fire else np.asarray(presses, np.int64).copy()
    rows = np.flatnonzero(left > 0)
    while rows.size:  # one press per game and pass: a handful of passes
        gg = g[rows]
        u = rng.uniform(s.key[gg], rng.DISPENSER, s.press_index[gg], 0)
        fire = u < hazard[np.minimum(s.presses[gg], hazard.size - 1)]
        missed = rows[~fire]
        s.presses[g[missed]] += 1
        s.press_index[g[missed]] += 1
        hit = rows[fire]
        if hit.size:
            draw_cards(s, g[hit], seats[hit], fire_counts(s, g[hit]))
            s.presses[g[hit]] = 0
        if until_fire:
            left[hit] = 0
        else:
            left[rows] -= 1
        rows = rows[left[rows] > 0]

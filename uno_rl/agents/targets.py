"""Choosing a target or a victim: the seat a heuristic names in the target phase.

The target phase asks for a seat after a 7 (``seven_zero``) and a Wild Swap Hands (the seat to
swap hands with) and after a Targeted +2 / +4 (the victim who draws); the card on top says
which. Every heuristic chooses the same way, from the observation only (hand sizes are by
relative seat, 0 the observer; k games, P players):

* a swap: the legal seat holding the fewest cards, ties at random;
* a targeted draw: the legal seat holding the fewest cards, ties to the one that plays first
  from the observer on (the next player, who then also loses the turn, when tied).

:func:`swap_targets` says which seats a Swap Hands could choose (what it would gain is
:func:`.play_order.swap_gain`).
"""

from __future__ import annotations

import numpy as np

from uno_rl.core.actions import TARGET
from uno_rl.core.layout import TARGETED_FOUR, TARGETED_TWO
from uno_rl.core.rules import Rules

from .colors import TIE_NOISE
from .view import ObservationView

__all__ = ["choose_target", "is_targeted", "swap_targets", "targeted_victims"]


def swap_targets(view: ObservationView, rules: Rules) -> np.ndarray:
    """(k, P) bool: the relative seats a Swap Hands could choose (never seat 0; not a seat in
    UNO under ``swap_excludes_uno``)."""
    sizes = view.hand_sizes
    ok = sizes >= 1
    if rules.swap_excludes_uno:
        ok &= sizes != 1
    ok[:, 0] = False
    return ok


def targeted_victims(view: ObservationView, legal: np.ndarray) -> np.ndarray:
    """(k,) int64: index of the seat action (0 = relative seat 1) naming the victim of a
    Targeted +2 / +4: the legal seat with the fewest cards, ties to the one that plays first
    from the observer on (the next player first). ``legal``: (k, P - 1) bool seat actions."""
    sizes = view.hand_sizes[:, 1:].astype(np.float64)
    key = sizes * view.players + view.play_order[:, 1:]
    key[~legal] = np.inf
    return key.argmin(axis=1)


def is_targeted(view: ObservationView, rules: Rules) -> np.ndarray:
    """(k,) bool: the card on top is a Targeted +2 / +4 (the target phase names a victim)."""
    effect = rules.effect_rank[np.maximum(view.top, 0)]
    return (effect == TARGETED_TWO) | (effect == TARGETED_FOUR)


def choose_target(
    view: ObservationView, masks: np.ndarray, rules: Rules, rng: np.random.Generator
) -> np.ndarray:
    """(k,) int64: the target-phase actions (``TARGET + i`` names relative seat ``i + 1``) of
    games in the target phase with legal ``masks`` (k, A): a swap partner or a targeted
    draw's victim, as the module docstring says. Draws ``rng.random((k, P - 1))`` once."""
    others = view.hand_sizes[:, 1:].astype(np.float64)
    others = others + rng.random(others.shape) * TIE_NOISE
    legal = masks[:, TARGET : TARGET + others.shape[1]]
    others[~legal] = np.inf
    choice = np.where(
        is_targeted(view, rules), targeted_victims(view, legal), others.argmin(axis=1)
    )
    return TARGET + choice

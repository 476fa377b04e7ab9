"""Ordering plays: what moves a card ahead of the others in a heuristic's ranking, or holds it back.

Every function reads the observation only (an :class:`~uno_rl.agents.view.ObservationView`)
and the agent's rules: a kind's effect is its ``rules.effect_rank`` symbol (a Wild
Customizable has the one ``customizable_as`` gives it). Shapes: k games, K kinds of the rules'
layout (54 classic, 75 extended), P players; hand sizes are by relative seat (0: the observer).
Where no kind of the layout has the effect, the effect's arrays are zero.

* A **Wild Swap Hands** leaves its player, once played, with the hand of the target, who
  gets the ``h - 1`` others: its *gain* is ``h - 1 - t`` for the target with the fewest cards
  ``t``, among the seats it may choose (:func:`.targets.swap_targets`).
* A **Wild Shuffle Hands** deals the ``S - 1`` cards of all hands one at a time from its
  player's left, so the player (dealt last) gets ``(S - 1) // P``: its gain is
  ``h - 1 - (S - 1) // P``, positive when the hand is larger than the average the deal gives.
* Every heuristic plays a Swap or Shuffle Hands that gains cards before anything else
  (:func:`gain_bonus`) and holds back one that would lose cards (:func:`held_back`).
* A **Discard All** sheds with it every other card of its color the player holds: the
  strategies rank it by the cards (:func:`discard_all_shed`, :func:`sheds_several`) or the
  points (:func:`discard_all_points`) it sheds.
"""

from __future__ import annotations

import numpy as np

from uno_rl.core import cards
from uno_rl.core.layout import DISCARD_ALL, SHUFFLE_HANDS, SWAP_HANDS
from uno_rl.core.rules import Rules

from .targets import swap_targets
from .view import ObservationView

__all__ = [
    "GAIN_BONUS",
    "SEVERAL",
    "changes_hands",
    "discard_all_points",
    "discard_all_shed",
    "gain_bonus",
    "held_back",
    "sheds_discard_all",
    "sheds_several",
    "shuffle_gain",
    "swap_gain",
]

#: Score added to a Swap or Shuffle Hands that gains cards: played before anything else.
GAIN_BONUS = 1e6
#: A Discard All counts as shedding "several" cards from this many other cards of its color.
SEVERAL = 2
_NO_TARGET = 10_000


def _own(view: ObservationView) -> np.ndarray:
    return view.hand_sizes[:, 0]


def _effect_kinds(rules: Rules, symbol: int) -> np.ndarray:
    """(K,) bool: kinds with the effect of ``symbol``."""
    return rules.effect_rank == symbol


def changes_hands(rules: Rules) -> bool:
    """Whether some kind of the rules' deck layout has a Swap or Shuffle Hands effect (else
    :func:`held_back` and :func:`gain_bonus` are all zero)."""
    return bool(np.isin(rules.effect_rank, (SWAP_HANDS, SHUFFLE_HANDS)).any())


def sheds_discard_all(rules: Rules) -> bool:
    """Whether some kind of the rules' deck layout has the Discard All effect (else the
    Discard All arrays are all zero)."""
    return bool(_effect_kinds(rules, DISCARD_ALL).any())


def swap_gain(view: ObservationView, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """((k,) int64 gain, (k,) bool has_target): cards a Swap Hands saves against a plain
    card (``h - 1 - t``); 0 where nobody can be chosen (it is then a plain Wild)."""
    targets = swap_targets(view, rules)
    fewest = np.where(targets, view.hand_sizes, _NO_TARGET).min(axis=1)
    has = targets.any(axis=1)
    return np.where(has, _own(view) - 1 - fewest, 0), has


def shuffle_gain(view: ObservationView) -> np.ndarray:
    """(k,) int64: cards a Shuffle Hands saves against a plain card (``h - 1 - (S-1)//P``)."""
    total = view.hand_sizes.sum(axis=1)
    return _own(view) - 1 - (total - 1) // view.players


def held_back(view: ObservationView, rules: Rules) -> np.ndarray:
    """(k, K) bool: Swap and Shuffle Hands that would leave the player more cards than a
    plain card (negative gain), except a last card (it wins at once, without its effect)."""
    k, kinds = view.num_games, rules.layout.num_kinds
    out = np.zeros((k, kinds), bool)
    last = _own(view) <= 1
    swap, _ = swap_gain(view, rules)
    out |= ((swap < 0) & ~last)[:, None] & _effect_kinds(rules, SWAP_HANDS)[None, :]
    out |= ((shuffle_gain(view) < 0) & ~last)[:, None] & _effect_kinds(rules, SHUFFLE_HANDS)
    return out


def gain_bonus(view: ObservationView, rules: Rules) -> np.ndarray:
    """(k, K) float64: :data:`GAIN_BONUS` plus the gain for Swap and Shuffle Hands that gain
    cards (0 elsewhere): such a card goes before any other."""
    swap, _ = swap_gain(view, rules)
    out = np.zeros((view.num_games, rules.layout.num_kinds))
    for gain, symbol in ((swap, SWAP_HANDS), (shuffle_gain(view), SHUFFLE_HANDS)):
        bonus = np.where(gain > 0, GAIN_BONUS + gain, 0.0)
        out += bonus[:, None] * _effect_kinds(rules, symbol)[None, :]
    return out


def discard_all_shed(view: ObservationView, rules: Rules) -> np.ndarray:
    """(k, K) float32: for each Discard All kind, the other cards of its color the player
    holds (what it would shed with it); 0 for every other kind."""
    layout = rules.layout
    is_discard_all = _effect_kinds(rules, DISCARD_ALL)
    color = np.maximum(layout.kind_color, 0)
    others = view.color_counts[:, color] - 1.0
    return np.where(is_discard_all[None, :], np.maximum(others, 0.0), 0.0).astype(np.float32)


def sheds_several(view: ObservationView, rules: Rules) -> np.ndarray:
    """(k, K) float64: the other cards a Discard All sheds where at least :data:`SEVERAL`,
    else 0 (such a Discard All goes before the other cards of its color)."""
    shed = discard_all_shed(view, rules).astype(np.float64)
    return np.where(shed >= SEVERAL, shed, 0.0)


def discard_all_points(view: ObservationView, rules: Rules) -> np.ndarray:
    """(k, K) float64: for each Discard All kind, the points of the other cards of its color
    the player holds (its own excluded); 0 for every other kind."""
    layout = rules.layout
    by_color = np.zeros((layout.num_kinds, cards.NUM_COLORS))
    colored = layout.colored
    by_color[colored, layout.kind_color[colored]] = layout.points[colored]
    held = view.hand.astype(np.float64) @ by_color  # (k, 4) points held of each color
    is_discard_all = _effect_kinds(rules, DISCARD_ALL)
    color = np.maximum(layout.kind_color, 0)
    own = layout.points.astype(np.float64)
    return np.where(is_discard_all[None, :], np.maximum(held[:, color] - own, 0.0), 0.0)

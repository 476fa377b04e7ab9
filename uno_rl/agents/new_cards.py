"""What the heuristics know about the cards of rules specification §11, from the observation only.

Every function reads an :class:`~uno_rl.agents.view.ObservationView` in the extended layout
(75 kinds) and the agent's rules (``rules.effect_rank``: a Wild Customizable has the effect
``customizable_as`` gives it); nothing reads hidden state. Shapes: k games, K = 75 kinds,
P players; hand sizes are relative seats (0: the observer).

* A **Wild Swap Hands** leaves its player, once played, with the hand of the target, who
  gets the ``h - 1`` others: its *gain* is ``h - 1 - t`` for the target with the fewest cards
  ``t``, among the seats it may choose (not one in UNO under ``swap_excludes_uno``).
* A **Wild Shuffle Hands** deals the ``S - 1`` cards of all hands one at a time from its
  player's left, so the player (dealt last) gets ``(S - 1) // P``: its gain is
  ``h - 1 - (S - 1) // P``, positive when the hand is larger than the average the deal gives.
* A **Discard All** sheds with it every other card of its color the player holds.
* A **Boomerang** sends the pending draw (or Skip) back to the card's player.
"""

from __future__ import annotations

import numpy as np

from uno_rl.core import cards
from uno_rl.core.layout import (
    BOOMERANG,
    DISCARD_ALL,
    EXTENDED,
    SHUFFLE_HANDS,
    SWAP_HANDS,
    TARGETED_FOUR,
    TARGETED_TWO,
)
from uno_rl.core.rules import Rules

from .view import ObservationView

__all__ = [
    "BOOMERANG_ACTION",
    "BOOMERANG_KIND",
    "CLOSE_TO_OUT",
    "GAIN_BONUS",
    "boomerang_answers",
    "discard_all_points",
    "discard_all_shed",
    "gain_bonus",
    "held_back",
    "is_targeted",
    "shuffle_gain",
    "swap_gain",
    "swap_targets",
    "targeted_victims",
]

#: A player "close to going out" holds at most this many cards (the aggressive agent uses its
#: ``attack_at`` instead).
CLOSE_TO_OUT = 2
#: Score added to a Swap or Shuffle Hands that gains cards: played before anything else.
GAIN_BONUS = 1e6
BOOMERANG_KIND = int(EXTENDED.kinds_of(BOOMERANG)[0])
BOOMERANG_ACTION = int(EXTENDED.first_action[BOOMERANG_KIND])
_NO_TARGET = 10_000


def _own(view: ObservationView) -> np.ndarray:
    return view.hand_sizes[:, 0]


def swap_targets(view: ObservationView, rules: Rules) -> np.ndarray:
    """(k, P) bool: the relative seats a Swap Hands could choose (never seat 0)."""
    sizes = view.hand_sizes
    ok = sizes >= 1
    if rules.swap_excludes_uno:
        ok &= sizes != 1
    ok[:, 0] = False
    return ok


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


def _effect_kinds(rules: Rules, symbol: int) -> np.ndarray:
    """(K,) bool: kinds with the effect of ``symbol``."""
    return rules.effect_rank == symbol


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


def boomerang_answers(view: ObservationView, rules: Rules, close: int) -> np.ndarray:
    """(k,) bool: answer the pending Skip or draw with a Boomerang (where one is legal).

    Always against a draw of 4 or more. Against a Skip or a draw of 2 or 3 when the player
    is close to going out (at most ``close`` cards), or when the card's player is: the
    previous player for a Skip or +2, the ``draw4_player`` piece for a Targeted +4. The
    observation does not say who played a Targeted +2, so only the first test applies there.
    """
    k = view.num_games
    rows = np.arange(k)
    effect = rules.effect_rank[np.maximum(view.top, 0)]
    cause = np.where(view.draw4_player > 0, view.draw4_player, view.previous_seat)
    known = effect != TARGETED_TWO
    cause_close = known & (view.hand_sizes[rows, cause] <= close)
    me_close = view.hand_sizes[:, 0] <= close
    return (view.pending >= 4) | cause_close | me_close


def targeted_victims(view: ObservationView, legal: np.ndarray) -> np.ndarray:
    """(k,) int64: index of the seat action (0 = relative seat 1) naming the victim of a
    Targeted +2 / +4: the legal seat with the fewest cards, ties to the one that plays first
    from the observer on (the next player first)."""
    sizes = view.hand_sizes[:, 1:].astype(np.float64)
    key = sizes * view.players + view.play_order[:, 1:]
    key[~legal] = np.inf
    return key.argmin(axis=1)


def is_targeted(view: ObservationView, rules: Rules) -> np.ndarray:
    """(k,) bool: the card on top is a Targeted +2 / +4 (the target phase names a victim)."""
    effect = rules.effect_rank[np.maximum(view.top, 0)]
    return (effect == TARGETED_TWO) | (effect == TARGETED_FOUR)

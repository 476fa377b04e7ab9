"""The heuristic strategies: how each ranks the cards it could play.

Everything else (phases, bluffing, challenging, color naming) is shared:
:class:`uno_rl.agents.heuristic.HeuristicAgent`.
"""

from __future__ import annotations

import numpy as np

from uno_rl.core.cards import (
    DRAW_TWO_RANK,
    KIND_COLOR,
    KIND_POINTS,
    KIND_RANK,
    NUM_KINDS,
    REVERSE_RANK,
    SKIP_RANK,
    WILD,
    WILD_DRAW_FOUR,
)

from .base import Param
from .heuristic import COMMON_PARAMS, HeuristicAgent
from .view import ObservationView

__all__ = ["AggressiveAgent", "ColorFirstAgent", "PointsDumperAgent", "RuleAgent"]

_COLORED = np.arange(NUM_KINDS) < 52
_IS_ACTION = _COLORED & (KIND_RANK >= SKIP_RANK)
_POINTS = KIND_POINTS.astype(np.float64)
#: color-first's ranking before the favorite color's bonus: action cards, then higher numbers;
#: a Wild before a +4, both after every colored card.
_COLOR_FIRST = (100.0 * _IS_ACTION + KIND_RANK * _COLORED).astype(np.float64)
_COLOR_FIRST[WILD], _COLOR_FIRST[WILD_DRAW_FOUR] = -1000.0, -2000.0


def _favorite_color(view: ObservationView, rng: np.random.Generator) -> np.ndarray:
    """(k,) int64: the color held most (ties at random)."""
    counts = view.color_counts + rng.random(view.color_counts.shape) * 1e-3
    return counts.argmax(axis=1)


class RuleAgent(HeuristicAgent):
    """RLCard's UNO rule agent (``uno-rule-v1``, RLCard 1.2.0), for comparison with published
    numbers: a random playable colored card (each copy in hand equally likely); if none, a Wild
    naming a random color; if none, a +4 naming the color held most; draws only when nothing
    is playable. RLCard never bluffs nor challenges: the defaults ``bluff=0``,
    ``challenge=never`` reproduce that."""

    name = "rule"
    summary = "RLCard's rule agent: random colored card, then Wild, then +4"

    def card_scores(self, view, rng):
        k = view.obs.shape[0]
        # Gumbel-max: argmax of log(copies) + Gumbel noise picks a kind with probability
        # proportional to the copies held.
        gumbel = -np.log(-np.log(rng.random((k, NUM_KINDS)) + 1e-300) + 1e-300)
        scores = np.log(np.maximum(view.hand, 1e-12)) + gumbel
        scores[:, WILD] = -1e6
        scores[:, WILD_DRAW_FOUR] = -2e6
        return scores

    def name_color(self, view, kinds, rng):
        most = super().name_color(view, kinds, rng)
        return np.where(kinds == WILD, rng.integers(0, 4, kinds.shape[0]), most)


class ColorFirstAgent(HeuristicAgent):
    """Plays the color it holds most of, action cards (Skip, Reverse, Draw Two) before numbers
    and higher numbers before lower; other colors next in the same order; wilds last (a Wild
    before a +4)."""

    name = "color-first"
    summary = "its most common color first, action cards before numbers, wilds last"

    def card_scores(self, view, rng):
        favorite = _favorite_color(view, rng)
        return np.where(
            KIND_COLOR[None, :] == favorite[:, None], _COLOR_FIRST + 1000.0, _COLOR_FIRST
        )


class PointsDumperAgent(HeuristicAgent):
    """Sheds its highest-value cards first (by card points: wilds 50, action cards 20, numbers
    their face value), so a lost round costs as little as possible."""

    name = "points-dumper"
    summary = "sheds its highest-value cards first"

    def card_scores(self, view, rng):
        return np.broadcast_to(_POINTS, (view.obs.shape[0], NUM_KINDS)).copy()


class AggressiveAgent(HeuristicAgent):
    """Saves its attack cards (Draw Two, Skip, +4, and Reverse with two players) for when the
    next player is close to UNO (at most ``attack_at`` cards): then it plays them first, the
    +4 last among them; otherwise it plays like ``color-first`` and uses attack cards only when
    nothing else is playable."""

    name = "aggressive"
    summary = "saves Draw Two / Skip / +4 for a neighbor close to UNO"
    PARAMS = {
        **COMMON_PARAMS,
        "attack_at": Param(
            2, "the next player's hand size at or below which it attacks", low=0, high=108
        ),
    }

    def card_scores(self, view, rng):
        k = view.obs.shape[0]
        attack = _COLORED & ((KIND_RANK == SKIP_RANK) | (KIND_RANK == DRAW_TWO_RANK))
        if self.rules.players == 2:
            attack = attack | (_COLORED & (KIND_RANK == REVERSE_RANK))
        attack = attack.copy()
        attack[WILD_DRAW_FOUR] = True
        favorite = _favorite_color(view, rng)
        base = 100.0 * (KIND_COLOR[None, :] == favorite[:, None]) + KIND_RANK[None, :] * _COLORED
        base = np.broadcast_to(base, (k, NUM_KINDS)).copy()
        base[:, WILD] = -500.0
        threat = view.hand_sizes[np.arange(k), view.next_seat] <= self.params["attack_at"]
        attack_score = np.where(threat[:, None], 10_000.0 + base, -10_000.0 + base)
        attack_score[:, WILD_DRAW_FOUR] = np.where(threat, 9_000.0, -20_000.0)
        return np.where(attack[None, :], attack_score, base)

"""The two random baselines (any layout: they only read the legal mask).

New cards (rules specification §11): both treat them as any other legal action. A Boomerang
answer, a Swap Hands or Targeted victim, a Discard All are drawn uniformly with the rest.
"""

from __future__ import annotations

import numpy as np

from uno_rl.core.actions import DRAW, PASS
from uno_rl.core.engine import sample_legal_actions

from .base import Agent, check_batch

__all__ = ["RandomAgent", "RandomPlayableAgent", "playable_first"]


class RandomAgent(Agent):
    """Uniformly random over the legal actions. Drawing is always legal under the official rules,
    so it draws often: hands grow and rounds last hundreds of decisions."""

    name = "random"
    summary = "uniformly random legal action"
    needs_observation = False

    def act(self, observations, masks, rng, memory=None, rows=None):
        check_batch(observations, masks, False, self.rules)
        return sample_legal_actions(masks, rng)


def playable_first(masks: np.ndarray) -> np.ndarray:
    """(k, A) bool: the legal actions other than draw and pass, or all legal ones if none
    (A = 77 or 122 actions: draw and pass are the same actions in both layouts)."""
    preferred = masks.copy()
    preferred[:, [DRAW, PASS]] = False
    fallback = ~preferred.any(axis=1)
    preferred[fallback] = masks[fallback]
    return preferred


class RandomPlayableAgent(Agent):
    """Uniformly random over the legal actions other than draw and pass; draws (or keeps a
    drawn card) only when nothing else is legal. Every other decision (challenge or accept,
    color, target) is uniform too. This is the usual "random" baseline of peers."""

    name = "random-playable"
    summary = "random playable card; draws only when it must"
    needs_observation = False

    def act(self, observations, masks, rng, memory=None, rows=None):
        check_batch(observations, masks, False, self.rules)
        return sample_legal_actions(playable_first(masks), rng)

"""The batched engine's API: reset, legal masks and step over N games at once.

Each function runs on the engine in use (:mod:`uno_rl.core.backend`): the compiled engine
(:mod:`uno_rl.core.compiled`) where numba is installed, else the NumPy engine
(:mod:`uno_rl.core.numpy_engine`, whose docstring describes the work and its modules). Both
take the same arguments, make the same checks with the same errors, and leave the same
:class:`~uno_rl.core.state.State` and :class:`StepResult` step for step.

Edge cases decided once:

* Stepping a game whose round (or match) is over raises ``ValueError``: reset it with
  :func:`reset_games` first (its legal mask is all False).
* An illegal action raises ``ValueError`` naming the game index, the action's meaning
  and the legal actions; nothing is substituted and the state is left untouched.
"""

from __future__ import annotations

import numpy as np

from . import numpy_engine
from .backend import compiled_engine
from .rules import Rules
from .sampling import sample_legal_actions
from .scoring import StepResult, match_winner
from .state import State

__all__ = [
    "StepResult",
    "legal_mask",
    "match_winner",
    "reset",
    "reset_games",
    "sample_legal_actions",
    "step",
]


def reset(rules: Rules, seeds) -> State:
    """Deal one round in each of ``len(seeds)`` games: a new :class:`State` (the arguments of
    :func:`uno_rl.core.deal.reset`)."""
    compiled = compiled_engine()
    return (numpy_engine if compiled is None else compiled).reset(rules, seeds)


def reset_games(state: State, games, seeds) -> None:
    """Start new matches in ``games`` (a bool mask or indices) with deal ``seeds``
    (:func:`uno_rl.core.deal.reset_games`)."""
    compiled = compiled_engine()
    (numpy_engine if compiled is None else compiled).reset_games(state, games, seeds)


def legal_mask(state: State, games=None, *, validate: bool = True) -> np.ndarray:
    """(N, A) bool legal actions of the player to act in each game, or (k, A) of ``games``
    (:func:`uno_rl.core.masks.legal_mask`: cached until the next step)."""
    compiled = compiled_engine()
    return (numpy_engine if compiled is None else compiled).legal_mask(
        state, games, validate=validate
    )


def step(state: State, actions, games=None, *, validate: bool = True) -> StepResult:
    """Apply one action per game, for whichever player is to act in it.

    Args:
        state: N games, none of them over; mutated in place.
        actions: (N,) integer actions (see :mod:`uno_rl.core.actions`), or (k,) with ``games``.
        games: optional (k,) distinct game indices: step only these games (the others are
            untouched); the result then has k rows, in the order of ``games``.
        validate: check ``games`` and ``actions`` (shape, range, legality, games not over).
            Only a caller that has already checked the actions against :func:`legal_mask`
            (the vector env) may pass False: an unchecked bad action corrupts the state.

    Returns:
        A :class:`StepResult`. In match mode a finished round is followed at once by the
        next round's deal (unless the match is over); otherwise a finished game stays over
        until :func:`reset_games`.

    Raises:
        ValueError: wrong shape or type, an action out of range, an illegal action, or a
            game that is already over. The state is unchanged.
    """
    compiled = compiled_engine()
    return (numpy_engine if compiled is None else compiled).step(
        state, actions, games, validate=validate
    )

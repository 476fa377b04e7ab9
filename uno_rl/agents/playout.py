"""Play-outs: many determinized games played to their end by a rollout policy, in one batch.

:func:`play_out` steps every lane of a :class:`~uno_rl.core.state.State` with one agent acting
for every seat until each lane's round (or match) is over, and returns what each lane was
worth to one seat under an :data:`OBJECTIVES` objective. Finished lanes drop out; the batch is
compacted when few are left, so the long rounds do not keep the whole batch stepping.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from uno_rl.core import engine
from uno_rl.core.observe import observe
from uno_rl.core.state import State

from .base import Agent

__all__ = ["OBJECTIVES", "CutOff", "play_out", "values_of"]

#: What a finished lane is worth to its seat: ``points`` its net card points of the round
#: (zero-sum), ``win`` 1 for winning the round (0 otherwise, a cut round included), ``match``
#: 1 for winning the match (match rules: lanes play on to the match's end).
OBJECTIVES = ("points", "win", "match")

#: A value estimate for lanes cut before their end: ``(state, seat) -> (n,) float64`` in the
#: objective's units.
CutOff = Callable[[State, np.ndarray], np.ndarray]


def values_of(
    objective: str, result: engine.StepResult, ended: np.ndarray, seat: np.ndarray,
    finished: State | None = None,
) -> np.ndarray:  # fmt: skip
    """(m,) float64: the value to ``seat`` (m,) of the result rows ``ended`` (m,) that just
    ended; objective ``match`` needs ``finished``, the m ended games' states."""
    if objective == "points":
        return result.net_points[ended, seat].astype(np.float64)
    if objective == "win":
        return (result.winner[ended].astype(np.int64) == seat).astype(np.float64)
    return (engine.match_winner(finished).astype(np.int64) == seat).astype(np.float64)


def _rollout_actions(policy: Agent, state: State, masks: np.ndarray, rng) -> np.ndarray:
    """The rollout agent's actions for every lane of ``state``: from the state itself where
    the agent can read it (the heuristics: the same actions, no observations built)."""
    if hasattr(policy, "act_on_state"):
        return policy.act_on_state(state, masks, rng)
    obs = observe(state, state.actor.astype(np.int64)) if policy.needs_observation else None
    if getattr(policy, "needs_state", False):
        return policy.act(obs, masks, rng, state=state, games=np.arange(state.num_games))
    return policy.act(obs, masks, rng)


def play_out(
    lanes: State,
    policy: Agent,
    rng: np.random.Generator,
    seat: np.ndarray,
    objective: str = "points",
    max_decisions: int = 0,
    cut_off: CutOff | None = None,
) -> np.ndarray:
    """Play every lane to its end with ``policy`` in every seat (``lanes`` is consumed).

    Args:
        lanes: n running games.
        policy: the rollout agent (memoryless play; it gets the lanes' states if it asks).
        rng: explicit generator of the policy's choices.
        seat: (n,) int64 the seat each lane is valued for.
        objective: one of :data:`OBJECTIVES`.
        max_decisions: stop each lane after this many decisions (0: never) and value it with
            ``cut_off`` (0 without one: an unfinished round is a draw).
        cut_off: value of the lanes still running at ``max_decisions``.

    Returns:
        (n,) float64 values in the objective's units.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if objective == "match" and not lanes.rules.match:
        raise ValueError("objective 'match' needs match rules (match = true)")
    seat = np.asarray(seat, np.int64)
    values = np.zeros(lanes.num_games, np.float64)
    # The running lanes are always the whole of ``state`` (``index``: each row's lane): the
    # finished ones are dropped at once, one copy of the rest per step that ends some, which
    # is cheaper than stepping a subset (and observing a copy of it) at every step.
    state, index = lanes, np.arange(lanes.num_games)
    decisions = 0
    while index.size:
        if max_decisions and decisions >= max_decisions:
            if cut_off is not None:
                values[index] = cut_off(state, seat[index])
            break
        masks = engine.legal_mask(state)
        actions = _rollout_actions(policy, state, masks, rng)
        result = engine.step(state, np.asarray(actions, np.int64), validate=False)
        decisions += 1
        over = result.match_over if objective == "match" else result.round_over
        ended = np.flatnonzero(over)
        if ended.size:
            finished = state.take(ended) if objective == "match" else None
            values[index[ended]] = values_of(objective, result, ended, seat[index[ended]], finished)
            going = np.flatnonzero(~over)
            if going.size:
                state = state.take(going)
            index = index[going]
    return values

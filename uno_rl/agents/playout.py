"""Play-outs: many determinized games played to their end by a rollout policy, in one batch.

:func:`play_out` steps every lane of a :class:`~uno_rl.core.state.State` with one agent acting
for every seat until each lane's round (or match) is over, and returns what each lane was
worth to one seat under an :data:`OBJECTIVES` objective. Finished lanes drop out; the batch is
compacted when few are left, so the long rounds do not keep the whole batch stepping.

More than :data:`PART_LANES` lanes are played in consecutive parts of at most that many, each
with a generator of its own (seeded from ``rng``): a part's lanes stay in the processor's cache
while they play, and with the compiled engine the parts run on every thread the engine uses
(:mod:`uno_rl.core.compiled.threads`). The parts are the same on every engine and machine, so
the values are too.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import numpy as np

from uno_rl.core import engine
from uno_rl.core.observe import observe
from uno_rl.core.state import State

from .base import Agent
from .compiled.policy import CompiledPolicy, compiled_policy

__all__ = ["OBJECTIVES", "PART_LANES", "CutOff", "play_out", "rollout_actions", "values_of"]

#: What a finished lane is worth to its seat: ``points`` its net card points of the round
#: (zero-sum), ``win`` 1 for winning the round (0 otherwise, a cut round included), ``match``
#: 1 for winning the match (match rules: lanes play on to the match's end).
OBJECTIVES = ("points", "win", "match")
#: The most lanes played in one batch: more are played in parts (module docstring).
PART_LANES = 4096

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


def rollout_actions(
    policy: Agent, state: State, rows: np.ndarray | None, masks: np.ndarray, rng
) -> np.ndarray:
    """The rollout agent's actions for the lanes ``rows`` of ``state`` (None: all): from the
    state itself where the agent can read it (the heuristics, compiled where they can be: the
    same actions, no observations built), else from the observations of those lanes; an
    agent that asks for the state gets every lane (``rows`` None)."""
    compiled = compiled_policy(policy)
    if compiled is not None:
        return compiled.actions(state, masks, rng, rows)
    if hasattr(policy, "act_on_state"):
        return policy.act_on_state(state, masks, rng, rows)
    if not getattr(policy, "needs_state", False):
        if not policy.needs_observation:
            return policy.act(None, masks, rng)
        actor = (state.actor if rows is None else state.actor[rows]).astype(np.int64)
        return policy.act(observe(state, actor, games=rows), masks, rng)
    obs = observe(state, state.actor.astype(np.int64)) if policy.needs_observation else None
    return policy.act(obs, masks, rng, state=state, games=np.arange(state.num_games))


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
    compiled = compiled_policy(policy)
    if lanes.num_games > PART_LANES:
        return _play_out_in_parts(lanes, policy, rng, seat, objective, max_decisions, cut_off,
                                  threaded=compiled is not None)  # fmt: skip
    if compiled is not None:
        return _compiled_play_out(lanes, compiled, rng, seat, objective, max_decisions, cut_off)
    values = np.zeros(lanes.num_games, np.float64)
    # ``state`` row i is lane ``index[i]``; ``live`` the rows still running. An agent reads
    # (or observes) the live rows in place and only they are stepped; the finished rows are
    # dropped (one copy of the rest) once they are half of ``state``. An agent that asks for
    # the state gets the whole batch: for it the finished rows are dropped at every step
    # that ends some.
    in_place = not getattr(policy, "needs_state", False) or hasattr(policy, "act_on_state")
    state, index = lanes, np.arange(lanes.num_games)
    live = index
    decisions = 0
    while live.size:
        rows = None if live.size == state.num_games else live
        if max_decisions and decisions >= max_decisions:
            if cut_off is not None:
                running = state if rows is None else state.take(rows)
                values[index[live]] = cut_off(running, seat[index[live]])
            break
        masks = engine.legal_mask(state, rows, validate=False)
        actions = rollout_actions(policy, state, rows, masks, rng)
        result = engine.step(state, np.asarray(actions, np.int64), rows, validate=False)
        decisions += 1
        over = result.match_over if objective == "match" else result.round_over
        ended = np.flatnonzero(over)
        if ended.size:
            lane = index[live[ended]]
            finished = state.take(live[ended]) if objective == "match" else None
            values[lane] = values_of(objective, result, ended, seat[lane], finished)
            live = live[~over]
            if live.size and (not in_place or 2 * live.size <= state.num_games):
                state, index = state.take(live), index[live]
                live = np.arange(live.size)
    return values


def _play_out_in_parts(
    lanes: State,
    policy: Agent,
    rng: np.random.Generator,
    seat: np.ndarray,
    objective: str,
    max_decisions: int,
    cut_off: CutOff | None,
    threaded: bool,
) -> np.ndarray:
    """:func:`play_out` part by part (module docstring); ``threaded``: the parts spread over
    the compiled engine's threads."""
    n = lanes.num_games
    parts = -(-n // PART_LANES)
    bounds = [n * j // parts for j in range(parts + 1)]
    seeds = rng.integers(0, 2**63, size=parts)

    def part(j: int) -> np.ndarray:
        start, stop = bounds[j], bounds[j + 1]
        view = dataclasses.replace(  # the part's rows of every array, not copied: consumed
            lanes, **{name: array[start:stop] for name, array in lanes.arrays().items()},
            _mask=None, _rows_mask=None, _compiled=None,
        )  # fmt: skip
        return play_out(view, policy, np.random.default_rng(seeds[j]), seat[start:stop],
                        objective, max_decisions, cut_off)  # fmt: skip

    calls = [functools.partial(part, j) for j in range(parts)]
    if threaded:
        from uno_rl.core.compiled.threads import run_calls

        return np.concatenate(run_calls(calls))
    return np.concatenate([call() for call in calls])


def _compiled_play_out(
    lanes: State,
    policy: CompiledPolicy,
    rng: np.random.Generator,
    seat: np.ndarray,
    objective: str,
    max_decisions: int,
    cut_off: CutOff | None,
) -> np.ndarray:
    """:func:`play_out` by the compiled loop (:mod:`.compiled.nb_playout`): the same values."""
    from uno_rl.core.compiled.nb_pcg64 import reads_in_place
    from uno_rl.core.compiled.nb_state import game_arrays
    from uno_rl.core.compiled.threads import thread_tables
    from uno_rl.core.state import STAT_NAMES

    from .compiled.nb_playout import play_out_lanes

    n = lanes.num_games
    values = np.zeros(n, np.float64)
    running = np.zeros(n, bool)
    lanes.invalidate()  # the kernel steps the lanes: their cached masks go stale
    bad = play_out_lanes(
        game_arrays(lanes), thread_tables(lanes.rules), *policy.kernel_arguments(), rng,
        reads_in_place(rng), np.ascontiguousarray(seat), OBJECTIVES.index(objective), int(max_decisions),
        len(STAT_NAMES), values, running,
    )  # fmt: skip
    lanes.invalidate()
    if bad >= 0:
        raise ValueError(
            f"{policy.label}: no decision in phase {int(lanes.phase[bad])} (is the game over?)"
        )
    if objective == "match":
        ended = np.flatnonzero(~running)
        winners = engine.match_winner(lanes.take(ended)).astype(np.int64)
        values[ended] = (winners == seat[ended]).astype(np.float64)
    cut = np.flatnonzero(running)
    if cut.size and cut_off is not None:
        values[cut] = cut_off(lanes.take(cut), seat[cut])
    return values

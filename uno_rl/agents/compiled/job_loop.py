"""The evaluator's job loop (:func:`uno_rl.eval.jobs.play_jobs`) in compiled calls
(:mod:`.nb_jobs`), for line-ups whose every agent is a compiled heuristic (``challenge=bayes``
memories included): the same outcomes and generator draws, without Python's cost per step.

:func:`empty_results` makes the per-job result arrays the loop adds to (the evaluator's
``Outcomes`` holds the same arrays); :func:`play_compiled_jobs` plays a queue of jobs into them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from uno_rl.core import engine
from uno_rl.core.phases import PHASE_NAMES
from uno_rl.core.state import STAT_NAMES, State

from .. import challenge
from .policy import CompiledPolicy

__all__ = ["STEPS_PER_CALL", "empty_results", "play_compiled_jobs"]

#: Steps per compiled call: a call over a few thousand games lasts a fraction of a second, so
#: the progress bar and Ctrl-C answer between calls.
STEPS_PER_CALL = 64
#: The (J, P) int32 per-seat sums of the rounds of a job, besides the statistics.
_SEAT_SUMS = ("round_wins", "net_points", "penalty")


def empty_results(jobs: int, players: int) -> dict[str, np.ndarray]:
    """The per-job result arrays, zeroed (``winner`` -1), by name: ``winner`` (J,) int8,
    ``truncated`` (J,) bool, ``rounds``, ``truncated_rounds``, ``decisions`` (J,) int32,
    ``scores``, ``round_wins``, ``net_points``, ``penalty`` and one per
    :data:`~uno_rl.core.state.STAT_NAMES` (J, P) int32 (their meaning:
    :class:`uno_rl.eval.jobs.Outcomes`)."""
    per_seat = ("scores", *_SEAT_SUMS, *STAT_NAMES)
    return {
        "winner": np.full(jobs, -1, np.int8),
        "truncated": np.zeros(jobs, bool),
        "rounds": np.zeros(jobs, np.int32),
        "truncated_rounds": np.zeros(jobs, np.int32),
        "decisions": np.zeros(jobs, np.int32),
        **{name: np.zeros((jobs, players), np.int32) for name in per_seat},
    }


def _stacked_rows(rows: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Every agent's (C_q, 3) condition rows stacked, and the (Q + 1,) int64 bounds of each."""
    bounds = np.zeros(len(rows) + 1, np.int64)
    bounds[1:] = np.cumsum([r.shape[0] for r in rows])
    stacked = np.concatenate(rows) if rows else np.zeros((0, 3), np.int64)
    return np.ascontiguousarray(stacked.reshape(-1, 3), dtype=np.int64), bounds


def play_compiled_jobs(
    state: State,
    policies: Sequence[CompiledPolicy],
    units: Sequence[tuple[int, Sequence[int]]],
    remembers: Sequence[bool],
    rng: np.random.Generator,
    job_seed: np.ndarray,
    job_position: np.ndarray,
    results,
    on_finished: Callable[[int], None] | None = None,
) -> None:
    """Play every job to its end on ``state``, whose ``n`` slots hold the first ``n`` jobs,
    just dealt.

    Args:
        state: a compiled-engine state of ``n`` games.
        policies: the distinct agents' compiled policies.
        units: ``(q, positions)``: ``policies[q]`` decides for line-up positions
            ``positions`` at once; at every step the units decide in this order (an agent
            with a memory: a unit per position).
        remembers: (P,) whether the agent of each line-up position keeps a ``bayes`` memory.
        rng: the agents' generator.
        job_seed: (J,) uint64 deal seed per job.
        job_position: (J, P) line-up position per seat per job.
        results: an object with :func:`empty_results`' arrays as attributes (the evaluator's
            ``Outcomes``), added to in place.
        on_finished: called with the number of jobs that just finished (progress bars).

    Raises:
        ValueError: a game where an agent had no decision or chose an illegal action.
        RuntimeError: a deal where no first card could be turned (the engine's error).
    """
    from uno_rl.core.compiled.nb_pcg64 import reads_in_place
    from uno_rl.core.compiled.nb_rules import rule_tables
    from uno_rl.core.compiled.nb_state import game_arrays

    from . import nb_jobs

    p = state.rules.players
    n = state.num_games
    unit_policy = np.array([q for q, _ in units], np.int64)
    unit_of_position = np.empty(p, np.int64)
    for u, (_, held) in enumerate(units):
        unit_of_position[list(held)] = u
    agent_of_position = unit_policy[unit_of_position]
    remembers = np.ascontiguousarray(remembers, dtype=bool)
    fresh = challenge.new_memory(n, p)  # every position's memory (read where it remembers)
    memory = {key: np.ascontiguousarray(np.stack([array] * p)) for key, array in fresh.items()}
    ints = np.ascontiguousarray(np.stack([policy.ints for policy in policies]))
    floats = np.ascontiguousarray(np.stack([policy.floats for policy in policies]))
    tables = np.ascontiguousarray(np.stack([policy.tables for policy in policies]))
    bluff_rows, bluff_bounds = _stacked_rows([policy.bluff_rows for policy in policies])
    answer_rows, answer_bounds = _stacked_rows([policy.challenge_rows for policy in policies])
    job_seed = np.ascontiguousarray(job_seed, dtype=np.uint64)
    job_position = np.ascontiguousarray(job_position, dtype=np.int64)
    slot_job = np.arange(n, dtype=np.int64)
    position = job_position[:n].copy()
    active = np.ones(n, bool)
    cursor = np.full(4, -1, np.int64)
    cursor[nb_jobs.NEXT_JOB] = n
    stats = np.zeros((len(STAT_NAMES), *results.net_points.shape), np.int32)
    arrays, rules = game_arrays(state), rule_tables(state.rules)
    while active.any():
        finished = nb_jobs.play_job_steps(
            arrays, rules, ints, floats, tables, policies[0].log_held, bluff_rows, bluff_bounds,
            answer_rows, answer_bounds, unit_policy, unit_of_position, remembers,
            memory["sizes"], memory["next_seat"], memory["left_color"], memory["possible"],
            rng, reads_in_place(rng), job_seed, job_position, slot_job, position, active, cursor, STEPS_PER_CALL,
            results.winner, results.truncated, results.rounds, results.truncated_rounds,
            results.decisions, results.round_wins, results.net_points, results.penalty,
            results.scores, stats,
        )  # fmt: skip
        state.invalidate()
        _raise_failure(state, policies, agent_of_position, position, cursor, job_seed, slot_job)
        if finished and on_finished is not None:
            on_finished(int(finished))
    for i, name in enumerate(STAT_NAMES):
        getattr(results, name)[:] += stats[i]


def _raise_failure(state, policies, agent_of_position, position, cursor, job_seed,
                   slot_job) -> None:  # fmt: skip
    """The error of a compiled call that stopped on a failure (``cursor``), if any."""
    from . import nb_jobs

    game = int(cursor[nb_jobs.NO_FIRST_CARD])
    if game >= 0:  # the engine's own deal of that seed raises its error
        engine.reset_games(state, np.array([game]), job_seed[slot_job[game : game + 1]])
        raise RuntimeError(f"no first card could be turned in game slot {game}")
    for where in (nb_jobs.NO_DECISION, nb_jobs.ILLEGAL):
        game = int(cursor[where])
        if game < 0:
            continue
        seat = int(state.actor[game])
        label = policies[int(agent_of_position[position[game, seat]])].label
        what = "has no decision" if where == nb_jobs.NO_DECISION else "chose an illegal action"
        raise ValueError(
            f"{label} {what} in game slot {game}, phase '{PHASE_NAMES[state.phase[game]]}'"
        )

"""The evaluator's job loop compiled: :func:`uno_rl.eval.jobs.play_jobs` with a compiled
heuristic at every line-up position, every step (masks, decisions, moves, results, finished
jobs and their slots dealt anew) in one call; a ``challenge=bayes`` agent's memory is kept
compiled too (:mod:`.nb_memory`).

At each step the live games are decided one *unit* at a time: a memoryless agent (all its
line-up positions at once) or one position of an agent with a memory, in the batched loop's
order, each unit's games in slot order: the generator's draws, the actions and the outcomes
are the same. The loop stops after ``max_steps`` steps so that the caller can report
progress; its position is kept in the caller's arrays (``slot_job``, ``position``,
``active``, ``cursor``), and the next call goes on from there.
"""

from __future__ import annotations

import numpy as np

from uno_rl.core.compiled.nb_deal import deal
from uno_rl.core.compiled.nb_jit import batch
from uno_rl.core.compiled.nb_masks import legal_masks
from uno_rl.core.compiled.nb_play import apply_action, close_step
from uno_rl.core.compiled.nb_rules import code
from uno_rl.core.compiled.nb_struct import borrow, unowned

from .nb_memory import forget, memory_cap, remember_action, update_memory
from .nb_phases import decide

_LOSERS_ADD = code("scoring", "losers-add")
#: ``cursor`` entries: the next job to start, and the three ways a call can fail (-1: none).
NEXT_JOB, NO_DECISION, ILLEGAL, NO_FIRST_CARD = range(4)


@batch
def play_job_steps(a, t, ints, floats, tables, log_held, bluff_rows, bluff_bounds,
                   challenge_rows, challenge_bounds, unit_policy, unit_of_position, remembers,
                   memory_sizes, memory_next, memory_left, memory_possible, rng, in_place, job_seed,
                   job_position, slot_job, position, active, cursor, max_steps, winner,
                   truncated, rounds, truncated_rounds, decisions, round_wins, net_points,
                   penalty, scores, stats):  # fmt: skip
    """Play at most ``max_steps`` steps of the job queue; returns the jobs finished.

    Args:
        ints, floats, tables: (Q, NUM_INTS) int64, (Q, NUM_FLOATS) float64 and
            (Q, NUM_TABLES, K) float64: each distinct agent's policy arrays
            (:class:`~.policy.CompiledPolicy`).
        log_held: (256,) float32, shared by the agents.
        bluff_rows, challenge_rows: (C, 3) int64 every agent's condition rows, agent ``q``'s
            being rows ``bounds[q]:bounds[q + 1]`` ((Q + 1,) int64 ``bluff_bounds``,
            ``challenge_bounds``).
        unit_policy: (U,) int64 the agent of each unit, in the order units decide.
        unit_of_position: (P,) int64 the unit of each line-up position.
        remembers: (P,) bool: the positions whose agent keeps a ``bayes`` memory.
        memory_sizes, memory_next, memory_left, memory_possible: (P, n, P) int16, (P, n) int8,
            (P, n) int8, (P, n, P, 4) int16: each position's memory (:mod:`.nb_memory`; rows
            of a position without one are not read), forgotten where a slot takes a new job.
        job_seed: (J,) uint64 deal seed per job; job_position: (J, P) int64 line-up position
            per seat per job.
        slot_job, position, active: (n,) int64, (n, P) int64, (n,) bool: each slot's job, its
            line-up position per seat, whether it still plays (updated in place).
        cursor: (4,) int64: ``NEXT_JOB`` the next job to start (updated); ``NO_DECISION``,
            ``ILLEGAL``, ``NO_FIRST_CARD``: set to a slot where that went wrong, the call then
            stops.
        winner .. stats: the :class:`~uno_rl.eval.jobs.Outcomes` arrays (``stats``:
            (S, J, P) int32, one row per statistic), added to as rounds end.
    """
    a, t = borrow(a), borrow(t)  # and the arrays unowned below: no reference counts
    n, p, num_jobs = slot_job.size, t.players, job_seed.size
    num_units = unit_policy.size
    live = np.empty(n, np.int64)
    acting = np.empty(n, np.int64)
    actions = np.empty(n, np.int64)
    group = np.empty(n, np.int64)
    group_masks = np.empty((n, t.num_actions), np.bool_)
    group_actions = np.empty(n, np.int64)
    group_caps = np.empty(n, np.int64)
    no_caps = np.empty(0, np.int64)  # memoryless agents
    # One result row, reused game by game.
    rewards = np.zeros((1, p), np.float32)
    flags = np.zeros((3, 1), np.bool_)
    round_winner = np.full(1, -1, np.int8)
    round_ints = np.zeros((2, 1), np.int32)
    round_net = np.zeros((1, p), np.int32)
    round_stats = np.zeros((stats.shape[0], 1, p), np.int32)
    finished = 0
    for _ in range(max_steps):
        k = 0
        for g in range(n):
            if active[g]:
                live[k] = g
                k += 1
        if k == 0:
            break
        for i in range(k):
            g = live[i]
            acting[i] = position[g, a.actor[g]]
        for u in range(num_units):
            m = 0
            for i in range(k):
                if unit_of_position[acting[i]] == u:
                    group[m] = live[i]
                    m += 1
            if m == 0:
                continue
            q = unit_policy[u]
            games, masks = unowned(group[:m]), unowned(group_masks[:m])
            out, caps = unowned(group_actions[:m]), no_caps
            legal_masks(a, t, games, masks)
            held = acting[0]  # a unit with a memory has one position
            for i in range(k):
                if unit_of_position[acting[i]] == u:
                    held = acting[i]
                    break
            if remembers[held]:
                caps = unowned(group_caps[:m])
                sizes, nxt = unowned(memory_sizes[held]), unowned(memory_next[held])
                left, possible = unowned(memory_left[held]), unowned(memory_possible[held])
                for j in range(m):
                    update_memory(a, t, sizes, nxt, left, possible, group[j])
                    caps[j] = memory_cap(a, t, possible, group[j])
            bluffs = np.ascontiguousarray(bluff_rows[bluff_bounds[q] : bluff_bounds[q + 1]])
            answers = np.ascontiguousarray(
                challenge_rows[challenge_bounds[q] : challenge_bounds[q + 1]])  # fmt: skip
            bad = decide(a, t, unowned(ints[q]), unowned(floats[q]), unowned(tables[q]),
                         unowned(log_held), unowned(bluffs), unowned(answers), games, masks,
                         caps, rng, in_place, out)  # fmt: skip
            if bad >= 0:
                cursor[NO_DECISION] = group[bad]
                return finished
            if remembers[held]:
                for j in range(m):
                    remember_action(a, t, memory_next[held], memory_left[held], group[j],
                                    out[j])  # fmt: skip
            j = 0
            for i in range(k):
                if unit_of_position[acting[i]] == u:
                    if not masks[j, out[j]]:
                        cursor[ILLEGAL] = live[i]
                        return finished
                    actions[i] = out[j]
                    j += 1
        for i in range(k):
            g = live[i]
            flags[0, 0] = flags[1, 0] = flags[2, 0] = False
            round_winner[0] = -1
            apply_action(a, t, g, actions[i])
            close_step(a, t, g, 0, unowned(rewards), unowned(flags), unowned(round_winner),
                       unowned(round_ints), unowned(round_net), unowned(round_stats))  # fmt: skip
            if not flags[0, 0]:
                continue
            job = slot_job[g]
            rounds[job] += 1
            truncated_rounds[job] += flags[1, 0]
            decisions[job] += round_ints[1, 0]
            w = np.int64(round_winner[0])
            if w >= 0:
                round_wins[job, w] += 1
            for s in range(p):
                net_points[job, s] += round_net[0, s]
                penalty[job, s] += max(-round_net[0, s], 0)
                round_net[0, s] = 0
                for row in range(stats.shape[0]):
                    stats[row, job, s] += round_stats[row, 0, s]
            if t.match and not flags[2, 0]:
                continue
            if t.match:
                best = 0
                for s in range(1, p):
                    if t.scoring == _LOSERS_ADD:
                        better = a.scores[g, s] < a.scores[g, best]
                    else:
                        better = a.scores[g, s] > a.scores[g, best]
                    if better:
                        best = s
                winner[job] = best
                for s in range(p):
                    scores[job, s] = a.scores[g, s]
            else:
                winner[job] = round_winner[0]
                truncated[job] = flags[1, 0]
            finished += 1
            following = cursor[NEXT_JOB]
            if following >= num_jobs:
                active[g] = False
                continue
            cursor[NEXT_JOB] += 1
            slot_job[g] = following
            for s in range(p):
                a.scores[g, s] = 0
                position[g, s] = job_position[following, s]
            a.round_index[g] = 0
            a.match_over[g] = False
            for held in range(p):
                if remembers[held]:
                    forget(memory_sizes[held], memory_next[held], memory_left[held],
                           memory_possible[held], g)  # fmt: skip
            if not deal(a, t, g, job_seed[following], -1):
                cursor[NO_FIRST_CARD] = g
                return finished
    return finished

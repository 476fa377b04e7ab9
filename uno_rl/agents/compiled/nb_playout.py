"""Play-outs compiled: :func:`uno_rl.agents.playout.play_out` with a compiled heuristic in every
seat, the whole loop (masks, decisions, steps, values) in one call.

The lanes still running are decided in lane order at every step, as the batched play-out does
(it drops finished lanes but keeps the order), so the generator's draws, the actions and the
values are the same.
"""

from __future__ import annotations

import numpy as np

from uno_rl.core.compiled.nb_jit import batch
from uno_rl.core.compiled.nb_masks import legal_masks
from uno_rl.core.compiled.nb_play import apply_action, close_step
from uno_rl.core.compiled.nb_struct import borrow, unowned

from .nb_phases import decide

#: Objectives (:data:`uno_rl.agents.playout.OBJECTIVES`, in order).
POINTS_OBJECTIVE, WIN_OBJECTIVE, MATCH_OBJECTIVE = range(3)


@batch
def play_out_lanes(a, t, ints, floats, tables, log_held, bluff_rows, challenge_rows, rng,
                   in_place, seat, objective, max_decisions, num_stats, values, running):  # fmt: skip
    """Play every lane of the state ``a`` to its end (or ``max_decisions`` steps, 0: no limit).

    Args:
        seat: (n,) int64 the seat each lane is valued for.
        objective: :data:`POINTS_OBJECTIVE`, :data:`WIN_OBJECTIVE` or :data:`MATCH_OBJECTIVE`.
        num_stats: rows of the engine's per-seat statistics.
        values: (n,) float64, filled for the lanes that ended (``MATCH_OBJECTIVE``: left to the caller,
            which reads the finished matches).
        running: (n,) bool, set True for the lanes cut at ``max_decisions``.

    Returns:
        -1, or a lane whose phase has no decision.
    """
    a, t = borrow(a), borrow(t)  # and the policy's arrays unowned: no reference counts below
    policy = (unowned(ints), unowned(floats), unowned(tables), unowned(log_held),
              unowned(bluff_rows), unowned(challenge_rows))  # fmt: skip
    n, p = seat.size, t.players
    live = np.arange(n)
    masks = np.empty((n, t.num_actions), np.bool_)
    actions = np.empty(n, np.int64)
    rewards = np.zeros((n, p), np.float32)
    flags = np.zeros((3, n), np.bool_)
    winner = np.full(n, -1, np.int8)
    ints_out = np.zeros((2, n), np.int32)
    net_points = np.zeros((n, p), np.int32)
    stats = np.zeros((num_stats, n, p), np.int32)
    no_caps = np.empty(0, np.int64)  # memoryless play-outs
    decisions = 0
    while live.size:
        k = live.size
        if max_decisions and decisions >= max_decisions:
            for i in range(k):
                running[live[i]] = True
            break
        legal_masks(a, t, live, masks[:k])
        bad = decide(a, t, policy[0], policy[1], policy[2], policy[3], policy[4], policy[5],
                     unowned(live), unowned(masks[:k]), no_caps, rng, in_place,
                     unowned(actions[:k]))  # fmt: skip
        if bad >= 0:
            return live[bad]
        kept = 0
        for i in range(k):
            g = live[i]
            flags[0, i] = flags[1, i] = flags[2, i] = False
            winner[i] = -1
            for s in range(p):
                net_points[i, s] = 0
            apply_action(a, t, g, actions[i])
            close_step(a, t, g, i, unowned(rewards), unowned(flags), unowned(winner),
                       unowned(ints_out), unowned(net_points), unowned(stats))  # fmt: skip
            over = flags[2, i] if objective == MATCH_OBJECTIVE else flags[0, i]
            if not over:
                live[kept] = g
                kept += 1
            elif objective == POINTS_OBJECTIVE:
                values[g] = np.float64(net_points[i, seat[g]])
            elif objective == WIN_OBJECTIVE:
                values[g] = 1.0 if np.int64(winner[i]) == seat[g] else 0.0
        live = live[:kept]
        decisions += 1
    return -1

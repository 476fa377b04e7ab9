"""The compiled kernel's loops over a batch: deal, step (moves and close) and the caller's
result arrays (see :mod:`.nb_play`)."""

from __future__ import annotations

from .nb_deal import deal
from .nb_jit import batch
from .nb_play import apply_action, close_step
from .nb_struct import borrow, unowned


@batch
def deal_games(a, t, games, seeds):
    """Deal a new round in each of ``games`` ((k,) int64) from ``seeds`` ((k,) uint64);
    returns the index into ``games`` of the first game no first card could be turned in,
    or -1."""
    a, t = borrow(a), borrow(t)  # no reference counts in the calls below
    for i in range(games.size):
        if not deal(a, t, games[i], seeds[i], -1):
            return i
    return -1


@batch
def step_games(a, t, games, actions, rewards, flags, winner, ints, net_points, stats, start, stop):
    """Apply ``actions[i]`` ((k,) int64) in game ``games[i]`` and close the step into row
    ``i`` of the result arrays, for ``i`` in ``range(start, stop)``."""
    a, t = borrow(a), borrow(t)  # no reference counts in the calls below
    rewards, flags, winner = unowned(rewards), unowned(flags), unowned(winner)
    ints, net_points, stats = unowned(ints), unowned(net_points), unowned(stats)
    for i in range(start, stop):
        g = games[i]
        apply_action(a, t, g, actions[i])
        close_step(a, t, g, i, rewards, flags, winner, ints, net_points, stats)

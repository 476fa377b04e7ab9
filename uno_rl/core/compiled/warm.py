"""Compile the compiled engine once on a machine: ``python -m uno_rl.core.compiled.warm``.

Numba compiles a kernel the first time a process calls it and keeps the machine code on disk
(next to the package's sources, or in numba's user cache folder where that is read-only), so
only the first process on a machine pays for it (about a minute on a small machine); the
others load it in well under a second. This module does that first compilation up front (an
install script or CI can call it) and tells whether it is still to do.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from ..phases import OVER
from ..rules import load_rules
from ..scoring import result_rows
from . import nb_engine, nb_loops, nb_masks, nb_observe, nb_rules, nb_sampling, nb_session, nb_state
from .threads import thread_tables

#: The kernels Python calls; each one's cache holds the compiled code of what it calls.
ENTRY_POINTS = (
    nb_loops.deal_games,
    nb_loops.step_games,
    nb_masks.legal_masks,
    nb_observe.observe_many,
    nb_sampling.pick_actions,
    nb_session.step_at,
    nb_session.view_at,
    nb_state._new_game_arrays,
    nb_rules._new_rule_tables,
)


def cache_is_cold(entry_points=ENTRY_POINTS) -> bool:
    """Whether some of ``entry_points`` (compiled dispatchers; default the engine's) has no
    machine code on disk yet (its first call compiles)."""
    for dispatcher in entry_points:
        try:
            index = dispatcher._cache._cache_file._index_path
        except AttributeError:  # another numba's layout: assume compiled
            return False
        if not os.path.exists(index):
            return True
    return False


def compile_engine() -> float:
    """Compile every entry point (a few steps of a classic and an extended game, with masks,
    observations and random actions); returns the seconds it took."""
    start = time.perf_counter()
    generator = np.random.default_rng(0)
    for deck in ("classic", "extension"):
        state = nb_engine.reset(load_rules("party", deck=deck), np.arange(2, dtype=np.uint64))
        for _ in range(3):
            nb_engine.observe(state, state.actor)
            nb_engine.step(state, nb_engine.sample_legal_actions(nb_engine.legal_mask(state),
                                                                 generator))  # fmt: skip
            over = state.phase == OVER
            nb_engine.reset_games(state, over, np.arange(int(over.sum()), dtype=np.uint64))
        _play_one_game(load_rules("party", deck=deck))
    return time.perf_counter() - start


def _play_one_game(rules) -> None:
    """A few decisions of one game through the single-game kernels (:mod:`.nb_session`),
    with the argument types of :class:`uno_rl.envs.game.SingleGame`."""
    layout = rules.layout
    one = nb_engine.reset(rules, np.zeros(1, np.uint64))
    arrays, tables = nb_state.game_arrays(one), thread_tables(rules)
    buffers = nb_session.session_buffers(
        result_rows(rules.players),
        np.zeros((1, layout.num_actions), np.bool_),
        np.zeros(layout.obs_size, np.float32),
    )
    at = nb_session.addresses(arrays, tables, buffers)
    seat = nb_session.view_at(*at)
    for _ in range(2):
        if seat < 0:
            break
        action = int(np.flatnonzero(buffers.mask[0])[0])
        seat = nb_session.step_at(*at, action) >> 1


def main() -> int:
    cold = cache_is_cold()
    seconds = compile_engine()
    verb = "compiled" if cold else "loaded (already compiled)"
    print(f"uno_rl's compiled engine {verb} in {seconds:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

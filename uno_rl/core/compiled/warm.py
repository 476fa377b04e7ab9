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
from . import nb_engine, nb_loops, nb_masks, nb_observe, nb_rules, nb_sampling, nb_state

#: The kernels Python calls; each one's cache holds the compiled code of what it calls.
ENTRY_POINTS = (
    nb_loops.deal_games,
    nb_loops.step_games,
    nb_masks.legal_masks,
    nb_observe.observe_many,
    nb_sampling.pick_actions,
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
    return time.perf_counter() - start


def main() -> int:
    cold = cache_is_cold()
    seconds = compile_engine()
    verb = "compiled" if cold else "loaded (already compiled)"
    print(f"uno_rl's compiled engine {verb} in {seconds:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

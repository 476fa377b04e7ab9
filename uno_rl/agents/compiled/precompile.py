"""Compile the engine and the compiled heuristics once on a machine:
``python -m uno_rl.agents.compiled.precompile`` (what ``make test`` runs first).

As :mod:`uno_rl.core.compiled.warm` does for the engine, this compiles the heuristics'
kernels (:mod:`.nb_phases`, :mod:`.nb_playout`, :mod:`.nb_jobs`) up front, about 40 seconds on
a small machine; later processes load them from disk. Cached kernels older than a source they
read (an edited working copy) are dropped first and compiled anew.
"""

from __future__ import annotations

import sys
import time
from types import SimpleNamespace

import numpy as np

from uno_rl.core import engine, load_rules
from uno_rl.core.compiled import warm as engine_warm
from uno_rl.core.compiled.stale import drop_stale_caches

from ..playout import play_out
from ..registry import make_agent
from .job_loop import empty_results, play_compiled_jobs
from .policy import cache_is_cold, compiled_policy, entry_points

__all__ = ["compile_heuristics", "drop_stale_kernels", "main"]


def compile_heuristics() -> float:
    """Compile the heuristics' kernels (a decision, a short play-out and the evaluator's
    compiled job loop); returns the seconds it took."""

    start = time.perf_counter()
    rules = load_rules("official", players=2)
    agent = make_agent("color-first", rules)
    state = engine.reset(rules, np.arange(2, dtype=np.uint64))
    generator = np.random.default_rng(0)
    compiled_policy(agent).actions(state, engine.legal_mask(state), generator)
    play_out(state, agent, generator, np.zeros(2, np.int64), max_decisions=3)
    policy = compiled_policy(agent)
    one = engine.reset(rules, np.arange(1, dtype=np.uint64))
    play_compiled_jobs(one, [policy], [(0, [0, 1])], [False, False], generator,
                       np.arange(1, dtype=np.uint64), np.array([[0, 1]]),
                       SimpleNamespace(**empty_results(1, 2)))  # fmt: skip
    return time.perf_counter() - start


def drop_stale_kernels() -> int:
    """Drop the cached kernels older than a source they read (:mod:`uno_rl.core.compiled.stale`:
    numba does not see a change in another file), saying so on stderr; returns how many."""
    dropped = drop_stale_caches([*engine_warm.ENTRY_POINTS, *entry_points()])
    if dropped:
        print(f"uno_rl: {dropped} cached kernel files were older than a source they read: "
              "dropped, to compile anew", file=sys.stderr)  # fmt: skip
    return dropped


def main() -> int:
    drop_stale_kernels()
    cold = engine_warm.cache_is_cold() or cache_is_cold()
    seconds = engine_warm.compile_engine() + compile_heuristics()
    verb = "compiled" if cold else "loaded (already compiled)"
    print(f"uno_rl's compiled engine and heuristics {verb} in {seconds:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""How uno_rl starts worker processes (the evaluator's pool of workers).

By default ``fork`` where the platform has it (Linux) and torch is not loaded: workers start
at once, and scripts need no ``if __name__ == "__main__":`` guard. Once torch is imported
(training, PPO agents) the default is ``spawn``: forking a process whose torch thread pools
are running can deadlock the children. ``UNO_RL_START_METHOD`` (or the argument) overrides
the choice.
"""

from __future__ import annotations

import multiprocessing
import os
import sys

__all__ = ["START_METHODS", "process_context"]

START_METHODS = ("fork", "forkserver", "spawn")


def process_context(start_method: str | None = None):
    """The multiprocessing context for ``start_method`` (default: ``$UNO_RL_START_METHOD``,
    else ``fork`` where available and torch is not loaded, else ``spawn``)."""
    method = start_method or os.environ.get("UNO_RL_START_METHOD") or None
    available = multiprocessing.get_all_start_methods()
    if method is None:
        method = "fork" if "fork" in available and "torch" not in sys.modules else "spawn"
    if method not in START_METHODS or method not in available:
        raise ValueError(
            f"start method must be one of {', '.join(m for m in START_METHODS if m in available)}, "
            f"got {method!r}"
        )
    return multiprocessing.get_context(method)

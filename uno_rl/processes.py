"""How uno_rl starts worker processes (the evaluator's pool of workers), and ends them.

By default ``fork`` where the platform has it (Linux) and torch is not loaded: workers start
at once, and scripts need no ``if __name__ == "__main__":`` guard. Once torch is imported
(training, PPO agents) the default is ``spawn``: forking a process whose torch thread pools
are running can deadlock the children. ``UNO_RL_START_METHOD`` (or the argument) overrides
the choice.

A worker never outlives the process that started it: :func:`guard_parent` (the initializer of
every pool made by :func:`worker_pool`) asks Linux to kill the worker when its parent dies
(``prctl(PR_SET_PDEATHSIG, SIGKILL)``) and, on every platform, starts a daemon thread that
polls the parent's pid and ends the worker once the parent is gone. So a ``kill -9`` of an
evaluation or an experiment leaves no worker behind, computing or idle.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

__all__ = [
    "MAX_WORKERS",
    "POLL_SECONDS",
    "START_METHODS",
    "guard_parent",
    "process_context",
    "worker_pool",
]

START_METHODS = ("fork", "forkserver", "spawn")
#: How often the fallback thread of :func:`guard_parent` looks at the parent's pid.
POLL_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1
#: The most worker processes one pool may start (every larger number is a typo).
MAX_WORKERS = 1024


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


def _set_death_signal() -> bool:
    """Linux: have the kernel send SIGKILL to this process when its parent dies."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int, interval: float) -> None:
    while True:
        if os.getppid() != parent:
            os._exit(1)
        time.sleep(interval)


def guard_parent(
    parent: int | None = None, death_signal: bool = True, interval: float = POLL_SECONDS
) -> None:
    """End this process when its parent dies (call it first thing in a worker).

    Args:
        parent: the pid the parent had when it started this worker (``os.getpid()`` there);
            when this process's parent is already another one, that parent died before the
            guard was set, and the worker exits at once. None: the current parent (a worker
            started through a fork server).
        death_signal: use Linux's ``PR_SET_PDEATHSIG`` (SIGKILL) where available; the polling
            thread runs in any case (a portable fallback, and a second line of defence).
        interval: seconds between two looks at the parent's pid.
    """
    if death_signal:
        _set_death_signal()
    parent = os.getppid() if parent is None else parent
    if os.getppid() != parent:  # the parent died before the death signal was set
        os._exit(1)
    threading.Thread(target=_watch, args=(parent, interval), daemon=True).start()


def _initialize(parent: int | None, then: Callable[[], None] | None) -> None:
    guard_parent(parent)
    if then is not None:
        then()


def worker_pool(
    workers: int, initializer: Callable[[], None] | None = None, start_method: str | None = None
) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes (started as :func:`process_context` says) that end when
    this process dies (:func:`guard_parent`), each running ``initializer`` first.

    Submit from a long-lived thread (the main one): on Linux the kernel's death signal fires
    when the *thread* that started a worker ends.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers:
        raise ValueError(f"workers must be a whole number of at least 1, got {workers!r}")
    if workers > MAX_WORKERS:
        raise ValueError(f"workers must be at most {MAX_WORKERS:,}, got {workers:,}")
    context = process_context(start_method)
    # Workers of a fork server are its children, not ours: they watch whichever parent they get.
    parent = None if context.get_start_method() == "forkserver" else os.getpid()
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_initialize,
        initargs=(parent, initializer),
    )

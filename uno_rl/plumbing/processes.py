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

Workers ignore SIGINT: Ctrl-C reaches every process of the terminal's process group, and the
parent alone decides what it means. Inside :func:`interruptible` the parent turns SIGINT and
SIGTERM into :class:`Interrupted`, and :func:`stop_pool` ends a pool's workers at once, their
running work abandoned.
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
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager

__all__ = [
    "MAX_WORKERS",
    "POLL_SECONDS",
    "START_METHODS",
    "Interrupted",
    "exit_would_hang",
    "guard_parent",
    "interruptible",
    "process_context",
    "stop_pool",
    "worker_pool",
]

START_METHODS = ("fork", "forkserver", "spawn")
#: How often the fallback thread of :func:`guard_parent` looks at the parent's pid.
POLL_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1
#: The most worker processes one pool may start (every larger number is a typo).
MAX_WORKERS = 1024
#: Seconds :func:`stop_pool` waits for a pool's bookkeeping thread once its workers are ended.
STOP_SECONDS = 10.0
_unended_managers = 0  # bookkeeping threads stop_pool could not end


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


def _leave_signals_to_parent() -> None:
    """Ignore Ctrl-C (the parent stops the pool) and end on SIGTERM, whatever handlers a
    forked worker inherited."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _initialize(parent: int | None, then: Callable[[], None] | None) -> None:
    _leave_signals_to_parent()
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


def stop_pool(pool: Executor) -> None:
    """End ``pool`` now: pending work cancelled, worker processes ended in the middle of their
    work (what they were computing is lost), then their bookkeeping thread awaited."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    if manager is not None:
        manager.join(STOP_SECONDS)
        if manager.is_alive():
            # Blocked for good, typically reading a result a worker was ended in the middle
            # of writing; Python joins such threads when it exits, so the process would hang.
            global _unended_managers
            _unended_managers += 1


def exit_would_hang() -> bool:
    """Whether :func:`stop_pool` left a pool's bookkeeping thread that will never end: Python
    waits for it at exit, so a program that has finished should leave with ``os._exit``."""
    return _unended_managers > 0


class Interrupted(KeyboardInterrupt):
    """A stop asked for by a signal (SIGINT: Ctrl-C, or SIGTERM); ``status`` is the exit
    status a shell reports for it, 128 + the signal's number."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.status = 128 + signum


@contextmanager
def interruptible(signals: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)) -> Iterator[None]:
    """Inside, the first of ``signals`` to arrive raises :class:`Interrupted` in the main
    thread; any later one, until the block is left, ends the process at once (the cleanup of
    the first hangs, the user insists). Outside the main thread (where Python cannot handle
    signals) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame) -> None:
        for number in signals:
            signal.signal(number, lambda again, _: os._exit(128 + again))
        raise Interrupted(signum)

    previous = {number: signal.signal(number, stop) for number in signals}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)

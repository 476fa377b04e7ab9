"""Large batches split over threads: the compiled batch loops release the GIL
(``nogil``), so parts of one batch's step, or of its observations, run on several cores at
once.

Every game's step draws its randomness from its own key (:mod:`.nb_random`), so a game's
result does not depend on which thread plays it or on how the batch is split: the split
changes only the time. A batch is split when every part gets at least
:data:`MIN_GAMES_PER_THREAD` games: handing a part to another thread and back costs some tens
of microseconds, which smaller parts would not repay (nor do the legal masks, a tenth of a
step's work, so they are not split).

The number of threads is ``$UNO_RL_THREADS`` where set, else 2 where the machine has two
cores or more, except in a worker process (the evaluator's workers, started by
:mod:`multiprocessing`, and Ray's one-CPU tasks and rollout actors:
:func:`.thread_setting.one_thread_in_this_worker`), which already shares the cores with its
siblings: 1 there.
:func:`set_threads` changes it for the process.

Every thread gets its own rule tables (:func:`thread_tables`): the tables hold the kernel's
scratch arrays, which two threads must not share (the loops run without the GIL, so a user's
own threads stepping games at the same time need this as much as the helpers). One caller at
a time hands work to the helpers; another thread meanwhile runs its calls itself.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import queue
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from ..rules import Rules
from .nb_rules import RuleTables, build_rule_tables, rule_tables
from .thread_setting import threads_variable

__all__ = [
    "MIN_GAMES_PER_THREAD",
    "run_calls",
    "set_threads",
    "split_run",
    "thread_tables",
    "threads",
]

#: The fewest games a part of a split batch gets.
MIN_GAMES_PER_THREAD = 1024

T = TypeVar("T")
_threads: int | None = None
_threads_pid: int | None = None


def _default_threads() -> int:
    chosen = threads_variable()
    if chosen is not None:
        return chosen
    if multiprocessing.parent_process() is not None:
        return 1
    return min(2, os.cpu_count() or 1)


def threads() -> int:
    """The number of threads a large batch is split over (decided on the first call, again
    in a forked child)."""
    global _threads, _threads_pid
    if _threads is None or _threads_pid != os.getpid():
        _threads, _threads_pid = _default_threads(), os.getpid()
    return _threads


def set_threads(count: int | None) -> None:
    """Split large batches over ``count`` threads from now on (None: the default again)."""
    global _threads, _threads_pid
    if count is not None and (not isinstance(count, int) or isinstance(count, bool) or count < 1):
        raise ValueError(f"threads must be a whole number of at least 1, got {count!r}")
    _threads, _threads_pid = count, os.getpid()


_local = threading.local()
_dispatching = threading.Lock()  # held by the one caller handing work to the helpers


def thread_tables(rules: Rules) -> RuleTables:
    """The rule tables of ``rules`` for the calling thread (the main thread's are
    :func:`rule_tables`; any other thread builds its own once)."""
    if threading.current_thread() is threading.main_thread():
        return rule_tables(rules)
    last = getattr(_local, "last", None)
    if last is not None and last[0] is rules:
        return last[1]
    cache = _local.__dict__.setdefault("tables", {})
    tables = cache.get(rules)
    if tables is None:
        tables = cache[rules] = build_rule_tables(rules)
    _local.last = (rules, tables)
    return tables


class _Helper:
    """A daemon thread that runs the calls it is handed, one at a time."""

    def __init__(self) -> None:
        self.tasks: queue.SimpleQueue = queue.SimpleQueue()
        self.results: queue.SimpleQueue = queue.SimpleQueue()
        self.submitted = 0
        threading.Thread(target=self._serve, daemon=True, name="uno_rl-engine").start()

    def _serve(self) -> None:
        while True:
            ticket, call = self.tasks.get()
            try:
                self.results.put((ticket, True, call()))
            except BaseException as error:  # handed back to the caller, raised there
                self.results.put((ticket, False, error))

    def submit(self, call: Callable[[], object]) -> int:
        """Queue ``call``; returns its ticket for :meth:`result`."""
        self.submitted += 1
        self.tasks.put((self.submitted, call))
        return self.submitted

    def result(self, ticket: int):
        """What call ``ticket`` returned (or raised), once it is done; the results of calls
        whose caller stopped waiting (Ctrl-C) are passed over."""
        while True:
            done_ticket, done, value = self.results.get()
            if done_ticket == ticket:
                break
        if not done:
            raise value
        return value


_helpers: list[_Helper] = []
_helpers_pid: int | None = None  # a forked child has none of its parent's threads


def _helper(index: int) -> _Helper:
    global _helpers_pid
    if _helpers_pid != os.getpid():
        _helpers.clear()
        _helpers_pid = os.getpid()
    while len(_helpers) <= index:
        _helpers.append(_Helper())
    return _helpers[index]


def run_calls(calls: Sequence[Callable[[], T]]) -> list[T]:
    """``[call() for call in calls]``, the calls spread over :func:`threads` threads (this one
    and helpers: call ``i`` in thread ``i % threads``); whatever a call raises is raised here,
    once every thread is done. Inside a call, or while another thread hands work to the
    helpers, the calls run here one after the other."""
    count = min(threads(), len(calls))
    if count <= 1 or getattr(_local, "inside", False) or not _dispatching.acquire(blocking=False):
        return [call() for call in calls]
    try:
        return _dispatch(calls, count)
    finally:
        _dispatching.release()


def _dispatch(calls: Sequence[Callable[[], T]], count: int) -> list[T]:
    groups = [calls[j::count] for j in range(count)]
    helpers = [_helper(j) for j in range(count - 1)]
    tickets = [helper.submit(functools.partial(_run_all, group))
               for helper, group in zip(helpers, groups[1:])]  # fmt: skip
    failure: BaseException | None = None
    try:
        first = _run_all(groups[0])
    except BaseException as error:
        failure, first = error, []
    rest = []
    for helper, ticket in zip(helpers, tickets):  # every helper's calls end before we go on
        try:
            rest.append(helper.result(ticket))
        except BaseException as error:
            failure = failure or error
    if failure is not None:
        raise failure
    done = [first, *rest]
    return [done[i % count][i // count] for i in range(len(calls))]


def _run_all(calls: Sequence[Callable[[], T]]) -> list[T]:
    outer = getattr(_local, "inside", False)
    _local.inside = True
    try:
        return [call() for call in calls]
    finally:
        _local.inside = outer


def split_run(count: int, work: Callable[[int, int], T]) -> list[T]:
    """``[work(start, stop), ...]`` over consecutive parts of ``range(count)``: one part when
    ``count`` is small or there is one thread, else parts of equal size, run at the same time
    (:func:`run_calls`). ``work`` takes its tables from :func:`thread_tables`."""
    parts = min(threads(), count // MIN_GAMES_PER_THREAD)
    if parts <= 1 or getattr(_local, "inside", False):
        return [work(0, count)]
    bounds = [count * j // parts for j in range(parts + 1)]
    return run_calls([functools.partial(work, bounds[j], bounds[j + 1]) for j in range(parts)])

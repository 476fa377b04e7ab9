"""Where evaluation chunks run: local worker processes, or Ray tasks on a cluster.

Both backends are :class:`concurrent.futures.Executor` objects that
:func:`~uno_rl.eval.tournament.play_chunks` submits chunks to and gathers in chunk order, so a
run gives the same tables for a seed on either backend and any number of workers.

``ray`` (extra ``ray``: ``pip install -e '.[ray]'``) connects to the cluster at ``address``
(``ray start --head`` prints it; ``"auto"`` finds a local one) or, without an address, starts
a private local instance with ``workers`` CPUs. Each chunk is one Ray task (one CPU). A task
whose worker process dies (killed, out of memory, a node lost) is retried by Ray up to
:data:`TASK_RETRIES` times; a chunk that still fails, or raises an error of its own, stops
the run with an error naming the chunk, and no partial result is merged.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

from ..core.compiled.thread_setting import one_thread_in_this_worker
from .tournament import worker_pool

__all__ = ["BACKENDS", "BackendError", "RayExecutor", "make_executor"]

BACKENDS = ("local", "ray")
#: Times Ray re-runs a task whose worker died before the run stops.
TASK_RETRIES = 3


class BackendError(RuntimeError):
    """A backend that cannot start (missing extra, unreachable cluster) or a chunk it lost."""


def make_executor(backend: str, workers: int, address: str | None = None) -> Executor:
    """An executor for ``backend``: ``local`` (a process pool of ``workers``) or ``ray``."""
    if backend not in BACKENDS:
        raise BackendError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "local":
        if address is not None:
            raise BackendError("--address is only for --backend ray")
        return worker_pool(workers)
    return RayExecutor(address=address, num_cpus=None if address else workers)


class RayExecutor(Executor):
    """Runs submitted functions as Ray tasks (one CPU each).

    Args:
        address: a running cluster (``ray://host:10001``, ``host:6379`` or ``auto``); None
            starts a local instance (``num_cpus`` CPUs) that :meth:`shutdown` stops again.
        num_cpus: CPUs of a local instance (default: every CPU).
        retries: re-runs of a task whose worker process died.
    """

    def __init__(
        self, address: str | None = None, num_cpus: int | None = None, retries: int = TASK_RETRIES
    ):
        try:
            import ray
        except ImportError:
            raise BackendError(
                "the ray backend needs Ray: pip install -e '.[ray]' (the 'ray' extra)"
            ) from None
        self._ray = ray
        self._owns_instance = False
        if not ray.is_initialized():
            try:
                if address is None:
                    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
                    self._owns_instance = True
                else:
                    ray.init(address=address, log_to_driver=False)
            except (ConnectionError, RuntimeError, ValueError) as error:
                raise BackendError(f"cannot connect to Ray at {address!r}: {error}") from None
        self._retries = retries
        self._remote: Any = None  # every task runs through _in_a_worker

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any) -> Future:
        if self._remote is None:
            self._remote = self._ray.remote(num_cpus=1, max_retries=self._retries)(_in_a_worker)
        return _translated(self._ray, self._remote.remote(fn, *args, **kwargs).future())

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._owns_instance and self._ray.is_initialized():
            self._ray.shutdown()
        self._owns_instance = False


def _in_a_worker(fn: Callable, /, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` in a Ray worker of one CPU: one engine thread there."""
    one_thread_in_this_worker()
    return fn(*args, **kwargs)


def _translated(ray, future: Future) -> Future:
    """``future`` with Ray's errors turned into what the caller understands: a task's own
    exception as itself, a lost worker as :class:`BackendError`."""
    out: Future = Future()

    def done(inner: Future) -> None:
        error = inner.exception()
        if error is None:
            out.set_result(inner.result())
        elif isinstance(error, ray.exceptions.RayTaskError):
            cause = error.as_instanceof_cause()
            out.set_exception(cause if isinstance(cause, Exception) else error)
        elif isinstance(error, ray.exceptions.RayError):
            out.set_exception(
                BackendError(f"a Ray worker was lost and its task could not be rerun: {error}")
            )
        else:
            out.set_exception(error)

    future.add_done_callback(done)
    return out

"""``UNO_RL_THREADS``, the number of threads the compiled engine splits a large batch over
(:mod:`.threads`), read without importing numba (the front door checks it first)."""

from __future__ import annotations

import os

__all__ = [
    "THREADS_VARIABLE",
    "check_threads_variable",
    "one_thread_in_this_worker",
    "threads_variable",
]

#: The environment variable.
THREADS_VARIABLE = "UNO_RL_THREADS"


def check_threads_variable() -> str | None:
    """What is wrong with ``UNO_RL_THREADS`` (one line), or None: it is unset or a whole
    number of at least 1."""
    text = os.environ.get(THREADS_VARIABLE, "").strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        return f"{THREADS_VARIABLE} must be a whole number, got {text!r}"
    return None if value >= 1 else f"{THREADS_VARIABLE} must be at least 1, got {value}"


def threads_variable() -> int | None:
    """The number ``UNO_RL_THREADS`` sets, or None where it is unset.

    Raises:
        ValueError: the variable is not a whole number of at least 1 (the message names it).
    """
    problem = check_threads_variable()
    if problem:
        raise ValueError(problem)
    text = os.environ.get(THREADS_VARIABLE, "").strip()
    return int(text) if text else None


def one_thread_in_this_worker() -> None:
    """Call first in a worker process given one CPU of its own (a Ray task or actor): the
    compiled engine then splits no batch over threads in this process, unless
    ``UNO_RL_THREADS`` was set for it (Ray starts its workers with the cluster's environment,
    so two engine threads per one-CPU worker would crowd the cores)."""
    os.environ.setdefault(THREADS_VARIABLE, "1")

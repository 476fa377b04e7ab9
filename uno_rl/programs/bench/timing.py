"""Timing loops of the benchmark (:mod:`uno_rl.programs.bench.command`): median throughput and step latency
over timed repeats after one warm-up repeat."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

#: One step of a benchmark loop; returns (decisions taken, rounds finished).
StepFn = Callable[[], tuple[int, int]]


def log(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def timed(step: StepFn, seconds: float) -> tuple[float, float, list[float]]:
    """Steps for about ``seconds`` (at least one): decisions/s, rounds/s, each step's time."""
    decisions = rounds = 0
    laps: list[float] = []
    start = now = time.perf_counter()
    while now - start < seconds or not laps:
        d, r = step()
        decisions += d
        rounds += r
        t = time.perf_counter()
        laps.append(t - now)
        now = t
    elapsed = now - start
    return decisions / elapsed, rounds / elapsed, laps


def medians(runs: list[tuple[float, float, list[float]]]) -> dict[str, float]:
    return {
        "decisions_per_s": statistics.median(r[0] for r in runs),
        "rounds_per_s": statistics.median(r[1] for r in runs),
        "step_latency_us": 1e6 * statistics.median(lap for r in runs for lap in r[2]),
    }


def measure(step: StepFn, seconds: float, repeats: int) -> dict[str, float]:
    """Warm up for one repeat, then time ``repeats`` repeats of about ``seconds`` each."""
    timed(step, seconds)  # warm-up: caches, allocations, and games spread over their rounds
    return medians([timed(step, seconds) for _ in range(repeats)])


def measure_pair(
    first: StepFn, second: StepFn, seconds: float, repeats: int
) -> tuple[dict[str, float], dict[str, float]]:
    """:func:`measure` of two steps with their repeats interleaved, so that both see the same
    load of a shared machine (their ratio is what the pair is for)."""
    timed(first, seconds)
    timed(second, seconds)
    runs: tuple[list, list] = ([], [])
    for _ in range(repeats):
        runs[0].append(timed(first, seconds))
        runs[1].append(timed(second, seconds))
    return medians(runs[0]), medians(runs[1])

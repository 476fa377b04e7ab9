"""A large batch split over threads: the same states, results and observations as the NumPy
engine (the split forced on small batches), the parts' bounds, errors handed back, and how
many threads a process uses."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading

import pytest
from compiled_lockstep import play_lockstep

from uno_rl.core.compiled import threads
from uno_rl.core.compiled.nb_rules import rule_tables
from uno_rl.core.compiled.thread_setting import check_threads_variable
from uno_rl.core.rules import load_rules


@pytest.fixture
def forced_split(monkeypatch):
    """Split every batch of 3 games or more, over 3 threads (parts of unequal sizes)."""
    monkeypatch.setattr(threads, "MIN_GAMES_PER_THREAD", 1)
    threads.set_threads(3)
    yield
    threads.set_threads(None)


@pytest.mark.parametrize(
    "preset,overrides",
    [
        ("official", {}),
        ("party", {"players": 6}),
        ("official", {"deck": "extension", "players": 4}),
        ("official", {"deck": "modern-112", "players": 2, "match": True}),
    ],
)
def test_split_batches_play_as_the_numpy_engine(forced_split, preset, overrides):
    played = play_lockstep(load_rules(preset, **overrides), num_games=31, decisions=3100, seed=7)
    assert played.decisions >= 3100 and played.rounds > 0


def test_parts_cover_the_batch_once(monkeypatch):
    monkeypatch.setattr(threads, "MIN_GAMES_PER_THREAD", 4)
    threads.set_threads(3)
    try:
        assert threads.split_run(13, lambda start, stop: (start, stop)) == [(0, 4), (4, 8), (8, 13)]
        assert threads.split_run(11, lambda *bounds: bounds) == [(0, 5), (5, 11)]
        assert threads.split_run(7, lambda *bounds: bounds) == [(0, 7)]  # too few for two
        threads.set_threads(1)
        assert threads.split_run(100, lambda *bounds: bounds) == [(0, 100)]
    finally:
        threads.set_threads(None)


def test_an_error_in_a_helper_reaches_the_caller(monkeypatch):
    monkeypatch.setattr(threads, "MIN_GAMES_PER_THREAD", 1)
    threads.set_threads(2)

    def work(start, stop):
        if start > 0:
            raise KeyError("part 1 failed")
        return start

    try:
        with pytest.raises(KeyError, match="part 1 failed"):
            threads.split_run(10, work)
        assert threads.split_run(10, lambda start, stop: start) == [0, 5]  # still serving
    finally:
        threads.set_threads(None)


def test_bad_thread_counts_are_refused(monkeypatch):
    with pytest.raises(ValueError, match="at least 1"):
        threads.set_threads(0)
    with pytest.raises(ValueError, match="at least 1"):
        threads.set_threads(True)
    monkeypatch.setenv("UNO_RL_THREADS", "two")
    assert check_threads_variable() == "UNO_RL_THREADS must be a whole number, got 'two'"
    monkeypatch.setenv("UNO_RL_THREADS", "0")
    assert check_threads_variable() == "UNO_RL_THREADS must be at least 1, got 0"
    monkeypatch.setenv("UNO_RL_THREADS", " 3 ")
    assert check_threads_variable() is None
    threads.set_threads(None)
    try:
        assert threads.threads() == 3
    finally:
        threads.set_threads(None)


def _report_threads(queue) -> None:
    queue.put(threads.threads())


def test_a_worker_process_uses_one_thread(monkeypatch):
    monkeypatch.delenv("UNO_RL_THREADS", raising=False)
    context = multiprocessing.get_context("fork")
    queue = context.SimpleQueue()
    worker = context.Process(target=_report_threads, args=(queue,))
    worker.start()
    worker.join(60)
    assert queue.get() == 1


def test_a_bad_variable_is_one_line_and_exit_2():
    done = subprocess.run(
        [sys.executable, "-m", "uno_rl", "evaluate", "random", "random", "--rounds", "4"],
        env={**os.environ, "UNO_RL_THREADS": "many"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "error: UNO_RL_THREADS must be a whole number, got 'many'"


def test_calls_inside_a_call_run_in_its_thread(monkeypatch):
    monkeypatch.setattr(threads, "MIN_GAMES_PER_THREAD", 1)
    threads.set_threads(2)
    rules = load_rules("official")

    def outer():
        inner = threads.split_run(4, lambda start, stop: (threading.get_ident(), start, stop))
        return threading.get_ident(), inner, threads.thread_tables(rules)

    try:
        got = threads.run_calls([outer, outer, outer])
    finally:
        threads.set_threads(None)
    here = threading.get_ident()
    assert [ident == here for ident, _, _ in got] == [True, False, True]  # call i: thread i % 2
    assert all(inner == [(ident, 0, 4)] for ident, inner, _ in got)  # whole, in the same thread
    assert got[0][2] is got[2][2] is rule_tables(rules)  # the main thread's tables
    assert got[1][2] is not got[0][2]  # a helper's own (its scratch arrays)


def test_each_thread_of_its_own_gets_its_own_tables():
    rules = load_rules("official", players=3)
    found = []
    workers = [threading.Thread(target=lambda: found.append(threads.thread_tables(rules)))
               for _ in range(2)]  # fmt: skip
    for worker in workers:
        worker.start()
        worker.join()
    assert found[0] is not found[1] and rule_tables(rules) not in found
    assert found[0].work_points is not found[1].work_points


def test_two_callers_at_once_each_get_their_own_results(monkeypatch):
    """While one thread hands work to the helpers, another runs its calls itself."""
    threads.set_threads(2)
    started, release = threading.Event(), threading.Event()

    def slow():
        started.set()
        release.wait(10)
        return "slow"

    other = []
    first = threading.Thread(target=lambda: other.append(threads.run_calls([slow, lambda: 1])))
    try:
        first.start()
        started.wait(10)
        assert threads.run_calls([lambda: 2, lambda: 3]) == [2, 3]  # not through the helpers
        release.set()
        first.join(10)
    finally:
        release.set()
        threads.set_threads(None)
    assert other == [["slow", 1]]


def test_a_result_nobody_waited_for_is_passed_over():
    threads.set_threads(2)
    try:
        threads._helper(0).submit(lambda: "stale")  # its caller stopped waiting (Ctrl-C)
        assert threads.run_calls([lambda: 1, lambda: 2, lambda: 3]) == [1, 2, 3]
        assert threads.run_calls([lambda: 4, lambda: 5]) == [4, 5]
    finally:
        threads.set_threads(None)

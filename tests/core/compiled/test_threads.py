"""A large batch split over threads: the same states, results and observations as the NumPy
engine (the split forced on small batches), the parts' bounds, errors handed back, and how
many threads a process uses."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys

import pytest
from compiled_lockstep import play_lockstep

from uno_rl.core.compiled import threads
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
        assert threads.split_run(13, lambda part, start, stop: (part, start, stop)) == [
            (0, 0, 4),
            (1, 4, 8),
            (2, 8, 13),
        ]
        assert threads.split_run(11, lambda *bounds: bounds) == [(0, 0, 5), (1, 5, 11)]
        assert threads.split_run(7, lambda *bounds: bounds) == [(0, 0, 7)]  # too few for two
        threads.set_threads(1)
        assert threads.split_run(100, lambda *bounds: bounds) == [(0, 0, 100)]
    finally:
        threads.set_threads(None)


def test_an_error_in_a_helper_reaches_the_caller(monkeypatch):
    monkeypatch.setattr(threads, "MIN_GAMES_PER_THREAD", 1)
    threads.set_threads(2)

    def work(part, start, stop):
        if part == 1:
            raise KeyError("part 1 failed")
        return part

    try:
        with pytest.raises(KeyError, match="part 1 failed"):
            threads.split_run(10, work)
        assert threads.split_run(10, lambda part, start, stop: part) == [0, 1]  # still serving
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

    def outer(j):
        inner = threads.split_run(4, lambda part, start, stop: (threads.current_part(), part))
        return threads.current_part(), inner

    try:
        got = threads.run_calls([lambda: outer(0), lambda: outer(1), lambda: outer(2)])
    finally:
        threads.set_threads(None)
    assert [part for part, _ in got] == [0, 1, 0]  # call i in thread i % 2
    assert [inner for _, inner in got] == [[(0, 0)], [(1, 1)], [(0, 0)]]  # whole, own tables
    assert threads.current_part() == 0


def test_a_result_nobody_waited_for_is_passed_over():
    threads.set_threads(2)
    try:
        threads._helper(0).submit(lambda: "stale")  # its caller stopped waiting (Ctrl-C)
        assert threads.run_calls([lambda: 1, lambda: 2, lambda: 3]) == [1, 2, 3]
        assert threads.run_calls([lambda: 4, lambda: 5]) == [4, 5]
    finally:
        threads.set_threads(None)

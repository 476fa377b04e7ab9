"""Choosing the engine: the compiled one by default where numba imports, the NumPy one on
request (``UNO_RL_ENGINE=numpy`` or :func:`select_engine`) or where numba is missing, one
clear line for a bad choice; both play the same games through the public API."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from uno_rl.core import backend, engine, load_rules, numpy_engine
from uno_rl.core.compiled import nb_engine, warm
from uno_rl.core.observe import observe
from uno_rl.core.phases import OVER


@pytest.fixture
def restore_engine(monkeypatch):
    saved = backend._compiled
    monkeypatch.setenv("UNO_RL_ENGINE", "")  # select_engine sets it: put it back afterwards
    monkeypatch.delenv("UNO_RL_ENGINE")
    yield
    backend._compiled = saved


def play(seeds: int, steps: int, preset: str) -> tuple[dict, list, np.ndarray]:
    """Random play through the public API of whichever engine is selected."""
    generator = np.random.default_rng(7)
    state = engine.reset(load_rules(preset, players=3), np.arange(seeds, dtype=np.uint64))
    results, seen = [], []
    for _ in range(steps):
        seen.append(observe(state, state.actor).copy())
        result = engine.step(state, engine.sample_legal_actions(engine.legal_mask(state),
                                                                generator))  # fmt: skip
        results.append((result.rewards.copy(), result.round_over.copy(), result.points.copy()))
        over = np.flatnonzero(state.phase == OVER)
        engine.reset_games(state, over, over.astype(np.uint64) + 1000)
    return state.arrays(), results, np.stack(seen)


@pytest.mark.parametrize("preset", ["official", "party"])
def test_both_engines_play_the_same_games_through_the_public_api(preset, restore_engine):
    backend.select_engine("numpy")
    assert backend.engine_name() == "numpy" and backend.compiled_engine() is None
    assert os.environ["UNO_RL_ENGINE"] == "numpy"  # for the processes it starts
    numpy_arrays, numpy_results, numpy_seen = play(16, 120, preset)
    assert backend.select_engine("compiled") == "compiled"
    assert backend.compiled_engine() is nb_engine
    arrays, results, seen = play(16, 120, preset)
    for name, array in numpy_arrays.items():
        assert np.array_equal(array, arrays[name]), name
    for ours, theirs in zip(numpy_results, results, strict=True):
        for a, b in zip(ours, theirs, strict=True):
            assert np.array_equal(a, b)
    assert np.array_equal(numpy_seen, seen)


def test_the_variable_picks_the_engine_and_a_bad_one_is_one_clear_error(
    monkeypatch, restore_engine
):
    monkeypatch.setenv("UNO_RL_ENGINE", "NumPy ")
    assert backend.select_engine(None) == "numpy" and backend.check_engine_variable() is None
    monkeypatch.setenv("UNO_RL_ENGINE", "compiled")
    assert backend.select_engine(None) == "compiled"
    monkeypatch.delenv("UNO_RL_ENGINE")
    assert backend.select_engine(None) == "compiled"  # the default where numba imports
    monkeypatch.setenv("UNO_RL_ENGINE", "fast")
    message = "UNO_RL_ENGINE must be one of compiled, numpy, got 'fast'"
    assert backend.check_engine_variable() == message
    with pytest.raises(backend.EngineChoiceError, match=message):
        backend.select_engine(None)
    with pytest.raises(backend.EngineChoiceError, match="engine must be one of"):
        backend.select_engine("c")


def test_a_bad_variable_stops_a_command_with_one_line():
    env = {**os.environ, "UNO_RL_ENGINE": "fast"}
    done = subprocess.run(
        [sys.executable, "-m", "uno_rl", "simulate", "--rounds", "10"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr == "error: UNO_RL_ENGINE must be one of compiled, numpy, got 'fast'\n"


#: Run where numba does not import: the NumPy engine plays; insisting on the compiled one is
#: one line from the command line.
WITHOUT_NUMBA = """
import os, sys
sys.modules["numba"] = None  # import numba raises ImportError
from uno_rl.core import backend, engine, load_rules
if "UNO_RL_ENGINE" not in os.environ:
    state = engine.reset(load_rules("official"), [1, 2])
    assert backend.engine_name() == "numpy", backend.engine_name()
from uno_rl.__main__ import main
sys.exit(main(sys.argv[1:]))
"""


def test_without_numba_the_numpy_engine_plays_and_insisting_is_one_line():
    env = {k: v for k, v in os.environ.items() if k != "UNO_RL_ENGINE"}
    command = [sys.executable, "-c", WITHOUT_NUMBA, "simulate", "--rounds", "20"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    done = subprocess.run(command, env={**env, "UNO_RL_ENGINE": "compiled"}, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("error: the compiled engine needs numba, which does not import")
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_warm_up_compiles_everything_the_engine_calls(capsys):
    warm.compile_engine()
    assert not warm.cache_is_cold()
    assert warm.main() == 0
    assert capsys.readouterr().err.startswith("uno_rl's compiled engine loaded (already compiled)")


def test_the_numpy_engine_module_is_the_numpy_path():
    state = numpy_engine.reset(load_rules("official"), [3, 4])
    assert np.array_equal(numpy_engine.legal_mask(state), nb_engine.legal_mask(state.copy()))


def test_a_first_compilation_is_announced_in_one_line(monkeypatch, capsys, restore_engine):
    monkeypatch.setattr(warm, "cache_is_cold", lambda: True)
    backend.select_engine("compiled")
    assert capsys.readouterr().err == (
        "uno_rl: compiling the engine, once on a machine (about a minute)\n"
    )
    monkeypatch.setattr(warm, "cache_is_cold", lambda: False)
    backend.select_engine("compiled")
    assert capsys.readouterr().err == ""


def test_bad_actions_get_the_numpy_engines_errors():
    rules = load_rules("official")
    over = numpy_engine.reset(rules, np.arange(3, dtype=np.uint64))
    over.phase[0] = OVER
    bad = [
        np.array([1, 2]),  # wrong shape
        np.array([0.0, 1.0, 2.0]),  # not integers
        np.array([60, 500, -1]),  # out of range (after game 0 is over: range comes first)
        np.array([60, 60, 60]),  # game 0 is over
        np.array([5, 60, 60]),  # illegal, or over first
    ]
    for actions in bad:
        errors = []
        for module in (numpy_engine, nb_engine):
            state = over.copy()
            with pytest.raises(ValueError) as caught:
                module.step(state, actions)
            errors.append(str(caught.value))
        assert errors[0] == errors[1], actions
    state = numpy_engine.reset(rules, np.arange(3, dtype=np.uint64))
    illegal = np.flatnonzero(~numpy_engine.legal_mask(state)[1])[0]
    for games in (None, np.array([2, 1])):
        actions = np.array([60, illegal, 60]) if games is None else np.array([60, illegal])
        errors = []
        for module in (numpy_engine, nb_engine):
            with pytest.raises(ValueError) as caught:
                module.step(state.copy(), actions, games)
            errors.append(str(caught.value))
        assert errors[0] == errors[1] and "illegal action" in errors[0]


def test_rules_unpickled_read_only_give_the_same_compiled_types():
    # Ray's object store unpickles arrays read-only; numba would compile every kernel again
    # for such a rule table in each worker.
    from uno_rl.core.compiled.nb_rules import build_rule_tables, rule_tables

    rules = load_rules("official", players=3, deck="extension")
    buffers = []
    data = pickle.dumps(rules, protocol=5, buffer_callback=buffers.append)
    copy = pickle.loads(data, buffers=[memoryview(b.raw()).toreadonly() for b in buffers])
    fields = build_rule_tables(copy).fields  # not the cached tables of equal rules
    arrays = {name: value for name, value in fields.items() if isinstance(value, np.ndarray)}
    assert arrays and all(value.flags.writeable for value in arrays.values())
    for name, value in arrays.items():
        if not name.startswith("work_"):  # the kernel's scratch arrays hold anything
            np.testing.assert_array_equal(value, rule_tables(rules).fields[name], name)


def test_rule_tables_follow_the_rules_asked_for():
    from uno_rl.core.compiled.nb_rules import rule_tables

    two = load_rules("official", players=2)
    four = load_rules("official", players=4, deck="extension")
    equal_two = pickle.loads(pickle.dumps(two))
    assert equal_two is not two and equal_two == two
    for _ in range(2):  # alternating: the fast path for the last rules never answers another
        assert rule_tables(two).players == 2
        assert rule_tables(four).players == 4 and rule_tables(four).extended
        assert rule_tables(equal_two) is rule_tables(two)  # equal rules share their tables
    assert rule_tables(four) is rule_tables(four)

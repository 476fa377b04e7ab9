"""Worker start methods."""

import multiprocessing
import sys

import pytest

from uno_rl.processes import process_context


def test_default_and_explicit_start_methods(monkeypatch):
    monkeypatch.delenv("UNO_RL_START_METHOD", raising=False)
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    expected = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    assert process_context().get_start_method() == expected
    monkeypatch.setitem(sys.modules, "torch", object())  # torch loaded: never fork
    assert process_context().get_start_method() == "spawn"
    assert process_context("spawn").get_start_method() == "spawn"
    monkeypatch.setenv("UNO_RL_START_METHOD", "spawn")
    assert process_context().get_start_method() == "spawn"
    with pytest.raises(ValueError, match="start method must be one of"):
        process_context("threads")

"""Durable writes make files as ``open()`` would: readable by whom the user's umask lets read
them (a teammate, a Jupyter server running as another user), not private to the writer."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from uno_rl.agents import make_agent
from uno_rl.core import load_rules
from uno_rl.durable import (
    append_durably,
    replace_durably,
    write_bytes_durably,
    write_text_durably,
)
from uno_rl.eval.run import write_atomic
from uno_rl.replays import AgentSeat, GameRecorder, play_game, save

#: (umask, the mode of a file made under it)
MASKS = [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)]


@pytest.fixture(params=MASKS, ids=[f"umask-{m:03o}" for m, _ in MASKS])
def expected_mode(request) -> int:
    """Run the test under a umask; the mode it gives a new file. The umask is restored."""
    umask, mode = request.param
    old = os.umask(umask)
    yield mode
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_every_durable_helper_honours_the_umask(tmp_path, expected_mode):
    write_text_durably(tmp_path / "config.json", "{}")
    write_bytes_durably(tmp_path / "DONE", b"")
    with replace_durably(tmp_path / "table.csv") as tmp:
        with open(tmp, "w") as f:
            f.write("a\n1\n")
    append_durably(tmp_path / "metrics.csv", "a\n")
    for name in ("config.json", "DONE", "table.csv", "metrics.csv"):
        assert mode(tmp_path / name) == expected_mode, name


def test_result_tables_honour_the_umask(tmp_path, expected_mode):
    write_atomic(pd.DataFrame({"a": [1, 2]}), str(tmp_path / "seats"))
    for name in ("seats.parquet", "seats.csv"):
        assert mode(tmp_path / name) == expected_mode, name


def test_saved_replays_honour_the_umask(tmp_path, expected_mode):
    rules = load_rules("official")
    lineup = ["rule", "rule"]
    recorder = GameRecorder(rules, 1, lineup, preset="official")
    seats = [AgentSeat(make_agent(s, rules), np.random.default_rng(1)) for s in lineup]
    state = play_game(rules, seats, 1, recorder)
    path = save(recorder.replay(state), tmp_path / "replays" / "game.json")
    assert mode(path) == expected_mode

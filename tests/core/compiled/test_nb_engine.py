"""The compiled engine against the NumPy engine, step for step (states, masks, results)."""

from __future__ import annotations

import pytest
from compiled_lockstep import play_lockstep

from uno_rl.core.rules import load_rules

CASES = [
    ("official", {}),
    ("official", {"players": 4}),
    ("party", {"players": 6}),
    ("house", {"players": 3}),
    ("seven-zero", {"players": 4}),
    ("kids", {"players": 5}),
    ("rlcard", {"players": 2}),
    ("official", {"deck": "extension", "players": 4}),
    ("official", {"deck": "extreme", "players": 3}),
    ("official", {"deck": "swap-112", "players": 4}),
    ("official", {"deck": "modern-112", "players": 2, "match": True}),
    ("official", {"caught_bluffer": "loses-turn", "players": 3}),
    ("official", {"multi_play": True, "multi_play_actions": True, "jump_in": True}),
]


@pytest.mark.parametrize("preset,overrides", CASES)
def test_compiled_engine_plays_as_the_numpy_engine(preset, overrides):
    rules = load_rules(preset, **overrides)
    played = play_lockstep(rules, num_games=64, decisions=6400, seed=len(str(overrides)))
    assert played.decisions >= 6400 and played.rounds > 0

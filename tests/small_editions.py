"""A small version of the shipped ``editions`` experiment, for tests that need its tables fast."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_small_editions_config(path: Path) -> Path:
    """Write at ``path`` the shipped ``editions`` grid (every deck, 2 and 4 players, rounds and
    matches) with two of its heuristics and its shipped-bot part, in few rounds; returns it."""
    shipped = tomllib.loads((ROOT / "experiments" / "editions.toml").read_text())
    grid, bot = shipped["grid"], shipped["part"][1]["agents"]
    lines = [
        "seed = 0", "rounds = 60", "matches = 2", "rating_rounds = 0",
        "[grid]",
        f"presets = {json.dumps(grid['presets'])}",
        f"players = {json.dumps(grid['players'])}",
        "[grid.switches]",
        f"deck = {json.dumps(grid['switches']['deck'])}",
        "[[part]]",
        'agents = { specs = ["rule", "aggressive"], mode = "round-robin" }',
        "[[part]]",
        'grid = { players = [2], switches = { deck = ["classic"] } }',
        f'agents = {{ focal = {json.dumps(bot["focal"])}, opponents = ["rule"] }}',
    ]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    return path

"""Every shipped experiment has a ``[quick]`` table: the same study in miniature, over every
rule variant, player count and kind of play (rounds, matches) of the full run."""

from pathlib import Path

import pytest

from uno_rl.experiments.config import load_config
from uno_rl.programs import experiment

EXPERIMENTS = Path(experiment.__file__).resolve().parents[2] / "experiments"
#: The experiment configs (``uno_rl experiment NAME``); ``train-*.toml`` are training configs.
SHIPPED = sorted(p for p in EXPERIMENTS.glob("*.toml") if not p.name.startswith("train-"))


def test_the_shipped_experiments_are_found():
    assert {p.stem for p in SHIPPED} >= {"variants", "bluff", "bluff-ppo", "strength"}


def work(config) -> int:
    """Games a config plays: rounds (or matches) per match-up, over every cell's match-ups."""
    return sum(c.rounds * len(c.matchups) for c in config.cells)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_quick_table_spans_the_full_grid_in_miniature(path):
    assert "\n[quick]" in path.read_text(), f"{path.name} has no [quick] table"
    full, quick = load_config(path), load_config(path, quick=True)
    assert quick.name == f"{path.stem}-quick"

    def span(config):
        """Every (variant, player count, unit) the config plays."""
        return {(c.variant, c.players, c.unit) for c in config.cells}

    assert span(quick) == span(full)
    assert set(quick.agents) <= set(full.agents)
    assert work(quick) * 20 <= work(full)
    assert (quick.seed, quick.confidence, quick.analysis) == (
        full.seed,
        full.confidence,
        full.analysis,
    )

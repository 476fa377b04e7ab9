"""Requests larger than the computer can hold: experiment grids of too many cells or
match-ups, evaluations of too many agents, too many rounds in all, results that do not fit in
memory. Each is refused with one line naming its size, at once: counted by arithmetic, before
a single cell, agent or match-up is built."""

from __future__ import annotations

import time

import pytest

from bad_input.harness import assert_clean_error
from uno_rl.eval import limits, run
from uno_rl.experiments import config as config_module
from uno_rl.experiments import config_limits
from uno_rl.experiments.config_checks import ConfigError
from uno_rl.programs import evaluate, experiment


def _values(count: int, first: int = 10) -> str:
    return ", ".join(str(first + i) for i in range(count))


def _config(grid: str, agents: str = 'specs = ["rule", "color-first"]', rounds: int = 100) -> str:
    return f"rounds = {rounds}\n[grid]\n{grid}\n[agents]\n{agents}\n"


BOOLEANS = ["voluntary_draw", "draw_until_playable", "wild_cancels_draw", "multi_play",
            "seven_zero", "jump_in", "first_card_effects", "first_draw_two_skips",
            "two_player_reverse_skips", "discard_all_may_go_out", "swap_excludes_uno",
            "downpour_includes_self"]  # fmt: skip
SPECS_3000 = ", ".join(f'"color-first:bluff=0.{i:04d}"' for i in range(3000))

# (name, config text, expected part of the message)
GRIDS = [
    (
        "250,000 cells",
        _config(
            'presets = ["official"]\nplayers = [2]\n[grid.switches]\n'
            f"max_turns = [{_values(500)}]\nmatch_target = [{_values(500, 1000)}]"
        ),
        "grid: the grid has 250,000 cells (1 preset x 250,000 switch combinations x 1 player "
        "count); at most 10,000 are allowed: split the experiment",
    ),
    (
        "10,240,000 variants",
        _config(
            'presets = ["official"]\nplayers = [2]\n[grid.switches]\n'
            + "\n".join(f"{name} = [true, false]" for name in BOOLEANS)
            + f"\nmax_turns = [{_values(2500)}]"
        ),
        "the grid has 10,240,000 cells (1 preset x 10,240,000 switch combinations",
    ),
    (
        "rounds and matches double the cells",
        _config(
            f'presets = ["official"]\nplayers = [2, 3]\n[grid.switches]\n'
            f"max_turns = [{_values(2501)}]"
        ).replace("rounds = 100", "rounds = 100\nmatches = 5"),
        "the grid has 10,004 cells (1 preset x 2,501 switch combinations x 2 player counts, in "
        "rounds and in matches)",
    ),  # fmt: skip
    (
        "4,498,500 agent pairs",
        _config('presets = ["official"]\nplayers = [2]', f"specs = [{SPECS_3000}]"),
        "agents.specs: in every cell, a round-robin of 3,000 agents at 2 players makes "
        "4,498,500 match-ups; at most 1,000 are allowed: compare at most 45 agents in a "
        "round-robin at 2 players",
    ),
    (
        "a round-robin at 4 players",
        _config(
            'presets = ["official"]\nplayers = [2, 4]',
            "specs = [" + ", ".join(f'"rule:bluff=0.{i:02d}"' for i in range(40)) + "]",
        ),
        "a round-robin of 40 agents at 4 players makes 1,560 match-ups; at most 1,000 are "
        "allowed: compare at most 32 agents",
    ),
    (
        "focal x opponents",
        _config(
            'presets = ["official"]\nplayers = [2]',
            "focal = [" + ", ".join(f'"rule:bluff=0.{i:02d}"' for i in range(40)) + "]\n"
            "opponents = [" + ", ".join(f'"color-first:bluff=0.{i:02d}"' for i in range(30)) + "]",
        ),
        "agents.focal: in every cell, 40 focal agents x 30 opponents makes 1,200 match-ups",
    ),
    (
        "match-ups over all cells",
        _config(
            f'presets = ["official"]\nplayers = [2]\n[grid.switches]\nmax_turns = [{_values(200)}]',
            "specs = [" + ", ".join(f'"rule:bluff=0.{i:02d}"' for i in range(45)) + "]",
        ),
        "agents: the experiment has 198,000 match-ups over its cells (this grid: 200 cells, 990 "
        "match-ups a cell); at most 100,000 are allowed",
    ),
    (
        "2,016 cells of 100,000,000 rounds",
        _config(
            f'presets = ["official"]\nplayers = [2, 3, 4, 5, 6, 7, 8, 9, 10]\n'
            f"[grid.switches]\nmax_turns = [{_values(224, 1000)}]",
            rounds=100_000_000,
        ),
        "rounds: the experiment (2,016 match-ups over 2,016 cells) asks at least "
        "201,600,000,000 rounds in all; at most 10,000,000,000 are allowed in one run",
    ),
    (
        "cells over the parts",
        _config(
            f'presets = ["official"]\nplayers = [2]\n[grid.switches]\nmax_turns = [{_values(6000)}]'
        )
        + "[[part]]\nrounds = 10\n[[part]]\nrounds = 20\n",
        "part[1].grid: the grid has 6,000 cells (1 preset x 6,000 switch combinations x 1 player "
        "count); 12,000 with the parts before; at most 10,000 are allowed",
    ),  # fmt: skip
]


@pytest.mark.parametrize("name,text,expected", GRIDS, ids=[g[0] for g in GRIDS])
def test_an_oversized_experiment_is_refused_before_anything_is_built(
    name, text, expected, tmp_path, capsys, monkeypatch
):
    def built(*args, **kwargs):
        raise AssertionError("a cell or an agent was built for a refused config")

    monkeypatch.setattr(config_module, "load_rules", built)
    monkeypatch.setattr(config_module, "make_agent", built)
    path = tmp_path / "big.toml"
    path.write_text(text)
    runs = tmp_path / "runs"
    start = time.perf_counter()
    line = assert_clean_error(
        experiment.main, [str(path), "--runs-dir", str(runs), "--no-progress"], expected, capsys
    )
    assert time.perf_counter() - start < 1.0, "a refused config must be refused at once"
    assert "big.toml" in line
    assert not runs.exists()


def _sections(text: str) -> list[tuple[str, dict]]:
    import tomllib

    return [("", tomllib.loads(text))]


def test_the_cell_limit_is_inclusive():
    grid = 'presets = ["official"]\nplayers = [2, 3]\n[grid.switches]\nmax_turns = [{}]'
    config_limits.check_grid_sizes("x.toml", _sections(_config(grid.format(_values(5000)))))
    with pytest.raises(ConfigError, match="10,002 cells"):
        config_limits.check_grid_sizes("x.toml", _sections(_config(grid.format(_values(5001)))))


def test_a_preset_that_plays_matches_makes_one_cell_a_point():
    # kids plays matches: one cell per point, official a rounds and a matches cell
    text = _config(
        f'presets = ["official", "kids"]\nplayers = [2]\n[grid.switches]\n'
        f"max_turns = [{_values(3334)}]"
    ).replace("rounds = 100", "rounds = 100\nmatches = 5")
    with pytest.raises(ConfigError, match="the grid has 10,002 cells"):
        config_limits.check_grid_sizes("x.toml", _sections(text))
    fewer = text.replace(f"[{_values(3334)}]", f"[{_values(3333)}]")
    config_limits.check_grid_sizes("x.toml", _sections(fewer))  # 9,999 cells


def test_the_match_switch_splits_the_cells():
    text = _config(
        f'presets = ["official"]\nplayers = [2]\n[grid.switches]\nmatch = [true, false]\n'
        f"max_turns = [{_values(3334)}]"
    ).replace("rounds = 100", "rounds = 100\nmatches = 5")
    with pytest.raises(ConfigError, match="the grid has 10,002 cells"):  # 3,334 x (1 + 2)
        config_limits.check_grid_sizes("x.toml", _sections(text))


def test_a_cell_whose_results_would_not_fit_in_memory_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(limits, "memory_bytes", lambda: 1_000_000_000)
    path = tmp_path / "deep.toml"
    path.write_text(_config('presets = ["official"]\nplayers = [2]', rounds=10_000_000))
    argv = [str(path), "--runs-dir", str(tmp_path / "runs"), "--no-progress"]
    line = assert_clean_error(
        experiment.main,
        argv,
        "rounds: cell 0 (official, 2 players: 1 match-up x 10,000,000 rounds) would need about "
        "2.4 GB of memory for its results (96 bytes a round at 2 players",
        capsys,
    )
    assert "at most 800 MB (80% of 1.0 GB) is allowed: ask fewer rounds a cell" in line
    assert not (tmp_path / "runs").exists()


def test_memory_counts_every_kept_array():
    assert limits.bytes_per_game(2) == 96 and limits.bytes_per_game(10) == 424


def test_the_computer_s_memory_is_read():
    memory = limits.memory_bytes()
    assert memory is None or memory > 100_000_000


# ---------------------------------------------------------------- uno_rl evaluate


@pytest.fixture
def no_agents_built(monkeypatch):
    def built(*args, **kwargs):
        raise AssertionError("an agent was built for a refused evaluation")

    monkeypatch.setattr(run, "make_agent", built)


EVALUATIONS = [
    (
        "3,000 agents",
        [f"color-first:bluff=0.{i:04d}" for i in range(3000)],
        "error: a round-robin of 3,000 agents at 2 players makes 4,498,500 match-ups; at most "
        "1,000 are allowed: compare at most 45 agents in a round-robin at 2 players",
    ),
    (
        "33 agents at 3 players",
        [f"rule:bluff=0.{i:02d}" for i in range(33)] + ["--players", "3"],
        "a round-robin of 33 agents at 3 players makes 1,056 match-ups; at most 1,000 are "
        "allowed: compare at most 32 agents in a round-robin at 3 players",
    ),
]


@pytest.mark.parametrize("name,argv,expected", EVALUATIONS, ids=[e[0] for e in EVALUATIONS])
def test_an_evaluation_of_too_many_agents_is_refused_before_any_is_built(
    name, argv, expected, no_agents_built, tmp_path, capsys
):
    start = time.perf_counter()
    assert_clean_error(evaluate.main, [*argv, "--out", str(tmp_path / "out")], expected, capsys)
    assert time.perf_counter() - start < 1.0
    assert not (tmp_path / "out").exists()


def test_an_evaluation_of_too_many_rounds_in_all_is_refused(tmp_path, capsys):
    agents = [f"rule:bluff=0.{i:02d}" for i in range(45)]  # 990 match-ups
    argv = [*agents, "--rounds", "100000000", "--out", str(tmp_path / "out")]
    assert_clean_error(
        evaluate.main,
        argv,
        "error: the evaluation (990 match-ups x 100,000,000 rounds) asks 99,000,000,000 rounds "
        "in all; at most 10,000,000,000 are allowed in one run",
        capsys,
    )
    assert not (tmp_path / "out").exists()


def test_an_evaluation_whose_results_would_not_fit_in_memory_is_refused(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(limits, "memory_bytes", lambda: 1_000_000_000)
    argv = ["rule", "color-first", "--matches", "10000000", "--out", str(tmp_path / "out")]
    assert_clean_error(
        evaluate.main,
        argv,
        "error: 1 match-up x 10,000,000 matches at 2 players would need about 2.4 GB of memory "
        "for its results (96 bytes a match at 2 players",
        capsys,
    )
    assert not (tmp_path / "out").exists()


def test_a_behaviour_entry_of_too_many_rounds_is_refused(tmp_path, capsys):
    path = tmp_path / "watch.toml"
    path.write_text(
        _config('presets = ["official"]\nplayers = [2]')
        + '[[behaviour]]\nplayers = 2\nagents = ["rule"]\nopponent = "rule"\n'
        + "rounds = 1000000000000\n"
    )
    argv = [str(path), "--runs-dir", str(tmp_path / "runs"), "--no-progress"]
    assert_clean_error(
        experiment.main, argv, "behaviour[0].rounds: must be an integer [1, 100000000]", capsys
    )

"""A deck that leaves no card to turn first, through every program: one ``error:`` line naming
what the deck lacks at the asked player count, exit status 2, and nothing played.

The deck reaches the programs every way a user can hand it over: ``--set deck=PATH``, a deck
``--decks`` of the benchmark, an experiment grid, a preset of ``UNO_RL_PRESETS`` naming it and a
replay file recorded with it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from bad_input.harness import assert_clean_error, exit_status
from uno_rl.agents import make_agent
from uno_rl.core import load_rules
from uno_rl.programs import evaluate, experiment, replay, simulate, train
from uno_rl.programs.bench import command as bench
from uno_rl.replays import AgentSeat, GameRecorder, play_game, to_dict

EXPECTED = "may be turned as the first card"


@pytest.fixture
def deck(tmp_path):
    path = tmp_path / "only-plus4.toml"
    path.write_text('description = "only +4s"\n\n[cards]\n"+4" = 40\n')
    return path


@pytest.fixture
def late_deck(tmp_path):
    """20 cards that may be turned first: enough for 2 players (14 dealt), too few for 4 (28)."""
    path = tmp_path / "few-numbers.toml"
    path.write_text('description = "mostly +4s"\n\n[cards]\n"+4" = 40\n"1-5" = 1\n')
    return path


def test_evaluate(deck, capsys):
    argv = ["rule", "random", "--set", f"deck={deck}", "--rounds", "10"]
    assert_clean_error(evaluate.main, argv, EXPECTED, capsys)


def test_simulate_names_the_player_count(late_deck, capsys):
    argv = ["--set", f"deck={late_deck}", "--rounds", "20", "--games", "8", "--no-progress"]
    assert exit_status(simulate.main, argv) == 0
    argv = ["--set", f"deck={late_deck}", "--players", "4", "--rounds", "20", "--no-progress"]
    line = assert_clean_error(simulate.main, argv, EXPECTED, capsys)
    assert "players=4" in line and "20 cards" in line


def test_train(deck, tmp_path, capsys):
    argv = ["--set", f"deck={deck}", "--runs-dir", str(tmp_path / "runs")]
    assert_clean_error(train.main, argv, EXPECTED, capsys)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_bench_decks(deck, capsys):
    assert_clean_error(bench.main, ["--decks", str(deck), "--rows", "core"], EXPECTED, capsys)


def test_experiment_grid(deck, tmp_path, capsys):
    config = tmp_path / "grid.toml"
    config.write_text(
        'description = "a grid with a deck that cannot deal"\nseed = 0\nrounds = 10\n\n'
        f'[grid]\npresets = ["official"]\nplayers = [2]\n\n[grid.switches]\ndeck = ["{deck}"]\n\n'
        '[[part]]\nagents = { specs = ["rule", "random"], mode = "round-robin" }\n'
    )
    argv = [str(config), "--runs-dir", str(tmp_path / "runs"), "--no-progress"]
    assert_clean_error(experiment.main, argv, EXPECTED, capsys)


def test_a_user_preset_naming_the_deck(deck, tmp_path, monkeypatch, capsys):
    presets = tmp_path / "presets"
    presets.mkdir()
    (presets / "plus4s.toml").write_text(
        f'description = "official rules, only +4s"\n\n[rules]\ndeck = "{deck}"\n'
    )
    monkeypatch.setenv("UNO_RL_PRESETS", str(presets))
    argv = ["--preset", "plus4s", "--rounds", "10", "--no-progress"]
    assert_clean_error(simulate.main, argv, EXPECTED, capsys)


def test_a_replay_recorded_with_the_deck(late_deck, tmp_path, capsys):
    # Recorded at 2 players, where the deck deals; the file then claims 4 players.
    rules = load_rules("official", deck=str(late_deck))
    lineup = ["random-playable", "rule"]
    players = [AgentSeat(make_agent(spec, rules), np.random.default_rng(1)) for spec in lineup]
    recorder = GameRecorder(rules, 5, lineup, preset="official", source={"program": "test"})
    data = to_dict(recorder.replay(play_game(rules, players, 5, recorder)))
    data["rules"]["players"] = 4
    data["seats"] = data["seats"] * 2
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert_clean_error(replay.main, [str(path), "--no-color"], EXPECTED, capsys)

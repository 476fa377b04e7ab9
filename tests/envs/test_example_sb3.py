"""``examples/maskable_ppo.py``: sb3-contrib's MaskablePPO trains over the SB3 VecEnv adapter
(or one env with ``--single``), the trained policy, run with the env's masks, only ever chooses
legal actions, the command line documents every option and refuses bad values with one error
line; a model it saves is named ``sb3:PATH`` by uno_rl's programs (evaluated and scorecarded
from the command line). Skipped unless the ``sb3`` extra is installed."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import pandas as pd  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor  # noqa: E402

from uno_rl.__main__ import main as uno_rl  # noqa: E402
from uno_rl.envs.sb3 import UnoSB3VecEnv  # noqa: E402
from uno_rl.eval import scorecard_protocol  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "maskable_ppo.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("maskable_ppo_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


@pytest.fixture(scope="module")
def trained(example):
    args = example.Args(
        steps=2048, envs=16, rollout=512, batch_size=128, n_epochs=2, seed=0, progress=False
    )
    return args, example.train(args)


def test_it_trains_over_the_adapter(example, trained):
    args, model = trained
    assert model.num_timesteps >= 2048 and model.n_steps == 512 // 16
    env = model.get_env()
    assert isinstance(env, VecMonitor) and isinstance(env.venv, UnoSB3VecEnv)
    assert env.num_envs == 16
    assert len(model.ep_info_buffer) > 0  # episodes ended and were logged


def test_trained_policy_only_chooses_legal_actions(example, trained):
    args, model = trained
    for deterministic in (False, True):
        report = example.evaluate(
            model, args, episodes=48, max_steps=150, deterministic=deterministic
        )
        assert report["decisions"] > 48 * 10
        assert report["illegal_actions"] == 0
        assert 0 <= report["episodes"] <= 48


def test_evaluation_counts_each_game_once(example, trained):
    args, model = trained
    report = example.evaluate(model, args, episodes=12)
    assert report["episodes"] == 12 and report["illegal_actions"] == 0
    assert 0.0 <= report["win_rate"] <= 1.0 and report["random_win_rate"] == 0.5


def test_masks_are_what_keeps_it_legal(example, trained):
    """Without masks the young policy would often pick illegal actions: the masks matter."""
    args, model = trained
    env = example.make_vec_env(args, 200, seed=5)
    observations = env.reset()
    actions, _ = model.predict(observations, deterministic=False)
    assert (~env.action_masks()[np.arange(200), actions]).mean() > 0.5


def test_single_trains_over_one_env(example):
    args = example.Args(
        steps=256, single=True, rollout=128, batch_size=64, n_epochs=1, progress=False
    )
    model = example.train(args)
    env = model.get_env()
    assert isinstance(env, DummyVecEnv) and env.num_envs == 1
    assert model.n_steps == 128 and model.num_timesteps == 256


def test_main_runs_from_the_command_line(example, capsys):
    argv = "--steps 256 --envs 8 --rollout 128 --batch-size 64 --eval-episodes 4 --players 3"
    report = example.main(argv.split())
    captured = capsys.readouterr()
    assert report["illegal_actions"] == 0 and report["episodes"] == 4
    assert report["env"] == "adapter" and report["games"] == 8 and report["steps"] == 256
    assert json.loads(captured.out) == report
    assert "256/256" in captured.err  # the progress bar


def test_no_progress_and_no_evaluation(example, capsys):
    argv = "--single --steps 64 --rollout 64 --batch-size 32 --eval-episodes 0 --no-progress"
    report = example.main(argv.split())
    assert report["env"] == "single" and report["games"] == 1 and "win_rate" not in report
    assert capsys.readouterr().err == ""


def test_a_saved_model_is_evaluated_and_scorecarded_by_name(example, tmp_path, capsys, monkeypatch):
    model = tmp_path / "uno.zip"
    argv = f"--steps 64 --envs 8 --rollout 64 --batch-size 32 --eval-episodes 0 --save {model}"
    report = example.main([*argv.split(), "--no-progress"])
    assert report["saved"] == str(model) and model.is_file()
    capsys.readouterr()
    spec = f"sb3:{model}"
    out = tmp_path / "evaluation"
    args = ["--rounds", "8", "--rating-rounds", "0", "--no-progress", "--workers", "1"]
    assert uno_rl(["evaluate", spec, "random-playable", *args, "--out", str(out)]) == 0
    agents = pd.read_csv(out / "agents.csv")
    assert agents["rounds"].sum() == 16  # 8 rounds, each seen by both agents
    # the scorecard protocol in miniature (one heuristic, a few rounds and a match)
    monkeypatch.setattr(scorecard_protocol, "HEURISTICS", ("random-playable",))
    monkeypatch.setattr(scorecard_protocol, "BOTS", {2: (), 4: ()})
    monkeypatch.setattr(scorecard_protocol, "QUICK", scorecard_protocol.Sizes(4, 1))
    card = tmp_path / "card"
    argv = [spec, "--players", "2", "--quick", "--out", str(card), "--no-progress"]
    assert uno_rl(["scorecard", *argv, "--workers", "1"]) == 0
    rows = pd.read_csv(card / "rows.csv")
    assert set(rows["opponent"]) == {"random-playable"} and set(rows["players"]) == {2}
    assert f"# Scorecard: `{spec}`" in (card / "scorecard.md").read_text()


def test_help_describes_every_option(example, capsys):
    with pytest.raises(SystemExit) as exit_info:
        example.main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    parser = example.build_parser()
    for action in parser._actions:
        assert action.help, action.option_strings
        assert all(flag in out for flag in action.option_strings)
    fields = {f.name for f in example.dataclasses.fields(example.Args)}
    assert {a.dest for a in parser._actions} - {"help"} == fields


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--steps", "0"], "--steps"),
        (["--envs", "many"], "--envs"),
        (["--gamma", "nan"], "--gamma"),
        (["--learning-rate", "0"], "--learning-rate"),
        (["--players", "11"], "--players"),
        (["--opponents", "nobody"], "nobody"),
        (["--preset", "no-such-preset"], "no-such-preset"),
        (["--set", "foo=1"], "foo"),
        (["--set", "stacking"], "KEY=VALUE"),
        (["--learner-seat", "left"], "--learner-seat"),
        (["--learner-seat", "7"], "learner_seat"),
        (["--no-such-option"], "--no-such-option"),
    ],
)
def test_bad_values_get_one_error_line(example, capsys, argv, words):
    with pytest.raises(SystemExit) as exit_info:
        example.main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and words in err

"""``examples/maskable_ppo.py``: sb3-contrib's MaskablePPO trains on ``uno_rl/Uno-v1`` against
random opponents, and the trained policy, run with the env's masks, only ever chooses legal
actions. Skipped unless the ``sb3`` extra is installed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

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
    args = example.Args(steps=2048, n_steps=512, batch_size=64, n_epochs=2, seed=0)
    return args, example.train(args)


def test_trained_policy_only_chooses_legal_actions(example, trained):
    args, model = trained
    assert model.num_timesteps >= 2048
    for deterministic in (False, True):
        report = example.evaluate(
            model, args, episodes=10**6, max_decisions=2500, deterministic=deterministic
        )
        assert report["decisions"] == 2500
        assert report["illegal_actions"] == 0


def test_masks_are_what_keeps_it_legal(example, trained):
    """Without masks the young policy would often pick illegal actions: the masks matter."""
    args, model = trained
    env = example.make_env(args)
    observation, info = env.reset(seed=5)
    actions, _ = model.predict(np.repeat(observation[None], 200, axis=0), deterministic=False)
    assert (~info["action_mask"][actions]).mean() > 0.5


def test_main_runs_from_the_command_line(example, capsys):
    argv = "--steps 256 --n-steps 128 --batch-size 64 --eval-episodes 1 --players 3".split()
    report = example.main(argv)
    assert report["illegal_actions"] == 0 and report["episodes"] == 1
    assert '"win_rate"' in capsys.readouterr().out

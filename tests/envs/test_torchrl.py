"""TorchRL over the PettingZoo env: TorchRL's own ``PettingZooWrapper`` exposes each seat's mask,
``uno_rl.envs.torchrl_env.UnoTorchRLEnv`` is a well-formed single-learner TorchRL env (its
specs pass TorchRL's ``check_env_specs``, the mask follows the game, an illegal action raises,
one seed replays the same games), and ``examples/torchrl_ppo.py`` trains PPO with a masked
policy (finite losses, parameters moved, never an illegal action) and refuses bad options
with one error line. Kept short: one tiny training run shared by the module. Skipped unless
the ``torchrl`` extra is installed."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torchrl")

import torch  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

from uno_rl.core import engine  # noqa: E402
from uno_rl.envs.torchrl_env import UnoTorchRLEnv, wrap_pettingzoo  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "torchrl_ppo.py"
SHORT = {"hand_size": 1}  # short rounds: several episodes in few steps


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("torchrl_ppo_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


@pytest.fixture(scope="module")
def trained(example):
    args = example.Args(
        steps=128, rollout=64, batch_size=32, n_epochs=2, hidden=32, seed=0,
        switches=SHORT, progress=False,
    )  # fmt: skip
    return args, example.train(args)


# ------------------------------------------------------------------ the wrapper
def test_pettingzoo_wrapper_exposes_each_seats_mask():
    env = wrap_pettingzoo(players=3, seed=0)
    assert env.group_map == {f"player_{k}": [f"player_{k}"] for k in range(3)}
    spec = env.observation_spec
    assert spec["player_0", "action_mask"].shape == (1, 77)
    assert spec["player_0", "action_mask"].dtype == torch.bool
    assert spec["player_0", "observation", "observation"].shape == (1, 583)
    td = env.reset()
    aec = env._env
    for k in range(3):
        agent = f"player_{k}"
        acting = agent == aec.agent_selection
        assert bool(td[agent, "mask"][0]) == acting
        if acting:
            expected = torch.as_tensor(aec.observe(agent)["action_mask"]).bool()
            assert torch.equal(td[agent, "action_mask"][0], expected)
            assert expected.any() and not expected.all()


# --------------------------------------------------------------- the learner env
def test_learner_env_specs_mask_and_rewards():
    env = UnoTorchRLEnv(players=2, seed=1, hand_size=1)  # rounds of a few decisions
    check_env_specs(env, seed=1)
    assert env.observation_spec["observation"].shape == (583,)
    assert env.observation_spec["action_mask"].shape == (77,) and env.num_actions == 77
    td = env.reset()
    game = env.pettingzoo._env.unwrapped.privileged_game
    assert torch.equal(td["action_mask"], torch.from_numpy(np.array(game.legal_mask(), bool)))
    assert game.game.actor == env.learner_seat
    rollout = env.rollout(40, break_when_any_done=False)  # random legal actions (the spec's mask)
    assert rollout["action_mask"].gather(-1, rollout["action"][:, None]).all()
    done = rollout["next", "done"].squeeze(-1)
    reward = rollout["next", "reward"].squeeze(-1)
    assert done.sum() >= 2 and (reward[~done] == 0).all()
    assert env.skipped_deals > 0  # deals the opponent won before the learner's first decision
    assert set(reward[done].tolist()) <= {-1.0, 0.0, 1.0}  # win-loss, 2 players
    assert not rollout["next", "action_mask"][done].any()  # no legal action once it is over
    td = env.reset()
    legal = engine.legal_mask(game.state)[0]
    assert torch.equal(td["action_mask"], torch.from_numpy(legal))
    illegal = int(np.flatnonzero(~legal)[0])
    before = game.state.hands.copy()
    with pytest.raises(ValueError, match=f"illegal action {illegal}"):
        env.step(td.set("action", torch.tensor(illegal)))
    assert np.array_equal(game.state.hands, before)  # nothing changed


def test_same_seed_same_games():
    def play(seed: int):
        env = UnoTorchRLEnv(players=3, opponents="color-first", seed=seed, **SHORT)
        torch.manual_seed(0)
        return env.rollout(20, break_when_any_done=False)

    a, b, c = play(5), play(5), play(6)
    for key in ("action", "observation", ("next", "reward"), ("next", "done")):
        assert torch.equal(a[key], b[key])
    assert not torch.equal(a["observation"], c["observation"])


def test_bad_seat_and_opponents():
    with pytest.raises(ValueError, match="learner_seat"):
        UnoTorchRLEnv(players=2, learner_seat=2)
    with pytest.raises(ValueError, match="nobody"):
        UnoTorchRLEnv(players=2, opponents="nobody")


# ----------------------------------------------------------------- the example
def test_it_trains_with_legal_actions_only(example, trained):
    args, result = trained
    assert result.steps == 128 and len(result.losses) == 2 and result.episodes >= 2
    assert result.illegal_actions == 0
    assert all(math.isfinite(v) for losses in result.losses for v in losses.values())
    torch.manual_seed(args.seed)  # the modules train() started from
    initial, _ = example.make_modules(example.make_env(args, args.seed), args)
    moved = [
        not torch.equal(p, q)
        for p, q in zip(initial.parameters(), result.policy.parameters(), strict=True)
    ]
    assert all(moved)


def test_the_mask_reaches_the_policy(example, trained):
    """The masked distribution gives illegal actions no mass; the same logits unmasked
    would often choose one, so the mask is what keeps the policy legal."""
    args, result = trained
    env = example.make_env(args, seed=7)
    with torch.no_grad():
        td = result.policy(env.reset())
        dist = result.policy.get_dist(td)
    mask = td["action_mask"]
    assert torch.equal(dist.probs > 0, mask)
    assert bool(mask[td["action"]])
    unmasked = torch.softmax(td["logits"], -1)
    assert unmasked[~mask].sum() > 0.5


def test_main_prints_the_report(example, capsys):
    argv = "--steps 64 --rollout 64 --batch-size 32 --hidden 16 --eval-episodes 1 --set hand_size=1"
    report = example.main(argv.split())
    captured = capsys.readouterr()
    assert json.loads(captured.out) == report
    assert report["illegal_actions"] == 0 and report["steps"] == 64 and report["updates"] == 1
    assert report["episodes"] == 1 and report["decisions"] >= 1
    assert 0 <= report["win_rate"] <= 1 and 0 <= report["random_learner_win_rate"] <= 1
    assert "100%" in captured.err and "won=" in captured.err  # the progress bar


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
        (["--gamma", "nan"], "--gamma"),
        (["--players", "11"], "--players"),
        (["--opponents", "nobody"], "nobody"),
        (["--set", "foo=1"], "foo"),
        (["--learner-seat", "2"], "learner_seat"),
    ],
)
def test_bad_values_get_one_error_line(example, capsys, argv, words):
    with pytest.raises(SystemExit) as exit_info:
        example.main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and words in err

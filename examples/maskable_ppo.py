"""Train sb3-contrib's MaskablePPO on ``uno_rl/Uno-v1`` against random opponents, then evaluate it.

Needs the ``sb3`` extra (torch installed first, pinned, as the Makefile does)::

    .venv/bin/pip install -e '.[sb3]'
    .venv/bin/python examples/maskable_ppo.py                          # 20,000 steps, 2 players
    .venv/bin/python examples/maskable_ppo.py --steps 200000 --players 3 --eval-episodes 200

The env (:class:`uno_rl.envs.gym_env.UnoEnv`) has an ``action_masks()`` method, which
MaskablePPO finds through Gymnasium's wrappers and calls on every step, so the policy only
ever samples legal actions; ``sb3_contrib.common.wrappers.ActionMasker`` is not needed.
The learner sits at seat 0 (``--learner-seat random`` varies it); the opponents play
uniformly random legal actions.

Evaluation plays ``--eval-episodes`` episodes with the trained policy in an env that raises
on an illegal action (``illegal_action="raise"``), counts the policy's choices that the mask
forbids (always 0 with masks) and reports the learner's win rate next to a random
learner's (about 1 / players). Rounds between random players are long (a few hundred
decisions), so a few thousand steps teach little; tens of thousands begin to beat random.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO

from uno_rl.envs.registration import ENV_ID


@dataclasses.dataclass
class Args:
    """Settings of one run (the command line sets them)."""

    steps: int = 20_000
    """learner decisions to train for"""
    players: int = 2
    """players at the table (2 to 10)"""
    preset: str = "official"
    """rule preset (envs/*.toml) or path of a preset file"""
    learner_seat: str = "0"
    """the learner's seat, or 'random' (per episode)"""
    seed: int = 0
    """seed of the model, the training env and the evaluation env"""
    n_steps: int = 1024
    """rollout length per update"""
    batch_size: int = 128
    """minibatch size"""
    n_epochs: int = 4
    """optimization epochs per update"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    gamma: float = 0.995
    """discount (rounds are long and the reward comes at the end)"""
    ent_coef: float = 0.01
    """entropy bonus"""
    eval_episodes: int = 50
    """episodes of the evaluation"""
    threads: int = 1
    """torch CPU threads"""


def make_env(args: Args, **kwargs: Any) -> gymnasium.Env:
    seat: int | str = args.learner_seat if args.learner_seat == "random" else int(args.learner_seat)
    return gymnasium.make(
        ENV_ID, preset=args.preset, players=args.players, learner_seat=seat,
        opponents="random", **kwargs,
    )  # fmt: skip


def train(args: Args) -> MaskablePPO:
    """MaskablePPO trained for ``args.steps`` learner decisions against random opponents."""
    torch.set_num_threads(args.threads)
    env = make_env(args)
    env.reset(seed=args.seed)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=args.learning_rate,
        gamma=args.gamma,
        ent_coef=args.ent_coef,
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    model.learn(total_timesteps=args.steps)
    return model


def evaluate(
    model: MaskablePPO,
    args: Args,
    episodes: int | None = None,
    max_decisions: int | None = None,
    deterministic: bool = False,
) -> dict[str, Any]:
    """Play the model with masks; counts wins and the actions it chose that were illegal.

    Stops after ``episodes`` episodes (default ``args.eval_episodes``) or ``max_decisions``
    learner decisions, whichever comes first. The env raises on an illegal action, so an
    illegal choice is counted and then stops the evaluation.
    """
    episodes = args.eval_episodes if episodes is None else episodes
    env = make_env(args, illegal_action="raise")
    masks_of = env.get_wrapper_attr("action_masks")
    observation, _ = env.reset(seed=args.seed + 1)
    decisions = illegal = wins = finished = 0
    returns: list[float] = []
    episode_return = 0.0
    while finished < episodes and (max_decisions is None or decisions < max_decisions):
        mask = masks_of()
        action, _ = model.predict(observation, action_masks=mask, deterministic=deterministic)
        a = int(action)
        decisions += 1
        if not mask[a]:
            illegal += 1
            break
        observation, reward, terminated, truncated, _ = env.step(a)
        episode_return += float(reward)
        if terminated or truncated:
            finished += 1
            wins += episode_return > 0
            returns.append(episode_return)
            episode_return = 0.0
            observation, _ = env.reset()
    return {
        "episodes": finished,
        "decisions": decisions,
        "illegal_actions": illegal,
        "win_rate": wins / finished if finished else float("nan"),
        "random_win_rate": 1.0 / args.players,
        "mean_return": float(np.mean(returns)) if returns else float("nan"),
    }


def parse_args(argv: list[str] | None = None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field in dataclasses.fields(Args):
        flag = "--" + field.name.replace("_", "-")
        parser.add_argument(flag, type=type(field.default), default=field.default)
    return Args(**vars(parser.parse_args(argv)))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    start = time.perf_counter()
    model = train(args)
    trained = time.perf_counter()
    report = evaluate(model, args)
    report.update(
        steps=args.steps,
        players=args.players,
        preset=args.preset,
        train_seconds=round(trained - start, 1),
        eval_seconds=round(time.perf_counter() - trained, 1),
    )
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()

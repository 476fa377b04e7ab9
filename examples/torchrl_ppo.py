"""Train PPO built from TorchRL's components on UNO's PettingZoo env, then evaluate it.

Needs the ``torchrl`` extra (torch installed first, pinned, as the Makefile does)::

    .venv/bin/pip install -e '.[torchrl]'
    .venv/bin/python examples/torchrl_ppo.py                      # 20,000 steps, 2 players
    .venv/bin/python examples/torchrl_ppo.py --steps 100000 --opponents color-first
    .venv/bin/python examples/torchrl_ppo.py --players 3 --set stacking=any
    .venv/bin/python examples/torchrl_ppo.py --help               # every option

The env is UNO's PettingZoo AEC env (:mod:`uno_rl.envs.uno_v1`) in TorchRL's own
``PettingZooWrapper`` (``use_mask=True``, one group per seat), seen from one learner seat by
:class:`uno_rl.envs.torchrl_env.UnoTorchRLEnv`: the learner sits at ``--learner-seat`` (0 by
default) and ``--opponents`` (an agent name or spec, ``random-playable`` by default) play
every other seat inside the env's step, so the collector only ever sees the learner's
decisions. The wrapper moves each observation's ``"action_mask"`` to its own entry; the
policy is a ``ProbabilisticActor`` whose ``MaskedCategorical`` reads the logits of an MLP and
that mask, so it only ever samples legal actions and its entropy is over the legal ones.

Training is TorchRL's PPO recipe: a ``Collector`` (the single-process collector, named
``SyncDataCollector`` before TorchRL 0.14) gathers ``--rollout`` learner steps (the env in a
``TransformedEnv`` with ``RewardSum`` for episode returns), ``GAE`` computes
the advantages (again before every epoch, with the current critic), a ``ReplayBuffer`` over a
``LazyTensorStorage`` with a ``SamplerWithoutReplacement`` deals the minibatches, and
``ClipPPOLoss`` gives the clipped objective, the critic's loss and the entropy bonus, summed
and stepped by Adam with the gradient norm clipped at 0.5. A progress bar shows the steps,
the mean return and win rate of the last 100 episodes (``--no-progress`` hides it).

Two choices keep the learner from getting stuck before its first wins: the policy head starts
with tiny weights (as in CleanRL), so the first policy is close to uniform over the legal
actions, and the discount is 1 (``--gamma``): with a discount below 1, while every round ends
in a loss, putting the loss off (drawing cards) is all that pays, and a learner can settle
there and never win a round.

Evaluation plays ``--eval-episodes`` episodes with the trained policy (sampling) and as many
with a random learner (the same masked distribution over all-zero logits: uniform over the
legal actions), each with the env and torch seeded with seed + 1, checks every chosen action
against the mask before the env sees it (``illegal_actions`` counts those of training and
evaluation: always 0 with masks; the env would raise on one) and reports the learner's win
rate next to the random learner's, with the learner's mean return and its episodes cut at
``max_turns`` (``truncated``). The report is one JSON object on stdout. Bad option values
print one ``error: ...`` line and exit with status 2.

Every random draw is seeded from ``--seed``: ``torch.manual_seed`` (the networks, the
sampled actions, the minibatches) and the env's seed (the deals, the opponents), so the same
seed on one thread gives the same result.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import sys
import time
from collections import deque
from typing import Any

import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.data import LazyTensorStorage, ReplayBuffer, SamplerWithoutReplacement
from torchrl.envs import ExplorationType, RewardSum, TransformedEnv, set_exploration_type
from torchrl.envs.utils import step_mdp
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE
from tqdm.auto import tqdm

from uno_rl.agents import AgentError
from uno_rl.core import RulesError
from uno_rl.envs.torchrl_env import UnoTorchRLEnv
from uno_rl.plumbing.cli import CliParser, count_type, fail, float_type, seed_type
from uno_rl.programs.rules_options import RulesOptions, add_rules_options, read_switches


@dataclasses.dataclass
class Args:
    """Settings of one run (the command line sets them; see ``--help``)."""

    steps: int = 20_000
    """learner decisions to train for (rounded up to whole rollouts)"""
    players: int = 2
    """players at the table (2 to 10)"""
    preset: str = "official"
    """rule preset (envs/*.toml) or path of a preset file"""
    switches: dict[str, Any] = dataclasses.field(default_factory=dict)
    """rule switches on top of the preset"""
    learner_seat: int = 0
    """the learner's seat"""
    opponents: str = "random-playable"
    """agent name or spec playing every other seat"""
    seed: int = 0
    """seed of torch and the training env (the evaluation uses seed + 1)"""
    rollout: int = 1024
    """learner steps collected per update"""
    batch_size: int = 128
    """minibatch size"""
    n_epochs: int = 4
    """optimization epochs per update"""
    hidden: int = 128
    """units of each of the two hidden layers of the actor and of the critic"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    gamma: float = 1.0
    """discount: 1, since a discount below 1 pays for putting a loss off (drawing cards), which
    can trap a learner that has not won yet; rounds end by ``max_turns`` at the latest"""
    lmbda: float = 0.95
    """GAE lambda"""
    clip_epsilon: float = 0.2
    """PPO clipping"""
    ent_coef: float = 0.01
    """entropy bonus"""
    eval_episodes: int = 100
    """episodes of the evaluation, for the learner and for a random learner (0: none)"""
    threads: int = 1
    """torch CPU threads"""
    progress: bool = True
    """show a progress bar on stderr"""

    @property
    def total_steps(self) -> int:
        """Learner steps collected: ``steps`` rounded up to whole rollouts."""
        return math.ceil(self.steps / self.rollout) * self.rollout


@dataclasses.dataclass
class Trained:
    """What :func:`train` returns: the modules, and what the run measured."""

    policy: ProbabilisticActor
    value: ValueOperator
    steps: int
    """learner steps collected"""
    episodes: int
    """episodes finished during training"""
    losses: list[dict[str, float]]
    """the last minibatch's losses of every update"""
    illegal_actions: int
    """collected actions outside their mask (always 0)"""
    skipped_deals: int
    """deals the opponents finished before the learner's first decision"""


#: The rule options (the shared ones of ``uno_rl simulate``, ``evaluate`` and ``play``).
RULES_OPTIONS = RulesOptions(
    players_default=Args.players,
    players_help=f"players at the table, 2 to 10 (default {Args.players})",
    preset_help=f"rule preset name (envs/*.toml) or path of a preset file (default {Args.preset})",
    players_switch_error="set the player count with --players N, not --set players=N",
)


#: The losses :func:`train` records (ClipPPOLoss's outputs).
LOSS_KEYS = ("loss_objective", "loss_critic", "loss_entropy", "entropy")


def make_env(args: Args, seed: int) -> UnoTorchRLEnv:
    """The learner's env: ``args.opponents`` in every other seat, seeded with ``seed``."""
    return UnoTorchRLEnv(
        preset=args.preset, players=args.players, learner_seat=args.learner_seat,
        opponents=args.opponents, seed=seed, **args.switches,
    )  # fmt: skip


def make_policy(env: UnoTorchRLEnv, logits: nn.Module) -> ProbabilisticActor:
    """A masked categorical policy: ``logits`` reads ``"observation"``, and the
    ``MaskedCategorical`` takes them with the env's ``"action_mask"``."""
    return ProbabilisticActor(
        TensorDictModule(logits, in_keys=["observation"], out_keys=["logits"]),
        in_keys={"logits": "logits", "mask": "action_mask"},
        distribution_class=MaskedCategorical,
        spec=env.action_spec,
        return_log_prob=True,
    )


def make_modules(env: UnoTorchRLEnv, args: Args) -> tuple[ProbabilisticActor, ValueOperator]:
    """The actor (:func:`make_policy` over an MLP) and the critic, both MLPs with two hidden
    layers of ``args.hidden`` tanh units."""
    size = env.observation_spec["observation"].shape[-1]
    layers = {"num_cells": [args.hidden, args.hidden], "activation_class": nn.Tanh}
    actor = MLP(in_features=size, out_features=env.num_actions, **layers)
    critic = MLP(in_features=size, out_features=1, **layers)
    # CleanRL's policy head: tiny weights, so the first policy is close to uniform over the
    # legal actions. A random head can start far from it, e.g. drawing at almost every turn,
    # and never win a round against random-playable, which leaves PPO no signal.
    head = actor[-1]
    nn.init.orthogonal_(head.weight, gain=0.01)
    nn.init.zeros_(head.bias)
    return make_policy(env, actor), ValueOperator(critic, in_keys=["observation"])


class ZeroLogits(nn.Module):
    """All-zero logits: under the mask, a uniformly random legal action."""

    def __init__(self, actions: int):
        super().__init__()
        self.actions = actions

    def forward(self, observation: torch.Tensor) -> torch.Tensor:
        return observation.new_zeros((*observation.shape[:-1], self.actions))


def illegal_count(data) -> int:
    """Actions of ``data`` (a batch of the env's entries) outside their ``"action_mask"``."""
    chosen = data.get("action_mask").gather(-1, data.get("action").unsqueeze(-1))
    return int((~chosen).sum())


def train(args: Args) -> Trained:
    """PPO from TorchRL's components (module docstring) for ``args.total_steps`` learner steps."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    base = make_env(args, args.seed)
    env = TransformedEnv(base, RewardSum())
    policy, value = make_modules(base, args)
    collector = Collector(
        env, policy, frames_per_batch=args.rollout, total_frames=args.total_steps, device="cpu",
        auto_register_policy_transforms=False,  # a feed-forward policy: no recurrent state
    )  # fmt: skip
    advantage = GAE(gamma=args.gamma, lmbda=args.lmbda, value_network=value, average_gae=True)
    loss_module = ClipPPOLoss(
        policy, value, clip_epsilon=args.clip_epsilon, entropy_coeff=args.ent_coef,
        critic_coeff=0.5, loss_critic_type="smooth_l1",
    )  # fmt: skip
    optimizer = torch.optim.Adam(loss_module.parameters(), lr=args.learning_rate)
    buffer = ReplayBuffer(
        storage=LazyTensorStorage(args.rollout),
        sampler=SamplerWithoutReplacement(),
        batch_size=min(args.batch_size, args.rollout),
    )
    returns: deque[float] = deque(maxlen=100)
    losses: list[dict[str, float]] = []
    steps = episodes = illegal = 0
    bar = tqdm(
        total=args.total_steps, unit="step", unit_scale=True, file=sys.stderr,
        disable=not args.progress,
    )  # fmt: skip
    for data in collector:
        steps += data.numel()
        illegal += illegal_count(data)
        done = data.get(("next", "done")).squeeze(-1)
        finished = data.get(("next", "episode_reward"))[done].flatten().tolist()
        episodes += len(finished)
        returns.extend(finished)
        for _ in range(args.n_epochs):
            with torch.no_grad():
                advantage(data)
            buffer.extend(data.reshape(-1))
            for _ in range(math.ceil(args.rollout / buffer.batch_size)):
                batch = buffer.sample()
                out = loss_module(batch)
                loss = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(loss_module.parameters(), 0.5)
                optimizer.step()
        losses.append({key: float(out[key].detach()) for key in LOSS_KEYS})
        collector.update_policy_weights_()
        bar.update(data.numel())
        if returns:
            mean, won = sum(returns) / len(returns), sum(r > 0 for r in returns) / len(returns)
            bar.set_postfix(episodes=episodes, ret=f"{mean:+.2f}", won=f"{won:.2f}")
    bar.close()
    collector.shutdown()
    return Trained(policy, value, steps, episodes, losses, illegal, base.skipped_deals)


def play(policy: ProbabilisticActor, args: Args, episodes: int) -> dict[str, Any]:
    """``episodes`` episodes of ``policy`` (sampling), the env and torch seeded with seed + 1;
    every action is checked against its mask before the env sees it (an illegal one stops the
    episode). Returns the decisions, the illegal actions, and the episodes won (return above
    0) and cut at ``max_turns`` (truncated), and their summed returns."""
    env = make_env(args, args.seed + 1)
    torch.manual_seed(args.seed + 1)  # the sampled actions: every policy plays the same stream
    decisions = illegal = wins = truncated = 0
    returns = 0.0
    with torch.no_grad(), set_exploration_type(ExplorationType.RANDOM):
        for _ in range(episodes):
            td, total = env.reset(), 0.0
            while True:
                td = policy(td)
                decisions += 1
                if not bool(td.get("action_mask")[td.get("action")]):
                    illegal += 1
                    break
                td = env.step(td)
                total += float(td.get(("next", "reward")))
                if bool(td.get(("next", "done"))):
                    truncated += bool(td.get(("next", "truncated")))
                    break
                td = step_mdp(td)
            wins += total > 0
            returns += total
    env.close()
    return {
        "decisions": decisions,
        "illegal_actions": illegal,
        "wins": wins,
        "truncated": truncated,
        "returns": returns,
    }


def evaluate(trained: Trained, args: Args, episodes: int | None = None) -> dict[str, Any]:
    """The trained policy's and a random learner's results over ``episodes`` episodes each
    (default ``args.eval_episodes``), both from seed + 1: win rates, the learner's mean return
    and its episodes cut at ``max_turns``."""
    episodes = args.eval_episodes if episodes is None else episodes
    learner = play(trained.policy, args, episodes)
    env = make_env(args, args.seed + 1)
    random_policy = make_policy(env, ZeroLogits(env.num_actions))
    env.close()
    baseline = play(random_policy, args, episodes)
    illegal = trained.illegal_actions + learner["illegal_actions"] + baseline["illegal_actions"]
    return {
        "episodes": episodes,
        "decisions": learner["decisions"],
        "illegal_actions": illegal,
        "win_rate": learner["wins"] / episodes,
        "random_learner_win_rate": baseline["wins"] / episodes,
        "mean_return": learner["returns"] / episodes,
        "truncated": learner["truncated"],
    }


def build_parser() -> CliParser:
    """The command line: every option's help says what it sets and its default."""
    d = Args()
    p = CliParser(
        prog="torchrl_ppo.py",
        description=__doc__.splitlines()[0],
        epilog="The module docstring (top of examples/torchrl_ppo.py) explains the run.",
    )
    p.add_argument(
        "--steps",
        type=count_type(1, 10**10),
        default=d.steps,
        help=f"learner decisions to train for, rounded up to whole rollouts (default {d.steps})",
    )
    add_rules_options(p, RULES_OPTIONS)
    p.add_argument(
        "--learner-seat",
        type=count_type(0, 9),
        default=d.learner_seat,
        help=f"the learner's seat, 0 to players - 1 (default {d.learner_seat})",
    )
    p.add_argument(
        "--opponents",
        default=d.opponents,
        help=f"agent name or spec for every other seat, e.g. random, color-first, "
        f"ppo-official-2p (default {d.opponents})",
    )
    p.add_argument(
        "--seed",
        type=seed_type,
        default=d.seed,
        help=f"seed of torch and the training env; the evaluation uses seed + 1 (default {d.seed})",
    )
    p.add_argument(
        "--rollout",
        type=count_type(2, 10**8),
        default=d.rollout,
        help=f"learner steps the collector gathers per update (default {d.rollout})",
    )
    p.add_argument(
        "--batch-size",
        type=count_type(2, 10**8),
        default=d.batch_size,
        help=f"minibatch size of the updates (default {d.batch_size})",
    )
    p.add_argument(
        "--n-epochs",
        type=count_type(1, 1000),
        default=d.n_epochs,
        help=f"optimization epochs per update (default {d.n_epochs})",
    )
    p.add_argument(
        "--hidden",
        type=count_type(1, 65_536),
        default=d.hidden,
        help=f"units of each hidden layer of the actor and the critic (default {d.hidden})",
    )
    p.add_argument(
        "--learning-rate",
        type=float_type(0, 1, low_open=True),
        default=d.learning_rate,
        help=f"Adam learning rate, in (0, 1] (default {d.learning_rate:g})",
    )
    p.add_argument(
        "--gamma",
        type=float_type(0, 1),
        default=d.gamma,
        help=f"discount, in [0, 1] (default {d.gamma:g})",
    )
    p.add_argument(
        "--lmbda",
        type=float_type(0, 1),
        default=d.lmbda,
        help=f"GAE lambda, in [0, 1] (default {d.lmbda:g})",
    )
    p.add_argument(
        "--clip-epsilon",
        type=float_type(0, 1, low_open=True),
        default=d.clip_epsilon,
        help=f"PPO clipping, in (0, 1] (default {d.clip_epsilon:g})",
    )
    p.add_argument(
        "--ent-coef",
        type=float_type(0, 10),
        default=d.ent_coef,
        help=f"entropy bonus, in [0, 10] (default {d.ent_coef:g})",
    )
    p.add_argument(
        "--eval-episodes",
        type=count_type(0, 10**6),
        default=d.eval_episodes,
        help=f"episodes of the evaluation, for the learner and for a random learner; 0 skips "
        f"it (default {d.eval_episodes})",
    )
    p.add_argument(
        "--threads",
        type=count_type(1, 256),
        default=d.threads,
        help=f"torch CPU threads (default {d.threads})",
    )
    p.add_argument(
        "--no-progress",
        dest="progress",
        action="store_false",
        help="no progress bar (default: a tqdm bar on stderr)",
    )
    return p


def parse_args(argv: list[str] | None = None) -> Args:
    """The :class:`Args` of a command line; bad values exit with one error line (status 2)."""
    parser = build_parser()
    values = vars(parser.parse_args(argv))
    try:
        values["switches"] = read_switches(values["switches"], RULES_OPTIONS)
    except ValueError as error:
        parser.error(str(error))
    args = Args(**values)
    try:  # the rules, seat and opponents are checked before any training
        make_env(args, args.seed).close()
    except (AgentError, RulesError, TypeError, ValueError) as error:
        fail(str(error))
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    logging.getLogger("torchrl").setLevel(logging.WARNING)  # its INFO lines go to stdout
    args = parse_args(argv)
    start = time.perf_counter()
    trained = train(args)
    done = time.perf_counter()
    report = evaluate(trained, args) if args.eval_episodes else {}
    train_seconds = done - start
    report.update(
        illegal_actions=report.get("illegal_actions", trained.illegal_actions),
        steps=trained.steps,
        train_episodes=trained.episodes,
        skipped_deals=trained.skipped_deals,
        updates=len(trained.losses),
        players=args.players,
        preset=args.preset,
        opponents=args.opponents,
        learner_seat=args.learner_seat,
        seed=args.seed,
        train_seconds=round(train_seconds, 1),
        train_steps_per_s=round(trained.steps / train_seconds),
        eval_seconds=round(time.perf_counter() - done, 1),
    )
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()

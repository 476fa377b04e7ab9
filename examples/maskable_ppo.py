"""Train sb3-contrib's MaskablePPO on UNO over many games at once, then evaluate it.

Needs the ``sb3`` extra (torch installed first, pinned, as the Makefile does)::

    .venv/bin/pip install -e '.[sb3]'
    .venv/bin/python examples/maskable_ppo.py                         # 100,000 steps, 64 games
    .venv/bin/python examples/maskable_ppo.py --envs 256 --steps 1000000 --players 3
    .venv/bin/python examples/maskable_ppo.py --single --steps 20000  # one env, to compare
    .venv/bin/python examples/maskable_ppo.py --save models/uno.zip   # then, by name:
    uno_rl evaluate sb3:models/uno.zip color-first --rounds 10000
    uno_rl scorecard sb3:models/uno.zip --players 2
    .venv/bin/python examples/maskable_ppo.py --help                  # every option

By default the learner plays ``--envs`` games in lockstep through
:class:`uno_rl.envs.sb3.UnoSB3VecEnv`, an SB3 ``VecEnv`` over the batched core (wrapped in
``VecMonitor`` for episode statistics). Its ``action_masks`` is what MaskablePPO's
``get_action_masks`` reads on every step, so the policy only ever samples legal actions.
``--single`` trains over one Gymnasium env (``gymnasium.make("uno_rl/Uno-v1")``, which SB3
wraps in a one-env ``DummyVecEnv``) with the same hyperparameters, which shows what the
adapter buys: the same number of learner steps in a fraction of the time. Each update sees
``--rollout`` samples (``n_steps = rollout / envs`` steps of every game, rounded up).

The learner sits at seat 0 (``--learner-seat random`` varies it); the opponents are
``--opponents`` (an agent name or spec, ``random-playable`` by default). A progress bar shows
the steps, their rate and the mean episode return (``--no-progress`` hides it).

Evaluation plays ``--eval-episodes`` games at once with the trained policy and the env's
masks, one episode each (the first, so short episodes are not over-counted), checks every
chosen action against the mask (``illegal_actions``, always 0 with masks; the env would
raise on one) and reports the learner's win rate next to a random learner's (about
1 / players). The report is one JSON object on stdout. Bad option values print one
``error: ...`` line and exit with status 2.
"""

from __future__ import annotations

import dataclasses
import json
import math
import sys
import time
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv, VecMonitor
from tqdm.auto import tqdm

from uno_rl.agents import AgentError
from uno_rl.core import RulesError
from uno_rl.envs.registration import ENV_ID
from uno_rl.envs.sb3 import UnoSB3VecEnv
from uno_rl.plumbing.cli import CliParser, count_type, fail, float_type, seed_type
from uno_rl.programs.rules_options import RulesOptions, add_rules_options, read_switches

#: Most games the example runs at once (training or evaluation).
MAX_ENVS = 65_536


@dataclasses.dataclass
class Args:
    """Settings of one run (the command line sets them; see ``--help``)."""

    steps: int = 100_000
    """learner decisions to train for (rounded up to whole rollouts)"""
    envs: int = 64
    """games in lockstep in the adapter (ignored with ``single``)"""
    single: bool = False
    """train over one Gymnasium env instead of the adapter"""
    players: int = 2
    """players at the table (2 to 10)"""
    preset: str = "official"
    """rule preset (envs/*.toml) or path of a preset file"""
    switches: dict[str, Any] = dataclasses.field(default_factory=dict)
    """rule switches on top of the preset"""
    learner_seat: str = "0"
    """the learner's seat, or 'random' (per episode)"""
    opponents: str = "random-playable"
    """agent name or spec playing every other seat"""
    seed: int = 0
    """seed of the model and the training env (the evaluation uses seed + 1)"""
    rollout: int = 2048
    """samples per update (n_steps = rollout / games, rounded up)"""
    batch_size: int = 256
    """minibatch size"""
    n_epochs: int = 4
    """optimization epochs per update"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    gamma: float = 1.0
    """discount: 1, as a round pays only at its end (below 1, a young policy learns to put a
    loss off by drawing until the round is cut at its turn limit, which pays 0)"""
    ent_coef: float = 0.01
    """entropy bonus"""
    eval_episodes: int = 200
    """episodes of the evaluation (0: none)"""
    threads: int = 1
    """torch CPU threads"""
    progress: bool = True
    """show a progress bar on stderr"""
    save: str | None = None
    """where to save the trained model (``model.save``), or None"""

    @property
    def seat(self) -> int | str:
        return self.learner_seat if self.learner_seat == "random" else int(self.learner_seat)

    @property
    def games(self) -> int:
        """Games in lockstep during training."""
        return 1 if self.single else self.envs

    @property
    def n_steps(self) -> int:
        """Rollout steps of every game per update."""
        return math.ceil(self.rollout / self.games)


#: The rule options (the shared ones of ``uno_rl simulate``, ``evaluate`` and ``play``).
RULES_OPTIONS = RulesOptions(
    players_default=Args.players,
    players_help=f"players at the table, 2 to 10 (default {Args.players})",
    preset_help=f"rule preset name (envs/*.toml) or path of a preset file (default {Args.preset})",
    players_switch_error="set the player count with --players N, not --set players=N",
)


def make_vec_env(args: Args, games: int, seed: int) -> UnoSB3VecEnv:
    """The adapter: ``games`` games against ``args.opponents``, seeded for its first reset."""
    return UnoSB3VecEnv(
        num_envs=games, preset=args.preset, players=args.players, learner_seat=args.seat,
        opponents=args.opponents, seed=seed, **args.switches,
    )  # fmt: skip


def make_train_env(args: Args) -> VecEnv | gymnasium.Env:
    """The training env: the adapter in a ``VecMonitor``, or one Gymnasium env (``single``)."""
    if args.single:
        env = gymnasium.make(
            ENV_ID, preset=args.preset, players=args.players, learner_seat=args.seat,
            opponents=args.opponents, **args.switches,
        )  # fmt: skip
        env.reset(seed=args.seed)
        return env
    return VecMonitor(make_vec_env(args, args.envs, args.seed))


class ProgressBar(BaseCallback):
    """A tqdm bar of learner steps, with the mean return of the last 100 episodes."""

    def __init__(self, total: int):
        super().__init__()
        self.total = total
        self.bar: tqdm | None = None

    def _on_training_start(self) -> None:
        self.bar = tqdm(total=self.total, unit="step", unit_scale=True, file=sys.stderr)

    def _on_rollout_end(self) -> None:
        episodes = self.model.ep_info_buffer
        if episodes:
            self.bar.set_postfix(
                episodes=len(episodes), ret=f"{np.mean([e['r'] for e in episodes]):+.2f}"
            )

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_training_end(self) -> None:
        self.bar.close()


def train(args: Args) -> MaskablePPO:
    """MaskablePPO trained for ``args.steps`` learner decisions."""
    torch.set_num_threads(args.threads)
    model = MaskablePPO(
        "MlpPolicy",
        make_train_env(args),
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
    model.learn(
        total_timesteps=args.steps, callback=ProgressBar(args.steps) if args.progress else None
    )
    return model


def evaluate(
    model: MaskablePPO,
    args: Args,
    episodes: int | None = None,
    max_steps: int | None = None,
    deterministic: bool = False,
) -> dict[str, Any]:
    """Play ``episodes`` games at once (default ``args.eval_episodes``) with the model and the
    env's masks, each until its first episode ends or ``max_steps`` batch steps have passed.

    ``decisions`` counts the learner actions chosen in unfinished episodes,
    ``illegal_actions`` those the mask forbids (an illegal one stops the evaluation, since the
    env would raise on it); ``win_rate`` and ``mean_return`` are over the finished episodes.
    """
    episodes = args.eval_episodes if episodes is None else episodes
    env = make_vec_env(args, episodes, args.seed + 1)
    observations = env.reset()
    returns = np.zeros(episodes)
    playing = np.ones(episodes, bool)  # still in its first episode
    decisions = illegal = steps = 0
    while playing.any() and (max_steps is None or steps < max_steps):
        masks = env.action_masks()
        actions, _ = model.predict(observations, action_masks=masks, deterministic=deterministic)
        decisions += int(playing.sum())
        illegal += int((~masks[np.arange(episodes), actions] & playing).sum())
        if illegal:
            break
        observations, rewards, dones, _ = env.step(actions)
        returns += np.where(playing, rewards, 0.0)
        playing &= ~dones
        steps += 1
    env.close()
    done = ~playing
    finished = int(done.sum())
    return {
        "episodes": finished,
        "decisions": decisions,
        "illegal_actions": illegal,
        "win_rate": float((returns[done] > 0).mean()) if finished else float("nan"),
        "random_win_rate": 1.0 / args.players,
        "mean_return": float(returns[done].mean()) if finished else float("nan"),
    }


def build_parser() -> CliParser:
    """The command line: every option's help says what it sets and its default."""
    d = Args()
    p = CliParser(
        prog="maskable_ppo.py",
        description=__doc__.splitlines()[0],
        epilog="The module docstring (top of examples/maskable_ppo.py) explains the run.",
    )
    p.add_argument(
        "--steps",
        type=count_type(1, 10**10),
        default=d.steps,
        help=f"learner decisions to train for, rounded up to whole rollouts (default {d.steps})",
    )
    p.add_argument(
        "--envs",
        type=count_type(1, MAX_ENVS),
        default=d.envs,
        help=f"games in lockstep in the SB3 VecEnv adapter, 1 to {MAX_ENVS} (default {d.envs})",
    )
    p.add_argument(
        "--single",
        action="store_true",
        help="train over one Gymnasium env (SB3's DummyVecEnv) instead of the adapter, "
        "for comparison; --envs is ignored",
    )
    add_rules_options(p, RULES_OPTIONS)
    p.add_argument(
        "--learner-seat",
        default=d.learner_seat,
        help=f"the learner's seat, or 'random' per episode (default {d.learner_seat})",
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
        help=f"seed of the model and the training env; the evaluation uses seed + 1 (default {d.seed})",
    )
    p.add_argument(
        "--rollout",
        type=count_type(2, 10**8),
        default=d.rollout,
        help=f"samples per update: every game plays rollout / games steps, rounded up (default {d.rollout})",
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
        "--ent-coef",
        type=float_type(0, 10),
        default=d.ent_coef,
        help=f"entropy bonus, in [0, 10] (default {d.ent_coef:g})",
    )
    p.add_argument(
        "--eval-episodes",
        type=count_type(0, MAX_ENVS),
        default=d.eval_episodes,
        help=f"episodes of the evaluation, played at once; 0 skips it (default {d.eval_episodes})",
    )
    p.add_argument(
        "--threads",
        type=count_type(1, 256),
        default=d.threads,
        help=f"torch CPU threads (default {d.threads})",
    )
    p.add_argument(
        "--save",
        metavar="PATH",
        default=d.save,
        help="save the trained model there (a .zip); uno_rl names it sb3:PATH, as in "
        "uno_rl evaluate sb3:PATH color-first or uno_rl scorecard sb3:PATH --players 2 "
        "(default: not saved)",
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
    if values["learner_seat"] != "random" and not values["learner_seat"].isdigit():
        parser.error(
            f"--learner-seat must be a seat number or 'random', got {values['learner_seat']!r}"
        )
    args = Args(**values)
    try:  # the rules, seat and opponents are checked before any training
        make_vec_env(args, 1, args.seed).close()
    except (AgentError, RulesError, TypeError, ValueError) as error:
        fail(str(error))
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    start = time.perf_counter()
    model = train(args)
    trained = time.perf_counter()
    if args.save is not None:
        model.save(args.save)
    report = evaluate(model, args) if args.eval_episodes else {}
    train_seconds = trained - start
    report.update(
        env="single" if args.single else "adapter",
        games=args.games,
        steps=int(model.num_timesteps),
        players=args.players,
        preset=args.preset,
        opponents=args.opponents,
        train_seconds=round(train_seconds, 1),
        train_steps_per_s=round(model.num_timesteps / train_seconds),
        eval_seconds=round(time.perf_counter() - trained, 1),
    )
    if args.save is not None:
        report.update(saved=args.save)
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()

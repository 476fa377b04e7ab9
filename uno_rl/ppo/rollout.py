"""Rollout sources: where each update's transitions come from (``backend`` in the config).

The trainer (:mod:`uno_rl.programs.train`) asks its source for one :class:`Rollout` per update and runs
the PPO update on it. Sources:

- :class:`LocalSource` (``backend = "local"``): one :class:`Collector` over every game, in
  this process, acting with the learner's own network and sampling generator.
- :class:`~uno_rl.ppo.ray_workers.RaySource` (``backend = "ray"``): ``workers`` Ray actors,
  each a :class:`Collector` over its slice of the games (:func:`game_slices`) with its own
  generators (:func:`worker_generators`) and a copy of the policy.

A :class:`Collector` owns a set of games (:class:`~uno_rl.ppo.selfplay.SelfPlay`) and their
turn buffers. Each rollout it refreshes the log-probabilities and values of the transitions
carried over from the last rollout under the current weights, plays ``rollout_steps`` engine
steps, runs GAE over its own buffer and returns the trainable transitions with their
advantages and returns; the pending ones are carried to the next rollout. Advantages are
computed where the games are (worker-side): a stream's transitions never leave the collector
that holds its game, so the learner only concatenates and trains. A collector's
:meth:`~Collector.state` (games, line-ups, carried transitions, generators) is what a
checkpoint keeps of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import torch

from uno_rl.agents import Agent
from uno_rl.core import engine
from uno_rl.core.rules import Rules

from .buffer import TurnBuffer
from .checkpoint import CheckpointError, to_numpy, to_tensor
from .config import TrainConfig
from .inputs import NetworkInputs
from .network import PolicyNetwork, masked_logits
from .selfplay import SelfPlay, Stats, sample_policy
from .stored_obs import BF16_BITS, as_float32, input_dtype, network_input

__all__ = [
    "Collector",
    "LocalSource",
    "Rollout",
    "RolloutSource",
    "check_game_state",
    "expected_game_state",
    "game_slices",
    "worker_generators",
]


@dataclasses.dataclass
class Rollout:
    """The trainable transitions of one update (T of them) and the counters of its games.

    Arrays (first axis: transition): ``obs`` (T, F) float32, or int16 bfloat16 bits from
    a bfloat16 trunk (the network's columns; :mod:`uno_rl.ppo.stored_obs`),
    ``mask`` (T, A) bool (A: the layout's actions), ``action`` (T,) int64, ``logp`` and ``value`` (T,) float32 under
    the policy that acted (refreshed for transitions carried from the last rollout),
    ``advantages`` and ``returns`` (T,) float32 (GAE). ``stats``: the games' counters.
    """

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    logp: np.ndarray
    value: np.ndarray
    advantages: np.ndarray
    returns: np.ndarray
    stats: Stats

    @property
    def size(self) -> int:
        return int(self.action.shape[0])

    @classmethod
    def concat(cls, parts: Sequence[Rollout]) -> Rollout:
        """The parts' transitions one after the other, in order; their counters summed."""
        arrays = {
            f.name: np.concatenate([getattr(p, f.name) for p in parts])
            for f in dataclasses.fields(cls)
            if f.name != "stats"
        }
        stats = Stats()
        for part in parts:
            stats = stats + part.stats
        return cls(**arrays, stats=stats)


def game_slices(num_games: int, workers: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of each worker's games: as even as possible, the first ones larger."""
    if not 1 <= workers <= num_games:
        raise ValueError(f"cannot split {num_games} games over {workers} workers")
    sizes = np.full(workers, num_games // workers)
    sizes[: num_games % workers] += 1
    stops = np.cumsum(sizes)
    return [(int(stop - size), int(stop)) for size, stop in zip(sizes, stops)]


def worker_generators(seed: int, worker: int) -> tuple[np.random.Generator, torch.Generator]:
    """Worker ``worker``'s generators: deals, line-ups and zoo agents (NumPy), and sampling
    (torch); from ``SeedSequence(seed)``'s ``worker``-th child, so they depend on the run seed
    and the worker's index only."""
    child = np.random.SeedSequence(seed).spawn(worker + 1)[worker]
    rng = np.random.default_rng(child)
    sample_seed = int(child.generate_state(1, np.uint64)[0])
    return rng, torch.Generator().manual_seed(sample_seed)


def check_game_state(saved: dict, expected: dict[str, np.ndarray], where: str) -> None:
    """Raise :class:`CheckpointError` naming ``where`` and the field if the saved game state
    (``{field: tensor}``) does not fit ``expected`` (``State.arrays()`` of the games)."""
    for name in [*saved, *(n for n in expected if n not in saved)]:
        tensor = saved.get(name)
        if tensor is None or name not in expected or tuple(tensor.shape) != expected[name].shape:
            shape = "missing" if tensor is None else f"shape {tuple(tensor.shape)}"
            raise CheckpointError(
                f"{where}: its game state does not fit this version of uno_rl (field "
                f"{name!r}: {shape}); it cannot be resumed: start a new run (init_from can "
                "reuse its policy.pt)"
            )


class Collector:
    """A set of games, their turn buffers and the policy acting for the learner.

    Args:
        config: the run's config (mix, truncation penalty, rollout steps, GAE).
        rules: rules of every game.
        num_games: the games this collector plays.
        zoo: zoo agents (built for ``rules``).
        pool: snapshot networks (their weights change as the pool is refreshed).
        network: the policy acting for the learner (its weights change every update).
        rng: generator of deals, line-ups and zoo agents.
        generator: torch generator of the policies' sampling.
        device: torch device of the networks.
    """

    def __init__(
        self,
        config: TrainConfig,
        rules: Rules,
        num_games: int,
        zoo: Sequence[Agent],
        pool: Sequence[PolicyNetwork],
        network: PolicyNetwork,
        rng: np.random.Generator,
        generator: torch.Generator,
        device: torch.device,
    ):
        self.config, self.network = config, network
        self.rng, self.generator, self.device = rng, generator, device
        inputs = NetworkInputs.of_rules(config.features, rules)
        columns = inputs.columns
        mix = (config.self_play, config.pool_share, config.zoo_share)
        self.play = SelfPlay(
            rules, num_games, mix, zoo, pool, columns, rng, generator, device,
            config.truncation_penalty, config.training_reward_scale(rules.reward),
            config.objective, config.win_bonus, config.zoo_tables,
        )  # fmt: skip
        capacity = num_games * (config.rollout_steps + rules.players)
        obs_dtype = BF16_BITS if network.trunk_bf16 else np.float32
        self.buffers = [
            TurnBuffer(capacity, len(columns), self.play.streams, inputs.actions, obs_dtype)
            for _ in range(2)
        ]
        self.buffer = self.buffers[0]  # after a rollout: only the carried transitions

    def _learner(self, feats: np.ndarray, masks: np.ndarray):
        return sample_policy(self.network, feats, masks, self.generator, self.device)

    @torch.no_grad()
    def _refresh_carried(self) -> None:
        """Log-probabilities and values of the carried transitions under the current policy."""
        buffer, n = self.buffer, self.buffer.size
        if not n:
            return
        feats = network_input(buffer.obs[:n], self.device, input_dtype(self.network.trunk_bf16))
        logits, value = self.network(feats)
        log_probs = torch.log_softmax(
            masked_logits(logits, torch.from_numpy(buffer.mask[:n]).to(self.device)), -1
        )
        actions = torch.from_numpy(buffer.action[:n]).to(self.device)
        buffer.logp[:n] = log_probs.gather(1, actions[:, None]).squeeze(1).cpu().numpy()
        buffer.value[:n] = value.cpu().numpy()

    def collect(self) -> Rollout:
        """One rollout of ``rollout_steps`` engine steps of every game, with GAE."""
        config, buffer = self.config, self.buffer
        self._refresh_carried()
        self.play.collect(buffer, config.rollout_steps, self._learner)
        stats = self.play.take_stats()
        advantages, returns, trainable = buffer.advantages(config.gamma, config.gae_lambda)
        index = np.flatnonzero(trainable)
        rollout = Rollout(
            obs=buffer.obs[index], mask=buffer.mask[index], action=buffer.action[index],
            logp=buffer.logp[index], value=buffer.value[index],
            advantages=advantages[index], returns=returns[index], stats=stats,
        )  # fmt: skip
        other = self.buffers[1] if buffer is self.buffers[0] else self.buffers[0]
        other.clear()
        buffer.carry_into(other)
        buffer.clear()
        self.buffer = other
        return rollout

    def state(self) -> dict[str, Any]:
        """Games, line-ups, carried transitions and generators (tensors and plain values)."""
        carried, n = self.buffer, self.buffer.size
        return {
            "games": {
                "state": {k: to_tensor(v) for k, v in self.play.state.arrays().items()},
                "lineup": to_tensor(self.play.lineup),
            },
            "carried": {
                "stream": to_tensor(carried.stream[:n]),
                "obs": to_tensor(as_float32(carried.obs[:n])),
                "mask": to_tensor(carried.mask[:n]),
                "action": to_tensor(carried.action[:n]),
                "logp": to_tensor(carried.logp[:n]),
                "value": to_tensor(carried.value[:n]),
            },
            "rng": {"numpy": self.rng.bit_generator.state, "sample": self.generator.get_state()},
        }

    def load_state(self, data: dict[str, Any], where: str) -> None:
        """Continue from a :meth:`state` (``where`` names it in errors)."""
        games = data["games"]
        expected = self.play.state.arrays()
        check_game_state(games["state"], expected, where)
        for name, tensor in games["state"].items():
            dtype = np.uint64 if name == "key" else expected[name].dtype
            setattr(self.play.state, name, to_numpy(tensor, dtype))
        self.play.state.invalidate()
        self.play.lineup = to_numpy(games["lineup"], np.int16)
        self.buffer = self.buffers[0]
        for buffer in self.buffers:
            buffer.clear()
        carried = data["carried"]
        if carried["stream"].numel():
            self.buffer.add(
                to_numpy(carried["stream"]), to_numpy(carried["obs"]), to_numpy(carried["mask"]),
                to_numpy(carried["action"]), to_numpy(carried["logp"]), to_numpy(carried["value"]),
            )  # fmt: skip
        self.rng.bit_generator.state = data["rng"]["numpy"]
        self.generator.set_state(data["rng"]["sample"])


#: ``on_started(update, source)``: called once the rollout of an update has been started.
StartedHook = Callable[[int, "RolloutSource"], None]


class RolloutSource(Protocol):
    """What the trainer needs of a source of rollouts."""

    #: Actors recreated after a loss, over the whole run (0 for the local source).
    restarts: int

    def collect(self, update: int, on_started: StartedHook | None = None) -> Rollout:
        """The rollout of ``update`` under the learner's current weights."""

    def snapshot(self, slot: int, filled: int) -> None:
        """The learner copied its current weights into pool slot ``slot``; ``filled`` slots
        are in use."""

    def state(self) -> dict[str, Any]:
        """The checkpoint entries of the games (tensors and plain values)."""

    def close(self) -> None:
        """Release what the source holds (actors, a private Ray instance)."""


class LocalSource:
    """Every game in this process with the learner's own network and sampling generator.

    The NumPy generator is ``default_rng(seed)`` and the sampling generator is the learner's
    (the same one shuffles the minibatches), exactly as before sources existed: a seed gives
    the same run as in earlier versions. Its :meth:`state` is the checkpoint's ``games``,
    ``carried`` and ``rng`` (``numpy``, ``sample``) entries.
    """

    restarts = 0

    def __init__(
        self,
        config: TrainConfig,
        rules: Rules,
        zoo: Sequence[Agent],
        network: PolicyNetwork,
        pool: Sequence[PolicyNetwork],
        pool_filled: int,
        generator: torch.Generator,
        device: torch.device,
        saved: dict[str, Any] | None = None,
        where: str = "checkpoint",
    ):
        rng = np.random.default_rng(config.seed)
        self.collector = Collector(
            config, rules, config.num_games, zoo, pool, network, rng, generator, device
        )
        self.collector.play.pool_filled = pool_filled
        if saved is not None:
            self.collector.load_state(saved, where)

    def collect(self, update: int, on_started: StartedHook | None = None) -> Rollout:
        if on_started is not None:
            on_started(update, self)
        return self.collector.collect()

    def snapshot(self, slot: int, filled: int) -> None:
        self.collector.play.pool_filled = filled  # the pool networks are the learner's own

    def state(self) -> dict[str, Any]:
        return self.collector.state()

    def close(self) -> None:
        pass


def expected_game_state(rules: Rules, num_games: int) -> dict[str, np.ndarray]:
    """``State.arrays()`` of ``num_games`` fresh games: shapes and dtypes a saved state needs."""
    return engine.reset(rules, np.zeros(num_games, np.uint64)).arrays()

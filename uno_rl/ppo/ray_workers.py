"""Rollout workers as Ray actors (``backend = "ray"``, extra ``ray``).

The ``num_games`` games are split over ``workers`` actors (:func:`~uno_rl.ppo.rollout.game_slices`);
each :class:`RolloutActor` holds a :class:`~uno_rl.ppo.rollout.Collector` over its slice with
its own generators (:func:`~uno_rl.ppo.rollout.worker_generators`: from the run seed and the
worker's index), a copy of the policy network, the opponent pool's snapshots and the zoo
agents. It runs on one CPU (torch with ``torch_threads`` threads, default 1).

Each update the learner puts its weights into the object store once (``ray.put``) and hands
the reference to every actor, with the pool slot that the new weights also fill when a
snapshot was taken (nothing else is sent: the snapshot is the weights just broadcast). Each
actor returns its :class:`~uno_rl.ppo.rollout.Rollout` (advantages and returns computed
worker-side) and its state after the rollout (games, carried transitions, generators); the
learner concatenates the rollouts in worker order. The same seed and ``workers`` give the same
run; another number of workers deals other games.

Failures. An actor that dies (killed, out of memory, its node lost) is recreated from the last
state it reported, with the learner's pool, and its rollout of the update is rerun with the
same weights: the result is the one an undisturbed run gives. After ``worker_retries``
recreations of one worker within one update the run stops with a :class:`BackendError` naming
the worker and the update. An update is used only when every worker's rollout came back, so no
partial rollout is ever merged; the checkpoint holds the states the workers last reported, and
``--resume`` restarts the actors from them.
"""

from __future__ import annotations

from typing import Any

import torch

from uno_rl.agents import make_agent
from uno_rl.core.compiled.thread_setting import one_thread_in_this_worker
from uno_rl.eval.backends import BackendError, RayExecutor

from .config import TrainConfig
from .inputs import NetworkInputs
from .network import PolicyNetwork, use_bf16
from .rollout import (
    Collector,
    Rollout,
    StartedHook,
    check_game_state,
    expected_game_state,
    game_slices,
    worker_generators,
)

__all__ = ["RayConnection", "RaySource", "RolloutActor"]


def _cpu_weights(network: PolicyNetwork) -> dict[str, torch.Tensor]:
    return {k: v.detach().cpu() for k, v in network.state_dict().items()}


class RolloutActor:
    """One rollout worker (a Ray actor; a plain object in tests).

    Args:
        config: the run's config (``TrainConfig.to_dict()``).
        worker: its index in ``[0, workers)``: which games and generators it owns.
        state: a :meth:`Collector.state` to continue from (None: fresh games from the seed).
        pool: the learner's pool snapshots (state dicts, ``pool_size`` of them).
        pool_filled: snapshots in use.
    """

    def __init__(
        self,
        config: dict[str, Any],
        worker: int,
        state: dict[str, Any] | None,
        pool: list[dict[str, torch.Tensor]],
        pool_filled: int,
    ):
        config = TrainConfig(**config)
        torch.set_num_threads(config.torch_threads or 1)
        rules = config.rules()
        zoo = [make_agent(spec, rules) for spec in config.zoo]
        inputs = NetworkInputs.of_rules(config.features, rules)
        bf16 = use_bf16(config.precision)
        self.network = inputs.network(config.hidden, trunk_bf16=bf16, sigmoid_form=True)
        self.pool = [
            inputs.network(config.hidden, trunk_bf16=bf16, sigmoid_form=True) for _ in pool
        ]
        for net, weights in zip(self.pool, pool):
            net.load_state_dict(weights)
        start, stop = game_slices(config.num_games, config.workers)[worker]
        rng, generator = worker_generators(config.seed, worker)
        self.collector = Collector(
            config, rules, stop - start, zoo, self.pool, self.network, rng, generator,
            torch.device("cpu"),
        )  # fmt: skip
        if state is not None:
            self.collector.load_state(state, f"worker {worker}'s state")
        self.collector.play.pool_filled = pool_filled

    def collect(
        self, weights: dict[str, torch.Tensor], snapshot: int | None, pool_filled: int
    ) -> tuple[Rollout, dict[str, Any]]:
        """Load ``weights`` (and into pool slot ``snapshot``), play one rollout; returns it and
        the state after it."""
        self.network.load_state_dict(weights)
        if snapshot is not None:
            self.pool[snapshot].load_state_dict(weights)
        self.collector.play.pool_filled = pool_filled
        rollout = self.collector.collect()
        return rollout, self.collector.state()


class OneCpuRolloutActor(RolloutActor):
    """A :class:`RolloutActor` in a Ray worker of one CPU: one engine thread there."""

    def __init__(self, *args: Any, **kwargs: Any):
        one_thread_in_this_worker()
        super().__init__(*args, **kwargs)


class RayConnection:
    """Ray for the trainer: the evaluator's :class:`RayExecutor` conventions (a private local
    instance of ``workers`` CPUs without an address, :class:`BackendError` when Ray is missing
    or unreachable, the private instance stopped by :meth:`close`)."""

    def __init__(self, address: str | None, workers: int):
        self._executor = RayExecutor(address=address, num_cpus=None if address else workers)
        import ray

        self.ray = ray
        cpus = ray.cluster_resources().get("CPU", 0)
        if cpus < workers:
            self.close()
            raise BackendError(
                f"the Ray cluster has {cpus:g} CPUs; {workers} rollout workers need one each "
                "(lower workers or add nodes)"
            )

    def close(self) -> None:
        self._executor.shutdown()


class RaySource:
    """``config.workers`` rollout actors on Ray (see the module docstring).

    Args:
        config: the run's config.
        network: the learner's network (its weights are broadcast every update).
        pool: the learner's pool networks (read when an actor is created).
        pool_filled: snapshots in use.
        states: each worker's :meth:`Collector.state` to continue from (a checkpoint's
            ``workers`` entry), or None for fresh games.
        where: the checkpoint's name in errors.
    """

    def __init__(
        self,
        config: TrainConfig,
        network: PolicyNetwork,
        pool: list[PolicyNetwork],
        pool_filled: int,
        states: list[dict[str, Any]] | None = None,
        where: str = "checkpoint",
    ):
        self.config, self.network = config, network
        self.pool, self.pool_filled = pool, pool_filled
        self.workers, self.retries = config.workers, config.worker_retries
        if states is not None:
            self._check_states(states, where)
        self.states: list[dict[str, Any] | None] = (
            list(states) if states is not None else [None] * self.workers
        )
        self.restarts = 0
        self._snapshot: int | None = None
        self._connection = RayConnection(config.address or None, self.workers)
        self.ray = self._connection.ray
        self._actor_class = self.ray.remote(num_cpus=1, max_restarts=0)(OneCpuRolloutActor)
        self.actors: list = []
        try:
            pool_ref = self._pool_ref()
            self.actors = [self._spawn(worker, pool_ref) for worker in range(self.workers)]
        except BaseException:
            self.close()
            raise

    def _check_states(self, states: list[dict[str, Any]], where: str) -> None:
        if len(states) != self.workers:
            raise ValueError(f"{len(states)} worker states for {self.workers} workers")
        rules = self.config.rules()
        for worker, ((start, stop), state) in enumerate(
            zip(game_slices(self.config.num_games, self.workers), states)
        ):
            expected = expected_game_state(rules, stop - start)
            check_game_state(state["games"]["state"], expected, f"{where} (worker {worker})")

    def _pool_ref(self):
        return self.ray.put([_cpu_weights(net) for net in self.pool])

    def _spawn(self, worker: int, pool_ref):
        return self._actor_class.remote(
            self.config.to_dict(), worker, self.states[worker], pool_ref, self.pool_filled
        )

    def collect(self, update: int, on_started: StartedHook | None = None) -> Rollout:
        """Every worker's rollout of ``update`` under the learner's weights, in worker order."""
        ray = self.ray
        weights = ray.put(_cpu_weights(self.network))
        snapshot, self._snapshot = self._snapshot, None
        calls = [a.collect.remote(weights, snapshot, self.pool_filled) for a in self.actors]
        if on_started is not None:
            on_started(update, self)
        results = [self._result(w, calls[w], weights, update) for w in range(self.workers)]
        rollouts, states = zip(*results)
        self.states = list(states)  # every worker's rollout came back: commit
        return Rollout.concat(rollouts)

    def _result(self, worker: int, call, weights, update: int) -> tuple[Rollout, dict[str, Any]]:
        """Worker ``worker``'s rollout of ``update``: its call's result, or that of a
        recreated actor's rerun (with the same ``weights``) if it was lost."""
        ray, lost = self.ray, 0
        while True:
            try:
                return ray.get(call)
            except ray.exceptions.RayTaskError as error:  # the worker's own error: as itself
                cause = error.as_instanceof_cause()
                raise (cause if isinstance(cause, Exception) else error) from None
            except ray.exceptions.RayActorError as error:
                name = f"rollout worker {worker} of {self.workers}"
                text = [line for line in str(error).splitlines() if line.strip()]
                if getattr(error, "actor_init_failed", False):  # would fail again: no retry
                    raise BackendError(
                        f"{name} could not start in update {update + 1}: "
                        f"{text[-1] if text else type(error).__name__}"
                    ) from None
                if lost >= self.retries:
                    raise BackendError(
                        f"{name} was lost in update {update + 1} and recreated {lost} times "
                        f"(worker_retries = {self.retries}); nothing of update {update + 1} "
                        f"was used: {type(error).__name__}: {text[0] if text else ''}"
                    ) from None
            lost += 1
            self.restarts += 1
            # Created with the learner's pool, which already holds any new snapshot.
            call = self._respawn(worker).collect.remote(weights, None, self.pool_filled)

    def _respawn(self, worker: int):
        try:
            self.ray.kill(self.actors[worker], no_restart=True)
        except Exception:  # noqa: BLE001 - already gone
            pass
        self.actors[worker] = self._spawn(worker, self._pool_ref())
        return self.actors[worker]

    def snapshot(self, slot: int, filled: int) -> None:
        self._snapshot, self.pool_filled = slot, filled

    def state(self) -> dict[str, Any]:
        return {"workers": list(self.states)}

    def close(self) -> None:
        for actor in self.actors:
            try:
                self.ray.kill(actor, no_restart=True)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self.actors = []
        self._connection.close()

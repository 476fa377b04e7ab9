"""Rollout sources' parts without Ray: game slices, worker generators, rollouts, actor state."""

import dataclasses
import os

import numpy as np
import pytest
import torch

from uno_rl.ppo.config import load_train_config
from uno_rl.ppo.network import PolicyNetwork, feature_columns, input_scale
from uno_rl.ppo.ray_workers import OneCpuRolloutActor, RolloutActor
from uno_rl.ppo.rollout import Rollout, game_slices, worker_generators
from uno_rl.ppo.selfplay import Stats

CONFIG = {
    "num_games": "12", "rollout_steps": "10", "switches": "max_turns=12", "hidden": "16",
    "zoo": "random-playable", "pool_size": "2", "self_play": "0.4", "pool_share": "0.4",
    "zoo_share": "0.2", "backend": "ray", "workers": "3",
}  # fmt: skip


def test_games_are_split_evenly_and_completely():
    assert game_slices(10, 3) == [(0, 4), (4, 7), (7, 10)]
    assert game_slices(4, 4) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert game_slices(5, 1) == [(0, 5)]
    for bad in (0, 6):
        with pytest.raises(ValueError, match=f"cannot split 5 games over {bad} workers"):
            game_slices(5, bad)


def test_worker_generators_depend_on_the_seed_and_the_worker_only():
    draws = {}
    for seed, worker in [(0, 0), (0, 1), (1, 0), (0, 0)]:
        rng, gen = worker_generators(seed, worker)
        draws.setdefault((seed, worker), []).append(
            (
                rng.integers(0, 2**62, 4).tolist(),
                torch.randint(0, 2**62, (4,), generator=gen).tolist(),
            )
        )
    assert draws[0, 0][0] == draws[0, 0][1]
    assert len({str(d[0]) for d in draws.values()}) == 3


def test_rollouts_concatenate_in_order_and_sum_their_counters():
    def part(value: float, decisions: int) -> Rollout:
        n = 3 if value else 2
        return Rollout(
            obs=np.full((n, 4), value, np.float32), mask=np.ones((n, 77), bool),
            action=np.full(n, int(value), np.int64), logp=np.full(n, value, np.float32),
            value=np.full(n, value, np.float32), advantages=np.full(n, value, np.float32),
            returns=np.full(n, value, np.float32), stats=Stats(decisions=decisions, rounds=1),
        )  # fmt: skip

    whole = Rollout.concat([part(0.0, 5), part(2.0, 7)])
    assert whole.size == 5 and whole.obs.shape == (5, 4)
    np.testing.assert_array_equal(whole.action, [0, 0, 2, 2, 2])
    assert whole.stats == Stats(decisions=12, rounds=2)


def weights(seed: int) -> dict:
    config = load_train_config(None, CONFIG)
    torch.manual_seed(seed)
    columns = feature_columns(config.features)
    return PolicyNetwork(len(columns), config.hidden, input_scale(config.features)).state_dict()


@pytest.fixture
def keep_torch_threads():
    threads = torch.get_num_threads()  # an actor sets its process's torch threads
    yield
    torch.set_num_threads(threads)


def test_an_actor_recreated_from_its_reported_state_plays_the_same_rollout(keep_torch_threads):
    config = load_train_config(None, CONFIG).to_dict()
    pool = [weights(1), weights(2)]
    w1, w2 = weights(3), weights(4)
    actor = RolloutActor(config, 2, None, pool, 0)
    assert actor.collector.play.n == 4  # the last of 3 slices of 12 games
    first, state = actor.collect(w1, None, 0)
    assert first.stats.decisions == 4 * 10 and first.size > 0
    # The next update puts its weights into pool slot 0 too; a copy of the actor made from
    # the state reported after the first rollout (with the learner's pool) plays it the same.
    second, after = actor.collect(w2, 0, 1)
    copy = RolloutActor(config, 2, state, [w2, pool[1]], 1)
    again, after_again = copy.collect(w2, None, 1)
    assert second.stats == again.stats and second.stats.rounds > 0
    for field in dataclasses.fields(Rollout):
        if field.name != "stats":
            np.testing.assert_array_equal(getattr(second, field.name), getattr(again, field.name))
    for name, tensor in after["games"]["state"].items():
        assert torch.equal(tensor, after_again["games"]["state"][name]), name
    assert after["rng"]["numpy"] == after_again["rng"]["numpy"]
    # Other workers own other games.
    other = RolloutActor(config, 0, None, pool, 0)
    assert other.collector.play.n == 4
    assert not np.array_equal(
        other.collector.play.state.key,
        RolloutActor(config, 2, None, pool, 0).collector.play.state.key,
    )


@pytest.mark.parametrize("set_before", [None, "3"])
def test_a_ray_rollout_actor_splits_no_batch_over_threads(keep_torch_threads, monkeypatch,
                                                          set_before):  # fmt: skip
    # A Ray actor holds one CPU; UNO_RL_THREADS, where the cluster sets it, still decides.
    monkeypatch.setenv("UNO_RL_THREADS", "")  # restored after the test, whatever happens
    if set_before is None:
        monkeypatch.delenv("UNO_RL_THREADS")
    else:
        monkeypatch.setenv("UNO_RL_THREADS", set_before)
    RolloutActor(load_train_config(None, CONFIG).to_dict(), 0, None, [weights(1)], 0)
    assert os.environ.get("UNO_RL_THREADS") == set_before
    OneCpuRolloutActor(load_train_config(None, CONFIG).to_dict(), 0, None, [weights(1)], 0)
    assert os.environ["UNO_RL_THREADS"] == (set_before or "1")

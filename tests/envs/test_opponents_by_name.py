"""Opponents by name in ``uno_rl/Uno-v1`` (single-agent and vector): zoo names, spec strings,
shipped bots, Agent objects, per-seat lists, per-episode pools, the random-playable default
and the errors of bad input."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import uno_rl.envs.registration  # noqa: F401  (registers uno_rl/Uno-v1)
from uno_rl.agents import AgentError, make_agent
from uno_rl.agents.random_agents import playable_first
from uno_rl.core import load_rules, sample_legal_actions
from uno_rl.core.phases import OVER
from uno_rl.envs.opponents import OpponentsTypeError
from uno_rl.envs.registration import ENV_ID
from uno_rl.envs.vector import UnoVectorEnv


def labels(opponents) -> list[str]:
    return [getattr(o, "label", None) for o in opponents]


def play_single(env, steps: int, seed: int = 0) -> None:
    _, info = env.reset(seed=seed)
    gen = np.random.default_rng(seed)
    for _ in range(steps):
        action = int(gen.choice(np.flatnonzero(info["action_mask"])))
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            _, info = env.reset()


def play_vector(env, steps: int, seed: int = 0) -> None:
    _, info = env.reset(seed=seed)
    gen = np.random.default_rng(seed)
    for _ in range(steps):
        _, _, _, _, info = env.step(sample_legal_actions(info["action_mask"], gen))


FORMS = [
    ("color-first", 2, ["color-first"]),
    ("color-first:bluff=0.3", 2, ["color-first:bluff=0.3"]),
    ("agent", 2, ["rule"]),
    (["rule", "color-first", "random-playable"], 4, ["rule", "color-first", "random-playable"]),
    ("random", 3, ["random", "random"]),
]


@pytest.mark.parametrize(("opponents", "players", "expected"), FORMS)
def test_each_form_through_make_and_make_vec(opponents, players, expected):
    if opponents == "agent":
        opponents = make_agent("rule", load_rules("official", players=players))
    env = gymnasium.make(ENV_ID, players=players, opponents=opponents)
    assert labels(env.unwrapped.opponents) == expected
    play_single(env, 30)
    vec = gymnasium.make_vec(ENV_ID, num_envs=8, players=players, opponents=opponents)
    assert isinstance(vec, UnoVectorEnv)
    assert labels(vec.opponents_of(5)) == expected
    play_vector(vec, 30)


def test_shipped_bot_by_name():
    pytest.importorskip("torch")
    env = gymnasium.make(ENV_ID, players=2, opponents="ppo-official-2p")
    assert labels(env.unwrapped.opponents) == ["ppo-official-2p"]
    play_single(env, 10)
    vec = gymnasium.make_vec(ENV_ID, num_envs=4, players=2, opponents="ppo-official-2p")
    assert labels(vec.opponents_of(0)) == ["ppo-official-2p"]
    play_vector(vec, 10)


def test_same_spec_is_one_agent():
    env = UnoVectorEnv(4, players=4, opponents=["rule", "rule", "color-first"])
    first, second, third = env.opponents_of(0)
    assert first is second and first is not third


def recorder(offset: int, env_ref: list, calls: list):
    """A single-game opponent checking it is called for the seat ``offset`` after seat 0."""

    def opponent(observation, mask, rng):
        assert env_ref[0].privileged_game.actor == offset
        calls.append(offset)
        return int(sample_legal_actions(mask[None, :], rng)[0])

    opponent.needs_observation = False
    return opponent


def test_per_seat_list_seats_those_agents_single():
    env_ref: list = []
    calls: list = []
    opponents = [recorder(k, env_ref, calls) for k in (1, 2, 3)]
    env = gymnasium.make(ENV_ID, players=4, opponents=opponents)
    env_ref.append(env.unwrapped)
    assert env.unwrapped.opponents == tuple(opponents)
    play_single(env, 40)
    assert set(calls) == {1, 2, 3}


def test_per_seat_list_seats_those_agents_vector():
    calls: dict[int, int] = {1: 0, 2: 0, 3: 0}
    holder: list = []

    def batched(offset):
        def opponent(observations, masks, rng):
            state = holder[0].privileged_state
            waiting = int(((state.actor == offset) & (state.phase != OVER)).sum())
            assert masks.shape[0] == waiting  # every game where this seat acts, no other
            calls[offset] += masks.shape[0]
            return sample_legal_actions(masks, rng)

        opponent.needs_observation = False
        return opponent

    env = UnoVectorEnv(16, players=4, opponents=[batched(k) for k in (1, 2, 3)])
    holder.append(env)
    play_vector(env, 20)
    assert all(count > 0 for count in calls.values())


def pool_labels_single(seed: int, episodes: int) -> list[list[str]]:
    env = gymnasium.make(ENV_ID, players=3, opponents={"pool": ["rule", "color-first"]})
    out = []
    env.reset(seed=seed)
    for _ in range(episodes):
        out.append(labels(env.unwrapped.opponents))
        env.reset()
    return out


def test_pool_is_sampled_per_episode_and_seed_single():
    first = pool_labels_single(7, 12)
    assert first == pool_labels_single(7, 12)
    assert first != pool_labels_single(8, 12)
    seen = {name for episode in first for name in episode}
    assert seen == {"rule", "color-first"}
    assert len({tuple(episode) for episode in first}) > 1  # drawn anew per episode


def test_pool_is_sampled_per_game_and_seed_vector():
    def tables(seed: int) -> list[list[str]]:
        env = gymnasium.make_vec(
            ENV_ID, num_envs=16, players=3, opponents={"pool": ["rule", "aggressive"]}
        )
        env.reset(seed=seed)
        return [labels(env.opponents_of(g)) for g in range(16)]

    first = tables(3)
    assert first == tables(3)
    assert first != tables(4)
    assert len({tuple(t) for t in first}) > 1
    env = UnoVectorEnv(16, players=3, opponents={"pool": ["rule", "aggressive"]})
    play_vector(env, 60)  # episodes end and are dealt again with new draws


def test_pool_single_matches_vector_of_one():
    pool = {"pool": ["rule", "color-first", "random-playable"]}
    single = gymnasium.make(ENV_ID, players=4, opponents=pool).unwrapped
    vec = UnoVectorEnv(1, players=4, opponents=pool)
    single.reset(seed=11)
    vec.reset(seed=11)
    assert labels(single.opponents) == labels(vec.opponents_of(0))


def test_default_is_random_playable():
    env = gymnasium.make(ENV_ID, players=3)
    assert labels(env.unwrapped.opponents) == ["random-playable"] * 2
    vec = UnoVectorEnv(64, players=2)
    assert labels(vec.opponents_of(0)) == ["random-playable"]
    # The learner plays random-playable too: far fewer truncated rounds than uniform play.
    _, info = vec.reset(seed=0)
    gen = np.random.default_rng(0)
    ended = truncated = 0
    while ended < 300:
        actions = sample_legal_actions(playable_first(info["action_mask"]), gen)
        _, _, term, trunc, info = vec.step(actions)
        ended += int((term | trunc).sum())
        truncated += int(trunc.sum())
    assert truncated / ended < 0.1


BAD = [
    ("nobody", AgentError, r"opponents: unknown agent 'nobody'"),
    ("color-first:blf=0.3", AgentError, r"opponents: agent 'color-first' has no parameter 'blf'"),
    (["rule"], ValueError, r"3 players need 2, got 1"),
    (5, OpponentsTypeError, r"opponents must be an agent name .* got int"),
    (["rule", 5], OpponentsTypeError, r"opponents\[1\] is not callable, an agent name or an Agent"),
    (["rule", "nobody"], AgentError, r"opponents\[1\]: unknown agent 'nobody'"),
    ({"pool": []}, ValueError, r"opponents\['pool'\] must name at least one opponent"),
    ({"pool": "rule"}, OpponentsTypeError, r"opponents\['pool'\] must be a list"),
    ({"pol": ["rule"]}, ValueError, r"one key, 'pool'; got keys \['pol'\]"),
    ({"pool": ["rule", "nobody"]}, AgentError, r"opponents\['pool'\]\[1\]: unknown agent"),
]


@pytest.mark.parametrize(("opponents", "error", "match"), BAD)
def test_bad_opponents_raise_at_construction(opponents, error, match):
    with pytest.raises(error, match=match):
        gymnasium.make(ENV_ID, players=3, opponents=opponents)
    with pytest.raises(error, match=match):
        gymnasium.make_vec(ENV_ID, num_envs=2, players=3, opponents=opponents)


def test_wrong_type_is_both_type_and_value_error():
    assert issubclass(OpponentsTypeError, TypeError)
    assert issubclass(OpponentsTypeError, ValueError)
    assert issubclass(OpponentsTypeError, AgentError)

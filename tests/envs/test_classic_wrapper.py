"""The fused ClassicWrapper behaves exactly like PettingZoo's classic wrapper stack."""

import warnings

import numpy as np
import pytest

from uno_rl.envs import uno_v1
from uno_rl.envs.classic import ClassicWrapper


def snapshot(aec):
    agent = aec.agent_selection
    obs, reward, termination, truncation, info = aec.last()
    return (
        agent,
        {k: v.tolist() for k, v in obs.items()},
        reward,
        termination,
        truncation,
        info,
        dict(aec.rewards),
        dict(aec.terminations),
        dict(aec.truncations),
        dict(aec._cumulative_rewards),
        list(aec.agents),
    )


@pytest.mark.parametrize("preset,players", [("official", 2), ("party", 4), ("kids", 3)])
def test_fused_wrapper_matches_the_classic_stack(preset, players):
    fused = uno_v1.env(preset=preset, players=players)
    stack = uno_v1.classic_stack(preset=preset, players=players)
    assert isinstance(fused, ClassicWrapper)
    gen = np.random.default_rng(players)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # illegal-move warnings
        for episode in range(30):
            fused.reset(seed=episode)
            stack.reset(seed=episode)
            while fused.agents:
                assert snapshot(fused) == snapshot(stack)
                obs, _, termination, truncation, _ = fused.last()
                if termination or truncation:
                    action = None
                elif gen.random() < 0.01:  # now and then an illegal move ends the game
                    action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[gen.integers(legal.size)])
                fused.step(action)
                stack.step(action)
            assert not stack.agents
            assert snapshot_final(fused) == snapshot_final(stack)


def snapshot_final(aec):
    return dict(aec.rewards), dict(aec._cumulative_rewards), dict(aec.infos)


def test_fused_wrapper_enforces_order_and_names_bad_actions():
    aec = uno_v1.env()
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        _ = aec.agent_selection
    with pytest.raises(AssertionError, match="reset"):
        aec.step(0)
    aec.reset(seed=0)
    with pytest.raises(TypeError, match="action must be an integer"):
        aec.step(1.5)
    with pytest.raises(ValueError, match="out of range"):
        aec.step(77)
    assert aec.unwrapped.privileged_game.legal_mask().any()  # nothing happened

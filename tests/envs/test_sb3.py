"""``uno_rl.envs.sb3.UnoSB3VecEnv``: SB3's VecEnv contract (reset, step_async/step_wait,
same-step auto-reset with ``terminal_observation`` and ``TimeLimit.truncated``), masks through
sb3-contrib's own ``get_action_masks``, agreement with the native vector env, seeding, SB3's
wrappers and algorithms running through it, and bad input. Skipped without the ``sb3`` extra."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from gymnasium import spaces  # noqa: E402
from gymnasium.error import ResetNeeded  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.evaluation import evaluate_policy  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.monitor import Monitor  # noqa: E402
from stable_baselines3.common.vec_env import (  # noqa: E402
    VecCheckNan,
    VecEnv,
    VecMonitor,
    VecNormalize,
)

from uno_rl.agents import AgentError  # noqa: E402
from uno_rl.core import OBS_SIZE, RulesError, engine, sample_legal_actions  # noqa: E402
from uno_rl.core.actions import DRAW, NUM_ACTIONS  # noqa: E402
from uno_rl.core.observe import observe  # noqa: E402
from uno_rl.core.phases import OVER  # noqa: E402
from uno_rl.envs.sb3 import UnoSB3VecEnv  # noqa: E402
from uno_rl.envs.vector import UnoVectorEnv  # noqa: E402

SHORT = {"hand_size": 2, "players": 3}  # rounds of a few decisions: many auto-resets


def pick(mask: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """A random legal action per game, drawing only when nothing else is legal (short rounds)."""
    play = mask.copy()
    play[:, DRAW] &= ~mask[:, :DRAW].any(axis=1)
    return sample_legal_actions(play, gen)


def assert_waiting_for_learner(env: UnoSB3VecEnv) -> None:
    """Every game waits for its learner, and the masks are the core's legal moves there."""
    venv = env.vector_env
    state = venv.privileged_state
    assert (state.actor == venv.seat).all() and (state.phase != OVER).all()
    legal = engine.legal_mask(state)
    assert np.array_equal(env.action_masks(), legal)
    assert np.array_equal(get_action_masks(env), legal)
    assert legal.any(axis=1).all()


# ----------------------------------------------------------------- contract basics
def test_spaces_reset_and_step_shapes():
    env = UnoSB3VecEnv(num_envs=6, seed=0, **SHORT)
    assert isinstance(env, VecEnv) and env.num_envs == 6
    assert env.action_space == spaces.Discrete(NUM_ACTIONS)
    assert isinstance(env.observation_space, spaces.Box)
    assert env.observation_space.shape == (OBS_SIZE,)
    assert env.observation_space.dtype == np.float32
    assert env.render_mode is None and env.rules.players == 3 and env.rules.hand_size == 2
    obs = env.reset()
    assert isinstance(obs, np.ndarray)  # observations only, no info
    assert obs.shape == (6, OBS_SIZE) and obs.dtype == np.float32
    assert all(env.observation_space.contains(row) for row in obs)
    assert env.reset_infos == [{}] * 6
    masks = get_action_masks(env)
    assert masks.shape == (6, NUM_ACTIONS) and masks.dtype == bool
    env.step_async(pick(masks, np.random.default_rng(0)))
    obs, rewards, dones, infos = env.step_wait()
    assert obs.shape == (6, OBS_SIZE) and obs.dtype == np.float32
    assert rewards.shape == (6,) and rewards.dtype == np.float32
    assert dones.shape == (6,) and dones.dtype == bool
    assert isinstance(infos, list) and len(infos) == 6
    assert all(isinstance(i, dict) for i in infos) and len({id(i) for i in infos}) == 6
    assert all(env.observation_space.contains(row) for row in obs)


def test_masks_are_the_legal_moves_and_sb3_contrib_finds_them():
    env = UnoSB3VecEnv(num_envs=40, players=4, learner_seat="random", opponents="color-first")
    assert is_masking_supported(env) and env.has_attr("action_masks")
    env.seed(3)
    env.reset()
    gen = np.random.default_rng(3)
    wrapped = VecMonitor(env)  # wrappers forward env_method / has_attr
    assert is_masking_supported(wrapped)
    for _ in range(60):
        assert_waiting_for_learner(env)
        masks = get_action_masks(wrapped)
        # the learner's own observation of the state the masks belong to
        venv = env.vector_env
        assert np.array_equal(masks, engine.legal_mask(venv.privileged_state))
        wrapped.step(pick(masks, gen))
    rows = env.env_method("action_masks", indices=[3, 1])
    assert np.array_equal(np.stack(rows), env.action_masks()[[3, 1]])
    getters = env.get_attr("action_masks", indices=2)
    assert np.array_equal(getters[0](), env.action_masks()[2])


def test_auto_reset_in_the_same_step_with_terminal_observation():
    env = UnoSB3VecEnv(num_envs=32, seed=1, learner_seat="random", **SHORT)
    obs = env.reset()
    gen = np.random.default_rng(1)
    returns = np.zeros(32)
    finished = truncations = 0
    for _ in range(80):
        before = env.vector_env.privileged_state.turn.copy()
        obs, rewards, dones, infos = env.step(pick(env.action_masks(), gen))
        returns += rewards
        assert_waiting_for_learner(env)
        venv = env.vector_env
        # the returned observations are the learner's views of the games now, new deals too
        assert np.array_equal(obs, observe(venv.privileged_state, venv.seat))
        for i in np.flatnonzero(~dones):
            assert infos[i] == {}
            assert venv.privileged_state.turn[i] > before[i]
        for i in np.flatnonzero(dones):
            final = infos[i]["terminal_observation"]
            assert final.shape == (OBS_SIZE,) and final.dtype == np.float32
            assert env.observation_space.contains(final)
            assert not np.array_equal(final, obs[i])
            assert isinstance(infos[i]["TimeLimit.truncated"], bool)
            truncations += infos[i]["TimeLimit.truncated"]
            # the new episode: the learner's first decision, the opponents before it played
            assert venv.privileged_state.turn[i] < 10
        finished += int(dones.sum())
        assert np.all(rewards[~dones] == 0)  # rewards come when an episode ends
    assert finished > 50 and truncations == 0


def test_truncated_rounds_are_time_limits():
    env = UnoSB3VecEnv(num_envs=16, seed=2, players=3, max_turns=30)
    env.reset()
    gen = np.random.default_rng(2)
    seen = 0
    for _ in range(40):
        _, rewards, dones, infos = env.step(sample_legal_actions(env.action_masks(), gen))
        for i in np.flatnonzero(dones):
            if infos[i]["TimeLimit.truncated"]:
                seen += 1
                assert rewards[i] == 0  # a truncated round is a draw
    assert seen > 0


@pytest.mark.parametrize("kwargs", [{"players": 2}, {"hand_size": 1, "players": 4}, SHORT])
def test_one_game_matches_the_vector_env_with_the_ignored_steps_dropped(kwargs):
    """With one game the adapter is the native vector env (same seed, same actions) minus the
    next-step autoreset's ignored step: the same randomness is drawn in the same order."""
    seat = {"learner_seat": "random"}
    env = UnoSB3VecEnv(num_envs=1, seed=11, opponents="random", **seat, **kwargs)
    ref = UnoVectorEnv(num_envs=1, opponents="random", **seat, **kwargs)
    obs = env.reset()
    ref_obs, info = ref.reset(seed=11)
    gen = np.random.default_rng(0)
    episodes = 0
    for _ in range(300):
        assert np.array_equal(obs, ref_obs)
        assert np.array_equal(env.action_masks(), info["action_mask"])
        actions = pick(env.action_masks(), gen)
        obs, rewards, dones, infos = env.step(actions)
        ref_obs, ref_rewards, terminated, truncated, info = ref.step(actions)
        assert rewards[0] == ref_rewards[0]
        assert dones[0] == (terminated[0] or truncated[0])
        if dones[0]:
            episodes += 1
            assert np.array_equal(infos[0]["terminal_observation"], ref_obs[0])
            assert infos[0]["TimeLimit.truncated"] == bool(truncated[0])
            ref_obs, _, _, _, info = ref.step(np.zeros(1, np.int64))  # ignored: new deal
    assert episodes > 0
    assert env.get_attr("skipped_deals") == [ref.skipped_deals]


# -------------------------------------------------------------------------- seeding
def play(env: UnoSB3VecEnv, steps: int, seed: int) -> list[np.ndarray]:
    gen = np.random.default_rng(seed)
    out = [env.reset()]
    for _ in range(steps):
        obs, rewards, dones, infos = env.step(pick(env.action_masks(), gen))
        out += [obs, rewards, dones]
        out += [infos[i]["terminal_observation"] for i in np.flatnonzero(dones)]
    return out


def test_same_seed_same_games_other_seed_other_games():
    kwargs = {"num_envs": 8, "learner_seat": "random", "opponents": {"pool": ["random", "rule"]}}
    a = play(UnoSB3VecEnv(seed=5, **kwargs, **SHORT), 40, 0)
    b_env = UnoSB3VecEnv(**kwargs, **SHORT)
    assert b_env.seed(5) == [5] * 8
    b = play(b_env, 40, 0)
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    c = play(UnoSB3VecEnv(seed=6, **kwargs, **SHORT), 40, 0)
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=False))
    # seed() applies to the next reset only; then the generator runs on
    b_env.seed(5)
    again = b_env.reset()
    assert np.array_equal(again, a[0])
    assert not np.array_equal(b_env.reset(), a[0])


def test_maskable_ppo_with_a_seed_is_deterministic():
    def learn(seed: int) -> list[np.ndarray]:
        env = UnoSB3VecEnv(num_envs=8, **SHORT)
        model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1,
                            seed=seed, device="cpu")  # fmt: skip
        model.learn(256)
        return [p.detach().numpy().copy() for p in model.policy.parameters()]

    first, second, other = learn(0), learn(0), learn(1)
    assert all(np.array_equal(x, y) for x, y in zip(first, second, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(first, other, strict=True))


# ------------------------------------------------------- SB3's algorithms and wrappers
def test_maskable_ppo_learns_through_it_with_sb3_wrappers():
    env = VecNormalize(
        VecCheckNan(VecMonitor(UnoSB3VecEnv(num_envs=16, **SHORT)), raise_exception=True),
        norm_reward=False,
    )
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=128, n_epochs=2, seed=0,
                        device="cpu")  # fmt: skip
    model.learn(512)
    assert model.num_timesteps == 512
    assert len(model.ep_info_buffer) > 10  # VecMonitor saw episodes end
    assert {"r", "l"} <= model.ep_info_buffer[0].keys()
    # sb3-contrib's own masked evaluation runs through the adapter (an illegal action raises)
    env.training = False
    rewards, lengths = evaluate_policy(
        model, env, n_eval_episodes=20, use_masking=True, return_episode_rewards=True
    )
    assert len(rewards) == 20 and min(lengths) >= 1


def test_get_attr_set_attr_env_is_wrapped():
    env = UnoSB3VecEnv(num_envs=4, players=3)
    assert env.get_attr("rules") == [env.rules] * 4
    assert env.get_attr("num_envs", indices=[0, 2]) == [4, 4]
    assert env.env_is_wrapped(Monitor) == [False] * 4
    assert env.env_is_wrapped(Monitor, indices=1) == [False]
    env.set_attr("skipped_deals", 7)
    assert env.get_attr("skipped_deals", 3) == [7]
    assert not env.has_attr("no_such_thing")
    env.set_options(None)
    env.set_options({})
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None  # nothing to draw


def test_close_then_reset_deals_again():
    env = UnoSB3VecEnv(num_envs=3, seed=0)
    first = env.reset()
    env.close()
    with pytest.raises(RuntimeError, match="reset"):
        env.action_masks()
    env.seed(0)
    assert np.array_equal(env.reset(), first)


# ------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"num_envs": 0}, ValueError, "num_envs"),
        ({"num_envs": 2.5}, TypeError, "num_envs"),
        ({"players": 11}, RulesError, "players"),
        ({"preset": "no-such-preset"}, RulesError, "no-such-preset"),
        ({"opponents": "no-such-agent"}, AgentError, "no-such-agent"),
        ({"opponents": ["random"] * 3, "players": 2}, ValueError, "opponents"),
        ({"learner_seat": 5, "players": 2}, ValueError, "learner_seat"),
        ({"seed": -1}, ValueError, "seed"),
        ({"seed": "0"}, TypeError, "seed"),
        ({"seed": True}, TypeError, "seed"),
        ({"stacking_typo": "any"}, RulesError, "stacking_typo"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        UnoSB3VecEnv(**kwargs)


def test_bad_calls():
    env = UnoSB3VecEnv(num_envs=4, seed=0)
    with pytest.raises(ResetNeeded):
        env.step(np.zeros(4, np.int64))
    with pytest.raises(RuntimeError, match="step_async"):
        env.step_wait()
    env.reset()
    masks = env.action_masks()
    state_before = env.vector_env.privileged_state.turn.copy()
    illegal = np.argmin(masks, axis=1)  # a forbidden action in every game
    assert not masks[np.arange(4), illegal].any()
    with pytest.raises(ValueError, match="illegal action"):
        env.step(illegal)
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(3, np.int64))
    with pytest.raises(TypeError, match="integers"):
        env.step(np.zeros(4))
    assert np.array_equal(env.vector_env.privileged_state.turn, state_before)  # unchanged
    assert np.array_equal(env.action_masks(), masks)
    with pytest.raises(TypeError, match="seed"):
        env.seed(1.5)
    with pytest.raises(ValueError, match="no options"):
        env.set_options({"deal_seed": 3})
    with pytest.raises(AttributeError, match="no per-game method 'render'"):
        env.env_method("render")
    with pytest.raises(TypeError, match="no arguments"):
        env.env_method("action_masks", 1)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        env.get_attr("nope")
    with pytest.raises(IndexError, match="out of range"):
        env.get_attr("rules", indices=[4])
    with pytest.raises(ValueError, match="all of them"):
        env.set_attr("skipped_deals", 0, indices=[0])
    env.step(pick(masks, np.random.default_rng(0)))  # still usable after the errors


def test_without_the_extra_the_import_error_names_it(monkeypatch):
    import importlib
    import sys

    monkeypatch.delitem(sys.modules, "uno_rl.envs.sb3")  # restored afterwards
    monkeypatch.setitem(sys.modules, "stable_baselines3.common.vec_env", None)
    with pytest.raises(ImportError, match=r"pip install 'uno_rl\[sb3\]'"):
        importlib.import_module("uno_rl.envs.sb3")

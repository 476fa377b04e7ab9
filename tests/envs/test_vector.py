"""The native Gymnasium vector env ``uno_rl.envs.vector.UnoVectorEnv``: spaces, registry
(``vector_entry_point``), next-step autoreset exactly as declared, masks in ``info``, rewards
against the core, opponents, determinism, agreement with the single env, bad input, and that
it runs one batched core State rather than wrapping single envs."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.vector.utils import batch_space

import uno_rl.envs.registration  # noqa: F401  (registers uno_rl/Uno-v1)
from uno_rl.core import OBS_SIZE, RulesError, engine, sample_legal_actions
from uno_rl.core.actions import DRAW, NUM_ACTIONS
from uno_rl.core.observe import observe
from uno_rl.core.observe_layout import SLICES
from uno_rl.core.phases import OVER
from uno_rl.core.state import State
from uno_rl.envs.gym_env import UnoEnv
from uno_rl.envs.registration import ENV_ID
from uno_rl.envs.vector import UnoVectorEnv, random_opponent

PHASE = SLICES["phase"].start
HAND_SIZES = SLICES["hand_sizes"].start


def pick(mask: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """A random legal action per game, drawing only when nothing else is legal (keeps rounds short)."""
    play = mask.copy()
    play[:, DRAW] &= ~mask[:, :DRAW].any(axis=1)
    return sample_legal_actions(play, gen)


# ------------------------------------------------------------------ spaces, registry
def test_spaces_and_metadata():
    env = UnoVectorEnv(num_envs=5, players=3)
    try:  # gymnasium >= 1.1 (1.0 has no enum and only next-step autoreset)
        from gymnasium.vector import AutoresetMode
    except ImportError:
        assert env.metadata["autoreset_mode"] == "NextStep"
    else:
        assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert env.num_envs == 5
    assert env.single_action_space == spaces.Discrete(NUM_ACTIONS)
    assert env.action_space == batch_space(spaces.Discrete(NUM_ACTIONS), 5)
    assert isinstance(env.action_space, spaces.MultiDiscrete)
    single = env.single_observation_space
    assert isinstance(single, spaces.Box) and single.shape == (OBS_SIZE,)
    assert single.dtype == np.float32
    assert single == UnoEnv(players=3).observation_space
    assert env.observation_space == batch_space(single, 5)
    assert env.observation_space.shape == (5, OBS_SIZE)


def test_make_vec_uses_the_vector_entry_point():
    for mode in ("vector_entry_point", None):
        envs = gymnasium.make_vec(ENV_ID, num_envs=8, vectorization_mode=mode, players=3)
        assert isinstance(envs.unwrapped, UnoVectorEnv)
        assert envs.num_envs == 8 and envs.unwrapped.rules.players == 3
        obs, info = envs.reset(seed=0)
        assert obs.shape == (8, OBS_SIZE) and info["action_mask"].shape == (8, NUM_ACTIONS)
        envs.step(sample_legal_actions(info["action_mask"], np.random.default_rng(0)))
        envs.close()


def test_it_is_one_batched_state_not_single_envs():
    env = UnoVectorEnv(num_envs=64)
    env.reset(seed=0)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert not isinstance(env, gymnasium.vector.SyncVectorEnv | gymnasium.vector.AsyncVectorEnv)
    assert isinstance(env.privileged_state, State) and env.privileged_state.num_games == 64
    for value in vars(env).values():
        assert not isinstance(value, gymnasium.Env)
        if isinstance(value, list | tuple):
            assert not any(isinstance(v, gymnasium.Env) for v in value)


# ----------------------------------------------------------------------- play loop
def check_waiting(env: UnoVectorEnv, obs: np.ndarray, mask: np.ndarray, rows: np.ndarray):
    """Games ``rows`` wait for their learner: observation and mask are the core's."""
    state = env.privileged_state
    assert (state.phase[rows] != OVER).all()
    assert (state.actor[rows] == env.seat[rows]).all()
    assert np.array_equal(mask[rows], engine.legal_mask(state)[rows])
    assert mask[rows].any(axis=1).all()
    assert np.array_equal(obs[rows], observe(state, env.seat)[rows])


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 2},
        {"players": 4, "learner_seat": "random"},
        {"preset": "party", "players": 3, "learner_seat": 2},
        {"players": 3, "max_turns": 30},  # truncations
    ],
    ids=["official-2p", "official-4p-random-seat", "party-3p-seat2", "truncating"],
)
def test_autoreset_next_step_masks_and_rewards(kwargs):
    n = 48
    env = UnoVectorEnv(num_envs=n, **kwargs)
    p = env.rules.players
    gen = np.random.default_rng(1)
    obs, info = env.reset(seed=3)
    assert obs.dtype == np.float32 and obs.shape == (n, OBS_SIZE)
    assert env.observation_space.contains(obs)
    check_waiting(env, obs, info["action_mask"], np.arange(n))
    assert info["_action_mask"].all()
    assert np.array_equal(info["learner_seat"], env.seat)
    done = np.zeros(n, bool)
    final_obs = None
    seen_end = seen_trunc = 0
    for _ in range(400):
        actions = pick(info["action_mask"], gen)
        actions[done] = NUM_ACTIONS - 1  # ignored: any in-range action is accepted
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert rewards.dtype == np.float32 and rewards.shape == (n,)
        assert terminated.dtype == bool and truncated.dtype == bool
        assert not (terminated & truncated).any()
        assert env.observation_space.contains(obs)
        mask = info["action_mask"]
        assert mask.dtype == bool and mask.shape == (n, NUM_ACTIONS)
        # the autoreset step of the games that ended last step: reward 0, a fresh first observation
        if done.any():
            assert (rewards[done] == 0).all()
            assert not terminated[done].any() and not truncated[done].any()
            assert (obs[done, PHASE + OVER] == 0).all()
            assert not np.array_equal(obs[done], final_obs[done])
        finished = terminated | truncated
        # finished games: the final observation (phase over), a mask that accepts anything
        assert (obs[finished, PHASE + OVER] == 1).all()
        assert mask[finished].all()
        # the learner's reward against the core's win-loss rule (its hand size is slot 0)
        won = obs[:, HAND_SIZES] == 0
        assert (rewards[terminated & won] == 1).all()
        assert np.allclose(rewards[terminated & ~won], -1 / (p - 1))
        assert (rewards[truncated] == 0).all()
        assert (rewards[~finished] == 0).all()  # round mode: rewards only at the end
        check_waiting(env, obs, mask, np.flatnonzero(~finished))
        # the observation is the learner's view, in the seat of the episode it belongs to
        seats = info["learner_seat"]
        assert np.array_equal(seats[~finished], env.seat[~finished])
        assert (obs[:, SLICES["hand"]].sum(axis=1) == obs[:, HAND_SIZES]).all()
        seen_end += int(terminated.sum())
        seen_trunc += int(truncated.sum())
        done, final_obs = finished, obs
    assert seen_end > 0
    if "max_turns" in kwargs:
        assert seen_trunc > 0


def test_match_episodes_end_at_match_end():
    env = UnoVectorEnv(num_envs=32, preset="kids", hand_size=2, players=3)
    gen = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    ends = 0
    for _ in range(300):
        obs, rewards, terminated, truncated, info = env.step(pick(info["action_mask"], gen))
        assert not truncated.any()
        ends += int(terminated.sum())
        # a match is over only when someone has won 3 rounds (scores are rounds / 3)
        scores = obs[terminated][:, SLICES["scores"]]
        assert (scores.max(axis=1) >= 1).all()
    assert ends > 0


def test_skipped_deals_keep_every_game_waiting_for_the_learner():
    env = UnoVectorEnv(num_envs=64, hand_size=1, players=4, learner_seat="random")
    gen = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    for _ in range(30):
        obs, rewards, terminated, truncated, info = env.step(pick(info["action_mask"], gen))
        live = ~(terminated | truncated)
        check_waiting(env, obs, info["action_mask"], np.flatnonzero(live))
    assert env.skipped_deals > 0


# ------------------------------------------------------------------------ determinism
def run(env: UnoVectorEnv, seed: int, steps: int) -> list:
    gen = np.random.default_rng(7)
    obs, info = env.reset(seed=seed)
    out = [obs]
    for _ in range(steps):
        obs, rewards, terminated, truncated, info = env.step(pick(info["action_mask"], gen))
        out += [obs, rewards, terminated, truncated, info["action_mask"]]
    return out


def test_same_seed_same_games():
    a = run(UnoVectorEnv(num_envs=16, players=3, learner_seat="random"), 5, 120)
    b = run(UnoVectorEnv(num_envs=16, players=3, learner_seat="random"), 5, 120)
    c = run(UnoVectorEnv(num_envs=16, players=3, learner_seat="random"), 6, 120)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], c[0])


def deterministic_policy(mask: np.ndarray, t: int) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[(t * 7919) % legal.size])


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"players": 4, "learner_seat": "random"},
        {"hand_size": 1, "players": 3},  # episodes over before the learner acts
        {"preset": "kids", "hand_size": 1, "players": 4, "match_target": 1},
        {"preset": "kids", "hand_size": 2, "players": 3},  # rewards carried in a match
        {"max_turns": 12},
        {"preset": "house", "reward": "points", "players": 3},
    ],
)
def test_agrees_with_the_single_env(kwargs):
    """UnoEnv and UnoVectorEnv(num_envs=1) draw the same randomness in the same order."""
    single, vec = UnoEnv(**kwargs), UnoVectorEnv(num_envs=1, **kwargs)
    o1, i1 = single.reset(seed=11)
    o2, i2 = vec.reset(seed=11)
    episodes = 0
    for t in range(1500):
        assert np.array_equal(o1, o2[0])
        assert np.array_equal(i1["action_mask"], i2["action_mask"][0])
        assert i1["learner_seat"] == i2["learner_seat"][0]
        a = deterministic_policy(i1["action_mask"], t)
        o1, r1, te1, tr1, i1 = single.step(a)
        o2, r2, te2, tr2, i2 = vec.step(np.array([a]))
        assert np.array_equal(o1, o2[0])
        assert np.float32(r1) == r2[0] and te1 == te2[0] and tr1 == tr2[0]
        if te1 or tr1:
            episodes += 1
            o1, i1 = single.reset()
            o2, r2, te2, tr2, i2 = vec.step(np.array([0]))  # the autoreset step
            assert r2[0] == 0 and not te2[0] and not tr2[0]
    assert episodes > 0
    assert single.skipped_deals == vec.skipped_deals


# -------------------------------------------------------------------------- opponents
def test_batched_opponents_protocol():
    calls = []
    env: UnoVectorEnv

    def make(offset):
        def opponent(observations, masks, rng):
            # the games waiting for an opponent, read from the env's state before the step
            state = env.privileged_state
            waiting = (state.actor != env.seat) & (state.phase != OVER)
            rel = (state.actor.astype(int) - env.seat) % 3
            assert masks.shape[0] == int((waiting & (rel == offset)).sum())
            assert observations.shape == (masks.shape[0], OBS_SIZE)
            assert observations.dtype == np.float32 and masks.dtype == bool
            assert (observations[:, SLICES["actor"].start] == 1).all()  # its own view: it acts
            assert rng is env.np_random
            calls.append(offset)
            return masks.argmax(axis=1)  # first legal action

        return opponent

    env = UnoVectorEnv(num_envs=16, players=3, opponents=[make(1), make(2)])
    obs, info = env.reset(seed=0)
    gen = np.random.default_rng(0)
    for _ in range(20):
        obs, *_, info = env.step(pick(info["action_mask"], gen))
    assert set(calls) == {1, 2}


def test_one_callable_and_needs_observation():
    seen = []

    def blind(observations, masks, rng):
        seen.append(observations)
        return sample_legal_actions(masks, rng)

    blind.needs_observation = False
    env = UnoVectorEnv(num_envs=8, players=4, opponents=blind)
    obs, info = env.reset(seed=0)
    env.step(pick(info["action_mask"], np.random.default_rng(0)))
    assert seen and all(o is None for o in seen)
    assert random_opponent.needs_observation is False


@pytest.mark.parametrize(
    ("returned", "error", "match"),
    [
        (lambda m: m.argmax(axis=1).astype(float), TypeError, "integer actions"),
        (lambda m: m.argmax(axis=1)[:-1], ValueError, "one action per game"),
        (lambda m: np.full(m.shape[0], 80), ValueError, "out of range"),
        (lambda m: (~m).argmax(axis=1), ValueError, "illegal"),
    ],
    ids=["float", "shape", "range", "illegal"],
)
def test_bad_opponent_output(returned, error, match):
    env = UnoVectorEnv(num_envs=8, opponents=lambda o, m, r: returned(m))
    with pytest.raises(error, match=match) as caught:
        env.reset(seed=0)
    assert "opponent" in str(caught.value)


# ------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"num_envs": 0}, ValueError, "num_envs"),
        ({"num_envs": 2_000_000}, ValueError, "num_envs"),
        ({"num_envs": 2.0}, TypeError, "num_envs"),
        ({"num_envs": True}, TypeError, "num_envs"),
        ({"preset": "nonsense"}, RulesError, "unknown preset"),
        ({"preset": 3}, TypeError, "preset"),
        ({"stackign": "any"}, RulesError, "unknown rules key 'stackign'"),
        ({"players": 1}, RulesError, "players"),
        ({"players": 11}, RulesError, "players"),
        ({"players": "3"}, RulesError, "players"),
        ({"learner_seat": 2}, ValueError, "learner_seat"),
        ({"learner_seat": "first"}, ValueError, "learner_seat"),
        ({"learner_seat": 1.0}, TypeError, "learner_seat"),
        ({"opponents": [random_opponent] * 2}, ValueError, "2 players need 1, got 2"),
        ({"opponents": [3]}, TypeError, "not callable"),
        ({"opponents": b"random"}, TypeError, "opponents"),
        ({"opponents": "nobody"}, ValueError, "unknown agent .nobody."),
        ({"render_mode": "human"}, ValueError, "render_mode"),
    ],
)
def test_bad_construction(kwargs, error, match):
    kwargs = {"num_envs": 4, **kwargs}
    with pytest.raises(error, match=match):
        UnoVectorEnv(**kwargs)


def test_bad_actions_name_the_problem_and_change_nothing():
    env = UnoVectorEnv(num_envs=4)
    with pytest.raises(ResetNeeded):
        env.step(np.zeros(4, int))
    obs, info = env.reset(seed=0)
    snapshot = env.privileged_state.copy()
    legal = sample_legal_actions(info["action_mask"], np.random.default_rng(0))
    bad = [
        (legal[:3], ValueError, r"shape \(4,\)"),
        (legal[None, :], ValueError, r"shape \(4,\)"),
        (legal.astype(float), TypeError, "integers"),
        (legal > 0, TypeError, "integers"),
        (["a", "b", "c", "d"], TypeError, "integers"),
        (np.where(np.arange(4) == 2, 77, legal), ValueError, r"game 2: action 77 is out of range"),
        (np.where(np.arange(4) == 1, -1, legal), ValueError, r"game 1: action -1 is out of range"),
    ]
    illegal = legal.copy()
    illegal[3] = np.flatnonzero(~info["action_mask"][3])[0]
    bad.append((illegal, ValueError, rf"game 3: illegal action {illegal[3]} .*legal actions: "))
    for actions, error, match in bad:
        with pytest.raises(error, match=match):
            env.step(actions)
    for name, value in snapshot.arrays().items():
        assert np.array_equal(getattr(env.privileged_state, name), value), name
    env.step(legal)  # still usable
    with pytest.raises(TypeError, match="seed"):
        env.reset(seed=[1, 2, 3, 4])
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"reset_mask": np.ones(4, bool)})


def test_learner_seat_random_is_per_game():
    env = UnoVectorEnv(num_envs=256, players=4, learner_seat="random")
    obs, info = env.reset(seed=0)
    assert set(np.unique(info["learner_seat"])) == {0, 1, 2, 3}
    assert np.array_equal(obs, observe(env.privileged_state, info["learner_seat"]))

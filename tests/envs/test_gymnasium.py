"""The single-agent Gymnasium env ``uno_rl/Uno-v1`` (``uno_rl.envs.gym_env.UnoEnv``):
Gymnasium's ``check_env``, the registry, full games against the core's rules, the
illegal-action policies, the opponents' protocol, seeding, duplicate deals and bad input."""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env

import uno_rl.envs.registration  # noqa: F401  (registers uno_rl/Uno-v1)
from uno_rl.core import OBS_SIZE, RulesError, engine, load_rules
from uno_rl.core.actions import DRAW, NUM_ACTIONS
from uno_rl.core.observe import observe
from uno_rl.core.phases import OVER
from uno_rl.envs import gym_env
from uno_rl.envs.gym_env import UnoEnv, random_opponent, single_opponent
from uno_rl.envs.registration import ENV_ID
from uno_rl.envs.vector import random_opponent as random_batched

ROOT = Path(__file__).resolve().parents[2]
#: The line above the README's Gymnasium example.
README_MARKER = "<!-- example: gymnasium -->"

CHECKED = [
    ("official", 2),
    ("official", 4),
    ("party", 3),
    ("kids", 2),
    ("seven-zero", 10),
    ("house", 5),
]


def pick(mask: np.ndarray, gen: np.random.Generator) -> int:
    """A random legal action, drawing only when nothing else is legal (keeps rounds short)."""
    legal = np.flatnonzero(mask)
    if legal.size > 1:
        legal = legal[legal != DRAW]
    return int(legal[gen.integers(legal.size)])


# ----------------------------------------------------------------- Gymnasium's checker
@pytest.mark.parametrize(("preset", "players"), CHECKED, ids=[f"{p}-{n}p" for p, n in CHECKED])
def test_check_env_passes(preset, players):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(UnoEnv(preset=preset, players=players), skip_render_check=True)
    messages = [str(w.message) for w in caught]
    assert not [m for m in messages if "not able to test alternative render modes" not in m.lower()]


def test_check_env_through_make_checks_the_render_modes(capsys):
    env = gymnasium.make(ENV_ID, players=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert not caught, [str(w.message) for w in caught]
    assert "learner" in capsys.readouterr().out  # the "human" render mode printed


def test_make_passes_arguments_and_rule_overrides():
    env = gymnasium.make(ENV_ID, preset="official", players=3, stacking="any", learner_seat=2)
    raw = env.unwrapped
    assert isinstance(raw, UnoEnv)
    assert raw.rules == load_rules("official", players=3, stacking="any")
    assert env.observation_space == spaces.Box(
        raw.observation_space.low, raw.observation_space.high, dtype=np.float32
    )
    assert env.observation_space.shape == (OBS_SIZE,)
    assert env.action_space == spaces.Discrete(NUM_ACTIONS)
    obs, info = env.reset(seed=0)
    assert info["learner_seat"] == 2
    assert np.array_equal(env.get_wrapper_attr("action_masks")(), info["action_mask"])


# ------------------------------------------------------------------ documented examples
def readme_example(marker: str) -> str:
    """The ```python block right after ``marker`` in README.md."""
    text = (ROOT / "README.md").read_text("utf-8")
    assert marker in text, f"README.md has no {marker}"
    after = text.split(marker, 1)[1].lstrip("\n")
    assert after.startswith("```python\n"), "the marker must sit right above a ```python block"
    return after.removeprefix("```python\n").split("\n```", 1)[0]


def docstring_example(doc: str) -> str:
    """The first literal block (the indented lines after a line ending in ``::``) of a
    docstring."""
    lines = []
    for line in doc.split("::\n\n", 1)[1].splitlines():
        if line.strip() and not line.startswith(" "):
            break
        lines.append(line)
    return textwrap.dedent("\n".join(lines))


def run_example(code: str) -> dict:
    """Run an example as a script; its names afterwards."""
    names: dict = {"__name__": "__example__"}
    exec(compile(code, "<example>", "exec"), names)
    return names


def test_readme_gymnasium_example_runs(capsys):
    names = run_example(readme_example(README_MARKER))
    env = names["env"]
    assert isinstance(env.unwrapped, UnoEnv) and env is not env.unwrapped
    assert names["terminated"] or names["truncated"]
    assert "reward" in capsys.readouterr().out


def test_module_docstring_gymnasium_example_runs():
    code = docstring_example(gym_env.__doc__)
    assert "gymnasium.make" in code
    names = run_example(code)
    assert np.array_equal(names["env"].unwrapped.action_masks(), names["info"]["action_mask"])


# ------------------------------------------------------------------------- full games
@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 2},
        {"players": 4, "learner_seat": "random"},
        {"preset": "party", "players": 3},
        {"players": 3, "max_turns": 25},
    ],
    ids=["official-2p", "official-4p-random-seat", "party-3p", "truncating"],
)
def test_full_games_follow_the_core(kwargs):
    env = UnoEnv(**kwargs)
    p = env.rules.players
    gen = np.random.default_rng(0)
    obs, info = env.reset(seed=1)
    episodes = truncations = 0
    for _ in range(3000):
        state, seat, mask = env.privileged_game.state, env.learner_seat, info["action_mask"]
        # the learner is to act: observation and mask are the core's for its seat
        assert state.actor[0] == seat and state.phase[0] != OVER
        assert mask.dtype == bool and mask.shape == (NUM_ACTIONS,) and mask.any()
        assert np.array_equal(mask, engine.legal_mask(state)[0])
        assert np.array_equal(mask, env.action_masks())
        assert np.array_equal(obs, observe(state, seat)[0])
        assert env.observation_space.contains(obs)
        obs, reward, terminated, truncated, info = env.step(pick(mask, gen))
        assert isinstance(reward, float)
        assert type(terminated) is bool and type(truncated) is bool
        assert env.observation_space.contains(obs)
        if not (terminated or truncated):
            assert reward == 0.0
            continue
        # the end: the core's win-loss reward for the learner's seat
        assert not info["action_mask"].any() and not env.action_masks().any()
        assert env.privileged_game.state.phase[0] == OVER
        winner = info["winner"]
        if truncated:
            assert reward == 0.0 and winner == -1
            truncations += 1
        else:
            assert reward == pytest.approx(1.0 if winner == seat else -1.0 / (p - 1))
        with pytest.raises(ResetNeeded):
            env.step(0)
        episodes += 1
        obs, info = env.reset()
    assert episodes > 0
    if "max_turns" in kwargs:
        assert truncations > 0


def test_match_mode_ends_at_the_match():
    env = UnoEnv(preset="kids", players=3, hand_size=3)
    gen = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    ended = False
    for _ in range(5000):
        obs, reward, terminated, truncated, info = env.step(pick(info["action_mask"], gen))
        assert not truncated
        if terminated:
            ended = True
            assert info["match_winner"] >= 0 and info["scores"].max() == 3
            assert info["scores"].shape == (3,)
            obs, info = env.reset()
    assert ended


def test_episodes_that_end_before_the_learner_acts_are_dealt_again():
    env = UnoEnv(hand_size=1, players=4, learner_seat=3)
    obs, info = env.reset(seed=0)
    for _ in range(60):
        assert info["action_mask"].any() and env.privileged_game.state.phase[0] != OVER
        assert env.privileged_game.actor == 3
        obs, info = env.reset()
    assert env.skipped_deals > 0


# -------------------------------------------------------------------- illegal actions
def test_penalize_ends_the_episode_and_leaves_the_game():
    env = UnoEnv()
    obs, info = env.reset(seed=0)
    snapshot = env.privileged_game.state.copy()
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    obs2, reward, terminated, truncated, info2 = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info2["illegal_action"] is True and not info2["action_mask"].any()
    assert np.array_equal(obs, obs2)
    for name, value in snapshot.arrays().items():
        assert np.array_equal(getattr(env.privileged_game.state, name), value), name
    with pytest.raises(ResetNeeded, match="episode is over"):
        env.step(int(np.flatnonzero(info["action_mask"])[0]))
    env = UnoEnv(illegal_reward=-5)
    obs, info = env.reset(seed=0)
    assert env.step(int(np.flatnonzero(~info["action_mask"])[0]))[1] == -5.0


def test_raise_names_the_action_and_changes_nothing():
    env = UnoEnv(illegal_action="raise")
    obs, info = env.reset(seed=0)
    snapshot = env.privileged_game.state.copy()
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    with pytest.raises(ValueError, match=rf"illegal action {illegal} .*legal actions: "):
        env.step(illegal)
    for name, value in snapshot.arrays().items():
        assert np.array_equal(getattr(env.privileged_game.state, name), value), name
    env.step(int(np.flatnonzero(info["action_mask"])[0]))  # still playable


@pytest.mark.parametrize(
    ("action", "error", "match"),
    [
        (77, ValueError, "out of range"),
        (-1, ValueError, "out of range"),
        (np.int64(200), ValueError, "out of range"),
        (1.0, TypeError, "integer"),
        ("3", TypeError, "integer"),
        (None, TypeError, "integer"),
        (True, TypeError, "integer"),
        (np.array([1, 2]), ValueError, "single integer"),
        (np.array(1.5), TypeError, "integer"),
    ],
)
def test_malformed_actions_raise_under_both_policies(action, error, match):
    for policy in ("penalize", "raise"):
        env = UnoEnv(illegal_action=policy)
        env.reset(seed=0)
        with pytest.raises(error, match=match):
            env.step(action)


def test_numpy_and_0d_actions_are_accepted():
    env = UnoEnv()
    obs, info = env.reset(seed=0)
    a = int(np.flatnonzero(info["action_mask"])[0])
    env.step(np.array(a))
    env.reset(seed=0)
    env.step(np.int8(a))


# -------------------------------------------------------------------------- opponents
def test_opponents_protocol_per_seat():
    env: UnoEnv
    calls: list[tuple[int, int]] = []

    def make(offset: int):
        def opponent(observation, action_mask, rng):
            game = env.privileged_game
            assert (game.actor - env.learner_seat) % 3 == offset  # it sits where it should
            assert observation.shape == (OBS_SIZE,) and observation.dtype == np.float32
            assert np.array_equal(observation, game.observe(game.actor))  # its own view
            assert action_mask.dtype == bool and action_mask.shape == (NUM_ACTIONS,)
            assert np.array_equal(action_mask, game.legal_mask().astype(bool))
            assert rng is env.np_random
            calls.append((offset, game.actor))
            return int(np.flatnonzero(action_mask)[0])

        return opponent

    env = UnoEnv(players=3, learner_seat="random", opponents=[make(1), make(2)])
    gen = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    for _ in range(200):
        obs, reward, terminated, truncated, info = env.step(pick(info["action_mask"], gen))
        if terminated or truncated:
            obs, info = env.reset()
    assert {offset for offset, _ in calls} == {1, 2}


def test_batched_agents_adapt_and_blind_opponents_get_no_observation():
    seen = []

    def batched(observations, masks, rng):
        seen.append(observations)
        assert masks.shape == (1, NUM_ACTIONS)
        return random_batched(observations, masks, rng)

    batched.needs_observation = False
    env = UnoEnv(players=3, opponents=single_opponent(batched))
    gen = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    for _ in range(10):
        env.step(pick(info["action_mask"], gen))
        obs, info = env.reset()
    assert seen and all(o is None for o in seen)
    assert random_opponent.needs_observation is False


@pytest.mark.parametrize(
    ("returned", "error", "match"),
    [
        (lambda m: 2.5, TypeError, "opponent 0 .*bad action"),
        (lambda m: 99, ValueError, "opponent 0 .*out of range"),
        (lambda m: int(np.flatnonzero(~m)[0]), ValueError, "opponent 0 .*illegal action"),
    ],
)
def test_bad_opponent_actions_name_the_opponent(returned, error, match):
    env = UnoEnv(learner_seat="random", opponents=lambda o, m, r: returned(m))
    with pytest.raises(error, match=match):
        for seed in range(20):  # some deal lets the opponent act first
            obs, info = env.reset(seed=seed)
            env.step(int(np.flatnonzero(info["action_mask"])[-1]))


# ---------------------------------------------------------------- seeding, duplicates
def play(env: UnoEnv, seed: int, steps: int) -> list:
    gen = np.random.default_rng(3)
    obs, info = env.reset(seed=seed)
    out = [obs]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(pick(info["action_mask"], gen))
        out += [obs, reward, terminated]
        if terminated or truncated:
            obs, info = env.reset()
            out.append(obs)
    return out


def test_same_seed_same_game():
    a = play(UnoEnv(players=3, learner_seat="random"), 4, 300)
    b = play(UnoEnv(players=3, learner_seat="random"), 4, 300)
    c = play(UnoEnv(players=3, learner_seat="random"), 5, 300)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], c[0])


def first_legal(observation, action_mask, rng) -> int:
    return int(np.flatnonzero(action_mask)[0])


def test_duplicate_deals_and_learner_seat_option():
    env = UnoEnv(players=3, opponents=first_legal)  # deterministic: a deal replays exactly
    obs, info = env.reset(seed=9)
    assert "deal_seed" not in info  # hidden: it rebuilds every hand (privileged only)
    deal = env.privileged_deal_seed
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    again, info2 = env.reset(options={"deal_seed": deal})
    assert env.privileged_deal_seed == deal and np.array_equal(obs, again)
    for seat in range(3):  # the same deal with the learner in every seat
        obs, info = env.reset(options={"deal_seed": deal, "learner_seat": seat})
        assert info["learner_seat"] == seat == env.learner_seat == env.privileged_game.actor
        assert env.privileged_deal_seed == deal == int(env.privileged_game.state.key[0])
    with pytest.raises(ValueError, match="unknown reset options"):
        env.reset(options={"deal": 3})
    with pytest.raises(ValueError, match="learner_seat"):
        env.reset(options={"learner_seat": 3})


def test_render_ansi():
    env = UnoEnv(players=3, render_mode="ansi", learner_seat=1)
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "learner" in text and "legal:" in text
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert UnoEnv().render() is None


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"preset": "nonsense"}, RulesError, "unknown preset 'nonsense'; available presets"),
        ({"preset": None}, TypeError, "preset"),
        ({"stackign": "any"}, RulesError, "unknown rules key 'stackign'"),
        ({"stacking": "all"}, RulesError, "stacking"),
        ({"players": 1}, RulesError, r"players.*\[2, 10\]"),
        ({"players": 11}, RulesError, r"players.*\[2, 10\]"),
        ({"players": 2.0}, RulesError, "players"),
        ({"learner_seat": 2}, ValueError, r"learner_seat must be in \[0, 2\)"),
        ({"learner_seat": -1}, ValueError, "learner_seat"),
        ({"learner_seat": "any"}, ValueError, "learner_seat"),
        ({"opponents": [random_opponent] * 3, "players": 3}, ValueError, "3 players need 2, got 3"),
        ({"opponents": 5}, TypeError, "opponents"),
        ({"opponents": [None]}, TypeError, r"opponents\[0\] is not callable"),
        ({"illegal_action": "ignore"}, ValueError, "illegal_action"),
        ({"illegal_reward": "low"}, TypeError, "illegal_reward"),
        ({"illegal_reward": float("nan")}, ValueError, "illegal_reward"),
        ({"render_mode": "rgb"}, ValueError, "render_mode"),
    ],
)
def test_bad_construction(kwargs, error, match):
    with pytest.raises(error, match=match):
        UnoEnv(**kwargs)
    if "preset" not in kwargs or isinstance(kwargs.get("preset"), str):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # make() warns about an unknown render mode first
            with pytest.raises(error, match=match):
                gymnasium.make(ENV_ID, **kwargs)


def test_step_before_reset():
    env = UnoEnv()
    with pytest.raises(ResetNeeded):
        env.step(0)
    with pytest.raises(ResetNeeded):
        env.action_masks()

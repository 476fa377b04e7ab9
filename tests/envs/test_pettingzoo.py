"""The PettingZoo AEC env ``uno_rl.envs.uno_v1``: PettingZoo's own conformance suites for every
preset and player count, the registry, rendering, the illegal-action policies, bad input,
full games (zero-sum rewards, episode ends, matches, truncation) and seeding."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

import uno_rl.envs
from uno_rl.core import OBS_SIZE, RulesError, action_name, available_presets, load_rules
from uno_rl.core.actions import DRAW, NUM_ACTIONS
from uno_rl.core.cards import COLOR_NAMES, card_name
from uno_rl.core.observe_layout import PIECES
from uno_rl.envs import uno_v1
from uno_rl.envs.game import SingleGame, check_action
from uno_rl.render.text import strip_ansi

PRESETS = available_presets()

#: Warnings PettingZoo's api_test raises for any env that is not on its own lists of names
#: (dict observations are expected for classic card games) or for a terminated agent's mask.
KNOWN_WARNINGS = (
    "Observation space for each agent probably should be",
    "Observation is not a NumPy array",
    "Action mask numpy array is all zeros",
)

#: (preset, players): every preset at 2 players and at one other count, official at 2-4 and 10.
CONFIGS = sorted(
    {(preset, 2) for preset in PRESETS}
    | {("official", n) for n in (3, 4, 10)}
    | {(preset, (3, 5, 6, 7, 8, 10)[i % 6]) for i, preset in enumerate(PRESETS)}
)


def _ids(config: tuple[str, int]) -> str:
    return f"{config[0]}-{config[1]}p"


def check_no_unexpected_warnings(caught: list[warnings.WarningMessage]) -> None:
    unexpected = [str(w.message) for w in caught if not str(w.message).startswith(KNOWN_WARNINGS)]
    assert not unexpected, unexpected


def pick(mask: np.ndarray, gen: np.random.Generator, prefer_play: bool) -> int:
    """A random legal action; with ``prefer_play`` drawing only when nothing else is legal
    (uniformly random play draws so often that many rounds reach ``max_turns``)."""
    legal = np.flatnonzero(mask)
    if prefer_play and legal.size > 1:
        legal = legal[legal != DRAW]
    return int(legal[gen.integers(legal.size)])


def play_random(aec, seed: int, action_seed: int = 0, prefer_play: bool = True) -> dict:
    """Play one episode with random legal actions; what happened."""
    gen = np.random.default_rng(action_seed)
    aec.reset(seed=seed)
    totals = dict.fromkeys(aec.possible_agents, 0.0)
    trajectory = []
    steps = 0
    for agent in aec.agent_iter():
        obs, reward, termination, truncation, info = aec.last()
        totals[agent] += reward
        if termination or truncation:
            action = None
        else:
            action = pick(obs["action_mask"], gen, prefer_play)
            steps += 1
        trajectory.append((agent, action, reward, obs["observation"].tobytes()))
        aec.step(action)
    return {"totals": totals, "trajectory": trajectory, "steps": steps, "info": info}


# ------------------------------------------------------------ conformance suites
@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
def test_pettingzoo_api_test(config):
    preset, players = config
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(uno_v1.env(preset=preset, players=players), num_cycles=1000)
    check_no_unexpected_warnings(caught)


@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
def test_pettingzoo_seed_test(config):
    preset, players = config
    seed_test(lambda: uno_v1.env(preset=preset, players=players), num_cycles=500)
    # Unmasked random actions for every agent: the first illegal one ends the game,
    # identically in both copies.
    parallel_seed_test(lambda: uno_v1.parallel_env(preset=preset, players=players))


@pytest.mark.parametrize("config", CONFIGS, ids=_ids)
def test_pettingzoo_parallel_api_test(config):
    preset, players = config
    par = uno_v1.parallel_env(preset=preset, players=players)
    assert isinstance(par, turn_based_aec_to_parallel_wrapper)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(par, num_cycles=1000)
    check_no_unexpected_warnings(caught)


def test_raw_env_passes_api_test():
    """The raw env alone (masked actions only) is a conformant AEC env too."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(uno_v1.raw_env(players=3), num_cycles=1000)
    check_no_unexpected_warnings(caught)


# -------------------------------------------------------------- module, registry
def test_module_exports_and_metadata():
    assert callable(uno_v1.env) and callable(uno_v1.parallel_env)
    raw = uno_v1.raw_env()
    assert isinstance(raw, pettingzoo.AECEnv)
    assert raw.metadata["name"] == "uno_v1"
    assert raw.metadata["render_modes"] == ["human", "ansi", "rgb_array"]
    assert raw.metadata["is_parallelizable"] is False  # turn-based: parallel view only
    wrapped = uno_v1.env()
    assert isinstance(wrapped.unwrapped, uno_v1.raw_env)
    assert str(wrapped) == "uno_v1"


@pytest.mark.parametrize("env_id", ["uno_rl/uno-v1", "uno_rl/uno_v1", "uno_rl/uno"])
def test_registry(env_id):
    assert uno_rl.envs.ENV_ID == "uno_rl/uno-v1"
    aec = pettingzoo.make("aec", env_id, players=3, preset="party")
    assert isinstance(aec.unwrapped, uno_v1.raw_env)
    assert aec.unwrapped.rules == load_rules("party", players=3)
    aec.reset(seed=0)
    assert aec.possible_agents == ["player_0", "player_1", "player_2"]
    par = pettingzoo.make("parallel", env_id, players=4)
    assert isinstance(par, pettingzoo.ParallelEnv)
    observations, infos = par.reset(seed=0)
    assert set(observations) == set(par.possible_agents) == set(infos)


def test_registry_unknown_argument_is_a_clear_error():
    with pytest.raises(RulesError, match="unknown rules key 'max_cycles'"):
        pettingzoo.make("aec", "uno_rl/uno-v1", max_cycles=100)


# -------------------------------------------------------------- construction
def test_spaces():
    raw = uno_v1.raw_env(players=5)
    assert raw.possible_agents == [f"player_{k}" for k in range(5)]
    for agent in raw.possible_agents:
        space = raw.observation_space(agent)
        assert space is raw.observation_space(agent)
        assert space["observation"].shape == (OBS_SIZE,)
        assert space["observation"].dtype == np.float32
        assert space["action_mask"].shape == (NUM_ACTIONS,)
        assert space["action_mask"].dtype == np.int8
        assert raw.action_space(agent).n == NUM_ACTIONS
    assert raw.action_space("player_0") is not raw.action_space("player_1")  # seeded apart


def test_rules_object_and_toml_path_and_overrides(tmp_path):
    rules = load_rules("official", players=3)
    raw = uno_v1.raw_env(preset=rules)
    assert raw.rules is rules
    raw = uno_v1.raw_env(preset=rules, players=4, stacking="any")
    assert raw.rules == load_rules("official", players=4, stacking="any")
    path = tmp_path / "mine.toml"
    path.write_text('description = "x"\n[rules]\nseven_zero = true\nplayers = 6\n')
    raw = uno_v1.raw_env(preset=str(path))
    assert raw.rules.seven_zero and raw.rules.players == 6
    assert uno_v1.raw_env(preset=path, players=3).rules.players == 3  # a Path works too


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        ({"preset": "nope"}, RulesError, "unknown preset 'nope'; available presets: .*official"),
        ({"stackin": "any"}, RulesError, "unknown rules key 'stackin' .*did you mean 'stacking'"),
        ({"stacking": "all"}, RulesError, "rules key 'stacking' must be one of"),
        ({"players": 1}, RulesError, r"rules key 'players' must be in \[2, 10\], got 1"),
        ({"players": 11}, RulesError, r"rules key 'players' must be in \[2, 10\], got 11"),
        ({"players": "3"}, RulesError, "rules key 'players' must be an integer"),
        ({"players": 2.5}, RulesError, "rules key 'players' must be an integer"),
        ({"preset": 3}, TypeError, "preset must be a preset name"),
        ({"render_mode": "rgb"}, ValueError, "render_mode must be None or one of"),
    ],
)
def test_bad_construction(kwargs, error, pattern):
    for make in (uno_v1.raw_env, uno_v1.env, uno_v1.parallel_env):
        with pytest.raises(error, match=pattern):
            make(**kwargs)


def test_rules_error_is_a_value_error():
    assert issubclass(RulesError, ValueError)


# ------------------------------------------------------------------- bad actions
BAD_ACTIONS = [
    (77, ValueError, r"action 77 is out of range \[0, 77\)"),
    (-1, ValueError, r"action -1 is out of range \[0, 77\)"),
    (np.int64(1000), ValueError, r"action 1000 is out of range"),
    (3.0, TypeError, r"action must be an integer in \[0, 77\), got float 3.0"),
    (np.float32(2), TypeError, "got float32"),
    ("draw", TypeError, "got str 'draw'"),
    (True, TypeError, "got bool True"),
    (np.array([60, 61]), ValueError, r"got an array of shape \(2,\)"),
    (np.array([60]), ValueError, r"got an array of shape \(1,\)"),
    (np.array(60.0), TypeError, "0-d array of dtype float64"),
    ([60], TypeError, r"got list \[60\]"),
]


@pytest.mark.parametrize("make", [uno_v1.raw_env, uno_v1.env], ids=["raw_env", "env"])
@pytest.mark.parametrize("action, error, pattern", BAD_ACTIONS, ids=lambda x: repr(x)[:20])
def test_bad_action_types_and_ranges(make, action, error, pattern):
    aec = make(players=3)
    aec.reset(seed=0)
    before = aec.observe(aec.agent_selection)
    with pytest.raises(error, match=pattern):
        aec.step(action)
    # Nothing happened: same agent, same observation, nobody terminated.
    after = aec.observe(aec.agent_selection)
    assert np.array_equal(before["observation"], after["observation"])
    assert not any(aec.terminations.values()) and not any(aec.truncations.values())


@pytest.mark.parametrize("make", [uno_v1.raw_env, uno_v1.env], ids=["raw_env", "env"])
def test_none_for_a_live_agent_is_a_type_error(make):
    aec = make()
    aec.reset(seed=0)
    with pytest.raises(TypeError, match="got NoneType None"):
        aec.step(None)


def test_integer_flavours_are_accepted():
    for action in (DRAW, np.int8(DRAW), np.int32(DRAW), np.uint64(DRAW), np.array(DRAW)):
        assert check_action(action) == DRAW
    aec = uno_v1.env()
    aec.reset(seed=0)
    aec.step(np.int32(DRAW))  # drawing is always legal in the play phase


def first_illegal(aec) -> int:
    obs = aec.observe(aec.agent_selection)
    return int(np.flatnonzero(obs["action_mask"] == 0)[0])


def test_raw_env_raises_on_illegal_action_and_leaves_the_game_untouched():
    raw = uno_v1.raw_env(players=3)
    raw.reset(seed=5)
    agent = raw.agent_selection
    before = raw.observe(agent)
    action = first_illegal(raw)
    pattern = re.escape(f"illegal action {action} ({action_name(action)}) for seat ")
    with pytest.raises(ValueError, match=pattern + ".*legal actions: .*60 \\(draw\\)"):
        raw.step(action)
    after = raw.observe(agent)
    assert raw.agent_selection == agent
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])
    raw.step(DRAW)  # and the game goes on


def test_env_terminates_the_offender_with_minus_one():
    aec = uno_v1.env(players=4)
    aec.reset(seed=5)
    offender = aec.agent_selection
    aec.step(first_illegal(aec))
    # PettingZoo 1.27's TerminateIllegalWrapper: every agent terminated and truncated,
    # -1 for the offender, 0 for the others.
    assert all(aec.terminations.values()) and all(aec.truncations.values())
    assert aec.rewards == {a: (-1.0 if a == offender else 0) for a in aec.possible_agents}
    seen = {}
    for agent in aec.agent_iter():
        _, reward, termination, truncation, _ = aec.last()
        assert termination and truncation
        seen[agent] = reward
        aec.step(None)
    assert seen == {a: (-1.0 if a == offender else 0) for a in aec.possible_agents}
    assert aec.agents == []


def test_dead_agent_must_step_none():
    aec = uno_v1.env()
    aec.reset(seed=5)
    aec.step(first_illegal(aec))
    with pytest.raises(ValueError, match="only valid action is None"):
        aec.step(DRAW)


# ---------------------------------------------------------------------- render
def test_render_ansi_shows_the_table():
    aec = uno_v1.env(players=3, render_mode="ansi")
    aec.reset(seed=2)
    text = aec.render()
    assert isinstance(text, str)
    assert "\x1b[" in text  # colored
    plain = strip_ansi(text)
    state = aec.unwrapped.privileged_game.state
    assert f"top card: [{card_name(int(state.top[0]))}]" in plain
    assert f"color: {COLOR_NAMES[int(state.color[0])]}" in plain
    assert "direction: clockwise" in plain
    for seat in range(3):
        size = int(state.hand_size[0, seat])
        assert re.search(rf"player_{seat}\s+{size} cards", plain), plain
    actor = aec.agent_selection
    assert re.search(rf"> {actor}\s+\d+ cards\s+to act, phase '\w+'", plain)
    assert f"hand of {actor}:" in plain and "legal: " in plain
    # After some play the table follows the game, reverse and all.
    gen = np.random.default_rng(0)
    for _ in range(40):
        obs, _, termination, truncation, _ = aec.last()
        if termination or truncation:
            break
        legal = np.flatnonzero(obs["action_mask"])
        aec.step(int(legal[gen.integers(legal.size)]))
        plain = strip_ansi(aec.render())
        state = aec.unwrapped.privileged_game.state  # a fresh snapshot of the game
        direction = "clockwise" if state.direction[0] > 0 else "counter-clockwise"
        assert f"direction: {direction} " in plain
        assert f"draw pile: {int(state.pile_size[0])} " in plain


def test_render_human_prints(capsys):
    aec = uno_v1.env(players=2, render_mode="human")
    aec.reset(seed=3)
    printed = strip_ansi(capsys.readouterr().out)
    assert "top card: [" in printed and "player_1" in printed
    assert aec.render() is None
    assert "direction: " in strip_ansi(capsys.readouterr().out)
    aec.step(DRAW)
    assert "decision 1" in strip_ansi(capsys.readouterr().out)


def test_render_end_of_round():
    aec = uno_v1.env(players=2, render_mode="ansi")
    result = play_random(aec, seed=4)
    plain = strip_ansi(aec.render())
    assert f"round over: {result['info']['winner']} wins" in plain


def test_render_without_mode_warns():
    aec = uno_v1.env()
    aec.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert aec.render() is None


# ----------------------------------------------------------------- full games
@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 2},
        {"players": 3, "reward": "points"},
        {"players": 10},
        {"preset": "party", "players": 4, "reward": "points"},
        {"preset": "house", "players": 5},
    ],
    ids=lambda k: "-".join(f"{v}" for v in k.values()),
)
def test_full_random_game_is_zero_sum(kwargs):
    aec = uno_v1.env(**kwargs)
    for seed in range(3):
        result = play_random(aec, seed=seed, action_seed=seed)
        totals = result["totals"]
        assert abs(sum(totals.values())) < 1e-4
        info = result["info"]
        assert set(info) == {"winner", "points", "truncated", "decisions"}
        assert info["decisions"] == result["steps"]
        if info["truncated"]:
            assert all(v == 0 for v in totals.values())
        else:
            winner = info["winner"]
            assert totals[winner] == max(totals.values()) > 0
            if aec.unwrapped.rules.reward == "win-loss":
                assert totals[winner] == 1.0
            else:
                assert totals[winner] == info["points"]
        assert aec.agents == []


def test_parallel_env_full_game_is_zero_sum():
    par = uno_v1.parallel_env(players=3)
    observations, infos = par.reset(seed=1)
    gen = np.random.default_rng(1)
    totals = dict.fromkeys(par.possible_agents, 0.0)
    actor = next(a for a, o in observations.items() if o["action_mask"].any())
    while par.agents:
        actions = {actor: pick(observations[actor]["action_mask"], gen, True)}
        observations, rewards, terminations, truncations, infos = par.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
        if par.agents:
            actor = infos[par.agents[0]]["active_agent"]
    assert abs(sum(totals.values())) < 1e-6 and max(totals.values()) == 1.0


def test_match_mode_pays_every_round_and_ends_with_the_match():
    aec = uno_v1.env(preset="kids", players=3)
    gen = np.random.default_rng(0)
    aec.reset(seed=0)
    paid_rounds = 0
    totals = dict.fromkeys(aec.possible_agents, 0.0)
    for agent in aec.agent_iter():
        obs, reward, termination, truncation, info = aec.last()
        totals[agent] += reward
        if termination or truncation:
            aec.step(None)
            continue
        aec.step(pick(obs["action_mask"], gen, True))
        if any(aec.rewards.values()):
            paid_rounds += 1
    assert info["rounds"] == paid_rounds >= 3
    assert max(info["scores"].values()) == 3  # kids: first to win 3 rounds
    assert info["scores"][info["match_winner"]] == 3
    assert abs(sum(totals.values())) < 1e-4


def test_truncation_at_max_turns():
    aec = uno_v1.env(players=4, max_turns=10)
    result = play_random(aec, seed=0)
    info = result["info"]
    assert info["truncated"] and info["winner"] is None and result["steps"] == 10
    assert all(v == 0 for v in result["totals"].values())


def test_truncated_flags():
    aec = uno_v1.raw_env(players=2, max_turns=10)
    aec.reset(seed=0)
    gen = np.random.default_rng(0)
    while not any(aec.truncations.values()):
        mask = aec.observe(aec.agent_selection)["action_mask"]
        legal = np.flatnonzero(mask)
        aec.step(int(legal[gen.integers(legal.size)]))
    assert all(aec.truncations.values()) and not any(aec.terminations.values())


def test_observations_are_own_views_and_masks_only_for_the_actor():
    aec = uno_v1.env(players=4)
    aec.reset(seed=9)
    raw = aec.unwrapped
    for agent in aec.possible_agents:
        obs = aec.observe(agent)
        assert aec.observation_space(agent).contains(obs)
        seat = int(agent.split("_")[1])
        assert np.array_equal(obs["observation"][:54], raw.privileged_game.state.hands[0, seat])
        if agent == aec.agent_selection:
            assert np.array_equal(obs["action_mask"], raw.privileged_game.legal_mask())
        else:
            assert not obs["action_mask"].any()
    with pytest.raises(ValueError, match="unknown agent 'player_9'"):
        aec.observe("player_9")


def test_observations_are_fresh_arrays():
    aec = uno_v1.env()
    aec.reset(seed=0)
    first = aec.observe(aec.agent_selection)
    kept = {k: v.copy() for k, v in first.items()}
    first["action_mask"][:] = 0  # the caller may scribble on what it got
    again = aec.observe(aec.agent_selection)
    assert np.array_equal(again["action_mask"], kept["action_mask"])
    aec.step(DRAW)
    assert np.array_equal(first["observation"], kept["observation"])


# --------------------------------------------------------------------- seeding
def test_same_seed_same_trajectory_and_different_seed_differs():
    for kwargs in ({"players": 2}, {"preset": "party", "players": 5}):
        a = play_random(uno_v1.env(**kwargs), seed=7, action_seed=3, prefer_play=False)
        b = play_random(uno_v1.env(**kwargs), seed=7, action_seed=3, prefer_play=False)
        assert a["trajectory"] == b["trajectory"]
        c = play_random(uno_v1.env(**kwargs), seed=8, action_seed=3, prefer_play=False)
        assert a["trajectory"][0] != c["trajectory"][0]


def test_reset_without_seed_continues_the_stream():
    aec = uno_v1.raw_env()
    aec.reset(seed=3)
    first = aec.observe("player_0")["observation"]
    aec.reset()
    second = aec.observe("player_0")["observation"]
    aec.reset(seed=3)
    assert np.array_equal(aec.observe("player_0")["observation"], first)
    assert not np.array_equal(first, second)


def test_deal_seed_option_replays_a_deal():
    aec = uno_v1.raw_env(players=3)
    aec.reset(seed=0, options={"deal_seed": 12345})
    assert aec.privileged_game.deal_seed == 12345
    first = [aec.observe(a)["observation"] for a in aec.possible_agents]
    aec.reset(seed=99, options={"deal_seed": 12345, "other": 1})
    assert all(
        np.array_equal(x, aec.observe(a)["observation"]) for x, a in zip(first, aec.possible_agents)
    )


def test_bad_seed_is_a_clear_error():
    aec = uno_v1.raw_env()
    with pytest.raises(Exception, match="Seed must be"):
        aec.reset(seed=-1)


# ------------------------------------------------------------------ SingleGame
def test_single_game_facade():
    game = SingleGame(load_rules("official", players=3))
    with pytest.raises(RuntimeError, match="reset"):
        game.legal_mask()
    game.reset(np.random.default_rng(0))
    mask = game.legal_mask()
    assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
    assert game.legal_mask() is mask  # cached for the decision
    with pytest.raises(ValueError):
        mask[0] = 1  # read-only
    assert game.phase_name == "play" and not game.over
    assert game.observe(game.actor).shape == (OBS_SIZE,)
    result = game.step(DRAW)
    assert len(result.rewards) == 3 and not result.round_over
    assert game.legal_mask() is not mask
    with pytest.raises(TypeError, match="uno_rl.core.Rules"):
        SingleGame("official")


def test_single_game_over_raises():
    game = SingleGame(load_rules("official", max_turns=10))
    game.reset(np.random.default_rng(0))
    while not game.over:
        game.step(game.legal_actions()[0])
    assert not game.legal_mask().any()
    with pytest.raises(ValueError, match="the game is over; call reset"):
        game.step(DRAW)


# ------------------------------------------------------------------------ docs
def test_docstring_is_the_documentation_page():
    doc = uno_v1.__doc__
    for name, size in PIECES:
        assert re.search(rf"\| `{name}`\s+\| {size}\s+\|", doc), name
    assert re.search(rf"`?float32`? vector of {OBS_SIZE} values", doc)
    # The switches and presets are listed from the code elsewhere, never copied here.
    for name in (*PRESETS, "stacking", "jump_in", "caught_bluffer"):
        assert f"| `{name}`" not in doc, name
    words = " ".join(doc.split())
    assert "uno_rl presets" in words and "Rules and switches" in words
    for heading in (
        "Action space",
        "Observation space",
        "Rewards",
        "Rule switches",
        "Version history",
    ):
        assert f"### {heading}" in doc
    assert "* v1: first release" in doc
    for action in (0, 51, 52, 55, 56, 59, 60, 61, 62, 63, 64, 72, 73, 76):
        assert re.search(rf"\b{action}\b", doc)


def test_env_pickles_and_deep_copies_mid_game():
    import copy
    import pickle

    aec = uno_v1.env(players=3)
    aec.reset(seed=0)
    aec.step(DRAW)
    for clone in (pickle.loads(pickle.dumps(aec)), copy.deepcopy(aec)):
        assert clone.agent_selection == aec.agent_selection
        for agent in aec.possible_agents:
            ours, theirs = aec.observe(agent), clone.observe(agent)
            assert np.array_equal(ours["observation"], theirs["observation"])
            assert np.array_equal(ours["action_mask"], theirs["action_mask"])

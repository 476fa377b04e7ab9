"""Bad input gives clear errors: illegal or malformed actions, finished games, bad seeds,
invalid rules and presets. The engine leaves the state untouched; the reference agrees."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

from uno_rl.core import Rules, RulesError, engine, load_rules, observe
from uno_rl.core.actions import DRAW, NUM_ACTIONS, action_name
from uno_rl.core.phases import OVER
from uno_rl.core.reference import ReferenceGame
from uno_rl.core.state import State

SEEDS = np.array([11, 22, 33, 44, 55, 66], dtype=np.uint64)


def assert_states_equal(a: State, b: State) -> None:
    assert a.rules == b.rules
    for name, array in a.arrays().items():
        assert np.array_equal(array, getattr(b, name)), name


def mid_game(rules: Rules | None = None, steps: int = 5) -> State:
    rules = rules or load_rules("official", players=3)
    state = engine.reset(rules, SEEDS)
    gen = np.random.default_rng(0)
    for _ in range(steps):
        state_mask = engine.legal_mask(state)
        engine.step(state, engine.sample_legal_actions(state_mask, gen))
    assert not (state.phase == OVER).any()
    return state


def legal_default(state: State) -> np.ndarray:
    """A legal action in every game (the first legal one)."""
    return engine.legal_mask(state).argmax(axis=1)


# ------------------------------------------------------------ illegal actions


@pytest.mark.parametrize("game", [0, 3, 5])
def test_illegal_action_names_game_action_and_legal_actions(game):
    state = mid_game()
    mask = engine.legal_mask(state)
    actions = legal_default(state)
    illegal = int(np.flatnonzero(~mask[game])[0])
    actions[game] = illegal
    before = state.copy()
    with pytest.raises(ValueError) as info:
        engine.step(state, actions)
    message = str(info.value)
    assert f"game {game}" in message
    assert f"illegal action {illegal}" in message
    assert action_name(illegal) in message
    legal = np.flatnonzero(mask[game])
    assert "legal actions" in message
    for a in legal:
        assert f"{a} ({action_name(a)})" in message
    assert_states_equal(state, before)  # nothing stepped, in any game
    # the state still works
    engine.step(state, legal_default(state))


def test_illegal_action_in_several_games_reports_the_first():
    state = mid_game()
    actions = legal_default(state)
    mask = engine.legal_mask(state)
    for g in (2, 4):
        actions[g] = np.flatnonzero(~mask[g])[0]
    before = state.copy()
    with pytest.raises(ValueError, match=r"game 2\b"):
        engine.step(state, actions)
    assert_states_equal(state, before)


@pytest.mark.parametrize("bad", [-1, NUM_ACTIONS, 1000, -(2**40)])
def test_out_of_range_action(bad):
    state = mid_game()
    actions = legal_default(state)
    actions[1] = bad
    before = state.copy()
    with pytest.raises(
        ValueError, match=rf"game 1: action {bad} is out of range \[0, {NUM_ACTIONS}\)"
    ):
        engine.step(state, actions)
    assert_states_equal(state, before)


@pytest.mark.parametrize(
    "shape_of",
    [
        lambda a: a[:-1],
        lambda a: np.append(a, a[0]),
        lambda a: a[:, None],
        lambda a: a[0],
        lambda a: a.reshape(2, 3),
    ],
    ids=["short", "long", "column", "scalar", "2d"],
)
def test_wrong_shape(shape_of):
    state = mid_game()
    actions = shape_of(legal_default(state))
    before = state.copy()
    with pytest.raises(ValueError, match=re.escape(f"actions must have shape ({len(SEEDS)},)")):
        engine.step(state, actions)
    assert_states_equal(state, before)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, bool, object, str])
def test_wrong_dtype(dtype):
    state = mid_game()
    actions = legal_default(state).astype(dtype)
    before = state.copy()
    with pytest.raises(ValueError, match="actions must be integers"):
        engine.step(state, actions)
    assert_states_equal(state, before)


def test_python_list_and_small_int_dtypes_are_accepted():
    state = mid_game()
    other = state.copy()
    actions = legal_default(state)
    engine.step(state, actions.tolist())
    engine.step(other, actions.astype(np.uint8))
    assert_states_equal(state, other)


def finished_state() -> State:
    """Three games of which game 1 is over (its round truncated or won), the others running."""
    rules = load_rules("official", players=2, max_turns=10)
    state = engine.reset(rules, SEEDS[:3])
    gen = np.random.default_rng(1)
    while state.phase[1] != OVER:
        others = (state.phase == OVER) & (np.arange(3) != 1)
        engine.reset_games(
            state, others, gen.integers(0, 2**62, int(others.sum())).astype(np.uint64)
        )
        engine.step(state, engine.sample_legal_actions(engine.legal_mask(state), gen))
    others = np.array([0, 2])
    engine.reset_games(state, others, np.array([7, 8], np.uint64))
    assert (state.phase == OVER).tolist() == [False, True, False]
    return state


def test_stepping_a_finished_game():
    state = finished_state()
    assert not engine.legal_mask(state)[1].any()
    assert engine.legal_mask(state)[[0, 2]].any(axis=1).all()
    actions = np.full(3, DRAW)
    before = state.copy()
    with pytest.raises(ValueError, match=r"game 1: the game is over; reset it \(reset_games\)"):
        engine.step(state, actions)
    assert_states_equal(state, before)
    engine.reset_games(state, np.array([False, True, False]), np.array([9], np.uint64))
    engine.step(state, legal_default(state))  # all running again


def test_sample_legal_actions_needs_a_legal_action():
    state = finished_state()
    with pytest.raises(ValueError, match="game 1 has no legal action"):
        engine.sample_legal_actions(engine.legal_mask(state), np.random.default_rng(0))


# ------------------------------------------------------------------ seeds


@pytest.mark.parametrize(
    ("seeds", "match"),
    [
        (np.array([1, -2]), "non-negative"),
        ([-1], "non-negative"),
        (np.array([1.0, 2.0]), "1-d array of integers"),
        (np.array([[1, 2]]), "1-d array of integers"),
        (5, "1-d array of integers"),
        (np.array(["a"]), "1-d array of integers"),
        (np.array([], dtype=np.int64), r"number of games must be in \[1, 1000000\]"),
    ],
)
def test_bad_seeds(seeds, match):
    with pytest.raises(ValueError, match=match):
        engine.reset(Rules(), seeds)


def test_reset_needs_rules():
    with pytest.raises(TypeError, match="rules must be a Rules"):
        engine.reset({"players": 2}, [1, 2])


def test_reset_games_bad_seeds():
    state = mid_game()
    before = state.copy()
    with pytest.raises(ValueError, match="reset_games got 2 games but 1 seeds"):
        engine.reset_games(state, [0, 1], [5])
    with pytest.raises(ValueError, match="non-negative"):
        engine.reset_games(state, [0], [-5])
    with pytest.raises(ValueError, match="integers"):
        engine.reset_games(state, [0], [0.5])
    assert_states_equal(state, before)


def test_large_seeds_are_fine():
    state = engine.reset(Rules(), np.array([0, 2**64 - 1], dtype=np.uint64))
    assert state.key.tolist() == [0, 2**64 - 1]


# ------------------------------------------------------------ observations


def test_observe_bad_seats_and_buffer():
    state = mid_game()
    with pytest.raises(ValueError, match=r"observing seats must be in \[0, 3\)"):
        observe.observe(state, 3)
    with pytest.raises(ValueError, match="observing seats"):
        observe.observe(state, np.array([0, 1, 2, 0, 1, -1]))
    with pytest.raises(ValueError, match="out must be a float32 array"):
        observe.observe(state, 0, out=np.zeros((len(SEEDS), observe.OBS_SIZE), np.float64))
    with pytest.raises(ValueError, match="out must be a float32 array"):
        observe.observe(state, 0, out=np.zeros((1, observe.OBS_SIZE), np.float32))


# ------------------------------------------------------------------ rules


def test_rules_error_is_a_value_error():
    assert issubclass(RulesError, ValueError)


@pytest.mark.parametrize(
    ("overrides", "patterns"),
    [
        (
            {"stackin": "any"},
            ["unknown rules key 'stackin'", "did you mean 'stacking'", "allowed keys", "jump_in"],
        ),
        ({"player": 3}, ["'player'", "did you mean 'players'"]),
        ({"zzzz": 1}, ["unknown rules key 'zzzz'", "allowed keys: players"]),
        ({"players": 11}, ["'players'", r"\[2, 10\]", "11"]),
        ({"players": 1}, ["'players'", r"\[2, 10\]"]),
        ({"hand_size": 0}, ["'hand_size'", r"\[1, 20\]"]),
        ({"uno_forget_prob": 1.5}, ["'uno_forget_prob'", r"\[0.0, 1.0\]"]),
        ({"uno_penalty": 5}, ["'uno_penalty'", r"\[1, 4\]"]),
        ({"max_turns": 9}, ["'max_turns'", r"\[10, 1000000\]"]),
        ({"players": "4"}, ["'players'", "must be an integer"]),
        ({"players": 4.0}, ["'players'", "must be an integer"]),
        ({"players": True}, ["'players'", "must be an integer"]),
        ({"uno_catch_prob": "high"}, ["'uno_catch_prob'", "must be a number"]),
        ({"jump_in": 1}, ["'jump_in'", "must be true or false"]),
        ({"jump_in": "yes"}, ["'jump_in'", "must be true or false"]),
        ({"stacking": "all"}, ["'stacking'", "'none', 'same', 'any'", "'all'"]),
        ({"drawn_card": True}, ["'drawn_card'", "'may-play', 'must-play', 'may-not-play'"]),
        ({"scoring": "Winner-Takes"}, ["'scoring'", "'winner-takes'"]),
        (
            {"draw_until_playable": True, "drawn_card": "may-not-play"},
            ["draw_until_playable", "drawn_card", "may-not-play"],
        ),
        ({"players": 10, "hand_size": 10}, ["players=10", "hand_size=10", "at most 99"]),
        ({"players": 5, "hand_size": 20}, ["players=5", "hand_size=20"]),
        ({"dealer": "rotate"}, ["dealer='rotate'", "match=true"]),
        (
            {"match": True, "scoring": "rounds", "match_target": 500},
            ["match_target=500", "scoring='rounds'", "1..100"],
        ),
    ],
)
def test_invalid_rules(overrides, patterns):
    for build in (
        lambda: load_rules("official", **overrides),
        lambda: Rules.from_dict(overrides),
        lambda: Rules().replace(**overrides),
    ):
        with pytest.raises(RulesError) as info:
            build()
        for pattern in patterns:
            assert re.search(pattern, str(info.value)), (pattern, str(info.value))


def test_invalid_rules_directly():
    with pytest.raises(RulesError, match="'stacking'"):
        Rules(stacking="sometimes")
    with pytest.raises(TypeError):
        Rules(stackin="any")  # the dataclass itself: plain TypeError for unknown keywords


def test_largest_valid_deal():
    assert Rules(players=9, hand_size=11).hand_size == 11  # 99 cards dealt: allowed
    assert Rules(players=4, hand_size=20, dealer="rotate", match=True).dealer == "rotate"


def test_unknown_preset_lists_available():
    with pytest.raises(RulesError) as info:
        load_rules("offical")
    message = str(info.value)
    assert "unknown preset 'offical'" in message
    for name in ("official", "house", "seven-zero", "party", "no-bluff", "kids"):
        assert name in message


def test_missing_preset_path(tmp_path):
    with pytest.raises(RulesError, match="nope.toml does not exist"):
        load_rules(tmp_path / "nope.toml")


def test_corrupt_preset_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('description = "oops\n[rules\nstacking = any\n', encoding="utf-8")
    with pytest.raises(RulesError) as info:
        load_rules(path)
    assert "not valid TOML" in str(info.value)
    assert str(path) in str(info.value)


def test_preset_file_with_bad_rules(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('description = "x"\n[rules]\nstacking = "sometimes"\n', encoding="utf-8")
    with pytest.raises(RulesError, match=r"preset .*bad\.toml.*'stacking'.*'none', 'same', 'any'"):
        load_rules(path)
    path.write_text('[rules]\nstackin = "any"\n', encoding="utf-8")
    with pytest.raises(RulesError, match="did you mean 'stacking'"):
        load_rules(path)


def test_preset_file_with_unknown_table(tmp_path):
    path = tmp_path / "odd.toml"
    path.write_text('[rule]\nstacking = "any"\n', encoding="utf-8")
    with pytest.raises(RulesError, match=r"unknown top-level keys \['rule'\]; use \[rules\]"):
        load_rules(path)


def test_override_cannot_fix_a_broken_preset(tmp_path):
    path = tmp_path / "contra.toml"
    path.write_text('[rules]\ndealer = "rotate"\n', encoding="utf-8")
    with pytest.raises(RulesError, match="dealer='rotate'"):
        load_rules(path, match=True)


# ------------------------------------------------------------ the reference


def test_reference_illegal_action():
    rules = load_rules("official", players=3)
    game = ReferenceGame(rules, 123)
    legal = game.legal_actions()
    illegal = next(a for a in range(NUM_ACTIONS) if a not in legal)
    snapshot = copy.deepcopy(vars(game))
    with pytest.raises(ValueError) as info:
        game.step(illegal)
    message = str(info.value)
    assert f"illegal action {illegal}" in message and action_name(illegal) in message
    for a in legal:
        assert f"{a} ({action_name(a)})" in message
    assert vars(game) == snapshot


@pytest.mark.parametrize("bad", [-1, NUM_ACTIONS, 1000])
def test_reference_out_of_range_action(bad):
    game = ReferenceGame(Rules(), 5)
    with pytest.raises(ValueError, match=f"illegal action {bad}"):
        game.step(bad)


def test_reference_float_action():
    # The engine rejects float actions with ValueError (test_wrong_dtype); so must the oracle.
    game = ReferenceGame(Rules(), 5)
    assert DRAW in game.legal_actions()
    with pytest.raises(ValueError):
        game.step(float(DRAW))


def test_reference_finished_game():
    game = ReferenceGame(load_rules("official", max_turns=10), 5)
    while game.phase != OVER:
        game.step(game.legal_actions()[-1])
    assert game.legal_actions() == []
    with pytest.raises(ValueError, match="the game is over"):
        game.step(DRAW)

"""Stepping a subset of a batch in place (``step(state, actions, games=...)``)."""

import numpy as np
import pytest

from uno_rl.core import engine, load_rules
from uno_rl.core.actions import DRAW
from uno_rl.core.convert import states_equal
from uno_rl.core.phases import OVER
from uno_rl.core.reference import ReferenceGame


@pytest.mark.parametrize(
    "preset,players,overrides",
    [("official", 2, {}), ("party", 4, {}), ("kids", 3, {"reward": "points"})],
)
def test_subset_steps_match_the_reference(preset, players, overrides):
    rules = load_rules(preset, players=players, **overrides)
    gen = np.random.default_rng(players)
    seeds = gen.integers(0, 2**62, 24).astype(np.uint64)
    state = engine.reset(rules, seeds)
    refs = [ReferenceGame(rules, int(x)) for x in seeds]
    for _ in range(400):
        live = np.flatnonzero(state.phase != OVER)
        games = gen.permutation(live)[: gen.integers(1, live.size + 1)]
        masks = engine.legal_mask(state, games)
        np.testing.assert_array_equal(masks, engine.legal_mask(state)[games])
        actions = engine.sample_legal_actions(masks, gen)
        result = engine.step(state, actions, games=games)
        for row, (i, action) in enumerate(zip(games, actions)):
            outcome = refs[i].step(int(action))
            assert result.round_over[row] == outcome.round_over
            assert result.winner[row] == outcome.winner
            np.testing.assert_allclose(result.rewards[row], outcome.rewards)
            net = outcome.net_points or [0] * rules.players
            np.testing.assert_array_equal(result.net_points[row], net)
        for i, game in enumerate(refs):
            assert states_equal(state, i, game) == [], i
        done = np.flatnonzero(result.match_over if rules.match else result.round_over)
        if done.size:
            finished = games[done]
            new = gen.integers(0, 2**62, finished.size).astype(np.uint64)
            engine.reset_games(state, finished, new)
            for i, seed in zip(finished, new):
                refs[i] = ReferenceGame(rules, int(seed))


def test_subset_step_rejects_bad_games_and_names_the_game():
    state = engine.reset(load_rules("official"), np.arange(6, dtype=np.uint64))
    with pytest.raises(ValueError, match="must not repeat"):
        engine.step(state, np.array([DRAW, DRAW]), games=np.array([1, 1]))
    with pytest.raises(ValueError, match=r"in \[0, 6\)"):
        engine.step(state, np.array([DRAW]), games=np.array([6]))
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        engine.step(state, np.array([DRAW]), games=np.array([0, 2]))
    illegal = int(np.flatnonzero(~engine.legal_mask(state)[4])[0])
    before = state.copy()
    with pytest.raises(ValueError, match="game 4: illegal action"):
        engine.step(state, np.array([DRAW, illegal]), games=np.array([2, 4]))
    for name, array in before.arrays().items():
        np.testing.assert_array_equal(getattr(state, name), array, err_msg=name)


def test_unvalidated_step_matches_validated_step_on_legal_actions():
    rules = load_rules("party", players=4)
    gen = np.random.default_rng(5)
    seeds = gen.integers(0, 2**62, 64).astype(np.uint64)
    checked, trusted = engine.reset(rules, seeds), engine.reset(rules, seeds)
    for _ in range(300):
        live = np.flatnonzero(checked.phase != OVER)
        if not live.size:
            break
        games = gen.permutation(live)[: gen.integers(1, live.size + 1)]
        masks = engine.legal_mask(checked, games)
        np.testing.assert_array_equal(masks, engine.legal_mask(trusted, games, validate=False))
        actions = engine.sample_legal_actions(masks, gen)
        a = engine.step(checked, actions, games=games)
        b = engine.step(trusted, actions, games=games, validate=False)
        np.testing.assert_array_equal(a.rewards, b.rewards)
        np.testing.assert_array_equal(a.round_over, b.round_over)
    for name, array in checked.arrays().items():
        np.testing.assert_array_equal(array, getattr(trusted, name), err_msg=name)


def test_states_built_from_non_contiguous_arrays_are_made_contiguous():
    import dataclasses

    state = engine.reset(load_rules("official"), np.arange(6, dtype=np.uint64))
    wide = np.zeros((6, 2, 2 * 54), np.int8)
    wide[:, :, ::2] = state.hands
    copy = dataclasses.replace(state, hands=wide[:, :, ::2])  # a strided view
    assert copy.hands.flags.c_contiguous
    np.testing.assert_array_equal(copy.hands, state.hands)
    engine.step(
        copy, engine.sample_legal_actions(engine.legal_mask(copy), np.random.default_rng(0))
    )

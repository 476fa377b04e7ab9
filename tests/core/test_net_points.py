"""StepResult.net_points: each finished round's zero-sum points, whatever the reward."""

import numpy as np
import pytest

from uno_rl.core import engine, load_rules
from uno_rl.core.cards import KIND_POINTS


def play(rules, games=64, steps=3000, seed=0):
    """Random play: yields (state after, result) of every step."""
    gen = np.random.default_rng(seed)
    state = engine.reset(rules, gen.integers(0, 2**62, games).astype(np.uint64))
    for _ in range(steps):
        result = engine.step(state, engine.sample_legal_actions(engine.legal_mask(state), gen))
        yield state, result
        done = result.match_over if rules.match else result.round_over
        if done.any():
            new = gen.integers(0, 2**62, int(done.sum())).astype(np.uint64)
            engine.reset_games(state, done, new)


@pytest.mark.parametrize(
    "preset,players,overrides",
    [
        ("official", 2, {}),  # reward win-loss: rewards are not points, net_points are
        ("official", 4, {"reward": "points"}),
        ("official", 3, {"match": True}),  # the next round is dealt at once: the hands are gone
        ("kids", 2, {}),
    ],
)
def test_net_points_are_the_rounds_zero_sum_points(preset, players, overrides):
    rules = load_rules(preset, players=players, **overrides)
    rounds = 0
    for state, result in play(rules):
        net = result.net_points
        assert net.shape == (state.num_games, players) and net.dtype == np.int32
        won = result.round_over & (result.winner >= 0)
        assert not net[~won].any() and not net.sum(axis=1).any()
        rows = np.flatnonzero(won)
        winner = result.winner[rows].astype(np.int64)
        assert (net[rows, winner] == result.points[rows]).all()
        losers = np.ones((rows.size, players), bool)
        losers[np.arange(rows.size), winner] = False
        assert (net[rows][losers] <= 0).all()
        if rules.reward == "points":
            np.testing.assert_array_equal(net, result.rewards)
        kept = rows if not rules.match else rows[result.match_over[rows]]
        left = (state.hands[kept].astype(np.int32) * KIND_POINTS).sum(axis=2)  # (k, P)
        losing = np.ones_like(left, bool)
        losing[np.arange(kept.size), result.winner[kept]] = False
        np.testing.assert_array_equal(net[kept][losing], -left[losing])
        rounds += rows.size
    assert rounds > 50

"""Break-even challenge probabilities and the Bayesian bluff probability."""

import math

import numpy as np
import pytest

from uno_rl.analysis import bluff_kinds, bluff_probability, challenge_break_even, unseen_counts
from uno_rl.core import load_rules
from uno_rl.core.cards import KIND_COLOR, WILD


def test_break_even_by_objective_and_penalty_rule():
    official = load_rules("official")
    assert challenge_break_even(official) == pytest.approx(1 / 3)
    assert challenge_break_even(official, "card-difference") == pytest.approx(1 / 5)
    takes_back = load_rules("official", caught_bluffer="takes-back")
    assert challenge_break_even(takes_back) == pytest.approx(1 / 3)
    assert challenge_break_even(takes_back, "card-difference") == pytest.approx(2 / 11)


def test_break_even_is_where_challenging_and_accepting_cost_the_same():
    rules = load_rules("official")
    p = challenge_break_even(rules, "card-difference")
    accept = 4  # victim +4, bluffer +0
    challenge = p * (-4) + (1 - p) * 6  # success: bluffer +4; failure: victim +6
    assert challenge == pytest.approx(accept)


def test_break_even_errors():
    with pytest.raises(ValueError, match="objective"):
        challenge_break_even(load_rules("official"), "glory")
    with pytest.raises(ValueError, match="no \\+4 challenge"):
        challenge_break_even(load_rules("no-bluff"))


def test_bluff_probability_is_the_hypergeometric_complement():
    rng = np.random.default_rng(0)
    u = rng.integers(5, 90, 200)
    b = rng.integers(0, 26, 200) % (u + 1)
    h = rng.integers(0, 20, 200) % (u + 1)
    got = bluff_probability(b, u, h)
    exact = [
        1 - math.comb(int(uu - bb), int(hh)) / math.comb(int(uu), int(hh))
        for uu, bb, hh in zip(u, b, h)
    ]
    np.testing.assert_allclose(got, exact, atol=1e-12)


def test_bluff_probability_monte_carlo():
    rng = np.random.default_rng(1)
    pool = np.array([1] * 12 + [0] * 48)  # 12 bluff cards among 60 unseen
    hands = np.array([rng.choice(pool, 5, replace=False).any() for _ in range(20000)])
    assert bluff_probability(12, 60, 5) == pytest.approx(hands.mean(), abs=0.01)


def test_bluff_probability_edges_and_errors():
    assert bluff_probability(0, 50, 7) == 0.0
    assert bluff_probability(10, 50, 0) == 0.0
    assert bluff_probability(50, 50, 1) == 1.0
    with pytest.raises(ValueError):
        bluff_probability(5, 3, 1)


def test_bluff_kinds_and_unseen_counts():
    rules = load_rules("official")
    kinds = bluff_kinds(rules, np.array([2]))
    assert kinds[0].sum() == 13 and (KIND_COLOR[kinds[0]] == 2).all()
    strict = bluff_kinds(load_rules("official", draw_four_legal="no-playable-card"), np.array([2]))
    assert strict[0, WILD] and strict[0].sum() == 14
    hand = np.zeros((1, 54))
    hand[0, 0] = 1
    unseen = unseen_counts(hand, np.zeros((1, 54)))
    assert unseen.sum() == 107 and unseen[0, 0] == 0

"""The turn-based buffer: stream links, reward attribution, GAE, carrying pending transitions."""

import numpy as np
import pytest

from uno_rl.ppo.buffer import TurnBuffer


def add(buffer, streams, values):
    k = len(streams)
    return buffer.add(
        np.asarray(streams), np.zeros((k, 3), np.float32), np.ones((k, 77), bool),
        np.zeros(k, np.int64), np.zeros(k, np.float32), np.asarray(values, np.float32),
    )  # fmt: skip


def test_links_rewards_and_gae_match_a_hand_computation():
    gamma, lam = 0.9, 0.8
    b = TurnBuffer(32, 3, streams=4)
    add(b, [0], [0.5])  # step 1: stream 0 acts
    add(b, [1], [0.2])  # step 2: stream 1 acts
    add(b, [0], [0.6])  # step 3: stream 0 again
    b.finish(np.array([0, 1]), np.array([1.0, -1.0]))  # the round ends: 0 won, 1 lost
    add(b, [0], [0.3])  # a new round: stream 0 again, still pending at the end
    np.testing.assert_array_equal(b.next[:4], [2, -1, -1, -1])
    np.testing.assert_array_equal(b.terminal[:4], [False, True, True, False])
    np.testing.assert_array_equal(b.reward[:4], [0.0, -1.0, 1.0, 0.0])
    adv, ret, trainable = b.advantages(gamma, lam)
    a2 = 1.0 - 0.6  # terminal: reward - value
    a1 = -1.0 - 0.2
    a0 = (0.0 + gamma * 0.6 - 0.5) + gamma * lam * a2
    np.testing.assert_allclose(adv[:3], [a0, a1, a2], rtol=1e-6)
    np.testing.assert_array_equal(trainable, [True, True, True, False])
    np.testing.assert_allclose(ret[:3], np.array([a0, a1, a2]) + [0.5, 0.2, 0.6], rtol=1e-6)


def test_pending_transitions_bootstrap_and_carry_over():
    b = TurnBuffer(32, 3, streams=2)
    add(b, [0, 1], [0.1, 0.2])
    add(b, [0, 1], [0.7, 0.4])  # both pending at the end
    adv, _, trainable = b.advantages(1.0, 1.0)
    np.testing.assert_allclose(adv[:2], [0.7 - 0.1, 0.4 - 0.2], rtol=1e-6)  # bootstrapped
    assert list(trainable) == [True, True, False, False]
    other = TurnBuffer(32, 3, streams=2)
    b.carry_into(other)
    assert other.size == 2 and list(other.stream[:2]) == [0, 1]
    np.testing.assert_allclose(other.value[:2], [0.7, 0.4])
    add(other, [1], [0.5])
    other.finish(np.array([0, 1]), np.array([2.0, 3.0]))
    assert other.next[1] == 2 and other.reward[0] == 2.0 and other.reward[2] == 3.0
    _, _, trainable = other.advantages(0.99, 0.95)
    assert trainable.all()
    with pytest.raises(ValueError):
        b.carry_into(other)


def test_overflow_is_an_error():
    b = TurnBuffer(2, 3, streams=4)
    add(b, [0, 1], [0, 0])
    with pytest.raises(RuntimeError, match="full"):
        add(b, [2], [0])

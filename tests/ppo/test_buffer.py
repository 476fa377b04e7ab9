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


def test_bfloat16_buffers_keep_the_rounded_observations_as_bits():
    """A bfloat16 trunk's buffers keep int16 bit patterns: exactly the values the trunk
    reads (PyTorch's own cast), widened exactly for checkpoints, read back without a copy."""
    import torch

    from uno_rl.ppo.stored_obs import BF16_BITS, as_float32, network_input, store

    rng = np.random.default_rng(0)
    obs = np.concatenate(
        [rng.integers(0, 5, (6, 4)), rng.random((6, 2)) * 3, np.full((6, 1), 108.0)], axis=1
    ).astype(np.float32)
    bits = store(obs, BF16_BITS)
    assert bits.dtype == np.int16 and bits.shape == obs.shape
    expected = torch.from_numpy(obs).to(torch.bfloat16)
    tensor = network_input(bits, "cpu", torch.bfloat16)
    assert tensor.dtype == torch.bfloat16 and torch.equal(tensor, expected)
    assert tensor.data_ptr() == torch.from_numpy(bits).data_ptr()  # a view of the bits
    np.testing.assert_array_equal(as_float32(bits), expected.float().numpy())
    np.testing.assert_array_equal(as_float32(bits)[:, :4], obs[:, :4])  # small counts: exact
    assert store(bits, BF16_BITS) is bits and store(obs, np.dtype(np.float32)) is obs
    np.testing.assert_array_equal(store(bits, np.dtype(np.float32)), as_float32(bits))
    torch.testing.assert_close(network_input(bits, "cpu", torch.float32), expected.float())
    b = TurnBuffer(8, 7, streams=6, obs_dtype=BF16_BITS)
    b.add(np.arange(6), obs, np.ones((6, 77), bool), np.zeros(6, np.int64), np.zeros(6),
          np.zeros(6))  # fmt: skip
    np.testing.assert_array_equal(b.obs[:6], bits)

"""Counter-based randomness: fixed values, broadcasting, no warnings, batch = one by one."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from uno_rl.core import rng

#: Words of the splitmix64 counter scheme (computed once; they must never change).
BITS_DEAL = 910723936889494429
BITS_FORGET = 17651562586830024860
SORT_KEYS = [6582966023983453206, 2517583620671398019, 9028856401796855084]


def test_values_are_pinned():
    """Every deal, shuffle and coin of a seeded game derives from these words: changing them
    changes every replay, duplicate deal and shipped result."""
    assert int(rng.bits(12345, rng.DEAL, 0, 0)) == BITS_DEAL
    assert int(rng.bits(12345, rng.FORGET_UNO, 17, 1)) == BITS_FORGET
    assert rng.sort_keys(7, rng.RESHUFFLE, 2, 3).tolist() == SORT_KEYS


def test_scalars_arrays_and_broadcasting_agree():
    keys = np.array([1, 2**63 + 5, 12345], np.uint64)
    batch = rng.bits(keys[:, None], rng.RESHUFFLE, np.array([[0], [1], [2]]), np.arange(4))
    assert batch.shape == (3, 4) and batch.dtype == np.uint64
    for i, key in enumerate(keys):
        for lane in range(4):
            assert batch[i, lane] == rng.bits(int(key), rng.RESHUFFLE, i, lane)
    assert isinstance(rng.bits(5, rng.DEALER, 0, 0), np.uint64)
    assert rng.sort_keys(keys, rng.DEAL, np.zeros(3, np.int64), 5).shape == (3, 5)
    assert (rng.sort_keys(keys, rng.DEAL, 0, 108) < rng.PAD_KEY).all()
    u = rng.uniform(keys, rng.FORGET_UNO, 3, 1)
    assert u.shape == (3,) and ((u >= 0) & (u < 1)).all()


def test_wrapping_arithmetic_warns_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for stream in range(rng.DEAL, rng.DRAWN_COLOR + 1):
            rng.bits(2**64 - 1, stream, 2**40, 7)
            rng.uniform(2**64 - 1, stream, 999, 1)
            rng.sort_keys(2**64 - 1, stream, 3, 108)


def test_streams_are_distinct():
    words = {int(rng.bits(99, s, 0, 0)) for s in range(rng.DEAL, rng.DRAWN_COLOR + 1)}
    assert len(words) == rng.DRAWN_COLOR


def test_new_seeds_needs_a_generator():
    seeds = rng.new_seeds(np.random.default_rng(0), 4)
    assert seeds.dtype == np.uint64 and seeds.shape == (4,)
    assert np.array_equal(seeds, rng.new_seeds(np.random.default_rng(0), 4))
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        rng.new_seeds(0, 4)

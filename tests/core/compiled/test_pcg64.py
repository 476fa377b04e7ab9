"""Blocks of uniforms read in place from NumPy's PCG64 (:mod:`uno_rl.core.compiled.nb_pcg64`):
every value NumPy's ``random((k, K), float32)`` (or float64) draws, whatever the generator's
buffered half-word, and the generator left exactly where NumPy's draw leaves it."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from uno_rl.core.compiled import nb_pcg64
from uno_rl.core.compiled.nb_pcg64 import (
    block_float32,
    block_float64,
    hop_table,
    reads_in_place,
    seek,
    seek64,
    start_block,
    start_block64,
)


@numba.njit
def _sparse_reads(rng, k, kinds, wanted, out):
    """The values of a (k, kinds) block where ``wanted`` ((k, kinds) bool) is set, row by row."""
    block = start_block(rng, k * kinds)
    table = hop_table(block, kinds // 2 + 2)
    for i in range(k):
        seek(block, table, i * kinds)
        for kind in range(kinds):
            if wanted[i, kind]:
                out[i, kind] = block_float32(block, table, i * kinds + kind)


@numba.njit
def _sparse_reads64(rng, k, kinds, wanted, out):
    """:func:`_sparse_reads` of a float64 block."""
    block = start_block64(rng, k * kinds)
    table = hop_table(block, kinds + 1)
    for i in range(k):
        seek64(block, table, i * kinds)
        for kind in range(kinds):
            if wanted[i, kind]:
                out[i, kind] = block_float64(block, table, i * kinds + kind)


@pytest.mark.parametrize("trial", range(20))
def test_float64_reads_give_numpys_values_and_keep_its_half_word(trial):
    shapes = np.random.default_rng(trial)
    k, kinds = int(shapes.integers(0, 300)), int(shapes.integers(1, 120))
    before = int(shapes.integers(0, 4))
    ours, theirs = np.random.default_rng(trial + 200), np.random.default_rng(trial + 200)
    ours.random(before, np.float32), theirs.random(before, np.float32)
    wanted = shapes.random((k, kinds)) < 0.2
    got = np.full((k, kinds), -1.0)
    _sparse_reads64(ours, k, kinds, wanted, got)
    np.testing.assert_array_equal(got[wanted], theirs.random((k, kinds))[wanted])
    assert ours.bit_generator.state == theirs.bit_generator.state
    np.testing.assert_array_equal(ours.random(5, np.float32), theirs.random(5, np.float32))


@pytest.mark.parametrize("trial", range(40))
def test_reads_give_numpys_values_and_leave_its_state(trial):
    shapes = np.random.default_rng(trial)
    k, kinds = int(shapes.integers(0, 300)), int(shapes.integers(1, 120))
    before = int(shapes.integers(0, 4))  # 1 or 3 earlier float32 draws leave a half-word
    ours, theirs = np.random.default_rng(trial + 100), np.random.default_rng(trial + 100)
    ours.random(before, np.float32), theirs.random(before, np.float32)
    assert reads_in_place(ours)
    wanted = shapes.random((k, kinds)) < 0.2
    got = np.full((k, kinds), -1, np.float32)
    _sparse_reads(ours, k, kinds, wanted, got)
    expected = theirs.random((k, kinds), np.float32)
    np.testing.assert_array_equal(got[wanted], expected[wanted])
    assert ours.bit_generator.state == theirs.bit_generator.state
    np.testing.assert_array_equal(ours.random(5, np.float32), theirs.random(5, np.float32))
    assert ours.random() == theirs.random()


def test_a_large_block_is_jumped_over_in_one_go():
    ours, theirs = np.random.default_rng(7), np.random.default_rng(7)
    ours.random(1, np.float32), theirs.random(1, np.float32)
    count = 3 * 10**8 + 1  # far more than any test would draw one by one
    start_block(ours, count)
    theirs.bit_generator.advance(count // 2)  # one buffered half-word used, 2 a 64-bit output
    assert ours.bit_generator.state["state"] == theirs.bit_generator.state["state"]


def test_only_numpys_pcg64_is_read_in_place(monkeypatch):
    for kind in (np.random.PCG64DXSM, np.random.Philox, np.random.MT19937, np.random.SFC64):
        assert not reads_in_place(np.random.Generator(kind(1)))
    assert reads_in_place(np.random.default_rng(1))
    monkeypatch.setattr(nb_pcg64, "_checked", [False])  # a layout the check did not recognise
    assert not reads_in_place(np.random.default_rng(1))


def test_the_check_passes_here():
    assert nb_pcg64._self_check()

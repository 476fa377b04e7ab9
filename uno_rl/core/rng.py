"""Counter-based randomness: every random event of a game derives from its deal seed.

A game's randomness is a pure function ``bits(key, stream, index, lane)`` of its
64-bit deal seed ``key`` (splitmix64 mixing). Nothing inside a round reads a
``numpy.random.Generator``: the batched engine and the scalar reference draw
identical numbers, a game's trajectory does not depend on which other games share
its batch, and a deal seed replays the same deck order (duplicate deals). The seeds
themselves come from an explicit, seeded ``numpy.random.Generator`` (see
:func:`new_seeds`).

Streams (``stream`` argument):

=============  ==============================  =============================
stream         index                           lane
=============  ==============================  =============================
DEAL           0                               position in the canonical deck
DEALER         0                               0
FIRST_DRAW4    redraw attempt                  position in the sorted pile
RESHUFFLE      reshuffles so far this round    position in the sorted cards
FORGET_UNO     decision number in the round    0: forgets, 1: is caught
NEXT_ROUND     0                               0 (seed of a match's next round)
FIRST_COLOR    0                               0 (random color of a first-card Wild)
DRAWN_COLOR    decision number in the round    0 (color of an auto-played drawn Wild)
SHUFFLE_HANDS  decision number in the round    position in the sorted cards of all hands
DISPENSER      press number in the round       0: fires, 1: how many cards a fire shoots
=============  ==============================  =============================
"""

from __future__ import annotations

import numpy as np

DEAL, DEALER, FIRST_DRAW4, RESHUFFLE, FORGET_UNO, NEXT_ROUND, FIRST_COLOR, DRAWN_COLOR = range(1, 9)
SHUFFLE_HANDS, DISPENSER = 9, 10

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _ONE = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(1)
#: Sort key of padding slots: above every real key (real keys are shifted right by one).
PAD_KEY = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finalizer on a fresh uint64 array (modified in place; wrapping arithmetic)."""
    x ^= x >> _S30
    x *= _M1
    x ^= x >> _S27
    x *= _M2
    x ^= x >> _S31
    return x


def _offsets(values) -> np.ndarray:
    """``values * GAMMA`` as uint64 (wrapping): the increment of one mixing round."""
    # At least 1-d: NumPy checks scalar arithmetic for overflow, arrays wrap silently.
    return np.atleast_1d(np.asarray(values).astype(np.uint64)) * _GAMMA


#: (lane + 1) * GAMMA for every lane of a deck: the last mixing round of :func:`sort_keys`.
_LANE_OFFSETS = _offsets(np.arange(1, 129))
#: stream * GAMMA of each stream (Python ints: no scalar overflow warnings)
_STREAM_OFFSETS = [np.uint64((s * 0x9E3779B97F4A7C15) % 2**64) for s in range(DISPENSER + 1)]


def _bits(key: np.ndarray, stream: int, index, lane_offsets) -> np.ndarray:
    """:func:`bits` on an array ``key`` with the lane round's increments given (at least 1-d)."""
    x = _mix(np.add(key, _STREAM_OFFSETS[stream], dtype=np.uint64))
    x = _mix(np.add(x, _offsets(index), dtype=np.uint64))
    return _mix(np.add(x, lane_offsets, dtype=np.uint64))


def bits(key, stream: int, index, lane) -> np.ndarray:
    """Random 64-bit words, broadcast over the shapes of ``key``, ``index`` and ``lane``.

    All arguments are integers or integer arrays (any dtype); the result is uint64.
    """
    k = np.atleast_1d(np.asarray(key, dtype=np.uint64))
    out = _bits(k, stream, index, _offsets(np.asarray(lane).astype(np.uint64) + _ONE))
    shape = np.broadcast_shapes(np.shape(key), np.shape(index), np.shape(lane))
    return out.reshape(shape) if shape else out[0]


def uniform(key, stream: int, index, lane) -> np.ndarray:
    """Uniform floats in [0, 1) (float64), broadcast like :func:`bits`."""
    return (bits(key, stream, index, lane) >> np.uint64(11)).astype(np.float64) * (2.0**-53)


def sort_keys(key, stream: int, index, lanes: int) -> np.ndarray:
    """Shuffle keys ``(..., lanes)`` uint64 below :data:`PAD_KEY`; a stable argsort shuffles."""
    k = np.asarray(key, dtype=np.uint64)[..., None]
    i = np.asarray(index)[..., None]
    offsets = (
        _LANE_OFFSETS[:lanes] if lanes <= _LANE_OFFSETS.size else _offsets(np.arange(1, lanes + 1))
    )
    x = _bits(np.atleast_1d(k), stream, i, offsets)
    x >>= _ONE
    return x.reshape(np.broadcast_shapes(k.shape, i.shape, (lanes,)))


def new_seeds(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` fresh deal seeds (uint64) from an explicit generator."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng.integers(0, np.iinfo(np.int64).max, size=n, dtype=np.int64).astype(np.uint64)

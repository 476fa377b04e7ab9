"""Counter-based randomness compiled: the same numbers as :mod:`uno_rl.core.rng`.

``bits(key, stream, index, lane)`` mixes a game's deal seed with splitmix64 exactly as
:func:`uno_rl.core.rng.bits` does; :func:`shuffle_into` orders cards by their stable
``sort_keys`` rank like the reference's shuffles. All arithmetic is uint64 (wrapping).
"""

from __future__ import annotations

import numpy as np

from .nb_jit import kernel

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@kernel
def mix(x):
    """splitmix64 finalizer of a uint64."""
    x = np.uint64(x)
    x ^= x >> np.uint64(30)
    x *= _M1
    x ^= x >> np.uint64(27)
    x *= _M2
    x ^= x >> np.uint64(31)
    return x


@kernel
def bits(key, stream, index, lane):
    """A random uint64 of game seed ``key`` (uint64) for (stream, index, lane) (ints >= 0)."""
    x = mix(np.uint64(key) + np.uint64(stream) * _GAMMA)
    x = mix(x + np.uint64(index) * _GAMMA)
    return mix(x + (np.uint64(lane) + np.uint64(1)) * _GAMMA)


@kernel
def uniform(key, stream, index, lane):
    """A float64 in [0, 1) from :func:`bits`."""
    return np.float64(bits(key, stream, index, lane) >> np.uint64(11)) * (2.0**-53)


@kernel
def below(key, stream, index, lane, n):
    """``bits(...) % n`` as an int64 (n > 0)."""
    return np.int64(bits(key, stream, index, lane) % np.uint64(n))


@kernel
def stable_order_exact(keys, count, order, temp):
    """:func:`stable_order` by a bottom-up merge sort of the indices through ``temp``, for
    keys that share all but their lowest bits."""
    for i in range(count):
        order[i] = i
    width = 1
    source, target = order, temp
    while width < count:
        for left in range(0, count, 2 * width):
            middle = min(left + width, count)
            right = min(left + 2 * width, count)
            i, j, out = left, middle, left
            while i < middle and j < right:  # branch-free: the keys are random
                left_card, right_card = source[i], source[j]
                take = np.int64(keys[right_card] < keys[left_card])  # ties: the left run first
                target[out] = right_card if take else left_card
                j += take
                i += 1 - take
                out += 1
            while i < middle:
                target[out] = source[i]
                i += 1
                out += 1
            while j < right:
                target[out] = source[j]
                j += 1
                out += 1
        source, target = target, source
        width *= 2
    if source is not order:
        for i in range(count):
            order[i] = source[i]


@kernel
def merge_pass(source, target, count, width):
    """Merge the sorted runs of ``width`` values of ``source[:count]`` (distinct int64) in
    pairs into ``target``, without branching on the comparisons."""
    for left in range(0, count, 2 * width):
        middle = min(left + width, count)
        right = min(left + 2 * width, count)
        i, j = left, middle
        for out in range(left, right):
            if i < middle and j < right:
                x, y = source[i], source[j]
                take = np.int64(y < x)
                target[out] = y if take else x
                j += take
                i += 1 - take
            elif i < middle:
                target[out] = source[i]
                i += 1
            else:
                target[out] = source[j]
                j += 1


@kernel
def stable_order(keys, count, order, temp):
    """Write into ``order[:count]`` the stable ascending order of ``keys[:count]`` (uint64
    below 2**63), through ``temp`` (both (>= count,) int64 work arrays).

    Each key's lowest bits are replaced by its index and the distinct values merge-sorted:
    the same order as the keys' unless two keys differ only in those bits (then
    :func:`stable_order_exact` sorts them)."""
    shift = 0
    while (1 << shift) < count:
        shift += 1
    low = (np.int64(1) << shift) - 1
    for i in range(count):
        order[i] = (np.int64(keys[i]) & ~low) | i
    width = 1
    flipped = False
    while width < count:
        if flipped:
            merge_pass(temp, order, count, width)
        else:
            merge_pass(order, temp, count, width)
        flipped = not flipped
        width *= 2
    if flipped:
        for i in range(count):
            order[i] = temp[i]
    for i in range(count - 1):
        if order[i] >> shift == order[i + 1] >> shift:
            stable_order_exact(keys, count, order, temp)
            return
    for i in range(count):
        order[i] &= low


@kernel
def shuffle_into(t, cards, count, key, stream, index, out):
    """Write ``cards[:count]`` into ``out[:count]`` in the order of a stable argsort of
    ``rng.sort_keys(key, stream, index, count)`` (the reference's ``_shuffled``); uses the
    work arrays ``t.work_keys``, ``t.work_order``, ``t.work_temp``. ``cards`` and ``out``
    may not be the same array."""
    keys = t.work_keys
    base = mix(mix(np.uint64(key) + np.uint64(stream) * _GAMMA) + np.uint64(index) * _GAMMA)
    for lane in range(count):  # bits(key, stream, index, lane), its lane-free part hoisted
        keys[lane] = mix(base + (np.uint64(lane) + np.uint64(1)) * _GAMMA) >> np.uint64(1)
    stable_order(keys, count, t.work_order, t.work_temp)
    for i in range(count):
        out[i] = cards[t.work_order[i]]

"""How each compiled heuristic ranks its cards and names a color: the strategies of
:mod:`uno_rl.agents.strategies` and :mod:`uno_rl.agents.colors`, with the same generator draws
in the same order and the same float arithmetic, so they choose the same cards.

The batched agents draw whole blocks for a group of k games (``rng.random((k, 4))`` for a
favorite color, ``rng.random((k, K), float32)`` for the ties between cards, ...); here the
blocks are drawn in that order first (:func:`strategy_draws`, :func:`naming_draws`), then each
game is decided alone, scoring only the kinds it can play. ``ints``, ``floats`` and ``tables``
are the agent's parameters and per-kind tables (:mod:`.policy` builds them; :mod:`.codes`
names the indices).
"""

from __future__ import annotations

import numba
import numpy as np

from uno_rl.core.compiled.nb_jit import kernel

from .codes import (
    AGGRESSIVE,
    AGGRESSIVE_WILDS,
    ANY_ATTACK,
    CALM_WILDS,
    COLOR_FIRST,
    DISCARD_ALL_ON,
    FAVORITE_0,
    IS_DISCARD_ALL,
    IS_SHUFFLE,
    IS_SWAP,
    NEXT_ATTACK,
    POINTS,
    POINTS_DUMPER,
    RANK_IF_COLORED,
    RULE,
    STRATEGY,
    THREAT_WILDS,
)

#: A kernel function compiled into its callers: its array arguments then cost no reference
#: counting, which would dominate the per-game and per-kind helpers below.
inlined = numba.njit(cache=True, inline="always")

#: The tie-break scale (:data:`uno_rl.agents.colors.TIE_NOISE`).
TIE_NOISE = 1e-3
#: A Discard All sheds "several" from this many other cards (:data:`.play_order.SEVERAL`).
SEVERAL = 2.0
#: What a Swap or Shuffle Hands that gains cards adds (:data:`.play_order.GAIN_BONUS`).
GAIN_BONUS = 1e6
_TIE_NOISE_32 = np.float32(TIE_NOISE)


@kernel
def strategy_draws(ints, k, kinds, rng):
    """The draws of the strategy's ``card_scores`` for k games: ``(uniform, favorite)``, the
    rule agent's (k, K) uniforms and the (k, 4) favorite-color noise of color-first and
    aggressive (empty where the strategy draws none)."""
    strategy = ints[STRATEGY]
    uniform = np.empty((0, kinds))
    favorite = np.empty((0, 4))
    if strategy == RULE:
        uniform = rng.random((k, kinds))
    elif strategy == COLOR_FIRST or strategy == AGGRESSIVE:
        favorite = rng.random((k, 4))
    return uniform, favorite


@kernel
def naming_draws(ints, k, rng):
    """The draws of ``name_color`` for k games: ``(favorite, random)``, the (k, 4)
    most-held-color noise and the rule agent's (k,) random colors (else empty)."""
    favorite = rng.random((k, 4))
    random = np.empty(0, np.int64)
    if ints[STRATEGY] == RULE:
        random = rng.integers(0, 4, k)
    return favorite, random


@inlined
def most_held(counts, noise, i):
    """The color of ``counts`` ((4,) int64) held most, ties by row ``i`` of ``noise`` (k, 4)."""
    best, choice = -1.0, 0
    for c in range(4):
        value = np.float64(counts[c]) + noise[i, c] * TIE_NOISE
        if value > best:
            best, choice = value, c
    return choice


@inlined
def sheds_several(t, tables, kind, counts):
    """The other cards a Discard All ``kind`` sheds where at least :data:`SEVERAL`, else 0
    (:func:`uno_rl.agents.play_order.sheds_several`; ``counts`` the seat's color counts)."""
    if tables[IS_DISCARD_ALL, kind] == 0:
        return 0.0
    shed = max(np.float64(counts[max(t.kind_color[kind], 0)]) - 1.0, 0.0)
    return shed if shed >= SEVERAL else 0.0


@inlined
def kind_score(t, ints, tables, log_held, held, kind, favorite, uniform, i, threat, threat_any,
               counts, color_points):  # fmt: skip
    """The strategy's score of ``kind`` (``card_scores``), ``held`` copies of it in hand;
    ``favorite`` the color held most (color-first, aggressive), ``threat`` / ``threat_any``
    whether the next player / any other holds at most ``attack_at`` cards (aggressive);
    ``counts`` and ``color_points`` ((4,) int64 and float64) the seat's cards and card points
    of each color (a Discard All's bonus)."""
    strategy = ints[STRATEGY]
    discard_all = ints[DISCARD_ALL_ON] > 0
    if strategy == COLOR_FIRST:
        score = tables[FAVORITE_0 + favorite, kind]
        if discard_all:
            shed = sheds_several(t, tables, kind, counts)
            score = score + (100.0 + shed if shed > 0 else 0.0)
        return score
    if strategy == POINTS_DUMPER:
        score = tables[POINTS, kind]
        if discard_all and tables[IS_DISCARD_ALL, kind] > 0:
            color = max(t.kind_color[kind], 0)
            score += max(color_points[color] - tables[POINTS, kind], 0.0)
        return score
    if strategy == RULE:
        if t.draw_four_like[kind]:
            score = -2e6
        elif t.always_playable[kind]:
            score = -1e6
        else:
            gumbel = -np.log(-np.log(uniform[i, kind] + 1e-300) + 1e-300)
            score = np.float64(log_held[held]) + gumbel
        if discard_all and sheds_several(t, tables, kind, counts) > 0:
            score += 100.0
        return score
    base = 100.0 * (t.kind_color[kind] == favorite) + tables[RANK_IF_COLORED, kind]
    if not np.isnan(tables[AGGRESSIVE_WILDS, kind]):
        base = tables[AGGRESSIVE_WILDS, kind]
    if discard_all:
        shed = sheds_several(t, tables, kind, counts)
        base += 20.0 + shed if shed > 0 else 0.0
    if tables[NEXT_ATTACK, kind] == 0 and tables[ANY_ATTACK, kind] == 0:
        return base
    on = threat_any if tables[ANY_ATTACK, kind] > 0 else threat
    if not np.isnan(tables[THREAT_WILDS, kind]):
        return tables[THREAT_WILDS, kind] if on else tables[CALM_WILDS, kind]
    return 10_000.0 + base if on else -10_000.0 + base


@inlined
def best_card(t, ints, tables, log_held, hand, playable, favorite, uniform, noise, i, threat,
              threat_any, counts, color_points, swap_gain, shuffle_gain):  # fmt: skip
    """(kind, has): the best-ranked kind of ``playable`` ((K,) bool) with the tie noise of row
    ``i`` of ``noise`` ((k, K) float32; or row 0 of one row read for this game, ``uniform``
    too), and whether any is playable (``_choose_card``);
    ``hand`` (K,) the seat's cards; a Swap / Shuffle Hands that gains cards (``swap_gain``,
    ``shuffle_gain`` > 0) goes first."""
    best, choice, has = -np.inf, 0, False
    strategy = ints[STRATEGY]
    if (
        (strategy == COLOR_FIRST or strategy == POINTS_DUMPER)
        and ints[DISCARD_ALL_ON] == 0
        and swap_gain <= 0
        and shuffle_gain <= 0
    ):  # a score read from one table row: the same values as kind_score, many times faster
        row = FAVORITE_0 + favorite if strategy == COLOR_FIRST else POINTS
        scores = tables[row]
        for kind in range(playable.size):
            if playable[kind]:
                has = True
                value = scores[kind] + np.float64(noise[i, kind] * _TIE_NOISE_32)
                if value > best:
                    best, choice = value, kind
        return choice, has
    for kind in range(playable.size):
        if playable[kind]:
            has = True
            value = kind_score(t, ints, tables, log_held, np.int64(hand[kind]), kind, favorite,
                               uniform, i, threat, threat_any, counts, color_points)  # fmt: skip
            value += np.float64(noise[i, kind] * _TIE_NOISE_32)
            if tables[IS_SWAP, kind] > 0 and swap_gain > 0:
                value += GAIN_BONUS + swap_gain
            if tables[IS_SHUFFLE, kind] > 0 and shuffle_gain > 0:
                value += GAIN_BONUS + shuffle_gain
            if value > best:
                best, choice = value, kind
    return choice, has


@inlined
def play_action(t, ints, kind, counts, favorite_noise, random, i):
    """The action that plays ``kind``, a wild naming the color held most (``counts``, ties by
    row ``i`` of ``favorite_noise``; the rule agent names ``random[i]`` for a wild playable on
    anything)."""
    if not t.names_color[kind]:
        return t.first_action[kind]
    color = most_held(counts, favorite_noise, i)
    if random.size and t.always_playable[kind]:
        color = random[i]
    return t.first_action[kind] + color

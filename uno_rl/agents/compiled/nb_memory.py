"""The ``challenge=bayes`` memory compiled, one game at a time: :mod:`uno_rl.agents.challenge`'s
``update_memory``, ``memory_caps`` and ``remember_action`` for the acting seat of a game, on
the same arrays (one line-up position's memory of every game slot).

A memory is four arrays (relative seats: 0 the agent, then in seat order): ``sizes`` (n, P)
int16, ``next_seat`` (n,) int8, ``left_color`` (n,) int8 and ``possible`` (n, P, 4) int16
(:func:`uno_rl.agents.challenge.new_memory`).
"""

from __future__ import annotations

import numpy as np

from uno_rl.core.actions import DRAW, PASS
from uno_rl.core.compiled.nb_jit import kernel

from ..challenge import UNKNOWN, WILD_RANK

_UNKNOWN = np.int64(UNKNOWN)


@kernel
def forget(sizes, next_seat, left_color, possible, g):
    """Slot ``g`` of the memory as :func:`~uno_rl.agents.challenge.new_memory` makes it."""
    for r in range(sizes.shape[1]):
        sizes[g, r] = -1
        for c in range(possible.shape[2]):
            possible[g, r, c] = UNKNOWN
    next_seat[g] = 0
    left_color[g] = -1


@kernel
def update_memory(a, t, sizes, next_seat, left_color, possible, g):
    """Fold what changed since the acting seat's last decision in game ``g`` into its memory."""
    p = t.players
    seat = np.int64(a.actor[g])
    seen = sizes[g, 0] >= 0
    nxt, left = np.int64(next_seat[g]), np.int64(left_color[g])
    passed = False
    for r in range(p):
        now = np.int64(a.hand_size[g, (seat + r) % p])
        growth = now - np.int64(sizes[g, r]) if seen else 0
        unknown_hand = False
        if t.extended:
            pair = a.swap_seats[g]
            if pair[0] >= 0:
                for side in range(2):
                    unknown_hand |= (np.int64(pair[side]) - seat) % p == r
            unknown_hand |= a.shuffled[g]
        for c in range(possible.shape[2]):
            held = np.int64(possible[g, r, c])
            if held < _UNKNOWN and not unknown_hand:
                possible[g, r, c] = min(held + max(growth, 0), now)
            else:
                possible[g, r, c] = UNKNOWN
        if r == nxt:
            passed = seen and left >= 0 and growth == 1
        sizes[g, r] = now
    if passed:
        possible[g, nxt, left] = 0


@kernel
def memory_cap(a, t, possible, g):
    """How many of the +4 player's cards in game ``g`` can be of the color it left, as the
    acting seat's memory knows (:data:`~uno_rl.agents.challenge.UNKNOWN`: all)."""
    p = t.players
    top = np.int64(a.top[g])
    on_draw_four = t.draw_four_like[top if top >= 0 else top + t.num_kinds]
    previous, bluffer = 0, 0
    if on_draw_four:
        previous = max(np.int64(a.prev_color[g]), 0)
        player = np.int64(a.draw4_player[g])
        if player >= 0:
            bluffer = (player - np.int64(a.actor[g])) % p
    return np.int64(possible[g, bluffer, previous])


@kernel
def remember_action(a, t, next_seat, left_color, g, action):
    """Record the color ``action`` leaves the next player with in game ``g`` (a number's, a
    plain Wild's named color, the current color after a draw or pass; else -1)."""
    card = np.int64(t.action_card[action])
    safe = max(card, 0)
    rank = np.int64(t.effect_rank[safe] if t.extended else t.kind_rank[safe])
    color = np.int64(t.kind_color[safe])
    left = -1
    if card >= 0 and color >= 0 and rank < 10:
        left = color
    if card >= 0 and rank == WILD_RANK and color < 0:
        left = np.int64(t.action_color[action])
    if action == DRAW or action == PASS:
        left = max(np.int64(a.color[g]), -1)
    left_color[g] = left
    next_seat[g] = 1 if a.direction[g] >= 0 else t.players - 1

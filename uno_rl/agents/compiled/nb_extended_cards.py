"""The compiled heuristics' handling of the extended layout's cards (rules specification §11):
Swap and Shuffle Hands (what they gain, when they are held back), a Discard All's points, and
the Boomerang answer, as :mod:`uno_rl.agents.play_order` and :mod:`uno_rl.agents.responses`
decide them, for one game (``g``, the acting ``seat``)."""

from __future__ import annotations

import numpy as np

from uno_rl.core.layout import TARGETED_TWO

from .codes import CLOSE_AT, IS_SHUFFLE, IS_SWAP, POINTS
from .nb_seen import draw_four_player, size_of
from .nb_strategies import inlined


@inlined
def points_by_color(a, t, tables, g, seat, out):
    """Into ``out`` ((4,) float64): the card points the seat holds of each color."""
    for c in range(4):
        out[c] = 0.0
    for kind in range(t.num_kinds):
        c = t.kind_color[kind]
        if c >= 0:
            out[c] += np.float64(a.hands[g, seat, kind]) * tables[POINTS, kind]


@inlined
def hand_gains(a, t, g, seat):
    """(swap, shuffle): the cards a Swap Hands and a Shuffle Hands would save against a plain
    card (:func:`uno_rl.agents.play_order.swap_gain`, ``shuffle_gain``)."""
    own = size_of(a, t, g, seat, 0)
    total, fewest, chosen = own, 0, False
    for relative in range(1, t.players):
        size = size_of(a, t, g, seat, relative)
        total += size
        if size >= 1 and not (t.swap_excludes_uno and size == 1):
            fewest = size if not chosen else min(fewest, size)
            chosen = True
    swap = own - 1 - fewest if chosen else 0
    return swap, own - 1 - (total - 1) // t.players


@inlined
def hold_back(a, t, tables, g, seat, playable, fallback, swap_gain, shuffle_gain):
    """Remove from ``playable`` the Swap / Shuffle Hands that would lose cards (not a last
    card), where something else is playable or ``fallback`` (draw, keep) is legal
    (``HeuristicAgent._hold_back``)."""
    if size_of(a, t, g, seat, 0) <= 1:
        return
    held_any, kept_any = False, False
    for kind in range(playable.size):
        held = (tables[IS_SWAP, kind] > 0 and swap_gain < 0) or (
            tables[IS_SHUFFLE, kind] > 0 and shuffle_gain < 0
        )
        if playable[kind] and held:
            held_any = True
        elif playable[kind]:
            kept_any = True
    if held_any and (kept_any or fallback):
        for kind in range(playable.size):
            if (tables[IS_SWAP, kind] > 0 and swap_gain < 0) or (
                tables[IS_SHUFFLE, kind] > 0 and shuffle_gain < 0
            ):
                playable[kind] = False


@inlined
def boomerang_answers(a, t, ints, g, seat):
    """Whether to send the pending Skip or draw back with a Boomerang
    (:func:`uno_rl.agents.responses.boomerang_answers`)."""
    if a.pending[g] >= 4:
        return True
    close = ints[CLOSE_AT]
    if size_of(a, t, g, seat, 0) <= close:
        return True
    if t.effect_rank[max(np.int64(a.top[g]), 0)] == TARGETED_TWO:
        return False  # who played it is not shown
    player = draw_four_player(a, t, g, seat)
    cause = player if player > 0 else (t.players - 1 if a.direction[g] >= 0 else 1)
    return size_of(a, t, g, seat, cause) <= close

"""What a heuristic reads of one game, compiled: the pieces of
:class:`~uno_rl.agents.state_view.StateView` for the acting seat of game ``g``, read straight
from the state, and the bluff and challenge conditions (:mod:`uno_rl.agents.conditions`).

Relative seats as in the observation: 0 is the acting seat ``seat``, 1 the seat after it in
seat order. ``a`` is the state's :class:`~uno_rl.core.compiled.nb_state.GameArrays`, ``t`` its
:class:`~uno_rl.core.compiled.nb_rules.RuleTables`.
"""

from __future__ import annotations

import numpy as np

from uno_rl.core.compiled.nb_jit import kernel

from .codes import AT_LEAST, AT_MOST, COLOR_CARDS, KEPT, NEXT, OWN, THEIR, TOP, TURN, WILDS


@kernel
def size_of(a, t, g, seat, relative):
    """Cards held by relative seat ``relative``."""
    return np.int64(a.hand_size[g, (seat + relative) % t.players])


@kernel
def next_relative(a, t, g):
    """The next player's relative seat (direction of play)."""
    return 1 if a.direction[g] >= 0 else t.players - 1


@kernel
def color_counts(a, t, g, seat, out):
    """Into ``out`` ((4,) int64): the acting seat's cards of each color."""
    for c in range(4):
        out[c] = 0
    for kind in range(t.num_kinds):
        c = t.kind_color[kind]
        if c >= 0:
            out[c] += a.hands[g, seat, kind]


@kernel
def current_color(a, g):
    """The current color, -1 before one is set."""
    c = np.int64(a.color[g])
    return c if c >= 0 else -1


@kernel
def on_draw_four(a, t, g):
    """The card on top is a +4 (or Targeted +4)."""
    return t.draw_four_like[np.int64(a.top[g])]


@kernel
def previous_color(a, t, g):
    """The color current before the +4 on top, -1 where no +4 is on top."""
    c = np.int64(a.prev_color[g])
    return c if on_draw_four(a, t, g) and c >= 0 else -1


@kernel
def draw_four_player(a, t, g, seat):
    """The relative seat that played the +4 on top, -1 where none is shown."""
    player = np.int64(a.draw4_player[g])
    if on_draw_four(a, t, g) and player >= 0:
        return (player - seat) % t.players
    return -1


@kernel
def wilds_held(a, t, g, seat):
    """Wild cards (cards that name a color) the acting seat holds."""
    total = 0
    for kind in range(t.num_kinds):
        if t.names_color[kind]:
            total += a.hands[g, seat, kind]
    return np.int64(total)


@kernel
def feature(a, t, g, seat, which, counts, bluffing):
    """The value of condition feature ``which`` (see :mod:`uno_rl.agents.conditions`);
    ``counts`` (4,) the seat's color counts; ``bluffing``: ``WILDS`` leaves out the +4."""
    if which == NEXT:
        return size_of(a, t, g, seat, next_relative(a, t, g))
    if which == OWN:
        return size_of(a, t, g, seat, 0)
    if which == COLOR_CARDS:
        c = current_color(a, g)
        return counts[c] if c >= 0 else 0
    if which == WILDS:
        wilds = wilds_held(a, t, g, seat)
        return max(wilds - 1, 0) if bluffing else wilds
    if which == THEIR:
        player = draw_four_player(a, t, g, seat)
        return size_of(a, t, g, seat, player) if player > 0 else 0
    if which == KEPT:
        kept = draw_four_player(a, t, g, seat) > 0 and current_color(a, g) == previous_color(
            a, t, g
        )
        return 1 if kept else 0
    if which == TURN:
        return np.int64(a.turn[g])
    top = np.int64(a.scores[g, seat])
    others = np.int64(-(2**62))
    for relative in range(1, t.players):
        score = np.int64(a.scores[g, (seat + relative) % t.players])
        top = max(top, score)
        others = max(others, score)
    if which == TOP:
        return top
    if t.players == 1:
        others = 0
    return np.int64(a.scores[g, seat]) - others


@kernel
def conditions_hold(a, t, g, seat, rows, any_of, counts, bluffing):
    """Whether the conditions ``rows`` ((C, 3) int64 ``(feature, bound, value)``) hold in game
    ``g``: every one, or (``any_of``) at least one; True where there are none."""
    if rows.shape[0] == 0:
        return True
    for r in range(rows.shape[0]):
        value = feature(a, t, g, seat, rows[r, 0], counts, bluffing)
        bound, limit = rows[r, 1], rows[r, 2]
        if bound == AT_LEAST:
            holds = value >= limit
        elif bound == AT_MOST:
            holds = value <= limit
        else:
            holds = value == limit
        if holds and any_of:
            return True
        if not holds and not any_of:
            return False
    return not any_of

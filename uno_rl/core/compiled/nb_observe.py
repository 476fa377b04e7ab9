"""Observations compiled: one seat's view of one game as the flat float32 vector of
:func:`uno_rl.core.observe.observe` (and :func:`uno_rl.core.reference_observe.observe_reference`).

Every piece of the layout is written (:mod:`uno_rl.core.observe_layout`, then in the
extended layout :data:`uno_rl.core.layout.EXTENDED_PIECES`): O = ``t.obs_size`` values, at
the columns ``t.obs_start`` gives (indexed as :data:`.nb_rules.OBS_PIECES`). Seats in the
observation are relative to the observer. Arguments follow the kernel's conventions
(:mod:`uno_rl.core.compiled`).
"""

from __future__ import annotations

import numpy as np

from ..phases import DRAWN, OVER
from .nb_jit import batch, kernel
from .nb_rules import OBS_PIECES
from .nb_struct import borrow, unowned

# Each piece's index in ``t.obs_start`` (numba reads module ints as constants).
_HAND = OBS_PIECES.index("hand")
_TOP_CARD = OBS_PIECES.index("top_card")
_COLOR = OBS_PIECES.index("color")
_DIRECTION = OBS_PIECES.index("direction")
_PHASE = OBS_PIECES.index("phase")
_ACTOR = OBS_PIECES.index("actor")
_PENDING_DRAW = OBS_PIECES.index("pending_draw")
_HAND_SIZES = OBS_PIECES.index("hand_sizes")
_PLAYERS = OBS_PIECES.index("players")
_DISCARD = OBS_PIECES.index("discard")
_DRAW_PILE_SIZE = OBS_PIECES.index("draw_pile_size")
_DRAWN_CARD = OBS_PIECES.index("drawn_card")
_PREVIOUS_COLOR = OBS_PIECES.index("previous_color")
_DRAW4_PLAYER = OBS_PIECES.index("draw4_player")
_REVEALED_HAND = OBS_PIECES.index("revealed_hand")
_REVEALED_SEAT = OBS_PIECES.index("revealed_seat")
_SCORES = OBS_PIECES.index("scores")
_PROGRESS = OBS_PIECES.index("progress")
_VOID_COLOR = OBS_PIECES.index("void_color")
_VOID_SYMBOL = OBS_PIECES.index("void_symbol")
_PLAYED_COLORS = OBS_PIECES.index("played_colors")
_NAMED_COLOR = OBS_PIECES.index("named_color")
_DISPENSER_PRESSES = OBS_PIECES.index("dispenser_presses")
_SWAP_SEATS = OBS_PIECES.index("swap_seats")
_SHUFFLED = OBS_PIECES.index("shuffled")
_SWAP_GIVEN = OBS_PIECES.index("swap_given")
_SWAP_RECEIVED = OBS_PIECES.index("swap_received")


@kernel
def relative(t, seat, observer):
    """``seat``'s position counted clockwise from ``observer`` (0 .. P-1)."""
    return (np.int64(seat) - observer) % t.players


@kernel
def observe_public(a, t, g, seat, out):
    """The pieces of the table, the observer's hand, its drawn card and revealed hand."""
    start, p, kinds = t.obs_start, t.players, t.num_kinds
    phase = np.int64(a.phase[g])
    # Rows and columns read once: every write to ``out`` might, for the compiler, change them.
    hand, discard = a.hands[g, seat], a.discard[g]
    hand_at, discard_at = start[_HAND], start[_DISCARD]
    for kind in range(kinds):
        out[hand_at + kind] = hand[kind]
        out[discard_at + kind] = discard[kind]
    out[start[_TOP_CARD] + a.top[g]] = 1.0
    if a.color[g] >= 0:
        out[start[_COLOR] + a.color[g]] = 1.0
    out[start[_DIRECTION]] = a.direction[g]
    out[start[_PHASE] + phase] = 1.0
    if phase != OVER:
        out[start[_ACTOR] + relative(t, a.actor[g], seat)] = 1.0
    out[start[_PENDING_DRAW]] = a.pending[g]
    for other in range(p):
        slot = relative(t, other, seat)
        out[start[_HAND_SIZES] + slot] = a.hand_size[g, other]
        out[start[_SCORES] + slot] = a.scores[g, other] / t.match_target
    out[start[_PLAYERS] + p - 2] = 1.0
    out[start[_DRAW_PILE_SIZE]] = a.pile_size[g]
    if phase == DRAWN and a.actor[g] == seat:
        out[start[_DRAWN_CARD] + a.drawn[g]] = 1.0
    if t.draw_four_like[a.top[g]]:  # none shown when no color was under it or nobody played it
        if a.prev_color[g] >= 0:
            out[start[_PREVIOUS_COLOR] + a.prev_color[g]] = 1.0
        if a.draw4_player[g] >= 0:
            out[start[_DRAW4_PLAYER] + relative(t, a.draw4_player[g], seat)] = 1.0
    if a.reveal_viewer[g] == seat:
        for kind in range(kinds):
            out[start[_REVEALED_HAND] + kind] = a.revealed[g, kind]
        out[start[_REVEALED_SEAT] + relative(t, a.reveal_target[g], seat)] = 1.0
    out[start[_PROGRESS]] = a.turn[g] / t.max_turns


@kernel
def observe_shown(a, t, g, seat, out):
    """What each other seat showed this round, in blocks by relative seat 1 .. P-1: its
    void color and symbol, the cards it played by color, the color it last named."""
    start, symbols = t.obs_start, t.symbol_count
    for offset in range(1, t.players):
        other, block = (seat + offset) % t.players, offset - 1
        if a.void_color[g, other] >= 0:
            out[start[_VOID_COLOR] + 4 * block + a.void_color[g, other]] = 1.0
        slot = t.symbol_slot[a.void_symbol[g, other]]  # -1 (none) reads -1
        if slot >= 0:
            out[start[_VOID_SYMBOL] + symbols * block + slot] = 1.0
        played, played_at = a.played[g, other], start[_PLAYED_COLORS] + 5 * block
        for color in range(5):
            out[played_at + color] = played[color]
        if a.named[g, other] >= 0:
            out[start[_NAMED_COLOR] + 4 * block + a.named[g, other]] = 1.0


@kernel
def observe_extended(a, t, g, seat, out):
    """The extended layout's pieces: the dispenser's presses, a shuffle this round, the
    seats of the last swap and, for one of them, the hands it gave and received."""
    start = t.obs_start
    out[start[_DISPENSER_PRESSES]] = a.presses[g]
    out[start[_SHUFFLED]] = a.shuffled[g]
    if a.swap_seats[g, 0] < 0:
        return
    for side in range(2):
        swapper = np.int64(a.swap_seats[g, side])
        out[start[_SWAP_SEATS] + relative(t, swapper, seat)] = 1.0
        if swapper == seat:
            for kind in range(t.num_kinds):
                out[start[_SWAP_GIVEN] + kind] = a.swap_given[g, side, kind]
                out[start[_SWAP_RECEIVED] + kind] = a.swap_given[g, 1 - side, kind]


@kernel
def observe_into(a, t, g, seat, out):
    """Write ``seat``'s observation of game ``g`` into ``out`` ((O,) float32, cleared first)."""
    seat = np.int64(seat)
    if seat < 0 or seat >= t.players:
        raise ValueError("the observing seat must be in [0, players)")
    out[:] = 0.0
    observe_public(a, t, g, seat, out)
    observe_shown(a, t, g, seat, out)
    if t.extended:
        observe_extended(a, t, g, seat, out)


@batch
def observe_many(a, t, games, seats, out):
    """Write the observation of seat ``seats[i]`` of game ``games[i]`` into ``out[i]``
    (``games``, ``seats``: (k,) int64; ``out``: (k, O) float32)."""
    a, t = borrow(a), borrow(t)  # no reference counts in the calls below
    out = unowned(out)
    for i in range(games.shape[0]):
        observe_into(a, t, np.int64(games[i]), seats[i], out[i])

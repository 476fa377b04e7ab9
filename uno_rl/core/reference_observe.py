"""The reference game's observation: one seat's view as a flat float32 vector.

The layout's pieces (:mod:`.observe_layout` for the classic layout, :mod:`.layout` for the
extended one) filled one by one from the game's plain Python fields: the executable
specification of :func:`uno_rl.core.observe.observe`.
"""

from __future__ import annotations

import numpy as np

from .observe_layout import OTHER_SEATS
from .phases import DRAWN, OVER


def observe_reference(game, seat: int) -> np.ndarray:
    """(obs_size,) float32: what ``seat`` sees of ``game`` (a ``ReferenceGame``)."""
    layout = game.layout
    p, obs = game.num_players, np.zeros(layout.obs_size, dtype=np.float32)
    slices = layout.slices

    def rel(s: int) -> int:
        return (s - seat) % p

    def put(name: str, values, index: int | None = None) -> None:
        piece = obs[slices[name]]
        if index is None:
            piece[:] = values
        else:
            piece[index] = values

    put("hand", game.hands[seat])
    put("top_card", 1.0, game.top)
    if game.color >= 0:
        put("color", 1.0, game.color)
    put("direction", float(game.direction))
    put("phase", 1.0, game.phase)
    if game.phase != OVER:
        put("actor", 1.0, rel(game.actor))
    put("pending_draw", float(game.pending))
    for s in range(p):
        put("hand_sizes", float(game.hand_size(s)), rel(s))
    put("players", 1.0, p - 2)
    put("discard", game.discard)
    put("draw_pile_size", float(len(game.pile)))
    if game.phase == DRAWN and game.actor == seat:
        put("drawn_card", 1.0, game.drawn)
    if layout.draw_four_like[game.top]:
        if game.prev_color >= 0:
            put("previous_color", 1.0, game.prev_color)
        if game.draw4_player >= 0:
            put("draw4_player", 1.0, rel(game.draw4_player))
    if game.reveal_viewer == seat:
        put("revealed_hand", game.revealed)
        put("revealed_seat", 1.0, rel(game.reveal_target))
    for s in range(p):
        put("scores", game.scores[s] / game.rules.match_target, rel(s))
    put("progress", game.turn / game.rules.max_turns)
    symbols = (slices["void_symbol"].stop - slices["void_symbol"].start) // OTHER_SEATS
    for offset in range(1, p):
        other, block = (seat + offset) % p, offset - 1
        if game.void_color[other] >= 0:
            put("void_color", 1.0, 4 * block + game.void_color[other])
        if game.void_symbol[other] >= 0:
            put("void_symbol", 1.0, symbols * block + layout.symbol_slot[game.void_symbol[other]])
        for color in range(5):
            put("played_colors", float(game.played[other][color]), 5 * block + color)
        if game.named[other] >= 0:
            put("named_color", 1.0, 4 * block + game.named[other])
    if not layout.extended:
        return obs
    put("dispenser_presses", float(game.presses))
    put("shuffled", float(game.shuffled))
    if game.swap_seats[0] >= 0:
        for side in (0, 1):
            put("swap_seats", 1.0, rel(game.swap_seats[side]))
            if game.swap_seats[side] == seat:
                put("swap_given", game.swap_given[side])
                put("swap_received", game.swap_given[1 - side])
    return obs

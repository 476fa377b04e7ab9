"""The compiled table of card effects: :func:`card_effect` does what
``ReferenceGame._finish_play`` does with :data:`uno_rl.core.reference.CARD_EFFECTS` (pick the
effect by the card's effect symbol, the 7 and the 0 only under ``seven_zero``), short of the
hand-over itself (the caller passes the result to :func:`.nb_basics.end_turn`).
"""

from __future__ import annotations

import numpy as np

from ..cards import DRAW_TWO_RANK, KIND_RANK, REVERSE_RANK, SKIP_RANK, WILD_DRAW_FOUR
from ..layout import (
    ALL_HIT,
    DOWNPOUR_ONE,
    DOWNPOUR_TWO,
    HIT_FIRE,
    HIT_TWO,
    SHUFFLE_HANDS,
    SWAP_HANDS,
    TARGETED_FOUR,
    TARGETED_TWO,
)
from ..phases import PLAY
from .nb_basics import next_seat
from .nb_draw_effects import downpour, draw_penalty, hits, targeted
from .nb_hand_effects import reverse, seven, shuffle_card, skip, swap_card, zero
from .nb_jit import kernel

_WILD_DRAW_FOUR_RANK = int(KIND_RANK[WILD_DRAW_FOUR])


@kernel
def card_effect(a, t, g, seat, kind, rank, count):
    """The effect of ``count`` cards (int64) of effect symbol ``rank`` (int64,
    ``t.effect_rank[kind]``) that end ``seat``'s play with ``kind`` on top: the hand-over
    ``(next actor, next phase)`` (int64, int64), ``(next seat, PLAY)`` for a card without an
    effect, ``(-1, -1)`` where the effect has itself said who acts or ended the round."""
    if rank == 0 and t.seven_zero:
        return zero(a, t, g, seat, kind, rank, count)
    if rank == 7 and t.seven_zero:
        return seven(a, t, g, seat, kind, rank, count)
    if rank == SKIP_RANK:
        return skip(a, t, g, seat, kind, rank, count)
    if rank == REVERSE_RANK:
        return reverse(a, t, g, seat, kind, rank, count)
    if rank == DRAW_TWO_RANK or rank == _WILD_DRAW_FOUR_RANK:
        return draw_penalty(a, t, g, seat, kind, rank, count)
    if rank == TARGETED_TWO or rank == TARGETED_FOUR:
        return targeted(a, t, g, seat, kind, rank, count)
    if rank == DOWNPOUR_ONE or rank == DOWNPOUR_TWO:
        return downpour(a, t, g, seat, kind, rank, count)
    if rank == HIT_TWO or rank == HIT_FIRE or rank == ALL_HIT:
        return hits(a, t, g, seat, kind, rank, count)
    if rank == SWAP_HANDS:
        return swap_card(a, t, g, seat, kind, rank, count)
    if rank == SHUFFLE_HANDS:
        return shuffle_card(a, t, g, seat, kind, rank, count)
    return next_seat(a, t, g, seat), np.int64(PLAY)

"""Cards that change the order of play: Skip, Reverse and Boomerang (the batched engine).

:mod:`.turns` hands the turn over once a card is resolved; the cards here decide to whom.
:func:`skip` and :func:`reverse` are entries of the effects' table
(:data:`uno_rl.core.effects.CARD_EFFECTS`, whose docstring gives their arguments);
:func:`boomerang_return` is what a Boomerang does when its player (a victim) lays it, and
:func:`after_victim` who plays once a victim has taken a pending draw or Skip. Arguments follow the
core's conventions (:mod:`uno_rl.core`).
"""

from __future__ import annotations

import numpy as np

from .layout import BOOMERANG
from .phases import RESPOND
from .piles import draw_cards
from .state import State
from .views import next_seat

#: A ``next_phase`` a card effect writes when it has already said who acts (a target phase)
#: or ended the round: no hand-over for that game.
NO_HANDOVER = -1


def skip(s, g, seats, kinds, rank, count, next_actor, next_phase) -> None:
    """n Skips: the next n players lose their turn. With Boomerangs in the deck, a single
    Skip's victim may answer it (the respond phase; ``cause`` is its player)."""
    if s.rules.boomerangs:
        single = slice(None) if count is None else count == 1
        s.cause[g[single]] = seats[single]
        next_phase[single] = RESPOND
        if count is None:
            return
        rest = ~single
        g, seats, count = g[rest], seats[rest], count[rest]
    else:
        rest = slice(None)
    if count is not None:
        steps = (1 + count) * s.direction[g]
        next_actor[rest] = (seats + steps) % s.rules.players
    else:
        next_actor[rest] = next_seat(s, g, seats, 2)


def reverse(s, g, seats, kinds, rank, count, next_actor, next_phase) -> None:
    """n Reverses turn the direction of play n times (with two players an odd number may act
    as a Skip)."""
    two_skips = s.rules.players == 2 and s.rules.two_player_reverse_skips
    if count is None:
        s.direction[g] *= -1
        next_actor[:] = seats if two_skips else next_seat(s, g, seats)
        return
    odd = count % 2 == 1
    s.direction[g] *= np.where(odd, -1, 1).astype(np.int8)
    next_actor[:] = next_seat(s, g, seats)
    if two_skips:
        next_actor[:] = np.where(odd, seats, next_actor)


def boomerang_return(s: State, g: np.ndarray, kinds: np.ndarray) -> None:
    """Boomerangs just played by victims (``kinds``: the cards laid in games ``g``): the
    pending draw goes back to ``cause`` (who draws it, unchallengeable), or a pending Skip
    costs ``cause`` their next turn."""
    rows = np.flatnonzero(s.rules.effect_rank[kinds] == BOOMERANG)
    if not rows.size:
        return
    gb = g[rows]
    draws = s.pending[gb] > 0
    draw_cards(s, gb[draws], s.cause[gb[draws]], s.pending[gb[draws]])
    s.pending[gb] = 0
    skipped = gb[~draws]
    s.skip_turn[skipped, s.cause[skipped]] += 1


def after_victim(s: State, g: np.ndarray, victims: np.ndarray) -> np.ndarray:
    """(k,) int8: who plays once ``victims`` took the pending draw (or Skip) of ``cause``:
    the seat after the victim if they were next, else the seat after ``cause``."""
    cause = s.cause[g]
    after_cause = next_seat(s, g, cause)
    return np.where(victims == after_cause, next_seat(s, g, victims), after_cause)

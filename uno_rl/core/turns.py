"""Turn order: handing the turn over, the jump-in window, and the end of a round.

Who acts next is ``actor`` (N,) int8 in phase ``phase`` (N,) int8 (:mod:`uno_rl.core.phases`).
A card's effects (:mod:`.effects`) decide the next seat and phase; :func:`end_turn` hands
over to them, through a jump-in window first when the rules have one (the pending hand-over
waits in ``resume_actor`` / ``resume_phase``, the window's state in ``jump_card``,
``jump_from`` and ``jump_cursor``, all (N,) int8). Every function takes ``s``, ``g`` and
``seats`` (conventions: :mod:`uno_rl.core`).
"""

from __future__ import annotations

import numpy as np

from .phases import JUMP, OVER, PLAY, RESPOND
from .state import State


def start_turn(s: State, g: np.ndarray, seats: np.ndarray) -> None:
    """``seats`` start a turn in the play phase."""
    s.actor[g] = seats
    s.phase[g] = PLAY


def end_turn(
    s: State, g: np.ndarray, seats: np.ndarray, next_actor: np.ndarray, next_phase: np.ndarray
) -> None:
    """Hand over to ``next_actor``, through a jump-in window after a colored card."""
    s.resume_actor[g] = next_actor
    s.resume_phase[g] = next_phase
    if s.rules.jump_in:
        colored = s.rules.layout.kind_color[s.top[g]] >= 0
        if s.rules.stacking == "none":  # a +2 still to be answered: the window opens after it
            colored &= next_phase != RESPOND
        gj = g[colored]
        s.jump_card[gj] = s.top[gj]
        s.jump_from[gj] = seats[colored]
        if gj.size:
            ask_jump(s, gj, np.ones(gj.size, np.int64))
        g, next_actor, next_phase = g[~colored], next_actor[~colored], next_phase[~colored]
    s.actor[g] = next_actor
    s.phase[g] = next_phase


def ask_jump(s: State, g: np.ndarray, cursor: np.ndarray) -> None:
    """Offer the jump-in to the first holder of the card ``cursor`` or more seats along."""
    p = s.rules.players
    offsets = np.arange(1, p)
    seats = (
        s.jump_from[g][:, None].astype(np.int64) + offsets[None, :] * s.direction[g][:, None]
    ) % p
    holds = s.hands[g[:, None], seats, s.jump_card[g][:, None]] > 0
    holds &= offsets[None, :] >= cursor[:, None]
    found = holds.any(axis=1)
    first = holds.argmax(axis=1)
    gf = g[found]
    s.actor[gf] = seats[found, first[found]]
    s.phase[gf] = JUMP
    s.jump_cursor[gf] = offsets[first[found]]
    gn = g[~found]
    s.actor[gn] = s.resume_actor[gn]
    s.phase[gn] = s.resume_phase[gn]


def after_penalty(
    s: State, g: np.ndarray, next_seats: np.ndarray, victims: np.ndarray | None = None
) -> None:
    """After a victim drew: the round ends if a +4 was the last card, else play goes on.

    ``victims`` (who accepted a +2 or +4): without stacking, a +2's jump-in window opens
    now, once its effect is over (as when the victim draws at once), from its player
    (``cause``).
    """
    empty = s.hand_size[g] == 0
    won = empty.any(axis=1)
    if won.any():
        end_round(s, g[won], empty[won].argmax(axis=1).astype(np.int8))
    rest = ~won
    if victims is not None and s.rules.jump_in and s.rules.stacking == "none":
        late = rest & (s.rules.layout.kind_color[s.top[g]] >= 0)
        if late.any():
            gl = g[late]
            plays = np.full(gl.size, PLAY, np.int8)
            end_turn(s, gl, s.cause[gl], next_seats[late], plays)
            rest &= ~late
    start_turn(s, g[rest], next_seats[rest])


def end_round(s: State, g: np.ndarray, winners: np.ndarray) -> None:
    """The round ends in games ``g``, won by ``winners`` ((k,) int8 seats)."""
    s.winner[g] = winners
    s.phase[g] = OVER

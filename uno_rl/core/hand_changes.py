"""Cards that change whole hands: the 7 and 0 of seven-zero, Wild Swap Hands, Wild Shuffle
Hands and Discard All (the batched engine).

:func:`seven`, :func:`zero`, :func:`swap_card` and :func:`shuffle_hands` are entries of the
effects' table (:data:`uno_rl.core.effects.CARD_EFFECTS`, whose docstring gives their
arguments). :func:`swap_hands` answers the target phase of a 7 or a Swap Hands,
:func:`swap_targets` says whom a Swap Hands may choose and :func:`discard_all` is what a
Discard All does as it is laid. Arguments follow the core's conventions (:mod:`uno_rl.core`;
``seats`` the players of the cards).
"""

from __future__ import annotations

import numpy as np

from . import rng
from .layout import DISCARD_ALL
from .phases import PLAY
from .phases import TARGET as TARGET_PHASE
from .piles import shuffled_piles
from .state import State
from .turn_order import NO_HANDOVER
from .turns import end_round, end_turn
from .views import next_seat


def seven(s, g, seats, kinds, rank, count, next_actor, next_phase) -> None:
    """A 7 (seven-zero) asks its player for whom to swap hands with (the target phase)."""
    s.actor[g] = seats
    s.phase[g] = TARGET_PHASE
    next_phase[:] = NO_HANDOVER


def zero(s, g, seats, kinds, rank, count, next_actor, next_phase) -> None:
    """A 0 (seven-zero) passes every hand one seat on in the direction of play."""
    p = s.rules.players
    source = (np.arange(p)[None, :] - s.direction[g][:, None].astype(np.int64)) % p
    s.hands[g] = s.hands[g[:, None], source]
    s.hand_size[g] = s.hand_size[g[:, None], source]
    s.void_color[g] = s.void_color[g[:, None], source]  # what a hand lacked goes with it
    s.void_symbol[g] = s.void_symbol[g[:, None], source]


def swap_targets(s: State, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(k, P-1) bool: the seat offsets 1 .. P-1 (clockwise) a Swap Hands may choose: under
    ``swap_excludes_uno``, nobody holding one card."""
    p = s.rules.players
    offsets = np.arange(1, p)
    if not s.rules.swap_excludes_uno:
        return np.ones((g.size, p - 1), bool)
    others = (seats.astype(np.int64)[:, None] + offsets[None, :]) % p
    return s.hand_size[g[:, None], others] != 1


def swap_card(s, g, seats, kinds, rank, count, next_actor, next_phase) -> None:
    """Wild Swap Hands: its player chooses whom to swap with (the target phase); with
    nobody to choose it is a plain Wild."""
    some = swap_targets(s, g, seats).any(axis=1)
    next_actor[some] = seats[some]
    next_phase[some] = TARGET_PHASE


def swap_hands(s: State, g: np.ndarray, seats: np.ndarray, offsets: np.ndarray) -> None:
    """A 7 (seven-zero) or a Swap Hands: ``seats`` swap hands with the player ``offsets``
    seats clockwise (in the extended layout both hands are remembered: ``swap_seats``,
    ``swap_given``)."""
    other = ((seats.astype(np.int64) + offsets) % s.rules.players).astype(np.int8)
    mine, theirs = s.hands[g, seats].copy(), s.hands[g, other].copy()
    if s.swap_given.shape[2]:
        s.swap_seats[g, 0], s.swap_seats[g, 1] = seats, other
        s.swap_given[g, 0], s.swap_given[g, 1] = mine, theirs
    s.hands[g, seats], s.hands[g, other] = theirs, mine
    for field in (s.hand_size, s.void_color, s.void_symbol):  # what a hand lacked goes with it
        field_mine, field_theirs = field[g, seats].copy(), field[g, other].copy()
        field[g, seats], field[g, other] = field_theirs, field_mine
    end_turn(s, g, seats, next_seat(s, g, seats), np.full(g.size, PLAY, np.int8))


def shuffle_hands(s, g, seats, kinds, rank, count, next_actor, next_phase) -> None:
    """Wild Shuffle Hands: every hand gathered, shuffled (stream SHUFFLE_HANDS, the decision
    number) and dealt one at a time from the player's left (clockwise); what was seen of other
    hands (and what they lacked) is forgotten. A hand left empty wins at once (the first in dealing order)."""
    ss = seats.astype(np.int64)
    p, kinds_n = s.rules.players, s.hands.shape[2]
    counts = s.hands[g].sum(axis=1, dtype=np.int16)
    width = int(counts.sum(axis=1).max())
    piles, total = shuffled_piles(counts, s.key[g], rng.SHUFFLE_HANDS, s.turn[g], width)
    lanes = np.arange(width)
    valid = lanes[None, :] < total[:, None]
    seat_of = (ss[:, None] + 1 + lanes[None, :]) % p
    flat = ((np.arange(g.size)[:, None] * p + seat_of) * kinds_n + piles)[valid]
    hands = np.bincount(flat, minlength=g.size * p * kinds_n).reshape(g.size, p, kinds_n)
    s.hands[g] = hands
    s.hand_size[g] = hands.sum(axis=2)
    s.shuffled[g] = True
    s.revealed[g] = 0
    s.reveal_viewer[g] = -1
    s.reveal_target[g] = -1
    s.swap_seats[g] = -1
    s.swap_given[g] = 0
    s.void_color[g] = -1
    s.void_symbol[g] = -1
    order = (ss[:, None] + 1 + np.arange(p)[None, :]) % p  # dealing order of the seats
    empty = s.hand_size[g[:, None], order] == 0
    out = np.flatnonzero(empty.any(axis=1))
    if out.size:
        winners = order[out, empty[out].argmax(axis=1)].astype(np.int8)
        end_round(s, g[out], winners)
        next_phase[out] = NO_HANDOVER


def discard_all(s: State, g: np.ndarray, seats: np.ndarray, kinds: np.ndarray) -> None:
    """A Discard All just laid (``kinds``: the cards laid in games ``g``): every other card of
    its color in the hand goes onto the discard pile (under it; no effect). Under
    ``discard_all_may_go_out = false`` a hand made only of that color keeps the card of its
    lowest kind."""
    rows = np.flatnonzero(s.rules.effect_rank[kinds] == DISCARD_ALL)
    if not rows.size:
        return
    gd, sd = g[rows], seats[rows]
    layout = s.rules.layout
    same = layout.kind_color[None, :] == layout.kind_color[kinds[rows]][:, None]
    shed = np.where(same, s.hands[gd, sd], 0)
    if not s.rules.discard_all_may_go_out:
        whole = shed.sum(axis=1) == s.hand_size[gd, sd]
        keep = np.flatnonzero(whole & shed.any(axis=1))
        shed[keep, (shed[keep] > 0).argmax(axis=1)] -= 1
    s.hands[gd, sd] -= shed
    s.hand_size[gd, sd] -= shed.sum(axis=1, dtype=np.int16)
    s.discard[gd] += shed

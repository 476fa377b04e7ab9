"""The compiled cards that change the order of play (Skip, Reverse, Boomerang) or whole hands
(the 7 and 0 of seven-zero, Wild Swap Hands, Wild Shuffle Hands, Discard All).

Each function mirrors the method of the same name (without its underscore) of
:class:`~uno_rl.core.reference_turn_order.ReferenceTurnOrder` or
:class:`~uno_rl.core.reference_hands.ReferenceHandChanges`, statement for statement, over
game ``g`` of the batch (``a``: :class:`.nb_state.GameArrays`, mutated in place, ``hands``
(N, P, K) int8 and ``hand_size`` (N, P) int16 kept in step; ``t``:
:class:`.nb_rules.RuleTables`; seats, kinds, ranks and counts are int64). The card effects
(``skip``, ``reverse``, ``seven``, ``zero``, ``swap_card``, ``shuffle_card``) return the
hand-over ``(next actor, next phase)`` as two int64, ``(-1, -1)`` where the reference
returns None.

Random numbers: Shuffle Hands draws stream ``SHUFFLE_HANDS`` of :mod:`uno_rl.core.rng`,
index the decision number ``a.turn[g]``, one lane per card.

Nothing here allocates (:mod:`.nb_jit`): moved hands go through the rule tables' work
arrays (``work_hands``, ``work_sizes``, ``work_voids``, ``work_seats``, ``work_cards``,
``work_dealt``), and arrays are copied element by element.
"""

from __future__ import annotations

import numpy as np

from .. import rng
from ..phases import PLAY, RESPOND
from ..phases import TARGET as TARGET_PHASE
from .nb_basics import add_cards, draw, end_round, hand_size, next_seat
from .nb_jit import kernel
from .nb_random import shuffle_into

_SHUFFLE_HANDS = rng.SHUFFLE_HANDS

# ------------------------------------------------------------------------- turn order


@kernel
def skip(a, t, g, seat, kind, rank, count):
    """``count`` Skips skip ``count`` players; with Boomerangs in the deck a single Skip's
    victim may answer it first (``cause`` is its player)."""
    if t.boomerangs and count == 1:
        a.cause[g] = seat
        return next_seat(a, t, g, seat), np.int64(RESPOND)
    return next_seat(a, t, g, seat, 1 + count), np.int64(PLAY)


@kernel
def reverse(a, t, g, seat, kind, rank, count):
    """``count`` Reverses turn the direction ``count`` times; with two players (and
    ``two_player_reverse_skips``) an odd number gives the turn back to ``seat``."""
    if count % 2:  # direction *= (-1) ** count
        a.direction[g] = -a.direction[g]
    skips = t.players == 2 and t.two_player_reverse_skips and count % 2 != 0
    return (seat if skips else next_seat(a, t, g, seat)), np.int64(PLAY)


@kernel
def boomerang(a, t, g):
    """A Boomerang just played by the victim: the pending draw goes back to ``cause`` (who
    draws it, unchallengeable), or a pending Skip costs ``cause`` their next turn."""
    cause = np.int64(a.cause[g])
    if a.pending[g]:
        draw(a, t, g, cause, np.int64(a.pending[g]))
        a.pending[g] = 0
    else:
        a.skip_turn[g, cause] += 1


# ------------------------------------------------------------------------ hand changes


@kernel
def seven(a, t, g, seat, kind, rank, count):
    """A 7 (seven-zero): its player chooses whom to swap hands with (the target phase)."""
    a.actor[g] = seat
    a.phase[g] = TARGET_PHASE
    return np.int64(-1), np.int64(-1)


@kernel
def zero(a, t, g, seat, kind, rank, count):
    """A 0 (seven-zero): every hand passes one seat on in the direction of play (with its
    ``hand_size``, ``void_color`` and ``void_symbol``)."""
    p, kinds = t.players, t.num_kinds
    direction = np.int64(a.direction[g])
    hands, sizes, voids = t.work_hands, t.work_sizes, t.work_voids
    for i in range(p):
        for k in range(kinds):
            hands[i, k] = a.hands[g, i, k]
        sizes[i] = a.hand_size[g, i]
        voids[0, i] = a.void_color[g, i]
        voids[1, i] = a.void_symbol[g, i]
    for i in range(p):
        j = (i - direction) % p
        for k in range(kinds):
            a.hands[g, i, k] = hands[j, k]
        a.hand_size[g, i] = sizes[j]
        a.void_color[g, i] = voids[0, j]
        a.void_symbol[g, i] = voids[1, j]
    return next_seat(a, t, g, seat), np.int64(PLAY)


@kernel
def swap_card(a, t, g, seat, kind, rank, count):
    """Wild Swap Hands: its player chooses whom to swap with (the target phase), or it is
    a plain Wild with nobody to choose."""
    if swap_targets(a, t, g, seat, t.work_seats):
        return np.int64(seat), np.int64(TARGET_PHASE)
    return next_seat(a, t, g, seat), np.int64(PLAY)


@kernel
def shuffle_card(a, t, g, seat, kind, rank, count):
    """Wild Shuffle Hands: the hands are shuffled (:func:`shuffle_hands`); play goes on
    unless a hand came out empty (the round is over)."""
    if shuffle_hands(a, t, g, seat):
        return np.int64(-1), np.int64(-1)
    return next_seat(a, t, g, seat), np.int64(PLAY)


@kernel
def shuffle_hands(a, t, g, seat):
    """Gather every hand (in kind order), shuffle (stream SHUFFLE_HANDS, index ``turn``)
    and deal one card at a time from ``seat``'s left (clockwise). What was seen of other
    hands is gone. True when a hand comes out empty: the first such seat (in dealing order)
    wins."""
    p, kinds = t.players, t.num_kinds
    total = 0
    for s in range(p):
        total += np.int64(a.hand_size[g, s])
    cards = t.work_cards
    n = 0
    for k in range(kinds):  # sorted(k for hand in hands for k ... for _ in range(hand[k]))
        for s in range(p):
            for _ in range(a.hands[g, s, k]):
                cards[n] = k
                n += 1
    dealt = t.work_dealt
    shuffle_into(t, cards, total, a.key[g], _SHUFFLE_HANDS, a.turn[g], dealt)
    for s in range(p):
        for k in range(kinds):
            a.hands[g, s, k] = 0
        a.hand_size[g, s] = 0
    for j in range(total):
        add_cards(a, g, (seat + 1 + j) % p, np.int64(dealt[j]), 1)
    a.shuffled[g] = True
    for k in range(kinds):
        a.revealed[g, k] = 0
    a.reveal_viewer[g] = -1
    a.reveal_target[g] = -1
    a.swap_seats[g, 0] = -1
    a.swap_seats[g, 1] = -1
    for k in range(a.swap_given.shape[2]):
        a.swap_given[g, 0, k] = 0
        a.swap_given[g, 1, k] = 0
    for s in range(p):
        a.void_color[g, s] = -1
        a.void_symbol[g, s] = -1
    for j in range(p):
        s = (seat + 1 + j) % p
        if not hand_size(a, g, s):
            end_round(a, g, s)
            return True
    return False


@kernel
def swap_targets(a, t, g, seat, out):
    """Seat offsets (1 .. P-1, clockwise) ``seat`` may swap hands with, written into ``out``
    ((>= P-1,) int64); returns how many. Under ``swap_excludes_uno``, nobody holding one
    card (a Swap Hands with no target is a Wild)."""
    n = 0
    for k in range(1, t.players):
        if not t.swap_excludes_uno or hand_size(a, g, (seat + k) % t.players) != 1:
            out[n] = k
            n += 1
    return n


@kernel
def swap(a, t, g, seat, target):
    """``seat`` and ``target`` exchange hands (a 7 or a Swap Hands); in the extended layout
    both hands are remembered (``swap_seats``, ``swap_given``)."""
    if t.extended:
        a.swap_seats[g, 0] = seat
        a.swap_seats[g, 1] = target
        for k in range(t.num_kinds):
            a.swap_given[g, 0, k] = a.hands[g, seat, k]
            a.swap_given[g, 1, k] = a.hands[g, target, k]
    for k in range(t.num_kinds):
        mine = a.hands[g, seat, k]
        a.hands[g, seat, k] = a.hands[g, target, k]
        a.hands[g, target, k] = mine
    size = a.hand_size[g, seat]
    a.hand_size[g, seat] = a.hand_size[g, target]
    a.hand_size[g, target] = size
    void = a.void_color[g, seat]  # what a hand lacked goes with it
    a.void_color[g, seat] = a.void_color[g, target]
    a.void_color[g, target] = void
    void = a.void_symbol[g, seat]
    a.void_symbol[g, seat] = a.void_symbol[g, target]
    a.void_symbol[g, target] = void


@kernel
def discard_all(a, t, g, seat, kind):
    """A Discard All: every other card of its color goes onto the discard pile under it (no
    effect); under ``discard_all_may_go_out = false`` a hand made only of that color keeps
    its lowest kind."""
    color = t.kind_color[kind]
    shed = 0
    for k in range(t.num_kinds):
        if t.kind_color[k] == color:
            shed += np.int64(a.hands[g, seat, k])
    keep = -1  # the kind kept back (shed[1:]), if any
    if not t.discard_all_may_go_out and shed == hand_size(a, g, seat) and shed:
        for k in range(t.num_kinds):
            if t.kind_color[k] == color and a.hands[g, seat, k]:
                keep = k
                break
    for k in range(t.num_kinds):
        if t.kind_color[k] == color:
            n = np.int64(a.hands[g, seat, k]) - (1 if k == keep else 0)
            add_cards(a, g, seat, k, -n)
            a.discard[g, k] += n

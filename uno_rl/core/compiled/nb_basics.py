"""The compiled kernel's primitives over one game ``g``: seats, drawing (with reshuffles),
handing the turn over, the jump-in window, the end of a round, and which cards match.

Every kernel function takes ``(a, t, g, ...)``: ``a`` the :class:`.nb_state.GameArrays` of
the batch (mutated in place), ``t`` the :class:`.nb_rules.RuleTables`, ``g`` the game's
index. Each mirrors the reference method of the same name (:mod:`uno_rl.core.reference`
and its mixins) line for line; the differential tests hold them to it.
"""

from __future__ import annotations

import numpy as np

from .. import rng
from ..phases import JUMP, OVER, PLAY, RESPOND
from .nb_jit import kernel
from .nb_random import shuffle_into
from .nb_rules import code

_NO_STACKING = code("stacking", "none")
_TAKES_BACK = code("caught_bluffer", "takes-back")
_NO_CURRENT_COLOR = code("draw_four_legal", "no-current-color")
_NO_DRAW_FOUR_LAST = code("last_card", "no-draw-four")
_NO_WILD_LAST = code("last_card", "no-wild")
_WILD = 52  # the classic Wild's kind in every layout


@kernel
def next_seat(a, t, g, seat, steps=1):
    """The seat ``steps`` along the direction of play from ``seat``."""
    return (seat + steps * np.int64(a.direction[g])) % t.players


@kernel
def hand_size(a, g, seat):
    """Cards in ``seat``'s hand (``hand_size``, kept in step with ``hands``)."""
    return np.int64(a.hand_size[g, seat])


@kernel
def start_turn(a, g, seat):
    a.actor[g] = seat
    a.phase[g] = PLAY


@kernel
def keeps_card_under_top(a, t, g):
    """A +4 on top under the take-back rule keeps the card beneath it out of a reshuffle."""
    top = a.top[g]
    return (
        t.draw_four_like[top]
        and a.prev_top[g] >= 0
        and t.caught_bluffer == _TAKES_BACK
        and t.challenge_enabled
    )


@kernel
def draw_one(a, t, g, seat):
    """Move one card from the pile to ``seat``'s hand; -1 if both piles are empty. An empty
    pile is refilled by shuffling the discard pile but its top card (and a kept card)."""
    if a.pile_size[g] == 0:
        k = t.num_kinds
        cards = t.work_counts
        for i in range(k):
            cards[i] = a.discard[g, i]
        cards[a.top[g]] -= 1
        if keeps_card_under_top(a, t, g):
            cards[a.prev_top[g]] -= 1
        flat = t.work_cards
        total = 0
        for i in range(k):
            for _ in range(cards[i]):
                flat[total] = i
                total += 1
        if total == 0:
            return -1
        shuffle_into(t, flat, total, a.key[g], rng.RESHUFFLE, a.reshuffles[g], a.pile[g])
        a.pile_size[g] = total
        a.reshuffles[g] += 1
        for i in range(k):
            a.discard[g, i] -= cards[i]
    a.pile_size[g] -= 1
    card = np.int64(a.pile[g, a.pile_size[g]])
    a.hands[g, seat, card] += 1
    a.hand_size[g, seat] += 1
    a.void_color[g, seat] = -1  # it may hold anything again
    a.void_symbol[g, seat] = -1
    return card


@kernel
def draw(a, t, g, seat, count):
    """``seat`` draws ``count`` cards (fewer if both piles run out)."""
    for _ in range(count):
        if draw_one(a, t, g, seat) < 0:
            return


@kernel
def end_round(a, g, winner):
    a.winner[g] = winner
    a.phase[g] = OVER


@kernel
def ask_jump(a, t, g, cursor):
    """Offer the jump-in to the first holder of the card at ``cursor`` seats or more along."""
    for offset in range(cursor, t.players):
        seat = next_seat(a, t, g, a.jump_from[g], offset)
        if a.hands[g, seat, a.jump_card[g]]:
            a.actor[g] = seat
            a.phase[g] = JUMP
            a.jump_cursor[g] = offset
            return
    a.actor[g] = a.resume_actor[g]
    a.phase[g] = a.resume_phase[g]


@kernel
def end_turn(a, t, g, seat, next_actor, next_phase):
    """Hand over to ``next_actor``, through a jump-in window after a colored card."""
    a.resume_actor[g] = next_actor
    a.resume_phase[g] = next_phase
    answer_first = next_phase == RESPOND and t.stacking == _NO_STACKING
    colored = t.kind_color[a.top[g]] >= 0
    if t.jump_in and colored and not answer_first:
        a.jump_card[g] = a.top[g]
        a.jump_from[g] = seat
        ask_jump(a, t, g, 1)
    else:
        a.actor[g] = next_actor
        a.phase[g] = next_phase


@kernel
def after_victim(a, t, g, victim):
    """Who plays once ``victim`` has taken a pending draw or Skip of ``cause``."""
    cause = np.int64(a.cause[g])
    if victim == next_seat(a, t, g, cause):
        return next_seat(a, t, g, victim)
    return next_seat(a, t, g, cause)


@kernel
def after_penalty(a, t, g, next_actor, victim):
    """After a victim drew: the round ends if a hand is empty, else play goes on (``victim``
    -1: none; one who accepted a +2 without stacking opens its jump-in window)."""
    for s in range(t.players):
        if a.hand_size[g, s] == 0:
            end_round(a, g, s)
            return
    if victim >= 0 and t.jump_in and t.stacking == _NO_STACKING and t.kind_color[a.top[g]] >= 0:
        end_turn(a, t, g, np.int64(a.cause[g]), next_actor, PLAY)
    else:
        start_turn(a, g, next_actor)


@kernel
def matches(a, t, g, kind):
    """A colored card matching the current color or the top card's symbol."""
    color = t.kind_color[kind]
    if color < 0:
        return False
    return color == a.color[g] or t.same_symbol[a.top[g], kind]


@kernel
def draw_four_legal(a, t, g, seat):
    """Whether a +4 (or Targeted +4) from ``seat`` is legal now (not a bluff)."""
    k = t.num_kinds
    if t.draw_four_legal == _NO_CURRENT_COLOR:
        for i in range(k):
            if a.hands[g, seat, i] and t.kind_color[i] == a.color[g]:
                return False
        return True
    if not t.extended:
        if a.hands[g, seat, _WILD]:
            return False
        for i in range(52):
            if a.hands[g, seat, i] and matches(a, t, g, i):
                return False
        return True
    for i in range(k):
        if a.hands[g, seat, i] and (matches(a, t, g, i) or t.always_playable[i]):
            return False
    return True


@kernel
def playable(a, t, g, seat, kind):
    """Whether ``kind`` may be played in the play phase (ignoring last-card limits)."""
    if t.draw_four_like[kind]:
        return t.challenge_enabled or draw_four_legal(a, t, g, seat)
    if t.always_playable[kind]:
        return True
    return matches(a, t, g, kind)


@kernel
def last_card_allows(a, t, g, seat, kind):
    """The ``last_card`` switch: whether ``kind`` may be ``seat``'s last card."""
    if a.hand_size[g, seat] != 1:
        return True
    if t.last_card == _NO_DRAW_FOUR_LAST:
        return not t.draw_four_like[kind]
    if t.last_card == _NO_WILD_LAST:
        return t.kind_color[kind] >= 0
    return True


@kernel
def add_cards(a, g, seat, kind, count):
    """``count`` (may be negative) cards of ``kind`` into ``seat``'s hand, ``hand_size`` too."""
    a.hands[g, seat, kind] += count
    a.hand_size[g, seat] += count

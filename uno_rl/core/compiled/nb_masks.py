"""Legal-action masks compiled: the actions the player to act in one game may take, in every
phase, as :func:`uno_rl.core.masks.legal_mask` gives them (and
:meth:`~uno_rl.core.reference_moves.ReferenceMoves.legal_actions` lists them).

:func:`legal_mask_row` fills one game's (A,) bool row; :func:`legal_masks` loops it over a
batch of games. :func:`swap_target_allowed` and :func:`has_swap_target` are the reference's
``_swap_targets`` (whom a Wild Swap Hands may choose), for the target phase's mask and for
the card's effect. Arguments follow the kernel's conventions (:mod:`uno_rl.core.compiled`).
"""

from __future__ import annotations

import numpy as np

from ..actions import ACCEPT, CHALLENGE, CHOOSE_COLOR, DRAW, PASS, TARGET
from ..cards import DRAW_TWO_RANK, WILD, WILD_DRAW_FOUR
from ..layout import SWAP_HANDS
from ..phases import COLOR, DRAWN, JUMP, MULTI, OVER, PLAY, RESPOND
from ..phases import TARGET as TARGET_PHASE
from .nb_basics import draw_four_legal, last_card_allows, playable
from .nb_jit import batch, kernel
from .nb_rules import code
from .nb_struct import borrow, unowned

_MUST_PLAY = code("drawn_card", "must-play")
_NO_CURRENT_COLOR = code("draw_four_legal", "no-current-color")
_NO_STACKING = code("stacking", "none")
_STACK_ANY = code("stacking", "any")
_CLASSIC_COLORED = 52  # kinds 0 .. 51: the classic colored cards, in every layout


@kernel
def allow_kind(t, kind, row):
    """Mark every action that plays ``kind`` (one per named color for a wild) in ``row``."""
    first = t.first_action[kind]
    for action in range(first, first + t.kind_action_count[kind]):
        row[action] = True


@kernel
def swap_target_allowed(a, t, g, seat, offset):
    """Whether ``seat`` may swap hands with the player ``offset`` (1 .. P-1) seats clockwise
    by a Wild Swap Hands: under ``swap_excludes_uno``, not with one holding one card."""
    if not t.swap_excludes_uno:
        return True
    return a.hand_size[g, (seat + offset) % t.players] != 1


@kernel
def has_swap_target(a, t, g, seat):
    """Whether a Wild Swap Hands of ``seat`` has anyone to choose (else it is a plain Wild)."""
    for offset in range(1, t.players):
        if swap_target_allowed(a, t, g, seat, offset):
            return True
    return False


@kernel
def play_row(a, t, g, seat, row):
    """The play phase: every held card that is playable (a +4 kind checked for a bluff when
    there is no challenge) and allowed as a last card; the draw when the rules allow it
    always (``voluntary_draw``) or nothing else is legal."""
    any_card = False
    for kind in range(t.num_kinds):
        if (
            a.hands[g, seat, kind] > 0
            and playable(a, t, g, seat, kind)
            and last_card_allows(a, t, g, seat, kind)
        ):
            allow_kind(t, kind, row)
            any_card = True
    row[DRAW] = t.voluntary_draw or not any_card


@kernel
def allow_answer(a, t, g, seat, kind, row):
    """In the respond phase: mark ``kind`` if held and allowed as a last card (a stacked +4
    only when legal: it is never challenged)."""
    if kind == WILD_DRAW_FOUR and not draw_four_legal(a, t, g, seat):
        return
    if a.hands[g, seat, kind] > 0 and last_card_allows(a, t, g, seat, kind):
        allow_kind(t, kind, row)


@kernel
def respond_row(a, t, g, seat, row):
    """The respond phase: accept; challenge a +4 kind; unless that +4 was its player's last
    card, return the pending card with a Boomerang (decks with Boomerangs) and, on a classic
    +2 or +4, stack (``stacking``: the classic +2 and +4 only) or cancel with a Wild
    (``wild_cancels_draw``)."""
    row[ACCEPT] = True
    top = np.int64(a.top[g])
    on_draw_four = t.draw_four_like[top]
    if t.challenge_enabled and on_draw_four:
        row[CHALLENGE] = True
    bluffer = max(np.int64(a.draw4_player[g]), 0)  # as the batched engine reads it
    if on_draw_four and a.hand_size[g, bluffer] == 0:
        return  # the +4 was its player's last card: only accept or challenge
    boomerang = t.num_kinds - 1  # the extended layout's last kind
    if t.boomerangs and a.hands[g, seat, boomerang] > 0:
        if last_card_allows(a, t, g, seat, boomerang):
            allow_kind(t, boomerang, row)
    on_draw_two = t.kind_rank[top] == DRAW_TWO_RANK
    if top != WILD_DRAW_FOUR and not on_draw_two:
        return  # a Skip or a targeted draw: accept or return it
    if t.stacking != _NO_STACKING:
        if on_draw_two:
            for kind in range(_CLASSIC_COLORED):
                if t.kind_rank[kind] == DRAW_TWO_RANK:
                    allow_answer(a, t, g, seat, kind, row)
            if t.stacking == _STACK_ANY:
                allow_answer(a, t, g, seat, WILD_DRAW_FOUR, row)
        else:
            allow_answer(a, t, g, seat, WILD_DRAW_FOUR, row)
            if t.stacking == _STACK_ANY:
                for kind in range(_CLASSIC_COLORED):
                    if t.kind_rank[kind] == DRAW_TWO_RANK and t.kind_color[kind] == a.color[g]:
                        allow_answer(a, t, g, seat, kind, row)
    if t.wild_cancels_draw:
        allow_answer(a, t, g, seat, WILD, row)


@kernel
def target_row(a, t, g, seat, row):
    """The target phase (a 7, a Swap Hands, a targeted draw): every other seat, but for a
    Swap Hands only those :func:`swap_target_allowed` lets it choose."""
    swap = t.effect_rank[a.top[g]] == SWAP_HANDS
    for offset in range(1, t.players):
        row[TARGET + offset - 1] = not swap or swap_target_allowed(a, t, g, seat, offset)


@kernel
def multi_row(a, t, g, seat, row):
    """The multi phase: another classic colored card of the number being played (while the
    hand keeps a card after it), or stop."""
    if a.hand_size[g, seat] >= 2:
        for kind in range(_CLASSIC_COLORED):
            if a.hands[g, seat, kind] > 0 and t.kind_rank[kind] == a.multi_rank[g]:
                row[kind] = True
    row[PASS] = True


@kernel
def legal_mask_row(a, t, g, row):
    """Write into ``row`` ((A,) bool) the legal actions of the player to act in game ``g``
    (all False once the round is over); ``row`` is cleared first."""
    row[:] = False
    phase = a.phase[g]
    seat = np.int64(a.actor[g])
    if phase == PLAY:
        play_row(a, t, g, seat, row)
    elif phase == DRAWN:
        allow_kind(t, np.int64(a.drawn[g]), row)
        row[PASS] = t.drawn_card != _MUST_PLAY
    elif phase == RESPOND:
        respond_row(a, t, g, seat, row)
    elif phase == TARGET_PHASE:
        target_row(a, t, g, seat, row)
    elif phase == MULTI:
        multi_row(a, t, g, seat, row)
    elif phase == COLOR:
        row[CHOOSE_COLOR : CHOOSE_COLOR + 4] = True
    elif phase == JUMP:
        row[t.first_action[a.jump_card[g]]] = True
        row[PASS] = True


@batch
def legal_masks(a, t, games, out):
    """Write the legal mask of game ``games[i]`` ((k,) int64) into ``out[i]`` ((k, A) bool).
    The play, drawn and color phases are done here, table-driven, with every array read once
    per batch (each attribute read costs a reference count); the other phases by
    :func:`legal_mask_row`."""
    phase, actor, top, color = a.phase, a.actor, a.top, a.color
    hands, hand_size, drawn = a.hands, a.hand_size, a.drawn
    match_rows, always, four_like = t.match_rows, t.always_playable, t.draw_four_like
    last_ok, first_action, action_count = t.last_ok, t.first_action, t.kind_action_count
    k = t.num_kinds
    challenge, voluntary = t.challenge_enabled, t.voluntary_draw
    pass_drawn = t.drawn_card != _MUST_PLAY
    plain_four = t.draw_four_legal != _NO_CURRENT_COLOR
    start = _CLASSIC_COLORED if t.classic_direct else 0
    width = out.shape[1]
    a, t = borrow(a), borrow(t)  # no reference counts in the calls below
    out = unowned(out)
    for i in range(games.shape[0]):
        g = np.int64(games[i])
        for action in range(width):
            out[i, action] = False
        p = phase[g]
        if p == PLAY:
            seat = np.int64(actor[g])
            m = np.int64(top[g]) * 5 + np.int64(color[g]) + 1
            last = hand_size[g, seat] == 1
            found = 0  # held cards matching or always playable (what makes a +4 a bluff)
            allowed = 0  # of them, those allowed as a last card
            for kind in range(start):  # classic colored kinds: action = kind, any last card
                legal = (hands[g, seat, kind] > 0) & match_rows[m, kind]
                out[i, kind] = legal
                found += legal
            allowed = found
            fours = False
            for kind in range(start, k):
                if hands[g, seat, kind] > 0:
                    if four_like[kind]:
                        fours = True
                    elif always[kind] or match_rows[m, kind]:
                        found += 1
                        if not last or last_ok[kind]:
                            allowed += 1
                            first = first_action[kind]
                            for action in range(first, first + action_count[kind]):
                                out[i, action] = True
            if fours:
                if challenge:
                    four_ok = True
                elif plain_four:
                    four_ok = found == 0
                else:
                    four_ok = draw_four_legal(a, t, g, seat)
                if four_ok:
                    for kind in range(start, k):
                        if hands[g, seat, kind] > 0 and four_like[kind]:
                            if not last or last_ok[kind]:
                                allowed += 1
                                first = first_action[kind]
                                for action in range(first, first + action_count[kind]):
                                    out[i, action] = True
            out[i, DRAW] = voluntary or allowed == 0
        elif p == DRAWN:
            kind = np.int64(drawn[g])
            first = first_action[kind]
            for action in range(first, first + action_count[kind]):
                out[i, action] = True
            out[i, PASS] = pass_drawn
        elif p == COLOR:
            for action in range(CHOOSE_COLOR, CHOOSE_COLOR + 4):
                out[i, action] = True
        else:
            legal_mask_row(a, t, g, out[i])


@batch
def first_bad_action(mask, actions, phase, games):
    """The first ``i`` whose ``actions[i]`` ((k,) int64) is out of range, steps a game that
    is over (``phase[games[i]]``) or is not legal in row ``i`` of ``mask`` ((k, A) bool), or
    -1: one pass where the NumPy checks take several (the caller then names the problem)."""
    width = mask.shape[1]
    for i in range(actions.shape[0]):
        action = actions[i]
        if action < 0 or action >= width or phase[games[i]] == OVER or not mask[i, action]:
            return i
    return -1

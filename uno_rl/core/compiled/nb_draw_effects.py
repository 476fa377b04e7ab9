"""The compiled draw cards and their answers: +2 and +4, Targeted +2 / +4, Downpour +1 / +2,
Hit 2, Wild Hit-Fire, Wild All Hit, the dispenser they press, the challenge of a +4, the
victim of a targeted draw, a final card's draws and an extended first card's.

Each function mirrors the method of the same name of
:class:`~uno_rl.core.reference_draws.ReferenceDrawPenalties` (without its underscore),
statement for statement, over game ``g`` of the batch (``a``: :class:`.nb_state.GameArrays`,
mutated in place; ``t``: :class:`.nb_rules.RuleTables`; seats, kinds, ranks and counts are
int64). The card effects (``draw_penalty``, ``targeted``, ``downpour``, ``hits``) return the
hand-over ``(next actor, next phase)`` as two int64, ``(-1, -1)`` where the reference
returns None.

Random numbers: stream ``DISPENSER`` of :mod:`uno_rl.core.rng`, index the round's press
number ``a.press_index[g]`` (int32), lane 0 (fires) or 1 (how many cards a fire shoots).
"""

from __future__ import annotations

import numpy as np

from .. import rng
from ..cards import DRAW_TWO_RANK, WILD_DRAW_FOUR
from ..layout import (
    ALL_HIT,
    DOWNPOUR_ONE,
    DOWNPOUR_TWO,
    HIT_FIRE,
    HIT_TWO,
    TARGETED_FOUR,
    TARGETED_TWO,
)
from ..phases import COLOR, PLAY, RESPOND
from ..phases import TARGET as TARGET_PHASE
from ..state import STAT_NAMES
from .nb_basics import (
    add_cards,
    after_penalty,
    after_victim,
    draw,
    end_round,
    end_turn,
    hand_size,
    next_seat,
    start_turn,
)
from .nb_jit import kernel
from .nb_random import uniform
from .nb_rules import code

_NO_STACKING = code("stacking", "none")
_TAKES_BACK = code("caught_bluffer", "takes-back")
_LOSES_TURN = code("caught_bluffer", "loses-turn")
_DISPENSER = rng.DISPENSER
#: Rows of ``a.stats[g]`` ((len(STAT_NAMES), P) int32).
_CHALLENGES = STAT_NAMES.index("challenges")
_CHALLENGES_WON = STAT_NAMES.index("challenges_won")
_DRAW4_CHALLENGED = STAT_NAMES.index("draw4_challenged")
_BLUFFS_CAUGHT = STAT_NAMES.index("bluffs_caught")


@kernel
def is_draw_two(kind):
    """A classic +2 (kinds 0 .. 51 are the classic colored cards in every layout)."""
    return kind < 52 and kind % 13 == DRAW_TWO_RANK


# ------------------------------------------------------------------ the card effects


@kernel
def draw_penalty(a, t, g, seat, kind, rank, count):
    """A +4, or ``count`` +2s (2 each), add to the pending draw; the victim answers in the
    respond phase where the rules give a choice, or draws at once and loses the turn."""
    a.pending[g] += 4 if kind == WILD_DRAW_FOUR else 2 * count
    a.cause[g] = seat
    victim = next_seat(a, t, g, seat)
    can_respond = (
        t.stacking != _NO_STACKING
        or t.wild_cancels_draw
        or (kind == WILD_DRAW_FOUR and t.challenge_enabled)
        or t.boomerangs
    )
    if can_respond:
        return victim, np.int64(RESPOND)
    draw(a, t, g, victim, np.int64(a.pending[g]))
    a.pending[g] = 0
    return next_seat(a, t, g, victim), np.int64(PLAY)


@kernel
def targeted(a, t, g, seat, kind, rank, count):
    """A Targeted +2 / +4: its player chooses the victim (the target phase)."""
    a.actor[g] = seat
    a.phase[g] = TARGET_PHASE
    return np.int64(-1), np.int64(-1)


@kernel
def downpour(a, t, g, seat, kind, rank, count):
    """Downpour +1 / +2: every other player draws; play goes on."""
    downpour_draws(a, t, g, seat, 1 if rank == DOWNPOUR_ONE else 2, False)
    return next_seat(a, t, g, seat), np.int64(PLAY)


@kernel
def hits(a, t, g, seat, kind, rank, count):
    """Hit 2 / Hit-Fire: the next player is hit and loses the turn; All Hit: every other
    player presses once."""
    if rank == ALL_HIT:
        for i in range(1, t.players):
            press(a, t, g, next_seat(a, t, g, seat, i), 1)
        return next_seat(a, t, g, seat), np.int64(PLAY)
    victim = next_seat(a, t, g, seat)
    hit(a, t, g, victim, rank)
    return next_seat(a, t, g, victim), np.int64(PLAY)


# ------------------------------------------------------------------------- drawing


@kernel
def downpour_draws(a, t, g, seat, amount, final):
    """Every other player draws ``amount``, in order of play from ``seat``'s next
    (``downpour_includes_self``: ``seat`` too, last, unless it was their ``final`` card)."""
    for i in range(1, t.players):
        draw(a, t, g, next_seat(a, t, g, seat, i), amount)
    if t.downpour_includes_self and not final:
        draw(a, t, g, seat, amount)


@kernel
def press(a, t, g, seat, presses):
    """``seat`` presses the dispenser ``presses`` times (without one: draws as many). A press
    fires when ``uniform(key, DISPENSER, press_index, 0) < dispenser_hazard[presses so far]``."""
    if not t.dispenser_on:
        draw(a, t, g, seat, presses)
        return
    hazard = t.dispenser_hazard
    for _ in range(presses):
        u = uniform(a.key[g], _DISPENSER, a.press_index[g], 0)
        if u < hazard[min(np.int64(a.presses[g]), hazard.size - 1)]:
            draw(a, t, g, seat, fire_count(a, t, g))
            a.presses[g] = 0
        else:
            a.presses[g] += 1
            a.press_index[g] += 1


@kernel
def fire_count(a, t, g):
    """Cards shot by the fire of press ``press_index`` (which it uses up): one more than
    ``searchsorted(dispenser_cdf, uniform(..., 1), 'right')``, at most the last count."""
    u = uniform(a.key[g], _DISPENSER, a.press_index[g], 1)
    cdf = t.dispenser_cdf
    a.press_index[g] += 1
    above = 0  # searchsorted(cdf, u, side="right"): the entries <= u (cdf is sorted)
    while above < cdf.size and cdf[above] <= u:
        above += 1
    return min(above, cdf.size - 1) + 1


@kernel
def hit(a, t, g, victim, rank):
    """A Hit 2 (two presses) or a Wild Hit-Fire (presses until it fires; without a
    dispenser: draws what one fire shoots) on ``victim``."""
    if rank == HIT_TWO:
        press(a, t, g, victim, 2)
    elif not t.dispenser_on:
        draw(a, t, g, victim, fire_count(a, t, g))
    else:
        hazard = t.dispenser_hazard
        while True:  # the last hazard is 1: at most len(hazard) presses
            u = uniform(a.key[g], _DISPENSER, a.press_index[g], 0)
            if u < hazard[min(np.int64(a.presses[g]), hazard.size - 1)]:
                draw(a, t, g, victim, fire_count(a, t, g))
                a.presses[g] = 0
                return
            a.presses[g] += 1
            a.press_index[g] += 1


# ------------------------------------------------------------------------ the answers


@kernel
def challenge(a, t, g, seat):
    """``seat`` challenges the +4 (or Targeted +4) of ``draw4_player``."""
    bluffer = np.int64(a.draw4_player[g])
    a.stats[g, _CHALLENGES, seat] += 1
    a.stats[g, _DRAW4_CHALLENGED, bluffer] += 1
    for k in range(t.num_kinds):
        a.revealed[g, k] = a.hands[g, bluffer, k]
    a.reveal_viewer[g] = seat
    a.reveal_target[g] = bluffer
    if a.draw4_bluff[g]:
        a.stats[g, _CHALLENGES_WON, seat] += 1
        a.stats[g, _BLUFFS_CAUGHT, bluffer] += 1
        if t.caught_bluffer == _TAKES_BACK:  # the +4 (or Targeted +4) goes back
            top = np.int64(a.top[g])
            add_cards(a, g, bluffer, top, 1)
            a.discard[g, top] -= 1
            a.top[g] = a.prev_top[g]
            a.color[g] = a.prev_color[g]
            a.prev_top[g] = -1  # nothing lies under the restored card that could come back
        if t.caught_bluffer == _LOSES_TURN and hand_size(a, g, bluffer):
            a.skip_turn[g, bluffer] += 1  # draws nothing, loses the next turn
        else:  # draws-4, takes-back, or a loses-turn bluffer caught on their last card
            draw(a, t, g, bluffer, np.int64(a.pending[g]))
        a.pending[g] = 0
        start_turn(a, g, next_seat(a, t, g, bluffer))  # the challenger, if they were next
    else:
        draw(a, t, g, seat, np.int64(a.pending[g]) + 2)
        a.pending[g] = 0
        after_penalty(a, t, g, after_victim(a, t, g, seat), -1)


@kernel
def target_draw(a, t, g, seat, victim):
    """A Targeted +2 / +4 of ``seat`` on ``victim``: they answer (a challenge of the +4, a
    Boomerang) where they can, or draw at once; if they were next they lose the turn,
    otherwise play goes on after ``seat``. A final card's round then ends."""
    a.pending[g] = 2 if t.effect_rank[a.top[g]] == TARGETED_TWO else 4
    a.cause[g] = seat
    final = hand_size(a, g, seat) == 0
    challenges = a.pending[g] == 4 and t.challenge_enabled
    if challenges or (t.boomerangs and not final):
        a.actor[g] = victim
        a.phase[g] = RESPOND
        return
    draw(a, t, g, victim, np.int64(a.pending[g]))
    a.pending[g] = 0
    if final:
        end_round(a, g, seat)
    else:
        end_turn(a, t, g, seat, after_victim(a, t, g, victim), PLAY)


# ---------------------------------------------------------------- last and first cards


@kernel
def play_last_card(a, t, g, seat, kind):
    """``seat`` emptied their hand with ``kind``: a final draw card still acts (a final +4
    may be challenged first, a targeted draw asks for its victim first), then the round
    ends."""
    victim = next_seat(a, t, g, seat)
    if kind == WILD_DRAW_FOUR and t.challenge_enabled and a.pending[g] == 0:
        a.pending[g] = 4
        a.actor[g] = victim
        a.phase[g] = RESPOND
        return
    if kind == WILD_DRAW_FOUR or is_draw_two(kind):
        draw(a, t, g, victim, np.int64(a.pending[g]) + (4 if kind == WILD_DRAW_FOUR else 2))
        a.pending[g] = 0
    rank = np.int64(t.effect_rank[kind])
    if rank == TARGETED_TWO or rank == TARGETED_FOUR:
        a.actor[g] = seat
        a.phase[g] = TARGET_PHASE
        return  # its victim is still to be chosen
    if rank == DOWNPOUR_ONE or rank == DOWNPOUR_TWO:
        downpour_draws(a, t, g, seat, 1 if rank == DOWNPOUR_ONE else 2, True)
    elif rank == HIT_TWO or rank == HIT_FIRE:
        hit(a, t, g, next_seat(a, t, g, seat), rank)
    elif rank == ALL_HIT:
        for i in range(1, t.players):
            press(a, t, g, next_seat(a, t, g, seat, i), 1)
    end_round(a, g, seat)


@kernel
def first_card_draws(a, t, g, top, first, dealer):
    """An extended draw card turned first: a Downpour makes every player but the dealer draw
    and an All Hit every player but the dealer press (from the first player on); a Hit 2 or
    Hit-Fire hits the first player, who loses the turn."""
    p = t.players
    rank = np.int64(t.kind_rank[top])
    if rank == DOWNPOUR_ONE or rank == DOWNPOUR_TWO:
        for j in range(1, p):
            draw(a, t, g, (dealer + j) % p, 1 if rank == DOWNPOUR_ONE else 2)
    elif rank == ALL_HIT:
        for j in range(1, p):
            press(a, t, g, (dealer + j) % p, 1)
    elif rank == TARGETED_TWO:  # hits the first player like a +2
        draw(a, t, g, first, 2)
        if t.first_draw_two_skips:
            a.actor[g] = next_seat(a, t, g, first)
    elif rank == HIT_TWO or rank == HIT_FIRE:
        hit(a, t, g, first, rank)
        if a.phase[g] == COLOR:  # play starts after the color is named
            a.resume_actor[g] = next_seat(a, t, g, first)
        else:
            a.actor[g] = next_seat(a, t, g, first)

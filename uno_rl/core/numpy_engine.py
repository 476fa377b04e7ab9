"""The NumPy engine: reset, legal masks and step over N games at once, in NumPy alone.

Every function works on a :class:`~uno_rl.core.state.State` of N games and mutates it in
place. Branches are boolean masks and index arrays over the games that take them; there
is no Python loop over games, players or cards (the only loops run over draw rounds of a
draw-until-playable turn or a reshuffle, a handful of iterations for the few games
concerned). The semantics are those of :mod:`uno_rl.core.reference`, which the
differential tests hold this module to, decision by decision.

This module is the NumPy engine's face (:mod:`uno_rl.core.engine` calls it where the
compiled engine is not used): :func:`step` (the dispatch of one action per game to its
handler) and the rest of the API, re-exported from the modules that do the work, each about
one concern:

==============  ==================================================================
module          concern
==============  ==================================================================
``tables``      lookup tables derived from the card kinds, built at import
``views``       flat views, (game, seat) rows, seat order, grouping games
``deal``        ``reset``, ``reset_games``: shuffle, deal, first card
``piles``       drawing cards, refilling the draw pile (reshuffles)
``legality``    which cards match, +4 bluffs, the last-card switch
``masks``       ``legal_mask``: one mask writer per phase
``card_moves``  laying a card (+4 record, UNO penalty, multi-play), drawing
``effects``     what a card does once played: one symbol-to-handler table over
                ``draw_penalties`` (draws, stacking, accepting, challenging),
                ``turn_order`` (skip, reverse, boomerang), ``hand_changes`` (7-0,
                swap, shuffle, discard all) and ``dispenser``
``turns``       handing the turn over, the jump-in window, the end of a round
``scoring``     ``StepResult``, scoring, the match (``match_winner``)
``sampling``    ``sample_legal_actions``: uniformly random legal actions
==============  ==================================================================
"""

from __future__ import annotations

import functools

import numpy as np

from .actions import (
    ACCEPT,
    CHALLENGE,
    DRAW,
    PASS,
)
from .card_moves import draw_action, play_card
from .deal import reset, reset_games
from .draw_penalties import target_draw
from .effects import accept, challenge, finish_play, swap_hands
from .layout import TARGETED_FOUR, TARGETED_TWO, Layout
from .masks import check_actions, check_games, legal_mask
from .observe import observe_numpy as observe
from .phases import JUMP, MULTI
from .sampling import sample_numpy as sample_legal_actions
from .scoring import StepResult, close_step, match_winner
from .state import State
from .turns import ask_jump, start_turn
from .views import group, next_seat

__all__ = [
    "StepResult",
    "legal_mask",
    "match_winner",
    "observe",
    "reset",
    "reset_games",
    "sample_legal_actions",
    "step",
]


def step(state: State, actions, games=None, *, validate: bool = True) -> StepResult:
    """Apply one action per game (:func:`uno_rl.core.engine.step`: the arguments, checks,
    errors and result are described there)."""
    s = state
    if validate:
        rows = None if games is None else check_games(s, games)
        actions = check_actions(s, actions, rows, legal_mask)
    else:
        rows = None if games is None else np.asarray(games, np.int64)
        actions = np.asarray(actions, np.int64)
    seat, phase = s.actor.copy(), s.phase.copy()
    if rows is not None:  # handlers index by game: spread the actions over all N
        spread = np.zeros(s.num_games, np.int64)
        spread[rows] = actions
        actions = spread
    s._mask = s._rows_mask = None
    stepped = actions if rows is None else actions[rows]
    stepped_phase = phase if rows is None else phase[rows]
    layout = s.rules.layout
    by_action = _action_categories(layout)
    category = np.where(stepped == PASS, _PASS_CATEGORY[stepped_phase], by_action[stepped])
    groups = group(category, _NUM_CATEGORIES)
    if rows is not None:
        groups = [rows[g] for g in groups]

    g = groups[_CAT_PLAY]
    if g.size:
        a = actions[g]
        kinds = layout.action_card[a].astype(np.int64)
        play_card(s, g, seat[g], kinds, layout.action_color[a], phase[g])
    g = groups[_CAT_DRAW]
    if g.size:
        draw_action(s, g, seat[g])
    g = groups[_CAT_KEEP]
    if g.size:
        start_turn(s, g, next_seat(s, g, seat[g]))
    g = groups[_CAT_STOP_MULTI]
    if g.size:
        finish_play(s, g, seat[g], s.top[g].astype(np.int64), s.multi_count[g])
    g = groups[_CAT_NO_JUMP]
    if g.size:
        ask_jump(s, g, s.jump_cursor[g].astype(np.int64) + 1)
    g = groups[_CAT_ACCEPT]
    if g.size:
        accept(s, g, seat[g])
    g = groups[_CAT_CHALLENGE]
    if g.size:
        challenge(s, g, seat[g])
    g = groups[_CAT_COLOR]
    if g.size:
        s.color[g] = layout.action_color[actions[g]]
        # play starts left of the dealer, or after a first Wild Hit-Fire's victim
        after_dealer = ((s.dealer[g].astype(np.int64) + 1) % s.rules.players).astype(np.int8)
        start_turn(s, g, np.where(s.resume_actor[g] >= 0, s.resume_actor[g], after_dealer))
    g = groups[_CAT_TARGET]
    if g.size:
        offsets = layout.action_target[actions[g]]
        if layout.extended:  # a targeted draw's victim, or a swap
            targeted = np.isin(s.rules.effect_rank[s.top[g]], (TARGETED_TWO, TARGETED_FOUR))
            if targeted.any():
                target_draw(s, g[targeted], seat[g[targeted]], offsets[targeted])
            g, offsets = g[~targeted], offsets[~targeted]
        swap_hands(s, g, seat[g], offsets)
    return close_step(s, rows)


# Step dispatch: every (action, phase) falls in one category, handled for its games at once.
(
    _CAT_PLAY,
    _CAT_DRAW,
    _CAT_KEEP,
    _CAT_STOP_MULTI,
    _CAT_NO_JUMP,
    _CAT_ACCEPT,
    _CAT_CHALLENGE,
    _CAT_COLOR,
    _CAT_TARGET,
) = range(9)
_NUM_CATEGORIES = 9


@functools.cache
def _action_categories(layout: Layout) -> np.ndarray:
    """(A,) int8: the step category of each action of ``layout`` (built once per layout):
    every action that plays a card (the extended layout's new ones included) is a play."""
    category = np.full(layout.num_actions, _CAT_PLAY, np.int8)
    category[DRAW] = _CAT_DRAW
    category[ACCEPT] = _CAT_ACCEPT
    category[CHALLENGE] = _CAT_CHALLENGE
    category[layout.action_target > 0] = _CAT_TARGET
    category[(layout.action_card < 0) & (layout.action_color >= 0)] = _CAT_COLOR
    return category


#: category of PASS by phase (PASS is only legal in the drawn, multi and jump phases)
_PASS_CATEGORY = np.full(8, _CAT_KEEP, np.int8)
_PASS_CATEGORY[MULTI] = _CAT_STOP_MULTI
_PASS_CATEGORY[JUMP] = _CAT_NO_JUMP

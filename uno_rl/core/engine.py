"""The batched engine: reset, legal masks and step over N games at once.

Every function works on a :class:`~uno_rl.core.state.State` of N games and mutates it in
place. Branches are boolean masks and index arrays over the games that take them; there
is no Python loop over games, players or cards (the only loops run over draw rounds of a
draw-until-playable turn or a reshuffle, a handful of iterations for the few games
concerned). The semantics are those of :mod:`uno_rl.core.reference`, which the
differential tests hold this module to, decision by decision.

This module is the engine's public face: :func:`step` (the dispatch of one action per game
to its handler) and the names the other layers use, re-exported from the modules that do
the work, each about one concern:

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

Edge cases decided once:

* Stepping a game whose round (or match) is over raises ``ValueError``: reset it with
  :func:`reset_games` first (its legal mask is all False).
* An illegal action raises ``ValueError`` naming the game index, the action's meaning
  and the legal actions; nothing is substituted and the state is left untouched.
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
from .masks import check_games, legal_mask
from .phases import JUMP, MULTI, OVER, PHASE_NAMES
from .sampling import sample_legal_actions
from .scoring import StepResult, close_step, match_winner
from .state import State
from .turns import ask_jump, start_turn
from .views import group, next_seat

__all__ = [
    "StepResult",
    "legal_mask",
    "match_winner",
    "reset",
    "reset_games",
    "sample_legal_actions",
    "step",
]


def step(state: State, actions, games=None, *, validate: bool = True) -> StepResult:
    """Apply one action per game, for whichever player is to act in it.

    Args:
        state: N games, none of them over; mutated in place.
        actions: (N,) integer actions (see :mod:`uno_rl.core.actions`), or (k,) with ``games``.
        games: optional (k,) distinct game indices: step only these games (the others are
            untouched); the result then has k rows, in the order of ``games``.
        validate: check ``games`` and ``actions`` (shape, range, legality, games not over).
            Only a caller that has already checked the actions against :func:`legal_mask`
            (the vector env) may pass False: an unchecked bad action corrupts the state.

    Returns:
        A :class:`StepResult`. In match mode a finished round is followed at once by the
        next round's deal (unless the match is over); otherwise a finished game stays over
        until :func:`reset_games`.

    Raises:
        ValueError: wrong shape or type, an action out of range, an illegal action, or a
            game that is already over. The state is unchanged.
    """
    s = state
    if validate:
        rows = None if games is None else check_games(s, games)
        actions = _check_actions(s, actions, rows)
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


def _check_actions(s: State, actions, games: np.ndarray | None = None) -> np.ndarray:
    """The actions as int64 (one per game of ``games``, or of the batch), or a clear error."""
    array = np.asarray(actions)
    layout = s.rules.layout
    width = layout.num_actions
    ids = np.arange(s.num_games) if games is None else games
    n = ids.size
    if array.shape != (n,):
        raise ValueError(f"actions must have shape ({n},) (one per game), got {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"actions must be integers, got dtype {array.dtype}")
    bad = np.flatnonzero((array < 0) | (array >= width))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"game {int(ids[i])}: action {int(array[i])} is out of range [0, {width})")
    over = np.flatnonzero(s.phase[ids] == OVER)
    if over.size:
        raise ValueError(
            f"game {int(ids[over[0]])}: the game is over; reset it (reset_games) before stepping"
        )
    array = array.astype(np.int64)
    mask = legal_mask(s, games)
    illegal = np.flatnonzero(~mask[np.arange(n), array])
    if illegal.size:
        i = int(illegal[0])
        game = int(ids[i])
        legal = np.flatnonzero(mask[i])
        raise ValueError(
            f"game {game}: illegal action {int(array[i])} ({layout.action_name(int(array[i]))}) for "
            f"seat {int(s.actor[game])} in phase '{PHASE_NAMES[s.phase[game]]}'; legal actions: "
            + ", ".join(f"{a} ({layout.action_name(a)})" for a in legal)
        )
    return array

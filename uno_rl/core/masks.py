"""Legal-action masks: :func:`legal_mask` over N games, one writer per phase of the turn.

A mask is (k, 77) bool over the action table of :mod:`uno_rl.core.actions`; a game whose
round is over has an all-False row. Each phase's writer fills the rows of the games in that
phase from the acting seat's (k, 54) int8 hand; most games are in the play phase, so every
row is first masked as in it and the other phases overwrite theirs. A new phase is a writer
plus its entry in ``_PHASE_MASKS`` (indexed by :mod:`uno_rl.core.phases`).
"""

from __future__ import annotations

import numpy as np

from .actions import (
    ACCEPT,
    CHALLENGE,
    CHOOSE_COLOR,
    DRAW,
    NUM_ACTIONS,
    PASS,
    PLAY_DRAW_FOUR,
    PLAY_WILD,
    TARGET,
)
from .cards import KIND_COLOR, KIND_RANK, NUM_KINDS, WILD, WILD_DRAW_FOUR
from .legality import draw_four_legal, last_card_filter, matches
from .phases import PLAY
from .state import State
from .tables import IS_DRAW_TWO, KIND_ACTIONS
from .views import group, hand_of


def legal_mask(state: State, games=None, *, validate: bool = True) -> np.ndarray:
    """(N, 77) bool: the legal actions of the player to act in each game (none once over).

    With ``games`` (an index array of distinct games), only those rows: (k, 77). The full
    mask is cached until the next step; treat results as read-only. ``validate=False``
    skips checking ``games`` (for callers that built the index themselves).
    """
    if games is None:
        if state._mask is None:
            state._mask = _mask_rows(state, np.arange(state.num_games))
        return state._mask
    games = check_games(state, games) if validate else np.asarray(games, np.int64)
    if state._mask is not None:
        return state._mask[games]
    cached = state._rows_mask
    if cached is not None and cached[0].shape == games.shape and (cached[0] == games).all():
        return cached[1]
    mask = _mask_rows(state, games)
    state._rows_mask = (games, mask)
    return mask


def _mask_rows(s: State, games: np.ndarray) -> np.ndarray:
    """(k, 77) bool legal masks of ``games``."""
    mask = np.zeros((games.size, NUM_ACTIONS), dtype=bool)
    phase = s.phase[games]
    hand = hand_of(s, games, s.actor[games])
    # Most games are in the play phase: mask every row as in it, then overwrite the others.
    _play_mask(s, games, hand, mask)
    if not (phase == PLAY).all():
        for ph, rows in enumerate(group(phase, len(_PHASE_MASKS))):
            if rows.size and ph != PLAY:
                part = np.zeros((rows.size, NUM_ACTIONS), dtype=bool)
                if _PHASE_MASKS[ph] is not None:
                    _PHASE_MASKS[ph](s, games[rows], hand[rows], part)
                mask[rows] = part
    return mask


def check_games(s: State, games) -> np.ndarray:
    """``games`` as an int64 index array of distinct games in range, or a clear error."""
    index = np.asarray(games)
    if index.ndim != 1 or not np.issubdtype(index.dtype, np.integer) or index.dtype == bool:
        raise ValueError(
            f"games must be a 1-d array of game indices, got {index.dtype} {index.shape}"
        )
    index = index.astype(np.int64, copy=False)
    if index.size and (index.min() < 0 or index.max() >= s.num_games):
        raise ValueError(f"game indices must be in [0, {s.num_games})")
    if index.size > 1 and np.bincount(index, minlength=s.num_games).max() > 1:
        raise ValueError("games must not repeat a game")
    return index


def _cards_to_actions(cards_ok: np.ndarray, out: np.ndarray) -> None:
    """Write (k, 54) playable flags as play actions into ``out`` (k, 77)."""
    out[:, :52] = cards_ok[:, :52]
    out[:, PLAY_WILD : PLAY_WILD + 4] = cards_ok[:, WILD : WILD + 1]
    out[:, PLAY_DRAW_FOUR : PLAY_DRAW_FOUR + 4] = cards_ok[:, WILD_DRAW_FOUR : WILD_DRAW_FOUR + 1]


def _play_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    held = hand > 0
    ok = held & matches(s, g)
    ok[:, WILD] = held[:, WILD]
    d4 = held[:, WILD_DRAW_FOUR]
    if not s.rules.challenge_enabled and d4.any():
        rows = np.flatnonzero(d4)
        d4[rows] = draw_four_legal(s, g[rows], hand[rows])
    ok[:, WILD_DRAW_FOUR] = d4
    last_card_filter(s, g, ok)
    _cards_to_actions(ok, out)
    out[:, DRAW] = True if s.rules.voluntary_draw else ~ok.any(axis=1)


def _drawn_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    np.take(KIND_ACTIONS, s.drawn[g], axis=0, out=out)
    out[:, PASS] = s.rules.drawn_card != "must-play"


def _respond_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    rules = s.rules
    top = s.top[g]
    out[:, ACCEPT] = True
    on_d4 = top == WILD_DRAW_FOUR
    if rules.challenge_enabled:
        out[:, CHALLENGE] = on_d4
    bluffer = np.maximum(s.draw4_player[g], 0)
    final = on_d4 & (s.hand_size[g, bluffer] == 0)  # +4 was the last card: accept or challenge
    allowed = np.zeros((g.size, NUM_KINDS), dtype=bool)
    if rules.stacking != "none":
        on_d2 = IS_DRAW_TWO[top]
        allowed[on_d2[:, None] & IS_DRAW_TWO[None, :]] = True
        allowed[:, WILD_DRAW_FOUR] = on_d4 | (on_d2 & (rules.stacking == "any"))
        if rules.stacking == "any":
            same_color = KIND_COLOR[None, :] == s.color[g][:, None]
            allowed |= on_d4[:, None] & IS_DRAW_TWO[None, :] & same_color
    if rules.wild_cancels_draw:
        allowed[:, WILD] = True
    ok = allowed & (hand > 0) & ~final[:, None]
    if rules.stacking != "none":  # a stacked +4 is never challenged: the mask checks it
        rows = np.flatnonzero(ok[:, WILD_DRAW_FOUR])
        if rows.size:
            ok[rows, WILD_DRAW_FOUR] = draw_four_legal(s, g[rows], hand[rows])
    last_card_filter(s, g, ok)
    _cards_to_actions(ok, out)


def _target_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    out[:, TARGET : TARGET + s.rules.players - 1] = True


def _multi_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    same = KIND_RANK[None, :52] == s.multi_rank[g][:, None]
    room = s.hand_size[g, s.actor[g]] >= 2
    out[:, :52] = same & (hand[:, :52] > 0) & room[:, None]
    out[:, PASS] = True


def _color_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    out[:, CHOOSE_COLOR : CHOOSE_COLOR + 4] = True


def _jump_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    out[np.arange(g.size), s.jump_card[g]] = True
    out[:, PASS] = True


#: legal-mask writer of each phase (None: nobody acts)
_PHASE_MASKS = (
    _play_mask,
    _drawn_mask,
    _respond_mask,
    _target_mask,
    _multi_mask,
    _color_mask,
    _jump_mask,
    None,
)

"""Legal-action masks: :func:`legal_mask` over N games, one writer per phase of the turn.

A mask is (k, A) bool over the actions of the rules' layout (conventions:
:mod:`uno_rl.core`); a game whose round is over has an all-False row. Each phase's writer
fills the rows of the games in that phase from the acting seat's (k, K) int8 hand; most games
are in the play phase, so every row is first masked as in it and the other phases overwrite
theirs. A new phase is a writer
plus its entry in ``_PHASE_MASKS`` (indexed by :mod:`uno_rl.core.phases`).
"""

from __future__ import annotations

import numpy as np

from .actions import (
    ACCEPT,
    CHALLENGE,
    CHOOSE_COLOR,
    DRAW,
    PASS,
    TARGET,
)
from .cards import KIND_RANK, WILD, WILD_DRAW_FOUR
from .hand_changes import swap_targets
from .layout import SWAP_HANDS
from .legality import draw_four_legal, last_card_filter, matches
from .phases import OVER, PHASE_NAMES, PLAY
from .state import State
from .views import group, hand_of


def legal_mask(state: State, games=None, *, validate: bool = True) -> np.ndarray:
    """(N, A) bool: the legal actions of the player to act in each game (none once over).

    With ``games`` (an index array of distinct games), only those rows: (k, A). The full
    mask is cached until the next step; treat results as read-only. ``validate=False``
    skips checking ``games`` (for callers that built the index themselves).
    """
    return cached_mask(state, games, validate, _mask_rows)


def cached_mask(state: State, games, validate: bool, mask_rows) -> np.ndarray:
    """:func:`legal_mask`'s caching and checks around ``mask_rows(state, games)`` ((k,) int64
    games -> (k, A) bool: the NumPy engine's or the compiled engine's masks)."""
    if games is None:
        if state._mask is None:
            state._mask = mask_rows(state, np.arange(state.num_games, dtype=np.int64))
        return state._mask
    games = check_games(state, games) if validate else np.asarray(games, np.int64)
    if state._mask is not None:
        return state._mask[games]
    cached = state._rows_mask
    if cached is not None and cached[0].shape == games.shape and (cached[0] == games).all():
        return cached[1]
    mask = mask_rows(state, games)
    state._rows_mask = (games, mask)
    return mask


def _mask_rows(s: State, games: np.ndarray) -> np.ndarray:
    """(k, A) bool legal masks of ``games``."""
    width = s.rules.layout.num_actions
    mask = np.zeros((games.size, width), dtype=bool)
    phase = s.phase[games]
    hand = hand_of(s, games, s.actor[games])
    # Most games are in the play phase: mask every row as in it, then overwrite the others.
    _play_mask(s, games, hand, mask)
    if not (phase == PLAY).all():
        for ph, rows in enumerate(group(phase, len(_PHASE_MASKS))):
            if rows.size and ph != PLAY:
                part = np.zeros((rows.size, width), dtype=bool)
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


def _cards_to_actions(s: State, cards_ok: np.ndarray, out: np.ndarray) -> None:
    """Write (k, K) playable flags as play actions into ``out`` (k, A, all False before):
    each action that plays a kind takes that kind's flag (a wild's goes to the four actions
    naming a color), run by run of the layout's ``play_runs``."""
    for actions, kinds, colors in s.rules.layout.play_runs:
        if colors == 1:
            out[:, actions] = cards_ok[:, kinds]
        elif kinds.stop - kinds.start <= 2:  # the classic Wild and +4: broadcast each flag
            for j, kind in enumerate(range(kinds.start, kinds.stop)):
                first = actions.start + j * colors
                out[:, first : first + colors] = cards_ok[:, kind : kind + 1]
        else:  # many wild kinds (the extended layout's): few hands hold one
            flags = cards_ok[:, kinds]
            rows = np.flatnonzero(flags.any(axis=1))
            if rows.size:
                out[rows, actions] = np.repeat(flags[rows], colors, axis=1)


def _play_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    """The play phase: matching colored cards, the wilds always, the +4 kinds (+4,
    Targeted +4) as the +4 (checked for a bluff when there is no challenge), Boomerang
    never (it only answers)."""
    layout = s.rules.layout
    held = hand > 0
    ok = held & matches(s, g)
    wilds, fours = layout.always_playable_kinds, layout.draw_four_kinds
    ok[:, wilds] = held[:, wilds]  # colorless: no color or symbol matched them
    d4 = held[:, fours]
    if not s.rules.challenge_enabled:
        rows = np.flatnonzero(d4.any(axis=1))
        if rows.size:
            d4[rows] &= draw_four_legal(s, g[rows], hand[rows])[:, None]
    ok[:, fours] = d4
    last_card_filter(s, g, ok)
    _cards_to_actions(s, ok, out)
    out[:, DRAW] = True if s.rules.voluntary_draw else ~ok.any(axis=1)


def _drawn_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    np.take(s.rules.layout.kind_actions, s.drawn[g], axis=0, out=out)
    out[:, PASS] = s.rules.drawn_card != "must-play"


def _respond_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    rules, layout = s.rules, s.rules.layout
    top = s.top[g]
    out[:, ACCEPT] = True
    on_d4 = layout.draw_four_like[top]
    if rules.challenge_enabled:
        out[:, CHALLENGE] = on_d4
    bluffer = np.maximum(s.draw4_player[g], 0)
    final = on_d4 & (s.hand_size[g, bluffer] == 0)  # +4 was the last card: accept or challenge
    allowed = np.zeros((g.size, layout.num_kinds), dtype=bool)
    if rules.stacking != "none":  # the classic +2 and +4 only (rules specification §11)
        is_two = layout.is_draw_two
        on_d2 = is_two[top]
        on_d4 = top == WILD_DRAW_FOUR
        allowed[on_d2[:, None] & is_two[None, :]] = True
        allowed[:, WILD_DRAW_FOUR] = on_d4 | (on_d2 & (rules.stacking == "any"))
        if rules.stacking == "any":
            same_color = layout.kind_color[None, :] == s.color[g][:, None]
            allowed |= on_d4[:, None] & is_two[None, :] & same_color
    if rules.wild_cancels_draw:
        allowed[:, WILD] = True
    if layout.extended:
        _extended_respond(s, g, top, final, allowed)
    ok = allowed & (hand > 0) & ~final[:, None]
    if rules.stacking != "none":  # a stacked +4 is never challenged: the mask checks it
        rows = np.flatnonzero(ok[:, WILD_DRAW_FOUR])
        if rows.size:
            ok[rows, WILD_DRAW_FOUR] = draw_four_legal(s, g[rows], hand[rows])
    last_card_filter(s, g, ok)
    _cards_to_actions(s, ok, out)


def _extended_respond(
    s: State, g: np.ndarray, top: np.ndarray, final: np.ndarray, allowed: np.ndarray
) -> None:
    """The respond phase of the extended layout: a pending Skip or targeted draw is answered
    by a Boomerang or accepted (no stacking, no cancelling Wild); with Boomerangs in the
    deck, every pending Skip / draw may be sent back."""
    classic_draw = (top == WILD_DRAW_FOUR) | s.rules.layout.is_draw_two[top]
    allowed[~classic_draw] = False
    if s.rules.boomerangs:
        allowed[:, -1] = ~final  # the Boomerang: the extended layout's last kind


def _target_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    out[:, TARGET : TARGET + s.rules.players - 1] = True
    if s.rules.layout.extended:  # a Swap Hands: not a player in UNO (swap_excludes_uno)
        rows = np.flatnonzero(s.rules.effect_rank[s.top[g]] == SWAP_HANDS)
        if rows.size:
            allowed = swap_targets(s, g[rows], s.actor[g[rows]])
            out[rows, TARGET : TARGET + s.rules.players - 1] = allowed


def _multi_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    same = KIND_RANK[None, :52] == s.multi_rank[g][:, None]
    room = s.hand_size[g, s.actor[g]] >= 2
    out[:, :52] = same & (hand[:, :52] > 0) & room[:, None]
    out[:, PASS] = True


def _color_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    out[:, CHOOSE_COLOR : CHOOSE_COLOR + 4] = True


def _jump_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    out[np.arange(g.size), s.rules.layout.first_action[s.jump_card[g]]] = True
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


def check_actions(s: State, actions, games: np.ndarray | None, masks) -> np.ndarray:
    """The actions as int64 (one per game of ``games``, or of the batch), or a clear error;
    ``masks(s, games)`` is the engine's legal mask (the NumPy or the compiled one)."""
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
    mask = masks(s, games)
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

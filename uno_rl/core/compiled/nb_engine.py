"""The compiled engine's batched API: :func:`reset`, :func:`reset_games`, :func:`step` and
:func:`legal_mask`, with the NumPy engine's signatures, checks and results
(:mod:`uno_rl.core.engine`), each game's work done by the compiled kernel."""

from __future__ import annotations

import numpy as np

from ..deal import _as_seeds, _no_first_card
from ..masks import check_games
from ..phases import OVER, PHASE_NAMES
from ..rules import MAX_FIRST_CARD_ATTEMPTS, Rules
from ..scoring import StepResult
from ..state import STAT_NAMES, State
from .nb_loops import deal_games, step_games
from .nb_masks import legal_masks
from .nb_rules import rule_tables
from .nb_state import game_arrays


def reset(rules: Rules, seeds) -> State:
    """Deal one round in each of ``len(seeds)`` games (:func:`uno_rl.core.engine.reset`)."""
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
    seeds = _as_seeds(seeds)
    if not 1 <= seeds.shape[0] <= 1_000_000:
        raise ValueError(f"number of games must be in [1, 1000000], got {seeds.shape[0]}")
    state = State.empty(rules, seeds.shape[0])
    _deal(state, np.arange(seeds.shape[0], dtype=np.int64), seeds)
    return state


def reset_games(state: State, games, seeds) -> None:
    """Start new matches in ``games`` (a bool mask or indices) with deal ``seeds``."""
    index = (
        np.flatnonzero(games) if np.asarray(games).dtype == bool else np.asarray(games, np.int64)
    )
    seeds = _as_seeds(seeds)
    if seeds.shape[0] != index.shape[0]:
        raise ValueError(f"reset_games got {index.shape[0]} games but {seeds.shape[0]} seeds")
    if index.size == 0:
        return
    state.scores[index] = 0
    state.round_index[index] = 0
    state.match_over[index] = False
    _deal(state, index.astype(np.int64), seeds)


def _deal(state: State, games: np.ndarray, seeds: np.ndarray) -> None:
    state.invalidate()
    failed = deal_games(game_arrays(state), rule_tables(state.rules), games, seeds)
    if failed >= 0:
        raise RuntimeError(_no_first_card(state.rules, MAX_FIRST_CARD_ATTEMPTS))


def legal_mask(state: State, games=None, *, validate: bool = True) -> np.ndarray:
    """(N, A) bool legal actions of the player to act in each game, or (k, A) of ``games``
    (cached until the next step, like :func:`uno_rl.core.engine.legal_mask`)."""
    if games is None:
        if state._mask is None:
            rows = np.arange(state.num_games, dtype=np.int64)
            state._mask = _masks(state, rows)
        return state._mask
    games = check_games(state, games) if validate else np.asarray(games, np.int64)
    if state._mask is not None:
        return state._mask[games]
    cached = state._rows_mask
    if cached is not None and cached[0].shape == games.shape and (cached[0] == games).all():
        return cached[1]
    mask = _masks(state, games)
    state._rows_mask = (games, mask)
    return mask


def _masks(state: State, games: np.ndarray) -> np.ndarray:
    out = np.empty((games.size, state.rules.layout.num_actions), bool)  # rows cleared there
    legal_masks(game_arrays(state), rule_tables(state.rules), games, out)
    return out


def step(state: State, actions, games=None, *, validate: bool = True) -> StepResult:
    """Apply one action per game (:func:`uno_rl.core.engine.step`: same arguments, checks,
    errors and result)."""
    s = state
    if validate:
        rows = np.arange(s.num_games, dtype=np.int64) if games is None else check_games(s, games)
        actions = _check_actions(s, actions, None if games is None else rows)
    else:
        rows = (
            np.arange(s.num_games, dtype=np.int64) if games is None else np.asarray(games, np.int64)
        )
        actions = np.asarray(actions, np.int64)
    s._mask = s._rows_mask = None
    k, p = rows.size, s.rules.players
    rewards = np.zeros((k, p), np.float32)
    flags = np.zeros((3, k), bool)
    winner = np.full(k, -1, np.int8)
    ints = np.zeros((2, k), np.int32)
    net_points = np.zeros((k, p), np.int32)
    stats = np.zeros((len(STAT_NAMES), k, p), np.int32)
    step_games(game_arrays(s), rule_tables(s.rules), rows, actions, rewards, flags, winner,
               ints, net_points, stats)  # fmt: skip
    return StepResult(
        rewards=rewards,
        round_over=flags[0],
        truncated=flags[1],
        match_over=flags[2],
        winner=winner,
        points=ints[0],
        net_points=net_points,
        decisions=ints[1],
        **{name: stats[i] for i, name in enumerate(STAT_NAMES)},
    )


def _check_actions(s: State, actions, games: np.ndarray | None) -> np.ndarray:
    """The actions as int64, or the NumPy engine's clear error."""
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

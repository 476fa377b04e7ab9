"""The compiled engine's batched API: :func:`reset`, :func:`reset_games`, :func:`step`,
:func:`legal_mask`, :func:`observe` and :func:`sample_legal_actions`, with the NumPy engine's
signatures, checks and results (:mod:`uno_rl.core.numpy_engine`), each game's work done by
the compiled kernel."""

from __future__ import annotations

import numpy as np

from ..deal import _no_first_card, new_state, restart_games
from ..masks import cached_mask, check_actions, check_games
from ..rules import MAX_FIRST_CARD_ATTEMPTS, Rules
from ..scoring import StepResult
from ..state import STAT_NAMES, State
from .nb_loops import deal_games, step_games
from .nb_masks import first_bad_action, legal_masks
from .nb_observe import observe_many
from .nb_sampling import sample_legal_actions
from .nb_state import game_arrays
from .threads import split_run, thread_tables

try:  # numba colours its error texts with colorama, whose exit handler would then write a
    # terminal reset code to a terminal's output, colours off or not: keep it from registering
    import colorama.initialise

    colorama.initialise.atexit_done = True
except ImportError:
    pass

__all__ = [
    "legal_mask",
    "observe",
    "observe_games",
    "reset",
    "reset_games",
    "sample_legal_actions",
    "step",
]


def _tables(state: State):
    """The rule tables of ``state`` for this thread (:func:`.threads.thread_tables`)."""
    return thread_tables(state.rules)


def reset(rules: Rules, seeds) -> State:
    """Deal one round in each of ``len(seeds)`` games (:func:`uno_rl.core.engine.reset`)."""
    return new_state(rules, seeds, _deal)


def reset_games(state: State, games, seeds) -> None:
    """Start new matches in ``games`` (a bool mask or indices) with deal ``seeds``."""
    restart_games(state, games, seeds, _deal)


def _deal(state: State, games: np.ndarray, seeds: np.ndarray) -> None:
    state.invalidate()
    failed = deal_games(game_arrays(state), _tables(state), games, seeds)
    if failed >= 0:
        raise RuntimeError(_no_first_card(state.rules, MAX_FIRST_CARD_ATTEMPTS))


def legal_mask(state: State, games=None, *, validate: bool = True) -> np.ndarray:
    """(N, A) bool legal actions of the player to act in each game, or (k, A) of ``games``
    (cached until the next step, like :func:`uno_rl.core.engine.legal_mask`)."""
    return cached_mask(state, games, validate, _masks)


def _masks(state: State, games: np.ndarray) -> np.ndarray:
    out = np.empty((games.size, state.rules.layout.num_actions), bool)  # rows cleared there
    legal_masks(game_arrays(state), _tables(state), games, out)
    return out


def observe(state: State, seats, out: np.ndarray | None = None) -> np.ndarray:
    """(N, O) float32: the observation of seat ``seats[i]`` in game ``i``
    (:func:`uno_rl.core.observe.observe_numpy`: same arguments and errors)."""
    n, p = state.num_games, state.rules.players
    size = state.rules.layout.obs_size
    seats = np.ascontiguousarray(np.broadcast_to(np.asarray(seats, dtype=np.int64), (n,)))
    bad = (seats < 0) | (seats >= p)
    if bad.any():
        raise ValueError(f"observing seats must be in [0, {p}), got {seats[bad][0]}")
    if out is None:
        out = np.empty((n, size), np.float32)  # every row cleared by the kernel
    elif out.shape != (n, size) or out.dtype != np.float32 or not out.flags.c_contiguous:
        if out.shape != (n, size) or out.dtype != np.float32:
            raise ValueError(f"out must be a float32 array of shape {(n, size)}")
        out[:] = observe(state, seats)
        return out
    _observe_into(state, np.arange(n, dtype=np.int64), seats, out)
    return out


def _observe_into(state: State, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
    arrays = game_arrays(state)

    def observe_part(start: int, stop: int) -> None:
        observe_many(arrays, _tables(state), games[start:stop], seats[start:stop],
                     out[start:stop])  # fmt: skip

    split_run(games.size, observe_part)


def observe_games(state: State, games, seats) -> np.ndarray:
    """(k, O) float32: the observation of seat ``seats[i]`` in game ``games[i]`` (k,) int64
    (:func:`uno_rl.core.observe.observe` with ``games``)."""
    games = np.ascontiguousarray(games, dtype=np.int64)
    k, p = games.size, state.rules.players
    seats = np.ascontiguousarray(np.broadcast_to(np.asarray(seats, dtype=np.int64), (k,)))
    bad = (seats < 0) | (seats >= p)
    if bad.any():
        raise ValueError(f"observing seats must be in [0, {p}), got {seats[bad][0]}")
    if k and (games.min() < 0 or games.max() >= state.num_games):
        raise ValueError(f"games must be in [0, {state.num_games})")
    out = np.empty((k, state.rules.layout.obs_size), np.float32)
    _observe_into(state, games, seats, out)
    return out


def _checked(s: State, actions, rows: np.ndarray, subset: bool) -> np.ndarray:
    """The actions as int64, checked in one compiled pass; where one is bad, the NumPy
    engine's checks (:func:`~uno_rl.core.masks.check_actions`) raise its error."""
    array = np.asarray(actions)
    if array.shape == rows.shape and np.issubdtype(array.dtype, np.integer):
        array = array.astype(np.int64, copy=False)
        mask = legal_mask(s, rows if subset else None, validate=False)
        if first_bad_action(mask, array, s.phase, rows) < 0:
            return array
    return check_actions(s, actions, rows if subset else None, legal_mask)


def step(state: State, actions, games=None, *, validate: bool = True) -> StepResult:
    """Apply one action per game (:func:`uno_rl.core.engine.step`: same arguments, checks,
    errors and result)."""
    s = state
    if validate:
        rows = np.arange(s.num_games, dtype=np.int64) if games is None else check_games(s, games)
        actions = _checked(s, actions, rows, games is not None)
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
    arrays = game_arrays(s)

    def step_part(start: int, stop: int) -> None:
        step_games(arrays, _tables(s), rows, actions, rewards, flags, winner,
                   ints, net_points, stats, start, stop)  # fmt: skip

    split_run(k, step_part)
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

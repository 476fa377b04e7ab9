"""Argument checks shared by the envs: the rules, the learner's seat, a batch of actions and
the error for an illegal one (each a TypeError / ValueError naming the problem)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from uno_rl.core.layout import CLASSIC
from uno_rl.core.phases import PHASE_NAMES
from uno_rl.core.rules import Rules, load_rules

from .game import legal_text

__all__ = ["check_learner_seat", "checked_actions", "illegal_action_error", "load_env_rules"]


def load_env_rules(
    preset: str | os.PathLike[str] | Rules, players: int | None, overrides: dict[str, Any]
) -> Rules:
    """The validated rules of an env's ``preset``, ``players`` and rule overrides."""
    if not isinstance(preset, str | os.PathLike | Rules):
        raise TypeError(
            "preset must be a preset name, the path of a preset TOML file or a "
            f"uno_rl.core.Rules, got {type(preset).__name__} {preset!r}"
        )
    if players is not None:
        overrides = {**overrides, "players": players}
    return load_rules(preset, **overrides)


def checked_actions(actions, n: int, num_actions: int) -> np.ndarray:
    """``actions`` as (n,) int64 in ``[0, num_actions)``, or a TypeError / ValueError naming
    the problem."""
    a = num_actions
    array = np.asarray(actions)
    if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(
            f"actions must be integers in [0, {a}), one per game, got dtype {array.dtype}"
        )
    if array.shape != (n,):
        raise ValueError(f"actions must have shape ({n},) (one per game), got {array.shape}")
    bad = np.flatnonzero((array < 0) | (array >= a))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"game {i}: action {int(array[i])} is out of range [0, {a})")
    return array.astype(np.int64, copy=False)


def illegal_action_error(
    game: int, action: int, mask: np.ndarray, seat: int, phase: int, layout=None
):
    """The ValueError for the learner's illegal ``action`` in ``game`` (legal ones listed),
    the actions named by ``layout`` (the deck's; ``None``: the classic layout)."""
    layout = CLASSIC if layout is None else layout
    return ValueError(
        f"game {game}: illegal action {action} ({layout.action_name(action)}) for the learner "
        f"(seat {seat}) in phase '{PHASE_NAMES[phase]}'; legal actions: {legal_text(layout, mask)}"
    )


def check_learner_seat(learner_seat: int | str, players: int) -> int | None:
    """The fixed learner seat, or ``None`` for ``"random"``; a clear error otherwise."""
    if isinstance(learner_seat, str):
        if learner_seat != "random":
            raise ValueError(
                f"learner_seat must be a seat in [0, {players}) or 'random', got {learner_seat!r}"
            )
        return None
    if isinstance(learner_seat, bool) or not isinstance(learner_seat, int | np.integer):
        raise TypeError(
            f"learner_seat must be an int in [0, {players}) or 'random', got "
            f"{type(learner_seat).__name__} {learner_seat!r}"
        )
    if not 0 <= int(learner_seat) < players:
        raise ValueError(
            f"learner_seat must be in [0, {players}) for {players} players, got {learner_seat}"
        )
    return int(learner_seat)

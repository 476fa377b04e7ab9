"""The acting seats' view read straight from the engine state, for the search play-outs.

A play-out steps tens of thousands of determinized lanes with a heuristic in every seat; the
heuristic reads only a few decoded pieces of each observation (:class:`~.view.ObservationView`),
yet building the full float32 observations took about a quarter of a play-out's time.
:class:`StateView` decodes the same pieces directly from the state, for the seat that acts in
each game: the values are exactly the observation's (tested piece by piece and action by
action against :func:`uno_rl.core.observe.observe` in ``tests/agents/test_state_view.py``),
so a heuristic plays the same actions either way. It shows only what the acting seat may
see, like the observation; the search agents use it on their own worlds only.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from uno_rl.core.phases import DRAWN
from uno_rl.core.state import State

from .view import ObservationView

__all__ = ["StateView"]


class StateView(ObservationView):
    """:class:`~.view.ObservationView` of the acting seat of games ``rows`` (int64 (k,),
    default all) of ``state``, decoded from the state itself (same attributes, same dtypes)."""

    def __init__(self, state: State, rows: np.ndarray | None = None):
        self.layout = state.rules.layout
        self.players = int(state.rules.players)
        self.obs = None
        self.state = state
        self.rows = np.arange(state.num_games) if rows is None else np.asarray(rows, np.int64)
        #: (k,) int64: the observing (acting) seat of each game, absolute.
        self.seats = state.actor[self.rows].astype(np.int64)

    @property
    def num_games(self) -> int:
        return self.rows.size

    def take(self, rows: np.ndarray) -> StateView:
        return StateView(self.state, self.rows[rows])

    def _get(self, name: str) -> np.ndarray:
        return getattr(self.state, name)[self.rows]

    @cached_property
    def _order(self) -> np.ndarray:
        """(k, players) int64: the absolute seat of each relative seat."""
        return (self.seats[:, None] + np.arange(self.players)[None, :]) % self.players

    @cached_property
    def _on_draw_four(self) -> np.ndarray:
        return self.layout.draw_four_like[self._get("top").astype(np.int64)]

    @cached_property
    def hand(self) -> np.ndarray:
        return self.state.hands[self.rows, self.seats].astype(np.float32)

    @cached_property
    def discard(self) -> np.ndarray:
        return self._get("discard").astype(np.float32)

    @cached_property
    def top(self) -> np.ndarray:
        return self._get("top").astype(np.int64)

    @cached_property
    def color(self) -> np.ndarray:
        color = self._get("color").astype(np.int64)
        return np.where(color >= 0, color, -1)

    @cached_property
    def phase(self) -> np.ndarray:
        return self._get("phase").astype(np.int64)

    @cached_property
    def direction(self) -> np.ndarray:
        return self._get("direction").astype(np.int64)

    @cached_property
    def pending(self) -> np.ndarray:
        return self._get("pending").astype(np.int64)

    @cached_property
    def hand_sizes(self) -> np.ndarray:
        return self.state.hand_size[self.rows[:, None], self._order].astype(np.int64)

    @cached_property
    def drawn(self) -> np.ndarray:
        drawn = self._get("drawn").astype(np.int64)
        return np.where(self.phase == DRAWN, drawn, -1)

    @cached_property
    def previous_color(self) -> np.ndarray:
        color = self._get("prev_color").astype(np.int64)
        return np.where(self._on_draw_four & (color >= 0), color, -1)

    @cached_property
    def draw4_player(self) -> np.ndarray:
        player = self._get("draw4_player").astype(np.int64)
        shown = self._on_draw_four & (player >= 0)
        return np.where(shown, (player - self.seats) % self.players, -1)

    def match_scores(self, match_target: int) -> np.ndarray:
        return self.state.scores[self.rows[:, None], self._order].astype(np.int64)

    def decisions(self, max_turns: int) -> np.ndarray:
        return self._get("turn").astype(np.int64)

    @cached_property
    def swap_seats(self) -> np.ndarray:
        self._extended_piece_check("swap_seats")
        pair = self._get("swap_seats").astype(np.int64)
        out = np.zeros((self.num_games, self.players), bool)
        swapped = np.flatnonzero(pair[:, 0] >= 0)
        for side in (0, 1):
            out[swapped, (pair[swapped, side] - self.seats[swapped]) % self.players] = True
        return out

    @cached_property
    def shuffled(self) -> np.ndarray:
        self._extended_piece_check("shuffled")
        return self._get("shuffled").astype(bool)

    @cached_property
    def presses(self) -> np.ndarray:
        self._extended_piece_check("dispenser_presses")
        return self._get("presses").astype(np.int64)

    def _extended_piece_check(self, name: str) -> None:
        if not self.extended:
            raise ValueError(f"the classic observation has no piece {name!r}")

"""Named, decoded views of a batch of observations, for agents that reason about the game.

An agent sees only what :func:`uno_rl.core.observe.observe` gives its seat; this class decodes
those flat float32 rows (layout: :mod:`uno_rl.core.observe_layout`) into the quantities a
heuristic needs. Seats are relative: 0 is the observer, 1 the next seat clockwise.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from uno_rl.core.observe_layout import OBS_SIZE, SLICES

__all__ = ["ObservationView"]


def _one_hot(block: np.ndarray) -> np.ndarray:
    """(k,) int64 index of the 1 in each row of ``block``, -1 where the row is all 0."""
    return np.where(block.any(axis=1), block.argmax(axis=1), -1)


class ObservationView:
    """Decoded pieces of ``observations`` (k, 349) float32 for ``players`` seats.

    Every attribute is computed on first use. Counts are float32 (k, 54) arrays; indices are
    int64 (k,) arrays with -1 for "none".
    """

    def __init__(self, observations: np.ndarray, players: int):
        obs = np.asarray(observations)
        if obs.ndim != 2 or obs.shape[1] != OBS_SIZE:
            raise ValueError(f"observations must have shape (k, {OBS_SIZE}), got {obs.shape}")
        self.obs = obs
        self.players = int(players)

    def _piece(self, name: str) -> np.ndarray:
        return self.obs[:, SLICES[name]]

    @cached_property
    def hand(self) -> np.ndarray:
        """(k, 54) float32: copies of each kind in the observer's hand."""
        return self._piece("hand")

    @cached_property
    def discard(self) -> np.ndarray:
        """(k, 54) float32: copies of each kind in the discard pile (top card included)."""
        return self._piece("discard")

    @cached_property
    def top(self) -> np.ndarray:
        """(k,) int64: kind of the top card."""
        return _one_hot(self._piece("top_card"))

    @cached_property
    def color(self) -> np.ndarray:
        """(k,) int64: current color 0..3 (-1 before a first Wild is given one)."""
        return _one_hot(self._piece("color"))

    @cached_property
    def phase(self) -> np.ndarray:
        """(k,) int64: phase (:mod:`uno_rl.core.phases`)."""
        return _one_hot(self._piece("phase"))

    @cached_property
    def direction(self) -> np.ndarray:
        """(k,) int64: +1 clockwise, -1 counter-clockwise."""
        return self.obs[:, SLICES["direction"].start].astype(np.int64)

    @cached_property
    def pending(self) -> np.ndarray:
        """(k,) int64: cards the victim of the pending +2/+4 (chain) will draw."""
        return self.obs[:, SLICES["pending_draw"].start].astype(np.int64)

    @cached_property
    def hand_sizes(self) -> np.ndarray:
        """(k, players) int64: hand size of each relative seat (0 = observer)."""
        start = SLICES["hand_sizes"].start
        return self.obs[:, start : start + self.players].astype(np.int64)

    @cached_property
    def drawn(self) -> np.ndarray:
        """(k,) int64: the card the observer just drew (drawn phase), else -1."""
        return _one_hot(self._piece("drawn_card"))

    @cached_property
    def previous_color(self) -> np.ndarray:
        """(k,) int64: while a +4 is on top, the color before it; else -1."""
        return _one_hot(self._piece("previous_color"))

    @cached_property
    def draw4_player(self) -> np.ndarray:
        """(k,) int64: while a +4 is on top, the relative seat that played it; else -1."""
        return _one_hot(self._piece("draw4_player"))

    @cached_property
    def next_seat(self) -> np.ndarray:
        """(k,) int64: relative seat of the next player in the direction of play."""
        return np.where(self.direction >= 0, 1, self.players - 1)

    @cached_property
    def color_counts(self) -> np.ndarray:
        """(k, 4) float32: colored cards of each color in the observer's hand."""
        return self.hand[:, :52].reshape(-1, 4, 13).sum(axis=2)

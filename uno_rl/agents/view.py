"""Named, decoded views of a batch of observations, for agents that reason about the game.

An agent sees only what :func:`uno_rl.core.observe.observe` gives its seat; this class decodes
those flat float32 rows into the quantities a heuristic needs. The layout is told by the
width: 583 values are the classic layout (54 kinds, :data:`uno_rl.core.layout.CLASSIC`), 877
the extended one (75 kinds, :data:`uno_rl.core.layout.EXTENDED`, with the pieces of rules
specification §11). Seats are relative: 0 is the observer, 1 the next seat clockwise.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from uno_rl.core.layout import CLASSIC, EXTENDED, Layout

__all__ = ["ObservationView", "layout_of_width"]

_BY_WIDTH = {CLASSIC.obs_size: CLASSIC, EXTENDED.obs_size: EXTENDED}


def layout_of_width(width: int) -> Layout:
    """The layout whose observations have ``width`` values (583: classic, 877: extended)."""
    if width not in _BY_WIDTH:
        raise ValueError(
            f"observations must have {CLASSIC.obs_size} (classic) or {EXTENDED.obs_size} "
            f"(extended) values per row, got {width}"
        )
    return _BY_WIDTH[width]


def _one_hot(block: np.ndarray) -> np.ndarray:
    """(k,) int64 index of the 1 in each row of ``block``, -1 where the row is all 0."""
    return np.where(block.any(axis=1), block.argmax(axis=1), -1)


class ObservationView:
    """Decoded pieces of ``observations`` (k, 583) or (k, 877) float32 for ``players`` seats.

    Every attribute is computed on first use. Counts are float32 (k, K) arrays (K = 54 or 75
    kinds, :attr:`layout`); indices are int64 (k,) arrays with -1 for "none".
    """

    def __init__(self, observations: np.ndarray, players: int):
        obs = np.asarray(observations)
        if obs.ndim != 2:
            raise ValueError(f"observations must be a 2-d (k, width) array, got {obs.shape}")
        #: The layout the observations are written in.
        self.layout: Layout = layout_of_width(obs.shape[1])
        self.obs = obs
        self.players = int(players)

    @property
    def num_games(self) -> int:
        """k, the games (rows) of the view."""
        return self.obs.shape[0]

    def take(self, rows: np.ndarray) -> ObservationView:
        """The view of the games ``rows`` (int64 indices) only."""
        return ObservationView(self.obs[rows], self.players)

    @property
    def extended(self) -> bool:
        """Whether the observations are in the extended layout."""
        return self.layout.extended

    def _piece(self, name: str) -> np.ndarray:
        return self.obs[:, self.layout.slices[name]]

    def _value(self, name: str) -> np.ndarray:
        return self.obs[:, self.layout.starts[name]]

    @cached_property
    def hand(self) -> np.ndarray:
        """(k, K) float32: copies of each kind in the observer's hand."""
        return self._piece("hand")

    @cached_property
    def discard(self) -> np.ndarray:
        """(k, K) float32: copies of each kind in the discard pile (top card included)."""
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
        return self._value("direction").astype(np.int64)

    @cached_property
    def pending(self) -> np.ndarray:
        """(k,) int64: cards the victim of the pending draw (chain) will draw (0 for a Skip)."""
        return self._value("pending_draw").astype(np.int64)

    @cached_property
    def hand_sizes(self) -> np.ndarray:
        """(k, players) int64: hand size of each relative seat (0 = observer)."""
        start = self.layout.starts["hand_sizes"]
        return self.obs[:, start : start + self.players].astype(np.int64)

    @cached_property
    def drawn(self) -> np.ndarray:
        """(k,) int64: the card the observer just drew (drawn phase), else -1."""
        return _one_hot(self._piece("drawn_card"))

    @cached_property
    def previous_color(self) -> np.ndarray:
        """(k,) int64: while a +4 (or Targeted +4) is on top, the color before it; else -1."""
        return _one_hot(self._piece("previous_color"))

    @cached_property
    def draw4_player(self) -> np.ndarray:
        """(k,) int64: while a +4 (or Targeted +4) is on top, the relative seat that played
        it; else -1."""
        return _one_hot(self._piece("draw4_player"))

    def match_scores(self, match_target: int) -> np.ndarray:
        """(k, players) int64: match scores of each relative seat (0 outside matches), from
        the observation's share of ``match_target``."""
        start = self.layout.starts["scores"]
        return np.rint(self.obs[:, start : start + self.players] * match_target).astype(np.int64)

    def decisions(self, max_turns: int) -> np.ndarray:
        """(k,) int64: decisions taken this round, from the observation's share of
        ``max_turns``."""
        progress = self.obs[:, self.layout.starts["progress"]].astype(np.float64)
        return np.rint(progress * max_turns).astype(np.int64)

    @cached_property
    def next_seat(self) -> np.ndarray:
        """(k,) int64: relative seat of the next player in the direction of play."""
        return np.where(self.direction >= 0, 1, self.players - 1)

    @cached_property
    def previous_seat(self) -> np.ndarray:
        """(k,) int64: relative seat of the player before the observer in the direction of
        play (who played a Skip or +2 the observer must answer)."""
        return np.where(self.direction >= 0, self.players - 1, 1)

    @cached_property
    def play_order(self) -> np.ndarray:
        """(k, players) int64: turns until each relative seat plays, in the direction of play
        (0 for the observer, 1 for the next player)."""
        seats = np.arange(self.players)[None, :]
        return np.where(self.direction[:, None] >= 0, seats, (-seats) % self.players)

    @cached_property
    def color_counts(self) -> np.ndarray:
        """(k, 4) float32: colored cards of each color in the observer's hand."""
        # One small matrix product (exact: sums of small counts): much faster than summing
        # a strided (k, 4, 13) copy of the hand.
        return self.hand @ _color_matrix(self.layout)

    # ----------------------------------------------------------- extended pieces
    def _extended_piece(self, name: str) -> np.ndarray:
        if not self.extended:
            raise ValueError(f"the classic observation has no piece {name!r}")
        return self._piece(name)

    @cached_property
    def swap_seats(self) -> np.ndarray:
        """(k, players) bool: the two relative seats of the last hand swap this round
        (extended layout only)."""
        return self._extended_piece("swap_seats")[:, : self.players] > 0

    @cached_property
    def shuffled(self) -> np.ndarray:
        """(k,) bool: hands were shuffled this round (extended layout only)."""
        return self._extended_piece("shuffled")[:, 0] > 0

    @cached_property
    def presses(self) -> np.ndarray:
        """(k,) int64: dispenser presses since it last fired (extended layout only)."""
        return self._extended_piece("dispenser_presses")[:, 0].astype(np.int64)


_COLOR_MATRICES: dict[str, np.ndarray] = {}


def _color_matrix(layout: Layout) -> np.ndarray:
    """(K, 4) float32: one-hot color of each colored kind (rows of wild kinds all 0)."""
    if layout.name not in _COLOR_MATRICES:
        matrix = np.zeros((layout.num_kinds, 4), np.float32)
        colored = layout.colored
        matrix[colored, layout.kind_color[colored]] = 1.0
        _COLOR_MATRICES[layout.name] = matrix
    return _COLOR_MATRICES[layout.name]

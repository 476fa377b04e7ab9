"""Batched observations: any seat's view of each game as one flat float32 vector.

The pieces (names, sizes, meaning) are the table in :mod:`uno_rl.core.observe_layout`, each
per-kind piece K wide, then in the extended layout the pieces of
:data:`uno_rl.core.layout.EXTENDED_PIECES`: O values in all (conventions:
:mod:`uno_rl.core`); ``rules.layout.slices[name]`` gives each piece's position. Only public information and the
observer's own private information appear: the observer's hand, the card they just
drew, and a hand a challenge of theirs revealed. ``tests/core/test_observe.py`` checks
that changing only other players' hidden cards leaves the observation unchanged.
"""

from __future__ import annotations

import numpy as np

from .backend import compiled_engine
from .observe_layout import OBS_SIZE, OTHER_SEATS, PIECES, SLICES
from .phases import DRAWN, OVER
from .state import State

__all__ = ["OBS_SIZE", "PIECES", "SLICES", "observe", "observe_numpy"]


def observe(state: State, seats, out: np.ndarray | None = None, games=None) -> np.ndarray:
    """(N, O) float32: the observation of seat ``seats[i]`` in game ``i``, from the engine in
    use (:mod:`uno_rl.core.backend`); the arguments are those of :func:`observe_numpy`.

    ``games``: (k,) int64 indices of games of ``state``; then (k, O), seat ``seats[i]`` of
    game ``games[i]`` (the rows of ``observe(state.take(games), seats)``, without the copy
    under the compiled engine)."""
    compiled = compiled_engine()
    if games is not None:
        if compiled is not None:
            return compiled.observe_games(state, games, seats)
        state = state.take(np.asarray(games, np.int64))
    if compiled is not None:
        return compiled.observe(state, seats, out)
    return observe_numpy(state, seats, out)


def observe_numpy(state: State, seats, out: np.ndarray | None = None) -> np.ndarray:
    """(N, O) float32: the observation of seat ``seats[i]`` in game ``i`` (NumPy).

    Args:
        state: N games.
        seats: (N,) observing seats (absolute), or one int for the same seat in every game.
        out: optional preallocated (N, O) float32 buffer to fill.
    """
    s, n, p = state, state.num_games, state.rules.players
    layout = s.rules.layout
    size, SLICES, _START = layout.obs_size, layout.slices, layout.starts  # noqa: N806
    seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), (n,))
    if ((seats < 0) | (seats >= p)).any():
        raise ValueError(
            f"observing seats must be in [0, {p}), got {seats[(seats < 0) | (seats >= p)][0]}"
        )
    if out is None:
        out = np.zeros((n, size), np.float32)
    else:
        if out.shape != (n, size) or out.dtype != np.float32:
            raise ValueError(f"out must be a float32 array of shape {(n, size)}")
        out.fill(0.0)
    rows = np.arange(n)
    row_base = rows * size
    hot: list[np.ndarray] = []  # flat positions of the one-hot 1s, written at once

    def one_hot(name: str, index: np.ndarray, where: np.ndarray | None = None) -> None:
        flat = row_base + (_START[name] + index.astype(np.int64))
        hot.append(flat if where is None else flat[where])

    def relative(seat: np.ndarray) -> np.ndarray:
        return (seat.astype(np.int64) - seats) % p

    # One observing seat for the whole batch (a fixed learner seat) needs no gathers.
    one_seat = int(seats[0]) if n and (seats == seats[0]).all() else None
    if one_seat is None:
        out[:, SLICES["hand"]] = np.take(s.hands.reshape(n * p, -1), rows * p + seats, axis=0)
        order = (seats[:, None] + np.arange(p)[None, :]) % p  # absolute seat of relative slots
        hand_sizes = s.hand_size[rows[:, None], order]
    else:
        out[:, SLICES["hand"]] = s.hands[:, one_seat]
        order = (one_seat + np.arange(p)) % p
        hand_sizes = s.hand_size[:, order]
    one_hot("top_card", s.top)
    one_hot("color", s.color, s.color >= 0)
    out[:, _START["direction"]] = s.direction
    one_hot("phase", s.phase)
    one_hot("actor", relative(s.actor), s.phase != OVER)
    out[:, _START["pending_draw"]] = s.pending
    out[:, _START["hand_sizes"] : _START["hand_sizes"] + p] = hand_sizes
    out[:, _START["players"] + p - 2] = 1.0
    out[:, SLICES["discard"]] = s.discard
    out[:, _START["draw_pile_size"]] = s.pile_size
    one_hot("drawn_card", s.drawn, (s.phase == DRAWN) & (s.actor == seats))
    on_d4 = layout.draw_four_like[s.top]
    if on_d4.any():
        # A +4 with no color under it (a first card, say) shows none, and no player when
        # nobody played it.
        one_hot("previous_color", s.prev_color, on_d4 & (s.prev_color >= 0))
        one_hot("draw4_player", relative(s.draw4_player), on_d4 & (s.draw4_player >= 0))
    mine = s.reveal_viewer == seats
    if mine.any():
        out[mine, SLICES["revealed_hand"]] = s.revealed[mine]
        one_hot("revealed_seat", relative(s.reveal_target), mine)
    hot.extend(_observe_shown(s, seats, out, row_base, _START))
    out.reshape(-1)[np.concatenate(hot)] = 1.0
    scored = np.flatnonzero(s.scores.any(axis=1))  # scores are mostly all 0 outside matches
    if scored.size:
        columns = order[scored] if one_seat is None else order[None, :]
        out[scored, _START["scores"] : _START["scores"] + p] = (
            s.scores[scored[:, None], columns] / s.rules.match_target
        )
    out[:, _START["progress"]] = s.turn / s.rules.max_turns
    if layout.extended:
        _observe_extended(s, seats, out, _START)
    return out


def _observe_shown(
    s: State, seats: np.ndarray, out: np.ndarray, row_base: np.ndarray, start: dict
) -> list[np.ndarray]:
    """What each other seat showed (voids, plays, named colors): writes the played counts
    into ``out`` and returns the flat positions of the one-hot 1s of the other pieces."""
    n, p = s.num_games, s.rules.players
    layout = s.rules.layout
    others = (seats[:, None] + np.arange(1, p)[None, :]) % p  # (N, P-1) absolute seats
    rows = np.arange(n)[:, None]
    block = np.arange(p - 1)[None, :]
    played = s.played[rows, others]  # (N, P-1, 5)
    begin = start["played_colors"]
    out[:, begin : begin + 5 * (p - 1)] = played.reshape(n, -1)
    base = row_base[:, None]
    hot = []
    symbols = (start["played_colors"] - start["void_symbol"]) // OTHER_SEATS  # block width
    for name, values, size in (
        ("void_color", s.void_color[rows, others].astype(np.int64), 4),
        ("void_symbol", layout.symbol_slot[s.void_symbol[rows, others]], symbols),
        ("named_color", s.named[rows, others].astype(np.int64), 4),
    ):
        shown = values >= 0
        if shown.any():
            hot.append((base + start[name] + block * size + values)[shown])
    return hot


def _observe_extended(s: State, seats: np.ndarray, out: np.ndarray, start: dict) -> None:
    """The extended layout's pieces: the dispenser's presses, the last swap, a shuffle."""
    out[:, start["dispenser_presses"]] = s.presses
    out[:, start["shuffled"]] = s.shuffled
    swapped = np.flatnonzero(s.swap_seats[:, 0] >= 0)
    if not swapped.size:
        return
    pair = s.swap_seats[swapped].astype(np.int64)
    who = seats[swapped]
    for side in (0, 1):
        out[swapped, start["swap_seats"] + (pair[:, side] - who) % s.rules.players] = 1.0
    kinds = s.hands.shape[2]
    for side in (0, 1):
        mine = np.flatnonzero(pair[:, side] == who)
        if mine.size:
            rows = swapped[mine]
            given = start["swap_given"]
            received = start["swap_received"]
            out[rows, given : given + kinds] = s.swap_given[rows, side]
            out[rows, received : received + kinds] = s.swap_given[rows, 1 - side]

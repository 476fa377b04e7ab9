"""The draw pile and the discard pile: drawing cards, and refilling an empty pile (reshuffles).

State fields used (N games, P seats): ``pile`` (N, D) int8 (D the deck's cards), the draw pile, drawn from
index ``pile_size - 1`` down; ``pile_size`` (N,) int16; ``discard`` (N, K) int8 counts,
the top card included; ``hands`` (N, P, K) int8 and ``hand_size`` (N, P) int16, which a
draw increments; ``void_color`` and ``void_symbol`` (N, P) int8, which a draw clears (a
hand that drew may hold anything again); ``key`` (N,) uint64 and ``reshuffles`` (N,) int32, which seed each
reshuffle's order (counter-based, :mod:`uno_rl.core.rng`), so duplicate deals replay exactly.
"""

from __future__ import annotations

import numpy as np

from . import rng
from .state import State
from .tables import LANES
from .views import flat_view, seat_rows

#: Up to this many games, a multi-card draw uses one np.add.at instead of a pass per card.
_SMALL_DRAW = 64


def row_counts(pile: np.ndarray, size: np.ndarray, kinds: int) -> np.ndarray:
    """(k, kinds) counts of the first ``size`` cards of each pile row ((k, D) int8)."""
    k = pile.shape[0]
    valid = LANES[None, : pile.shape[1]] < size[:, None]
    flat = (np.arange(k)[:, None] * kinds + pile)[valid]
    return np.bincount(flat, minlength=k * kinds).reshape(k, kinds)


def shuffled_piles(
    counts: np.ndarray, keys: np.ndarray, stream: int, index, width: int
) -> tuple[np.ndarray, np.ndarray]:
    """Shuffled piles of the cards in ``counts`` ((k, K) per row): ((k, width) int8, (k,) int16).

    Each row's cards are listed in canonical (kind) order and shuffled by its game's ``keys``
    (row ``i`` draws lanes ``0 .. m_i - 1`` of stream ``stream``, index ``index[i]``): lane
    ``j`` of the shuffled row holds the listed card whose key is the ``j``-th smallest. The
    padding after a row's ``m_i`` cards holds an arbitrary kind. Only the lanes up to the
    longest row are keyed and sorted: a row's order depends on its own keys alone.
    """
    k, kinds = counts.shape
    per_row = counts.sum(axis=1)
    listed = np.repeat(
        np.tile(np.arange(kinds, dtype=np.int8), k), counts.reshape(-1)
    )  # every row's cards, in turn
    lanes = int(per_row.max(initial=0))
    sort_keys = rng.sort_keys(keys, stream, np.asarray(index, np.int64), lanes)
    valid = LANES[None, :lanes] < per_row[:, None]
    sort_keys[~valid] = rng.PAD_KEY  # padding sorts last, stably
    order = np.argsort(sort_keys, axis=1, kind="stable")
    order += (per_row.cumsum() - per_row)[:, None]  # position of each row's cards in ``listed``
    piles = np.full((k, width), kinds - 1, np.int8)
    piles[:, :lanes][valid] = listed[order[valid]]
    return piles, per_row.astype(np.int16)


def reshuffle(s: State, g: np.ndarray) -> None:
    """Refill the empty draw piles of games ``g`` from their discard piles (top card kept)."""
    counts = np.take(s.discard, g, axis=0).astype(np.int16)
    rows = np.arange(g.size)
    counts[rows, s.top[g]] -= 1
    if s.rules.caught_bluffer == "takes-back" and s.rules.challenge_enabled:
        on_four = s.rules.layout.draw_four_like[s.top[g]]  # +4 (or Targeted +4)
        keep = on_four & (s.prev_top[g] >= 0)  # a take-back restores the card under it
        counts[rows[keep], s.prev_top[g[keep]]] -= 1
    some = counts.any(axis=1)
    if not some.all():
        if not some.any():
            return
        g, counts = g[some], counts[some]
    s.pile[g], s.pile_size[g] = shuffled_piles(
        counts, s.key[g], rng.RESHUFFLE, s.reshuffles[g], s.pile.shape[1]
    )
    s.discard[g] -= counts.astype(np.int8)
    s.reshuffles[g] += 1


def draw_cards(s: State, g: np.ndarray, seats: np.ndarray, counts: np.ndarray) -> None:
    """Seat ``seats[i]`` of game ``g[i]`` draws ``counts[i]`` cards (fewer if both piles run out).

    ``g`` holds each game at most once.
    """
    kinds = s.hands.shape[2]
    remaining = np.asarray(counts, np.int64).copy()
    active = remaining > 0
    g, seats, remaining = g[active], seats[active], remaining[active]
    while g.size:
        take = np.minimum(remaining, s.pile_size[g])
        most = int(take.max())
        if most:
            rows = seat_rows(s, g, seats)
            pile, hands = flat_view(s.pile), flat_view(s.hands)
            top = g * s.pile.shape[1] + s.pile_size[g] - 1  # flat index of each pile's top card
            if g.size <= _SMALL_DRAW:  # few games: one unbuffered add (a row may repeat a kind)
                valid = LANES[None, :most] < take[:, None]
                cards = pile[(top[:, None] - LANES[None, :most])[valid]]
                np.add.at(hands, np.repeat(rows, take) * kinds + cards, 1)
            else:  # many games: one pass per card, each (game, seat) row once per pass
                for depth in range(most):
                    r = np.flatnonzero(take > depth) if depth else np.flatnonzero(take)
                    hands[rows[r] * kinds + pile[top[r] - depth]] += 1
            flat_view(s.hand_size)[rows] += take.astype(np.int16)
            _forget_voids(s, rows[take > 0])
            s.pile_size[g] -= take.astype(np.int16)
            remaining -= take
        short = remaining > 0
        if not short.any():
            return
        g, seats, remaining = g[short], seats[short], remaining[short]
        reshuffle(s, g)
        refilled = s.pile_size[g] > 0
        g, seats, remaining = g[refilled], seats[refilled], remaining[refilled]


def _forget_voids(s: State, rows: np.ndarray) -> None:
    """The hands of flat (game, seat) ``rows`` got new cards: what they lacked is unknown."""
    flat_view(s.void_color)[rows] = -1
    flat_view(s.void_symbol)[rows] = -1


def draw_one(s: State, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Each seat draws one card; returns the kinds drawn ((k,) int8, -1 where none was left)."""
    empty = s.pile_size[g] == 0
    if empty.any():
        reshuffle(s, g[empty])
    got = s.pile_size[g] > 0
    cards = np.full(g.size, -1, np.int8)
    if got.any():
        gg, ss = g[got], seats[got]
        size = s.pile_size[gg] - 1
        card = flat_view(s.pile)[gg * s.pile.shape[1] + size]
        s.pile_size[gg] = size
        rows = seat_rows(s, gg, ss)
        flat_view(s.hands)[rows * s.hands.shape[2] + card] += 1
        flat_view(s.hand_size)[rows] += 1
        _forget_voids(s, rows)
        cards[got] = card
    return cards

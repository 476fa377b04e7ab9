"""Dealing rounds: :func:`reset` (new games), :func:`reset_games` (new matches in some games)
and :func:`deal` (a round's shuffle, deal and first card, also used between a match's rounds).

``seeds`` are (k,) uint64 deal seeds: the same seed deals the same deck order, dealer,
first-card chance and reshuffles (duplicate deals; :mod:`uno_rl.core.rng`). A deal resets
every per-round field of the dealt games (:class:`~uno_rl.core.state.State`) and applies the
first card's effects (a turned +4 goes back into the pile, which is reshuffled).
"""

from __future__ import annotations

import numpy as np

from . import rng
from .cards import REVERSE_RANK, SKIP_RANK
from .draw_penalties import first_card_draws
from .phases import COLOR, PLAY
from .piles import draw_cards, row_counts, shuffled_piles
from .rules import MAX_FIRST_CARD_ATTEMPTS, Rules
from .state import State
from .views import next_seat

#: Games dealt at once: bounds the deal's scratch memory (a few (k, 108) int64 arrays).
_DEAL_CHUNK = 16384


def reset(rules: Rules, seeds) -> State:
    """Deal one round in each of ``len(seeds)`` games.

    Args:
        rules: the rule set shared by all games.
        seeds: (N,) integer deal seeds (uint64); the same seed deals the same deck order,
            dealer and reshuffles (duplicate deals). Make them with :func:`rng.new_seeds`.
    """
    return new_state(rules, seeds, _deal_in_chunks)


def new_state(rules: Rules, seeds, deal) -> State:
    """:func:`reset`'s checks and new state, its games dealt by ``deal(state, games, seeds)``
    (``games`` (N,) int64; the NumPy engine's or the compiled engine's deal)."""
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
    seeds = _as_seeds(seeds)
    if not 1 <= seeds.shape[0] <= 1_000_000:
        raise ValueError(f"number of games must be in [1, 1000000], got {seeds.shape[0]}")
    state = State.empty(rules, seeds.shape[0])
    deal(state, np.arange(seeds.shape[0], dtype=np.int64), seeds)
    return state


def reset_games(state: State, games, seeds) -> None:
    """Start new rounds (new matches, scores zeroed) in ``games`` with deal ``seeds``.

    ``games`` is an (N,) bool mask or an index array; ``seeds`` has one seed per game reset.
    """
    restart_games(state, games, seeds, _deal_in_chunks)


def restart_games(state: State, games, seeds, deal) -> None:
    """:func:`reset_games`'s checks and new matches, the rounds dealt by ``deal`` (as in
    :func:`new_state`)."""
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
    deal(state, index, seeds)


def _deal_in_chunks(state: State, index: np.ndarray, seeds: np.ndarray) -> None:
    """Deal games ``index`` a chunk at a time, which bounds the deal's scratch memory."""
    for start in range(0, index.shape[0], _DEAL_CHUNK):
        part = slice(start, start + _DEAL_CHUNK)
        deal(state, index[part], seeds[part], None)


def _as_seeds(seeds) -> np.ndarray:
    """``seeds`` as a (k,) uint64 array, or a clear error (not 1-d integers, negative)."""
    array = np.asarray(seeds)
    if array.ndim != 1 or not (np.issubdtype(array.dtype, np.integer)):
        raise ValueError(
            f"seeds must be a 1-d array of integers, got shape {array.shape} dtype {array.dtype}"
        )
    if np.issubdtype(array.dtype, np.signedinteger) and (array < 0).any():
        raise ValueError("seeds must be non-negative")
    return array.astype(np.uint64)


def deal(s: State, g: np.ndarray, seeds: np.ndarray, dealer: np.ndarray | None) -> None:
    """Shuffle, deal and turn the first card in games ``g`` (the round's fields reset).

    ``seeds``: (k,) uint64; ``dealer``: (k,) int8 seats, or None to draw each game's dealer
    from its seed (``g``: conventions of :mod:`uno_rl.core`).
    """
    rules, p, k = s.rules, s.rules.players, g.shape[0]
    layout, cards = rules.layout, rules.deck_cards.cards
    size_of_deck, kinds = cards.shape[0], layout.num_kinds
    s._mask = s._rows_mask = None
    s.key[g] = seeds
    order = np.argsort(
        rng.sort_keys(seeds, rng.DEAL, np.zeros(k, np.int64), size_of_deck), axis=1, kind="stable"
    )
    deck = cards[order]
    if dealer is None:
        dealer = (rng.bits(seeds, rng.DEALER, 0, 0) % np.uint64(p)).astype(np.int8)
    s.dealer[g] = dealer
    dealt = p * rules.hand_size
    seat_of = (dealer[:, None].astype(np.int64) + 1 + np.arange(dealt)[None, :]) % p
    dealt_cards = deck[:, size_of_deck - 1 - np.arange(dealt)]
    flat = ((np.arange(k)[:, None] * p + seat_of) * kinds + dealt_cards).ravel()
    s.hands[g] = np.bincount(flat, minlength=k * p * kinds).reshape(k, p, kinds)
    s.hand_size[g] = rules.hand_size
    s.pile[g] = deck
    size = np.full(k, size_of_deck - dealt, np.int16)
    top = deck[:, size_of_deck - dealt - 1].copy()
    size -= 1
    attempt = 0
    returned = layout.returns_as_first_card
    redo = np.flatnonzero(returned[top])
    while redo.size:  # a turned +4 (or such) goes back into the pile, which is reshuffled
        rows = g[redo]
        counts = row_counts(s.pile[rows], size[redo], kinds)
        counts[np.arange(redo.size), top[redo]] += 1
        s.pile[rows], m = shuffled_piles(
            counts, seeds[redo], rng.FIRST_DRAW4, np.full(redo.size, attempt), size_of_deck
        )
        top[redo] = s.pile[rows, m - 1]
        size[redo] = m - 1
        attempt += 1
        redo = redo[returned[top[redo]]]
        if redo.size and attempt >= MAX_FIRST_CARD_ATTEMPTS:
            raise RuntimeError(_no_first_card(rules, attempt))
    s.pile_size[g] = size
    s.top[g] = top
    s.discard[g] = 0
    s.discard[g, top] = 1
    s.color[g] = layout.kind_color[top]
    s.direction[g] = 1
    for name, value in (
        ("pending", 0),
        ("drawn", -1),
        ("prev_top", -1),
        ("prev_color", -1),
        ("draw4_player", -1),
        ("draw4_bluff", False),
        ("multi_rank", -1),
        ("multi_count", 0),
        ("jump_card", -1),
        ("jump_from", -1),
        ("jump_cursor", 0),
        ("resume_actor", -1),
        ("resume_phase", PLAY),
        ("reveal_viewer", -1),
        ("reveal_target", -1),
        ("turn", 0),
        ("reshuffles", 0),
        ("winner", -1),
        ("truncated", False),
        ("presses", 0),
        ("press_index", 0),
        ("cause", -1),
        ("shuffled", False),
    ):
        getattr(s, name)[g] = value
    s.revealed[g] = 0
    s.swap_seats[g] = -1
    s.swap_given[g] = 0
    s.skip_turn[g] = 0
    s.stats[g] = 0
    s.void_color[g] = -1
    s.void_symbol[g] = -1
    s.played[g] = 0
    s.named[g] = -1
    first = ((dealer.astype(np.int64) + 1) % p).astype(np.int8)
    s.actor[g] = first
    s.phase[g] = PLAY
    wild = layout.names_color[top]
    if wild.any() and rules.first_wild_color_by == "random":
        colors = rng.bits(seeds[wild], rng.FIRST_COLOR, 0, 0) % np.uint64(4)
        s.color[g[wild]] = colors.astype(np.int8)
    elif wild.any():
        s.phase[g[wild]] = COLOR
        chooser = dealer if rules.first_wild_color_by == "dealer" else first
        s.actor[g[wild]] = chooser[wild]
    if rules.first_card_effects and layout.extended:
        first_card_draws(s, g, top, dealer)
    if rules.first_card_effects:
        rank = layout.kind_rank[top]
        two = np.flatnonzero(layout.is_draw_two[top])
        if two.size:
            draw_cards(s, g[two], first[two], np.full(two.size, 2))
            if rules.first_draw_two_skips:
                s.actor[g[two]] = next_seat(s, g[two], first[two])
        skip = rank == SKIP_RANK
        s.actor[g[skip]] = next_seat(s, g[skip], first[skip])
        rev = rank == REVERSE_RANK
        s.direction[g[rev]] = -1
        s.actor[g[rev]] = dealer[rev]


def _no_first_card(rules: Rules, attempts: int) -> str:
    return (
        f"no card of the deck {rules.deck!r} could be turned first after {attempts:,} reshuffles "
        f"at players={rules.players} x hand_size={rules.hand_size}"
    )

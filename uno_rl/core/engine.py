"""The batched engine: reset, legal masks and step over N games at once.

Every function works on a :class:`~uno_rl.core.state.State` of N games and mutates it in
place. Branches are boolean masks and index arrays over the games that take them; there
is no Python loop over games, players or cards (the only loops run over draw rounds of a
draw-until-playable turn or a reshuffle, a handful of iterations for the few games
concerned). The semantics are those of :mod:`uno_rl.core.reference`, which the
differential tests hold this module to, decision by decision.

Edge cases decided once:

* Stepping a game whose round (or match) is over raises ``ValueError``: reset it with
  :func:`reset_games` first (its legal mask is all False).
* An illegal action raises ``ValueError`` naming the game index, the action's meaning
  and the legal actions; nothing is substituted and the state is left untouched.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import rng
from .actions import (
    ACCEPT,
    ACTION_CARD,
    ACTION_COLOR,
    ACTION_TARGET,
    CHALLENGE,
    CHOOSE_COLOR,
    DRAW,
    NUM_ACTIONS,
    PASS,
    PLAY_DRAW_FOUR,
    PLAY_WILD,
    TARGET,
    action_name,
)
from .cards import (
    CANONICAL_DECK,
    DECK_SIZE,
    DRAW_TWO_RANK,
    KIND_COLOR,
    KIND_POINTS,
    KIND_RANK,
    NUM_KINDS,
    REVERSE_RANK,
    SAME_SYMBOL,
    SKIP_RANK,
    WILD,
    WILD_DRAW_FOUR,
)
from .phases import COLOR, DRAWN, JUMP, MULTI, OVER, PHASE_NAMES, PLAY, RESPOND
from .phases import TARGET as TARGET_PHASE
from .rules import Rules
from .state import STAT_NAMES, State

# ------------------------------------------------------------------ lookup tables
#: (54 top kinds, 5 colors incl. -1 at index 4, 54 kinds) bool: colored kind matches color or symbol.
_MATCHES = np.zeros((NUM_KINDS, 5, NUM_KINDS), dtype=bool)
for _top in range(NUM_KINDS):
    for _c in range(-1, 4):
        _MATCHES[_top, _c] = ((KIND_COLOR == _c) & (KIND_COLOR >= 0)) | SAME_SYMBOL[_top]
#: _MATCHES with (top, color) flattened to one row index ``top * 5 + color + 1``.
_MATCH_ROWS = np.ascontiguousarray(_MATCHES[:, [4, 0, 1, 2, 3]]).reshape(-1, NUM_KINDS)
_DRAW_TWO_KINDS = np.array([c * 13 + DRAW_TWO_RANK for c in range(4)])
_IS_DRAW_TWO = np.zeros(NUM_KINDS, dtype=bool)
_IS_DRAW_TWO[_DRAW_TWO_KINDS] = True
#: (54, 77) bool: the actions that play a card of each kind.
_KIND_ACTIONS = np.zeros((NUM_KINDS, NUM_ACTIONS), dtype=bool)
for _k in range(NUM_KINDS):
    _KIND_ACTIONS[_k, ACTION_CARD == _k] = True
#: (54+1, 77): same, with a last all-False row for "no card" (-1).
_KIND_ACTIONS_OR_NONE = np.vstack([_KIND_ACTIONS, np.zeros((1, NUM_ACTIONS), bool)])
_POINTS = KIND_POINTS.astype(np.int32)
_DEAL_CHUNK = 16384
_LANES = np.arange(DECK_SIZE)
_KINDS_INT8 = np.arange(NUM_KINDS, dtype=np.int8)
#: Up to this many games, a multi-card draw uses one np.add.at instead of a pass per card.
_SMALL_DRAW = 64
#: (players, steps) -> (3 * players,) int8: seat ``steps`` after each seat, by direction + 1.
_NEXT_SEAT = {
    (_p, _steps): np.concatenate(
        [(np.arange(_p) - _steps) % _p, np.zeros(_p, np.int64), (np.arange(_p) + _steps) % _p]
    ).astype(np.int8)
    for _p in range(2, 11)
    for _steps in (1, 2)
}


# Advanced indexing with one flat index is several times faster than with two or three
# index arrays, so the hot paths address (game, seat) pairs and cards through flat views.
def _flat(a: np.ndarray) -> np.ndarray:
    """A 1-d view of the C-contiguous state array ``a`` (writes go through)."""
    if not a.flags.c_contiguous:
        raise ValueError("State arrays must be C-contiguous (build states with State.empty)")
    return a.reshape(-1)


def _seat_rows(s: State, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(k,) int64 flat (game, seat) index: row of ``hands.reshape(N * P, 54)``."""
    return g * s.rules.players + seats


def _hands_rows(s: State) -> np.ndarray:
    """``s.hands`` as an (N * P, 54) view: one row per (game, seat)."""
    return _flat(s.hands).reshape(-1, NUM_KINDS)


def _hand_of(s: State, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(k, 54) int8 copy of the hands of ``seats`` in games ``g``."""
    # np.take copies whole rows: several times faster than fancy indexing for row gathers.
    return np.take(_hands_rows(s), _seat_rows(s, g, seats), axis=0)


@dataclasses.dataclass
class StepResult:
    """What one step produced, per game. Round fields are 0 / -1 where no round ended.

    Attributes:
        rewards: (N, P) float32 per-seat reward of this step (nonzero only when a round ends).
        round_over: (N,) bool: a round ended this step (won or truncated).
        truncated: (N,) bool: it ended at ``max_turns`` (a draw: rewards 0).
        match_over: (N,) bool: a match ended (match mode only).
        winner: (N,) int8: winning seat of the round that ended, -1 otherwise.
        points: (N,) int32: card points left in the losers' hands at the end of the round.
        net_points: (N, P) int32: zero-sum net points of the round that ended, whatever
            ``rules.reward`` says: the winner gets the card points left in the other hands,
            each loser minus its own; 0 where no round was won (truncated, or still going).
        decisions: (N,) int32: decisions the round took.
        draw4_plays, bluffs, challenges, challenges_won, draw4_challenged, bluffs_caught:
            (N, P) int32 per-seat counts over the round that ended (:data:`STAT_NAMES`).
    """

    rewards: np.ndarray
    round_over: np.ndarray
    truncated: np.ndarray
    match_over: np.ndarray
    winner: np.ndarray
    points: np.ndarray
    net_points: np.ndarray
    decisions: np.ndarray
    draw4_plays: np.ndarray
    bluffs: np.ndarray
    challenges: np.ndarray
    challenges_won: np.ndarray
    draw4_challenged: np.ndarray
    bluffs_caught: np.ndarray


# ====================================================================== reset
def reset(rules: Rules, seeds) -> State:
    """Deal one round in each of ``len(seeds)`` games.

    Args:
        rules: the rule set shared by all games.
        seeds: (N,) integer deal seeds (uint64); the same seed deals the same deck order,
            dealer and reshuffles (duplicate deals). Make them with :func:`rng.new_seeds`.
    """
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
    seeds = _as_seeds(seeds)
    if not 1 <= seeds.shape[0] <= 1_000_000:
        raise ValueError(f"number of games must be in [1, 1000000], got {seeds.shape[0]}")
    state = State.empty(rules, seeds.shape[0])
    _deal_in_chunks(state, np.arange(seeds.shape[0]), seeds)
    return state


def reset_games(state: State, games, seeds) -> None:
    """Start new rounds (new matches, scores zeroed) in ``games`` with deal ``seeds``.

    ``games`` is an (N,) bool mask or an index array; ``seeds`` has one seed per game reset.
    """
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
    _deal_in_chunks(state, index, seeds)


def _deal_in_chunks(state: State, index: np.ndarray, seeds: np.ndarray) -> None:
    """Deal games ``index`` a chunk at a time, which bounds the deal's scratch memory."""
    for start in range(0, index.shape[0], _DEAL_CHUNK):
        part = slice(start, start + _DEAL_CHUNK)
        _deal(state, index[part], seeds[part], None)


def _as_seeds(seeds) -> np.ndarray:
    array = np.asarray(seeds)
    if array.ndim != 1 or not (np.issubdtype(array.dtype, np.integer)):
        raise ValueError(
            f"seeds must be a 1-d array of integers, got shape {array.shape} dtype {array.dtype}"
        )
    if np.issubdtype(array.dtype, np.signedinteger) and (array < 0).any():
        raise ValueError("seeds must be non-negative")
    return array.astype(np.uint64)


def _deal(s: State, g: np.ndarray, seeds: np.ndarray, dealer: np.ndarray | None) -> None:
    """Shuffle, deal and turn the first card in games ``g`` (the round's fields reset)."""
    rules, p, k = s.rules, s.rules.players, g.shape[0]
    s._mask = s._rows_mask = None
    s.key[g] = seeds
    order = np.argsort(
        rng.sort_keys(seeds, rng.DEAL, np.zeros(k, np.int64), DECK_SIZE), axis=1, kind="stable"
    )
    deck = CANONICAL_DECK[order]
    if dealer is None:
        dealer = (rng.bits(seeds, rng.DEALER, 0, 0) % np.uint64(p)).astype(np.int8)
    s.dealer[g] = dealer
    dealt = p * rules.hand_size
    seat_of = (dealer[:, None].astype(np.int64) + 1 + np.arange(dealt)[None, :]) % p
    cards = deck[:, DECK_SIZE - 1 - np.arange(dealt)]
    flat = ((np.arange(k)[:, None] * p + seat_of) * NUM_KINDS + cards).ravel()
    s.hands[g] = np.bincount(flat, minlength=k * p * NUM_KINDS).reshape(k, p, NUM_KINDS)
    s.hand_size[g] = rules.hand_size
    s.pile[g] = deck
    size = np.full(k, DECK_SIZE - dealt, np.int16)
    top = deck[:, DECK_SIZE - dealt - 1].copy()
    size -= 1
    attempt = 0
    redo = np.flatnonzero(top == WILD_DRAW_FOUR)
    while redo.size:  # a turned +4 goes back into the pile, which is reshuffled
        rows = g[redo]
        counts = _row_counts(s.pile[rows], size[redo])
        counts[:, WILD_DRAW_FOUR] += 1
        s.pile[rows], m = _shuffled_piles(
            counts, seeds[redo], rng.FIRST_DRAW4, np.full(redo.size, attempt)
        )
        top[redo] = s.pile[rows, m - 1]
        size[redo] = m - 1
        attempt += 1
        redo = redo[top[redo] == WILD_DRAW_FOUR]
    s.pile_size[g] = size
    s.top[g] = top
    s.discard[g] = 0
    s.discard[g, top] = 1
    s.color[g] = KIND_COLOR[top]
    s.direction[g] = 1
    for name, value in (
        ("pending", 0),
        ("drawn", -1),
        ("prev_top", -1),
        ("prev_color", -1),
        ("draw4_player", -1),
        ("draw4_bluff", False),
        ("multi_rank", -1),
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
    ):
        getattr(s, name)[g] = value
    s.revealed[g] = 0
    s.stats[g] = 0
    first = ((dealer.astype(np.int64) + 1) % p).astype(np.int8)
    s.actor[g] = first
    s.phase[g] = PLAY
    wild = top == WILD
    if wild.any() and rules.first_wild_color_by == "random":
        colors = rng.bits(seeds[wild], rng.FIRST_COLOR, 0, 0) % np.uint64(4)
        s.color[g[wild]] = colors.astype(np.int8)
    elif wild.any():
        s.phase[g[wild]] = COLOR
        chooser = dealer if rules.first_wild_color_by == "dealer" else first
        s.actor[g[wild]] = chooser[wild]
    if rules.first_card_effects:
        rank = KIND_RANK[top]
        two = np.flatnonzero(_IS_DRAW_TWO[top])
        if two.size:
            _draw_cards(s, g[two], first[two], np.full(two.size, 2))
            if rules.first_draw_two_skips:
                s.actor[g[two]] = _next(s, g[two], first[two])
        skip = rank == SKIP_RANK
        s.actor[g[skip]] = _next(s, g[skip], first[skip])
        rev = rank == REVERSE_RANK
        s.direction[g[rev]] = -1
        s.actor[g[rev]] = dealer[rev]


# ============================================================ pile mechanics
def _row_counts(pile: np.ndarray, size: np.ndarray) -> np.ndarray:
    """(k, 54) counts of the first ``size`` cards of each pile row."""
    k = pile.shape[0]
    valid = _LANES[None, :] < size[:, None]
    flat = (np.arange(k)[:, None] * NUM_KINDS + pile)[valid]
    return np.bincount(flat, minlength=k * NUM_KINDS).reshape(k, NUM_KINDS)


def _shuffled_piles(
    counts: np.ndarray, keys: np.ndarray, stream: int, index
) -> tuple[np.ndarray, np.ndarray]:
    """Shuffled piles of the cards in ``counts`` ((k, 54) per row): ((k, 108) int8, (k,) int16).

    Each row's cards are listed in canonical (kind) order and shuffled by its game's ``keys``
    (row ``i`` draws lanes ``0 .. m_i - 1`` of stream ``stream``, index ``index[i]``): lane
    ``j`` of the shuffled row holds the listed card whose key is the ``j``-th smallest. The
    padding after a row's ``m_i`` cards holds an arbitrary kind. Only the lanes up to the
    longest row are keyed and sorted: a row's order depends on its own keys alone.
    """
    k = counts.shape[0]
    per_row = counts.sum(axis=1)
    listed = np.repeat(np.tile(_KINDS_INT8, k), counts.reshape(-1))  # every row's cards, in turn
    lanes = int(per_row.max(initial=0))
    sort_keys = rng.sort_keys(keys, stream, np.asarray(index, np.int64), lanes)
    valid = _LANES[None, :lanes] < per_row[:, None]
    sort_keys[~valid] = rng.PAD_KEY  # padding sorts last, stably
    order = np.argsort(sort_keys, axis=1, kind="stable")
    order += (per_row.cumsum() - per_row)[:, None]  # position of each row's cards in ``listed``
    piles = np.full((k, DECK_SIZE), NUM_KINDS - 1, np.int8)
    piles[:, :lanes][valid] = listed[order[valid]]
    return piles, per_row.astype(np.int16)


def _reshuffle(s: State, g: np.ndarray) -> None:
    """Refill the empty draw piles of games ``g`` from their discard piles (top card kept)."""
    counts = np.take(s.discard, g, axis=0).astype(np.int16)
    rows = np.arange(g.size)
    counts[rows, s.top[g]] -= 1
    if s.rules.caught_bluffer == "takes-back" and s.rules.challenge_enabled:
        keep = (s.top[g] == WILD_DRAW_FOUR) & (s.prev_top[g] >= 0)  # a take-back restores it
        counts[rows[keep], s.prev_top[g[keep]]] -= 1
    some = counts.any(axis=1)
    if not some.all():
        if not some.any():
            return
        g, counts = g[some], counts[some]
    s.pile[g], s.pile_size[g] = _shuffled_piles(counts, s.key[g], rng.RESHUFFLE, s.reshuffles[g])
    s.discard[g] -= counts.astype(np.int8)
    s.reshuffles[g] += 1


def _draw_cards(s: State, g: np.ndarray, seats: np.ndarray, counts: np.ndarray) -> None:
    """Seat ``seats[i]`` of game ``g[i]`` draws ``counts[i]`` cards (fewer if both piles run out).

    ``g`` holds each game at most once.
    """
    remaining = np.asarray(counts, np.int64).copy()
    active = remaining > 0
    g, seats, remaining = g[active], seats[active], remaining[active]
    while g.size:
        take = np.minimum(remaining, s.pile_size[g])
        most = int(take.max())
        if most:
            rows = _seat_rows(s, g, seats)
            pile, hands = _flat(s.pile), _flat(s.hands)
            top = g * DECK_SIZE + s.pile_size[g] - 1  # flat index of each pile's top card
            if g.size <= _SMALL_DRAW:  # few games: one unbuffered add (a row may repeat a kind)
                valid = _LANES[None, :most] < take[:, None]
                cards = pile[(top[:, None] - _LANES[None, :most])[valid]]
                np.add.at(hands, np.repeat(rows, take) * NUM_KINDS + cards, 1)
            else:  # many games: one pass per card, each (game, seat) row once per pass
                for depth in range(most):
                    r = np.flatnonzero(take > depth) if depth else np.flatnonzero(take)
                    hands[rows[r] * NUM_KINDS + pile[top[r] - depth]] += 1
            _flat(s.hand_size)[rows] += take.astype(np.int16)
            s.pile_size[g] -= take.astype(np.int16)
            remaining -= take
        short = remaining > 0
        if not short.any():
            return
        g, seats, remaining = g[short], seats[short], remaining[short]
        _reshuffle(s, g)
        refilled = s.pile_size[g] > 0
        g, seats, remaining = g[refilled], seats[refilled], remaining[refilled]


def _draw_one(s: State, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Each seat draws one card; returns the kinds drawn ((k,) int8, -1 where none was left)."""
    empty = s.pile_size[g] == 0
    if empty.any():
        _reshuffle(s, g[empty])
    got = s.pile_size[g] > 0
    cards = np.full(g.size, -1, np.int8)
    if got.any():
        gg, ss = g[got], seats[got]
        size = s.pile_size[gg] - 1
        card = _flat(s.pile)[gg * DECK_SIZE + size]
        s.pile_size[gg] = size
        rows = _seat_rows(s, gg, ss)
        _flat(s.hands)[rows * NUM_KINDS + card] += 1
        _flat(s.hand_size)[rows] += 1
        cards[got] = card
    return cards


# ============================================================== rule helpers
def _next(s: State, g: np.ndarray, seats: np.ndarray, steps: int = 1) -> np.ndarray:
    """(k,) int8: the seat ``steps`` places after ``seats`` in the direction of play."""
    p = s.rules.players
    # _NEXT_SEAT[p, steps] flattened: row direction + 1 (0 or 2), column seat.
    return _NEXT_SEAT[p, steps][(s.direction[g] + 1) * p + seats]


def _matches(s: State, g: np.ndarray) -> np.ndarray:
    """(k, 54) bool: colored kinds matching the current color or the top card's symbol."""
    return np.take(_MATCH_ROWS, s.top[g].astype(np.int64) * 5 + s.color[g] + 1, axis=0)


def _draw_four_legal(s: State, g: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """(k,) bool: a +4 from a player holding ``hand`` (k, 54) is legal (not a bluff)."""
    held = hand[:, :52] > 0
    if s.rules.draw_four_legal == "no-current-color":
        color = s.color[g].astype(np.int64)
        per_color = held.reshape(-1, 4, 13).any(axis=2)
        return ~per_color[np.arange(g.size), np.maximum(color, 0)] | (color < 0)
    return ~((held & _matches(s, g)[:, :52]).any(axis=1) | (hand[:, WILD] > 0))


def _playable(s: State, g: np.ndarray, seats: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """(k,) bool: card ``kinds`` may be played by ``seats`` in the play phase."""
    kinds = kinds.astype(np.int64)
    ok = kinds == WILD
    colored = kinds < 52
    ok[colored] = _MATCHES[s.top[g[colored]], s.color[g[colored]], kinds[colored]]
    d4 = kinds == WILD_DRAW_FOUR
    if d4.any():
        if s.rules.challenge_enabled:
            ok[d4] = True
        else:
            ok[d4] = _draw_four_legal(s, g[d4], _hand_of(s, g[d4], seats[d4]))
    return ok


def _last_card_filter(s: State, g: np.ndarray, cards_ok: np.ndarray) -> None:
    """Apply the last-card switch to the (k, 54) playable flags of games ``g`` in place."""
    rule = s.rules.last_card
    if rule == "any":
        return
    last = _flat(s.hand_size)[_seat_rows(s, g, s.actor[g])] == 1
    cards_ok[last, WILD_DRAW_FOUR] = False
    if rule == "no-wild":
        cards_ok[last, WILD] = False


# ================================================================ legal mask
def legal_mask(state: State, games=None, *, validate: bool = True) -> np.ndarray:
    """(N, 77) bool: the legal actions of the player to act in each game (none once over).

    With ``games`` (an index array of distinct games), only those rows: (k, 77). The full
    mask is cached until the next step; treat results as read-only. ``validate=False``
    skips checking ``games`` (for callers that built the index themselves).
    """
    if games is None:
        if state._mask is None:
            state._mask = _mask_rows(state, np.arange(state.num_games))
        return state._mask
    games = _check_games(state, games) if validate else np.asarray(games, np.int64)
    if state._mask is not None:
        return state._mask[games]
    cached = state._rows_mask
    if cached is not None and cached[0].shape == games.shape and (cached[0] == games).all():
        return cached[1]
    mask = _mask_rows(state, games)
    state._rows_mask = (games, mask)
    return mask


def _mask_rows(s: State, games: np.ndarray) -> np.ndarray:
    """(k, 77) bool legal masks of ``games``."""
    mask = np.zeros((games.size, NUM_ACTIONS), dtype=bool)
    phase = s.phase[games]
    hand = _hand_of(s, games, s.actor[games])
    # Most games are in the play phase: mask every row as in it, then overwrite the others.
    _play_mask(s, games, hand, mask)
    if not (phase == PLAY).all():
        for ph, rows in enumerate(_group(phase, len(_PHASE_MASKS))):
            if rows.size and ph != PLAY:
                part = np.zeros((rows.size, NUM_ACTIONS), dtype=bool)
                if _PHASE_MASKS[ph] is not None:
                    _PHASE_MASKS[ph](s, games[rows], hand[rows], part)
                mask[rows] = part
    return mask


def _check_games(s: State, games) -> np.ndarray:
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


def _cards_to_actions(cards_ok: np.ndarray, out: np.ndarray) -> None:
    """Write (k, 54) playable flags as play actions into ``out`` (k, 77)."""
    out[:, :52] = cards_ok[:, :52]
    out[:, PLAY_WILD : PLAY_WILD + 4] = cards_ok[:, WILD : WILD + 1]
    out[:, PLAY_DRAW_FOUR : PLAY_DRAW_FOUR + 4] = cards_ok[:, WILD_DRAW_FOUR : WILD_DRAW_FOUR + 1]


def _play_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    held = hand > 0
    ok = held & _matches(s, g)
    ok[:, WILD] = held[:, WILD]
    d4 = held[:, WILD_DRAW_FOUR]
    if not s.rules.challenge_enabled and d4.any():
        rows = np.flatnonzero(d4)
        d4[rows] = _draw_four_legal(s, g[rows], hand[rows])
    ok[:, WILD_DRAW_FOUR] = d4
    _last_card_filter(s, g, ok)
    _cards_to_actions(ok, out)
    out[:, DRAW] = True if s.rules.voluntary_draw else ~ok.any(axis=1)


def _drawn_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    np.take(_KIND_ACTIONS, s.drawn[g], axis=0, out=out)
    out[:, PASS] = s.rules.drawn_card != "must-play"


def _respond_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    rules = s.rules
    top = s.top[g]
    out[:, ACCEPT] = True
    on_d4 = top == WILD_DRAW_FOUR
    if rules.challenge_enabled:
        out[:, CHALLENGE] = on_d4
    bluffer = np.maximum(s.draw4_player[g], 0)
    final = on_d4 & (s.hand_size[g, bluffer] == 0)  # +4 was the last card: accept or challenge
    allowed = np.zeros((g.size, NUM_KINDS), dtype=bool)
    if rules.stacking != "none":
        on_d2 = _IS_DRAW_TWO[top]
        allowed[on_d2[:, None] & _IS_DRAW_TWO[None, :]] = True
        allowed[:, WILD_DRAW_FOUR] = on_d4 | (on_d2 & (rules.stacking == "any"))
        if rules.stacking == "any":
            same_color = KIND_COLOR[None, :] == s.color[g][:, None]
            allowed |= on_d4[:, None] & _IS_DRAW_TWO[None, :] & same_color
    if rules.wild_cancels_draw:
        allowed[:, WILD] = True
    ok = allowed & (hand > 0) & ~final[:, None]
    if rules.stacking != "none":  # a stacked +4 is never challenged: the mask checks it
        rows = np.flatnonzero(ok[:, WILD_DRAW_FOUR])
        if rows.size:
            ok[rows, WILD_DRAW_FOUR] = _draw_four_legal(s, g[rows], hand[rows])
    _last_card_filter(s, g, ok)
    _cards_to_actions(ok, out)


def _target_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    out[:, TARGET : TARGET + s.rules.players - 1] = True


def _multi_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    same = KIND_RANK[None, :52] == s.multi_rank[g][:, None]
    room = s.hand_size[g, s.actor[g]] >= 2
    out[:, :52] = same & (hand[:, :52] > 0) & room[:, None]
    out[:, PASS] = True


def _color_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    out[:, CHOOSE_COLOR : CHOOSE_COLOR + 4] = True


def _jump_mask(s: State, g: np.ndarray, hand: np.ndarray, out: np.ndarray) -> None:
    out[np.arange(g.size), s.jump_card[g]] = True
    out[:, PASS] = True


# ====================================================================== step
def step(state: State, actions, games=None, *, validate: bool = True) -> StepResult:
    """Apply one action per game, for whichever player is to act in it.

    Args:
        state: N games, none of them over; mutated in place.
        actions: (N,) integer actions (see :mod:`uno_rl.core.actions`), or (k,) with ``games``.
        games: optional (k,) distinct game indices: step only these games (the others are
            untouched); the result then has k rows, in the order of ``games``.
        validate: check ``games`` and ``actions`` (shape, range, legality, games not over).
            Only a caller that has already checked the actions against :func:`legal_mask`
            (the vector env) may pass False: an unchecked bad action corrupts the state.

    Returns:
        A :class:`StepResult`. In match mode a finished round is followed at once by the
        next round's deal (unless the match is over); otherwise a finished game stays over
        until :func:`reset_games`.

    Raises:
        ValueError: wrong shape or type, an action out of range, an illegal action, or a
            game that is already over. The state is unchanged.
    """
    s = state
    if validate:
        rows = None if games is None else _check_games(s, games)
        actions = _check_actions(s, actions, rows)
    else:
        rows = None if games is None else np.asarray(games, np.int64)
        actions = np.asarray(actions, np.int64)
    seat, phase = s.actor.copy(), s.phase.copy()
    if rows is not None:  # handlers index by game: spread the actions over all N
        spread = np.zeros(s.num_games, np.int64)
        spread[rows] = actions
        actions = spread
    s._mask = s._rows_mask = None
    stepped = actions if rows is None else actions[rows]
    stepped_phase = phase if rows is None else phase[rows]
    category = np.where(stepped == PASS, _PASS_CATEGORY[stepped_phase], _ACTION_CATEGORY[stepped])
    groups = _group(category, _NUM_CATEGORIES)
    if rows is not None:
        groups = [rows[g] for g in groups]

    g = groups[_CAT_PLAY]
    if g.size:
        a = actions[g]
        _play(s, g, seat[g], ACTION_CARD[a].astype(np.int64), ACTION_COLOR[a], phase[g])
    g = groups[_CAT_DRAW]
    if g.size:
        _draw_action(s, g, seat[g])
    g = groups[_CAT_KEEP]
    if g.size:
        _start_turn(s, g, _next(s, g, seat[g]))
    g = groups[_CAT_STOP_MULTI]
    if g.size:
        _finish_play(s, g, seat[g], s.top[g].astype(np.int64))
    g = groups[_CAT_NO_JUMP]
    if g.size:
        _ask_jump(s, g, s.jump_cursor[g].astype(np.int64) + 1)
    g = groups[_CAT_ACCEPT]
    if g.size:
        _draw_cards(s, g, seat[g], s.pending[g])
        s.pending[g] = 0
        _after_penalty(s, g, _next(s, g, seat[g]), seat[g])
    g = groups[_CAT_CHALLENGE]
    if g.size:
        _challenge(s, g, seat[g])
    g = groups[_CAT_COLOR]
    if g.size:
        s.color[g] = ACTION_COLOR[actions[g]]
        _start_turn(s, g, ((s.dealer[g].astype(np.int64) + 1) % s.rules.players).astype(np.int8))
    g = groups[_CAT_TARGET]
    if g.size:
        _swap_hands(s, g, seat[g], ACTION_TARGET[actions[g]])
    return _close_step(s, rows)


# Step dispatch: every (action, phase) falls in one category, handled for its games at once.
(
    _CAT_PLAY,
    _CAT_DRAW,
    _CAT_KEEP,
    _CAT_STOP_MULTI,
    _CAT_NO_JUMP,
    _CAT_ACCEPT,
    _CAT_CHALLENGE,
    _CAT_COLOR,
    _CAT_TARGET,
) = range(9)
_NUM_CATEGORIES = 9
_NO_ROWS = np.zeros(0, np.int64)
_ACTION_CATEGORY = np.full(NUM_ACTIONS, _CAT_PLAY, np.int8)
_ACTION_CATEGORY[DRAW] = _CAT_DRAW
_ACTION_CATEGORY[ACCEPT] = _CAT_ACCEPT
_ACTION_CATEGORY[CHALLENGE] = _CAT_CHALLENGE
_ACTION_CATEGORY[TARGET:CHOOSE_COLOR] = _CAT_TARGET
_ACTION_CATEGORY[CHOOSE_COLOR:] = _CAT_COLOR
#: category of PASS by phase (PASS is only legal in the drawn, multi and jump phases)
_PASS_CATEGORY = np.full(8, _CAT_KEEP, np.int8)
_PASS_CATEGORY[MULTI] = _CAT_STOP_MULTI
_PASS_CATEGORY[JUMP] = _CAT_NO_JUMP


def _group(keys: np.ndarray, count: int) -> list[np.ndarray]:
    """Indices of ``keys`` (small non-negative ints) grouped by value: one stable sort, not ``count`` scans."""
    if keys.size and (keys == keys[0]).all():  # the common case: one group, no sort
        groups = [_NO_ROWS] * count
        groups[int(keys[0])] = np.arange(keys.size)
        return groups
    order = np.argsort(keys, kind="stable")
    bounds = np.bincount(keys, minlength=count).cumsum().tolist()
    return [order[start:stop] for start, stop in zip([0, *bounds[:-1]], bounds)]


def _check_actions(s: State, actions, games: np.ndarray | None = None) -> np.ndarray:
    """The actions as int64 (one per game of ``games``, or of the batch), or a clear error."""
    array = np.asarray(actions)
    ids = np.arange(s.num_games) if games is None else games
    n = ids.size
    if array.shape != (n,):
        raise ValueError(f"actions must have shape ({n},) (one per game), got {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"actions must be integers, got dtype {array.dtype}")
    bad = np.flatnonzero((array < 0) | (array >= NUM_ACTIONS))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"game {int(ids[i])}: action {int(array[i])} is out of range [0, {NUM_ACTIONS})"
        )
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
            f"game {game}: illegal action {int(array[i])} ({action_name(int(array[i]))}) for "
            f"seat {int(s.actor[game])} in phase '{PHASE_NAMES[s.phase[game]]}'; legal actions: "
            + ", ".join(f"{a} ({action_name(a)})" for a in legal)
        )
    return array


def _swap_hands(s: State, g: np.ndarray, seats: np.ndarray, offsets: np.ndarray) -> None:
    """Seven-zero: ``seats`` swap hands with the player ``offsets`` seats clockwise."""
    other = ((seats.astype(np.int64) + offsets) % s.rules.players).astype(np.int8)
    mine, theirs = s.hands[g, seats].copy(), s.hands[g, other].copy()
    s.hands[g, seats], s.hands[g, other] = theirs, mine
    size_mine, size_theirs = s.hand_size[g, seats].copy(), s.hand_size[g, other].copy()
    s.hand_size[g, seats], s.hand_size[g, other] = size_theirs, size_mine
    _end_turn(s, g, seats, _next(s, g, seats), np.full(g.size, PLAY, np.int8))


def _start_turn(s: State, g: np.ndarray, seats: np.ndarray) -> None:
    s.actor[g] = seats
    s.phase[g] = PLAY


def _draw_action(s: State, g: np.ndarray, seats: np.ndarray) -> None:
    rules = s.rules
    card = _draw_one(s, g, seats)
    if rules.drawn_card == "auto-play":
        _auto_play(s, g, seats, card)
        return
    if rules.draw_until_playable:
        again = np.flatnonzero(card >= 0)
        again = again[~_playable(s, g[again], seats[again], card[again])]
        while again.size:
            card[again] = _draw_one(s, g[again], seats[again])
            again = again[card[again] >= 0]
            again = again[~_playable(s, g[again], seats[again], card[again])]
    keep = card >= 0
    if rules.drawn_card != "may-not-play":
        rows = np.flatnonzero(keep)
        keep[rows] = _playable(s, g[rows], seats[rows], card[rows])
    else:
        keep[:] = False
    s.actor[g[keep]] = seats[keep]
    s.phase[g[keep]] = DRAWN
    s.drawn[g[keep]] = card[keep]
    rest = ~keep
    _start_turn(s, g[rest], _next(s, g[rest], seats[rest]))


def _lay_card(
    s: State, g: np.ndarray, seats: np.ndarray, kinds: np.ndarray, named: np.ndarray
) -> np.ndarray:
    """Move card ``kinds`` from the hands of ``seats`` onto the discard piles of games ``g``:
    the new top card, its color (``named`` for wilds). Returns the (k,) flat (game, seat) rows."""
    rows = _seat_rows(s, g, seats)
    _flat(s.hands)[rows * NUM_KINDS + kinds] -= 1
    _flat(s.hand_size)[rows] -= 1
    _flat(s.discard)[g * NUM_KINDS + kinds] += 1
    s.top[g] = kinds
    s.color[g] = np.where(kinds >= 52, named, KIND_COLOR[kinds])
    s.drawn[g] = -1
    return rows


def _auto_play(s: State, g: np.ndarray, seats: np.ndarray, card: np.ndarray) -> None:
    """``drawn_card='auto-play'`` (RLCard): the drawn ``card`` ((k,) kinds, -1: none) is played
    at once if it is a Wild, a +4 or of the current color; otherwise the turn passes."""
    kinds = card.astype(np.int64)
    auto = (kinds >= 52) | ((kinds >= 0) & (KIND_COLOR[np.maximum(kinds, 0)] == s.color[g]))
    keep = ~auto
    _start_turn(s, g[keep], _next(s, g[keep], seats[keep]))
    g, seats, kinds = g[auto], seats[auto], kinds[auto]
    if not g.size:
        return
    d4 = kinds == WILD_DRAW_FOUR  # played as a plain Wild: nobody draws or challenges
    gd = g[d4]
    s.prev_color[gd] = s.color[gd]  # what observations show while a +4 is on top
    s.draw4_player[gd] = seats[d4]
    s.prev_top[gd] = -1  # no take-back can restore the card under it
    s.draw4_bluff[gd] = False
    random_color = rng.bits(s.key[g], rng.DRAWN_COLOR, s.turn[g], 0) % np.uint64(4)
    _lay_card(s, g, seats, kinds, random_color.astype(np.int8))
    _start_turn(s, gd, _next(s, gd, seats[d4]))
    rest = ~d4
    _finish_play(s, g[rest], seats[rest], kinds[rest])


def _play(
    s: State,
    g: np.ndarray,
    seats: np.ndarray,
    kinds: np.ndarray,
    named: np.ndarray,
    phase: np.ndarray,
) -> None:
    """Seat ``seats`` plays card ``kinds`` in games ``g`` (named color for wilds)."""
    rules = s.rules
    d4 = np.flatnonzero(kinds == WILD_DRAW_FOUR)
    if d4.size:
        gd, sd = g[d4], seats[d4]
        bluff = np.zeros(d4.size, bool)
        if rules.challenge_enabled:
            bluff = ~_draw_four_legal(s, gd, _hand_of(s, gd, sd))
        s.draw4_bluff[gd] = bluff
        s.draw4_player[gd] = sd
        s.prev_top[gd] = s.top[gd]
        s.prev_color[gd] = s.color[gd]
        s.stats[gd, 0, sd] += 1
        s.stats[gd, 1, sd] += bluff
    rows = _lay_card(s, g, seats, kinds, named)
    hand_size = _flat(s.hand_size)
    if rules.wild_cancels_draw:
        s.pending[g[(phase == RESPOND) & (kinds == WILD)]] = 0
    sizes = hand_size[rows]
    if rules.uno_forget_prob > 0:
        one = np.flatnonzero(sizes == 1)
        if one.size:
            go = g[one]
            forgets = rng.uniform(s.key[go], rng.FORGET_UNO, s.turn[go], 0) < rules.uno_forget_prob
            caught = rng.uniform(s.key[go], rng.FORGET_UNO, s.turn[go], 1) < rules.uno_catch_prob
            hit = one[forgets & caught]
            _draw_cards(s, g[hit], seats[hit], np.full(hit.size, rules.uno_penalty))
            sizes = hand_size[rows]
    empty = sizes == 0
    if empty.any():
        _play_last_card(s, g[empty], seats[empty], kinds[empty])
    rest = ~empty if rules.multi_play or empty.any() else None  # None: all games go on
    if rules.multi_play:
        rank = KIND_RANK[kinds]
        multi = (
            rest & ((phase == PLAY) | (phase == MULTI)) & (kinds < 52) & (rank < 10) & (sizes >= 2)
        )
        rows = np.flatnonzero(multi)
        if rows.size:
            per_rank = s.hands[g[rows], seats[rows], :52].reshape(-1, 4, 13).sum(axis=1)
            has_more = per_rank[np.arange(rows.size), rank[rows]] > 0
            rows = rows[has_more]
            s.actor[g[rows]] = seats[rows]
            s.phase[g[rows]] = MULTI
            s.multi_rank[g[rows]] = rank[rows]
            rest[rows] = False
    if rest is None:
        _finish_play(s, g, seats, kinds)
    elif rest.any():
        _finish_play(s, g[rest], seats[rest], kinds[rest])


def _play_last_card(s: State, g: np.ndarray, seats: np.ndarray, kinds: np.ndarray) -> None:
    """``seats`` emptied their hands: a final +2/+4 is still drawn (a final +4 challenged first)."""
    victim = _next(s, g, seats)
    is_d4 = kinds == WILD_DRAW_FOUR
    respond = is_d4 & s.rules.challenge_enabled & (s.pending[g] == 0)
    if respond.any():
        gr = g[respond]
        s.pending[gr] = 4
        s.actor[gr] = victim[respond]
        s.phase[gr] = RESPOND
    done = ~respond
    amount = np.where(is_d4, 4, np.where(_IS_DRAW_TWO[kinds], 2, 0))
    draw = done & (amount > 0)
    if draw.any():
        gd = g[draw]
        _draw_cards(s, gd, victim[draw], s.pending[gd] + amount[draw])
        s.pending[gd] = 0
    _end_round(s, g[done], seats[done])


def _finish_play(s: State, g: np.ndarray, seats: np.ndarray, kinds: np.ndarray) -> None:
    """Effects of the card that ends ``seats``' play, then hand over (maybe via jump-in)."""
    rules, p = s.rules, s.rules.players
    rank = KIND_RANK[kinds]
    if rules.seven_zero:
        seven = rank == 7
        s.actor[g[seven]] = seats[seven]
        s.phase[g[seven]] = TARGET_PHASE
        zero = np.flatnonzero(rank == 0)
        if zero.size:
            gz = g[zero]
            source = (np.arange(p)[None, :] - s.direction[gz][:, None].astype(np.int64)) % p
            s.hands[gz] = s.hands[gz[:, None], source]
            s.hand_size[gz] = s.hand_size[gz[:, None], source]
        keep = ~seven
        g, seats, kinds, rank = g[keep], seats[keep], kinds[keep], rank[keep]
    if not g.size:
        return
    next_actor = _next(s, g, seats)
    next_phase = np.full(g.size, PLAY, np.int8)
    skip = rank == SKIP_RANK
    if skip.any():
        next_actor[skip] = _next(s, g[skip], seats[skip], 2)
    rev = rank == REVERSE_RANK
    if rev.any():
        s.direction[g[rev]] *= -1
        if p == 2 and rules.two_player_reverse_skips:
            next_actor[rev] = seats[rev]
        else:
            next_actor[rev] = _next(s, g[rev], seats[rev])
    draw = np.flatnonzero((rank == DRAW_TWO_RANK) | (kinds == WILD_DRAW_FOUR))
    if draw.size:
        gd, is_d4 = g[draw], kinds[draw] == WILD_DRAW_FOUR
        s.pending[gd] += np.where(is_d4, 4, 2).astype(np.int16)
        victim = next_actor[draw]
        respond = np.full(draw.size, rules.stacking != "none" or rules.wild_cancels_draw)
        respond |= is_d4 & rules.challenge_enabled
        next_phase[draw[respond]] = RESPOND
        now = ~respond
        if now.any():
            _draw_cards(s, gd[now], victim[now], s.pending[gd[now]])
            s.pending[gd[now]] = 0
            next_actor[draw[now]] = _next(s, gd[now], victim[now])
    _end_turn(s, g, seats, next_actor, next_phase)


def _end_turn(
    s: State, g: np.ndarray, seats: np.ndarray, next_actor: np.ndarray, next_phase: np.ndarray
) -> None:
    """Hand over to ``next_actor``, through a jump-in window after a colored card."""
    s.resume_actor[g] = next_actor
    s.resume_phase[g] = next_phase
    if s.rules.jump_in:
        colored = s.top[g] < 52
        if s.rules.stacking == "none":  # a +2 still to be answered: the window opens after it
            colored &= next_phase != RESPOND
        gj = g[colored]
        s.jump_card[gj] = s.top[gj]
        s.jump_from[gj] = seats[colored]
        if gj.size:
            _ask_jump(s, gj, np.ones(gj.size, np.int64))
        g, next_actor, next_phase = g[~colored], next_actor[~colored], next_phase[~colored]
    s.actor[g] = next_actor
    s.phase[g] = next_phase


def _ask_jump(s: State, g: np.ndarray, cursor: np.ndarray) -> None:
    """Offer the jump-in to the first holder of the card ``cursor`` or more seats along."""
    p = s.rules.players
    offsets = np.arange(1, p)
    seats = (
        s.jump_from[g][:, None].astype(np.int64) + offsets[None, :] * s.direction[g][:, None]
    ) % p
    holds = s.hands[g[:, None], seats, s.jump_card[g][:, None]] > 0
    holds &= offsets[None, :] >= cursor[:, None]
    found = holds.any(axis=1)
    first = holds.argmax(axis=1)
    gf = g[found]
    s.actor[gf] = seats[found, first[found]]
    s.phase[gf] = JUMP
    s.jump_cursor[gf] = offsets[first[found]]
    gn = g[~found]
    s.actor[gn] = s.resume_actor[gn]
    s.phase[gn] = s.resume_phase[gn]


def _challenge(s: State, g: np.ndarray, seats: np.ndarray) -> None:
    bluffer = s.draw4_player[g]
    s.stats[g, 2, seats] += 1
    s.stats[g, 4, bluffer] += 1
    s.revealed[g] = s.hands[g, bluffer]
    s.reveal_viewer[g] = seats
    s.reveal_target[g] = bluffer
    guilty = s.draw4_bluff[g]
    if guilty.any():
        gg, sg, bg = g[guilty], seats[guilty], bluffer[guilty]
        s.stats[gg, 3, sg] += 1
        s.stats[gg, 5, bg] += 1
        if s.rules.caught_bluffer == "takes-back":
            s.hands[gg, bg, WILD_DRAW_FOUR] += 1
            s.hand_size[gg, bg] += 1
            s.discard[gg, WILD_DRAW_FOUR] -= 1
            s.top[gg] = s.prev_top[gg]
            s.color[gg] = s.prev_color[gg]
            s.prev_top[gg] = -1
        _draw_cards(s, gg, bg, s.pending[gg])
        s.pending[gg] = 0
        _start_turn(s, gg, sg)
    innocent = ~guilty
    if innocent.any():
        gi, si = g[innocent], seats[innocent]
        _draw_cards(s, gi, si, s.pending[gi] + 2)
        s.pending[gi] = 0
        _after_penalty(s, gi, _next(s, gi, si))


def _after_penalty(
    s: State, g: np.ndarray, next_seats: np.ndarray, victims: np.ndarray | None = None
) -> None:
    """After a victim drew: the round ends if a +4 was the last card, else play goes on.

    ``victims`` (who accepted a +2 or +4): without stacking, a +2's jump-in window opens
    now, once its effect is over (as when the victim draws at once), from its player.
    """
    empty = s.hand_size[g] == 0
    won = empty.any(axis=1)
    if won.any():
        _end_round(s, g[won], empty[won].argmax(axis=1).astype(np.int8))
    rest = ~won
    if victims is not None and s.rules.jump_in and s.rules.stacking == "none":
        late = rest & (s.top[g] < 52)
        if late.any():
            gl = g[late]
            player = (victims[late].astype(np.int64) - s.direction[gl]) % s.rules.players
            plays = np.full(gl.size, PLAY, np.int8)
            _end_turn(s, gl, player.astype(np.int8), next_seats[late], plays)
            rest &= ~late
    _start_turn(s, g[rest], next_seats[rest])


def _end_round(s: State, g: np.ndarray, winners: np.ndarray) -> None:
    s.winner[g] = winners
    s.phase[g] = OVER


# ================================================================ step close
def _close_step(s: State, games: np.ndarray | None = None) -> StepResult:
    """Count the decision, truncate, score finished rounds and deal a match's next round.

    Only ``games`` were stepped (all when None); the result has one row per stepped game.
    """
    rules, p = s.rules, s.rules.players
    stepped = slice(None) if games is None else games
    k = s.num_games if games is None else games.size
    turn = s.turn[stepped] + 1
    s.turn[stepped] = turn
    over = s.phase[stepped] == OVER
    timeout = turn >= rules.max_turns
    if timeout.any():
        timeout &= ~over
        late = np.flatnonzero(timeout) if games is None else games[timeout]
        s.truncated[late] = True
        s.phase[late] = OVER
        over |= timeout
    ints = np.zeros(k * (2 + p), np.int32)  # one allocation per dtype: this runs every step
    counts = ints[: 2 * k].reshape(2, k)
    stats = np.zeros((len(STAT_NAMES), k, p), np.int32)
    result = StepResult(
        rewards=np.zeros((k, p), np.float32),
        round_over=over,
        truncated=s.truncated[stepped] & over if timeout.any() else np.zeros(k, bool),
        match_over=np.zeros(k, bool),
        winner=np.full(k, -1, np.int8),
        points=counts[0],
        net_points=ints[2 * k :].reshape(k, p),
        decisions=counts[1],
        **{name: stats[i] for i, name in enumerate(STAT_NAMES)},
    )
    rows = np.flatnonzero(over)  # rows of the result
    if not rows.size:
        return result
    g = rows if games is None else games[rows]  # the same games in the state
    result.winner[rows] = s.winner[g]
    result.decisions[rows] = s.turn[g]
    stats[:, rows] = s.stats[g].transpose(1, 0, 2)
    has_winner = s.winner[g] >= 0
    if has_winner.any():
        won, won_rows = g[has_winner], rows[has_winner]
        w = s.winner[won].astype(np.int64)
        points = (s.hands[won].astype(np.int32) * _POINTS).sum(axis=2)
        total = points.sum(axis=1)
        result.points[won_rows] = total
        is_winner = np.arange(p)[None, :] == w[:, None]
        net = np.where(is_winner, total[:, None], -points)
        result.net_points[won_rows] = net
        if rules.reward == "win-loss":
            result.rewards[won_rows] = np.where(is_winner, 1.0, -1.0 / (p - 1))
        else:
            result.rewards[won_rows] = net
        if rules.scoring == "winner-takes":
            s.scores[won, w] += total
        elif rules.scoring == "losers-add":
            s.scores[won] += np.where(is_winner, 0, points)
        else:
            s.scores[won, w] += 1
    if rules.match:
        decided = s.scores[g].max(axis=1) >= rules.match_target
        s.match_over[g[decided]] = True
        result.match_over[rows[decided]] = True
        go_on = g[~decided]
        if go_on.size:
            seeds = rng.bits(s.key[go_on], rng.NEXT_ROUND, 0, 0)
            dealer = None
            if rules.dealer == "rotate":
                dealer = ((s.dealer[go_on].astype(np.int64) + 1) % p).astype(np.int8)
            s.round_index[go_on] += 1
            _deal(s, go_on, seeds, dealer)
    return result


def match_winner(state: State) -> np.ndarray:
    """(N,) int8: each game's match winner (-1 while nobody has reached the target).

    ``losers-add``: the lowest total wins; otherwise the highest; ties go to the lower seat.
    """
    s = state
    decided = s.scores.max(axis=1) >= s.rules.match_target
    best = s.scores.argmin(axis=1) if s.rules.scoring == "losers-add" else s.scores.argmax(axis=1)
    return np.where(decided, best, -1).astype(np.int8)


def _true_positions(flat: np.ndarray) -> np.ndarray:
    """(m,) int64 positions of the True entries of a 1-d bool array, ascending.

    Same as ``np.flatnonzero`` but faster on the sparse legal masks: it scans the array as
    8-byte words first and looks inside the nonzero words only.
    """
    if flat.size < 4096:
        return np.flatnonzero(flat)
    head = flat.size - flat.size % 8
    words = np.flatnonzero(flat[:head].view(np.uint64) != 0)
    inside = np.flatnonzero(np.take(flat[:head].reshape(-1, 8), words, axis=0))
    found = words[inside >> 3] * 8 + (inside & 7)
    if head == flat.size:
        return found
    return np.concatenate([found, head + np.flatnonzero(flat[head:])])


def sample_legal_actions(mask: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    """(N,) int64: a uniformly random legal action per game (each game needs one).

    Args:
        mask: (N, 77) bool legal mask.
        generator: explicit, seeded ``numpy.random.Generator``.
    """
    n, width = mask.shape
    # Index into the row-major list of all legal (game, action) pairs: no per-row cumsum.
    legal = _true_positions(np.ascontiguousarray(mask, dtype=bool).reshape(-1))
    counts = np.bincount(legal // width, minlength=n)
    if not counts.all():
        raise ValueError(
            f"game {int(np.flatnonzero(counts == 0)[0])} has no legal action (is it over?)"
        )
    first = np.cumsum(counts) - counts
    pick = first + (generator.random(n) * counts).astype(np.int64)
    return legal[pick] - np.arange(n, dtype=np.int64) * width


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

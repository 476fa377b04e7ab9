"""Determinizations: full game states consistent with what one seat knows, sampled in batch.

A search agent cannot look at the other hands or the draw pile; it plays out *worlds* instead:
copies of the game in which everything the acting seat (the *observer*) cannot see is drawn
afresh, consistent with everything it can. :func:`determinize` builds ``copies`` such worlds
for each of k games as one :class:`~uno_rl.core.state.State` of ``k * copies`` lanes (game
``i``'s copies are lanes ``i * copies .. i * copies + copies - 1``), with no loop over games
or lanes.

What a world keeps (public, or the observer's own): its hand, every seat's hand size, the
discard pile (top card, counts), the draw pile's size, the phase, color, direction, pending
draws, who played the last +4 and the color under it, the scores, the turn counters, a hand
a challenge showed the observer, the hand it gave or received in a swap.

What a world draws afresh: the *unseen* cards, the deck minus the observer's hand minus the
discard pile (exactly the cards of the other hands and the draw pile), dealt to the other
seats by their hand sizes, the rest in a random pile order; the deal seed, from which every
later random event of the round (reshuffles, the dispenser) derives; whether a pending +4 was
a bluff, recomputed from the world's hand of its player. Hidden records (another seat's
revealed hand, a swap the observer was not part of, another seat's drawn card, the per-seat
bluff counters) are cleared.

*Known cards* (``known``): the smallest number of cards of each kind a seat is known to hold
(a hand a challenge showed the observer, less what the seat may have played since: see
:class:`uno_rl.agents.pimc.PIMCAgent`); they are dealt to that seat first.

The construction reads only what the observer may see: two states that differ only in hidden
cards give the same worlds for the same generator (tested).
"""

from __future__ import annotations

import numpy as np

from uno_rl.core.legality import draw_four_legal
from uno_rl.core.phases import RESPOND
from uno_rl.core.rng import new_seeds
from uno_rl.core.state import State

__all__ = [
    "bluff_kinds",
    "clear_hidden_records",
    "deal_unseen",
    "determinize",
    "join_states",
    "reshuffle_piles",
    "unseen_cards",
    "world_blocks",
]

#: Bytes of random sort keys drawn at once by :func:`reshuffle_piles` (float64 per card).
_RESHUFFLE_BATCH_BYTES = 32 * 2**20


def unseen_cards(state: State, games: np.ndarray, observer: np.ndarray) -> np.ndarray:
    """(k, K) int16: the cards of each kind ``observer`` (k,) cannot see in ``games`` (k,):
    the deck, less its own hand, less the discard pile (the other hands and the draw pile)."""
    games = np.asarray(games, np.int64)
    own = state.hands[games, np.asarray(observer, np.int64)].astype(np.int16)
    deck = state.rules.deck_cards.copies.astype(np.int16)
    return deck[None, :] - own - state.discard[games].astype(np.int16)


def determinize(
    state: State,
    games: np.ndarray,
    observer: np.ndarray,
    copies: int,
    rng: np.random.Generator,
    known: np.ndarray | None = None,
    void: np.ndarray | None = None,
    void_cards: np.ndarray | None = None,
) -> State:
    """``copies`` worlds of each game consistent with what ``observer`` knows.

    Args:
        state: the games (not changed).
        games: (k,) int64 distinct game indices into ``state``.
        observer: (k,) seat whose knowledge each world respects (in practice the actor).
        copies: worlds per game (C).
        rng: explicit generator of the worlds.
        known: (k, P, K) cards each seat is known to hold (0 for the observer), or None; or
            (k * C, P, K), one per world.
        void: (k, P, K) (or (k * C, P, K)) bool kinds each seat is known not to hold (beyond its known cards),
            or None. A world where a seat's void cannot be met (too few allowed cards)
            ignores that seat's void.
        void_cards: (k, P) (or (k * C, P)) how many of each seat's cards the void covers
            (its other cards may be anything); None: the whole hand.

    Returns:
        A State of ``k * C`` lanes, game ``i``'s worlds at ``i * C + c``.
    """
    games = np.asarray(games, np.int64)
    observer = np.asarray(observer, np.int64)
    k, p = games.size, state.rules.players
    lanes = state.take(np.repeat(games, copies))
    n = lanes.num_games
    seat = np.repeat(observer, copies)
    lane = np.arange(n)
    unseen = np.repeat(unseen_cards(state, games, observer), copies, axis=0)  # (n, K)
    kinds = unseen.shape[1]
    held = np.zeros((n, p, kinds), np.int16)
    if known is not None:
        known = _per_lane(np.asarray(known, np.int16), k, copies).copy()
        known[lane, seat] = 0
        remaining = unseen.copy()
        for other in range(p):  # no two seats hold the same unseen card
            known[:, other] = np.minimum(known[:, other], remaining)
            remaining -= known[:, other]
        known[known.sum(axis=2) > lanes.hand_size] = 0  # cannot all be held: forgotten
        held += known
        unseen = unseen - known.sum(axis=1)
    others = np.ones((n, p), bool)
    others[lane, seat] = False
    need = np.where(others, lanes.hand_size - held.sum(axis=2), 0).astype(np.int64)  # (n, P)
    if (need < 0).any() or (need.sum(axis=1) + lanes.pile_size != unseen.sum(axis=1)).any():
        raise ValueError("known cards do not fit the hand sizes, or the cards do not add up")

    forbidden, covered = None, need
    if void is not None:
        forbidden = _per_lane(np.asarray(void, bool), k, copies)
        if void_cards is not None:
            covered = np.minimum(_per_lane(np.asarray(void_cards, np.int64), k, copies), need)
    card, owner_lane, to_seat, position = deal_unseen(unseen, need, forbidden, covered, rng)
    dealt = to_seat < p
    flat = (owner_lane[dealt] * p + to_seat[dealt]) * kinds + card[dealt]
    held += np.bincount(flat, minlength=n * p * kinds).reshape(n, p, kinds).astype(np.int16)
    held[lane, seat] = lanes.hands[lane, seat]
    lanes.hands[:] = held.astype(np.int8)
    lanes.pile[:] = 0
    in_pile = ~dealt
    lanes.pile[owner_lane[in_pile], position[in_pile]] = card[in_pile]

    lanes.key[:] = new_seeds(rng, n)
    clear_hidden_records(lanes, seat)
    _recompute_bluff(lanes, seat)
    lanes.invalidate()
    return lanes


def _per_lane(array: np.ndarray, k: int, copies: int) -> np.ndarray:
    """A per-game (k, ...) array repeated for each world, or a per-world one as it is."""
    if array.shape[0] == k * copies and copies != 1:
        return array
    if array.shape[0] != k:
        raise ValueError(f"expected {k} games or {k * copies} worlds, got shape {array.shape}")
    return np.repeat(array, copies, axis=0)


def bluff_kinds(state: State, games: np.ndarray) -> np.ndarray:
    """(k, K) bool: the kinds whose presence in the hand of the player of the +4 on top of
    ``games`` made that +4 a bluff (the check at the time it was played: the top card and
    color under it)."""
    games = np.asarray(games, np.int64)
    kinds = state.hands.shape[2]
    view = state.take(np.repeat(games, kinds))
    view.top[:], view.color[:] = view.prev_top, view.prev_color
    unit = np.tile(np.eye(kinds, dtype=np.int8), (games.size, 1))
    legal = draw_four_legal(view, np.arange(view.num_games), unit)
    return ~legal.reshape(games.size, kinds)


def deal_unseen(
    unseen: np.ndarray, need: np.ndarray, forbidden: np.ndarray | None, covered: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Deal every lane's unseen cards: ``need`` (n, P) to each seat, the rest to the pile.

    The cards of each lane are shuffled into one list; each seat with a void first takes, in
    order, ``covered`` (n, P) of the first cards of the list it may hold; then every seat the
    rest of its share from what is left, in list order; the remaining cards are the draw pile
    in list order.

    Returns:
        ``(card, lane, seat, position)``, one entry per unseen card: its kind, lane, the seat
        it goes to (P: the draw pile) and, for the pile, its index in the pile.
    """
    n, p = need.shape
    kinds = unseen.shape[1]
    lane_cards = unseen.sum(axis=1).astype(np.int64)
    card = np.repeat(np.tile(np.arange(kinds), n), unseen.reshape(-1).astype(np.int64))
    owner = np.repeat(np.arange(n), lane_cards)
    # A random order within each lane (lanes stay grouped): the lane plus a uniform fraction,
    # sorted stably (runs of one lane: several times faster than np.lexsort on two keys).
    order = np.argsort(owner + rng.random(card.size), kind="stable")
    card, owner = card[order], owner[order]
    to_seat = np.full(card.size, p, np.int64)
    taken = np.zeros((n, p), np.int64)
    if forbidden is not None:
        for seat in np.flatnonzero(forbidden.any(axis=(0, 2))):
            allowed = ~forbidden[owner, seat, card]
            want = covered[:, seat]
            eligible = (to_seat == p) & allowed
            count = np.bincount(owner[eligible], minlength=n)
            # A void that cannot be met here (too few allowed cards) is ignored.
            unmet = count < want
            eligible |= (to_seat == p) & unmet[owner]
            rank = _rank_in_lane(eligible, owner, n)
            pick = eligible & (rank < want[owner])
            to_seat[pick] = seat
            taken[:, seat] = np.bincount(owner[pick], minlength=n)
    for seat in range(p):
        eligible = to_seat == p
        rank = _rank_in_lane(eligible, owner, n)
        to_seat[eligible & (rank < (need[:, seat] - taken[:, seat])[owner])] = seat
    in_pile = to_seat == p
    position = _rank_in_lane(in_pile, owner, n)
    return card, owner, to_seat, position


def _rank_in_lane(selected: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    """For each selected entry, how many selected entries of its lane come before it (the
    entries are grouped by lane, ``owner``)."""
    rank = np.cumsum(selected) - 1
    base = np.concatenate([[0], np.cumsum(np.bincount(owner[selected], minlength=n))])
    return rank - base[owner]


def clear_hidden_records(lanes: State, seat: np.ndarray) -> None:
    """Forget what ``seat`` (n,) could not see: other viewers' reveals, others' swaps, drawn
    cards of other seats, the per-seat bluff counters of the others."""
    lane = np.arange(lanes.num_games)
    not_viewer = lanes.reveal_viewer.astype(np.int64) != seat
    lanes.revealed[not_viewer] = 0
    if lanes.swap_given.shape[2]:
        outside = ~(lanes.swap_seats == seat[:, None]).any(axis=1)
        lanes.swap_given[outside] = 0
    lanes.drawn[lanes.actor.astype(np.int64) != seat] = -1
    mine = lanes.stats[lane, 1, seat].copy()
    lanes.stats[:, 1, :] = 0
    lanes.stats[lane, 1, seat] = mine


def _recompute_bluff(lanes: State, seat: np.ndarray) -> None:
    """Whether a +4 awaiting its victim's answer was a bluff, from the world's hand of whoever
    played it (the observer's own +4 keeps its known value; elsewhere it is moot: cleared)."""
    rules = lanes.rules
    player = lanes.draw4_player.astype(np.int64)
    theirs = (player >= 0) & (player != seat)
    lanes.draw4_bluff[theirs] = False
    if not rules.challenge_enabled:
        return
    top = lanes.top.astype(np.int64)
    pending = theirs & (lanes.phase == RESPOND) & rules.layout.draw_four_like[top]
    pending &= lanes.prev_top >= 0
    g = np.flatnonzero(pending)
    if not g.size:
        return
    # The check the engine made when the card was played: its player's hand then (this
    # hand: nothing was played since) against the top card and color under the +4.
    top_now, color_now = lanes.top[g].copy(), lanes.color[g].copy()
    lanes.top[g], lanes.color[g] = lanes.prev_top[g], lanes.prev_color[g]
    lanes.draw4_bluff[g] = ~draw_four_legal(lanes, g, lanes.hands[g, player[g]])
    lanes.top[g], lanes.color[g] = top_now, color_now


def reshuffle_piles(lanes: State, rng: np.random.Generator) -> None:
    """Put each lane's draw pile in a new random order (in place; the random keys of a
    bounded batch of lanes at a time, the same orders as all at once)."""
    n, width = lanes.pile.shape
    step = max(1, _RESHUFFLE_BATCH_BYTES // (8 * max(width, 1)))
    for first in range(0, n, step):
        part = slice(first, first + step)
        keys = rng.random((min(step, n - first), width))
        keys[np.arange(width)[None, :] >= lanes.pile_size[part, None]] = np.inf
        order = np.argsort(keys, axis=1, kind="stable")
        lanes.pile[part] = np.take_along_axis(lanes.pile[part], order, axis=1)
    lanes.invalidate()


def world_blocks(entries: int, copies: int, most: int):
    """``(rows, copies, start)`` blocks covering ``entries`` games of ``copies`` worlds each
    (world ``e * copies + c``) with at most ``most`` worlds a block: whole games while a
    game's worlds fit (one block when all do), else one game's worlds in parts; ``start`` is
    the block's first world."""
    if copies <= most:
        step = most // copies
        for first in range(0, entries, step):
            rows = np.arange(first, min(first + step, entries))
            yield rows, copies, first * copies
        return
    for entry in range(entries):
        for offset in range(0, copies, most):
            yield np.array([entry]), min(most, copies - offset), entry * copies + offset


def join_states(parts: list[State]) -> State:
    """One state of the games of ``parts`` (same rules) in order."""
    if len(parts) == 1:
        return parts[0]
    joined = State.empty(parts[0].rules, sum(part.num_games for part in parts))
    start = 0
    for part in parts:
        end = start + part.num_games
        for name, array in part.arrays().items():
            getattr(joined, name)[start:end] = array
        start = end
    return joined

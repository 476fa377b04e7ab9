"""A round's deal in the compiled kernel: shuffle, deal, turn the first card and apply its
effects (:meth:`uno_rl.core.reference.ReferenceGame._deal`, statement for statement)."""

from __future__ import annotations

import numpy as np

from .. import rng
from ..cards import REVERSE_RANK, SKIP_RANK
from ..phases import COLOR, PLAY
from ..rules import MAX_FIRST_CARD_ATTEMPTS
from .nb_basics import draw, next_seat
from .nb_draw_effects import first_card_draws
from .nb_jit import kernel
from .nb_random import below, shuffle_into
from .nb_rules import code

_WILD_DRAW_FOUR_RANK = 14
_RANDOM_COLOR = code("first_wild_color_by", "random")
_DEALER_NAMES = code("first_wild_color_by", "dealer")


@kernel
def deal(a, t, g, seed, dealer):
    """Deal game ``g`` a new round from deal seed ``seed`` (uint64); ``dealer`` -1 draws the
    dealer from the seed. Scores, the round index and the match flag are left as they are.
    Returns False when no card could be turned first (a broken deck invariant)."""
    p, k = t.players, t.num_kinds
    a.key[g] = seed
    size = t.deck.size
    shuffle_into(t, t.deck, size, seed, rng.DEAL, 0, a.pile[g])
    if dealer < 0:
        dealer = below(seed, rng.DEALER, 0, 0, p)
    a.dealer[g] = dealer
    a.hands[g] = 0
    a.hand_size[g] = 0
    for j in range(p * t.hand_size):
        size -= 1
        seat = (dealer + 1 + j) % p
        a.hands[g, seat, a.pile[g, size]] += 1
        a.hand_size[g, seat] += 1
    a.reshuffles[g] = 0
    attempt = 0
    size -= 1
    top = np.int64(a.pile[g, size])
    while t.returns_as_first_card[top]:  # a +4 (or such) goes back into the pile
        counts = t.work_counts
        counts[:k] = 0
        for i in range(size):
            counts[a.pile[g, i]] += 1
        counts[top] += 1
        ordered = t.work_cards
        n = 0
        for i in range(k):
            for _ in range(counts[i]):
                ordered[n] = i
                n += 1
        shuffle_into(t, ordered, size + 1, seed, rng.FIRST_DRAW4, attempt, a.pile[g])
        attempt += 1
        top = np.int64(a.pile[g, size])
        if t.returns_as_first_card[top] and attempt >= MAX_FIRST_CARD_ATTEMPTS:
            return False
    a.pile_size[g] = size
    a.discard[g] = 0
    a.discard[g, top] = 1
    a.top[g] = top
    a.color[g] = t.kind_color[top]
    a.direction[g] = 1
    a.pending[g] = 0
    a.drawn[g] = -1
    a.prev_top[g] = -1
    a.prev_color[g] = -1
    a.draw4_player[g] = -1
    a.draw4_bluff[g] = False
    a.multi_rank[g] = -1
    a.multi_count[g] = 0
    a.skip_turn[g] = 0
    a.jump_card[g] = -1
    a.jump_from[g] = -1
    a.jump_cursor[g] = 0
    a.resume_actor[g] = -1
    a.resume_phase[g] = PLAY
    a.revealed[g] = 0
    a.reveal_viewer[g] = -1
    a.reveal_target[g] = -1
    a.presses[g] = 0
    a.press_index[g] = 0
    a.cause[g] = -1
    a.swap_seats[g] = -1
    a.swap_given[g] = 0
    a.shuffled[g] = False
    a.turn[g] = 0
    a.winner[g] = -1
    a.truncated[g] = False
    a.stats[g] = 0
    a.void_color[g] = -1
    a.void_symbol[g] = -1
    a.played[g] = 0
    a.named[g] = -1
    first = (dealer + 1) % p
    a.actor[g] = first
    a.phase[g] = PLAY
    effects = t.first_card_effects
    rank = np.int64(t.kind_rank[top])
    if t.names_color[top] and t.first_wild_color_by == _RANDOM_COLOR:
        a.color[g] = below(seed, rng.FIRST_COLOR, 0, 0, 4)
    elif t.names_color[top]:
        a.phase[g] = COLOR
        a.actor[g] = dealer if t.first_wild_color_by == _DEALER_NAMES else first
    elif effects and top < 52 and top % 13 == 12:  # a classic +2
        draw(a, t, g, first, 2)
        if t.first_draw_two_skips:
            a.actor[g] = next_seat(a, t, g, first)
    if effects and rank > _WILD_DRAW_FOUR_RANK:
        first_card_draws(a, t, g, top, first, dealer)
    elif effects and rank == SKIP_RANK:
        a.actor[g] = next_seat(a, t, g, first)
    elif effects and rank == REVERSE_RANK:
        a.direction[g] = -1
        a.actor[g] = dealer
    return True

"""Card effects: what a played card does once its play is over, and the answers to a draw card.

:func:`finish_play` resolves the card that ends a seat's play: the seven-zero switch first
(a 7 asks for a target, a 0 passes the hands on), then each entry of :data:`HANDOVER_EFFECTS`
in turn, which may change who acts next and in which phase, then the hand-over
(:func:`~uno_rl.core.turns.end_turn`). A new card effect is one more such function, selecting
its cards by kind or rank, and its entry in the tuple. The other functions answer the
effects that wait for a decision: the victim of a +2/+4 accepts (:func:`accept`) or
challenges a +4 (:func:`challenge`), the player of a 7 names a target (:func:`swap_hands`),
and a last card that is a +2/+4 is still drawn (:func:`play_last_card`).

Every function takes a :class:`~uno_rl.core.state.State`, ``g`` a (k,) int64 index array of
distinct games, and (k,) int8 ``seats`` (the player of the card, or the seat answering it);
``kinds`` are (k,) int64 card kinds, ``rank`` their (k,) int8 ranks (:data:`.cards.KIND_RANK`),
``count`` (k,) int64 the cards of that symbol played together under
``multi_play_actions`` (None otherwise: one card each);
``next_actor`` (k,) int8 and ``next_phase`` (k,) int8 are the hand-over being built.
"""

from __future__ import annotations

import numpy as np

from .cards import DRAW_TWO_RANK, NUM_KINDS, REVERSE_RANK, SKIP_RANK, WILD_DRAW_FOUR
from .new_cards import NEW_CARD_EFFECTS, after_victim, ask_victim, final_new_card
from .phases import OVER, PLAY, RESPOND
from .phases import TARGET as TARGET_PHASE
from .piles import draw_cards
from .state import State
from .turns import after_penalty, end_round, end_turn, start_turn
from .views import next_seat


def finish_play(
    s: State, g: np.ndarray, seats: np.ndarray, kinds: np.ndarray, count: np.ndarray | None = None
) -> None:
    """Effects of the card that ends ``seats``' play (``count`` cards of its symbol, 1 when
    None), then hand over (maybe via jump-in)."""
    rank = s.rules.effect_rank[kinds]
    # count stays None on the common path (one card): the effects then skip the per-card
    # arithmetic of combinations.
    count = None if count is None or not s.rules.multi_play_actions else count.astype(np.int64)
    if s.rules.seven_zero:
        keep = _seven_zero(s, g, seats, rank)
        g, seats, kinds, rank = g[keep], seats[keep], kinds[keep], rank[keep]
        count = None if count is None else count[keep]
    if s.hands.shape[2] != NUM_KINDS:  # a targeted draw: its player chooses the victim
        keep = ask_victim(s, g, seats, rank)
        g, seats, kinds, rank = g[keep], seats[keep], kinds[keep], rank[keep]
        count = None if count is None else count[keep]
    if not g.size:
        return
    next_actor = next_seat(s, g, seats)
    next_phase = np.full(g.size, PLAY, np.int8)
    extended = s.hands.shape[2] != NUM_KINDS
    for effect in EXTENDED_EFFECTS if extended else HANDOVER_EFFECTS:
        effect(s, g, seats, kinds, rank, count, next_actor, next_phase)
    if extended:  # a Shuffle Hands may have ended the round
        live = s.phase[g] != OVER
        if not live.all():
            g, seats, next_actor, next_phase = (
                g[live],
                seats[live],
                next_actor[live],
                next_phase[live],
            )
    end_turn(s, g, seats, next_actor, next_phase)


def _seven_zero(s: State, g: np.ndarray, seats: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """A 7 asks its player for a target (the target phase); a 0 passes every hand on in the
    direction of play. Returns the (k,) bool games whose turn goes on (all but the 7s)."""
    p = s.rules.players
    seven = rank == 7
    s.actor[g[seven]] = seats[seven]
    s.phase[g[seven]] = TARGET_PHASE
    zero = np.flatnonzero(rank == 0)
    if zero.size:
        gz = g[zero]
        source = (np.arange(p)[None, :] - s.direction[gz][:, None].astype(np.int64)) % p
        s.hands[gz] = s.hands[gz[:, None], source]
        s.hand_size[gz] = s.hand_size[gz[:, None], source]
    return ~seven


def _skip(
    s: State,
    g: np.ndarray,
    seats: np.ndarray,
    kinds: np.ndarray,
    rank: np.ndarray,
    count: np.ndarray | None,
    next_actor: np.ndarray,
    next_phase: np.ndarray,
) -> None:
    """n Skips: the next n players lose their turn."""
    skip = rank == SKIP_RANK
    if skip.any() and s.rules.boomerangs:  # a single Skip's victim may send it back
        single = skip if count is None else skip & (count == 1)
        if single.any():
            s.cause[g[single]] = seats[single]
            next_phase[single] = RESPOND
            skip &= ~single
    if skip.any():
        if count is not None:
            steps = (1 + count[skip]) * s.direction[g[skip]]
            next_actor[skip] = (seats[skip] + steps) % s.rules.players
        else:
            next_actor[skip] = next_seat(s, g[skip], seats[skip], 2)


def _reverse(
    s: State,
    g: np.ndarray,
    seats: np.ndarray,
    kinds: np.ndarray,
    rank: np.ndarray,
    count: np.ndarray | None,
    next_actor: np.ndarray,
    next_phase: np.ndarray,
) -> None:
    """n Reverses turn the direction of play n times (with two players an odd number may act
    as a Skip)."""
    rev = rank == REVERSE_RANK
    if rev.any() and count is None:
        s.direction[g[rev]] *= -1
        if s.rules.players == 2 and s.rules.two_player_reverse_skips:
            next_actor[rev] = seats[rev]
        else:
            next_actor[rev] = next_seat(s, g[rev], seats[rev])
    elif rev.any():
        odd = count[rev] % 2 == 1
        s.direction[g[rev]] *= np.where(odd, -1, 1).astype(np.int8)
        next_actor[rev] = next_seat(s, g[rev], seats[rev])
        if s.rules.players == 2 and s.rules.two_player_reverse_skips:
            next_actor[rev] = np.where(odd, seats[rev], next_actor[rev])


def _draw_penalty(
    s: State,
    g: np.ndarray,
    seats: np.ndarray,
    kinds: np.ndarray,
    rank: np.ndarray,
    count: np.ndarray | None,
    next_actor: np.ndarray,
    next_phase: np.ndarray,
) -> None:
    """A +2 or +4 adds to the pending draw. The victim answers it in the respond phase where
    the rules give a choice (stacking, a cancelling Wild, a challenge); otherwise the victim
    draws at once and loses the turn."""
    rules = s.rules
    draw = np.flatnonzero((rank == DRAW_TWO_RANK) | (kinds == WILD_DRAW_FOUR))
    if draw.size:
        gd, is_d4 = g[draw], kinds[draw] == WILD_DRAW_FOUR
        twos = 2 if count is None else 2 * count[draw]
        s.pending[gd] += np.where(is_d4, 4, twos).astype(np.int16)
        s.cause[gd] = seats[draw]
        victim = next_actor[draw]
        answer = rules.stacking != "none" or rules.wild_cancels_draw or rules.boomerangs
        respond = np.full(draw.size, answer)
        respond |= is_d4 & rules.challenge_enabled
        next_phase[draw[respond]] = RESPOND
        now = ~respond
        if now.any():
            draw_cards(s, gd[now], victim[now], s.pending[gd[now]])
            s.pending[gd[now]] = 0
            next_actor[draw[now]] = next_seat(s, gd[now], victim[now])


#: The effects :func:`finish_play` applies, in this order, to every card that ends a play:
#: ``effect(s, g, seats, kinds, rank, count, next_actor, next_phase)``, each acting on the games
#: whose card has it and writing the hand-over in place.
HANDOVER_EFFECTS = (_skip, _reverse, _draw_penalty)
#: In the extended layout, then the section-11 cards' effects (:mod:`.new_cards`).
EXTENDED_EFFECTS = (*HANDOVER_EFFECTS, *NEW_CARD_EFFECTS)


def play_last_card(s: State, g: np.ndarray, seats: np.ndarray, kinds: np.ndarray) -> None:
    """``seats`` emptied their hands: a final +2/+4 is still drawn (a final +4 challenged first)."""
    victim = next_seat(s, g, seats)
    is_d4 = kinds == WILD_DRAW_FOUR
    respond = is_d4 & s.rules.challenge_enabled & (s.pending[g] == 0)
    if respond.any():
        gr = g[respond]
        s.pending[gr] = 4
        s.actor[gr] = victim[respond]
        s.phase[gr] = RESPOND
    done = ~respond
    amount = np.where(is_d4, 4, np.where(s.rules.layout.is_draw_two[kinds], 2, 0))
    draw = done & (amount > 0)
    if draw.any():
        gd = g[draw]
        draw_cards(s, gd, victim[draw], s.pending[gd] + amount[draw])
        s.pending[gd] = 0
    if s.hands.shape[2] != NUM_KINDS:
        waiting = final_new_card(s, g[done], seats[done], kinds[done])
        done[np.flatnonzero(done)[waiting]] = False  # a final targeted card's victim is asked
    end_round(s, g[done], seats[done])


def accept(s: State, g: np.ndarray, seats: np.ndarray) -> None:
    """The victims ``seats`` accept the pending draw: they draw it, then play goes on."""
    draw_cards(s, g, seats, s.pending[g])
    s.pending[g] = 0
    after_penalty(s, g, after_victim(s, g, seats), seats)


def challenge(s: State, g: np.ndarray, seats: np.ndarray) -> None:
    """The victims ``seats`` challenge the +4: a caught bluffer draws the pending cards (and
    takes the +4 back if the rules say so; under ``loses-turn`` draws nothing and will lose
    their next turn, unless the +4 was their last card) and the challenger plays; otherwise
    the challenger draws them and 2 more, and loses the turn. The bluffer's hand is revealed
    to them."""
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
        if s.rules.caught_bluffer == "takes-back":  # the +4 (or Targeted +4) goes back
            card = s.top[gg]
            s.hands[gg, bg, card] += 1
            s.hand_size[gg, bg] += 1
            s.discard[gg, card] -= 1
            s.top[gg] = s.prev_top[gg]
            s.color[gg] = s.prev_color[gg]
            s.prev_top[gg] = -1
        draws = np.ones(gg.size, bool)
        if s.rules.caught_bluffer == "loses-turn":  # draws nothing, loses the next turn
            draws = s.hand_size[gg, bg] == 0  # except on their last card: draws the 4
            s.skip_turn[gg[~draws], bg[~draws]] += 1
        draw_cards(s, gg[draws], bg[draws], s.pending[gg[draws]])
        s.pending[gg] = 0
        start_turn(s, gg, next_seat(s, gg, bg))  # the challenger, if they were next
    innocent = ~guilty
    if innocent.any():
        gi, si = g[innocent], seats[innocent]
        draw_cards(s, gi, si, s.pending[gi] + 2)
        s.pending[gi] = 0
        after_penalty(s, gi, after_victim(s, gi, si))


def swap_hands(s: State, g: np.ndarray, seats: np.ndarray, offsets: np.ndarray) -> None:
    """A 7 (seven-zero) or a Swap Hands: ``seats`` swap hands with the player ``offsets``
    seats clockwise (in the extended layout both hands are remembered: ``swap_seats``,
    ``swap_given``)."""
    other = ((seats.astype(np.int64) + offsets) % s.rules.players).astype(np.int8)
    mine, theirs = s.hands[g, seats].copy(), s.hands[g, other].copy()
    if s.swap_given.shape[2]:
        s.swap_seats[g, 0], s.swap_seats[g, 1] = seats, other
        s.swap_given[g, 0], s.swap_given[g, 1] = mine, theirs
    s.hands[g, seats], s.hands[g, other] = theirs, mine
    size_mine, size_theirs = s.hand_size[g, seats].copy(), s.hand_size[g, other].copy()
    s.hand_size[g, seats], s.hand_size[g, other] = size_theirs, size_mine
    end_turn(s, g, seats, next_seat(s, g, seats), np.full(g.size, PLAY, np.int8))

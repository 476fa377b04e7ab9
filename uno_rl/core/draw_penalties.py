"""Cards that make other players draw, and the answers to them (the batched engine): +2 and
+4 (stacked, cancelled or challenged in the respond phase), Targeted +2 / +4, Downpour +1 /
+2, Hit 2, Wild Hit-Fire and Wild All Hit.

:func:`draw_penalty`, :func:`targeted`, :func:`downpour` and :func:`hits` are entries of the
effects' table (:data:`uno_rl.core.effects.CARD_EFFECTS`, whose docstring gives their
arguments). The victims' answers: :func:`accept`, :func:`challenge` (a +4) and
:func:`target_draw` (the victim of a targeted draw named). A draw card still acts when it
is a player's last (:func:`play_last_card`) and as a round's first card
(:func:`first_card_draws`, the extended cards; the classic ones are dealt with in
:mod:`.deal`). Arguments follow the core's conventions (:mod:`uno_rl.core`).
"""

from __future__ import annotations

import numpy as np

from .cards import WILD_DRAW_FOUR
from .dispenser import press
from .layout import (
    ALL_HIT,
    DOWNPOUR_ONE,
    DOWNPOUR_TWO,
    HIT_FIRE,
    HIT_TWO,
    TARGETED_FOUR,
    TARGETED_TWO,
)
from .phases import COLOR, PLAY, RESPOND
from .phases import TARGET as TARGET_PHASE
from .piles import draw_cards
from .state import State
from .turn_order import NO_HANDOVER, after_victim
from .turns import after_penalty, end_round, end_turn, start_turn
from .views import next_seat


def draw_penalty(s, g, seats, kinds, rank, count, next_actor, next_phase) -> None:
    """A +2 or +4 (``count`` +2s: 2 each) adds to the pending draw. The victim answers it in
    the respond phase where the rules give a choice (stacking, a cancelling Wild, a
    challenge, a Boomerang); otherwise the victim draws at once and loses the turn."""
    rules = s.rules
    is_d4 = kinds == WILD_DRAW_FOUR
    twos = 2 if count is None else 2 * count
    s.pending[g] += np.where(is_d4, 4, twos).astype(np.int16)
    s.cause[g] = seats
    answer = rules.stacking != "none" or rules.wild_cancels_draw or rules.boomerangs
    respond = np.full(g.size, answer)
    respond |= is_d4 & rules.challenge_enabled
    next_phase[respond] = RESPOND
    now = np.flatnonzero(~respond)
    if now.size:
        gn, victims = g[now], next_actor[now]
        draw_cards(s, gn, victims, s.pending[gn])
        s.pending[gn] = 0
        next_actor[now] = next_seat(s, gn, victims)


def targeted(s, g, seats, kinds, rank, count, next_actor, next_phase) -> None:
    """A Targeted +2 / +4 asks its player for the victim (the target phase)."""
    s.actor[g] = seats
    s.phase[g] = TARGET_PHASE
    next_phase[:] = NO_HANDOVER


def downpour(s, g, seats, kinds, rank, count, next_actor, next_phase) -> None:
    """Downpour +1 / +2: every other player draws 1 (2), in order of play; nobody is skipped
    (``downpour_includes_self``: its player draws too, last)."""
    amount = np.where(rank == DOWNPOUR_ONE, 1, 2).astype(np.int64)
    each_other(s, g, seats, amount)
    if s.rules.downpour_includes_self:
        draw_cards(s, g, seats, amount)


def hits(s, g, seats, kinds, rank, count, next_actor, next_phase) -> None:
    """Hit 2 and Wild Hit-Fire hit the next player, who loses the turn; Wild All Hit makes
    every other player press once, in order of play, and skips nobody."""
    one = np.flatnonzero(rank != ALL_HIT)
    if one.size:
        gh, victims = g[one], next_actor[one]
        hit(s, gh, victims, rank[one])
        next_actor[one] = next_seat(s, gh, victims)
    every = np.flatnonzero(rank == ALL_HIT)
    if every.size:
        each_other(s, g[every], seats[every], np.ones(every.size, np.int64), pressed=True)


def each_other(s: State, g: np.ndarray, seats: np.ndarray, amount: np.ndarray, pressed=False):
    """Every seat but ``seats`` draws ``amount`` ((k,) int64), or presses that many times,
    in order of play from the next."""
    p = s.rules.players
    step = s.direction[g].astype(np.int64)
    for i in range(1, p):
        victims = ((seats.astype(np.int64) + i * step) % p).astype(np.int8)
        if pressed:
            press(s, g, victims, amount)
        else:
            draw_cards(s, g, victims, amount)


def hit(s: State, g: np.ndarray, victims: np.ndarray, rank: np.ndarray) -> None:
    """A Hit 2 (two presses) or a Wild Hit-Fire (until it fires) on ``victims``."""
    two = rank == HIT_TWO
    if two.any():
        press(s, g[two], victims[two], np.full(int(two.sum()), 2, np.int64))
    if not two.all():
        press(s, g[~two], victims[~two], None, until_fire=True)


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


def target_draw(s: State, g: np.ndarray, seats: np.ndarray, offsets: np.ndarray) -> None:
    """``seats`` name the victims (``offsets`` seats clockwise) of their targeted draw: a
    victim answers (a challenge of a Targeted +4, a Boomerang) where they can, or draws at
    once; one who was next loses the turn, otherwise play goes on after the card's player.
    A final card's round then ends."""
    rules = s.rules
    victims = ((seats.astype(np.int64) + offsets) % rules.players).astype(np.int8)
    four = rules.effect_rank[s.top[g]] == TARGETED_FOUR
    s.pending[g] = np.where(four, 4, 2)
    s.cause[g] = seats
    final = s.hand_size[g, seats] == 0
    respond = (four & rules.challenge_enabled) | (rules.boomerangs & ~final)
    s.actor[g[respond]] = victims[respond]
    s.phase[g[respond]] = RESPOND
    now = np.flatnonzero(~respond)
    if not now.size:
        return
    gn = g[now]
    draw_cards(s, gn, victims[now], s.pending[gn])
    s.pending[gn] = 0
    out = final[now]
    end_round(s, gn[out], seats[now][out])
    go = now[~out]
    if go.size:
        gg = g[go]
        plays = np.full(go.size, PLAY, np.int8)
        end_turn(s, gg, seats[go], after_victim(s, gg, victims[go]), plays)


def play_last_card(s: State, g: np.ndarray, seats: np.ndarray, kinds: np.ndarray) -> None:
    """``seats`` emptied their hands with ``kinds``: the round ends once a final draw card
    has acted. A final +2/+4 is still drawn (a final +4 challenged first), a final Downpour
    drawn by every other player (its player has gone out and draws nothing), a hit still
    hits, and a targeted draw still asks for its victim."""
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
    if s.rules.layout.extended:
        waiting = _final_extended_draws(s, g[done], seats[done], kinds[done])
        done[np.flatnonzero(done)[waiting]] = False  # a final targeted card's victim is asked
    end_round(s, g[done], seats[done])


def _final_extended_draws(
    s: State, g: np.ndarray, seats: np.ndarray, kinds: np.ndarray
) -> np.ndarray:
    """The extended draw cards of :func:`play_last_card`. Returns (k,) bool: the games not
    over yet (a targeted draw's player names the victim first)."""
    rank = s.rules.effect_rank[kinds]
    waiting = (rank == TARGETED_TWO) | (rank == TARGETED_FOUR)
    rows = np.flatnonzero(waiting)
    s.actor[g[rows]] = seats[rows]
    s.phase[g[rows]] = TARGET_PHASE
    rows = np.flatnonzero((rank == DOWNPOUR_ONE) | (rank == DOWNPOUR_TWO))
    if rows.size:
        amount = np.where(rank[rows] == DOWNPOUR_ONE, 1, 2).astype(np.int64)
        each_other(s, g[rows], seats[rows], amount)
    rows = np.flatnonzero((rank == HIT_TWO) | (rank == HIT_FIRE))
    if rows.size:
        hit(s, g[rows], next_seat(s, g[rows], seats[rows]), rank[rows])
    rows = np.flatnonzero(rank == ALL_HIT)
    if rows.size:
        each_other(s, g[rows], seats[rows], np.ones(rows.size, np.int64), pressed=True)
    return waiting


def first_card_draws(s: State, g: np.ndarray, top: np.ndarray, dealer: np.ndarray) -> None:
    """An extended draw card turned first (with ``first_card_effects``; ``top`` the (k,)
    first cards, ``dealer`` the (k,) int8 dealers): a Downpour makes every player but the
    dealer draw and an All Hit every player but the dealer press, from the first player on;
    a Targeted +2 hits the first player like a +2; a Hit 2 or Hit-Fire hits the first player,
    who loses the turn (after a Hit-Fire's color is named)."""
    ranks = s.rules.layout.kind_rank[top]
    rows = np.flatnonzero((ranks == DOWNPOUR_ONE) | (ranks == DOWNPOUR_TWO))
    if rows.size:
        amount = np.where(ranks[rows] == DOWNPOUR_ONE, 1, 2).astype(np.int64)
        each_other(s, g[rows], dealer[rows], amount)
    rows = np.flatnonzero(ranks == ALL_HIT)
    if rows.size:
        each_other(s, g[rows], dealer[rows], np.ones(rows.size, np.int64), pressed=True)
    rows = np.flatnonzero(ranks == TARGETED_TWO)
    if rows.size:
        gt = g[rows]
        first = ((dealer[rows].astype(np.int64) + 1) % s.rules.players).astype(np.int8)
        draw_cards(s, gt, first, np.full(rows.size, 2, np.int64))
        if s.rules.first_draw_two_skips:
            s.actor[gt] = next_seat(s, gt, first)
    rows = np.flatnonzero((ranks == HIT_TWO) | (ranks == HIT_FIRE))
    if rows.size:
        gh = g[rows]
        first = ((dealer[rows].astype(np.int64) + 1) % s.rules.players).astype(np.int8)
        hit(s, gh, first, ranks[rows])
        after = next_seat(s, gh, first)
        waiting = s.phase[gh] == COLOR  # play starts once the color is named
        s.resume_actor[gh[waiting]] = after[waiting]
        s.actor[gh[~waiting]] = after[~waiting]

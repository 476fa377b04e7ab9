"""Effects of the section-11 cards in the batched engine (the extended layout only).

Each effect has the signature of :data:`uno_rl.core.effects.HANDOVER_EFFECTS`'s entries:
``effect(s, g, seats, kinds, rank, count, next_actor, next_phase)`` over (k,) games ``g``,
their players ``seats`` (k,) int8 and the effect symbols ``rank`` (k,) int8
(:attr:`Rules.effect_rank`: a Customizable has its bound card's), writing the hand-over
(``next_actor``, ``next_phase``, (k,) int8) in place. :func:`final_new_card` is what a
card that empties its player's hand still does; :func:`first_card_new` what a first card
does. The reference (:mod:`uno_rl.core.reference`) is the specification.
"""

from __future__ import annotations

import numpy as np

from . import rng
from .layout import (
    ALL_HIT,
    BOOMERANG,
    DISCARD_ALL,
    DOWNPOUR_ONE,
    DOWNPOUR_TWO,
    HIT_FIRE,
    HIT_TWO,
    SHUFFLE_HANDS,
    SWAP_HANDS,
    TARGETED_FOUR,
    TARGETED_TWO,
)
from .phases import COLOR, PLAY, RESPOND
from .phases import TARGET as TARGET_PHASE
from .piles import draw_cards, shuffled_piles
from .state import State
from .turns import end_round, end_turn
from .views import next_seat

__all__ = [
    "NEW_CARD_EFFECTS",
    "after_victim",
    "ask_victim",
    "boomerang_return",
    "target_draw",
    "discard_all",
    "final_new_card",
    "first_card_new",
    "press",
    "swap_targets",
]


def _each_other(s: State, g: np.ndarray, seats: np.ndarray, amount: np.ndarray, pressed=False):
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


def _fire_counts(s: State, g: np.ndarray) -> np.ndarray:
    """(k,) int64: cards shot by the fire of each game's press ``press_index`` (used up)."""
    cdf = np.cumsum(s.rules.dispenser_count)
    u = rng.uniform(s.key[g], rng.DISPENSER, s.press_index[g], 1)
    s.press_index[g] += 1
    return np.minimum(np.searchsorted(cdf, u, side="right"), cdf.size - 1) + 1


def press(s: State, g: np.ndarray, seats: np.ndarray, presses: np.ndarray, until_fire=False):
    """``seats`` press the dispenser ``presses[i]`` times ((k,) int64), or until it fires;
    without a dispenser they draw as many cards (until fire: one fire's count).

    A press fires when ``uniform(key, DISPENSER, press_index, 0)`` is below
    ``dispenser_hazard[presses since the last fire]``; a fire shoots a count from
    ``dispenser_count`` (:func:`_fire_counts`). ``g`` holds each game at most once.
    """
    rules = s.rules
    if not rules.dispenser_on:
        if until_fire:
            draw_cards(s, g, seats, _fire_counts(s, g))
        else:
            draw_cards(s, g, seats, presses)
        return
    hazard = np.asarray(rules.dispenser_hazard)
    left = np.ones(g.size, np.int64) if until_fire else np.asarray(presses, np.int64).copy()
    rows = np.flatnonzero(left > 0)
    while rows.size:  # one press per game and pass: a handful of passes
        gg = g[rows]
        u = rng.uniform(s.key[gg], rng.DISPENSER, s.press_index[gg], 0)
        fire = u < hazard[np.minimum(s.presses[gg], hazard.size - 1)]
        missed = rows[~fire]
        s.presses[g[missed]] += 1
        s.press_index[g[missed]] += 1
        hit = rows[fire]
        if hit.size:
            draw_cards(s, g[hit], seats[hit], _fire_counts(s, g[hit]))
            s.presses[g[hit]] = 0
        if until_fire:
            left[hit] = 0
        else:
            left[rows] -= 1
        rows = rows[left[rows] > 0]


def _hit(s: State, g: np.ndarray, victims: np.ndarray, rank: np.ndarray) -> None:
    """A Hit 2 (two presses) or a Wild Hit-Fire (until it fires) on ``victims``."""
    two = rank == HIT_TWO
    if two.any():
        press(s, g[two], victims[two], np.full(int(two.sum()), 2, np.int64))
    if not two.all():
        press(s, g[~two], victims[~two], None, until_fire=True)


def _hits(s, g, seats, kinds, rank, count, next_actor, next_phase) -> None:
    """Hit 2 and Wild Hit-Fire hit the next player, who loses the turn; Wild All Hit makes
    every other player press once, in order of play, and skips nobody."""
    rows = np.flatnonzero((rank == HIT_TWO) | (rank == HIT_FIRE))
    if rows.size:
        gh, victims = g[rows], next_actor[rows]
        _hit(s, gh, victims, rank[rows])
        next_actor[rows] = next_seat(s, gh, victims)
    rows = np.flatnonzero(rank == ALL_HIT)
    if rows.size:
        _each_other(s, g[rows], seats[rows], np.ones(rows.size, np.int64), pressed=True)


def discard_all(s: State, g: np.ndarray, seats: np.ndarray, kinds: np.ndarray) -> None:
    """A Discard All just laid: every other card of its color in the hand goes onto the
    discard pile (under it; no effect). Under ``discard_all_may_go_out = false`` a hand
    made only of that color keeps the card of its lowest kind."""
    rows = np.flatnonzero(s.rules.effect_rank[kinds] == DISCARD_ALL)
    if not rows.size:
        return
    gd, sd = g[rows], seats[rows]
    layout = s.rules.layout
    same = layout.kind_color[None, :] == layout.kind_color[kinds[rows]][:, None]
    shed = np.where(same, s.hands[gd, sd], 0)
    if not s.rules.discard_all_may_go_out:
        whole = shed.sum(axis=1) == s.hand_size[gd, sd]
        keep = np.flatnonzero(whole & shed.any(axis=1))
        shed[keep, (shed[keep] > 0).argmax(axis=1)] -= 1
    s.hands[gd, sd] -= shed
    s.hand_size[gd, sd] -= shed.sum(axis=1, dtype=np.int16)
    s.discard[gd] += shed


def _downpour(s, g, seats, kinds, rank, count, next_actor, next_phase) -> None:
    """Downpour +1 / +2: every other player draws 1 (2), in order of play; nobody is skipped
    (``downpour_includes_self``: its player draws too, last)."""
    rows = np.flatnonzero((rank == DOWNPOUR_ONE) | (rank == DOWNPOUR_TWO))
    if rows.size:
        gd, sd = g[rows], seats[rows]
        amount = np.where(rank[rows] == DOWNPOUR_ONE, 1, 2).astype(np.int64)
        _each_other(s, gd, sd, amount)
        if s.rules.downpour_includes_self:
            draw_cards(s, gd, sd, amount)


def _shuffle_hands(s, g, seats, kinds, rank, count, next_actor, next_phase) -> None:
    """Wild Shuffle Hands: every hand gathered, shuffled (stream SHUFFLE_HANDS, the decision
    number) and dealt one at a time from the player's left (clockwise); what was seen of other
    hands is forgotten. A hand left empty wins at once (the first in dealing order)."""
    rows = np.flatnonzero(rank == SHUFFLE_HANDS)
    if not rows.size:
        return
    gs, ss = g[rows], seats[rows].astype(np.int64)
    p, kinds_n = s.rules.players, s.hands.shape[2]
    counts = s.hands[gs].sum(axis=1, dtype=np.int16)
    width = int(counts.sum(axis=1).max())
    piles, total = shuffled_piles(counts, s.key[gs], rng.SHUFFLE_HANDS, s.turn[gs], width)
    lanes = np.arange(width)
    valid = lanes[None, :] < total[:, None]
    seat_of = (ss[:, None] + 1 + lanes[None, :]) % p
    flat = ((np.arange(gs.size)[:, None] * p + seat_of) * kinds_n + piles)[valid]
    hands = np.bincount(flat, minlength=gs.size * p * kinds_n).reshape(gs.size, p, kinds_n)
    s.hands[gs] = hands
    s.hand_size[gs] = hands.sum(axis=2)
    s.shuffled[gs] = True
    s.revealed[gs] = 0
    s.reveal_viewer[gs] = -1
    s.reveal_target[gs] = -1
    s.swap_seats[gs] = -1
    s.swap_given[gs] = 0
    order = (ss[:, None] + 1 + np.arange(p)[None, :]) % p  # dealing order of the seats
    empty = s.hand_size[gs[:, None], order] == 0
    out = np.flatnonzero(empty.any(axis=1))
    if out.size:
        winners = order[out, empty[out].argmax(axis=1)].astype(np.int8)
        end_round(s, gs[out], winners)


def swap_targets(s: State, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(k, P-1) bool: the seat offsets 1 .. P-1 (clockwise) a Swap Hands may choose: under
    ``swap_excludes_uno``, nobody holding one card."""
    p = s.rules.players
    offsets = np.arange(1, p)
    if not s.rules.swap_excludes_uno:
        return np.ones((g.size, p - 1), bool)
    others = (seats.astype(np.int64)[:, None] + offsets[None, :]) % p
    return s.hand_size[g[:, None], others] != 1


def _swap_card(s, g, seats, kinds, rank, count, next_actor, next_phase) -> None:
    """Wild Swap Hands: its player chooses whom to swap with (the target phase); with
    nobody to choose it is a plain Wild."""
    rows = np.flatnonzero(rank == SWAP_HANDS)
    if rows.size:
        some = swap_targets(s, g[rows], seats[rows]).any(axis=1)
        rows = rows[some]
        next_actor[rows] = seats[rows]
        next_phase[rows] = TARGET_PHASE


#: The section-11 effects, after the classic ones, in this order.
NEW_CARD_EFFECTS = (_downpour, _hits, _shuffle_hands, _swap_card)


def final_new_card(s: State, g: np.ndarray, seats: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """What a section-11 card that emptied its player's hand still does: a final Downpour is
    drawn by every other player (its player has gone out and draws nothing), a hit hits, a
    targeted draw asks for its victim. Returns (k,) bool: the games not over yet (those)."""
    rank = s.rules.effect_rank[kinds]
    waiting = (rank == TARGETED_TWO) | (rank == TARGETED_FOUR)
    rows = np.flatnonzero(waiting)
    s.actor[g[rows]] = seats[rows]
    s.phase[g[rows]] = TARGET_PHASE
    rows = np.flatnonzero((rank == DOWNPOUR_ONE) | (rank == DOWNPOUR_TWO))
    if rows.size:
        amount = np.where(rank[rows] == DOWNPOUR_ONE, 1, 2).astype(np.int64)
        _each_other(s, g[rows], seats[rows], amount)
    rows = np.flatnonzero((rank == HIT_TWO) | (rank == HIT_FIRE))
    if rows.size:
        _hit(s, g[rows], next_seat(s, g[rows], seats[rows]), rank[rows])
    rows = np.flatnonzero(rank == ALL_HIT)
    if rows.size:
        _each_other(s, g[rows], seats[rows], np.ones(rows.size, np.int64), pressed=True)
    return waiting


def first_card_new(s: State, g: np.ndarray, top: np.ndarray, dealer: np.ndarray) -> None:
    """A first card of section 11 (with ``first_card_effects``): a Downpour makes every
    player but the dealer draw, from the first player on."""
    ranks = s.rules.layout.kind_rank[top]
    rows = np.flatnonzero((ranks == DOWNPOUR_ONE) | (ranks == DOWNPOUR_TWO))
    if rows.size:
        amount = np.where(ranks[rows] == DOWNPOUR_ONE, 1, 2).astype(np.int64)
        _each_other(s, g[rows], dealer[rows], amount)
    rows = np.flatnonzero(ranks == ALL_HIT)
    if rows.size:
        _each_other(s, g[rows], dealer[rows], np.ones(rows.size, np.int64), pressed=True)
    rows = np.flatnonzero(ranks == TARGETED_TWO)  # hits the first player like a +2
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
        _hit(s, gh, first, ranks[rows])
        after = next_seat(s, gh, first)
        waiting = s.phase[gh] == COLOR  # play starts once the color is named
        s.resume_actor[gh[waiting]] = after[waiting]
        s.actor[gh[~waiting]] = after[~waiting]


def after_victim(s: State, g: np.ndarray, victims: np.ndarray) -> np.ndarray:
    """(k,) int8: who plays once ``victims`` took the pending draw (or Skip) of ``cause``:
    the seat after the victim if they were next, else the seat after ``cause``."""
    cause = s.cause[g]
    after_cause = next_seat(s, g, cause)
    return np.where(victims == after_cause, next_seat(s, g, victims), after_cause)


def ask_victim(s: State, g: np.ndarray, seats: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """A Targeted +2 / +4 asks its player for the victim (the target phase). Returns the
    (k,) bool games whose play goes on (the others)."""
    targeted = (rank == TARGETED_TWO) | (rank == TARGETED_FOUR)
    s.actor[g[targeted]] = seats[targeted]
    s.phase[g[targeted]] = TARGET_PHASE
    return ~targeted


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


def boomerang_return(s: State, g: np.ndarray, kinds: np.ndarray) -> None:
    """Boomerangs just played by victims: the pending draw goes back to ``cause`` (who draws
    it, unchallengeable), or a pending Skip costs ``cause`` their next turn."""
    rows = np.flatnonzero(s.rules.effect_rank[kinds] == BOOMERANG)
    if not rows.size:
        return
    gb = g[rows]
    draws = s.pending[gb] > 0
    draw_cards(s, gb[draws], s.cause[gb[draws]], s.pending[gb[draws]])
    s.pending[gb] = 0
    skipped = gb[~draws]
    s.skip_turn[skipped, s.cause[skipped]] += 1

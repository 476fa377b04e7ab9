"""Playing and drawing: a seat lays a card (or draws), then the card's effects are resolved.

:func:`play_card` moves the card from the hand onto the discard pile, records a +4 (who
played it, whether it was a bluff, the card and color under it, for a challenge), applies
a forgotten UNO's penalty, ends the round on an emptied hand
(:func:`.draw_penalties.play_last_card`), keeps a multi-play going, and otherwise resolves
the card (:func:`.effects.finish_play`). What a Discard All (:func:`.hand_changes.discard_all`)
and a Boomerang (:func:`.turn_order.boomerang_return`) do happens as they are laid.
:func:`draw_action` draws one card (or until one is playable), then offers it, plays it at
once (``drawn_card = "auto-play"``) or passes the turn.

Arguments follow the core's conventions (:mod:`uno_rl.core`; ``seats`` the seat acting in
each game); ``kinds`` are (k,) int64 card kinds, ``named`` the (k,) int8 colors named for
wilds.
"""

from __future__ import annotations

import numpy as np

from uno_rl.core import rng
from uno_rl.core.cards import KIND_COLOR, WILD, WILD_DRAW_FOUR
from uno_rl.core.dispenser import press
from uno_rl.core.draw_penalties import play_last_card
from uno_rl.core.effects import finish_play
from uno_rl.core.hand_changes import discard_all
from uno_rl.core.legality import draw_four_legal, playable
from uno_rl.core.phases import DRAWN, MULTI, PLAY, RESPOND
from uno_rl.core.piles import draw_cards, draw_one
from uno_rl.core.state import State
from uno_rl.core.turn_order import boomerang_return
from uno_rl.core.turns import start_turn
from uno_rl.core.views import flat_view, hand_of, next_seat, seat_rows


def draw_action(s: State, g: np.ndarray, seats: np.ndarray) -> None:
    """``seats`` draw (one card, or until one is playable); a playable card is then offered
    (the drawn phase) unless the rules play it at once or forbid it; otherwise the turn passes."""
    rules = s.rules
    void = _drawn_on(s, g, seats)
    if rules.dispenser_on:  # one press of the dispenser, and the turn is over
        press(s, g, seats, np.ones(g.size, np.int64))
        start_turn(s, g, next_seat(s, g, seats))
        _show_void(s, *void)
        return
    card = draw_one(s, g, seats)
    if rules.drawn_card == "auto-play":
        _auto_play(s, g, seats, card)
        _show_void(s, *void)
        return
    if rules.draw_until_playable:
        again = np.flatnonzero(card >= 0)
        again = again[~playable(s, g[again], seats[again], card[again])]
        while again.size:
            card[again] = draw_one(s, g[again], seats[again])
            again = again[card[again] >= 0]
            again = again[~playable(s, g[again], seats[again], card[again])]
    keep = card >= 0
    if rules.drawn_card != "may-not-play":
        rows = np.flatnonzero(keep)
        keep[rows] = playable(s, g[rows], seats[rows], card[rows])
    else:
        keep[:] = False
    s.actor[g[keep]] = seats[keep]
    s.phase[g[keep]] = DRAWN
    s.drawn[g[keep]] = card[keep]
    rest = ~keep
    start_turn(s, g[rest], next_seat(s, g[rest], seats[rest]))
    _show_void(s, *void)


def _drawn_on(s: State, g: np.ndarray, seats: np.ndarray) -> tuple:
    """Before ``seats`` draw: the flat (game, seat) rows of those drawing in the play phase,
    the color and the colored top card's symbol (-1 for a colorless one) they draw on."""
    play = s.phase[g] == PLAY
    gp = g[play]
    top = s.top[gp]
    symbol = np.where(s.rules.layout.kind_color[top] >= 0, s.rules.layout.kind_rank[top], -1)
    return seat_rows(s, gp, seats[play]), s.color[gp], symbol.astype(np.int8)


def _show_void(s: State, rows: np.ndarray, color: np.ndarray, symbol: np.ndarray) -> None:
    """Having drawn (the draw cleared what they lacked), the hands of ``rows`` showed they
    held nothing of ``color`` and nothing of ``symbol``."""
    flat_view(s.void_color)[rows] = color
    flat_view(s.void_symbol)[rows] = symbol


def _lay_card(
    s: State, g: np.ndarray, seats: np.ndarray, kinds: np.ndarray, named: np.ndarray
) -> np.ndarray:
    """Move card ``kinds`` from the hands of ``seats`` onto the discard piles of games ``g``:
    the new top card, its color (``named`` for wilds). Returns the (k,) flat (game, seat) rows."""
    rows = seat_rows(s, g, seats)
    width = s.hands.shape[2]
    layout = s.rules.layout
    flat_view(s.hands)[rows * width + kinds] -= 1
    flat_view(s.hand_size)[rows] -= 1
    flat_view(s.discard)[g * width + kinds] += 1
    s.top[g] = kinds
    own = layout.kind_color[kinds]
    flat_view(s.played)[rows * 5 + np.where(own >= 0, own, 4)] += 1
    names = layout.names_color[kinds]
    flat_view(s.named)[rows[names]] = named[names]
    if not layout.extended:  # the classic kinds: the two wilds (52, 53) name the color
        s.color[g] = np.where(kinds >= 52, named, KIND_COLOR[kinds])
    else:  # a Boomerang (colorless, names nothing) leaves the color as it is
        s.color[g] = np.where(names, named, np.where(own >= 0, own, s.color[g]))
    s.drawn[g] = -1
    return rows


def _auto_play(s: State, g: np.ndarray, seats: np.ndarray, card: np.ndarray) -> None:
    """``drawn_card='auto-play'`` (RLCard): the drawn ``card`` ((k,) kinds, -1: none) is played
    at once if it is a Wild, a +4 or of the current color; otherwise the turn passes."""
    layout = s.rules.layout
    kinds = card.astype(np.int64)
    safe = np.maximum(kinds, 0)
    auto = (kinds >= 0) & (layout.names_color[safe] | (layout.kind_color[safe] == s.color[g]))
    keep = ~auto
    start_turn(s, g[keep], next_seat(s, g[keep], seats[keep]))
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
    start_turn(s, gd, next_seat(s, gd, seats[d4]))
    rest = ~d4
    finish_play(s, g[rest], seats[rest], kinds[rest])


def play_card(
    s: State,
    g: np.ndarray,
    seats: np.ndarray,
    kinds: np.ndarray,
    named: np.ndarray,
    phase: np.ndarray,
) -> None:
    """Seat ``seats`` plays card ``kinds`` in games ``g`` (named color for wilds)."""
    rules = s.rules
    classic = not rules.layout.extended
    if classic:
        d4 = np.flatnonzero(kinds == WILD_DRAW_FOUR)
    else:
        d4 = np.flatnonzero(rules.layout.draw_four_like[kinds])
    if d4.size:
        gd, sd = g[d4], seats[d4]
        bluff = np.zeros(d4.size, bool)
        if rules.challenge_enabled:
            bluff = ~draw_four_legal(s, gd, hand_of(s, gd, sd))
        s.draw4_bluff[gd] = bluff
        s.draw4_player[gd] = sd
        s.prev_top[gd] = s.top[gd]
        s.prev_color[gd] = s.color[gd]
        s.stats[gd, 0, sd] += 1
        s.stats[gd, 1, sd] += bluff
    rows = _lay_card(s, g, seats, kinds, named)
    if not classic:
        discard_all(s, g, seats, kinds)
        boomerang_return(s, g, kinds)
    hand_size = flat_view(s.hand_size)
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
            if rules.dispenser_on:
                press(s, g[hit], seats[hit], np.full(hit.size, 2, np.int64))
            else:
                draw_cards(s, g[hit], seats[hit], np.full(hit.size, rules.uno_penalty))
            sizes = hand_size[rows]
    empty = sizes == 0
    if empty.any():
        play_last_card(s, g[empty], seats[empty], kinds[empty])
    rest = ~empty if rules.multi_play or empty.any() else None  # None: all games go on
    count = None  # cards of the combination (multi-play), 1 when None
    if rules.multi_play:
        rank = rules.layout.kind_rank[kinds]
        count = np.where(phase == MULTI, s.multi_count[g].astype(np.int64) + 1, 1)
        combines = rank < (13 if rules.multi_play_actions else 10)  # numbers (and symbols)
        multi = rest & ((phase == PLAY) | (phase == MULTI)) & (kinds < 52) & combines & (sizes >= 2)
        rows = np.flatnonzero(multi)
        if rows.size:
            per_rank = s.hands[g[rows], seats[rows], :52].reshape(-1, 4, 13).sum(axis=1)
            has_more = per_rank[np.arange(rows.size), rank[rows]] > 0
            rows = rows[has_more]
            s.actor[g[rows]] = seats[rows]
            s.phase[g[rows]] = MULTI
            s.multi_rank[g[rows]] = rank[rows]
            s.multi_count[g[rows]] = count[rows]
            rest[rows] = False
    if rest is None:
        finish_play(s, g, seats, kinds, count)
    elif rest.any():
        finish_play(s, g[rest], seats[rest], kinds[rest], None if count is None else count[rest])

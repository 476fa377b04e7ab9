"""One decision of one game in the compiled kernel: the action's moves and the close of the
step (:meth:`uno_rl.core.reference.ReferenceGame.step` and ``_close_step``, statement for
statement; no validation: the batched API checks actions first).

The step's result is written into row ``i`` of the caller's arrays (those of
:class:`~uno_rl.core.scoring.StepResult`): ``rewards`` (k, P) float32, ``flags`` (3, k) bool
(round over, truncated, match over), ``winner`` (k,) int8, ``ints`` (2, k) int32 (points,
decisions), ``net_points`` (k, P) int32 and ``stats`` (6, k, P) int32.
"""

from __future__ import annotations

import numpy as np

from .. import rng
from ..actions import ACCEPT, CHALLENGE, CHOOSE_COLOR, DRAW, PASS
from ..layout import BOOMERANG, DISCARD_ALL, TARGETED_FOUR, TARGETED_TWO
from ..phases import DRAWN, MULTI, OVER, PLAY, RESPOND
from .nb_basics import (
    add_cards,
    after_penalty,
    after_victim,
    ask_jump,
    draw,
    draw_four_legal,
    draw_one,
    end_turn,
    next_seat,
    playable,
    start_turn,
)
from .nb_card_effects import card_effect
from .nb_deal import deal
from .nb_draw_effects import challenge, play_last_card, press, target_draw
from .nb_hand_effects import boomerang, discard_all, swap
from .nb_jit import kernel
from .nb_random import bits, uniform
from .nb_rules import code

_WILD, _WILD_DRAW_FOUR = 52, 53
_AUTO_PLAY = code("drawn_card", "auto-play")
_MAY_NOT_PLAY = code("drawn_card", "may-not-play")
_WIN_LOSS = code("reward", "win-loss")
_WINNER_TAKES = code("scoring", "winner-takes")
_LOSERS_ADD = code("scoring", "losers-add")
_ROTATE = code("dealer", "rotate")
_DRAW4_PLAYS, _BLUFFS = 0, 1  # rows of State.stats (STAT_NAMES)


@kernel
def record_play(a, t, g, seat, kind):
    """What ``seat`` played, for all to see: the card's color (4: none), the color named."""
    own = t.kind_color[kind]
    a.played[g, seat, own if own >= 0 else 4] += 1
    if t.names_color[kind]:
        a.named[g, seat] = a.color[g]


@kernel
def finish_play(a, t, g, seat, kind, count):
    """The effects of the card that ends ``seat``'s play (``count`` of its symbol), then the
    hand-over."""
    rank = np.int64(t.effect_rank[kind])
    actor, phase = card_effect(a, t, g, seat, kind, rank, count)
    if actor >= 0:
        end_turn(a, t, g, seat, actor, phase)


@kernel
def play(a, t, g, seat, kind, color, phase):
    """``seat`` plays a card of ``kind`` (naming ``color`` for a wild) in ``phase``."""
    if t.draw_four_like[kind]:  # a +4 or a Targeted +4: who, and was it a bluff
        a.draw4_bluff[g] = t.challenge_enabled and not draw_four_legal(a, t, g, seat)
        a.draw4_player[g] = seat
        a.prev_top[g] = a.top[g]
        a.prev_color[g] = a.color[g]
        a.stats[g, _DRAW4_PLAYS, seat] += 1
        a.stats[g, _BLUFFS, seat] += np.int32(a.draw4_bluff[g])
    add_cards(a, g, seat, kind, -1)
    a.discard[g, kind] += 1
    a.top[g] = kind
    own = t.kind_color[kind]
    if t.names_color[kind]:
        a.color[g] = color
    elif own >= 0:  # a colorless card that names nothing (Boomerang) keeps the color
        a.color[g] = own
    record_play(a, t, g, seat, kind)
    a.drawn[g] = -1
    effect = t.effect_rank[kind]
    if effect == DISCARD_ALL:
        discard_all(a, t, g, seat, kind)
    elif effect == BOOMERANG:
        boomerang(a, t, g)
    if phase == RESPOND and kind == _WILD:
        a.pending[g] = 0  # a Wild cancels the pending draws
    if a.hand_size[g, seat] == 1 and t.uno_forget_prob > 0:
        turn = a.turn[g]
        forgets = uniform(a.key[g], rng.FORGET_UNO, turn, 0) < t.uno_forget_prob
        caught = uniform(a.key[g], rng.FORGET_UNO, turn, 1) < t.uno_catch_prob
        if forgets and caught:
            if t.dispenser_on:
                press(a, t, g, seat, 2)
            else:
                draw(a, t, g, seat, t.uno_penalty)
    if a.hand_size[g, seat] == 0:
        play_last_card(a, t, g, seat, kind)
        return
    count = np.int64(a.multi_count[g]) + 1 if phase == MULTI else 1
    rank = t.kind_rank[kind]
    combines = rank < (13 if t.multi_play_actions else 10)
    if (
        t.multi_play
        and (phase == PLAY or phase == MULTI)
        and kind < 52
        and combines
        and a.hand_size[g, seat] >= 2
    ):
        for k in range(52):
            if a.hands[g, seat, k] and t.kind_rank[k] == rank:
                a.actor[g] = seat
                a.phase[g] = MULTI
                a.multi_rank[g] = rank
                a.multi_count[g] = count
                return
    finish_play(a, t, g, seat, kind, count)


@kernel
def auto_play(a, t, g, seat, card):
    """RLCard's drawn card: a Wild, +4 or card of the current color is played at once."""
    if card < 0 or (not t.names_color[card] and t.kind_color[card] != a.color[g]):
        start_turn(a, g, next_seat(a, t, g, seat))
        return
    if card == _WILD_DRAW_FOUR:  # shown while it is on top; nothing can be taken back
        a.prev_top[g] = -1
        a.prev_color[g] = a.color[g]
        a.draw4_player[g] = seat
        a.draw4_bluff[g] = False
    add_cards(a, g, seat, card, -1)
    a.discard[g, card] += 1
    a.top[g] = card
    if t.names_color[card]:
        a.color[g] = bits(a.key[g], rng.DRAWN_COLOR, a.turn[g], 0) % np.uint64(4)
    else:
        a.color[g] = t.kind_color[card]
    record_play(a, t, g, seat, card)
    if card == _WILD_DRAW_FOUR:  # played as a plain Wild: nobody draws
        start_turn(a, g, next_seat(a, t, g, seat))
    else:
        finish_play(a, t, g, seat, card, 1)


@kernel
def draw_cards_on_action(a, t, g, seat):
    """The draw action's cards: one press of the dispenser, or a draw (until playable)."""
    if t.dispenser_on:  # one press of the dispenser, and the turn is over
        press(a, t, g, seat, 1)
        start_turn(a, g, next_seat(a, t, g, seat))
        return
    card = draw_one(a, t, g, seat)
    if t.drawn_card == _AUTO_PLAY:
        auto_play(a, t, g, seat, card)
        return
    while card >= 0 and t.draw_until_playable and not playable(a, t, g, seat, card):
        card = draw_one(a, t, g, seat)
    if card >= 0 and t.drawn_card != _MAY_NOT_PLAY and playable(a, t, g, seat, card):
        a.actor[g] = seat
        a.phase[g] = DRAWN
        a.drawn[g] = card
    else:
        start_turn(a, g, next_seat(a, t, g, seat))


@kernel
def draw_action(a, t, g, seat):
    """``seat`` draws; in the play phase it so shows it holds nothing of the color and nothing
    of the colored top card's symbol (until it next draws)."""
    void = a.phase[g] == PLAY
    void_color, void_symbol = a.color[g], -1
    if void and t.kind_color[a.top[g]] >= 0:
        void_symbol = t.kind_rank[a.top[g]]
    draw_cards_on_action(a, t, g, seat)
    if void:
        a.void_color[g, seat] = void_color
        a.void_symbol[g, seat] = void_symbol


@kernel
def apply_action(a, t, g, action):
    """The moves of ``action`` by the player to act in game ``g`` (before the close)."""
    seat, phase = np.int64(a.actor[g]), a.phase[g]
    kind = np.int64(t.action_card[action])
    if kind >= 0:
        play(a, t, g, seat, kind, t.action_color[action], phase)
    elif action == DRAW:
        draw_action(a, t, g, seat)
    elif action == PASS:
        if phase == DRAWN:
            start_turn(a, g, next_seat(a, t, g, seat))
        elif phase == MULTI:
            finish_play(a, t, g, seat, np.int64(a.top[g]), np.int64(a.multi_count[g]))
        else:  # JUMP
            ask_jump(a, t, g, np.int64(a.jump_cursor[g]) + 1)
    elif action == ACCEPT:
        draw(a, t, g, seat, np.int64(a.pending[g]))
        a.pending[g] = 0
        after_penalty(a, t, g, after_victim(a, t, g, seat), seat)
    elif action == CHALLENGE:
        challenge(a, t, g, seat)
    elif action >= CHOOSE_COLOR:
        a.color[g] = t.action_color[action]
        start = np.int64(a.resume_actor[g])  # a first Wild Hit-Fire's victim lost the turn
        if start < 0:
            start = (np.int64(a.dealer[g]) + 1) % t.players
        start_turn(a, g, start)
    else:  # a target: of a 7 (seven-zero), a Swap Hands or a targeted draw
        target = (seat + np.int64(t.action_target[action])) % t.players
        effect = t.effect_rank[a.top[g]]
        if effect == TARGETED_TWO or effect == TARGETED_FOUR:
            target_draw(a, t, g, seat, target)
        else:
            swap(a, t, g, seat, target)
            end_turn(a, t, g, seat, next_seat(a, t, g, seat), PLAY)


@kernel
def close_step(a, t, g, i, rewards, flags, winner, ints, net_points, stats):
    """Count the decision, truncate, score a finished round into row ``i`` of the result and
    deal a match's next round."""
    p = t.players
    while a.phase[g] == PLAY and a.skip_turn[g, a.actor[g]]:  # a lost turn is passed over
        a.skip_turn[g, a.actor[g]] -= 1
        a.actor[g] = next_seat(a, t, g, np.int64(a.actor[g]))
    a.turn[g] += 1
    if a.phase[g] != OVER and a.turn[g] >= t.max_turns:
        a.truncated[g] = True
        a.phase[g] = OVER
    if a.phase[g] != OVER:
        return
    flags[0, i] = True
    flags[1, i] = a.truncated[g]
    w = np.int64(a.winner[g])
    winner[i] = w
    ints[1, i] = a.turn[g]
    for row in range(stats.shape[0]):
        for s in range(p):
            stats[row, i, s] = a.stats[g, row, s]
    if w >= 0:
        points = t.work_points
        total = 0
        for s in range(p):
            points[s] = 0
            for k in range(t.num_kinds):
                points[s] += np.int64(a.hands[g, s, k]) * t.kind_points[k]
            total += points[s]
        ints[0, i] = total
        for s in range(p):
            net = total if s == w else -points[s]
            net_points[i, s] = net
            if t.reward == _WIN_LOSS:
                rewards[i, s] = 1.0 if s == w else -1.0 / (p - 1)
            else:
                rewards[i, s] = net
        if t.scoring == _WINNER_TAKES:
            a.scores[g, w] += total
        elif t.scoring == _LOSERS_ADD:
            for s in range(p):
                if s != w:
                    a.scores[g, s] += points[s]
        else:
            a.scores[g, w] += 1
    if t.match:
        if t.match_rounds:  # a fixed number of rounds, truncated ones included
            decided = a.round_index[g] + 1 >= t.match_rounds
        else:
            decided = False
            for s in range(p):
                decided = decided or a.scores[g, s] >= t.match_target
        if decided:
            a.match_over[g] = True
            flags[2, i] = True
        else:
            seed = bits(a.key[g], rng.NEXT_ROUND, 0, 0)
            dealer = -1
            if t.dealer == _ROTATE:
                dealer = (np.int64(a.dealer[g]) + 1) % p
            a.round_index[g] += 1
            deal(a, t, g, seed, dealer)

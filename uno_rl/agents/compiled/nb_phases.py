"""The compiled heuristics' decisions, phase by phase: :class:`uno_rl.agents.heuristic.HeuristicAgent`
and the two random agents, for the acting seats of a batch of games read from the state.

:func:`decide` splits the games by phase, in ascending phase order as the batched
agent does, and decides each group with the same generator draws in the same order, so it
returns the batched agent's actions (``tests/agents/test_compiled_heuristics.py``), on every
deck (the extended layout's Swap and Shuffle Hands, Discard All, Boomerang and Targeted cards
as :class:`~uno_rl.agents.heuristic.HeuristicAgent` plays them).
"""

from __future__ import annotations

import numpy as np

from uno_rl.core.actions import ACCEPT, CHALLENGE, CHOOSE_COLOR, DRAW, PASS, TARGET
from uno_rl.core.cards import WILD_DRAW_FOUR
from uno_rl.core.compiled.nb_jit import kernel
from uno_rl.core.compiled.nb_pcg64 import (
    block_float32,
    block_float64,
    hop_table,
    seek,
    seek64,
    start_block,
    start_block64,
)
from uno_rl.core.compiled.nb_rules import code
from uno_rl.core.compiled.nb_struct import borrow, unowned
from uno_rl.core.layout import TARGETED_FOUR, TARGETED_TWO
from uno_rl.core.phases import COLOR, DRAWN, JUMP, MULTI, NUM_PHASES, PLAY, RESPOND
from uno_rl.core.phases import TARGET as TARGET_PHASE

from .codes import (
    AGGRESSIVE,
    ATTACK_AT,
    BLUFF,
    BLUFF_ANY,
    BOOMERANG_ACTION,
    BOOMERANG_KIND,
    CHANGES_HANDS,
    COLOR_FIRST,
    DISCARD_ALL_ON,
    FORCED_KIND,
    NO_CAP,
    PLAY_DRAWN,
    RANDOM,
    RANDOM_PLAYABLE,
    RULE,
    STACK,
    STRATEGY,
)
from .nb_challenge import challenges
from .nb_extended_cards import boomerang_answers, hand_gains, hold_back, points_by_color
from .nb_seen import (
    color_counts,
    conditions_hold,
    current_color,
    next_relative,
    size_of,
)
from .nb_strategies import (
    TIE_NOISE,
    best_card,
    inlined,
    most_held,
    naming_draws,
    play_action,
    strategy_draws,
)

_CLASSIC_COLORED = 52
_NO_CURRENT_COLOR = code("draw_four_legal", "no-current-color")
_NO_PLAYABLE_CARD = code("draw_four_legal", "no-playable-card")


@inlined
def read_hand(a, t, g, seat, mask, playable, counts):
    """One pass over the kinds: ``playable`` ((K,) bool) the kinds some legal action of
    ``mask`` ((A,) bool) plays, ``counts`` ((4,) int64) the seat's cards of each color.
    Returns whether a +4-like kind is playable."""
    hands, kind_color = a.hands, t.kind_color
    first_action, action_count, four_like = t.first_action, t.kind_action_count, t.draw_four_like
    for c in range(4):
        counts[c] = 0
    four = False
    start = 0
    if t.classic_direct:  # kinds 0 .. 51: colored, each played by the action of its number
        start = _CLASSIC_COLORED
        hand = hands[g, seat]
        for c in range(4):  # kind = color * 13 + rank: a color's kinds are 13 in a row
            held = 0
            for kind in range(13 * c, 13 * c + 13):
                held += np.int64(hand[kind])
            counts[c] = held
        for kind in range(start):
            playable[kind] = mask[kind]
    for kind in range(start, playable.size):
        c = kind_color[kind]
        if c >= 0:
            counts[c] += hands[g, seat, kind]
        first = first_action[kind]
        legal = mask[first]
        for action in range(first + 1, first + action_count[kind]):
            legal = legal or mask[action]
        playable[kind] = legal
        four = four or (legal and four_like[kind])
    return four


@kernel
def any_four(t, masks, restrict_to_play):
    """Whether a +4-like kind is legal in some row of ``masks`` (k, A); ``restrict_to_play``:
    only in rows where the drawn card may not be kept (the agent keeps it otherwise)."""
    for i in range(masks.shape[0]):
        if restrict_to_play and masks[i, PASS]:
            continue
        for kind in range(t.num_kinds):
            if t.draw_four_like[kind]:
                first = t.first_action[kind]
                for action in range(first, first + t.kind_action_count[kind]):
                    if masks[i, action]:
                        return True
    return False


@kernel
def bluff_forced(a, t, ints, floats, bluff_rows, g, seat, playable, four, counts, coin_draws,
                 i):  # fmt: skip
    """Whether the ``bluff`` coin forces a would-be-bluff +4 in game ``g``; the +4s not
    forced are removed from ``playable`` in place (``HeuristicAgent._bluff_filter``, per
    game; ``four``: a +4-like kind is playable; ``coin_draws`` the group's
    ``rng.random(k)``, empty where it drew none)."""
    kinds = playable.size
    if not t.challenge_enabled or not four:
        return False
    bluff = False
    if t.draw_four_legal == _NO_CURRENT_COLOR:
        c = current_color(a, g)
        bluff = c >= 0 and counts[max(c, 0)] > 0
    else:
        for kind in range(kinds):
            bluff = bluff or (playable[kind] and not t.draw_four_like[kind])
    if not bluff:
        return False
    chance = floats[BLUFF]
    coin = chance >= 1.0
    if coin_draws.size:
        coin = coin_draws[i] < chance
    if chance > 0.0 and coin:
        coin = conditions_hold(a, t, g, seat, bluff_rows, ints[BLUFF_ANY] > 0, counts, True)
    if not coin:
        for kind in range(kinds):
            if t.draw_four_like[kind]:
                playable[kind] = False
    return coin


@kernel
def coin_draws(t, floats, masks, restrict_to_play, rng):
    """The bluff coin's ``rng.random(k)`` where the batched agent draws it (a +4 playable in
    the group, the challenge on, a chance strictly between 0 and 1), else empty."""
    chance = floats[BLUFF]
    if t.challenge_enabled and chance != 0.0 and chance != 1.0:
        if any_four(t, masks, restrict_to_play):
            return rng.random(masks.shape[0])
    return np.empty(0)


@inlined
def threats(a, t, ints, g, seat):
    """(next player, any other player) holds at most ``attack_at`` cards (aggressive)."""
    at = ints[ATTACK_AT]
    threat = size_of(a, t, g, seat, next_relative(a, t, g)) <= at
    fewest = size_of(a, t, g, seat, 1)
    for relative in range(2, t.players):
        fewest = min(fewest, size_of(a, t, g, seat, relative))
    return threat, fewest <= at


@kernel
def decide_cards(a, t, ints, floats, tables, log_held, bluff_rows, challenge_rows, phase,
                 games, seats, masks, caps, rng, in_place, out):  # fmt: skip
    """The phases that choose a card: play (the best card, a forced bluff, or draw), drawn
    (play the drawn card or keep it), respond (challenge, stack with the best allowed card, or
    accept) and multi (go on with the best card of the same number, or stop). ``caps``: the
    ``bayes`` memory's bound per game (:func:`.nb_challenge.bluff_estimate`), or empty.
    Returns a count of no use to callers (see the end)."""
    k, kinds = games.size, t.num_kinds
    bluffs = phase == PLAY or phase == DRAWN
    restrict = phase == DRAWN and not ints[PLAY_DRAWN]
    coins = coin_draws(t, floats, masks, restrict, rng) if bluffs else np.empty(0)
    # In place (uno_rl.core.compiled.nb_pcg64): the rule agent's uniforms and the tie noise
    # are read where a card is playable, into one row for each game in turn.
    if in_place and ints[STRATEGY] == RULE:
        wide = start_block64(rng, k * kinds)
        wide_hops = hop_table(wide, kinds + 1)
        uniform, favorite_noise = np.empty((1, kinds)), np.empty((0, 4))
    else:
        wide, wide_hops = np.empty(0, np.uint64), np.empty((0, 4), np.uint64)
        uniform, favorite_noise = strategy_draws(ints, k, kinds, rng)
    if in_place:
        block = start_block(rng, k * kinds)
        hops = hop_table(block, kinds // 2 + 2)
        noise = np.empty((1, kinds), np.float32)
    else:
        block, hops = np.empty(0, np.uint64), np.empty((0, 4), np.uint64)
        noise = rng.random((k, kinds), dtype=np.float32)
    names = phase != MULTI or t.extended  # a classic multi-play names no color, draws nothing
    naming_noise, random = naming_draws(ints, k, rng) if names else (
        np.empty((0, 4)), np.empty(0, np.int64))  # fmt: skip
    playable = np.empty(kinds, np.bool_)
    allowed = np.empty(kinds, np.bool_)
    counts = np.empty(4, np.int64)
    color_points = np.zeros(4)
    # Every array passed unowned: the per-game helpers inlined below would otherwise count
    # references to each array they touch, game after game.
    decide_card_rows(a, t, unowned(ints), unowned(floats), unowned(tables), unowned(log_held),
                     unowned(bluff_rows), unowned(challenge_rows), phase, unowned(games),
                     unowned(seats), unowned(masks), unowned(caps), unowned(coins),
                     unowned(uniform), unowned(wide), unowned(wide_hops), unowned(favorite_noise),
                     unowned(noise), unowned(block), unowned(hops), unowned(naming_noise),
                     unowned(random), unowned(playable), unowned(allowed), unowned(counts),
                     unowned(color_points), unowned(out))  # fmt: skip
    # Read after the call, the arrays live until it returns (numba frees each after its last
    # use, and an unowned view does not count as one).
    return (coins.size + uniform.size + wide.size + wide_hops.size + favorite_noise.size
            + noise.size + block.size + hops.size + naming_noise.size + random.size
            + playable.size + allowed.size + counts.size + color_points.size)  # fmt: skip


@kernel
def decide_card_rows(a, t, ints, floats, tables, log_held, bluff_rows, challenge_rows, phase,
                     games, seats, masks, caps, coins, uniform, wide, wide_hops,
                     favorite_noise, noise, block, hops, naming_noise, random, playable, allowed,
                     counts, color_points, out):  # fmt: skip
    """:func:`decide_cards` game by game, its generator draws made (``coins``, ``uniform``,
    ``favorite_noise``, ``noise``, ``naming_noise``, ``random``) and its work arrays given
    (``playable``, ``allowed``, ``counts``, ``color_points``). Where ``block`` (``wide``) is
    not empty, ``noise`` (``uniform``) is one row, filled game by game from that block of the
    generator (``hops``, ``wide_hops``: their hop tables)."""
    k, kinds = games.size, t.num_kinds
    bluffs = phase == PLAY or phase == DRAWN
    restrict = phase == DRAWN and not ints[PLAY_DRAWN]
    strategy = ints[STRATEGY]
    changes_hands = ints[CHANGES_HANDS] > 0
    for i in range(k):
        g, seat, mask = games[i], seats[i], masks[i]
        four = read_hand(a, t, g, seat, mask, playable, counts)
        if ints[DISCARD_ALL_ON]:
            points_by_color(a, t, tables, g, seat, color_points)
        swap_gain, shuffle_gain = hand_gains(a, t, g, seat) if changes_hands else (0, 0)
        forced, challenge_now, boomerang = False, False, False
        if phase == DRAWN:
            allowed[:] = playable
            if restrict and mask[PASS]:
                playable[:] = False
                four = False
        if bluffs:
            # Called only with a +4 to play (a few games in a hundred): inlined, or called
            # in every game, it added about 100 ns to every decision.
            forced = (
                four
                and t.challenge_enabled
                and bluff_forced(
                    a, t, ints, floats, bluff_rows, g, seat, playable, four, counts, coins, i
                )
            )
            if changes_hands:
                fallback = mask[DRAW] if phase == PLAY else mask[PASS]
                hold_back(a, t, tables, g, seat, playable, fallback, swap_gain, shuffle_gain)
        if phase == DRAWN and not mask[PASS] and not forced and not playable.any():
            playable[:] = allowed  # must-play: the drawn card is the only legal action
        if phase == RESPOND:
            if mask[CHALLENGE]:
                cap = caps[i] if caps.shape[0] else NO_CAP
                challenge_now = challenges(a, t, ints, floats, tables, challenge_rows, g, seat,
                                           cap)  # fmt: skip
            if ints[BOOMERANG_KIND] >= 0:  # it answers, it is never stacked
                boomerang = mask[ints[BOOMERANG_ACTION]] and boomerang_answers(a, t, ints, g,
                                                                                seat)  # fmt: skip
                playable[ints[BOOMERANG_KIND]] = False
            if not ints[STACK]:
                playable[:] = False
        favorite = 0
        if strategy == COLOR_FIRST or strategy == AGGRESSIVE:
            favorite = most_held(counts, favorite_noise, i)
        threat, threat_any = False, False
        if strategy == AGGRESSIVE:
            threat, threat_any = threats(a, t, ints, g, seat)
        row = i
        if block.size:
            row = 0
            seek(block, hops, i * kinds)
            for kind in range(kinds):
                if playable[kind]:
                    noise[0, kind] = block_float32(block, hops, i * kinds + kind)
        if wide.size:
            seek64(wide, wide_hops, i * kinds)
            for kind in range(kinds):
                if playable[kind]:
                    uniform[0, kind] = block_float64(wide, wide_hops, i * kinds + kind)
        kind, has = best_card(t, ints, tables, log_held, a.hands[g, seat], playable, favorite,
                              uniform, noise, row, threat, threat_any, counts, color_points,
                              swap_gain, shuffle_gain)  # fmt: skip
        if forced:
            targeted = ints[FORCED_KIND]
            kind = targeted if playable[targeted] else WILD_DRAW_FOUR
        if boomerang:
            out[i] = ints[BOOMERANG_ACTION]
        elif phase == MULTI and not t.extended:
            out[i] = t.first_action[kind] if has else PASS
        elif phase == MULTI:
            out[i] = play_action(t, ints, kind, counts, naming_noise, random, i) if has else PASS
        elif phase == RESPOND and challenge_now:
            out[i] = CHALLENGE
        elif has or forced:
            out[i] = play_action(t, ints, kind, counts, naming_noise, random, i)
        else:
            out[i] = DRAW if phase == PLAY else (PASS if phase == DRAWN else ACCEPT)


@kernel
def decide_target(a, t, games, seats, masks, rng, out):
    """The target phase: a swap partner (the legal seat holding the fewest cards, ties at
    random) or a targeted draw's victim (the fewest cards, ties to the one playing first)
    (:func:`uno_rl.agents.targets.choose_target`)."""
    others, p = t.players - 1, t.players
    noise = rng.random((games.size, others))
    for i in range(games.size):
        g, seat = games[i], seats[i]
        effect = t.effect_rank[max(np.int64(a.top[g]), 0)]
        targeted = effect == TARGETED_TWO or effect == TARGETED_FOUR
        best, choice = np.inf, 0
        for j in range(others):
            value = np.inf
            if masks[i, TARGET + j]:
                size = np.float64(size_of(a, t, g, seat, j + 1))
                if targeted:
                    order = j + 1 if a.direction[g] >= 0 else (-(j + 1)) % p
                    value = size * p + order
                else:
                    value = size + noise[i, j] * TIE_NOISE
            if value < best:
                best, choice = value, j
        out[i] = TARGET + choice


@kernel
def decide_color(a, t, ints, games, seats, rng, out):
    """The color phase (a first-card Wild): the color held most (``rule``: a random one)."""
    naming_noise, random = naming_draws(ints, games.size, rng)
    counts = np.empty(4, np.int64)
    for i in range(games.size):
        color_counts(a, t, games[i], seats[i], counts)
        color = most_held(counts, naming_noise, i)
        out[i] = CHOOSE_COLOR + (random[i] if random.size else color)


@kernel
def decide_jump(a, t, ints, games, seats, masks, rng, out):
    """The jump-in phase: jump in with the first card that may (classic layout: the first
    colored card, no draws; extended: any card, naming the color held most)."""
    naming_noise, random = naming_draws(ints, games.size, rng) if t.extended else (
        np.empty((0, 4)), np.empty(0, np.int64))  # fmt: skip
    counts = np.empty(4, np.int64)
    for i in range(masks.shape[0]):
        out[i] = PASS
        for kind in range(t.num_kinds):
            first = t.first_action[kind]
            legal = False
            for action in range(first, first + t.kind_action_count[kind]):
                legal = legal or masks[i, action]
            if legal and (t.extended or t.kind_color[kind] >= 0):
                out[i] = first
                if t.extended:
                    color_counts(a, t, games[i], seats[i], counts)
                    out[i] = play_action(t, ints, kind, counts, naming_noise, random, i)
                break


@kernel
def random_actions(ints, masks, rng, out):
    """``random`` and ``random-playable``: a uniformly random legal action (playable cards
    first), one ``rng.random(k)`` draw (:func:`uno_rl.core.sampling.sample_legal_actions`).
    Returns the first row without a legal action, or -1."""
    k, width = masks.shape
    uniforms = rng.random(k)
    legal = np.empty(width, np.int64)
    for i in range(k):
        count = 0
        for action in range(width):
            if masks[i, action] and (
                ints[STRATEGY] == RANDOM or (action != DRAW and action != PASS)
            ):
                legal[count] = action
                count += 1
        if count == 0:
            for action in range(width):
                if masks[i, action]:
                    legal[count] = action
                    count += 1
        if count == 0:
            return i
        out[i] = legal[np.int64(uniforms[i] * count)]
    return -1


@kernel
def decide(a, t, ints, floats, tables, log_held, bluff_rows, challenge_rows, games, masks,
           caps, rng, in_place, out):  # fmt: skip
    """Into ``out`` ((k,) int64): the agent's actions in games ``games`` ((k,) int64) with legal
    ``masks`` ((k, A) bool) and ``bayes`` memory bounds ``caps`` ((k,) int64, or empty: no
    memory). Returns -1, or the first row whose phase has no decision (for a random agent: no
    legal action)."""
    strategy = ints[STRATEGY]
    if strategy == RANDOM or strategy == RANDOM_PLAYABLE:
        return random_actions(ints, masks, rng, out)
    k = games.size
    phases = np.empty(k, np.int64)
    in_phase = np.zeros(NUM_PHASES, np.int64)
    for i in range(k):
        phases[i] = a.phase[games[i]]
        in_phase[phases[i]] += 1
    for phase in range(NUM_PHASES):
        if in_phase[phase] == 0:
            continue
        if in_phase[phase] == k:  # one group: no copies (the common case in play-outs)
            rows, group, group_masks, group_caps, actions = phases[:0], games, masks, caps, out
        else:
            rows = np.flatnonzero(phases == phase)
            group, group_masks = games[rows], masks[rows]
            group_caps = caps[rows] if caps.shape[0] else caps
            actions = np.empty(rows.size, np.int64)
        m = group.size
        seats = np.empty(m, np.int64)
        for i in range(m):
            seats[i] = a.actor[group[i]]
        if phase == PLAY or phase == DRAWN or phase == RESPOND or phase == MULTI:
            decide_cards(a, t, ints, floats, tables, log_held, bluff_rows, challenge_rows, phase,
                         group, seats, group_masks, group_caps, rng, in_place, actions)  # fmt: skip
        elif phase == TARGET_PHASE:
            decide_target(a, t, group, seats, group_masks, rng, actions)
        elif phase == COLOR:
            decide_color(a, t, ints, group, seats, rng, actions)
        elif phase == JUMP:
            decide_jump(a, t, ints, group, seats, group_masks, rng, actions)
        else:
            return rows[0] if rows.size else 0
        for i in range(rows.size):
            out[rows[i]] = actions[i]
    return -1


@kernel
def heuristic_actions_kernel(a, t, ints, floats, tables, log_held, bluff_rows, challenge_rows,
                             games, masks, caps, rng, in_place, out):  # fmt: skip
    """:func:`decide` with the state and rules borrowed (no reference counting)."""
    a, t = borrow(a), borrow(t)  # and the arrays unowned: no reference counts below
    return decide(a, t, unowned(ints), unowned(floats), unowned(tables), unowned(log_held),
                  unowned(bluff_rows), unowned(challenge_rows), unowned(games), unowned(masks),
                  unowned(caps), rng, in_place, unowned(out))  # fmt: skip

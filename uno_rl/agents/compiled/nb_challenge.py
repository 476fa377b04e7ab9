"""When a compiled heuristic challenges a +4: the ``challenge`` policies of
:mod:`uno_rl.agents.challenge` (never, always, threshold, bayes), gated by the challenge
conditions, for one game (``g``, the acting ``seat``). The ``bayes`` memory stays batched:
what it knows arrives as ``cap``, the +4 player's cards that can be of the color it left
(:func:`uno_rl.agents.challenge.memory_caps`)."""

from __future__ import annotations

import numpy as np

from uno_rl.core.compiled.nb_jit import kernel
from uno_rl.core.compiled.nb_rules import code

from .codes import (
    ALWAYS,
    BAYES,
    BREAK_EVEN,
    CHALLENGE_ANY,
    CHALLENGE_COLOR,
    CHALLENGE_HAND,
    CHALLENGE_POLICY,
    COPIES,
    NEVER,
)
from .nb_seen import (
    color_counts,
    conditions_hold,
    current_color,
    draw_four_player,
    previous_color,
    size_of,
)

_NO_PLAYABLE_CARD = code("draw_four_legal", "no-playable-card")


@kernel
def bluff_estimate(a, t, tables, g, seat, cap):
    """The probability that the +4 on top of game ``g`` was a bluff, from what ``seat`` has
    seen (:func:`uno_rl.agents.challenge.bluff_estimate`), over at most ``cap`` of the +4
    player's cards (a large ``cap``: no memory)."""
    before = previous_color(a, t, g)
    player = draw_four_player(a, t, g, seat)
    if before < 0 or player <= 0:
        return 0.0
    unseen_bluff, unseen_total = 0.0, 0.0
    no_playable = t.draw_four_legal == _NO_PLAYABLE_CARD
    for kind in range(t.num_kinds):
        held = np.float64(a.hands[g, seat, kind])
        unseen = max(tables[COPIES, kind] - held - np.float64(a.discard[g, kind]), 0.0)
        unseen_total += unseen
        if t.kind_color[kind] == before or (no_playable and t.always_playable[kind]):
            unseen_bluff += unseen
    cards = min(size_of(a, t, g, seat, player), cap, np.int64(unseen_total))
    none = 1.0
    for i in range(cards):
        ratio = (unseen_total - unseen_bluff - i) / (unseen_total - i)
        none *= min(max(ratio, 0.0), 1.0)
    return 1.0 - none


@kernel
def challenges(a, t, ints, floats, tables, challenge_rows, g, seat, cap):
    """Whether the agent challenges the +4 in game ``g`` (``challenge.challenge_decisions``,
    before the legal mask); ``cap``: the ``bayes`` memory's bound (:func:`bluff_estimate`)."""
    policy = ints[CHALLENGE_POLICY]
    if policy == NEVER or not t.challenge_enabled:
        return False
    if challenge_rows.shape[0]:
        counts = np.empty(4, np.int64)
        color_counts(a, t, g, seat, counts)
        if not conditions_hold(a, t, g, seat, challenge_rows, ints[CHALLENGE_ANY] > 0, counts,
                               False):  # fmt: skip
            return False
    if policy == ALWAYS:
        return True
    if policy == BAYES:
        return bluff_estimate(a, t, tables, g, seat, cap) > floats[BREAK_EVEN]
    their = size_of(a, t, g, seat, max(draw_four_player(a, t, g, seat), 0))
    hand = ints[CHALLENGE_HAND]
    decide = hand > 0 and their >= hand
    if ints[CHALLENGE_COLOR]:
        before = previous_color(a, t, g)
        decide = decide or (current_color(a, g) == before and before >= 0)
    return decide

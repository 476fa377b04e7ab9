"""Card effects: what a played card does once its play is over (the batched engine).

:func:`finish_play` resolves the card that ends a seat's play through one table,
:data:`CARD_EFFECTS`: the card's effect symbol (:attr:`Rules.effect_rank
<uno_rl.core.rules.Rules.effect_rank>`: its rank, a Customizable's is its bound card's)
names its handler; a card with no entry (a number, a Wild, a Discard All, a Boomerang: what
they do happens as they are laid, in :mod:`.card_moves`) hands over to the next seat. The
handlers live with the other cards of their kind:

* :mod:`.draw_penalties`: +2, +4, Targeted +2 / +4, Downpour +1 / +2, Hit 2, Wild Hit-Fire,
  Wild All Hit, and the victims' answers (accept, challenge, the victim of a targeted draw);
* :mod:`.turn_order`: Skip, Reverse, and what a Boomerang sends back;
* :mod:`.hand_changes`: the 7 and 0 of seven-zero, Wild Swap Hands, Wild Shuffle Hands,
  Discard All;
* :mod:`.dispenser`: the presses of the hit cards.

A handler is ``handler(s, g, seats, kinds, rank, count, next_actor, next_phase)`` over the
games whose card has its symbol (``s``, ``g``, ``seats``: the core's conventions,
:mod:`uno_rl.core`; ``seats`` the players of the cards), ``kinds``
(k,) int64 the card kinds, ``rank`` (k,) int8 their effect symbols, ``count`` (k,) int64 the
cards of that symbol played together under ``multi_play_actions`` (None otherwise: one
card each). It writes the hand-over in place: ``next_actor`` (k,) int8 (the next seat on
entry) and ``next_phase`` (k,) int8 (``PLAY`` on entry, :data:`.turn_order.NO_HANDOVER`
where the handler has itself said who acts or ended the round). The handler acts on the
game state; :func:`finish_play` then hands over (:func:`~uno_rl.core.turns.end_turn`,
maybe through a jump-in window).

The names the engine step uses for the other decisions are re-exported here: the answers
to a draw card (:func:`accept`, :func:`challenge`), to a target phase (:func:`swap_hands`,
:func:`target_draw`) and what a last card still does (:func:`play_last_card`).
"""

from __future__ import annotations

import numpy as np

from .cards import DRAW_TWO_RANK, KIND_RANK, REVERSE_RANK, SKIP_RANK, WILD_DRAW_FOUR
from .draw_penalties import (
    accept,
    challenge,
    downpour,
    draw_penalty,
    hits,
    play_last_card,
    target_draw,
    targeted,
)
from .hand_changes import seven, shuffle_hands, swap_card, swap_hands, zero
from .layout import (
    ALL_HIT,
    DOWNPOUR_ONE,
    DOWNPOUR_TWO,
    HIT_FIRE,
    HIT_TWO,
    SHUFFLE_HANDS,
    SWAP_HANDS,
    SYMBOLS,
    TARGETED_FOUR,
    TARGETED_TWO,
)
from .phases import PLAY
from .state import State
from .turn_order import NO_HANDOVER, reverse, skip
from .turns import end_turn
from .views import next_seat

__all__ = [
    "CARD_EFFECTS",
    "accept",
    "challenge",
    "finish_play",
    "play_last_card",
    "swap_hands",
    "target_draw",
]

#: Effect symbol -> its handler (the module docstring says what a handler does). The 7 and
#: the 0 have theirs only under ``seven_zero``.
CARD_EFFECTS = {
    0: zero,
    7: seven,
    SKIP_RANK: skip,
    REVERSE_RANK: reverse,
    DRAW_TWO_RANK: draw_penalty,
    int(KIND_RANK[WILD_DRAW_FOUR]): draw_penalty,
    TARGETED_TWO: targeted,
    TARGETED_FOUR: targeted,
    DOWNPOUR_ONE: downpour,
    DOWNPOUR_TWO: downpour,
    HIT_TWO: hits,
    HIT_FIRE: hits,
    ALL_HIT: hits,
    SWAP_HANDS: swap_card,
    SHUFFLE_HANDS: shuffle_hands,
}

#: The distinct handlers, and for each symbol the position of its handler there (-1: none),
#: without and with ``seven_zero``: one lookup sorts a batch's cards by handler.
_HANDLERS = tuple(dict.fromkeys(CARD_EFFECTS.values()))
_HANDLER_OF = np.full(max(SYMBOLS) + 1, -1, np.int64)
for _symbol, _handler in CARD_EFFECTS.items():
    _HANDLER_OF[_symbol] = _HANDLERS.index(_handler)
_HANDLER_OF_SEVEN_ZERO = {True: _HANDLER_OF, False: _HANDLER_OF.copy()}
_HANDLER_OF_SEVEN_ZERO[False][[0, 7]] = -1


def finish_play(
    s: State, g: np.ndarray, seats: np.ndarray, kinds: np.ndarray, count: np.ndarray | None = None
) -> None:
    """Effects of the card that ends ``seats``' play (``count`` cards of its symbol, 1 when
    None), then hand over (maybe via jump-in)."""
    if not g.size:
        return
    rank = s.rules.effect_rank[kinds]
    # count stays None on the common path (one card): the effects then skip the per-card
    # arithmetic of combinations.
    count = None if count is None or not s.rules.multi_play_actions else count.astype(np.int64)
    next_actor = next_seat(s, g, seats)
    next_phase = np.full(g.size, PLAY, np.int8)
    which = _HANDLER_OF_SEVEN_ZERO[s.rules.seven_zero][rank]
    present = np.bincount(which + 1, minlength=len(_HANDLERS) + 1)[1:]
    for index in np.flatnonzero(present):
        rows = np.flatnonzero(which == index)
        actor, phase = next_actor[rows], next_phase[rows]
        rows_count = None if count is None else count[rows]
        _HANDLERS[index](s, g[rows], seats[rows], kinds[rows], rank[rows], rows_count, actor, phase)
        next_actor[rows], next_phase[rows] = actor, phase
    if present.any():
        handed = next_phase != NO_HANDOVER
        if not handed.all():
            g, seats = g[handed], seats[handed]
            next_actor, next_phase = next_actor[handed], next_phase[handed]
    end_turn(s, g, seats, next_actor, next_phase)

"""Answering a pending draw or Skip: when a heuristic sends it back with a Boomerang.

In the respond phase a heuristic challenges a +4 by its ``challenge`` policy
(:mod:`.challenge`), stacks or cancels with its best-ranked allowed card when ``stack``
(:class:`~.heuristic.HeuristicAgent`), else accepts; on a deck with Boomerangs (rules
specification §11), the Boomerang answer of :func:`boomerang_answers` comes before all of
those: it returns the cards for sure. A Boomerang is never stacked as a plain card.
"""

from __future__ import annotations

import functools

import numpy as np

from uno_rl.core.layout import BOOMERANG, TARGETED_TWO, Layout
from uno_rl.core.rules import Rules

from .view import ObservationView

__all__ = ["CLOSE_TO_OUT", "boomerang_answers", "boomerang_play"]

#: A player "close to going out" holds at most this many cards (the aggressive agent uses its
#: ``attack_at`` instead).
CLOSE_TO_OUT = 2


@functools.cache
def boomerang_play(layout: Layout) -> tuple[int, int] | None:
    """(kind, action) of the layout's Boomerang; None where the layout has none."""
    kinds = layout.kinds_of(BOOMERANG)
    if not kinds.size:
        return None
    return int(kinds[0]), int(layout.first_action[kinds[0]])


def boomerang_answers(view: ObservationView, rules: Rules, close: int) -> np.ndarray:
    """(k,) bool: answer the pending Skip or draw with a Boomerang (where one is legal).

    Always against a draw of 4 or more. Against a Skip or a draw of 2 or 3 when the player
    is close to going out (at most ``close`` cards), or when the card's player is: the
    previous player for a Skip or +2, the ``draw4_player`` piece for a Targeted +4. The
    observation does not say who played a Targeted +2, so only the first test applies there.
    """
    k = view.num_games
    rows = np.arange(k)
    effect = rules.effect_rank[np.maximum(view.top, 0)]
    cause = np.where(view.draw4_player > 0, view.draw4_player, view.previous_seat)
    known = effect != TARGETED_TWO
    cause_close = known & (view.hand_sizes[rows, cause] <= close)
    me_close = view.hand_sizes[:, 0] <= close
    return (view.pending >= 4) | cause_close | me_close

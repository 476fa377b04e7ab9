"""Card legality shared by the masks and the step: which cards match, which +4 is a bluff,
whether a drawn card may be played, and the last-card switch.

Each helper takes ``s`` and ``g``; ``hand`` is the (k, K) int8 hand of the seat concerned
in each game (conventions: :mod:`uno_rl.core`). Every table comes from ``s.rules.layout``.
"""

from __future__ import annotations

import numpy as np

from .state import State
from .views import flat_view, hand_of, seat_rows


def matches(s: State, g: np.ndarray) -> np.ndarray:
    """(k, K) bool: colored kinds matching the current color or the top card's symbol."""
    rows = s.rules.layout.match_rows
    return np.take(rows, s.top[g].astype(np.int64) * 5 + s.color[g] + 1, axis=0)


def draw_four_legal(s: State, g: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """(k,) bool: a +4 (or Targeted +4) from a player holding ``hand`` (k, K) is legal (not
    a bluff): no colored card of the current color (``no-current-color``), or no playable
    card (``no-playable-card``: no matching colored card, and no card that names a color
    but the +4 kinds: a Wild, and in the extended layout the new wilds)."""
    layout = s.rules.layout
    held = hand > 0
    color = s.color[g].astype(np.int64)
    if s.rules.draw_four_legal == "no-current-color":
        same = layout.kind_color[None, :] == color[:, None]
        return ~(held & same).any(axis=1) | (color < 0)
    wild = held[:, layout.always_playable_kinds].any(axis=1)
    return ~((held & matches(s, g)).any(axis=1) | wild)


def playable(s: State, g: np.ndarray, seats: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """(k,) bool: card ``kinds`` may be played by ``seats`` in the play phase."""
    layout = s.rules.layout
    kinds = kinds.astype(np.int64)
    ok = layout.names_color[kinds] & ~layout.draw_four_like[kinds]
    colored = layout.kind_color[kinds] >= 0
    ok[colored] = layout.matches[s.top[g[colored]], s.color[g[colored]], kinds[colored]]
    d4 = layout.draw_four_like[kinds]
    if d4.any():
        if s.rules.challenge_enabled:
            ok[d4] = True
        else:
            ok[d4] = draw_four_legal(s, g[d4], hand_of(s, g[d4], seats[d4]))
    return ok


def last_card_filter(s: State, g: np.ndarray, cards_ok: np.ndarray) -> None:
    """Apply the last-card switch to the (k, K) playable flags of games ``g`` in place."""
    rule = s.rules.last_card
    if rule == "any":
        return
    last = flat_view(s.hand_size)[seat_rows(s, g, s.actor[g])] == 1
    layout = s.rules.layout
    banned = layout.draw_four_kinds if rule == "no-draw-four" else layout.colorless_kinds
    cards_ok[np.ix_(last, banned)] = False

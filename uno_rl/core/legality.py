"""Card legality shared by the masks and the step: which cards match, which +4 is a bluff,
whether a drawn card may be played, and the last-card switch.

Each helper takes a :class:`~uno_rl.core.state.State` and ``g``, a (k,) int64 index array of
distinct games; ``hand`` is the (k, K) int8 hand of the seat concerned in each game.
"""

from __future__ import annotations

import numpy as np

from .cards import NUM_KINDS, WILD, WILD_DRAW_FOUR
from .state import State
from .tables import MATCH_ROWS
from .views import flat_view, hand_of, seat_rows


def matches(s: State, g: np.ndarray) -> np.ndarray:
    """(k, K) bool: colored kinds matching the current color or the top card's symbol."""
    rows = s.rules.layout.match_rows if s.hands.shape[2] != NUM_KINDS else MATCH_ROWS
    return np.take(rows, s.top[g].astype(np.int64) * 5 + s.color[g] + 1, axis=0)


def draw_four_legal(s: State, g: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """(k,) bool: a +4 (or Targeted +4) from a player holding ``hand`` (k, K) is legal (not
    a bluff). In the extended layout every colored kind counts, and under
    ``no-playable-card`` every card that names a color too (a Wild does in the classic)."""
    layout = s.rules.layout
    if layout.num_kinds != NUM_KINDS:
        held = hand > 0
        color = s.color[g].astype(np.int64)
        if s.rules.draw_four_legal == "no-current-color":
            same = layout.kind_color[None, :] == color[:, None]
            return ~(held & same).any(axis=1) | (color < 0)
        wilds = layout.names_color & ~layout.draw_four_like
        return ~((held & matches(s, g)).any(axis=1) | (held & wilds[None, :]).any(axis=1))
    held = hand[:, :52] > 0
    if s.rules.draw_four_legal == "no-current-color":
        color = s.color[g].astype(np.int64)
        per_color = held.reshape(-1, 4, 13).any(axis=2)
        return ~per_color[np.arange(g.size), np.maximum(color, 0)] | (color < 0)
    return ~((held & matches(s, g)[:, :52]).any(axis=1) | (hand[:, WILD] > 0))


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
    """Apply the last-card switch to the (k, 54) playable flags of games ``g`` in place."""
    rule = s.rules.last_card
    if rule == "any":
        return
    last = flat_view(s.hand_size)[seat_rows(s, g, s.actor[g])] == 1
    layout = s.rules.layout
    if layout.num_kinds == NUM_KINDS:
        cards_ok[last, WILD_DRAW_FOUR] = False
        if rule == "no-wild":
            cards_ok[last, WILD] = False
        return
    banned = layout.draw_four_like if rule == "no-draw-four" else layout.kind_color < 0
    cards_ok[np.ix_(last, banned)] = False

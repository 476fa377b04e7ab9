"""Text rendering of one game: a readable table with ANSI-colored cards.

:func:`render_text` shows the top card and the current color, the direction of play, the
draw pile, pending draws, every player's hand size (and match score), who acts and in which
phase, and one seat's view: the viewer's hand (by default the player to act) and, when the
viewer is to act, their legal actions and the card they just drew. Nothing else hidden is
ever shown (no other hand, not the draw pile's order, no seed), so the text is what the
viewer may see. Cards are colored with ANSI escape codes
(red, yellow, green, blue; wilds in bold); pass ``color=False`` for plain text, and
:func:`strip_ansi` removes the codes from a rendered string.

Example (colors removed)::

    UNO uno_v1 | 2 players | decision 3
    top card: [red 7]  color: red  direction: clockwise  draw pile: 92  pending draw: 0
      player_0   7 cards
    > player_1   8 cards   to act, phase 'play'
    hand of player_1: [red 1] [red 7] [yellow skip] [wild] ...
    legal: 1 (play red 1), 7 (play red 7), 52 (wild naming red), ..., 60 (draw)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from uno_rl.core import engine
from uno_rl.core.actions import action_name
from uno_rl.core.cards import COLOR_NAMES, KIND_COLOR, NUM_KINDS, card_name
from uno_rl.core.phases import DRAWN, OVER, PHASE_NAMES
from uno_rl.core.state import State
from uno_rl.terminal.safe import printable

__all__ = ["color_card", "present", "render_text", "strip_ansi"]

#: ANSI foreground codes of red, yellow, green, blue.
_COLOR_CODES = ("31", "33", "32", "34")
_WILD_CODE = "1;35"
_RESET = "\x1b[0m"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _paint(text: str, code: str, color: bool) -> str:
    return f"\x1b[{code}m{text}{_RESET}" if color else text


def color_card(kind: int, color: bool = True, count: int = 1) -> str:
    """``[red 7]`` (``[red 7] x2`` for two copies), colored by the card's color."""
    c = int(KIND_COLOR[kind])
    text = f"[{card_name(kind)}]"
    text = _paint(text, _COLOR_CODES[c] if c >= 0 else _WILD_CODE, color)
    return text if count == 1 else f"{text} x{count}"


def strip_ansi(text: str) -> str:
    """``text`` without ANSI escape codes."""
    return _ANSI.sub("", text)


def render_text(
    state: State,
    game: int = 0,
    names: Sequence[str] | None = None,
    title: str = "UNO",
    color: bool = True,
    show_hand: bool = True,
    viewer: int | None = None,
) -> str:
    """A readable multi-line picture of game ``game`` of ``state``.

    Args:
        state: the batched state.
        game: which game of the batch.
        names: player names by seat (default ``player_0`` ...); control characters are
            escaped (:func:`uno_rl.terminal.safe.printable`).
        title: first word of the header line.
        color: ANSI colors on.
        show_hand: also show the viewer's hand (and, if the viewer is to act, the card just
            drawn and the legal actions); other hands are never shown.
        viewer: the seat whose view this is; ``None``: the player to act.
    """
    s, i = state, game
    p = s.rules.players
    names = (
        [printable(n) for n in names] if names is not None else [f"player_{k}" for k in range(p)]
    )
    phase = int(s.phase[i])
    over = phase == OVER
    actor = int(s.actor[i])
    cur = int(s.color[i])
    color_text = _paint(COLOR_NAMES[cur], _COLOR_CODES[cur], color) if cur >= 0 else "none yet"
    direction = "clockwise" if s.direction[i] > 0 else "counter-clockwise"
    header = f"{title} | {p} players | decision {int(s.turn[i])}"
    if s.rules.match:
        header += f" | round {int(s.round_index[i]) + 1} of a match to {s.rules.match_target}"
    lines = [
        header,
        f"top card: {color_card(int(s.top[i]), color)}  color: {color_text}  "
        f"direction: {direction}  draw pile: {int(s.pile_size[i])}  "
        f"pending draw: {int(s.pending[i])}",
    ]
    width = max(len(n) for n in names)
    for seat in range(p):
        mark = ">" if seat == actor and not over else " "
        size = int(s.hand_size[i, seat])
        row = f"{mark} {names[seat]:<{width}}  {size:2d} card{'s' if size != 1 else ' '}"
        if s.rules.match:
            row += f"  score {int(s.scores[i, seat])}"
        if seat == actor and not over:
            row += f"  to act, phase '{PHASE_NAMES[phase]}'"
        if seat == int(s.winner[i]):
            row += "  WINNER"
        lines.append(row)
    if over:
        if bool(s.truncated[i]):
            lines.append(f"round over: truncated at max_turns={s.rules.max_turns} (a draw)")
        elif s.winner[i] >= 0:
            lines.append(f"round over: {names[int(s.winner[i])]} wins")
    elif show_hand:
        seat = actor if viewer is None else int(viewer)
        hand = s.hands[i, seat]
        cards = " ".join(
            color_card(k, color, int(hand[k])) for k in range(NUM_KINDS) if hand[k] > 0
        )
        lines.append(f"hand of {names[seat]}: {cards}")
        if seat == actor:
            if phase == DRAWN:
                lines.append(f"just drew: {color_card(int(s.drawn[i]), color)}")
            legal = np.flatnonzero(engine.legal_mask(s)[i])
            lines.append("legal: " + ", ".join(f"{a} ({action_name(a)})" for a in legal))
    return "\n".join(lines)


def present(text: str, render_mode: str) -> str | None:
    """What an env's ``render()`` gives: the text in ``"ansi"`` mode; printed in ``"human"``."""
    if render_mode == "ansi":
        return text
    print(text + "\n")
    return None

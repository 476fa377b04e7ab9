"""Colored text for the terminal programs: cards, color names, emphasis; or plain text.

Cards are drawn as :func:`uno_rl.render.text.color_card` draws them (the same look as the
envs' ``render()``), by the names of the deck's layout (:attr:`Rules.layout
<uno_rl.core.rules.Rules.layout>`): ``[red 7]``, ``[blue discard all]``, ``[wild swap hands]``,
colorless cards in magenta; this module adds color names, bold text and the decision of
whether to color at all (:func:`use_color`: on for a terminal unless ``NO_COLOR`` is set or
``--no-color``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TextIO

import numpy as np

from uno_rl.core.cards import COLOR_NAMES
from uno_rl.core.layout import EXTENDED, Layout
from uno_rl.render.text import color_card

__all__ = ["Style", "use_color"]

#: ANSI foreground codes of red, yellow, green, blue (as in uno_rl.render.text), and of the
#: colorless cards.
_COLOR_CODES = ("31", "33", "32", "34")
_WILD_CODE = "1;35"


def use_color(stream: TextIO, disabled: bool = False) -> bool:
    """Color output on ``stream``: a terminal, no ``--no-color``, no ``NO_COLOR`` variable."""
    if disabled or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Style:
    """Text pieces, ANSI-colored when ``color`` is True.

    Args:
        color: emit ANSI escape codes.
        layout: the card kinds named (default the extended layout, whose first 54 kinds are
            the classic ones: it draws the cards of every deck).
    """

    def __init__(self, color: bool = True, layout: Layout = EXTENDED):
        self.color = color
        self.layout = layout

    def _paint(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def card(self, kind: int, count: int = 1) -> str:
        """``[red 7]``, or ``[red 7] x2`` for two copies (``[wild hit-fire]``: a new card).

        Raises:
            ValueError: ``kind`` is not a kind of the layout.
        """
        k = int(kind)
        if not 0 <= k < self.layout.num_kinds:
            self.layout.card_name(k)  # raises the layout's error, which names its kinds
        return color_card(k, self.color, count, self.layout)

    def cards(self, counts: np.ndarray) -> str:
        """A hand given as (K,) counts per kind (K: the layout's kinds), in kind order;
        ``(none)`` if empty."""
        counts = np.asarray(counts)
        shown = [self.card(int(k), int(counts[k])) for k in np.flatnonzero(counts > 0)]
        return " ".join(shown) if shown else "(none)"

    def card_list(self, kinds: Iterable[int]) -> str:
        """Cards given as a sequence of kinds."""
        return " ".join(self.card(k) for k in kinds)

    def color_name(self, color: int) -> str:
        """``red``, colored red; ``none yet`` for -1."""
        if color < 0:
            return "none yet"
        return self._paint(COLOR_NAMES[color], _COLOR_CODES[color])

    def bold(self, text: str) -> str:
        return self._paint(text, "1")

    def dim(self, text: str) -> str:
        return self._paint(text, "2")

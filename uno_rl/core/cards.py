"""The classic card kinds, their lookup tables and the classic deck.

These are the classic layout's K = 54 kinds; the extended layout keeps them as its first 54
and adds the 21 of rules specification §11 after them (:mod:`.layout`, whose tables the
engine reads: ``rules.layout``). A classic card *kind* is an integer in ``[0, 54)``:

========  =============================================================
kind      meaning
========  =============================================================
0 .. 51   colored card: ``kind = color * 13 + rank``
52        Wild
53        Wild Draw Four (+4)
========  =============================================================

Colors: 0 red, 1 yellow, 2 green, 3 blue. Ranks: 0-9 number cards, 10 Skip,
11 Reverse, 12 Draw Two (+2). The deck holds 108 cards: per color one 0 and two of
every other rank (25 per color), plus four Wild and four +4.

All tables are NumPy arrays built once at import; the engine turns rules into
index-and-compare on them.
"""

from __future__ import annotations

import numpy as np

NUM_COLORS = 4
NUM_RANKS = 13
#: The classic layout's number of kinds; a rules' own is ``rules.layout.num_kinds``.
NUM_KINDS = 54
DECK_SIZE = 108

COLOR_NAMES = ("red", "yellow", "green", "blue")
RANK_NAMES = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "skip", "reverse", "+2")

SKIP_RANK = 10
REVERSE_RANK = 11
DRAW_TWO_RANK = 12
WILD = 52
WILD_DRAW_FOUR = 53
NO_COLOR = -1

#: (54,) int8: color of each kind, -1 for the two wild kinds.
KIND_COLOR = np.array([k // NUM_RANKS for k in range(52)] + [NO_COLOR, NO_COLOR], dtype=np.int8)
#: (54,) int8: rank of each kind; 13 for Wild and 14 for +4 (so equal ranks mean equal symbols).
KIND_RANK = np.array([k % NUM_RANKS for k in range(52)] + [13, 14], dtype=np.int8)
#: (54,) int16: points of a card left in hand (face value; Skip/Reverse/+2 20; wilds 50).
KIND_POINTS = np.array([r if r < 10 else 20 for r in KIND_RANK[:52]] + [50, 50], dtype=np.int16)
#: (54,) int8: copies of each kind in the deck.
KIND_COPIES = np.array([1 if r == 0 else 2 for r in KIND_RANK[:52]] + [4, 4], dtype=np.int8)
#: (54,) bool: kinds that make the next player draw (+2 and +4).
KIND_IS_DRAW = np.zeros(NUM_KINDS, dtype=bool)
KIND_IS_DRAW[[c * NUM_RANKS + DRAW_TWO_RANK for c in range(NUM_COLORS)] + [WILD_DRAW_FOUR]] = True
#: (54,) int8: cards the next player must draw (2 for +2, 4 for +4, else 0).
KIND_DRAW_AMOUNT = np.where(
    KIND_IS_DRAW, np.where(np.arange(NUM_KINDS) == WILD_DRAW_FOUR, 4, 2), 0
).astype(np.int8)
#: (54,) bool: number cards (ranks 0-9).
KIND_IS_NUMBER = np.array([r < 10 for r in KIND_RANK[:52]] + [False, False])
#: (54,) bool: the two wild kinds.
KIND_IS_WILD = np.zeros(NUM_KINDS, dtype=bool)
KIND_IS_WILD[[WILD, WILD_DRAW_FOUR]] = True
#: (54, 4) bool: kind k has color c.
KIND_HAS_COLOR = KIND_COLOR[:, None] == np.arange(NUM_COLORS)[None, :]
#: (54, 54) bool: ``SAME_SYMBOL[a, b]``: kinds a and b are colored and share a rank.
SAME_SYMBOL = (
    (KIND_RANK[:, None] == KIND_RANK[None, :]) & ~KIND_IS_WILD[:, None] & ~KIND_IS_WILD[None, :]
)
#: (108,) int8: the whole deck in canonical (sorted) order.
CANONICAL_DECK = np.repeat(np.arange(NUM_KINDS, dtype=np.int8), KIND_COPIES)


def kind(color: int, rank: int) -> int:
    """Kind index of a colored card."""
    if not (0 <= color < NUM_COLORS and 0 <= rank < NUM_RANKS):
        raise ValueError(f"no colored card with color {color} and rank {rank}")
    return color * NUM_RANKS + rank


def card_name(k: int) -> str:
    """Readable name of kind ``k``, e.g. ``'red 7'``, ``'blue +2'``, ``'wild'``, ``'+4'``."""
    k = int(k)
    if k == WILD:
        return "wild"
    if k == WILD_DRAW_FOUR:
        return "+4"
    if not 0 <= k < 52:
        raise ValueError(f"card kind must be in [0, {NUM_KINDS}), got {k}")
    return f"{COLOR_NAMES[k // NUM_RANKS]} {RANK_NAMES[k % NUM_RANKS]}"


def parse_card(name: str) -> int:
    """Inverse of :func:`card_name` (case-insensitive), for tests and scenarios."""
    text = name.strip().lower()
    if text in ("wild", "w"):
        return WILD
    if text in ("+4", "wild+4", "wild draw four", "wd4"):
        return WILD_DRAW_FOUR
    parts = text.split()
    if len(parts) == 2 and parts[0] in COLOR_NAMES and parts[1] in RANK_NAMES:
        return kind(COLOR_NAMES.index(parts[0]), RANK_NAMES.index(parts[1]))
    raise ValueError(
        f"cannot parse card {name!r}: expected e.g. 'red 7', 'blue skip', 'green +2', 'wild', '+4'"
    )

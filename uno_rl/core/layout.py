"""Card layouts: the card kinds, actions and observation pieces a deck is played with.

There are two layouts. ``CLASSIC`` has the 54 kinds of the 108-card game
(:mod:`.cards`), the 77 actions of :mod:`.actions` and the 583 observation values of
:mod:`.observe_layout`, unchanged: every deck made of classic kinds alone (``classic``,
``extreme`` without its new cards, a user's deck of other counts) plays in it, so the shipped
bots keep working. ``EXTENDED`` adds the 21 kinds of rules specification §11 after them:

=========  =====================  =======  ======================================
kinds      card                   points   actions (after the classic 77)
=========  =====================  =======  ======================================
54 .. 57   Discard All (r y g b)  30       77 .. 80   play it
58 .. 61   Hit 2 (r y g b)        20       81 .. 84   play it
62 .. 65   Targeted +2 (r y g b)  20       85 .. 88   play it
66         Wild Hit-Fire          50       89 .. 92   play it, naming a color
67         Wild All Hit           50       93 .. 96
68         Wild Swap Hands        40       97 .. 100
69         Wild Shuffle Hands     40       101 .. 104
70         Wild Customizable      40       105 .. 108
71         Targeted +4            50       109 .. 112
72         Downpour +1            20       113 .. 116
73         Downpour +2            20       117 .. 120
74         Boomerang              20       121        play it (no color)
=========  =====================  =======  ======================================

A victim or target is chosen with the seat actions (64 .. 72, ``target <k>``) in the target
phase; the card on top says what the choice is for. The extended observation has the
classic pieces with every per-kind piece 75 wide, then the pieces of section 11's public
facts (:data:`EXTENDED_PIECES`).
"""

from __future__ import annotations

import dataclasses
from functools import cached_property

import numpy as np

from . import actions as classic_actions
from . import cards
from .observe_layout import OTHER_SEATS
from .observe_layout import PIECES as CLASSIC_PIECES

__all__ = ["CLASSIC", "EXTENDED", "Layout", "SYMBOLS", "layout_of_kinds"]

#: Symbols (ranks) of every kind: the classic 0..14 (``cards.KIND_RANK``: 13 Wild, 14 +4),
#: then one per new card. Colored symbols come in the four colors.
DISCARD_ALL, HIT_TWO, TARGETED_TWO = 15, 16, 17
HIT_FIRE, ALL_HIT, SWAP_HANDS, SHUFFLE_HANDS, CUSTOMIZABLE = 18, 19, 20, 21, 22
TARGETED_FOUR, DOWNPOUR_ONE, DOWNPOUR_TWO, BOOMERANG = 23, 24, 25, 26

#: symbol -> (name used in deck files, colored, points)
SYMBOLS: dict[int, tuple[str, bool, int]] = {
    **{r: (cards.RANK_NAMES[r], True, r if r < 10 else 20) for r in range(13)},
    13: ("wild", False, 50),
    14: ("+4", False, 50),
    DISCARD_ALL: ("discard-all", True, 30),
    HIT_TWO: ("hit-2", True, 20),
    TARGETED_TWO: ("targeted+2", True, 20),
    HIT_FIRE: ("wild-hit-fire", False, 50),
    ALL_HIT: ("wild-all-hit", False, 50),
    SWAP_HANDS: ("wild-swap-hands", False, 40),
    SHUFFLE_HANDS: ("wild-shuffle-hands", False, 40),
    CUSTOMIZABLE: ("wild-customizable", False, 40),
    TARGETED_FOUR: ("targeted+4", False, 50),
    DOWNPOUR_ONE: ("downpour+1", False, 20),
    DOWNPOUR_TWO: ("downpour+2", False, 20),
    BOOMERANG: ("boomerang", False, 20),
}

#: Readable card names of the new symbols (``card_name``).
_DISPLAY = {
    DISCARD_ALL: "discard all",
    HIT_TWO: "hit 2",
    TARGETED_TWO: "targeted +2",
    HIT_FIRE: "wild hit-fire",
    ALL_HIT: "wild all hit",
    SWAP_HANDS: "wild swap hands",
    SHUFFLE_HANDS: "wild shuffle hands",
    CUSTOMIZABLE: "wild customizable",
    TARGETED_FOUR: "targeted +4",
    DOWNPOUR_ONE: "downpour +1",
    DOWNPOUR_TWO: "downpour +2",
    BOOMERANG: "boomerang",
}

_NEW_COLORED = (DISCARD_ALL, HIT_TWO, TARGETED_TWO)
_NEW_WILD = (HIT_FIRE, ALL_HIT, SWAP_HANDS, SHUFFLE_HANDS, CUSTOMIZABLE, TARGETED_FOUR,
             DOWNPOUR_ONE, DOWNPOUR_TWO)  # fmt: skip

#: Observation pieces after the classic ones in the extended layout.
EXTENDED_PIECES: tuple[tuple[str, int], ...] = (
    ("dispenser_presses", 1),  # presses since the dispenser last fired (public)
    ("swap_seats", 10),  # the two relative seats of the last hand swap this round
    ("shuffled", 1),  # hands were shuffled this round (what was seen before is gone)
    ("swap_given", 75),  # the hand the observer gave away in its last swap this round
    ("swap_received", 75),  # the hand the observer received in it
)
_KIND_PIECES = ("hand", "top_card", "discard", "drawn_card", "revealed_hand")


@dataclasses.dataclass(frozen=True, eq=False)
class Layout:
    """Card kinds, actions and observation pieces of one layout (all tables built once).

    Shapes use its K kinds and A actions (conventions: :mod:`uno_rl.core`): ``kind_color`` (K,) int8 (-1 colorless),
    ``kind_rank`` (K,) int8 symbols, ``kind_points`` (K,) int16, ``action_card`` (A,) int8
    (-1: no card), ``action_color`` (A,) int8, ``action_target`` (A,) int8.
    """

    name: str
    kind_rank: np.ndarray
    kind_color: np.ndarray
    pieces: tuple[tuple[str, int], ...]
    action_card: np.ndarray
    action_color: np.ndarray
    action_target: np.ndarray

    @cached_property
    def num_kinds(self) -> int:
        """K: the number of card kinds (54 classic, 75 extended)."""
        return int(self.kind_rank.shape[0])

    @cached_property
    def num_actions(self) -> int:
        """A: the number of actions (77 classic, 122 extended)."""
        return int(self.action_card.shape[0])

    @cached_property
    def obs_size(self) -> int:
        """O: the length of the flat observation (583 classic, 877 extended)."""
        return sum(size for _, size in self.pieces)

    @cached_property
    def extended(self) -> bool:
        """Whether this is the extended layout: the one question to ask where the two
        layouts play differently (new cards, targets, the extended observation pieces)."""
        return self.name == "extended"

    @cached_property
    def kind_points(self) -> np.ndarray:
        """(K,) int16: points of a card left in hand."""
        return np.array([SYMBOLS[int(r)][2] for r in self.kind_rank], np.int16)

    @cached_property
    def points(self) -> np.ndarray:
        """(K,) int32: points widened for sums over hands."""
        return self.kind_points.astype(np.int32)

    @cached_property
    def names_color(self) -> np.ndarray:
        """(K,) bool: kinds whose play names a color (every colorless kind but Boomerang)."""
        return (self.kind_color < 0) & (self.kind_rank != BOOMERANG)

    @cached_property
    def colored(self) -> np.ndarray:
        """(C,) int64: the colored kinds, ascending."""
        return np.flatnonzero(self.kind_color >= 0)

    def kinds_of(self, *symbols: int) -> np.ndarray:
        """(m,) int64: the kinds with one of ``symbols``, ascending."""
        return np.flatnonzero(np.isin(self.kind_rank, symbols))

    @cached_property
    def symbol_slot(self) -> np.ndarray:
        """(S + 1,) int64: each colored symbol's index among the layout's colored symbols in
        ascending order (the ``void_symbol`` blocks), -1 for the others and at index -1 (a
        symbol of -1, none, reads -1)."""
        colored = np.unique(self.kind_rank[self.kind_color >= 0]).astype(np.int64)
        out = np.full(int(self.kind_rank.max()) + 2, -1, np.int64)
        out[colored] = np.arange(colored.size)
        return out

    @cached_property
    def same_symbol(self) -> np.ndarray:
        """(K, K) bool: both kinds colored and of one symbol."""
        colored = self.kind_color >= 0
        same = self.kind_rank[:, None] == self.kind_rank[None, :]
        return same & colored[:, None] & colored[None, :]

    @cached_property
    def matches(self) -> np.ndarray:
        """(K top, 5 colors (index 4: none yet), K) bool: colored kind matches color or symbol."""
        k = self.num_kinds
        out = np.zeros((k, 5, k), bool)
        for c in range(-1, 4):
            out[:, c] = ((self.kind_color == c) & (self.kind_color >= 0))[
                None, :
            ] | self.same_symbol
        return out

    @cached_property
    def match_rows(self) -> np.ndarray:
        """(K * 5, K) bool: ``matches`` with one row per ``top * 5 + color + 1``."""
        return np.ascontiguousarray(self.matches[:, [4, 0, 1, 2, 3]]).reshape(-1, self.num_kinds)

    @cached_property
    def is_draw_two(self) -> np.ndarray:
        """(K,) bool: the four classic +2 kinds."""
        return self.kind_rank == cards.DRAW_TWO_RANK

    @cached_property
    def kind_actions(self) -> np.ndarray:
        """(K, A) bool: the actions that play a card of each kind."""
        return self.action_card[None, :] == np.arange(self.num_kinds)[:, None]

    @cached_property
    def first_action(self) -> np.ndarray:
        """(K,) int64: the first action that plays each kind (its color 0 for wild kinds)."""
        return self.kind_actions.argmax(axis=1)

    @cached_property
    def returns_as_first_card(self) -> np.ndarray:
        """(K,) bool: kinds a first card puts back into the pile (+4, Swap and Shuffle Hands,
        Targeted +4, Boomerang)."""
        return np.isin(self.kind_rank, (14, SWAP_HANDS, SHUFFLE_HANDS, TARGETED_FOUR, BOOMERANG))

    @cached_property
    def draw_four_like(self) -> np.ndarray:
        """(K,) bool: kinds with the +4's legality and bluff (+4, Targeted +4)."""
        return np.isin(self.kind_rank, (14, TARGETED_FOUR))

    @cached_property
    def play_actions(self) -> np.ndarray:
        """(m,) int64: the actions that play a card (``action_card >= 0``)."""
        return np.flatnonzero(self.action_card >= 0)

    @cached_property
    def play_kinds(self) -> np.ndarray:
        """(m,) int64: the kind each of ``play_actions`` plays."""
        return self.action_card[self.play_actions].astype(np.int64)

    @cached_property
    def play_runs(self) -> tuple[tuple[slice, slice, int], ...]:
        """The play actions as runs ``(actions, kinds, colors)``: the action slice plays the
        kind slice in order, each kind ``colors`` times in a row (1: no color named, 4: a
        wild naming each color). Copying flags per run beats a gather over every action."""
        runs: list[list[int]] = []  # [first action, stop action, first kind, colors]
        for a in self.play_actions.tolist():
            kind, colors = int(self.action_card[a]), 4 if self.action_color[a] >= 0 else 1
            if runs:
                first, stop, first_kind, run_colors = runs[-1]
                if (a, colors, kind) == (stop, run_colors, first_kind + (a - first) // colors):
                    runs[-1][1] = a + 1
                    continue
            runs.append([a, a + 1, kind, colors])
        return tuple(
            (slice(first, stop), slice(kind, kind + (stop - first) // colors), colors)
            for first, stop, kind, colors in runs
        )

    @cached_property
    def always_playable(self) -> np.ndarray:
        """(K,) bool: kinds playable on anything in the play phase (the wilds but the +4s)."""
        return self.names_color & ~self.draw_four_like

    def effect_rank(self, customizable_as: str) -> np.ndarray:
        """(K,) int8: the symbol whose effect each kind has: its own, except a Wild
        Customizable's (``customizable_as``: ``wild`` or another colorless card's name)."""
        ranks = self.kind_rank.copy()
        target = next(r for r, (name, _, _) in SYMBOLS.items() if name == customizable_as)
        ranks[ranks == CUSTOMIZABLE] = target
        return ranks

    @cached_property
    def always_playable_kinds(self) -> np.ndarray:
        """(m,) int64: the kinds of ``always_playable``."""
        return np.flatnonzero(self.always_playable)

    @cached_property
    def draw_four_kinds(self) -> np.ndarray:
        """(m,) int64: the kinds of ``draw_four_like``."""
        return np.flatnonzero(self.draw_four_like)

    @cached_property
    def colorless_kinds(self) -> np.ndarray:
        """(m,) int64: the kinds without a color (the wilds, the +4s, Boomerang)."""
        return np.flatnonzero(self.kind_color < 0)

    @cached_property
    def kinds_int8(self) -> np.ndarray:
        """(K,) int8: every kind in canonical order."""
        return np.arange(self.num_kinds, dtype=np.int8)

    @cached_property
    def slices(self) -> dict[str, slice]:
        """Piece name -> slice of the flat observation."""
        out, start = {}, 0
        for name, size in self.pieces:
            out[name] = slice(start, start + size)
            start += size
        return out

    @cached_property
    def starts(self) -> dict[str, int]:
        """Piece name -> its first column."""
        return {name: piece.start for name, piece in self.slices.items()}

    def card_name(self, kind: int) -> str:
        """Readable name of ``kind``: ``'red 7'``, ``'+4'``, ``'blue discard all'``, ..."""
        k = int(kind)
        if not 0 <= k < self.num_kinds:
            raise ValueError(f"card kind must be in [0, {self.num_kinds}), got {kind!r}")
        if k < CLASSIC.num_kinds:  # the classic kinds come first in both layouts
            return cards.card_name(k)
        rank, color = int(self.kind_rank[k]), int(self.kind_color[k])
        text = _DISPLAY[rank]
        return f"{cards.COLOR_NAMES[color]} {text}" if color >= 0 else text

    def parse_card(self, name: str) -> int:
        """Inverse of :meth:`card_name` (case-insensitive), e.g. ``'wild shuffle hands'``."""
        text = " ".join(name.strip().lower().split())
        for k in range(self.num_kinds):
            if self.card_name(k) == text:
                return k
        return cards.parse_card(text)  # the classic aliases ('w', 'wd4', ...) or its error

    def parse_action(self, text: str) -> int:
        """Inverse of :meth:`action_name`."""
        wanted = " ".join(text.strip().lower().split())
        for a in range(self.num_actions):
            if self.action_name(a) == wanted:
                return a
        raise ValueError(f"unknown action {text!r}")

    def action_name(self, action: int) -> str:
        """Readable meaning of ``action`` (the classic names for the first 77)."""
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise ValueError(
                f"action must be an integer in [0, {self.num_actions}), got {action!r}"
            )
        target = classic_actions.TARGET <= a < classic_actions.TARGET + classic_actions.MAX_TARGETS
        if target and self.extended:  # a swap (7, Swap Hands) or a targeted draw's victim
            return f"target the player {a - classic_actions.TARGET + 1} seat(s) clockwise"
        if a < CLASSIC.num_actions:  # the classic actions come first in both layouts
            return classic_actions.action_name(a)
        name = self.card_name(int(self.action_card[a]))
        color = int(self.action_color[a])
        return f"{name} naming {cards.COLOR_NAMES[color]}" if color >= 0 else f"play {name}"


def _classic() -> Layout:
    return Layout(
        name="classic",
        kind_rank=cards.KIND_RANK.copy(),
        kind_color=cards.KIND_COLOR.copy(),
        pieces=CLASSIC_PIECES,
        action_card=classic_actions.ACTION_CARD.copy(),
        action_color=classic_actions.ACTION_COLOR.copy(),
        action_target=classic_actions.ACTION_TARGET.copy(),
    )


def _extended(classic: Layout) -> Layout:
    """The ``classic`` layout's kinds, actions and pieces, then those of the new cards."""
    ranks, colors = list(classic.kind_rank), list(classic.kind_color)
    for symbol in _NEW_COLORED:
        ranks += [symbol] * 4
        colors += [0, 1, 2, 3]
    ranks += [*_NEW_WILD, BOOMERANG]
    colors += [cards.NO_COLOR] * (len(_NEW_WILD) + 1)
    card, color = list(classic.action_card), list(classic.action_color)
    first_new = classic.num_kinds
    for k in range(first_new, first_new + 4 * len(_NEW_COLORED)):
        card.append(k)
        color.append(-1)
    for k in range(first_new + 4 * len(_NEW_COLORED), len(ranks) - 1):
        card += [k] * 4
        color += [0, 1, 2, 3]
    card.append(len(ranks) - 1)
    color.append(-1)
    target = np.zeros(len(card), np.int8)
    target[: classic.num_actions] = classic.action_target
    width = len(ranks)
    symbols = len({r for r, c in zip(ranks, colors, strict=True) if c >= 0})
    sizes = {**{n: width for n in _KIND_PIECES}, "void_symbol": OTHER_SEATS * symbols}
    pieces = tuple((n, sizes.get(n, s)) for n, s in classic.pieces)
    return Layout(
        name="extended",
        kind_rank=np.array(ranks, np.int8),
        kind_color=np.array(colors, np.int8),
        pieces=pieces + EXTENDED_PIECES,
        action_card=np.array(card, np.int8),
        action_color=np.array(color, np.int8),
        action_target=target,
    )


CLASSIC = _classic()
EXTENDED = _extended(CLASSIC)


def layout_of_kinds(kinds_used: np.ndarray) -> Layout:
    """The layout of a deck: ``CLASSIC`` when every kind it holds (``kinds_used``, (75,) bool
    over the extended kinds) is classic, else ``EXTENDED``."""
    return EXTENDED if np.asarray(kinds_used)[CLASSIC.num_kinds :].any() else CLASSIC

"""The PRIVILEGED full-game state as one flat vector, for centralised critics (MAPPO-style).

:func:`game_state` writes the whole game (one game of a :class:`~uno_rl.core.state.State`) into a
``(size,) float32`` vector (``size`` of the deck's :class:`StateLayout`, 900 for a deck of
classic cards): every seat's hand, the draw pile's contents, whether a +4
on top is a bluff. It is what PettingZoo's ``state()`` returns (``uno_v1.raw_env.state``)
and it shows hidden cards **by design**: give it to a critic during training, never to a
policy that plays. What a seat may see is its observation (:mod:`uno_rl.core.observe_layout`).

Seats are absolute (slot ``k`` is seat ``k``, agent ``player_k``), not relative to anyone;
slots beyond the number of players stay 0, so the size is the same for 2 to 10 players.
The draw pile appears as counts per card kind, not in order: the order is the future, which
no critic should need. Every value is a float32.

=================  ======  =====  ==========================================================
piece              offset  shape  content
=================  ======  =====  ==========================================================
``hands``          0       540    count of each card kind in each seat's hand: seat ``k``'s
                                  54 counts at ``k * 54``
``hand_sizes``     540     10     cards in each seat's hand
``top_card``       550     54     one-hot kind of the discard pile's top card
``color``          604     4      one-hot current color (all 0 before a first Wild's color)
``direction``      608     1      +1 clockwise, -1 counter-clockwise
``phase``          609     8      one-hot phase (:mod:`uno_rl.core.phases`)
``actor``          617     10     one-hot seat to act (all 0 once over)
``pending_draw``   627     1      cards the victim of a +2/+4 chain will draw
``players``        628     9      one-hot number of players (2 .. 10)
``dealer``         637     10     one-hot dealer seat of the round
``discard``        647     54     count of each kind in the discard pile
``draw_pile``      701     54     count of each kind in the draw pile (contents, not order)
``draw_pile_size`` 755     1      cards left in the draw pile
``drawn_card``     756     54     one-hot card the actor just drew (drawn phase)
``previous_color`` 810     4      while a +4 is on top: one-hot color before it
``draw4_player``   814     10     while a +4 is on top: one-hot seat that played it
``draw4_bluff``    824     1      while a +4 is on top: 1 if it was a bluff (challenge wins)
``multi_rank``     825     10     multi-play phase: one-hot number being played (0 .. 9; none
                                  for a Skip/Reverse/+2 combination: the top card's symbol)
``jump_card``      835     54     jump-in phase: one-hot card that may jump in
``scores``         889     10     match scores / ``match_target``, per seat
``progress``       899     1      decisions so far this round / ``max_turns``
=================  ======  =====  ==========================================================

This is the state of every deck of classic cards (the ``classic`` layout): ``STATE_SIZE``
is 900 and :data:`STATE_SLICES` maps each piece to its slice; the offsets above are checked
against it by ``tests/envs/test_state.py``.

A deck with any card of rules specification §11 plays in the extended layout
(:mod:`uno_rl.core.layout`: K = 75 kinds). Its state (:func:`state_layout`, 1397 values) has
the same pieces in the same order, every per-kind piece (``hands`` at ``k * 75``,
``top_card``, ``discard``, ``draw_pile``, ``drawn_card``, ``jump_card``) 75 wide, and
``previous_color``, ``draw4_player`` and ``draw4_bluff`` set while a +4 or a Targeted +4 is
on top; then the section-11 pieces:

=====================  =====  ===========================================================
piece                  shape  content
=====================  =====  ===========================================================
``dispenser_presses``  1      presses since the random card dispenser last fired
``cause``              10     one-hot seat whose Skip or draw card is pending (a
                              Boomerang sends it back there; all 0 when none)
``swap_seats``         20     the two seats of the last hand swap this round: one-hot of
                              the first at 0 .. 9, of the second at 10 .. 19
``swap_given``         150    the hand each of them gave away (the first's 75 counts, then
                              the second's)
``shuffled``           1      whether hands were shuffled this round (Wild Shuffle Hands)
=====================  =====  ===========================================================

:func:`state_layout` gives a layout's pieces, slices and size; :func:`state_bounds` the
per-value bounds of the ``state_space`` Box.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from uno_rl.core.layout import CLASSIC, Layout
from uno_rl.core.phases import DRAWN, JUMP, MULTI, NUM_PHASES, OVER
from uno_rl.core.rules import Rules
from uno_rl.core.state import State

__all__ = [
    "MAX_SEATS",
    "STATE_PIECES",
    "STATE_SIZE",
    "STATE_SLICES",
    "StateLayout",
    "deck_points",
    "game_state",
    "state_bounds",
    "state_layout",
]

#: Most seats at a table (the rules allow 2 to 10 players).
MAX_SEATS = 10


def _pieces(kinds: int, extended: bool) -> tuple[tuple[str, int], ...]:
    pieces = (
        ("hands", MAX_SEATS * kinds),
        ("hand_sizes", MAX_SEATS),
        ("top_card", kinds),
        ("color", 4),
        ("direction", 1),
        ("phase", NUM_PHASES),
        ("actor", MAX_SEATS),
        ("pending_draw", 1),
        ("players", MAX_SEATS - 1),
        ("dealer", MAX_SEATS),
        ("discard", kinds),
        ("draw_pile", kinds),
        ("draw_pile_size", 1),
        ("drawn_card", kinds),
        ("previous_color", 4),
        ("draw4_player", MAX_SEATS),
        ("draw4_bluff", 1),
        ("multi_rank", 10),
        ("jump_card", kinds),
        ("scores", MAX_SEATS),
        ("progress", 1),
    )
    if not extended:
        return pieces
    return pieces + (
        ("dispenser_presses", 1),
        ("cause", MAX_SEATS),
        ("swap_seats", 2 * MAX_SEATS),
        ("swap_given", 2 * kinds),
        ("shuffled", 1),
    )


@dataclasses.dataclass(frozen=True)
class StateLayout:
    """The pieces of one card layout's state: ``pieces`` ((name, size), in order),
    ``slices`` (name -> slice of the flat state), ``starts`` (name -> first index), ``size``
    and ``kinds`` (K, the width of a per-kind piece)."""

    kinds: int
    pieces: tuple[tuple[str, int], ...]
    slices: dict[str, slice]
    starts: dict[str, int]
    size: int


@functools.cache
def state_layout(layout: Layout = CLASSIC) -> StateLayout:
    """The :class:`StateLayout` of card layout ``layout`` (``rules.layout``; built once)."""
    if not isinstance(layout, Layout):
        raise TypeError(f"layout must be a uno_rl.core.layout.Layout, got {layout!r}")
    pieces = _pieces(layout.num_kinds, layout.extended)
    slices, offset = {}, 0
    for name, size in pieces:
        slices[name] = slice(offset, offset + size)
        offset += size
    starts = {name: piece.start for name, piece in slices.items()}
    return StateLayout(layout.num_kinds, pieces, slices, starts, offset)


_CLASSIC = state_layout(CLASSIC)
#: (name, size) of each piece of the classic layout's state, in order.
STATE_PIECES: tuple[tuple[str, int], ...] = _CLASSIC.pieces
#: piece name -> slice into the flat state (classic layout)
STATE_SLICES: dict[str, slice] = _CLASSIC.slices
#: length of the flat state (classic layout)
STATE_SIZE: int = _CLASSIC.size


def deck_points(rules: Rules) -> int:
    """Card points of the whole deck of ``rules``: the most one round can add to a score."""
    deck = rules.deck_cards
    return int((deck.layout.kind_points.astype(np.int64) * deck.copies).sum())


def _score_high(rules: Rules) -> float:
    """The highest score / ``match_target``: below the target until the round that decides
    the match; a match of ``match_rounds`` rounds adds at most the deck's points a round."""
    points = deck_points(rules)
    high = (rules.match_target - 1 + points) / rules.match_target
    return max(high, rules.match_rounds * points / rules.match_target)


def state_bounds(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) ``(size,) float32`` bounds of every state value under ``rules``.

    Counts of a kind are at most its copies in the deck, card totals at most the deck's
    size, one-hots and the progress in [0, 1], the direction in [-1, 1], the dispenser's
    presses below ``len(dispenser_hazard)``; a score stays below the target until the round
    that decides the match, which adds at most the deck's points.
    """
    layout = state_layout(rules.layout)
    slices = layout.slices
    low = np.zeros(layout.size, np.float32)
    high = np.ones(layout.size, np.float32)
    deck = rules.deck_cards
    copies = deck.copies.astype(np.float32)
    high[slices["hands"]] = np.tile(copies, MAX_SEATS)
    for piece in ("discard", "draw_pile"):
        high[slices[piece]] = copies
    for piece in ("hand_sizes", "pending_draw", "draw_pile_size"):
        high[slices[piece]] = deck.size
    low[slices["direction"]] = -1.0
    high[slices["scores"]] = _score_high(rules)
    if "swap_given" in slices:
        high[slices["swap_given"]] = np.tile(copies, 2)
        high[slices["dispenser_presses"]] = len(rules.dispenser_hazard)
    return low, high


def game_state(state: State, g: int = 0) -> np.ndarray:
    """``(size,) float32``: the full state of game ``g`` of ``state`` (PRIVILEGED: every hand).

    ``size`` is :func:`state_layout` ``(state.rules.layout).size``. A fresh array each call.
    Small non-negative integers (counts, one-hots) are written as bytes and converted once;
    the direction, pending draws, scores and progress after.
    """
    rules = state.rules
    layout = rules.layout
    at = state_layout(layout)
    start, kinds = at.starts, at.kinds
    p = rules.players
    buf = bytearray(at.size)
    hands = start["hands"]
    buf[hands : hands + p * kinds] = state.hands[g].tobytes()  # counts: small, non-negative
    sizes = start["hand_sizes"]
    buf[sizes : sizes + p] = state.hand_size[g].astype(np.uint8).tobytes()
    top, phase, color = int(state.top[g]), int(state.phase[g]), int(state.color[g])
    direction, pending = int(state.direction[g]), int(state.pending[g])
    buf[start["top_card"] + top] = 1
    if color >= 0:
        buf[start["color"] + color] = 1
    if direction > 0:
        buf[start["direction"]] = 1
    buf[start["phase"] + phase] = 1
    if phase != OVER:
        buf[start["actor"] + int(state.actor[g])] = 1
    buf[start["players"] + p - 2] = 1
    buf[start["dealer"] + int(state.dealer[g])] = 1
    buf[start["discard"] : start["discard"] + kinds] = state.discard[g].tobytes()
    size = int(state.pile_size[g])
    if size:
        counts = np.bincount(state.pile[g, :size].astype(np.int64), minlength=kinds)
        buf[start["draw_pile"] : start["draw_pile"] + kinds] = counts.astype(np.uint8).tobytes()
    buf[start["draw_pile_size"]] = size
    if phase == DRAWN:
        buf[start["drawn_card"] + int(state.drawn[g])] = 1
    if layout.draw_four_like[top]:
        buf[start["previous_color"] + int(state.prev_color[g])] = 1
        buf[start["draw4_player"] + int(state.draw4_player[g])] = 1
        buf[start["draw4_bluff"]] = int(state.draw4_bluff[g])
    multi_rank = int(state.multi_rank[g])
    if phase == MULTI and multi_rank < 10:  # a symbol combination: see the top card
        buf[start["multi_rank"] + multi_rank] = 1
    if phase == JUMP:
        buf[start["jump_card"] + int(state.jump_card[g])] = 1
    if "swap_given" in start:
        _extended_pieces(state, g, buf, start, kinds)
    vector = np.frombuffer(buf, np.uint8).astype(np.float32)
    if direction < 0:
        vector[start["direction"]] = -1.0
    if pending:
        vector[start["pending_draw"]] = pending
    scores = start["scores"]
    vector[scores : scores + p] = state.scores[g] / rules.match_target
    vector[start["progress"]] = int(state.turn[g]) / rules.max_turns
    return vector


def _extended_pieces(
    state: State, g: int, buf: bytearray, start: dict[str, int], kinds: int
) -> None:
    """Write the section-11 pieces of the extended state of game ``g`` into ``buf`` (bytes)."""
    buf[start["dispenser_presses"]] = int(state.presses[g])
    cause = int(state.cause[g])
    if cause >= 0:
        buf[start["cause"] + cause] = 1
    seats = state.swap_seats[g].tolist()
    if seats[0] >= 0:
        for side in (0, 1):
            buf[start["swap_seats"] + side * MAX_SEATS + seats[side]] = 1
            first = start["swap_given"] + side * kinds
            buf[first : first + kinds] = state.swap_given[g, side].tobytes()
    buf[start["shuffled"]] = int(state.shuffled[g])

"""The PRIVILEGED full-game state as one flat vector, for centralised critics (MAPPO-style).

:func:`game_state` writes the whole game of a :class:`~uno_rl.core.scalar.ScalarGame` into a
``(STATE_SIZE,) float32`` vector: every seat's hand, the draw pile's contents, whether a +4
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

``STATE_SIZE`` is 900. :data:`STATE_SLICES` maps each piece to its slice; the offsets above
are checked against it by ``tests/envs/test_state.py``. :func:`state_bounds` gives the
per-value bounds of the ``state_space`` Box.
"""

from __future__ import annotations

import numpy as np

from uno_rl.core.cards import DECK_SIZE, KIND_COPIES, KIND_POINTS, NUM_KINDS, WILD_DRAW_FOUR
from uno_rl.core.phases import DRAWN, JUMP, MULTI, NUM_PHASES, OVER
from uno_rl.core.rules import Rules
from uno_rl.core.scalar import ScalarGame

__all__ = ["MAX_SEATS", "STATE_PIECES", "STATE_SIZE", "STATE_SLICES", "game_state", "state_bounds"]

#: Most seats at a table (the rules allow 2 to 10 players).
MAX_SEATS = 10

#: (name, size) of each piece, in order.
STATE_PIECES: tuple[tuple[str, int], ...] = (
    ("hands", MAX_SEATS * NUM_KINDS),
    ("hand_sizes", MAX_SEATS),
    ("top_card", NUM_KINDS),
    ("color", 4),
    ("direction", 1),
    ("phase", NUM_PHASES),
    ("actor", MAX_SEATS),
    ("pending_draw", 1),
    ("players", MAX_SEATS - 1),
    ("dealer", MAX_SEATS),
    ("discard", NUM_KINDS),
    ("draw_pile", NUM_KINDS),
    ("draw_pile_size", 1),
    ("drawn_card", NUM_KINDS),
    ("previous_color", 4),
    ("draw4_player", MAX_SEATS),
    ("draw4_bluff", 1),
    ("multi_rank", 10),
    ("jump_card", NUM_KINDS),
    ("scores", MAX_SEATS),
    ("progress", 1),
)

#: piece name -> slice into the flat state
STATE_SLICES: dict[str, slice] = {}
_offset = 0
for _name, _size in STATE_PIECES:
    STATE_SLICES[_name] = slice(_offset, _offset + _size)
    _offset += _size
#: length of the flat state
STATE_SIZE: int = _offset

_START = {name: piece.start for name, piece in STATE_SLICES.items()}
_HANDS = _START["hands"]
_SIZES = _START["hand_sizes"]
_TOP = _START["top_card"]
_COLOR = _START["color"]
_DIRECTION = _START["direction"]
_PHASE = _START["phase"]
_ACTOR = _START["actor"]
_PENDING = _START["pending_draw"]
_PLAYERS = _START["players"]
_DEALER = _START["dealer"]
_DISCARD = _START["discard"]
_PILE = _START["draw_pile"]
_PILE_SIZE = _START["draw_pile_size"]
_DRAWN = _START["drawn_card"]
_PREV_COLOR = _START["previous_color"]
_DRAW4_PLAYER = _START["draw4_player"]
_DRAW4_BLUFF = _START["draw4_bluff"]
_MULTI_RANK = _START["multi_rank"]
_JUMP_CARD = _START["jump_card"]
_SCORES = _START["scores"]
_PROGRESS = _START["progress"]

#: Card points of the whole deck: the most one round can add to a score.
_DECK_POINTS = int((KIND_POINTS.astype(np.int64) * KIND_COPIES).sum())


def _score_high(rules: Rules) -> float:
    """The highest score / ``match_target``: below the target until the round that decides
    the match; a match of ``match_rounds`` rounds adds at most the deck's points a round."""
    high = (rules.match_target - 1 + _DECK_POINTS) / rules.match_target
    return max(high, rules.match_rounds * _DECK_POINTS / rules.match_target)


def state_bounds(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) ``(STATE_SIZE,) float32`` bounds of every state value under ``rules``.

    Counts of a kind are at most its copies in the deck, card totals at most 108, one-hots
    and the progress in [0, 1], the direction in [-1, 1]; a score stays below the target
    until the round that decides the match, which adds at most the deck's points.
    """
    low = np.zeros(STATE_SIZE, np.float32)
    high = np.ones(STATE_SIZE, np.float32)
    copies = KIND_COPIES.astype(np.float32)
    high[STATE_SLICES["hands"]] = np.tile(copies, MAX_SEATS)
    for piece in ("discard", "draw_pile"):
        high[STATE_SLICES[piece]] = copies
    for piece in ("hand_sizes", "pending_draw", "draw_pile_size"):
        high[STATE_SLICES[piece]] = DECK_SIZE
    low[STATE_SLICES["direction"]] = -1.0
    high[STATE_SLICES["scores"]] = _score_high(rules)
    return low, high


def game_state(game: ScalarGame) -> np.ndarray:
    """``(STATE_SIZE,) float32``: the full state of ``game`` (PRIVILEGED: every hand).

    A fresh array each call. Small non-negative integers (counts, one-hots) are written as
    bytes and converted once; the direction, pending draws, scores and progress after.
    """
    p = game.num_players
    buf = bytearray(STATE_SIZE)
    for seat, hand in enumerate(game.hands):
        start = _HANDS + seat * NUM_KINDS
        buf[start : start + NUM_KINDS] = hand
        buf[_SIZES + seat] = sum(hand)
    top, phase, color = game.top, game.phase, game.color
    buf[_TOP + top] = 1
    if color >= 0:
        buf[_COLOR + color] = 1
    if game.direction > 0:
        buf[_DIRECTION] = 1
    buf[_PHASE + phase] = 1
    if phase != OVER:
        buf[_ACTOR + game.actor] = 1
    buf[_PLAYERS + p - 2] = 1
    buf[_DEALER + game.dealer] = 1
    buf[_DISCARD : _DISCARD + NUM_KINDS] = game.discard
    pile = game.pile
    if pile:
        counts = np.bincount(np.frombuffer(bytes(pile), np.uint8), minlength=NUM_KINDS)
        buf[_PILE : _PILE + NUM_KINDS] = counts.astype(np.uint8).tobytes()
    buf[_PILE_SIZE] = len(pile)
    if phase == DRAWN:
        buf[_DRAWN + game.drawn] = 1
    if top == WILD_DRAW_FOUR:
        buf[_PREV_COLOR + game.prev_color] = 1
        buf[_DRAW4_PLAYER + game.draw4_player] = 1
        buf[_DRAW4_BLUFF] = int(game.draw4_bluff)
    if phase == MULTI and game.multi_rank < 10:  # a symbol combination: see the top card
        buf[_MULTI_RANK + game.multi_rank] = 1
    if phase == JUMP:
        buf[_JUMP_CARD + game.jump_card] = 1
    state = np.frombuffer(buf, np.uint8).astype(np.float32)
    if game.direction < 0:
        state[_DIRECTION] = -1.0
    if game.pending:
        state[_PENDING] = game.pending
    rules = game.rules
    target = rules.match_target
    for seat, score in enumerate(game.scores):
        state[_SCORES + seat] = score / target
    state[_PROGRESS] = game.turn / rules.max_turns
    return state

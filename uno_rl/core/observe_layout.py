"""Named pieces of the flat float32 observation (one table for engine and reference).

This is the classic layout's table (O = 583); the extended layout widens every per-kind piece
to its 75 kinds (and ``void_symbol`` to its 16 colored symbols) and appends the pieces of
:data:`uno_rl.core.layout.EXTENDED_PIECES` (``rules.layout.pieces`` is a rules' own).

Seats are given relative to the observer: index 0 is the observer, 1 the next seat
clockwise, and so on; slots beyond the number of players stay 0. The last four pieces are
what each other seat showed this round, in 9 blocks for the relative seats 1 .. 9 (a block of
4 colors, 13 symbols or 5 color counts each). A seat that draws in the play phase shows it
holds no card of the current color and none of the colored top card's symbol (the numbers
0-9, Skip, Reverse, +2 in the classic layout): its hand's *void*, kept until that seat next
draws a card, moved with its hand when hands are passed or swapped and forgotten when they are
shuffled. Where the rules let a player draw with a playable card (``voluntary_draw``) or keep
a playable drawn card it is what the seat chose to show, not a proof.

===============  ====  ===================================================================
piece            size  content
===============  ====  ===================================================================
hand             54    count of each card kind in the observer's hand
top_card         54    one-hot kind of the discard pile's top card
color            4     one-hot current color (all 0 before a first-card Wild gets its color)
direction        1     +1 clockwise, -1 counter-clockwise
phase            8     one-hot phase (see :mod:`uno_rl.core.phases`)
actor            10    one-hot relative seat of the player to act (all 0 when over)
pending_draw     1     cards the victim of a +2/+4 chain will draw
hand_sizes       10    hand size of each seat, relative seat order
players          9     one-hot number of players (2 .. 10)
discard          54    count of each kind in the discard pile (cards seen since the last reshuffle)
draw_pile_size   1     cards left in the draw pile
drawn_card       54    one-hot card the observer just drew (drawn phase, observer acting)
previous_color   4     while a +4 is on top: one-hot color before it (what a challenge checks)
draw4_player     10    while a +4 is on top: one-hot relative seat of who played it
revealed_hand    54    the hand a challenge by the observer revealed (last one this round)
revealed_seat    10    one-hot relative seat whose hand that was
scores           10    match scores / match_target, relative seat order
progress         1     decisions so far this round / max_turns
void_color       36    one-hot color each other seat's hand showed it lacks (its void)
void_symbol      117   one-hot symbol of the colored top card it drew on (its void)
played_colors    45    cards each other seat played this round: per color, then colorless
named_color      36    one-hot color each other seat last named with a wild this round
===============  ====  ===================================================================
"""

from __future__ import annotations

PIECES: tuple[tuple[str, int], ...] = (
    ("hand", 54),
    ("top_card", 54),
    ("color", 4),
    ("direction", 1),
    ("phase", 8),
    ("actor", 10),
    ("pending_draw", 1),
    ("hand_sizes", 10),
    ("players", 9),
    ("discard", 54),
    ("draw_pile_size", 1),
    ("drawn_card", 54),
    ("previous_color", 4),
    ("draw4_player", 10),
    ("revealed_hand", 54),
    ("revealed_seat", 10),
    ("scores", 10),
    ("progress", 1),
    ("void_color", 36),
    ("void_symbol", 117),
    ("played_colors", 45),
    ("named_color", 36),
)
#: The pieces of what other seats showed (the last four), in blocks per relative seat 1 .. 9.
SHOWN_PIECES = ("void_color", "void_symbol", "played_colors", "named_color")
#: Blocks of those pieces: one per other seat of the largest game.
OTHER_SEATS = 9

#: piece name -> slice into the flat observation
SLICES: dict[str, slice] = {}
_start = 0
for _name, _size in PIECES:
    SLICES[_name] = slice(_start, _start + _size)
    _start += _size
#: length of the classic flat observation; a rules' own is ``rules.layout.obs_size``
OBS_SIZE: int = _start

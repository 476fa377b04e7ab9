"""The classic layout's discrete action space (A = 77), the same for every rule set.

The extended layout keeps these 77 as its first actions and adds its new cards' plays after
them (:mod:`.layout`, whose tables the engine reads: ``rules.layout``).

=========  ======================  ==================================================
action     name                    meaning
=========  ======================  ==================================================
0 .. 51    play ``<card>``          play the colored card of that kind (kind = action)
52 .. 55   wild ``<color>``         play a Wild and name color ``action - 52``
56 .. 59   +4 ``<color>``           play a Wild Draw Four and name color ``action - 56``
60         draw                    draw a card (always allowed in the play phase)
61         pass                    keep the drawn card / stop a multi-play / decline a jump-in
62         challenge               challenge the +4 just played on you
63         accept                  take the pending draws (and lose the turn)
64 .. 72   target ``<k>``           (seven-zero) swap hands with the player ``k = action - 63``
                                   seats after you, counted clockwise (1 .. 9)
73 .. 76   color ``<color>``        name the color of a first-card Wild
=========  ======================  ==================================================

Colors are numbered 0 red, 1 yellow, 2 green, 3 blue. Which actions are legal now is
given by the engine's legal mask; everything else is rejected.
"""

from __future__ import annotations

import numpy as np

from .cards import COLOR_NAMES, NUM_COLORS, WILD, WILD_DRAW_FOUR, card_name

PLAY_WILD = 52
PLAY_DRAW_FOUR = 56
DRAW = 60
PASS = 61
CHALLENGE = 62
ACCEPT = 63
TARGET = 64
MAX_TARGETS = 9
CHOOSE_COLOR = 73
#: The classic layout's number of actions; a rules' own is ``rules.layout.num_actions``.
NUM_ACTIONS = 77

#: (77,) int8: card kind an action plays, -1 if it plays none.
ACTION_CARD = np.full(NUM_ACTIONS, -1, dtype=np.int8)
ACTION_CARD[:52] = np.arange(52)
ACTION_CARD[PLAY_WILD : PLAY_WILD + 4] = WILD
ACTION_CARD[PLAY_DRAW_FOUR : PLAY_DRAW_FOUR + 4] = WILD_DRAW_FOUR
#: (77,) int8: color an action names (wild plays and color choices), -1 otherwise.
ACTION_COLOR = np.full(NUM_ACTIONS, -1, dtype=np.int8)
ACTION_COLOR[PLAY_WILD : PLAY_WILD + 4] = np.arange(NUM_COLORS)
ACTION_COLOR[PLAY_DRAW_FOUR : PLAY_DRAW_FOUR + 4] = np.arange(NUM_COLORS)
ACTION_COLOR[CHOOSE_COLOR : CHOOSE_COLOR + 4] = np.arange(NUM_COLORS)
#: (77,) int8: seat offset an action targets (1 .. 9), 0 otherwise.
ACTION_TARGET = np.zeros(NUM_ACTIONS, dtype=np.int8)
ACTION_TARGET[TARGET : TARGET + MAX_TARGETS] = np.arange(1, MAX_TARGETS + 1)


def play_action(kind: int, color: int | None = None) -> int:
    """The action that plays card ``kind`` (naming ``color`` for wilds)."""
    if kind in (WILD, WILD_DRAW_FOUR):
        if color is None or not 0 <= color < NUM_COLORS:
            raise ValueError(f"playing {card_name(kind)} needs a color in 0..3, got {color!r}")
        return (PLAY_WILD if kind == WILD else PLAY_DRAW_FOUR) + color
    if not 0 <= kind < 52:
        raise ValueError(f"no card kind {kind}")
    return int(kind)


def action_name(action: int) -> str:
    """Readable meaning of an action, e.g. ``'play red 7'``, ``'+4 naming blue'``, ``'draw'``."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action must be an integer in [0, {NUM_ACTIONS}), got {action!r}")
    if a < 52:
        return f"play {card_name(a)}"
    if a < PLAY_DRAW_FOUR:
        return f"wild naming {COLOR_NAMES[a - PLAY_WILD]}"
    if a < DRAW:
        return f"+4 naming {COLOR_NAMES[a - PLAY_DRAW_FOUR]}"
    if a >= CHOOSE_COLOR:
        return f"name color {COLOR_NAMES[a - CHOOSE_COLOR]}"
    if a >= TARGET:
        return f"swap hands with the player {a - TARGET + 1} seat(s) clockwise"
    return {DRAW: "draw", PASS: "pass", CHALLENGE: "challenge", ACCEPT: "accept the draw"}[a]


def parse_action(text: str) -> int:
    """Inverse of :func:`action_name`, for tests and scenarios."""
    for a in range(NUM_ACTIONS):
        if action_name(a) == text.strip().lower():
            return a
    raise ValueError(f"unknown action {text!r}")

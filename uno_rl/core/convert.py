"""Conversion between the scalar reference game and the batched state.

Scenario tests build a position once (readably, on a :class:`ReferenceGame`) and run it
through both implementations; the differential tests compare them field by field.
"""

from __future__ import annotations

import numpy as np

from .reference import ReferenceGame
from .state import STAT_NAMES, State

#: Per-seat lists copied one to one between State fields and ReferenceGame attributes.
_PER_SEAT = ("skip_turn", "void_color", "void_symbol", "played", "named")
#: State fields copied one to one from ReferenceGame attributes of the same name.
_SCALARS = (
    "key",
    "top",
    "color",
    "dealer",
    "actor",
    "direction",
    "phase",
    "pending",
    "drawn",
    "prev_top",
    "prev_color",
    "draw4_player",
    "draw4_bluff",
    "multi_rank",
    "multi_count",
    "jump_card",
    "jump_from",
    "jump_cursor",
    "resume_actor",
    "resume_phase",
    "reveal_viewer",
    "reveal_target",
    "turn",
    "reshuffles",
    "winner",
    "truncated",
    "match_over",
    "round_index",
    "presses",
    "press_index",
    "cause",
    "shuffled",
)
_STATS = STAT_NAMES


def to_state(games: list[ReferenceGame]) -> State:
    """A batched :class:`State` holding copies of ``games`` (all with the same rules)."""
    if not games:
        raise ValueError("to_state needs at least one game")
    rules = games[0].rules
    if any(g.rules != rules for g in games):
        raise ValueError("all games of a batch must share one Rules")
    state = State.empty(rules, len(games))
    for i, game in enumerate(games):
        for name in _SCALARS:
            getattr(state, name)[i] = getattr(game, name)
        state.hands[i] = game.hands
        state.hand_size[i] = [sum(h) for h in game.hands]
        state.pile[i] = 0
        state.pile[i, : len(game.pile)] = game.pile
        state.pile_size[i] = len(game.pile)
        state.discard[i] = game.discard
        state.revealed[i] = game.revealed
        for name in _PER_SEAT:
            getattr(state, name)[i] = getattr(game, name)
        state.swap_seats[i] = game.swap_seats
        state.swap_given[i] = np.array(game.swap_given, np.int8).reshape(2, -1)
        state.scores[i] = game.scores
        state.stats[i] = [game.stats[name] for name in _STATS]
    return state


def to_reference(state: State, index: int) -> ReferenceGame:
    """A :class:`ReferenceGame` copy of game ``index`` of ``state``."""
    game = ReferenceGame.__new__(ReferenceGame)
    game.rules = state.rules
    game.num_players = state.rules.players
    for name in _SCALARS:
        value = getattr(state, name)[index]
        setattr(game, name, bool(value) if value.dtype == bool else int(value))
    game.hands = state.hands[index].astype(int).tolist()
    game.pile = state.pile[index, : state.pile_size[index]].astype(int).tolist()
    game.discard = state.discard[index].astype(int).tolist()
    game.revealed = state.revealed[index].astype(int).tolist()
    for name in _PER_SEAT:
        setattr(game, name, getattr(state, name)[index].astype(int).tolist())
    game.swap_seats = state.swap_seats[index].astype(int).tolist()
    game.swap_given = state.swap_given[index].astype(int).tolist()
    game.scores = state.scores[index].astype(int).tolist()
    game.stats = {name: state.stats[index, i].astype(int).tolist() for i, name in enumerate(_STATS)}
    return game


def states_equal(state: State, index: int, game: ReferenceGame) -> list[str]:
    """Names of the fields where game ``index`` of ``state`` differs from ``game`` (empty if none).

    The draw pile is compared up to its size; ``drawn`` only in the drawn phase (elsewhere it
    is stale by design in both).
    """
    other = to_state([game])
    diffs = []
    for name, array in state.arrays().items():
        mine, theirs = array[index], getattr(other, name)[0]
        if name == "pile":
            size = int(state.pile_size[index])
            mine, theirs = mine[:size], theirs[:size]
        if not np.array_equal(mine, theirs):
            diffs.append(name)
    return diffs

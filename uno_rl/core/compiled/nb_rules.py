"""The rules and the deck's layout as one flat record the compiled kernel reads.

:func:`rule_tables` turns a :class:`~uno_rl.core.rules.Rules` into a :class:`RuleTables`
structure of scalars and arrays (built once per rule set): every switch under its own name,
a string switch as the index of its value in :data:`~uno_rl.core.switches.CHOICES` (compare
it with :func:`code`), the derived switches (``dispenser_on``, ``boomerangs``,
``challenge_enabled``, ``respond_enabled``), the layout's tables, the actions that play each
kind and the observation's piece offsets (``obs_start``, indexed as :data:`OBS_PIECES`).
"""

from __future__ import annotations

import functools

import numba
import numpy as np
from numba.experimental import structref

from ..layout import EXTENDED
from ..observe_layout import OTHER_SEATS
from ..rules import Rules
from ..switches import CHOICES
from .nb_struct import FieldsProxy, FieldsType, register

#: Scalar switches copied as they are (ints, floats, bools).
_PLAIN = (
    "players", "hand_size", "voluntary_draw", "draw_until_playable", "wild_cancels_draw",
    "multi_play", "multi_play_actions", "seven_zero", "jump_in", "first_card_effects",
    "first_draw_two_skips", "two_player_reverse_skips", "uno_forget_prob", "uno_catch_prob",
    "uno_penalty", "match", "match_target", "match_rounds", "max_turns",
    "discard_all_may_go_out", "swap_excludes_uno", "downpour_includes_self",
)  # fmt: skip
#: String switches, as the index of their value in CHOICES.
_CODED = tuple(name for name in CHOICES if name not in ("dispenser", "customizable_as"))
_DERIVED = ("dispenser_on", "boomerangs", "challenge_enabled", "respond_enabled")
#: Layout tables (arrays; see :class:`~uno_rl.core.layout.Layout`), and ``extended``.
_LAYOUT = (
    "extended", "num_kinds", "num_actions", "kind_rank", "kind_color", "kind_points",
    "names_color", "draw_four_like", "returns_as_first_card", "action_card", "action_color",
    "action_target", "symbol_slot", "always_playable", "same_symbol",
)  # fmt: skip
_TABLES = (
    "effect_rank",  # (K,) int8: the symbol whose effect each kind has
    "deck",  # (D,) int8: the deck's cards in canonical order (what a deal shuffles)
    "dispenser_hazard",  # (H,) float64
    "dispenser_cdf",  # (C,) float64: cumulative dispenser_count
    "first_action",  # (K,) int64: the first action that plays each kind (color 0 for a wild)
    "kind_action_count",  # (K,) int64: actions that play each kind (4 for a wild, else 1)
    "obs_size",  # int: O, the layout's observation length
    "obs_start",  # (len(OBS_PIECES),) int64: each piece's first column, -1 if not in the layout
    "symbol_count",  # int: colored symbols of the layout (the width of a void_symbol block)
    "match_rows",  # (K * 5, K) bool: Layout.match_rows (row top * 5 + color + 1)
    "last_ok",  # (K,) bool: kinds the last_card switch lets be a player's last card
    "classic_direct",  # bool: kinds 0 .. 51 colored (color * 13 + rank), each played by its number's action
)
#: Work arrays of the kernel, which never allocates (:mod:`.nb_jit`). A kernel call holds the
#: GIL and calls do not nest, so one set per rule set is enough.
_WORK = (
    "work_keys",  # (D,) uint64: shuffle keys
    "work_order",  # (D,) int64: a shuffle's order
    "work_temp",  # (D,) int64: the merge sort's other buffer
    "work_cards",  # (D,) int8: cards to shuffle
    "work_dealt",  # (D,) int8: the shuffled cards (Shuffle Hands)
    "work_counts",  # (K,) int64: cards of each kind
    "work_hands",  # (P, K) int8: hands being moved
    "work_sizes",  # (P,) int16: their sizes
    "work_seats",  # (P,) int64: seats
    "work_voids",  # (2, P) int8: void colors and symbols being moved
    "work_points",  # (P,) int64: card points of each hand
)

#: Every observation piece's name (the classic pieces, then the extended layout's): the
#: index of a piece in ``RuleTables.obs_start``.
OBS_PIECES = tuple(name for name, _ in EXTENDED.pieces)

_FIELDS = _PLAIN + _CODED + _DERIVED + _LAYOUT + _TABLES + _WORK


@register
class RuleTablesType(FieldsType):
    """The numba type of :class:`RuleTables`."""


class RuleTables(FieldsProxy):
    """A rule set as the kernel sees it (one pointer when passed: see :mod:`.nb_state`);
    Python reads its fields as attributes too."""


structref.define_proxy(RuleTables, RuleTablesType, list(_FIELDS))


@numba.njit(cache=True)
def _new_rule_tables(*fields):
    # Compiled once and cached on disk, unlike the proxy's own constructor.
    return RuleTables(*fields)


def code(switch: str, value: str) -> int:
    """The code of ``value`` of the string switch ``switch`` (its index in CHOICES)."""
    return CHOICES[switch].index(value)


#: The rule set last asked for and its tables: every engine call asks for the tables, and
#: hashing a ``Rules`` for the value cache costs about a microsecond, a tenth of a one-game step.
_last_asked: tuple[Rules | None, RuleTables | None] = (None, None)


def rule_tables(rules: Rules) -> RuleTables:
    """The :class:`RuleTables` of ``rules`` (cached per rule set: equal rules share them)."""
    global _last_asked
    last_rules, tables = _last_asked
    if rules is last_rules:
        return tables
    tables = _tables_of_equal_rules(rules)
    _last_asked = (rules, tables)
    return tables


@functools.lru_cache(maxsize=64)
def _tables_of_equal_rules(rules: Rules) -> RuleTables:
    return build_rule_tables(rules)


def build_rule_tables(rules: Rules) -> RuleTables:
    """New :class:`RuleTables` of ``rules``, not cached (:func:`rule_tables` caches them)."""
    layout = rules.layout
    values = {name: getattr(rules, name) for name in _PLAIN}
    values["uno_forget_prob"] = float(values["uno_forget_prob"])
    values["uno_catch_prob"] = float(values["uno_catch_prob"])
    values.update({name: code(name, getattr(rules, name)) for name in _CODED})
    values.update({name: bool(getattr(rules, name)) for name in _DERIVED})
    for name in _LAYOUT:
        value = getattr(layout, name)
        values[name] = np.ascontiguousarray(value) if isinstance(value, np.ndarray) else value
    values["kind_points"] = layout.kind_points.astype(np.int32)
    values["symbol_slot"] = layout.symbol_slot.astype(np.int64)
    values["effect_rank"] = np.ascontiguousarray(rules.effect_rank)
    values["deck"] = np.ascontiguousarray(rules.deck_cards.cards, dtype=np.int8)
    values["dispenser_hazard"] = np.asarray(rules.dispenser_hazard, np.float64)
    values["dispenser_cdf"] = np.cumsum(np.asarray(rules.dispenser_count, np.float64))
    values["first_action"] = layout.first_action.astype(np.int64)
    values["kind_action_count"] = layout.kind_actions.sum(axis=1).astype(np.int64)
    values["obs_size"] = int(layout.obs_size)
    values["obs_start"] = np.array([layout.starts.get(n, -1) for n in OBS_PIECES], np.int64)
    void_symbol = layout.slices["void_symbol"]
    values["symbol_count"] = (void_symbol.stop - void_symbol.start) // OTHER_SEATS
    values["match_rows"] = np.ascontiguousarray(layout.match_rows, dtype=np.bool_)
    last_ok = np.ones(layout.num_kinds, np.bool_)
    if rules.last_card == "no-draw-four":
        last_ok &= ~layout.draw_four_like
    elif rules.last_card == "no-wild":
        last_ok &= layout.kind_color >= 0
    values["last_ok"] = last_ok
    values["classic_direct"] = bool(
        layout.num_kinds >= 52
        and (layout.kind_color[:52] == np.arange(52) // 13).all()
        and (values["first_action"][:52] == np.arange(52)).all()
        and (values["kind_action_count"][:52] == 1).all()
    )
    cards, kinds, p = values["deck"].size, layout.num_kinds, rules.players
    values.update(
        work_keys=np.zeros(cards, np.uint64),
        work_order=np.zeros(cards, np.int64),
        work_temp=np.zeros(cards, np.int64),
        work_cards=np.zeros(cards, np.int8),
        work_dealt=np.zeros(cards, np.int8),
        work_counts=np.zeros(kinds, np.int64),
        work_hands=np.zeros((p, kinds), np.int8),
        work_sizes=np.zeros(p, np.int16),
        work_seats=np.zeros(p, np.int64),
        work_voids=np.zeros((2, p), np.int8),
        work_points=np.zeros(p, np.int64),
    )
    for name in _PLAIN + _DERIVED + ("extended",):
        if isinstance(values[name], bool | np.bool_):
            values[name] = bool(values[name])
    for name in ("players", "hand_size", "uno_penalty", "match_target", "match_rounds",
                 "max_turns", "num_kinds", "num_actions"):  # fmt: skip
        values[name] = int(values[name])
    # Arrays that arrive read-only (a Rules unpickled from Ray's object store) would make
    # another structure type, for which numba compiles every kernel anew: copy them.
    for name, value in values.items():
        if isinstance(value, np.ndarray) and not value.flags.writeable:
            values[name] = value.copy()
    tables = _new_rule_tables(*(values[name] for name in _FIELDS))
    tables.fields = values
    return tables

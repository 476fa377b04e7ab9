"""The rules' switches: the allowed values of each (:data:`CHOICES`, :data:`RANGES`) and
the checks that give a clear :class:`RulesError` for a bad key or value.

:class:`~uno_rl.core.rules.Rules` (one field per switch) runs these checks; its docstring
says what each switch means.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping
from typing import Any


class RulesError(ValueError):
    """An invalid rules key or value, contradictory switches, or an unknown preset."""


#: Allowed values of every string-valued switch (default first).
CHOICES: dict[str, tuple[str, ...]] = {
    "drawn_card": ("may-play", "must-play", "may-not-play", "auto-play"),
    "draw_four_legal": ("no-current-color", "no-playable-card"),
    "bluffing": ("allowed", "forbidden"),
    "caught_bluffer": ("draws-4", "takes-back", "loses-turn"),
    "stacking": ("none", "same", "any"),
    "last_card": ("any", "no-draw-four", "no-wild"),
    "first_wild_color_by": ("first-player", "dealer", "random"),
    "scoring": ("winner-takes", "losers-add", "rounds"),
    "dealer": ("random", "rotate"),
    "reward": ("win-loss", "points"),
    "dispenser": ("auto", "on", "off"),
    "customizable_as": (
        "wild", "wild-hit-fire", "wild-all-hit", "wild-swap-hands", "wild-shuffle-hands",
        "downpour+1", "downpour+2",
    ),
}  # fmt: skip

#: 1 + Binomial(11, 0.36): the default number of cards a dispenser fire shoots (1 .. 12).
DEFAULT_DISPENSER_COUNT = tuple(math.comb(11, k) * 0.36**k * 0.64 ** (11 - k) for k in range(12))

#: Inclusive ranges of every numeric switch.
RANGES: dict[str, tuple[float, float]] = {
    "players": (2, 10),
    "hand_size": (1, 20),
    "uno_forget_prob": (0.0, 1.0),
    "uno_catch_prob": (0.0, 1.0),
    "uno_penalty": (1, 4),
    "match_target": (1, 100_000),
    "match_rounds": (0, 1_000),
    "max_turns": (10, 1_000_000),
}


def check_keys(values: Mapping[str, Any], names: Iterable[str]) -> None:
    """Every key of ``values`` is one of ``names`` (the switches), or a :class:`RulesError`
    naming the unknown key, the closest switch and the allowed ones."""
    names = list(names)
    for key in values:
        if key not in names:
            close = difflib.get_close_matches(str(key), names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise RulesError(f"unknown rules key {key!r}{hint}; allowed keys: {', '.join(names)}")


def probabilities(name: str, value: Any) -> tuple[float, ...]:
    """``value`` as a tuple of probabilities in [0, 1] (1 to 64 of them), or a clear error."""
    if not isinstance(value, list | tuple) or not 1 <= len(value) <= 64:
        raise RulesError(
            f"rules key {name!r} must be a list of 1 to 64 probabilities, got {value!r}"
        )
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int | float) or not 0 <= item <= 1:
            raise RulesError(
                f"rules key {name!r}: every entry must be a number in [0, 1], got {item!r}"
            )
    return tuple(float(v) for v in value)


def check_value(name: str, value: Any, default: Any) -> None:
    """``value`` of switch ``name`` is of the type of its ``default`` and allowed
    (:data:`CHOICES`, :data:`RANGES`), or a :class:`RulesError` naming the switch."""
    if isinstance(default, tuple):
        return  # lists of probabilities: checked by probabilities
    if name == "deck":
        if not isinstance(value, str) or not value.strip():
            raise RulesError(f"rules key 'deck' must be a deck name or a TOML path, got {value!r}")
        return  # loaded (and so checked) by Rules.deck_cards
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise RulesError(f"rules key {name!r} must be true or false, got {value!r}")
    elif isinstance(default, str):
        allowed = CHOICES[name]
        if value not in allowed:
            raise RulesError(
                f"rules key {name!r} must be one of {', '.join(map(repr, allowed))}; got {value!r}"
            )
    else:
        low, high = RANGES[name]
        kind = int if isinstance(default, int) else (int, float)
        if isinstance(value, bool) or not isinstance(value, kind):
            expected = "an integer" if kind is int else "a number"
            raise RulesError(
                f"rules key {name!r} must be {expected} in [{low}, {high}], got {value!r}"
            )
        if not low <= value <= high:
            raise RulesError(f"rules key {name!r} must be in [{low}, {high}], got {value!r}")

"""When to bluff and when to challenge: situation conditions on the heuristics' +4 play.

Every heuristic agent takes these parameters besides ``bluff`` and ``challenge``
(:data:`CONDITION_PARAMS`). A condition is a named threshold on what the deciding player can
see; at its default it is off (always true). The set conditions are combined by
``bluff_when`` / ``challenge_when``: ``all`` (every set condition holds) or ``any`` (one does).

**Bluffing** (a +4 that would be a bluff): the ``bluff`` coin is thrown only where the
conditions hold; elsewhere the agent never bluffs. ``color-first:bluff=1,bluff_next_max=2``
bluffs exactly when the next player holds at most 2 cards.

=====================  ==========================================================================
condition              holds when
=====================  ==========================================================================
``bluff_next_max``     the next player (in the direction of play) holds at most this many cards
``bluff_next_min``     ... at least this many
``bluff_hand_min``     its own hand (the +4 included) holds at least this many cards
``bluff_hand_max``     ... at most this many
``bluff_color_min``    it holds at least this many cards of the current color
``bluff_color_max``    ... at most this many
``bluff_wilds_max``    it holds at most this many wild cards besides the +4 it would play
                       (0: the +4 is its last wild)
``bluff_lead_min``     its match score minus the best other score is at least this (matches)
``bluff_lead_max``     ... at most this (negative: it is behind)
``bluff_top_min``      the highest match score at the table is at least this (late in a match)
``bluff_turn_min``     at least this many decisions of the round have been taken (the
                       engine's turn counter: every decision of every seat counts)
``bluff_turn_max``     ... at most this many
=====================  ==========================================================================

**Challenging**: the ``challenge`` policy decides only where the conditions hold; elsewhere the
agent accepts. ``color-first:challenge=always,challenge_own_max=1`` challenges exactly when it
holds one card (and would otherwise be set back four cards from winning).

=========================  ======================================================================
condition                  holds when
=========================  ======================================================================
``challenge_their_min``    the +4 player holds at least this many cards (after playing it)
``challenge_their_max``    ... at most this many
``challenge_named``        ``kept``: the +4 named the color that was current before it;
                           ``changed``: it named another; ``any``: off
``challenge_own_min``      its own hand holds at least this many cards
``challenge_own_max``      ... at most this many
``challenge_lead_min``     its match score minus the best other score is at least this
``challenge_lead_max``     ... at most this
``challenge_top_min``      the highest match score at the table is at least this
``challenge_turn_min``     at least this many decisions of the round have been taken
``challenge_turn_max``     ... at most this many
=========================  ======================================================================

Hand sizes, scores and the turn are public; the colors and wilds held are the player's own.
Scores are 0 outside matches (the lead then is 0). The functions work on
:class:`~uno_rl.agents.view.ObservationView` batches, all games at once.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from uno_rl.core.rules import Rules

from .base import Param
from .view import ObservationView

__all__ = [
    "BLUFF_CONDITIONS",
    "CHALLENGE_CONDITIONS",
    "CONDITION_PARAMS",
    "SituationFeatures",
    "active_conditions",
    "bluff_allowed",
    "challenge_allowed",
    "condition_label",
    "situation",
]

#: Off-value of an "at most" card count (no hand holds more).
MANY = 200
#: Off-values of a score lead (matches are played to at most a few thousand points).
LEAD_OFF = 100_000
#: Off-value of an "at most" turn count.
TURNS_OFF = 100_000


def _min(what: str) -> Param:
    return Param(0, f"holds when {what} is at least this (0: off)", low=0, high=MANY)


def _max(what: str) -> Param:
    return Param(MANY, f"holds when {what} is at most this ({MANY}: off)", low=0, high=MANY)


def _lead(bound: str, off: int) -> Param:
    return Param(
        off,
        f"holds when its match score minus the best other score is {bound} this ({off:+,}: off)",
        low=-LEAD_OFF,
        high=LEAD_OFF,
    )


def _score_min() -> Param:
    return Param(0, "holds when the highest match score at the table is at least this (0: off)",
                 low=0, high=LEAD_OFF)  # fmt: skip


def _turn_min() -> Param:
    return Param(0, "holds when the round has lasted at least this many decisions (0: off)",
                 low=0, high=TURNS_OFF)  # fmt: skip


def _turn_max() -> Param:
    return Param(
        TURNS_OFF,
        f"holds when the round has lasted at most this many decisions ({TURNS_OFF:,}: off)",
        low=0,
        high=TURNS_OFF,
    )


_COMBINE = ("all", "any")

#: The bluff conditions (checked where a +4 would be a bluff).
BLUFF_CONDITIONS: dict[str, Param] = {
    "bluff_next_min": _min("the next player's hand"),
    "bluff_next_max": _max("the next player's hand"),
    "bluff_hand_min": _min("its own hand"),
    "bluff_hand_max": _max("its own hand"),
    "bluff_color_min": _min("its cards of the current color"),
    "bluff_color_max": _max("its cards of the current color"),
    "bluff_wilds_max": _max("its wild cards besides the +4"),
    "bluff_lead_min": _lead("at least", -LEAD_OFF),
    "bluff_lead_max": _lead("at most", LEAD_OFF),
    "bluff_top_min": _score_min(),
    "bluff_turn_min": _turn_min(),
    "bluff_turn_max": _turn_max(),
}
#: The challenge conditions (checked where a +4 can be challenged).
CHALLENGE_CONDITIONS: dict[str, Param] = {
    "challenge_their_min": _min("the +4 player's hand"),
    "challenge_their_max": _max("the +4 player's hand"),
    "challenge_named": Param(
        "any",
        "kept: holds when the +4 named the color current before it; changed: another; any: off",
        ("any", "kept", "changed"),
    ),
    "challenge_own_min": _min("its own hand"),
    "challenge_own_max": _max("its own hand"),
    "challenge_lead_min": _lead("at least", -LEAD_OFF),
    "challenge_lead_max": _lead("at most", LEAD_OFF),
    "challenge_top_min": _score_min(),
    "challenge_turn_min": _turn_min(),
    "challenge_turn_max": _turn_max(),
}
#: Every condition parameter of the heuristics, with the two combiners.
CONDITION_PARAMS: dict[str, Param] = {
    **BLUFF_CONDITIONS,
    "bluff_when": Param("all", "how the set bluff conditions combine: all or any", _COMBINE),
    **CHALLENGE_CONDITIONS,
    "challenge_when": Param(
        "all", "how the set challenge conditions combine: all or any", _COMBINE
    ),
}
#: How a label writes each bound.
_SYMBOLS = {"min": ">=", "max": "<="}


class SituationFeatures:
    """What a condition reads, for k games seen from the deciding seat (int64 (k,) arrays).

    ``next_hand``, ``own_hand``, ``color_cards`` (own cards of the current color, 0 before
    a color is set), ``wilds`` (own wild cards), ``their_hand`` (the +4 player's cards; 0
    where no +4 is on top), ``kept_color`` (bool: the +4 named the color current before it),
    ``lead`` (own score minus the best other), ``top_score`` and ``turn``.
    """

    def __init__(self, view: ObservationView, rules: Rules):
        k = view.num_games
        rows = np.arange(k)
        sizes = view.hand_sizes
        self.own_hand = sizes[:, 0]
        self.next_hand = sizes[rows, view.next_seat]
        color = view.color
        self.color_cards = np.where(
            color >= 0, view.color_counts[rows, np.maximum(color, 0)], 0
        ).astype(np.int64)
        wild = view.layout.names_color  # the wild kinds (a Boomerang is colorless, no wild)
        self.wilds = np.rint(view.hand[:, wild].sum(axis=1)).astype(np.int64)
        on_d4 = view.draw4_player > 0
        self.their_hand = np.where(on_d4, sizes[rows, np.maximum(view.draw4_player, 0)], 0)
        self.kept_color = on_d4 & (view.color == view.previous_color)
        scores = view.match_scores(rules.match_target)
        self.top_score = scores.max(axis=1)
        others = scores[:, 1:].max(axis=1) if rules.players > 1 else 0
        self.lead = scores[:, 0] - others
        self.turn = view.decisions(rules.max_turns)


def situation(view: ObservationView, rules: Rules) -> SituationFeatures:
    """The :class:`SituationFeatures` of ``view`` under ``rules``."""
    return SituationFeatures(view, rules)


def active_conditions(params: Mapping, side: str) -> dict[str, object]:
    """The conditions of ``side`` (``bluff`` or ``challenge``) set away from their defaults."""
    table = BLUFF_CONDITIONS if side == "bluff" else CHALLENGE_CONDITIONS
    return {n: params[n] for n, p in table.items() if n in params and params[n] != p.default}


def _holds(name: str, value, f: SituationFeatures) -> np.ndarray:
    """(k,) bool: whether condition ``name`` at ``value`` holds in each game."""
    if name == "challenge_named":
        return f.kept_color if value == "kept" else ~f.kept_color
    what, bound = name.split("_", 1)[1].rsplit("_", 1)
    feature = {
        "next": f.next_hand, "hand": f.own_hand, "color": f.color_cards, "wilds": f.wilds,
        "lead": f.lead, "top": f.top_score, "turn": f.turn, "their": f.their_hand,
        "own": f.own_hand,
    }[what]  # fmt: skip
    return feature >= value if bound == "min" else feature <= value


def _combined(params: Mapping, side: str, view: ObservationView, rules: Rules, f=None):
    active = active_conditions(params, side)
    k = view.num_games
    if not active:
        return np.ones(k, bool)
    f = SituationFeatures(view, rules) if f is None else f
    held = np.stack([_holds(n, v, f) for n, v in active.items()])
    return held.any(axis=0) if params[f"{side}_when"] == "any" else held.all(axis=0)


def bluff_allowed(params: Mapping, view: ObservationView, rules: Rules) -> np.ndarray:
    """(k,) bool: where the bluff conditions of ``params`` hold (a +4 in hand: ``wilds``
    counts it, so the condition on the *other* wilds compares ``wilds - 1``)."""
    active = active_conditions(params, "bluff")
    if not active:
        return np.ones(view.num_games, bool)
    f = SituationFeatures(view, rules)
    f.wilds = np.maximum(f.wilds - 1, 0)
    return _combined(params, "bluff", view, rules, f)


def challenge_allowed(params: Mapping, view: ObservationView, rules: Rules) -> np.ndarray:
    """(k,) bool: where the challenge conditions of ``params`` hold."""
    return _combined(params, "challenge", view, rules)


def condition_label(params: Mapping, side: str) -> str:
    """A short name of the set conditions of ``side``: ``next<=2``, ``hand>=7&color<=1``,
    ``named=kept``, ``their>=5|own<=1``; ``always`` when none is set."""
    parts = []
    for name, value in active_conditions(params, side).items():
        if name == "challenge_named":
            parts.append(f"named={value}")
            continue
        what, bound = name.split("_", 1)[1].rsplit("_", 1)
        parts.append(f"{what}{_SYMBOLS[bound]}{value}")
    joiner = "|" if params.get(f"{side}_when") == "any" else "&"
    return joiner.join(parts) or "always"

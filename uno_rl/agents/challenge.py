"""When to challenge a +4: the ``challenge`` parameter of every heuristic agent.

=============  ==============================================================================
policy         challenges a +4 played on it when
=============  ==============================================================================
``never``      never (accepts, or stacks where the rules allow)
``always``     always
``threshold``  the +4 player still holds at least ``challenge_hand`` cards (0: never by size),
               or, with ``challenge_color=true``, named the color that was current before the
               +4 (keeping the color suggests they held it)
``bayes``      the probability that the +4 was a bluff, from public information, exceeds the
               break-even probability of the active penalty rules for ``objective``
               (:mod:`uno_rl.agents.bluff`)
=============  ==============================================================================

Every policy but ``never`` is gated by the challenge conditions (:mod:`.conditions`): it
decides only where they hold and accepts elsewhere.

``bayes`` counts the cards the observer has not seen (not in its hand, not in the discard pile)
and assumes they are spread uniformly over the unseen places; the +4 player's ``h`` cards are
then a uniform sample of them. With a memory it also uses colors passed on: when the next
player answered a color the agent left by drawing one card and keeping it, they held no card
of that color then (assuming they play when they can), so only the cards they drew since can
be of it. The bluff probability is computed over those cards instead of the whole hand.

New cards (rules specification §11, extended layout): a Targeted +4 is challenged like a +4
(only its victim is asked; ``draw4_player`` names its player). The unseen cards are counted
against the rules' deck (``rules.deck_cards``), and the memory forgets what it knew of the
seats of a hand swap and, after a Shuffle Hands, of everyone. A Boomerang answer, when the
agent plays one, comes before any challenge (:class:`uno_rl.agents.heuristic.HeuristicAgent`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from uno_rl.core.actions import DRAW, PASS
from uno_rl.core.cards import KIND_RANK, NUM_COLORS, WILD
from uno_rl.core.rules import Rules

from . import conditions
from .bluff import (
    bluff_kinds,
    bluff_probability,
    challenge_break_even,
    unseen_counts,
)
from .view import ObservationView

__all__ = [
    "POLICIES",
    "challenge_decisions",
    "memory_caps",
    "new_memory",
    "remember_action",
    "update_memory",
]

POLICIES = ("never", "always", "threshold", "bayes")
#: The symbol of the plain Wild.
WILD_RANK = int(KIND_RANK[WILD])
#: ``possible`` value meaning "no evidence: the whole hand".
UNKNOWN = np.int16(10_000)


def challenge_decisions(
    rules: Rules,
    params: Mapping,
    view: ObservationView,
    memory: Mapping[str, np.ndarray] | None = None,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """(k,) bool: challenge the +4 in each game (callers and it with the legal mask)."""
    policy = params["challenge"]
    k = view.num_games
    if policy == "never" or not rules.challenge_enabled:
        return np.zeros(k, bool)
    if not conditions.active_conditions(params, "challenge"):
        return _policy_decisions(rules, params, view, memory, rows)
    allowed = conditions.challenge_allowed(params, view, rules)
    return allowed & _policy_decisions(rules, params, view, memory, rows)


def _policy_decisions(rules, params, view, memory, rows) -> np.ndarray:
    """(k,) bool: the ``challenge`` policy's answer, conditions aside."""
    policy = params["challenge"]
    k = view.num_games
    if policy == "always":
        return np.ones(k, bool)
    bluffer = np.maximum(view.draw4_player, 0)
    their_cards = view.hand_sizes[np.arange(k), bluffer]
    if policy == "threshold":
        hand = params["challenge_hand"]
        decide = (their_cards >= hand) if hand > 0 else np.zeros(k, bool)
        if params["challenge_color"]:
            decide |= (view.color == view.previous_color) & (view.previous_color >= 0)
        return decide
    return bluff_estimate(rules, view, memory, rows) > challenge_break_even(
        rules, params["objective"]
    )


def bluff_estimate(
    rules: Rules,
    view: ObservationView,
    memory: Mapping[str, np.ndarray] | None = None,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """(k,) float64: the probability that the +4 on top was a bluff (0 where none is on top)."""
    k = view.num_games
    on_d4 = (view.previous_color >= 0) & (view.draw4_player > 0)
    previous = np.maximum(view.previous_color, 0)
    bluffer = np.maximum(view.draw4_player, 0)
    unseen = unseen_counts(view.hand, view.discard, rules.deck_cards.copies)
    kinds = bluff_kinds(rules, previous)
    unseen_bluff = (unseen * kinds).sum(axis=1)
    cards = view.hand_sizes[np.arange(k), bluffer]
    if memory is not None:
        cards = np.minimum(cards, memory_caps(memory, rows, view))
    estimate = bluff_probability(unseen_bluff, unseen.sum(axis=1), cards)
    return np.where(on_d4, estimate, 0.0)


def memory_caps(memory: Mapping[str, np.ndarray], rows: np.ndarray, view: ObservationView):
    """(k,) int16: how many of the +4 player's cards in games ``rows`` can be of the color it
    left, as the memory knows (:data:`UNKNOWN`: all); the ``bayes`` estimate counts only
    those (meaningful only where a +4 is on top)."""
    previous = np.maximum(view.previous_color, 0)
    bluffer = np.maximum(view.draw4_player, 0)
    return memory["possible"][rows, bluffer, previous]


# ---------------------------------------------------------------------- memory
def new_memory(num_games: int, players: int) -> dict[str, np.ndarray]:
    """Per-game memory of the ``bayes`` policy.

    ``sizes`` (N, P) int16: hand sizes (relative seats) at the agent's last decision, -1 before
    its first. ``next_seat`` (N,) int8: the relative seat that played after that decision.
    ``left_color`` (N,) int8: the color the agent left the next player with (-1 if its action
    gave no normal turn to them). ``possible`` (N, P, 4) int16: how many of each seat's cards
    can be of each color (:data:`UNKNOWN`: all of them).
    """
    return {
        "sizes": np.full((num_games, players), -1, np.int16),
        "next_seat": np.zeros(num_games, np.int8),
        "left_color": np.full(num_games, -1, np.int8),
        "possible": np.full((num_games, players, NUM_COLORS), UNKNOWN, np.int16),
    }


def update_memory(memory: Mapping[str, np.ndarray], rows: np.ndarray, view: ObservationView):
    """Fold in what changed since the agent's last decision in games ``rows``.

    In the extended layout a seat of the round's last hand swap, or every seat after a
    Shuffle Hands, holds cards nothing is known of: its evidence is dropped.
    """
    sizes_then = memory["sizes"][rows].astype(np.int64)
    sizes_now = view.hand_sizes
    seen = sizes_then[:, 0] >= 0
    growth = np.where(seen[:, None], sizes_now - sizes_then, 0)
    possible = memory["possible"][rows].astype(np.int64)
    known = possible < UNKNOWN
    if view.extended:
        known &= ~(view.swap_seats | view.shuffled[:, None])[:, :, None]
    possible = np.where(known, possible + np.maximum(growth, 0)[:, :, None], UNKNOWN)
    possible = np.minimum(possible, np.where(known, sizes_now[:, :, None], UNKNOWN))
    nxt = memory["next_seat"][rows].astype(np.int64)
    left = memory["left_color"][rows].astype(np.int64)
    r = np.arange(rows.size)
    passed = seen & (left >= 0) & (growth[r, nxt] == 1)
    if passed.any():
        idx = np.flatnonzero(passed)
        possible[idx, nxt[idx], left[idx]] = 0
    memory["possible"][rows] = possible.astype(np.int16)
    memory["sizes"][rows] = sizes_now.astype(np.int16)


def remember_action(
    memory: Mapping[str, np.ndarray],
    rows: np.ndarray,
    view: ObservationView,
    actions,
    rules: Rules | None = None,
) -> None:
    """Record the color each chosen action leaves the next player with: a number's color,
    the color a plain Wild names (in the extended layout also a Wild Customizable that
    ``rules`` leave a plain Wild), the current color after a draw or pass; none (-1) after
    any other card (its effect may give the next player cards or no turn)."""
    actions = np.asarray(actions, np.int64)
    layout = view.layout
    card = layout.action_card[actions].astype(np.int64)
    safe = np.maximum(card, 0)
    ranks = rules.effect_rank if rules is not None and view.extended else layout.kind_rank
    rank = ranks[safe]
    plain = (card >= 0) & (layout.kind_color[safe] >= 0) & (rank < 10)
    left = np.where(plain, layout.kind_color[safe], -1)
    wild = (card >= 0) & (rank == WILD_RANK) & (layout.kind_color[safe] < 0)
    left = np.where(wild, layout.action_color[actions], left)
    keep = (actions == DRAW) | (actions == PASS)
    left = np.where(keep, view.color, left)
    memory["left_color"][rows] = left.astype(np.int8)
    memory["next_seat"][rows] = view.next_seat.astype(np.int8)

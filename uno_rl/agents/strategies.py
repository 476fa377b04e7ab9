"""The heuristic strategies: how each ranks the cards it could play.

Everything else (phases, bluffing, challenging, color naming, and the shared handling of Swap
and Shuffle Hands, Targeted victims and Boomerangs) is shared:
:class:`uno_rl.agents.heuristic.HeuristicAgent`; what a Discard All sheds, by cards or points,
comes from :mod:`.play_order`. Scores are (k, K) float arrays over the
kinds of the rules' layout (K = 54 classic, 75 extended); a kind's effect is its
``rules.effect_rank`` symbol (a Wild Customizable's is ``customizable_as``).
"""

from __future__ import annotations

import numpy as np

from uno_rl.core.cards import DRAW_TWO_RANK, REVERSE_RANK, SKIP_RANK
from uno_rl.core.layout import (
    ALL_HIT,
    DISCARD_ALL,
    DOWNPOUR_ONE,
    DOWNPOUR_TWO,
    HIT_FIRE,
    HIT_TWO,
    SHUFFLE_HANDS,
    SWAP_HANDS,
    TARGETED_FOUR,
    TARGETED_TWO,
)
from uno_rl.core.rules import Rules

from .base import Param
from .colors import most_held_color
from .heuristic import COMMON_PARAMS, HeuristicAgent
from .play_order import discard_all_points, sheds_several

__all__ = ["AggressiveAgent", "ColorFirstAgent", "PointsDumperAgent", "RuleAgent"]

WILD_RANK, DRAW_FOUR_RANK = 13, 14

#: color-first's wild ranking by effect (after every colored card): attack wilds before the
#: plain Wild, a Swap / Shuffle Hands played as a Wild after it, the +4s last.
_COLOR_FIRST_WILDS = {
    HIT_FIRE: -950.0, ALL_HIT: -960.0, DOWNPOUR_TWO: -970.0, DOWNPOUR_ONE: -980.0,
    WILD_RANK: -1000.0, SWAP_HANDS: -1100.0, SHUFFLE_HANDS: -1100.0,
    TARGETED_FOUR: -1900.0, DRAW_FOUR_RANK: -2000.0,
}  # fmt: skip
#: aggressive: attack wilds when threatened (strongest first, +4 last among them) and when
#: not (weakest first, +4s last of all); the other wilds in its base ranking.
_AGGRESSIVE_THREAT = {
    HIT_FIRE: 9500.0, ALL_HIT: 9400.0, DOWNPOUR_TWO: 9300.0, TARGETED_FOUR: 9200.0,
    DOWNPOUR_ONE: 9100.0, DRAW_FOUR_RANK: 9000.0,
}  # fmt: skip
_AGGRESSIVE_CALM = {
    DOWNPOUR_ONE: -15100.0, DOWNPOUR_TWO: -15200.0, ALL_HIT: -15300.0, HIT_FIRE: -15400.0,
    TARGETED_FOUR: -19000.0, DRAW_FOUR_RANK: -20000.0,
}  # fmt: skip
_AGGRESSIVE_WILDS = {WILD_RANK: -500.0, SWAP_HANDS: -600.0, SHUFFLE_HANDS: -600.0}
#: Attacks on the next player, and on any player (the victim chosen or everyone hit).
_NEXT_ATTACKS = (SKIP_RANK, DRAW_TWO_RANK, HIT_TWO, HIT_FIRE, DRAW_FOUR_RANK)
_ANY_ATTACKS = (TARGETED_TWO, TARGETED_FOUR, ALL_HIT, DOWNPOUR_ONE, DOWNPOUR_TWO)


def _by_effect(effect: np.ndarray, table: dict[int, float], default: np.ndarray) -> np.ndarray:
    """(K,) float64: ``table[effect]`` where listed, else ``default``."""
    out = default.astype(np.float64).copy()
    for symbol, value in table.items():
        out[effect == symbol] = value
    return out


class _Tables:
    """Per-kind tables of one rule set: (K,) arrays over its layout's kinds."""

    def __init__(self, rules: Rules):
        layout = rules.layout
        self.effect = rules.effect_rank.astype(np.int64)
        #: some kind has the Discard All effect (else its shedding bonus is zero: skipped)
        self.discard_all = bool((self.effect == DISCARD_ALL).any())
        self.color = layout.kind_color.astype(np.int64)
        self.colored = self.color >= 0
        self.points = layout.kind_points.astype(np.float64)
        self.wild = layout.always_playable
        self.draw_four = layout.draw_four_like
        effect, colored = self.effect, self.colored
        rank_if_colored = effect * colored
        #: color-first: action cards, then higher numbers; wilds after every colored card.
        base = 100.0 * (colored & (effect >= SKIP_RANK)) + rank_if_colored
        self.color_first = _by_effect(effect, _COLOR_FIRST_WILDS, base)
        self.color_first[colored] = base[colored]
        #: (4, K): color-first's scores for each favorite color (its colored cards + 1000).
        self.color_first_by_favorite = np.where(
            self.color[None, :] == np.arange(4)[:, None],
            self.color_first + 1000.0,
            self.color_first,
        )
        self.rank_if_colored = rank_if_colored.astype(np.float64)
        self.aggressive_wilds = _by_effect(effect, _AGGRESSIVE_WILDS, np.full(len(effect), np.nan))
        self.next_attack = np.isin(effect, _NEXT_ATTACKS) & (colored | (effect >= WILD_RANK))
        if rules.players == 2:
            self.next_attack |= colored & (effect == REVERSE_RANK)
        self.any_attack = np.isin(effect, _ANY_ATTACKS)
        nan = np.full(len(effect), np.nan)
        self.threat_wilds = _by_effect(effect, _AGGRESSIVE_THREAT, nan)
        self.calm_wilds = _by_effect(effect, _AGGRESSIVE_CALM, nan)


def _tables(agent: HeuristicAgent) -> _Tables:
    tables = agent.__dict__.get("_strategy_tables")
    if tables is None:
        tables = agent.__dict__["_strategy_tables"] = _Tables(agent.rules)
    return tables


class RuleAgent(HeuristicAgent):
    """RLCard's UNO rule agent (``uno-rule-v1``, RLCard 1.2.0), for comparison with published
    numbers: a random playable colored card (each copy in hand equally likely); if none, a Wild
    naming a random color; if none, a +4 naming the color held most; draws only when nothing
    is playable. RLCard never bluffs nor challenges: the defaults ``bluff=0``,
    ``challenge=never`` reproduce that.

    New cards (extended layout; RLCard has none): the new colored cards (Discard All, Hit 2,
    Targeted +2) join the random colored cards, except that a Discard All shedding at least
    two other cards of its color goes first; every wild playable on anything (Hit-Fire, All
    Hit, Swap and Shuffle Hands, Customizable, Downpour) ranks with the Wild, one at random,
    naming a random color; a Targeted +4 ranks with the +4. Swap and Shuffle Hands, victims
    and Boomerangs as every heuristic (:class:`HeuristicAgent`)."""

    name = "rule"
    summary = "RLCard's rule agent: random colored card, then Wild, then +4"

    def card_scores(self, view, rng):
        t = _tables(self)
        k, kinds = view.hand.shape
        # Gumbel-max: argmax of log(copies) + Gumbel noise picks a kind with probability
        # proportional to the copies held.
        gumbel = -np.log(-np.log(rng.random((k, kinds)) + 1e-300) + 1e-300)
        scores = np.log(np.maximum(view.hand, 1e-12)) + gumbel
        scores[:, t.wild] = -1e6
        scores[:, t.draw_four] = -2e6
        if t.discard_all:
            scores += 100.0 * (sheds_several(view, self.rules) > 0)
        return scores

    def name_color(self, view, kinds, rng):
        most = super().name_color(view, kinds, rng)
        random = rng.integers(0, 4, kinds.shape[0])
        return np.where(_tables(self).wild[kinds], random, most)


class ColorFirstAgent(HeuristicAgent):
    """Plays the color it holds most of, action cards (Skip, Reverse, Draw Two) before numbers
    and higher numbers before lower; other colors next in the same order; wilds last (a Wild
    before a +4).

    New cards (extended layout), by the same color logic: Discard All, Hit 2 and Targeted +2
    are action cards of their color; a Discard All shedding at least two other cards of its
    color goes before every other card of that color. Wilds stay last: Hit-Fire, All Hit,
    Downpour +2, Downpour +1 (in that order) before a plain Wild (or a Customizable), then a
    Swap or Shuffle Hands played as a Wild, a Targeted +4 before a +4. Swap and Shuffle Hands
    that gain cards, victims and Boomerangs as every heuristic (:class:`HeuristicAgent`)."""

    name = "color-first"
    summary = "its most common color first, action cards before numbers, wilds last"

    def card_scores(self, view, rng):
        t = _tables(self)
        # One gather of the favorite color's row (a new array: scores are changed in place).
        scores = t.color_first_by_favorite[most_held_color(view, rng)]
        if t.discard_all:
            shed = sheds_several(view, self.rules)
            scores = scores + np.where(shed > 0, 100.0 + shed, 0.0)
        return scores


class PointsDumperAgent(HeuristicAgent):
    """Sheds its highest-value cards first (by card points: wilds 50, action cards 20, numbers
    their face value), so a lost round costs as little as possible.

    New cards (extended layout): by their points too (Hit-Fire, All Hit, Targeted +4 50; Swap,
    Shuffle Hands and Customizable 40; Hit 2, Targeted +2, Downpour 20), except a Discard All,
    worth its 30 points plus those of every other card of its color it sheds with it. Swap and
    Shuffle Hands that gain cards (they give the hand's points away), victims and Boomerangs as
    every heuristic (:class:`HeuristicAgent`)."""

    name = "points-dumper"
    summary = "sheds its highest-value cards first"

    def card_scores(self, view, rng):
        t = _tables(self)
        scores = np.broadcast_to(t.points, view.hand.shape).copy()
        if t.discard_all:
            scores += discard_all_points(view, self.rules)
        return scores


class AggressiveAgent(HeuristicAgent):
    """Saves its attack cards (Draw Two, Skip, +4, and Reverse with two players) for when the
    next player is close to UNO (at most ``attack_at`` cards): then it plays them first, the
    +4 last among them; otherwise it plays like ``color-first`` and uses attack cards only when
    nothing else is playable.

    New cards (extended layout): Hit 2 and Wild Hit-Fire attack the next player (as a Skip);
    Targeted +2 / +4, Wild All Hit and Downpour +1 / +2 attack any player, so they are played
    eagerly when any opponent holds at most ``attack_at`` cards (the Targeted ones then hit
    that player). Threatened, the colored attacks go first, then Hit-Fire, All Hit,
    Downpour +2, Targeted +4, Downpour +1, +4; saved, they come after every other card, the
    weakest first. A Discard All shedding at least two other cards of its color goes before
    the other cards of its color; Swap and Shuffle Hands played as a Wild come after a Wild.
    A Boomerang is played when the card's player or itself holds at most ``attack_at`` cards
    (always against a draw of 4). Swap and Shuffle Hands that gain cards and victims as every
    heuristic (:class:`HeuristicAgent`)."""

    name = "aggressive"
    summary = "saves Draw Two / Skip / +4 for a neighbor close to UNO"
    PARAMS = {
        **COMMON_PARAMS,
        "attack_at": Param(
            2, "the next player's hand size at or below which it attacks", low=0, high=108
        ),
    }

    def close_at(self) -> int:
        return int(self.params["attack_at"])

    def card_scores(self, view, rng):
        t = _tables(self)
        k, kinds = view.hand.shape
        favorite = most_held_color(view, rng)
        base = 100.0 * (t.color[None, :] == favorite[:, None]) + t.rank_if_colored[None, :]
        base = np.broadcast_to(base, (k, kinds)).copy()
        listed = ~np.isnan(t.aggressive_wilds)
        base[:, listed] = t.aggressive_wilds[listed]
        if t.discard_all:
            shed = sheds_several(view, self.rules)
            base += np.where(shed > 0, 20.0 + shed, 0.0)
        sizes = view.hand_sizes
        at = self.params["attack_at"]
        threat = sizes[np.arange(k), view.next_seat] <= at
        threat_any = sizes[:, 1:].min(axis=1) <= at
        on = np.where(t.any_attack[None, :], threat_any[:, None], threat[:, None])
        attack = t.next_attack | t.any_attack
        attack_score = np.where(on, 10_000.0 + base, -10_000.0 + base)
        wild = ~np.isnan(t.threat_wilds)
        attack_score[:, wild] = np.where(
            on[:, wild], t.threat_wilds[wild][None, :], t.calm_wilds[wild][None, :]
        )
        return np.where(attack[None, :], attack_score, base)

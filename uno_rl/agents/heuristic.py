"""The shared machinery of the heuristic agents: phases, bluffing, challenging, colors.

A heuristic strategy only ranks the cards it could play (:meth:`HeuristicAgent.card_scores`);
this class turns the ranking into legal actions in every phase, for all k games at once:

==============  ================================================================================
phase           decision
==============  ================================================================================
play            the best-ranked playable card (a Wild or +4 names the color it holds most of);
                draws only when nothing is playable. A +4 that would be a bluff (the player
                holds the current color, or under ``no-playable-card`` any playable card) is
                played with probability ``bluff`` where the bluff conditions hold
                (:mod:`.conditions`) and otherwise never.
drawn           plays the drawn card when allowed (``play_drawn``; a bluff +4 as above), else
                keeps it
respond         challenges a +4 by the ``challenge`` policy (:mod:`.challenge`) where the
                challenge conditions hold (:mod:`.conditions`); otherwise
                stacks or cancels with its best-ranked allowed card when ``stack``; else accepts
target          swaps hands with the opponent holding the fewest cards (seven-zero)
color           names the color it holds most of (first-card Wild)
multi           goes on with its best-ranked card of the same number, else stops
jump            jumps in
==============  ================================================================================

Ties are broken at random with the caller's generator, so a seeded run replays exactly.

New cards (rules specification §11, decks in the extended layout; shared by every heuristic,
from the observation alone; the classic layout plays exactly as before). Each choice lives with
the others of its role: :mod:`.play_order` (what goes first or is held back), :mod:`.targets`
(victims and swap partners), :mod:`.responses` (Boomerang answers), :mod:`.colors` (the color
named):

* **Wild Swap Hands**: played before anything else when the swap gains cards (the target with
  the fewest cards holds fewer than its hand would after the play); played as a plain Wild
  when it gains none or nobody can be chosen; held back (it draws or keeps a drawn card
  instead, when it may) when its hand is already smaller than every target's. Its last card
  is always played (it wins). In the target phase it swaps with the legal target holding the
  fewest cards (ties at random, as after a 7).
* **Wild Shuffle Hands**: the same, by the share the deal gives it: played first when its
  hand is larger than the average it would be dealt, held back when smaller.
* **Targeted +2 / +4**: the victim is the legal seat with the fewest cards; ties go to the one
  playing first, so the next player (who then also loses the turn) when they are tied.
  A Targeted +4 is bluffed and challenged like a +4; a bluff the ``bluff`` coin forces
  plays a Targeted +4 rather than a +4 when it holds both.
* **Boomerang** (respond phase): always against a draw of 4 or more; against a Skip or a draw
  of 2 when its own hand, or the hand of the card's player, is close to going out (at most
  2 cards; the aggressive agent: ``attack_at``); otherwise it keeps it and takes the Skip or
  draw (or challenges, or stacks, as above). The Boomerang answer comes before a challenge:
  it returns the 4 cards for sure. The observation does not say who played a Targeted +2:
  there only its own hand counts.
* Discard All, Hit 2, Wild Hit-Fire, Wild All Hit, Downpour and Wild Customizable (with the
  effect ``customizable_as`` gives it) are ranked by each strategy's :meth:`card_scores`.
  A wild names the color it holds most of.
"""

from __future__ import annotations

import functools
from typing import ClassVar

import numpy as np

from uno_rl.core.actions import ACCEPT, CHALLENGE, CHOOSE_COLOR, DRAW, PASS
from uno_rl.core.cards import WILD, WILD_DRAW_FOUR
from uno_rl.core.layout import TARGETED_FOUR, Layout
from uno_rl.core.phases import COLOR, DRAWN, JUMP, MULTI, PLAY, RESPOND
from uno_rl.core.phases import TARGET as TARGET_PHASE

from . import challenge, conditions, play_order, responses
from .base import Agent, Param, check_batch
from .colors import TIE_NOISE, most_held_color
from .state_view import StateView
from .targets import choose_target
from .view import ObservationView

__all__ = ["COMMON_PARAMS", "HeuristicAgent", "playable_kinds"]

COMMON_PARAMS: dict[str, Param] = {
    "bluff": Param(
        0.0, "probability of playing a +4 that would be a bluff (when holding one)", low=0, high=1
    ),
    "challenge": Param(
        "never", "challenge policy (see uno_rl.agents.challenge)", challenge.POLICIES
    ),
    "challenge_hand": Param(
        4,
        "threshold: challenge when the +4 player holds at least this many cards (0: off)",
        low=0,
        high=108,
    ),
    "challenge_color": Param(
        False, "threshold: also challenge when the +4 named the color current before it"
    ),
    "objective": Param(
        "own-cards",
        "bayes: what the challenge break-even minimises",
        ("own-cards", "card-difference"),
    ),
    "stack": Param(True, "answer a +2/+4 with a stacking or cancelling card when allowed"),
    "play_drawn": Param(True, "play a playable drawn card instead of keeping it"),
    **conditions.CONDITION_PARAMS,
}

#: Score of a card that cannot be played.
_NEVER = -np.inf


def playable_kinds(masks: np.ndarray, layout: Layout) -> np.ndarray:
    """(k, K) bool: the kinds some legal action of ``masks`` (k, A) plays, run by run of the
    layout's ``play_runs`` (a wild's flag is any of its four color actions)."""
    playable = np.empty((masks.shape[0], layout.num_kinds), bool)
    for actions, kinds, colors in layout.play_runs:
        out = playable[:, kinds]
        np.copyto(out, masks[:, actions.start : actions.stop : colors])
        for color in range(1, colors):
            out |= masks[:, actions.start + color : actions.stop : colors]
    return playable


@functools.cache
def _targeted_four(layout: Layout) -> int:
    """The layout's Targeted +4 kind, or the +4 where it has none."""
    kinds = layout.kinds_of(TARGETED_FOUR)
    return int(kinds[0]) if kinds.size else WILD_DRAW_FOUR


class HeuristicAgent(Agent):
    """Base class of the heuristics: subclasses rank cards with :meth:`card_scores`."""

    PARAMS: ClassVar[dict[str, Param]] = COMMON_PARAMS

    def card_scores(self, view: ObservationView, rng: np.random.Generator) -> np.ndarray:
        """(k, K) float: preference for playing each kind (higher first; K = 54 kinds in the
        classic layout, 75 in the extended one); only playable kinds are looked at. Ties are
        broken at random afterwards, in place: return a new array, never a view of shared
        data."""
        raise NotImplementedError

    def close_at(self) -> int:
        """Hand size at or below which a player counts as close to going out (Boomerang)."""
        return responses.CLOSE_TO_OUT

    def name_color(
        self, view: ObservationView, kinds: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """(k,) int64: the color to name when playing wild ``kinds``: the one held most."""
        return most_held_color(view, rng)

    @functools.cached_property
    def _changes_hands(self) -> bool:
        """The rules' deck has a Swap or Shuffle Hands effect (:mod:`.play_order`)."""
        return play_order.changes_hands(self.rules)

    # ------------------------------------------------------------------ protocol
    def new_memory(self, num_games: int):
        if self.params["challenge"] != "bayes" or not self.rules.challenge_enabled:
            return None
        return challenge.new_memory(num_games, self.rules.players)

    def act(self, observations, masks, rng, memory=None, rows=None):
        check_batch(observations, masks, True, self.rules)
        return self.act_view(ObservationView(observations, self.rules.players), masks, rng,
                             memory, rows)  # fmt: skip

    def act_on_state(self, state, masks, rng, rows=None) -> np.ndarray:
        """(k,) int64: the actions of the acting seat of the games ``rows`` (k,) of ``state``
        (None: all N), memoryless, read straight from the state
        (:class:`~.state_view.StateView`): the same actions as :meth:`act` on their
        observations, without building them (the search agents' play-outs)."""
        return self.act_view(StateView(state, rows), np.asarray(masks), rng)

    def act_view(self, view: ObservationView, masks, rng, memory=None, rows=None) -> np.ndarray:
        """(k,) int64: the actions for the k games of ``view`` (:meth:`act`'s body)."""
        k = view.num_games
        if memory is not None:
            rows = np.asarray(rows, np.int64)
            challenge.update_memory(memory, rows, view)
        actions = np.full(k, -1, np.int64)
        phase = view.phase
        handlers = {
            PLAY: self._play,
            DRAWN: self._drawn,
            RESPOND: self._respond,
            TARGET_PHASE: self._target,
            COLOR: self._color,
            MULTI: self._multi,
            JUMP: self._jump,
        }
        # The phases present, ascending (np.unique's order; a bincount is cheaper).
        for ph in np.flatnonzero(np.bincount(phase)):
            idx = np.flatnonzero(phase == ph)
            if int(ph) not in handlers:
                raise ValueError(f"{self.name}: no decision in phase {int(ph)} (is the game over?)")
            sub = view if idx.size == k else view.take(idx)
            sub_rows = None if rows is None else rows[idx]
            actions[idx] = handlers[int(ph)](sub, masks[idx], rng, memory, sub_rows)
        if memory is not None:
            challenge.remember_action(memory, rows, view, actions, self.rules)
        return actions

    # ------------------------------------------------------------------ phases
    def _choose_card(
        self, view: ObservationView, playable: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """Best playable kind per game and whether there is one: ((k,) int64, (k,) bool)."""
        scores = self.card_scores(view, rng)
        # In place, float32 noise scaled before it is added: the same values as adding
        # ``noise * TIE_NOISE`` (float32), without the mixed-type temporaries.
        noise = rng.random(playable.shape, dtype=np.float32)
        noise *= np.float32(TIE_NOISE)
        scores += noise
        if self._changes_hands:
            scores += play_order.gain_bonus(view, self.rules)
        np.copyto(scores, _NEVER, where=~playable)
        return scores.argmax(axis=1), playable.any(axis=1)

    def _play_actions(self, view, kinds, rng) -> np.ndarray:
        """Actions that play ``kinds`` (naming a color for wilds: :meth:`name_color`)."""
        color = self.name_color(view, kinds, rng)
        layout = self.rules.layout
        return layout.first_action[kinds] + np.where(layout.names_color[kinds], color, 0)

    def _same_card_actions(self, view, kinds, rng) -> np.ndarray:
        """Actions that play ``kinds`` in a multi-play or a jump-in. The classic layout's are
        colored cards and name no color, so they draw nothing from ``rng`` (seeded classic
        games replay as before); the extended layout's go through :meth:`_play_actions`."""
        if view.extended:
            return self._play_actions(view, kinds, rng)
        return self.rules.layout.first_action[kinds]

    def _playable_kinds(self, masks: np.ndarray) -> np.ndarray:
        """(k, K) bool: the kinds some legal action plays (:func:`playable_kinds`)."""
        return playable_kinds(masks, self.rules.layout)

    def _bluff_filter(self, view, playable, rng) -> np.ndarray:
        """Decide the would-be-bluff +4s (and Targeted +4s): (k,) bool forced plays; others
        removed in place."""
        k = playable.shape[0]
        d4_kinds = view.layout.draw_four_like
        d4 = playable[:, d4_kinds].any(axis=1)
        if not self.rules.challenge_enabled or not d4.any():
            return np.zeros(k, bool)
        if self.rules.draw_four_legal == "no-current-color":
            color = view.color
            bluff = (color >= 0) & (view.color_counts[np.arange(k), np.maximum(color, 0)] > 0)
        else:
            bluff = playable[:, ~d4_kinds].any(axis=1)
        bluff &= d4
        chance = self.params["bluff"]
        coin = np.full(k, chance >= 1.0) if chance in (0.0, 1.0) else rng.random(k) < chance
        if chance > 0.0:
            coin &= conditions.bluff_allowed(self.params, view, self.rules)
        playable[np.ix_(bluff & ~coin, d4_kinds)] = False
        return bluff & coin

    def _forced_kind(self, view, playable) -> np.ndarray:
        """(k,) int64: the +4-like card a forced bluff plays (a Targeted +4 when held)."""
        targeted = _targeted_four(self.rules.layout)
        return np.where(playable[:, targeted], targeted, WILD_DRAW_FOUR)

    def _hold_back(self, view, playable, fallback) -> None:
        """Remove the Swap / Shuffle Hands not worth playing (:func:`.play_order.held_back`)
        from ``playable`` in place, where something else is playable or ``fallback`` (k,)
        bool (drawing, keeping the drawn card) is legal."""
        if not self._changes_hands:
            return
        kept = playable & ~play_order.held_back(view, self.rules)
        ok = kept.any(axis=1) | fallback
        playable[ok] = kept[ok]

    def _play(self, view, masks, rng, memory, rows):
        playable = self._playable_kinds(masks)
        forced = self._bluff_filter(view, playable, rng)
        self._hold_back(view, playable, masks[:, DRAW])
        kinds, has = self._choose_card(view, playable, rng)
        kinds = np.where(forced, self._forced_kind(view, playable), kinds)
        return np.where(has | forced, self._play_actions(view, kinds, rng), DRAW)

    def _drawn(self, view, masks, rng, memory, rows):
        allowed = self._playable_kinds(masks)
        playable = allowed.copy()
        can_keep = masks[:, PASS]
        if not self.params["play_drawn"]:
            playable[can_keep] = False
        forced = self._bluff_filter(view, playable, rng)
        self._hold_back(view, playable, can_keep)
        stuck = ~can_keep & ~playable.any(axis=1) & ~forced
        playable[stuck] = allowed[stuck]  # must-play: the drawn card is the only legal action
        kinds, has = self._choose_card(view, playable, rng)
        kinds = np.where(forced, self._forced_kind(view, playable), kinds)
        return np.where(has | forced, self._play_actions(view, kinds, rng), PASS)

    def _respond(self, view, masks, rng, memory, rows):
        challenge_now = masks[:, CHALLENGE] & challenge.challenge_decisions(
            self.rules, self.params, view, memory, rows
        )
        playable = self._playable_kinds(masks)
        play = responses.boomerang_play(self.rules.layout)
        if play is not None:  # the layout has a Boomerang: it answers, it is never stacked
            boomerang_kind, boomerang_action = play
            boomerang = masks[:, boomerang_action] & responses.boomerang_answers(
                view, self.rules, self.close_at()
            )
            playable[:, boomerang_kind] = False
        if not self.params["stack"]:
            playable[:] = False
        kinds, has = self._choose_card(view, playable, rng)
        answer = np.where(has, self._play_actions(view, kinds, rng), ACCEPT)
        answer = np.where(challenge_now, CHALLENGE, answer)
        return answer if play is None else np.where(boomerang, boomerang_action, answer)

    def _target(self, view, masks, rng, memory, rows):
        return choose_target(view, masks, self.rules, rng)

    def _color(self, view, masks, rng, memory, rows):
        kinds = np.full(view.num_games, WILD)
        return CHOOSE_COLOR + self.name_color(view, kinds, rng)

    def _multi(self, view, masks, rng, memory, rows):
        playable = self._playable_kinds(masks)
        kinds, has = self._choose_card(view, playable, rng)
        return np.where(has, self._same_card_actions(view, kinds, rng), PASS)

    def _jump(self, view, masks, rng, memory, rows):
        playable = self._playable_kinds(masks)
        if not view.extended:  # the classic heuristics jump in with a colored card only
            playable &= self.rules.layout.kind_color >= 0
        kinds, has = playable.argmax(axis=1), playable.any(axis=1)
        return np.where(has, self._same_card_actions(view, kinds, rng), PASS)

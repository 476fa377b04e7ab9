"""The shared machinery of the heuristic agents: phases, bluffing, challenging, colors.

A heuristic strategy only ranks the cards it could play (:meth:`HeuristicAgent.card_scores`);
this class turns the ranking into legal actions in every phase, for all k games at once:

==============  ================================================================================
phase           decision
==============  ================================================================================
play            the best-ranked playable card (a Wild or +4 names the color it holds most of);
                draws only when nothing is playable. A +4 that would be a bluff (the player
                holds the current color, or under ``no-playable-card`` any playable card) is
                played with probability ``bluff`` and otherwise never.
drawn           plays the drawn card when allowed (``play_drawn``; a bluff +4 as above), else
                keeps it
respond         challenges a +4 by the ``challenge`` policy (:mod:`.challenge`); otherwise
                stacks or cancels with its best-ranked allowed card when ``stack``; else accepts
target          swaps hands with the opponent holding the fewest cards (seven-zero)
color           names the color it holds most of (first-card Wild)
multi           goes on with its best-ranked card of the same number, else stops
jump            jumps in
==============  ================================================================================

Ties are broken at random with the caller's generator, so a seeded run replays exactly.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from uno_rl.core.actions import (
    ACCEPT,
    CHALLENGE,
    CHOOSE_COLOR,
    DRAW,
    PASS,
    PLAY_DRAW_FOUR,
    PLAY_WILD,
    TARGET,
)
from uno_rl.core.cards import NUM_KINDS, WILD, WILD_DRAW_FOUR
from uno_rl.core.phases import COLOR, DRAWN, JUMP, MULTI, PLAY, RESPOND
from uno_rl.core.phases import TARGET as TARGET_PHASE

from . import challenge
from .base import Agent, Param, check_batch
from .view import ObservationView

__all__ = ["COMMON_PARAMS", "HeuristicAgent"]

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
}

#: Score of a card that cannot be played.
_NEVER = -np.inf
_TIE_NOISE = 1e-3


class HeuristicAgent(Agent):
    """Base class of the heuristics: subclasses rank cards with :meth:`card_scores`."""

    PARAMS: ClassVar[dict[str, Param]] = COMMON_PARAMS

    def card_scores(self, view: ObservationView, rng: np.random.Generator) -> np.ndarray:
        """(k, 54) float: preference for playing each kind (higher first); only playable
        kinds are looked at. Ties are broken at random afterwards, in place: return a new
        array, never a view of shared data."""
        raise NotImplementedError

    def name_color(
        self, view: ObservationView, kinds: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """(k,) int64: the color to name when playing wild ``kinds``: the one held most."""
        counts = view.color_counts + rng.random(view.color_counts.shape) * _TIE_NOISE
        return counts.argmax(axis=1)

    # ------------------------------------------------------------------ protocol
    def new_memory(self, num_games: int):
        if self.params["challenge"] != "bayes" or not self.rules.challenge_enabled:
            return None
        return challenge.new_memory(num_games, self.rules.players)

    def act(self, observations, masks, rng, memory=None, rows=None):
        k = check_batch(observations, masks, True)
        view = ObservationView(observations, self.rules.players)
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
        for ph in np.unique(phase):
            idx = np.flatnonzero(phase == ph)
            if int(ph) not in handlers:
                raise ValueError(f"{self.name}: no decision in phase {int(ph)} (is the game over?)")
            sub = view if idx.size == k else ObservationView(view.obs[idx], self.rules.players)
            sub_rows = None if rows is None else rows[idx]
            actions[idx] = handlers[int(ph)](sub, masks[idx], rng, memory, sub_rows)
        if memory is not None:
            challenge.remember_action(memory, rows, view, actions)
        return actions

    # ------------------------------------------------------------------ phases
    def _choose_card(
        self, view: ObservationView, playable: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """Best playable kind per game and whether there is one: ((k,) int64, (k,) bool)."""
        scores = self.card_scores(view, rng)
        scores += rng.random(playable.shape, dtype=np.float32) * _TIE_NOISE
        scores[~playable] = _NEVER
        return scores.argmax(axis=1), playable.any(axis=1)

    def _play_actions(self, view, kinds, rng) -> np.ndarray:
        """Actions that play ``kinds`` (naming a color for wilds)."""
        color = self.name_color(view, kinds, rng)
        return np.where(
            kinds == WILD,
            PLAY_WILD + color,
            np.where(kinds == WILD_DRAW_FOUR, PLAY_DRAW_FOUR + color, kinds),
        )

    def _playable_kinds(self, masks: np.ndarray) -> np.ndarray:
        playable = np.zeros((masks.shape[0], NUM_KINDS), bool)
        playable[:, :52] = masks[:, :52]
        playable[:, WILD] = masks[:, PLAY_WILD : PLAY_WILD + 4].any(axis=1)
        playable[:, WILD_DRAW_FOUR] = masks[:, PLAY_DRAW_FOUR : PLAY_DRAW_FOUR + 4].any(axis=1)
        return playable

    def _bluff_filter(self, view, playable, rng) -> np.ndarray:
        """Decide the would-be-bluff +4s: (k,) bool forced plays; others removed in place."""
        k = playable.shape[0]
        d4 = playable[:, WILD_DRAW_FOUR]
        if not self.rules.challenge_enabled or not d4.any():
            return np.zeros(k, bool)
        if self.rules.draw_four_legal == "no-current-color":
            color = view.color
            bluff = (color >= 0) & (view.color_counts[np.arange(k), np.maximum(color, 0)] > 0)
        else:
            bluff = playable[:, :WILD_DRAW_FOUR].any(axis=1)
        bluff &= d4
        chance = self.params["bluff"]
        coin = np.full(k, chance >= 1.0) if chance in (0.0, 1.0) else rng.random(k) < chance
        playable[bluff & ~coin, WILD_DRAW_FOUR] = False
        return bluff & coin

    def _play(self, view, masks, rng, memory, rows):
        playable = self._playable_kinds(masks)
        forced = self._bluff_filter(view, playable, rng)
        kinds, has = self._choose_card(view, playable, rng)
        kinds = np.where(forced, WILD_DRAW_FOUR, kinds)
        return np.where(has | forced, self._play_actions(view, kinds, rng), DRAW)

    def _drawn(self, view, masks, rng, memory, rows):
        allowed = self._playable_kinds(masks)
        playable = allowed.copy()
        can_keep = masks[:, PASS]
        if not self.params["play_drawn"]:
            playable[can_keep] = False
        forced = self._bluff_filter(view, playable, rng)
        stuck = ~can_keep & ~playable.any(axis=1) & ~forced
        playable[stuck] = allowed[stuck]  # must-play: the drawn card is the only legal action
        kinds, has = self._choose_card(view, playable, rng)
        kinds = np.where(forced, WILD_DRAW_FOUR, kinds)
        return np.where(has | forced, self._play_actions(view, kinds, rng), PASS)

    def _respond(self, view, masks, rng, memory, rows):
        challenge_now = masks[:, CHALLENGE] & challenge.challenge_decisions(
            self.rules, self.params, view, memory, rows
        )
        playable = self._playable_kinds(masks)
        if not self.params["stack"]:
            playable[:] = False
        kinds, has = self._choose_card(view, playable, rng)
        answer = np.where(has, self._play_actions(view, kinds, rng), ACCEPT)
        return np.where(challenge_now, CHALLENGE, answer)

    def _target(self, view, masks, rng, memory, rows):
        others = view.hand_sizes[:, 1:].astype(np.float64)
        others = others + rng.random(others.shape) * _TIE_NOISE
        return TARGET + others.argmin(axis=1)

    def _color(self, view, masks, rng, memory, rows):
        kinds = np.full(view.obs.shape[0], WILD)
        return CHOOSE_COLOR + self.name_color(view, kinds, rng)

    def _multi(self, view, masks, rng, memory, rows):
        playable = self._playable_kinds(masks)
        kinds, has = self._choose_card(view, playable, rng)
        return np.where(has, kinds, PASS)

    def _jump(self, view, masks, rng, memory, rows):
        card = np.where(masks[:, :52].any(axis=1), masks[:, :52].argmax(axis=1), PASS)
        return card

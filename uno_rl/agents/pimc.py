"""``pimc``: perfect-information Monte Carlo search over determinized worlds, batched.

At a decision with two or more legal actions, the agent samples ``determinizations`` worlds
consistent with what it knows (:mod:`.determinize`), gives each world ``rollouts`` draw-pile
orders of its own, and for every legal action plays each (world, pile) lane out to the end of
the round with the ``rollout`` agent in every seat (:mod:`.playout`). It plays the action with
the best mean value under ``objective`` (net card points by default). Every action of a game
is tried on the same lanes (common random numbers: the comparison is paired). All the lanes
of all the games of a call, up to ``lanes`` at a time, are one batched state. What it knows
and what the search agents share: :mod:`.search`.

With ``margin = z`` > 0 it plays what the rollout agent itself would play (from the seat's own
view) unless another action's paired mean beats that choice by more than ``z`` standard
errors: the search only corrects its rollout agent where the play-outs are sure. Searching
with ``ppo-official-2p`` through belief worlds, the best mean alone lost to the bot (-2.37
net points a round); with ``margin=1`` it beats it (+9.47, 1,000 rounds; docs: Results, search agents).
"""

from __future__ import annotations

import numpy as np

from .base import Param
from .search import SearchAgent, reshuffle_piles

__all__ = ["PIMCAgent"]


class PIMCAgent(SearchAgent):
    """Perfect-information Monte Carlo: the best mean over determinized play-outs (module
    docstring of :mod:`uno_rl.agents.pimc`)."""

    name = "pimc"
    summary = "determinized Monte Carlo search: each action played out in sampled worlds"
    PARAMS = {
        "determinizations": Param(
            0,
            "worlds sampled per decision (hidden hands and pile); 0: 32 at 2 players, 128 at "
            "more (more hidden hands)",
            low=0,
            high=4096,
        ),
        "rollouts": Param(
            4, "draw-pile orders per world, each played out once per action", low=1, high=4096
        ),
        "margin": Param(
            0.0,
            "play the rollout agent's own choice unless an action's paired mean beats it by "
            "more than this many standard errors (0: always the best mean)",
            low=0.0,
            high=100.0,
        ),
        **SearchAgent.PARAMS,
    }

    def auto_worlds(self) -> int:
        """The worlds of ``determinizations=0``: 32 at 2 players, 128 at more (4 players,
        against three ``color-first`` on the same 2,000 rounds: +5.14 net points a round
        with 128, +1.88 with 64; docs: Results, search agents)."""
        return 32 if self.rules.players == 2 else 128

    def search(self, state, games, masks, rng, known) -> np.ndarray:
        d, r = self.params["determinizations"] or self.auto_worlds(), self.params["rollouts"]
        per_game = d * r
        k = games.size
        chosen = np.empty(k, np.int64)
        # Games in chunks of about `lanes` lanes: each game needs d * r * (its legal actions).
        need = masks.sum(axis=1) * per_game
        chunk_of = np.cumsum(need) // max(self.params["lanes"], 1)
        for chunk in np.unique(chunk_of):
            idx = np.flatnonzero(chunk_of == chunk)
            chosen[idx] = self._search_chunk(
                state, games[idx], masks[idx], rng, known.take(idx), d, r
            )
        return chosen

    def _search_chunk(self, state, games, masks, rng, known, d, r) -> np.ndarray:
        k = games.size
        per_game = d * r
        worlds = self.worlds(state, games, d, rng, known)
        worlds = worlds.take(np.repeat(np.arange(worlds.num_games), r))
        reshuffle_piles(worlds, rng)
        # One (game, action) pair per legal action; each pair plays every world of its game.
        pair_game, pair_action = np.nonzero(masks)
        world_of_lane = (pair_game[:, None] * per_game + np.arange(per_game)[None, :]).ravel()
        lane_action = np.repeat(pair_action, per_game)
        values = self.evaluate_actions(
            worlds, world_of_lane, lane_action, rng, known.wary_worlds(per_game)
        ).reshape(pair_game.size, per_game)
        mean = values.mean(axis=1)
        if self.params["margin"] > 0:
            own = self.own_choice(state, games, masks, rng, known.wary)
            return self._correct(own, values, mean, pair_game, pair_action, k)
        best = np.full(k, -np.inf)
        np.maximum.at(best, pair_game, mean)
        # The first (lowest) action reaching its game's best mean (pairs are in game, then
        # action order).
        top = np.flatnonzero(mean >= best[pair_game])
        game_of_top, first = np.unique(pair_game[top], return_index=True)
        chosen = np.empty(k, np.int64)
        chosen[game_of_top] = pair_action[top[first]]
        return chosen

    def _correct(self, own, values, mean, pair_game, pair_action, k) -> np.ndarray:
        """(k,) int64: ``own`` (k,), the rollout agent's choices, replaced by the best-mean
        action among those whose paired difference to it, over the lanes ``values`` (pairs,
        L), is above ``margin`` standard errors."""
        own_pair = np.flatnonzero(pair_action == own[pair_game])  # one pair per game
        base = np.empty(k, np.int64)
        base[pair_game[own_pair]] = own_pair
        diff = values - values[base[pair_game]]
        spread = diff.std(axis=1, ddof=1) / np.sqrt(diff.shape[1])
        gain = diff.mean(axis=1)
        beats = (gain > self.params["margin"] * spread) & (gain > 0)
        score = np.where(beats, mean, -np.inf)
        best = np.full(k, -np.inf)
        np.maximum.at(best, pair_game, score)
        chosen = own.astype(np.int64).copy()
        top = np.flatnonzero(beats & (score >= best[pair_game]))
        game_of_top, first = np.unique(pair_game[top], return_index=True)
        chosen[game_of_top] = pair_action[top[first]]
        return chosen

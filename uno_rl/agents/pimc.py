"""``pimc``: perfect-information Monte Carlo search over determinized worlds, batched.

At a decision with two or more legal actions, the agent samples ``determinizations`` worlds
consistent with what it knows (:mod:`.determinize`), gives each world ``rollouts`` draw-pile
orders of its own, and for every legal action plays each (world, pile) lane out to the end of
the round with the ``rollout`` agent in every seat (:mod:`.playout`). It plays the action with
the best mean value under ``objective`` (net card points by default). Every action of a game
is tried on the same lanes (common random numbers: the comparison is paired). All the lanes
of all the games of a call, up to ``lanes`` at a time, are one batched state; a game whose
lanes alone are more is searched in blocks of worlds of at most ``lanes`` lanes, keeping only
each action's sums (its memory bounded by ``lanes``: :mod:`.search_budget`). What it knows
and what the search agents share: :mod:`.search`.

With ``margin = z`` > 0 it plays what the rollout agent itself would play (from the seat's own
view) unless another action's paired mean beats that choice by more than ``z`` standard
errors: the search only corrects its rollout agent where the play-outs are sure. Searching
with ``ppo-official-2p`` through belief worlds, the best mean alone lost to the bot (-2.37
net points a round); with ``margin=1`` it beats it (+9.47, 1,000 rounds; docs: Results, search agents).
"""

from __future__ import annotations

import numpy as np

from .base import AgentError, Param
from .search import SearchAgent, reshuffle_piles
from .search_budget import MAX_PLAYOUTS

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

    def check_budget(self, observes: bool | int | None) -> None:
        """Also refuse more than :data:`~uno_rl.agents.search_budget.MAX_PLAYOUTS` play-outs
        per legal action at a decision (determinizations x rollouts)."""
        d, r = self.params["determinizations"] or self.auto_worlds(), self.params["rollouts"]
        if d * r > MAX_PLAYOUTS:
            raise AgentError(
                f"agent {self.spec!r} asks {d * r:,} play-outs per legal action at every "
                f"decision (determinizations x rollouts = {d:,} x {r:,}); at most "
                f"{MAX_PLAYOUTS:,}: lower determinizations or rollouts"
            )
        super().check_budget(observes)

    def bookkeeping(self, lanes: int) -> tuple[int, str]:
        """The values of a chunk of games (fewer than 2 x ``lanes`` lanes) and their indices."""
        return 96 * lanes, "lower lanes"

    def search(self, state, games, masks, rng, known) -> np.ndarray:
        d, r = self.params["determinizations"] or self.auto_worlds(), self.params["rollouts"]
        lanes = max(self.params["lanes"], 1)
        chosen = np.empty(games.size, np.int64)
        # Each game needs d * r * (its legal actions) lanes. One that needs more than `lanes`
        # is searched alone, its worlds made and played `lanes` lanes at a time; the others
        # in chunks of about `lanes` lanes.
        need = masks.sum(axis=1) * (d * r)
        large = need > lanes
        for i in np.flatnonzero(large):
            rows = np.array([i])
            chosen[i] = self._search_large(
                state, games[rows], masks[i], rng, known.take(rows), d, r
            )
        small = np.flatnonzero(~large)
        chunk_of = np.cumsum(need[small]) // lanes
        for chunk in np.unique(chunk_of):
            idx = small[chunk_of == chunk]
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
        return self._best_mean(mean, pair_game, pair_action, k)

    def _search_large(self, state, games, mask, rng, known, d, r) -> int:
        """The action of one game (``games`` (1,), legal ``mask`` (A,)) whose d * r worlds
        times its legal actions exceed ``lanes``: its worlds are made and played out in blocks
        of at most ``lanes`` lanes (one world of each action at least), and only each
        action's sums are kept."""
        actions = np.flatnonzero(mask)
        a, n = actions.size, d * r
        block = max(1, self.params["lanes"] // a)  # worlds per block
        group = max(1, block // r)  # determinizations per group
        own = own_row = None
        if self.params["margin"] > 0:
            own = self.own_choice(state, games, mask[None, :], rng, known.wary)
            own_row = int(np.flatnonzero(actions == own[0])[0])
        total, gain_sum, gain_squares = np.zeros(a), np.zeros(a), np.zeros(a)
        for first in range(0, d, group):
            worlds = self.worlds(state, games, min(group, d - first), rng, known)
            count = worlds.num_games * r
            for start in range(0, count, block):
                lane_world = np.arange(start, min(start + block, count))
                lanes = worlds.take(lane_world // r)
                reshuffle_piles(lanes, rng)
                m = lane_world.size
                values = self.evaluate_actions(
                    lanes, np.tile(np.arange(m), a), np.repeat(actions, m), rng,
                    known.wary_worlds(m),
                ).reshape(a, m)  # fmt: skip
                total += values.sum(axis=1)
                if own_row is not None:
                    diff = values - values[own_row]
                    gain_sum += diff.sum(axis=1)
                    gain_squares += (diff**2).sum(axis=1)
        pair_game = np.zeros(a, np.int64)
        if own is None:
            return int(self._best_mean(total / n, pair_game, actions, 1)[0])
        gain = gain_sum / n
        variance = np.maximum(gain_squares - n * gain**2, 0.0) / max(n - 1, 1)
        spread = np.sqrt(variance / n) if n > 1 else np.full(a, np.nan)
        return int(self._corrected(own, total / n, gain, spread, pair_game, actions, 1)[0])

    @staticmethod
    def _best_mean(mean, pair_game, pair_action, k) -> np.ndarray:
        """(k,) int64: the first (lowest) action reaching its game's best ``mean`` (pairs are
        in game, then action order)."""
        best = np.full(k, -np.inf)
        np.maximum.at(best, pair_game, mean)
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
        return self._corrected(own, mean, gain, spread, pair_game, pair_action, k)

    def _corrected(self, own, mean, gain, spread, pair_game, pair_action, k) -> np.ndarray:
        """(k,) int64: ``own`` replaced by the best-mean action among the pairs whose mean
        paired difference to it, ``gain``, is above ``margin`` times its standard error
        ``spread``."""
        beats = (gain > self.params["margin"] * spread) & (gain > 0)
        score = np.where(beats, mean, -np.inf)
        best = np.full(k, -np.inf)
        np.maximum.at(best, pair_game, score)
        chosen = own.astype(np.int64).copy()
        top = np.flatnonzero(beats & (score >= best[pair_game]))
        game_of_top, first = np.unique(pair_game[top], return_index=True)
        chosen[game_of_top] = pair_action[top[first]]
        return chosen

"""``ismcts``: single-observer information-set MCTS over the agent's own actions, batched.

Information-set MCTS (Cowling, Powley and Whitehouse 2012) searches the acting seat's
information set instead of one world: every iteration draws a fresh determinization
(:mod:`.determinize`), picks the action to try by UCB1 over the statistics of all the
iterations so far, plays that action and plays the lane out with the ``rollout`` agent
(:mod:`.playout`). Here the tree is the agent's own decision: the root's children are its
legal actions (every one is available in every world, since a seat knows its own hand);
later decisions, its own included, are left to the rollout agent, as in PIMC. What differs
from ``pimc`` is where the play-outs go: PIMC spends the same number on every action, ISMCTS
spends them where they can still change the choice, and every play-out has a world of its own.

Iterations run in *waves*: each game's wave of ``wave`` play-outs per legal action is
allocated by UCB1 with the counts of the wave itself added as it is filled (so a wave spreads
over the actions as sequential UCB1 would), then played as one batch with every other game's
(its worlds dealt and played at most ``lanes`` at a time: :mod:`.search_budget`).
The first wave tries every action equally. The budget is ``iterations`` play-outs per legal
action (the lane budget of ``pimc`` with ``determinizations * rollouts = iterations``). UCB1's
values are scaled by the spread of the game's play-out values so far (``exploration`` is in
units of it); the agent plays the most tried action (ties: the better mean, then the lowest).
"""

from __future__ import annotations

import numpy as np

from .base import Param
from .determinize import world_blocks
from .search import SearchAgent

__all__ = ["ISMCTSAgent"]


class ISMCTSAgent(SearchAgent):
    """Single-observer ISMCTS with UCB1 over the agent's own actions (module docstring)."""

    name = "ismcts"
    summary = "information-set MCTS: UCB1 over own actions, a fresh world every play-out"
    PARAMS = {
        "iterations": Param(
            0,
            "play-outs per legal action (the decision's lane budget); 0: pimc's default "
            "budget, 128 at 2 players, 512 at more",
            low=0,
            high=1_000_000,
        ),
        "wave": Param(
            16, "play-outs per legal action in each batched wave of iterations", low=1, high=100_000
        ),  # fmt: skip
        "exploration": Param(
            0.7, "UCB1 exploration constant, in units of the values' spread", low=0.0, high=100.0
        ),  # fmt: skip
        **SearchAgent.PARAMS,
    }

    def bookkeeping(self, lanes: int) -> tuple[int, str]:
        """A wave's lane actions, values and games: fewer than ``lanes`` lanes plus the wave of
        one game (``wave`` per legal action, every action legal at most)."""
        return 48 * (lanes + self.rules.layout.num_actions * self.params["wave"]), "lower wave"

    def search(self, state, games, masks, rng, known) -> np.ndarray:
        chosen = np.empty(games.size, np.int64)
        need = masks.sum(axis=1) * self.params["wave"]
        chunk_of = np.cumsum(need) // max(self.params["lanes"], 1)
        for chunk in np.unique(chunk_of):
            idx = np.flatnonzero(chunk_of == chunk)
            chosen[idx] = self._search_chunk(state, games[idx], masks[idx], rng, known.take(idx))
        return chosen

    def _search_chunk(self, state, games, masks, rng, known) -> np.ndarray:
        k, actions = masks.shape
        wave = self.params["wave"]
        iterations = self.params["iterations"] or (128 if self.rules.players == 2 else 512)
        legal = masks.sum(axis=1)
        visits = np.zeros((k, actions), np.float64)
        total = np.zeros((k, actions), np.float64)
        squares = np.zeros(k, np.float64)  # for the spread of each game's values
        # One determinization per play-out: each game's wave is `wave` x (its legal actions).
        lane_game = np.repeat(np.arange(k), legal * wave)
        repeats = legal  # games repeated once per legal action, `wave` worlds each
        rep = np.repeat(np.arange(k), repeats)
        waves = -(-iterations // wave)
        for w in range(waves):
            if w == 0:  # every action the same number of tries
                allocation = masks * float(wave)
            else:
                allocation = self._allocate(visits, total, squares, masks, legal * wave)
            lane_action = _lane_actions(allocation.astype(np.int64), masks)
            values = self._wave_values(state, games[rep], lane_action, rng, known.take(rep))
            np.add.at(visits, (lane_game, lane_action), 1.0)
            np.add.at(total, (lane_game, lane_action), values)
            squares += np.bincount(lane_game, weights=values**2, minlength=k)
        mean = np.where(visits > 0, total / np.maximum(visits, 1), -np.inf)
        order = np.lexsort((-np.arange(actions)[None, :].repeat(k, 0), mean, visits), axis=1)
        # lexsort's last key is primary: most visits, then best mean, then lowest action.
        best = order[:, -1]
        return best.astype(np.int64)

    def _wave_values(self, state, entries, lane_action, rng, known) -> np.ndarray:
        """(E * wave,) float64: the values of one wave, ``wave`` worlds (lanes) of each of the
        games ``entries`` (E,) in turn, lane i trying ``lane_action[i]``; the worlds are made
        and played at most ``lanes`` at a time (:func:`~uno_rl.agents.determinize.world_blocks`)."""
        wave = self.params["wave"]
        values = np.empty(lane_action.size, np.float64)
        for rows, copies, start in world_blocks(entries.size, wave, self.params["lanes"]):
            part = slice(start, start + rows.size * copies)
            worlds = self.worlds(state, entries[rows], copies, rng, known.take(rows))
            values[part] = self.evaluate_actions(
                worlds, np.arange(worlds.num_games), lane_action[part], rng,
                known.take(rows).wary_worlds(copies),
            )  # fmt: skip
        return values

    def _allocate(self, visits, total, squares, masks, budget) -> np.ndarray:
        """(k, A) play-outs of the next wave per action: sequential UCB1 with the wave's own
        tries counted as they are handed out (``budget`` (k,) tries per game)."""
        k = masks.shape[0]
        n = visits.sum(axis=1)
        mean = total / np.maximum(visits, 1)
        all_mean = total.sum(axis=1) / np.maximum(n, 1)
        spread = np.sqrt(np.maximum(squares / np.maximum(n, 1) - all_mean**2, 1e-9))
        c = self.params["exploration"] * spread[:, None]
        added = np.zeros_like(visits)
        rows = np.arange(k)
        for step in range(int(budget.max())):
            count = visits + added
            score = mean + c * np.sqrt(np.log(n + step + 1)[:, None] / np.maximum(count, 1))
            score = np.where(masks, score, -np.inf)
            pick = score.argmax(axis=1)
            live = step < budget
            added[rows[live], pick[live]] += 1
        return added


def _lane_actions(allocation: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """(sum,) int64: each game's lanes in order, ``allocation[i, a]`` of them trying ``a``."""
    k, actions = allocation.shape
    return np.repeat(np.tile(np.arange(actions), k), allocation.reshape(-1))

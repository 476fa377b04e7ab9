"""The turn-based rollout buffer: the learner's transitions, linked per (game, seat) stream.

In a turn-based game a seat acts only now and then, so its trajectory is not a row of the
batch at consecutive steps. Each learner seat of each game is a *stream*; every transition
records the index of the same stream's next transition. A finished round gives each stream's
last transition its seat's reward and ends the stream (terminal). At the end of a rollout,
each stream's newest transition is *pending*: what follows it is not known yet. It bootstraps
the transitions before it (its value), is left out of this update, and is carried to the
front of the next rollout's buffer, where it is completed.

GAE runs backwards over the blocks of transitions added step by step (a stream's next
transition always lies in a later block), vectorized within each block.
"""

from __future__ import annotations

import numpy as np

from uno_rl.core.layout import CLASSIC

from .stored_obs import store

__all__ = ["TurnBuffer"]


class TurnBuffer:
    """Preallocated transitions (capacity C) of the learner's streams.

    Arrays (first axis: transition): ``obs`` (C, F) of ``obs_dtype`` (float32, or int16
    bfloat16 bits for a bfloat16 trunk: :mod:`uno_rl.ppo.stored_obs`), ``mask`` (C, A) bool
    (A: the layout's ``actions``, 77 classic or 122 extended),
    ``action`` (C,) int64, ``logp`` and ``value`` (C,) float32 (under the policy that acted),
    ``reward`` (C,) float32, ``terminal`` (C,) bool, ``next`` (C,) int64 (-1: none yet),
    ``stream`` (C,) int64. ``last`` (S,) int64: each stream's newest transition (-1: none).
    """

    def __init__(
        self,
        capacity: int,
        features: int,
        streams: int,
        actions: int = CLASSIC.num_actions,
        obs_dtype: np.dtype | type = np.float32,
    ):
        self.capacity = capacity
        self.obs = np.zeros((capacity, features), obs_dtype)
        self.mask = np.zeros((capacity, actions), bool)
        self.action = np.zeros(capacity, np.int64)
        self.logp = np.zeros(capacity, np.float32)
        self.value = np.zeros(capacity, np.float32)
        self.reward = np.zeros(capacity, np.float32)
        self.terminal = np.zeros(capacity, bool)
        self.next = np.full(capacity, -1, np.int64)
        self.stream = np.zeros(capacity, np.int64)
        self.last = np.full(streams, -1, np.int64)
        self.size = 0
        self.blocks: list[tuple[int, int]] = []

    def store(self, obs: np.ndarray) -> np.ndarray:
        """(k, F) observations as this buffer keeps them (:func:`.stored_obs.store`)."""
        return store(obs, self.obs.dtype)

    def add(self, streams, obs, mask, action, logp, value) -> np.ndarray:
        """Append one transition per stream in ``streams`` (distinct); returns their indices.
        ``obs``: float32 or already stored (:meth:`store`)."""
        k = len(streams)
        if self.size + k > self.capacity:
            raise RuntimeError(f"rollout buffer full ({self.capacity} transitions)")
        # Slices, not an index array: a block copy instead of a scatter (a few times faster
        # for the (k, F) observations).
        block = slice(self.size, self.size + k)
        idx = np.arange(self.size, self.size + k)
        self.obs[block], self.mask[block], self.action[block] = self.store(obs), mask, action
        self.logp[block], self.value[block] = logp, value
        self.reward[block], self.terminal[block], self.next[block] = 0.0, False, -1
        self.stream[block] = streams
        previous = self.last[streams]
        linked = previous >= 0
        self.next[previous[linked]] = idx[linked]
        self.last[streams] = idx
        self.blocks.append((self.size, self.size + k))
        self.size += k
        return idx

    def finish(self, streams: np.ndarray, rewards: np.ndarray) -> None:
        """Rounds ended: each stream's last transition gets its reward and ends the stream."""
        j = self.last[streams]
        ok = j >= 0
        self.reward[j[ok]] += rewards[ok]
        self.terminal[j[ok]] = True
        self.last[streams[ok]] = -1

    def add_reward(self, streams: np.ndarray, rewards: np.ndarray) -> None:
        """Add ``rewards`` to each stream's last transition; the streams go on."""
        j = self.last[streams]
        ok = j >= 0
        np.add.at(self.reward, j[ok], np.asarray(rewards, np.float32)[ok])

    def pending(self) -> np.ndarray:
        """(C,) bool over the filled part: transitions whose continuation is not known yet."""
        out = np.zeros(self.size, bool)
        live = self.last[self.last >= 0]
        out[live] = True
        return out

    def advantages(self, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """GAE: ``(advantages, returns, trainable)`` over the filled part.

        Pending transitions are not trainable (advantage 0); their values bootstrap the
        transitions before them.
        """
        n = self.size
        adv = np.zeros(n, np.float32)
        pending = self.pending()
        for start, stop in reversed(self.blocks):
            sl = slice(start, stop)
            nxt = self.next[sl]
            has = nxt >= 0
            cont = (~self.terminal[sl]).astype(np.float32)
            next_value = np.where(has, self.value[np.maximum(nxt, 0)], 0.0)
            next_adv = np.where(has, adv[np.maximum(nxt, 0)], 0.0)
            delta = self.reward[sl] + gamma * next_value * cont - self.value[sl]
            adv[sl] = np.where(pending[sl], 0.0, delta + gamma * lam * next_adv * cont)
        returns = adv + self.value[:n]
        return adv, returns, ~pending

    def carry_into(self, other: TurnBuffer) -> np.ndarray:
        """Move the pending transitions to the front of the empty buffer ``other``.

        Returns their new indices (their ``logp`` and ``value`` should be refreshed under the
        updated policy before the next rollout).
        """
        if other.size:
            raise ValueError("carry into an empty buffer")
        live = np.flatnonzero(self.last >= 0)
        old = self.last[live]
        order = np.argsort(old)
        live, old = live[order], old[order]
        if old.size:
            other.add(
                live,
                self.obs[old],
                self.mask[old],
                self.action[old],
                self.logp[old],
                self.value[old],
            )
        other.last[:] = -1
        other.last[live] = np.arange(old.size)
        return np.arange(old.size)

    def clear(self) -> None:
        self.size = 0
        self.blocks = []
        self.last[:] = -1

"""Recording the actions of many games played in lockstep.

:class:`ActionLog` keeps, for every game slot of a batched play loop, the seats that acted and
the actions they took, in preallocated ``(slots, capacity)`` buffers: one step of the loop
appends the whole batch with two fancy-indexed writes (no loop over games), and a slot's
history is read back only for the few games whose replay is kept. The capacity doubles when a
game outgrows it (a long match).
"""

from __future__ import annotations

import numpy as np

__all__ = ["ActionLog"]


class ActionLog:
    """Per-slot action history of a batched play loop.

    Args:
        slots: game slots (N).
        capacity: decisions each slot holds before the buffers grow.

    Attributes:
        seats: (N, capacity) int8: the seat that took each decision.
        actions: (N, capacity) int8: the action it took (0 .. 76).
        length: (N,) int64: decisions recorded in each slot since its last :meth:`clear`.
    """

    def __init__(self, slots: int, capacity: int = 1024):
        self.seats = np.zeros((slots, capacity), np.int8)
        self.actions = np.zeros((slots, capacity), np.int8)
        self.length = np.zeros(slots, np.int64)

    @property
    def capacity(self) -> int:
        return int(self.actions.shape[1])

    def append(self, games: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> None:
        """Record one decision in each of ``games`` (k,): ``seats`` and ``actions`` (k,)."""
        at = self.length[games]
        if at.size and int(at.max()) >= self.capacity:
            self._grow(2 * self.capacity)
        self.seats[games, at] = seats
        self.actions[games, at] = actions
        self.length[games] = at + 1

    def clear(self, games: np.ndarray) -> None:
        """Forget the history of ``games`` (a new game starts there)."""
        self.length[games] = 0

    def history(self, game: int) -> list[tuple[int, int]]:
        """The ``(seat, action)`` pairs of slot ``game``, in order."""
        n = int(self.length[game])
        return list(zip(self.seats[game, :n].tolist(), self.actions[game, :n].tolist()))

    def _grow(self, capacity: int) -> None:
        for name in ("seats", "actions"):
            old = getattr(self, name)
            new = np.zeros((old.shape[0], capacity), old.dtype)
            new[:, : old.shape[1]] = old
            setattr(self, name, new)

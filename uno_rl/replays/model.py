"""The replay's data: :class:`Replay`, its :class:`Outcome` and :class:`Violation`, and
:class:`ReplayError`.

The bottom of :mod:`uno_rl.replays`: :mod:`.rerun` (re-simulation) and :mod:`.format` (the
JSON file, which verifies with :mod:`.rerun`) both build on it, so neither imports the other
back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from uno_rl.core.rules import Rules

__all__ = ["Outcome", "Replay", "ReplayError", "Violation"]


class ReplayError(ValueError):
    """A replay file that cannot be read, or whose actions do not replay (names the step)."""


@dataclasses.dataclass(frozen=True)
class Outcome:
    """How the recorded game ended (or where it stopped).

    Attributes:
        finished: the round (in a match: the match) is over.
        winner: the round's winning seat (in a match: the match winner); -1 when truncated or
            unfinished.
        truncated: the round stopped at ``max_turns`` (a draw; never set in a match).
        rounds: rounds played (1 outside a match).
        decisions: actions taken in the whole game (the length of ``actions``).
        points: per seat, the evaluator's zero-sum points: the winner scores the card points
            left in the other hands and each loser minus their own (0 when truncated or
            unfinished); in a match, the match scores.
        scores: per seat, the engine's running scores (match scores under ``rules.match``).
    """

    finished: bool
    winner: int
    truncated: bool
    rounds: int
    decisions: int
    points: tuple[int, ...]
    scores: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Violation:
    """An illegal action an agent chose after the recorded actions (it was not applied).

    Attributes:
        seat: the seat that chose it.
        action: the action it chose (any integer, possibly out of range).
        message: the error the evaluator raised.
    """

    seat: int
    action: int
    message: str


@dataclasses.dataclass(frozen=True)
class Replay:
    """One recorded game.

    Attributes:
        rules: the full rule set.
        seed: the deal seed (``engine.reset(rules, [seed])`` deals the game).
        seats: who sat in each seat (agent specs, ``"human"``), one per player.
        actions: every decision in order, as ``(seat, action)`` pairs.
        preset: the preset name the rules came from (informational), or None.
        outcome: how the game ended, or None if not recorded.
        violation: an illegal action chosen after the last recorded one, or None.
        source: free-form metadata (program, agent seed, why the replay was kept, ...).
    """

    rules: Rules
    seed: int
    seats: tuple[str, ...]
    actions: tuple[tuple[int, int], ...]
    preset: str | None = None
    outcome: Outcome | None = None
    violation: Violation | None = None
    source: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.seats) != self.rules.players:
            raise ReplayError(
                f"a replay needs one seat name per player: {self.rules.players} players, "
                f"got {len(self.seats)} seats"
            )

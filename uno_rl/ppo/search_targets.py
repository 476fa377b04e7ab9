"""Search targets: the decisions a search agent took, kept as a policy's training targets.

:func:`collect_targets` plays duplicate-deal rounds of a search agent (line-up position 0, in
every seat in turn) against an opponent (every other position) with
:func:`uno_rl.eval.jobs.play_jobs`, and keeps each decision the search took with two or more
legal actions: the acting seat's observation, its legal mask and the action chosen. The
rounds' outcomes say how the search fared against the opponent (:func:`search_gain`).

Targets are kept on disk as one ``.npz`` file per batch of rounds (:func:`save_targets`,
written durably: a file exists whole or not at all) and read back and stacked for training
(:func:`load_targets`): generated once, reused by every later training step.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from uno_rl.agents.base import Agent
from uno_rl.core.observe import observe
from uno_rl.core.rules import Rules
from uno_rl.eval.jobs import Outcomes, play_jobs
from uno_rl.plumbing.durable import write_bytes_durably

__all__ = [
    "SearchTargets",
    "TargetsError",
    "collect_targets",
    "load_targets",
    "read_row",
    "save_targets",
    "search_gain",
]


class TargetsError(ValueError):
    """A targets file that cannot be read or does not fit (one line naming the file)."""


@dataclasses.dataclass
class SearchTargets:
    """T decisions of a search agent.

    Attributes:
        obs: (T, O) float32 observations of the acting seat (O: the layout's ``obs_size``).
        mask: (T, A) bool legal masks (A: the layout's ``num_actions``).
        action: (T,) int16 actions the search chose (each legal in its mask).
    """

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray

    @property
    def size(self) -> int:
        return int(self.action.shape[0])

    @classmethod
    def empty(cls, rules: Rules) -> SearchTargets:
        layout = rules.layout
        return cls(
            np.zeros((0, layout.obs_size), np.float32),
            np.zeros((0, layout.num_actions), bool),
            np.zeros(0, np.int16),
        )

    @classmethod
    def stack(cls, parts: Sequence[SearchTargets]) -> SearchTargets:
        """The decisions of ``parts`` (at least one), one after the other."""
        return cls(
            np.concatenate([p.obs for p in parts]),
            np.concatenate([p.mask for p in parts]),
            np.concatenate([p.action for p in parts]),
        )


def collect_targets(
    rules: Rules,
    search: Agent,
    opponent: Agent,
    deal_seeds: np.ndarray,
    rng: np.random.Generator,
    slots: int = 256,
    on_finished: Callable[[int], None] | None = None,
) -> tuple[SearchTargets, Outcomes]:
    """Play every deal of ``deal_seeds`` ((D,) uint64) once with ``search`` in each seat and
    ``opponent`` in the others; returns the search's decisions with a choice and the
    outcomes of the D x P rounds (or matches, under ``rules.match``)."""
    lineup = [search] + [opponent] * (rules.players - 1)
    kept: list[SearchTargets] = []

    def keep(state, live, masks, position, actions) -> None:
        actor = state.actor[live].astype(np.int64)
        rows = np.flatnonzero((position[np.arange(live.size), actor] == 0) & (masks.sum(1) > 1))
        if rows.size:
            view = state.take(live[rows])
            kept.append(
                SearchTargets(
                    observe(view, actor[rows]), masks[rows].copy(), actions[rows].astype(np.int16)
                )
            )

    outcomes = play_jobs(rules, lineup, deal_seeds, rng, slots=slots, on_finished=on_finished,
                         observer=keep)  # fmt: skip
    return (SearchTargets.stack(kept) if kept else SearchTargets.empty(rules)), outcomes


def search_gain(outcomes: Outcomes) -> tuple[float, float, int]:
    """``(net points a round, rounds won share, rounds)`` of line-up position 0 (the search)
    over ``outcomes``: its net points summed over every round, divided by the rounds."""
    seat_of_search = outcomes.position == 0
    rounds = int(outcomes.rounds.sum())
    points = float(outcomes.net_points[seat_of_search].sum())
    wins = float(outcomes.round_wins[seat_of_search].sum())
    return points / max(rounds, 1), wins / max(rounds, 1), rounds


def save_targets(
    path: str | os.PathLike[str], targets: SearchTargets, row: Mapping[str, Any] | None = None
) -> None:
    """Write ``targets`` to ``path`` (``.npz``, compressed) durably, with ``row`` (what they
    came from: a table row, as JSON) beside them."""
    buffer = io.BytesIO()
    about = np.array(json.dumps(dict(row or {})))
    np.savez_compressed(buffer, obs=targets.obs, mask=targets.mask, action=targets.action,
                        row=about)  # fmt: skip
    write_bytes_durably(path, buffer.getvalue())


def read_row(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The row saved with a targets file (:func:`save_targets`)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return json.loads(str(data["row"]))
    except (OSError, KeyError, ValueError, EOFError) as error:
        raise TargetsError(f"search targets {path}: not a targets file ({error})") from None


def load_targets(paths: Sequence[str | os.PathLike[str]], rules: Rules) -> SearchTargets:
    """The targets of every file of ``paths``, stacked; each must hold decisions of ``rules``'
    layout. :class:`TargetsError` (naming the file) otherwise."""
    layout = rules.layout
    parts = []
    for path in map(Path, paths):
        try:
            with np.load(path, allow_pickle=False) as data:
                part = SearchTargets(data["obs"], data["mask"], data["action"])
        except FileNotFoundError:
            raise TargetsError(f"search targets {path}: no such file") from None
        except (OSError, KeyError, ValueError, EOFError) as error:
            raise TargetsError(f"search targets {path}: not a targets file ({error})") from None
        t = part.action.shape[0] if part.action.ndim == 1 else -1
        if part.obs.shape != (t, layout.obs_size) or part.mask.shape != (t, layout.num_actions):
            raise TargetsError(
                f"search targets {path}: observations {part.obs.shape} and masks "
                f"{part.mask.shape} do not fit the {layout.name} layout ({layout.obs_size} "
                f"values, {layout.num_actions} actions)"
            )
        if t and not part.mask[np.arange(t), part.action.astype(np.int64)].all():
            raise TargetsError(f"search targets {path}: an action is not legal in its mask")
        parts.append(part)
    return SearchTargets.stack(parts) if parts else SearchTargets.empty(rules)

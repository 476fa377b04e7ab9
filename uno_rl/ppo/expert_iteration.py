"""Search distilled into the policy: expert iteration with a search agent and PPO.

A recipe is a training config (``train-*.toml``: the PPO settings of every training step,
``init_from`` the policy it starts from) with a ``[distill]`` table (:class:`DistillSettings`).
Iteration ``k`` of a run:

1. **Search data.** The search agent (``search``, e.g. ``pimc:margin=1``) searches with the
   current policy in its play-outs and plays against that policy on ``deals`` duplicate deals
   (each deal once with the search in each seat), ``chunk`` deals at a time, in single rounds
   of the recipe's rules (a match's rounds, without the match: :func:`search_rules`); every decision
   it took with a choice (observation, legal mask, action) is kept in a targets file,
   ``iter-K/targets-CCC.npz`` (:mod:`.search_targets`), and how the search fared against the
   policy in ``search.csv``.
2. **Training.** A PPO run (``iter-K/train/``) starts from the current policy and learns, besides
   the real game's reward, to choose as the search did (``distill_data``: the targets of
   iteration ``k`` and of every earlier one, reused; ``distill_coef``). Its ``policy.pt`` is
   the next iteration's policy, and goes back into the search.

Each file is written whole or not at all, so a run killed anywhere resumes where it stopped
(:func:`next_step`): a targets file is made once, and a training step resumes from its last
checkpoint. The run's ``policy.pt`` is the last iteration's.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from uno_rl.agents.registry import make_agent
from uno_rl.core.rules import Rules
from uno_rl.plumbing.durable import replace_durably

from .config import TrainConfig, TrainConfigError
from .search_targets import collect_targets, load_targets, read_row, save_targets, search_gain

__all__ = [
    "DistillSettings",
    "SEARCH_TABLE",
    "generate_chunk",
    "iteration_config",
    "next_step",
    "policy_of",
    "search_rules",
    "search_table",
    "split_recipe",
    "targets_files",
]

#: The table of how the search fared, one row per targets file.
SEARCH_TABLE = "search.csv"
#: Seed offset of iteration k's deals: k * this + the chunk (no training game's seed).
DEAL_SEED_STRIDE = 1_000_003


@dataclasses.dataclass(frozen=True)
class DistillSettings:
    """The ``[distill]`` table of a recipe.

    Attributes:
        iterations: search-then-train iterations.
        search: the search agent's spec; its ``rollout`` (and belief model) is set to the
            current policy.
        deals: duplicate deals of search data per iteration (each played once with the
            search in each seat).
        chunk: deals per targets file (the unit a killed run loses at most).
        slots: games the search plays in lockstep.
    """

    iterations: int = 2
    search: str = "pimc:margin=1"
    deals: int = 500
    chunk: int = 50
    slots: int = 64

    def __post_init__(self) -> None:
        for name, low, high in (("iterations", 1, 1000), ("deals", 1, 10_000_000),
                                ("chunk", 1, 10_000_000), ("slots", 1, 65_536)):  # fmt: skip
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise TrainConfigError(
                    f"distill.{name}: must be a whole number in [{low:,}, {high:,}], got {value!r}"
                )
        if not isinstance(self.search, str) or not self.search.strip():
            raise TrainConfigError(f"distill.search: must name a search agent, got {self.search!r}")

    @property
    def chunks(self) -> int:
        """Targets files per iteration."""
        return -(-self.deals // self.chunk)

    @classmethod
    def from_table(cls, table: Any, where: str) -> DistillSettings:
        """The settings of a recipe's ``[distill]`` table (errors start with ``where``)."""
        if not isinstance(table, Mapping):
            raise TrainConfigError(f"{where}: distill must be a table, got {type(table).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(table) - known)
        if unknown:
            raise TrainConfigError(
                f"{where}: distill.{unknown[0]} is not a setting (settings: {', '.join(sorted(known))})"
            )
        return cls(**table)


def split_recipe(data: Any, where: str) -> tuple[DistillSettings, dict[str, Any]]:
    """A recipe's table as its settings and its training config's fields."""
    if not isinstance(data, Mapping) or "distill" not in data:
        raise TrainConfigError(
            f"{where}: not a distillation recipe (a training config with a [distill] table)"
        )
    fields = {key: value for key, value in data.items() if key != "distill"}
    return DistillSettings.from_table(data["distill"], where), fields


def targets_files(run: Path, iteration: int, settings: DistillSettings) -> list[Path]:
    """The targets files of iteration ``iteration`` (made or to make), in order."""
    return [run / f"iter-{iteration}" / f"targets-{c:03d}.npz" for c in range(settings.chunks)]


def policy_of(run: Path, iteration: int, base: TrainConfig) -> str:
    """The policy iteration ``iteration`` searches with and starts from: the recipe's
    ``init_from`` for the first, the previous iteration's trained policy after."""
    if iteration == 0:
        if not base.init_from:
            raise TrainConfigError("init_from: distillation starts from a policy; name one")
        return base.init_from
    return str(run / f"iter-{iteration - 1}" / "train" / "policy.pt")


def iteration_config(run: Path, iteration: int, base: TrainConfig,
                     settings: DistillSettings) -> TrainConfig:  # fmt: skip
    """The training config of iteration ``iteration``: the recipe's, from the current policy,
    imitating every targets file so far."""
    files = [str(p) for k in range(iteration + 1) for p in targets_files(run, k, settings)]
    return dataclasses.replace(
        base,
        name=f"{base.name}-{iteration}",
        seed=base.seed + iteration,
        init_from=policy_of(run, iteration, base),
        distill_data=files,
    )


def next_step(run: Path, settings: DistillSettings) -> tuple[int, str, int]:
    """``(iteration, step, chunk)`` where the run goes on: step ``search`` (with the first
    missing chunk), ``train`` (a fresh or started training step), or ``done``."""
    for k in range(settings.iterations):
        for c, path in enumerate(targets_files(run, k, settings)):
            if not path.is_file():
                return k, "search", c
        if not (run / f"iter-{k}" / "train" / "policy.pt").is_file():
            return k, "train", 0
    return settings.iterations, "done", 0


def _policy_spec(path: str) -> str:
    """The agent spec of a policy: a shipped bot's name stays a name, a file a checkpoint."""
    return f"ppo:checkpoint={path}" if path.endswith(".pt") else path


def search_rules(base: TrainConfig) -> Rules:
    """The rules the search data is played under: the recipe's, in single rounds (a search
    values a round's net points; a match would cost a dozen rounds a deal)."""
    return dataclasses.replace(base, switches={**base.switches, "match": False}).rules()


def generate_chunk(run: Path, iteration: int, chunk: int, base: TrainConfig,
                   settings: DistillSettings, rules: Rules,
                   on_finished: Callable[[int], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """Play chunk ``chunk`` of iteration ``iteration``'s deals, write its targets file and
    return its row of :data:`SEARCH_TABLE` (also stored in the file)."""
    policy = _policy_spec(policy_of(run, iteration, base))
    search = make_agent(settings.search, rules, rollout=policy)
    opponent = make_agent(policy, rules)
    first = chunk * settings.chunk
    count = min(settings.chunk, settings.deals - first)
    seed = base.seed + DEAL_SEED_STRIDE * (iteration + 1) + chunk
    deal_rng = np.random.default_rng([seed, 1])
    deals = deal_rng.integers(0, 2**63, count, dtype=np.uint64)
    started = time.perf_counter()
    targets, outcomes = collect_targets(rules, search, opponent, deals,
                                        np.random.default_rng([seed, 2]), settings.slots,
                                        on_finished)  # fmt: skip
    points, wins, rounds = search_gain(outcomes)
    row = {
        "iteration": iteration, "chunk": chunk, "policy": policy_of(run, iteration, base),
        "search": search.spec, "deals": count, "rounds": rounds,
        "decisions": targets.size, "search_points_per_round": points,
        "search_round_win_share": wins, "seconds": time.perf_counter() - started,
    }  # fmt: skip
    path = targets_files(run, iteration, settings)[chunk]
    path.parent.mkdir(parents=True, exist_ok=True)
    save_targets(path, targets, row)
    return row


def search_table(run: Path, settings: DistillSettings) -> pd.DataFrame:
    """Every targets file's row (how the search fared), from the files themselves, and the
    table rewritten as ``search.csv`` (so a row is never lost nor doubled by a resume)."""
    rows = [read_row(path) for k in range(settings.iterations)
            for path in targets_files(run, k, settings) if path.is_file()]  # fmt: skip
    table = pd.DataFrame(rows)
    with replace_durably(run / SEARCH_TABLE) as tmp:
        table.to_csv(tmp, index=False)
    return table


def check_targets(run: Path, iteration: int, settings: DistillSettings, rules: Rules) -> int:
    """The decisions of iteration ``iteration``'s targets files (read and checked)."""
    return load_targets(targets_files(run, iteration, settings), rules).size

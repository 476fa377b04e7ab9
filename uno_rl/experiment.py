"""Run an experiment config: ``python -m uno_rl.experiment experiments/NAME.toml``.

The config (schema: :mod:`uno_rl.eval.config`) names presets and switch grids, player counts,
agents, rounds and a seed. Each cell of the grid (a rule variant at a player count) is played
with duplicate deals by the evaluator (:mod:`uno_rl.eval.run`). Results go to
``runs/NAME/<timestamp>/``:

================  ============================================================================
file              content
================  ============================================================================
config.json       the resolved config: every cell's full rules and match-ups, the seed
config.toml       the config file as given
seats.*           the full tidy table: one row per variant, player count, match-up, agent, seat
agents.*          the same per agent over all seats
pairs.*           paired tests between the agents of each match-up over the same deals
ratings.*         OpenSkill ratings per cell
summary.*         win rate of every agent per variant and player count (all its match-ups)
parts/            each finished cell's tables (what a resumed run keeps)
(analysis)        what the config's ``analysis`` step writes (``bluff``: :mod:`uno_rl.analysis.study`)
DONE              written last
================  ============================================================================

Tables are written as Parquet and CSV. A killed run restarts where it stopped: run the same
command again (it resumes the latest unfinished run of that config, if the config is
unchanged) or pass ``--resume runs/NAME/<timestamp>``; finished cells are kept, the cell that
was running is played again from its start, so no row is lost or duplicated. ``--fresh``
always starts a new run. A bad config fails before any game is played, naming the key.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from uno_rl.agents import AgentError
from uno_rl.core.rules import RulesError

from .eval.backends import BACKENDS, BackendError, make_executor
from .eval.config import ANALYSES, ConfigError, ExperimentConfig, load_config
from .eval.run import Evaluation, default_workers, evaluate_variant, write_atomic
from .eval.stats import wilson_interval

__all__ = ["main", "run_experiment", "summarize"]

TABLES = ("seats", "agents", "pairs", "ratings")


def summarize(seats: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Win rate of each agent per variant and player count, over all its match-ups and seats."""
    keys = ["variant", "players", "agent"]
    sums = seats.groupby(keys, sort=False)[["rounds", "wins", "truncated"]].sum().reset_index()
    sums["win_rate"] = sums["wins"] / sums["rounds"]
    sums["win_low"], sums["win_high"] = wilson_interval(sums["wins"], sums["rounds"], confidence)
    return sums


def format_summary(summary: pd.DataFrame) -> str:
    """Win rates as a variant x agent grid: ``63.9% [63.4, 64.4]``."""
    cells = summary.assign(
        text=[
            f"{r:.1%} [{lo:.1%}, {hi:.1%}]"
            for r, lo, hi in zip(summary["win_rate"], summary["win_low"], summary["win_high"])
        ]
    )
    grid = cells.pivot(index=["variant", "players"], columns="agent", values="text")
    grid = grid.reindex(columns=list(dict.fromkeys(summary["agent"])))
    return grid.to_string()


def _same_config(folder: Path, resolved: dict) -> bool:
    try:
        return json.loads((folder / "config.json").read_text()) == resolved
    except (OSError, json.JSONDecodeError):
        return False


def choose_run_dir(
    config: ExperimentConfig, runs_dir: str, resume: str | None, fresh: bool
) -> tuple[Path, bool]:
    """The run folder and whether it resumes an earlier run."""
    resolved = json.loads(json.dumps(config.resolved()))
    if resume is not None:
        folder = Path(resume)
        if not (folder / "config.json").is_file():
            raise ConfigError(f"--resume {resume}: not a run folder (no config.json)")
        if not _same_config(folder, resolved):
            raise ConfigError(
                f"--resume {resume}: the config changed since that run started; use --fresh"
            )
        return folder, True
    base = Path(runs_dir) / config.name
    if not fresh and base.is_dir():
        unfinished = sorted(d for d in base.iterdir() if d.is_dir() and not (d / "DONE").exists())
        for folder in reversed(unfinished):
            if _same_config(folder, resolved):
                return folder, True
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    folder = base / stamp
    suffix = 1
    while folder.exists():
        folder = base / f"{stamp}-{suffix}"
        suffix += 1
    return folder, False


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def run_experiment(
    config: ExperimentConfig,
    runs_dir: str = "runs",
    resume: str | None = None,
    fresh: bool = False,
    workers: int | None = None,
    progress: bool = True,
    log=print,
    backend: str = "local",
    address: str | None = None,
) -> Path:
    """Play every cell not played yet, then write the merged tables; returns the run folder.

    ``backend``, ``address``: where the chunks run (:mod:`uno_rl.eval.backends`); the tables
    are the same on every backend.
    """
    folder, resuming = choose_run_dir(config, runs_dir, resume, fresh)
    parts = folder / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    if not resuming:
        _write_text(folder / "config.json", json.dumps(config.resolved(), indent=2))
        shutil.copyfile(config.path, folder / "config.toml")
    done = [c for c in config.cells if (parts / f"cell-{c.index:04d}.done").exists()]
    log(
        f"{'resuming' if resuming else 'starting'} {config.name} in {folder} "
        f"({len(done)} of {len(config.cells)} cells done)"
    )
    workers = workers or config.workers or default_workers()
    todo = [c for c in config.cells if c not in done]
    pool = None
    if todo and (workers > 1 or backend != "local"):
        pool = make_executor(backend, workers, address)
    try:
        for cell in tqdm(todo, desc=config.name, unit="cell", disable=not progress):
            result = evaluate_variant(
                cell.rules,
                cell.variant,
                cell.matchups,
                cell.rounds,
                config.seed,
                workers,
                config.confidence,
                config.rating_rounds,
                progress,
                description=f"{cell.variant} {cell.players}p",
                pool=pool,
            )
            for name in TABLES:
                write_atomic(getattr(result, name), str(parts / f"cell-{cell.index:04d}.{name}"))
            _write_text(parts / f"cell-{cell.index:04d}.done", "")
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    merged = Evaluation(
        **{
            name: pd.concat(
                [
                    pd.read_parquet(parts / f"cell-{c.index:04d}.{name}.parquet")
                    for c in config.cells
                ],
                ignore_index=True,
            )
            for name in TABLES
        }
    )
    merged.save(folder)
    write_atomic(summarize(merged.seats, config.confidence), str(folder / "summary"))
    if config.analysis is not None:
        module, write, _ = ANALYSES[config.analysis]
        log(f"analysis {config.analysis}: {module}.{write}")
        getattr(importlib.import_module(module), write)(folder, workers=workers, progress=progress)
    _write_text(folder / "DONE", dt.datetime.now().isoformat() + "\n")
    return folder


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m uno_rl.experiment",
        description="Run an experiment config (experiments/*.toml).",
    )
    parser.add_argument("config", help="path of the experiment config, or its name")
    parser.add_argument("--runs-dir", default="runs", help="where runs are written")
    parser.add_argument("--resume", default=None, help="a run folder to resume")
    parser.add_argument("--fresh", action="store_true", help="start a new run")
    parser.add_argument("--workers", type=int, default=None, help="override the config")
    parser.add_argument(
        "--backend", choices=BACKENDS, default="local",
        help="local worker processes, or Ray tasks (extra 'ray')",
    )  # fmt: skip
    parser.add_argument(
        "--address", default=None, help="Ray cluster address (default: a private local instance)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="apply the config's [quick] table (runs/NAME-quick)"
    )
    parser.add_argument("--no-progress", action="store_true")
    return parser


def resolve_config_path(name: str) -> str:
    """A config path as given, or ``experiments/NAME.toml`` for a bare name."""
    if os.path.isfile(name):
        return name
    candidate = Path(__file__).resolve().parents[1] / "experiments" / f"{name}.toml"
    return str(candidate) if candidate.is_file() else name


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    start = time.perf_counter()
    try:
        if args.workers is not None and args.workers < 1:
            raise ConfigError(f"--workers must be at least 1, got {args.workers}")
        if args.resume and args.fresh:
            raise ConfigError("--resume and --fresh exclude each other")
        config = load_config(resolve_config_path(args.config), quick=args.quick)
        folder = run_experiment(
            config,
            args.runs_dir,
            args.resume,
            args.fresh,
            args.workers,
            not args.no_progress,
            backend=args.backend,
            address=args.address,
        )
    except (ConfigError, AgentError, RulesError, BackendError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if config.analysis is not None:
        module, _, text = ANALYSES[config.analysis]
        print(getattr(importlib.import_module(module), text)(folder))
    else:
        print(format_summary(pd.read_parquet(folder / "summary.parquet")))
    print(f"done in {time.perf_counter() - start:.0f} s: {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Run an experiment config: ``uno_rl experiment experiments/NAME.toml``.

The config (schema: :mod:`uno_rl.eval.config`) names presets and switch grids, player counts,
agents, single rounds and/or whole matches, and a seed. Each cell of the grid (a rule variant at a player count) is played
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
deals.parquet     (analyses that pair match-ups, ``bluff-when``) each match-up's first agent
                  deal by deal (:func:`uno_rl.eval.summary.deal_table`)
summary.*         per variant, player count and agent (all its match-ups): rounds won, net
                  points per round and, for matches, matches won and final score
                  (:func:`uno_rl.eval.experiment_summary.summarize`)
narrative.md      (no ``analysis`` step) who leads each cell, only where the lead is
                  separable (:mod:`uno_rl.analysis.variants`)
parts/            each finished cell's tables (what a resumed run keeps)
(analysis)        what the config's ``analysis`` step writes (``bluff``: :mod:`uno_rl.analysis.study`,
                  ``bluff-when``: :mod:`uno_rl.analysis.situations`)
DONE              written last
================  ============================================================================

Every table keys its rows by ``variant``, the cell's short label (what differs from the preset:
``official, caught_bluffer=takes-back``; :func:`uno_rl.eval.config.variant_name`), followed by
``preset`` and ``switches`` (every switch the config set, defaults included). Printed figures
have one format per kind (:mod:`uno_rl.eval.formats`). Tables are written as Parquet and CSV. A killed run restarts where it stopped: run the same
command again (it resumes the latest unfinished run of that config, if the config is
unchanged) or pass ``--resume runs/NAME/<timestamp>``; finished cells are kept, the cell that
was running is played again from its start, so no row is lost or duplicated. ``--fresh``
always starts a new run. A bad config fails before any game is played, naming the key, and
so does an output path that cannot be written (``--runs-dir`` a file, below a file, or in a
folder this process may not write in; ``--resume`` not a run folder). Every file a resume
reads (the parts, their ``.done`` markers, ``config.json``) is written durably
(:mod:`uno_rl.durable`); worker processes end when the runner dies
(:func:`uno_rl.processes.guard_parent`). Ctrl-C or SIGTERM stops a run the same way, in any
phase (loading the config, the agents and their checkpoints; playing; the analysis): the
workers are ended, the finished cells stay, and one line says how many there are and that the
same command resumes the run, or that nothing was written yet (exit status 130 for Ctrl-C,
143 for SIGTERM).
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from uno_rl import resources
from uno_rl.agents import AgentError
from uno_rl.cli import CliParser, count_type, did_you_mean, print_error
from uno_rl.core.rules import RulesError
from uno_rl.durable import fsync_folder, write_bytes_durably, write_text_durably
from uno_rl.processes import MAX_WORKERS, Interrupted, interruptible, stop_pool

from .analysis.variants import write_narrative
from .eval.backends import BACKENDS, BackendError, make_executor
from .eval.config import ANALYSES, DEAL_ANALYSES, ConfigError, ExperimentConfig, load_config
from .eval.estimate import RunTooLong, Work, estimate, notice
from .eval.experiment_summary import format_summary, summarize
from .eval.outputs import check_output_folder
from .eval.run import (
    Evaluation,
    default_workers,
    evaluate_variant,
    parallel_workers,
    write_atomic,
)

__all__ = ["main", "run_experiment", "summarize"]

TABLES = ("seats", "agents", "pairs", "ratings")


def _same_config(folder: Path, resolved: dict) -> bool:
    try:
        return json.loads((folder / "config.json").read_text()) == resolved
    except (OSError, json.JSONDecodeError):
        return False


def _with_rules(table: pd.DataFrame, preset, switches) -> pd.DataFrame:
    """``table`` with ``preset`` and ``switches`` (the cell's full switches) after
    ``variant``."""
    out = table.drop(columns=["preset", "switches"], errors="ignore")
    at = out.columns.get_loc("variant") + 1 if "variant" in out else 0
    out.insert(at, "preset", preset)
    out.insert(at + 1, "switches", switches)
    return out


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
    """Write a file a resume depends on: durably and atomically (:mod:`uno_rl.durable`)."""
    write_text_durably(path, text)


def _make_folders(parts: Path) -> None:
    """``parts`` and its run folder, made and synced up to the runs folder, so that a crash
    right after a cell cannot lose the folders its files are in."""
    missing = [p for p in (parts, *parts.parents) if not p.exists()]
    parts.mkdir(parents=True, exist_ok=True)
    for folder in missing:
        fsync_folder(folder)
        fsync_folder(folder.parent)


def cells_done(config: ExperimentConfig, folder: Path) -> list:
    """The cells of ``config`` whose tables run folder ``folder`` holds (marked ``.done``)."""
    return [c for c in config.cells if (folder / "parts" / f"cell-{c.index:04d}.done").exists()]


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
    on_start: Callable[[Path], None] | None = None,
    allow_long: bool = False,
) -> Path:
    """Play every cell not played yet, then write the merged tables; returns the run folder.

    ``backend``, ``address``: where the chunks run (:mod:`uno_rl.eval.backends`); the tables
    are the same on every backend. ``on_start(folder)`` is called once the run folder is
    chosen. An exception (a ``KeyboardInterrupt`` too) ends the workers at once; the cells
    finished so far stay.

    Before anything is written, the cells left to play are timed (:mod:`uno_rl.eval.estimate`):
    when they take minutes or more, the first line logged says how long; above a week the run
    raises :class:`ConfigError` unless ``allow_long``.
    """
    folder, resuming = choose_run_dir(config, runs_dir, resume, fresh)
    done = cells_done(config, folder)
    workers = workers or config.workers or default_workers()
    todo = [c for c in config.cells if c not in done]
    line = _estimate_line(config, todo, parallel_workers(workers, backend, address), allow_long)
    if line is not None:
        log(line)
    if on_start is not None:
        on_start(folder)
    parts = folder / "parts"
    _make_folders(parts)
    if not resuming:
        # config.json last: it is what marks the folder as a run to resume.
        write_bytes_durably(folder / "config.toml", Path(config.path).read_bytes())
        _write_text(folder / "config.json", json.dumps(config.resolved(), indent=2))
    log(
        f"{'resuming' if resuming else 'starting'} {config.name} in {folder} "
        f"({len(done)} of {len(config.cells)} cells done)"
    )
    tables = TABLES + (("deals",) if config.analysis in DEAL_ANALYSES else ())
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
                deal_scores="deals" in tables,
            )
            for name in tables:
                table = getattr(result, name)
                if name != "deals":  # deals: a row per deal, the cell's keys are enough
                    table = _with_rules(table, cell.preset, cell.switches_label)
                write_atomic(table, str(parts / f"cell-{cell.index:04d}.{name}"), name != "deals")
            _write_text(parts / f"cell-{cell.index:04d}.done", "")
    except BaseException:
        if pool is not None:
            stop_pool(pool)  # the cell that was running is played again by a resume
        raise
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
            for name in tables
        }
    )
    merged.save(folder)
    summary = summarize(merged.agents, config.confidence)
    if "switches" in merged.agents:
        rules = merged.agents.drop_duplicates("variant").set_index("variant")
        summary = _with_rules(
            summary,
            summary["variant"].map(rules["preset"]),
            summary["variant"].map(rules["switches"]),
        )
    write_atomic(summary, str(folder / "summary"))
    if config.analysis is None:
        write_narrative(folder)
    else:
        module, write, _ = ANALYSES[config.analysis]
        log(f"analysis {config.analysis}: {module}.{write}")
        getattr(importlib.import_module(module), write)(folder, workers=workers, progress=progress)
    _write_text(folder / "DONE", dt.datetime.now().isoformat() + "\n")
    return folder


def _estimate_line(
    config: ExperimentConfig, todo: Sequence, workers: int, allow_long: bool
) -> str | None:
    """The line saying how long the ``todo`` cells take (None: minutes at most); a run
    estimated above a week raises :class:`ConfigError` unless ``allow_long``."""
    works = [Work(c.rules, c.matchups, c.rounds) for c in todo]
    try:
        line = notice(estimate(works, workers, config.seed), allow_long, _SHORTER)
    except RunTooLong as error:
        raise ConfigError(f"{config.path}: {error}") from None
    if line is None:
        return None
    return f"{line}; Ctrl-C stops it, and the same command resumes it"


#: What makes an experiment shorter.
_SHORTER = "ask fewer rounds or matches, or split the experiment into smaller ones"


def build_parser() -> argparse.ArgumentParser:
    parser = CliParser(
        prog="uno_rl experiment",
        description="Run an experiment config (experiments/*.toml).",
    )
    parser.add_argument(
        "config", help="an experiment config: its name (uno_rl experiments lists them) or a path"
    )
    parser.add_argument("--runs-dir", default="runs", help="where runs are written (default runs)")
    parser.add_argument(
        "--resume",
        default=None,
        help="a run folder to resume (default: the config's latest unfinished run)",
    )
    parser.add_argument(
        "--fresh", action="store_true", help="start a new run even if an unfinished one exists"
    )
    parser.add_argument(
        "--workers",
        type=count_type(1, MAX_WORKERS),
        default=None,
        help="worker processes (default: the config's workers)",
    )
    parser.add_argument(
        "--backend", choices=BACKENDS, default="local",
        help="local worker processes, or Ray tasks (extra 'ray') (default local)",
    )  # fmt: skip
    parser.add_argument(
        "--address", default=None, help="Ray cluster address (default: a private local instance)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="apply the config's [quick] table (runs/NAME-quick)"
    )
    parser.add_argument(
        "--allow-long", action="store_true",
        help="run even when the run is estimated to take more than a week (refused otherwise)",
    )  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    return parser


def check_resume_folder(path: str) -> Path:
    """A ``--resume`` folder: an existing run folder this process can write in."""
    folder = Path(path)
    if not folder.is_dir():
        what = "is a file, not a run folder" if folder.exists() else "does not exist"
        raise ConfigError(f"--resume {path}: {what}")
    if not (folder / "config.json").is_file():
        raise ConfigError(f"--resume {path}: not a run folder (no config.json)")
    check_output_folder(folder, "--resume", ("DONE",))
    return folder


def resolve_config_path(name: str) -> str:
    """A config path as given, or ``NAME.toml`` of ``$UNO_RL_EXPERIMENTS``'s folders or the
    shipped experiments for a bare name; :class:`ConfigError` for a bare name that is
    neither."""
    if os.path.isfile(name):
        return name
    candidate = resources.find("experiments", f"{name}.toml")
    if candidate is not None and candidate.is_file():
        return str(candidate)
    if _is_bare_name(name):
        raise ConfigError(_unknown_experiment(name))
    return name


def _is_bare_name(name: str) -> bool:
    """Whether ``name`` names a config by name (``bluff-when``), not by path (a path that
    exists, such as a folder, is left to the config reader to explain)."""
    separators = {os.sep, os.altsep} - {None}
    looks_like_path = name.endswith(".toml") or bool(separators & set(name))
    return bool(name) and not looks_like_path and not os.path.exists(name)


def _unknown_experiment(name: str) -> str:
    """The message for a name no experiment config has: the near name if there is one, else
    every name."""
    names = [entry.name for entry in resources.entries("experiments")]
    hint = did_you_mean(name, names)
    if hint:
        return f"unknown experiment {name!r}{hint}"
    return (
        f"unknown experiment {name!r}; available: {', '.join(names)} (or a path to a .toml config)"
    )


def interrupted_line(config: ExperimentConfig | None, folder: Path | None) -> str:
    """What an interrupted command leaves, and how to go on: nothing before it had a run
    folder (``folder`` None), the cells done during the run, the run once it is finished."""
    if config is None or folder is None:
        return "interrupted before the run started: nothing was written"
    if (folder / "DONE").is_file():
        return f"interrupted: the run is finished, its tables are in {folder}"
    done = len(cells_done(config, folder))
    return f"interrupted: {done} of {len(config.cells)} cells done; run the same command to resume"


@dataclass
class _Reached:
    """How far a command got: its config once loaded, its run folder once chosen."""

    config: ExperimentConfig | None = None
    folder: Path | None = None

    def started(self, folder: Path) -> None:
        self.folder = folder


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``uno_rl experiment ARGV``; the exit status (0: done, 2: bad input, 130 or 143:
    stopped by Ctrl-C or SIGTERM). A stop in any phase (loading the config and the agents,
    playing, the analysis, the report) prints one line (:func:`interrupted_line`)."""
    reached = _Reached()
    try:
        with interruptible():
            return _run(argv, reached)
    except KeyboardInterrupt as stop:  # Interrupted: a signal; else raised by the code itself
        print(interrupted_line(reached.config, reached.folder), file=sys.stderr)
        return stop.status if isinstance(stop, Interrupted) else 128 + signal.SIGINT


def _run(argv: Sequence[str] | None, reached: _Reached) -> int:
    # PPO agents run small torch forwards here and in the workers: one math thread per
    # process (as uno_rl evaluate), so the processes do not oversubscribe the CPUs.
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    args = build_parser().parse_args(argv)
    start = time.perf_counter()
    try:
        if args.resume and args.fresh:
            raise ConfigError("--resume and --fresh exclude each other")
        if args.address is not None and args.backend == "local":
            raise ConfigError("--address is only for --backend ray")
        # Every output path is checked before the config is built or a game played.
        if args.resume is not None:
            check_resume_folder(args.resume)
        else:
            check_output_folder(args.runs_dir, "--runs-dir")
        config = load_config(resolve_config_path(args.config), quick=args.quick)
        if args.resume is None:
            check_output_folder(Path(args.runs_dir) / config.name, "--runs-dir")
    except (ConfigError, ValueError) as error:
        print_error(error)
        return 2
    reached.config = config
    try:
        folder = run_experiment(
            config,
            args.runs_dir,
            args.resume,
            args.fresh,
            args.workers,
            not args.no_progress,
            backend=args.backend,
            address=args.address,
            on_start=reached.started,
            allow_long=args.allow_long,
        )
    except (ConfigError, AgentError, RulesError, BackendError) as error:
        print_error(error)
        return 2
    report(config, folder)
    print(f"done in {time.perf_counter() - start:.0f} s: {folder}")
    return 0


def report(config: ExperimentConfig, folder: Path) -> None:
    """Print the findings of the finished run ``folder``: its analysis step's text, else the
    summary (and, for crossed agents, the focal agents per match-up) and the narrative."""
    if config.analysis is not None:
        module, _, text = ANALYSES[config.analysis]
        print(getattr(importlib.import_module(module), text)(folder))
        return
    print(format_summary(pd.read_parquet(folder / "summary.parquet"), config.confidence))
    if config.mode == "cross":  # focal agents: one line per match-up
        agents = pd.read_parquet(folder / "agents.parquet")
        focal = {(m.label, m.lineup[0]) for c in config.cells for m in c.matchups}
        rows = [(m, a) in focal for m, a in zip(agents["matchup"], agents["agent"])]
        print("\nper match-up, the focal agents:")
        print(format_summary(agents[rows], config.confidence))
    narrative = folder / "narrative.md"
    if narrative.is_file():
        print("\n" + narrative.read_text().rstrip())


if __name__ == "__main__":
    sys.exit(main())

"""Run an experiment config: ``uno_rl experiment experiments/NAME.toml``.

The config (schema: :mod:`uno_rl.experiments.config`) names presets and switch grids, player counts,
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
                  (:func:`uno_rl.experiments.overview.summarize`)
narrative.md      (no ``analysis`` step) who leads each cell, only where the lead is
                  separable (:mod:`uno_rl.analysis.variants`)
parts/            each finished cell's tables (what a resumed run keeps)
(analysis)        what the config's ``analysis`` step writes (``bluff``: :mod:`uno_rl.analysis.study`,
                  ``bluff-when``: :mod:`uno_rl.analysis.situations`)
DONE              written last
================  ============================================================================

Every table keys its rows by ``variant``, the cell's short label (what differs from the preset:
``official, caught_bluffer=takes-back``; :func:`uno_rl.experiments.config.variant_name`), followed by
``preset`` and ``switches`` (every switch the config set, defaults included). Printed figures
have one format per kind (:mod:`uno_rl.eval.formats`). Tables are written as Parquet and CSV. A killed run restarts where it stopped: run the same
command again (it resumes the latest unfinished run of that config, if the config is
unchanged) or pass ``--resume runs/NAME/<timestamp>``; finished cells are kept, the cell that
was running is played again from its start, so no row is lost or duplicated. ``--fresh``
always starts a new run. A bad config fails before any game is played, naming the key, and
so does an output path that cannot be written (``--runs-dir`` a file, below a file, or in a
folder this process may not write in; ``--resume`` not a run folder). Every file a resume
reads (the parts, their ``.done`` markers, ``config.json``) is written durably
(:mod:`uno_rl.plumbing.durable`); worker processes end when the runner dies
(:func:`uno_rl.plumbing.processes.guard_parent`). Ctrl-C or SIGTERM stops a run the same way, in any
phase (loading the config, the agents and their checkpoints; playing; the analysis): the
workers are ended, the finished cells stay, and one line says how many there are and that the
same command resumes the run, or that nothing was written yet (exit status 130 for Ctrl-C,
143 for SIGTERM).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from uno_rl.agents import AgentError
from uno_rl.core.rules import RulesError
from uno_rl.eval.backends import BACKENDS, BackendError
from uno_rl.eval.outputs import check_output_folder
from uno_rl.experiments.config import ConfigError, ExperimentConfig, load_config
from uno_rl.experiments.overview import format_summary
from uno_rl.experiments.runner import (
    analysis_summary,
    cells_done,
    check_resume_folder,
    resolve_config_path,
    run_experiment,
)
from uno_rl.plumbing.cli import CliParser, count_type, print_error
from uno_rl.plumbing.processes import MAX_WORKERS, Interrupted, interruptible

__all__ = ["build_parser", "main"]


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
        print(analysis_summary(config.analysis, folder))
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

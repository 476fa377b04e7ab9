"""Rebuild the results pages' figures and tables from the experiments' runs.

    python -m uno_rl.docsite.results            # make results
    python -m uno_rl.docsite.results --quick    # from the --quick runs (every output says so)

It reads the newest *finished* run of each input under ``--runs-dir`` (default ``runs``), or
the run folder an option names, and writes under ``--out`` (default ``docs/results``):

===============================  =============================================================
file                             content
===============================  =============================================================
figures/strength-ladder.png      ``strength``: every shipped bot against every heuristic it
                                 was measured against, net points per round and matches won
figures/editions-heatmap.png     ``editions``: decks by heuristics, net points per round, at
                                 2 and 4 players
figures/bluff-situations.png     ``bluff-when``: each +4 policy's gain by situation, official
                                 rules, 2 players
figures/bluff-behaviour.png      ``bluff-when``: the +4 decisions of the learned and searching
                                 players by situation
figures/training-curve.png       the ``official-2p`` training run: its periodic evaluation
                                 against each opponent over the decisions trained
tables/strength.md               the strength ladder's numbers
tables/editions.md               the heatmap's numbers, with their intervals
tables/bluff-when.md             the best bluff and challenge situations, official, 2 players
tables/training.md               the training run's final evaluation
tables/benchmark.md              the rows of ``RUNS_DIR/bench.json`` (``--bench FILE``), one
                                 ``uno_rl bench --json`` run; kept as it is without one
===============================  =============================================================

A run is finished when an experiment has written its ``DONE`` marker
(:mod:`uno_rl.programs.experiment`), and when a training run has written its ``policy.pt`` and, if its
config asks for one, its final evaluation (``final_eval/agents.parquet``: the last thing
``uno_rl train`` writes). Run folders are named by their start time, so the newest is the
last by name. ``--quick`` reads the ``NAME-quick`` runs (``uno_rl experiment NAME --quick``;
a training run named ``official-2p-quick``). A missing input is one ``error:`` line naming
each missing run and the command that makes it, exit status 2, and nothing is written.

The outputs depend on the runs alone: they name a run by its config and seed, never by a
time (neither the folder's timestamp nor when they were made), so the same runs give the same
files (:mod:`.results_figures`, :mod:`.results_tables`; the frames both draw on:
:mod:`.results_frames`). The progress lines name each run's folder.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from uno_rl.eval.outputs import check_output_folder
from uno_rl.plumbing.cli import CliParser, fail

from . import bench_table
from . import results_figures as figures
from . import results_frames as frames
from . import results_tables as tables

__all__ = ["INPUTS", "Input", "find_run", "is_finished", "main", "resolve_inputs", "write_results"]


@dataclass(frozen=True)
class Input:
    """One run the results are drawn from: its ``name`` under the runs folder, the option
    naming a folder instead (``--strength``: ``dest`` ``strength``), and the commands that
    make a full and a quick run of it."""

    name: str
    dest: str
    command: str
    quick_command: str
    training: bool = False

    @property
    def option(self) -> str:
        return "--" + self.dest.replace("_", "-")


#: The quick training run: four updates of 8,192 decisions of the official-2p config, each
#: evaluated.
QUICK_TRAINING = (
    "uno_rl train --config experiments/train-official-2p.toml --name official-2p-quick "
    "--num-games 256 --total-decisions 32768 --eval-every 1 --eval-rounds 100 "
    "--final-eval-rounds 400"
)

INPUTS = (
    Input("strength", "strength", "uno_rl experiment strength",
          "uno_rl experiment strength --quick"),
    Input("editions", "editions", "uno_rl experiment editions",
          "uno_rl experiment editions --quick"),
    Input("bluff-when", "bluff_when", "uno_rl experiment bluff-when",
          "uno_rl experiment bluff-when --quick"),
    Input("official-2p", "training", "uno_rl train --config experiments/train-official-2p.toml",
          QUICK_TRAINING, training=True),
)  # fmt: skip


def is_finished(folder: Path, training: bool = False) -> bool:
    """Whether ``folder`` holds a finished experiment run (its ``DONE`` marker) or, with
    ``training``, a finished training run (``policy.pt``, then its final evaluation where the
    config asks for one)."""
    if not training:
        return (folder / "DONE").is_file()
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not (folder / "policy.pt").is_file() or not (folder / "metrics.csv").is_file():
        return False
    return not config.get("final_eval_rounds") or (folder / "final_eval/agents.parquet").is_file()


def find_run(runs_dir: Path, name: str, training: bool = False) -> Path | None:
    """The newest finished run of ``runs_dir/name`` (the last by folder name), or None."""
    base = runs_dir / name
    if not base.is_dir():
        return None
    done = sorted(p for p in base.iterdir() if p.is_dir() and is_finished(p, training))
    return done[-1] if done else None


def _make_with(source: Input, quick: bool, runs_dir: str) -> str:
    command = source.quick_command if quick else source.command
    return command + ("" if runs_dir == "runs" else f" --runs-dir {runs_dir}")


def resolve_inputs(args) -> dict[str, frames.RunInfo]:
    """Each input's run (``Input.dest`` -> its :class:`~.results_frames.RunInfo`); one
    ``error:`` line naming every missing run and exit status 2 when any is missing."""
    found, missing = {}, []
    for source in INPUTS:
        name = f"{source.name}-quick" if args.quick else source.name
        given = getattr(args, source.dest)
        kind = "training" if source.training else "experiment"
        if given is not None:
            folder = Path(given)
            if not is_finished(folder, source.training):
                missing.append(f"{source.option} {given}: not a finished {kind} run")
                continue
        else:
            folder = find_run(Path(args.runs_dir), name, source.training)
            if folder is None:
                where = Path(args.runs_dir) / name
                missing.append(
                    f"no finished {name} run in {where} (make it with: "
                    f"{_make_with(source, args.quick, args.runs_dir)})"
                )
                continue
        run = frames.read_run(folder, source.training)
        problem = _lacks(source, run)
        if problem:
            missing.append(f"{source.name} run {folder}: {problem}")
            continue
        found[source.dest] = run
    if missing:
        fail("; ".join(missing))
    return found


def _lacks(source: Input, run: frames.RunInfo) -> str:
    """What a finished run lacks that its outputs need (``""``: nothing): a training run's
    periodic and final evaluations, a ``bluff-when`` run's behaviour table."""
    if source.training:
        if not len(frames.training_evaluations(run)):
            return "its metrics.csv has no periodic evaluation (train with eval_every above 0)"
        if not (run.folder / "final_eval/agents.parquet").is_file():
            return "it has no final evaluation (train with final_eval_rounds above 0)"
    if source.dest == "bluff_when" and not (run.folder / "behaviour.parquet").is_file():
        return "it has no behaviour table (its config has no [[behaviour]] entry)"
    return ""


def _strength(run: frames.RunInfo, out: Path) -> Iterator[Path]:
    frame, note = frames.strength_frame(run), frames.experiment_note(run)
    figure = figures.strength_figure(frame, run.confidence, note)
    yield figures.save_figure(figure, out / "figures/strength-ladder.png")
    yield _write(out / "tables/strength.md", tables.strength_table(frame, run, note))


def _editions(run: frames.RunInfo, out: Path) -> Iterator[Path]:
    frame, note = frames.editions_frame(run), frames.experiment_note(run)
    figure = figures.editions_figure(frame, run.confidence, note)
    yield figures.save_figure(figure, out / "figures/editions-heatmap.png")
    yield _write(out / "tables/editions.md", tables.editions_table(frame, run, note))


def _bluff_when(run: frames.RunInfo, out: Path) -> Iterator[Path]:
    (field, answers), note = frames.bluff_headline(run), frames.bluff_note(run)
    figure = figures.bluff_situations_figure(field, run.confidence, note)
    yield figures.save_figure(figure, out / "figures/bluff-situations.png")
    behaviour = pd.read_parquet(run.folder / "behaviour.parquet")
    figure = figures.bluff_behaviour_figure(behaviour, run.confidence, note)
    yield figures.save_figure(figure, out / "figures/bluff-behaviour.png")
    yield _write(out / "tables/bluff-when.md", tables.bluff_table(answers, run, note))


def _training(run: frames.RunInfo, out: Path) -> Iterator[Path]:
    evals, note = frames.training_evaluations(run), frames.training_note(run)
    name, players = run.config["name"], int(run.config["players"])
    figure = figures.training_figure(evals, name, players, note)
    yield figures.save_figure(figure, out / "figures/training-curve.png")
    final, decisions = frames.final_evaluation(run), frames.trained_decisions(run)
    yield _write(out / "tables/training.md", tables.training_table(final, run, decisions, note))


#: What each input's run gives: ``Input.dest`` -> the writer of its figures and tables (it
#: yields each file once written).
WRITERS: dict[str, Callable[[frames.RunInfo, Path], Iterator[Path]]] = {
    "strength": _strength,
    "editions": _editions,
    "bluff_when": _bluff_when,
    "training": _training,
}


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8", newline="\n")
    return path


def write_results(runs: dict[str, frames.RunInfo], out: Path, log=print) -> list[Path]:
    """Write every figure and table of the runs (``resolve_inputs``) under ``out``, one
    ``log`` line per file as it is written; returns the paths."""
    for folder in ("figures", "tables"):
        (out / folder).mkdir(parents=True, exist_ok=True)
    written = []
    for dest, run in runs.items():
        for path in WRITERS[dest](run, out):
            log(f"wrote {path} (from {run.label})")
            written.append(path)
    return written


def build_parser() -> CliParser:
    parser = CliParser(
        prog="python -m uno_rl.docsite.results",
        description="Rebuild the results pages' figures and tables (docs/results/) from the "
        "newest finished run of each experiment.",
    )
    parser.add_argument("--runs-dir", default="runs", help="where the runs are (default runs)")
    for source in INPUTS:
        parser.add_argument(
            source.option, dest=source.dest, metavar="RUN", default=None,
            help=f"the {source.name} run folder to read (default: the newest finished one)",
        )  # fmt: skip
    parser.add_argument(
        "--quick", action="store_true", help="read the NAME-quick runs (uno_rl experiment NAME "
        "--quick; training: official-2p-quick)"
    )  # fmt: skip
    parser.add_argument(
        "--bench", metavar="FILE", default=None, help="the rows of one uno_rl bench --json run "
        "(default RUNS_DIR/bench.json if it exists, else the benchmark table is kept)"
    )  # fmt: skip
    parser.add_argument(
        "--out", default="docs/results", help="where the figures/ and tables/ go (default "
        "docs/results)"
    )  # fmt: skip
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        out = check_output_folder(args.out, "--out")
    except ValueError as error:
        fail(str(error))
    bench = _bench_rows(args)
    runs = resolve_inputs(args)
    write_results(runs, out)
    if bench is None and not args.quick:
        print(
            f"kept {out / 'tables/benchmark.md'}: no {Path(args.runs_dir) / 'bench.json'} "
            f"(make it with: uno_rl bench --json > {Path(args.runs_dir) / 'bench.json'})"
        )
    elif bench is not None:
        machine = f"{os.cpu_count()} CPU cores"
        path = _write(out / "tables/benchmark.md", bench_table.bench_table(bench, machine))
        print(f"wrote {path} (from {args.bench or Path(args.runs_dir) / 'bench.json'})")
    return 0


def _bench_rows(args) -> list[dict] | None:
    """The rows of ``--bench`` (an error when unreadable), else of ``RUNS_DIR/bench.json`` when
    it exists (not with ``--quick``), else None."""
    path = args.bench or (None if args.quick else Path(args.runs_dir) / "bench.json")
    if path is None or (args.bench is None and not Path(path).is_file()):
        return None
    try:
        return bench_table.read_bench_rows(path)
    except OSError as error:
        fail(f"--bench {path}: {error.strerror or error}")
    except ValueError as error:
        fail(f"--bench {error}")


if __name__ == "__main__":
    sys.exit(main())

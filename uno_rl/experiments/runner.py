"""The experiment runner: plays a config's cells through the evaluator into a run folder
(``runs/NAME/<timestamp>/``, its files listed in :mod:`uno_rl.programs.experiment`), resumes an
unfinished run where it stopped and merges the cells' tables.

Every file a resume reads (the parts, their ``.done`` markers, ``config.json``) is written
durably (:mod:`uno_rl.plumbing.durable`); a cell is written whole or not at all, so a resumed
run loses and doubles no row.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from uno_rl.analysis.variants import write_narrative
from uno_rl.eval.backends import make_executor
from uno_rl.eval.estimate import RunTooLong, Work, estimate, notice
from uno_rl.eval.outputs import check_output_folder
from uno_rl.eval.run import (
    Evaluation,
    default_workers,
    evaluate_variant,
    parallel_workers,
    write_atomic,
)
from uno_rl.experiments.config import ANALYSES, DEAL_ANALYSES, ConfigError, ExperimentConfig
from uno_rl.experiments.overview import summarize
from uno_rl.plumbing import resources
from uno_rl.plumbing.cli import did_you_mean
from uno_rl.plumbing.durable import fsync_folder, write_bytes_durably, write_text_durably
from uno_rl.plumbing.processes import stop_pool

__all__ = [
    "TABLES",
    "analysis_summary",
    "cells_done",
    "check_resume_folder",
    "choose_run_dir",
    "resolve_config_path",
    "run_experiment",
    "write_analysis",
]

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
        # A run stopped before it wrote config.json played nothing: start again in its folder.
        unmarked = [d for d in unfinished if not (d / "config.json").exists()]
        if unmarked:
            return unmarked[-1], False
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    folder = base / stamp
    suffix = 1
    while folder.exists():
        folder = base / f"{stamp}-{suffix}"
        suffix += 1
    return folder, False


def _write_text(path: Path, text: str) -> None:
    """Write a file a resume depends on: durably and atomically (:mod:`uno_rl.plumbing.durable`)."""
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
        log(f"analysis {config.analysis}: {ANALYSES[config.analysis]}")
        write_analysis(config.analysis, folder, workers, progress)
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


def write_analysis(name: str, folder: Path, workers: int, progress: bool) -> None:
    """Run the analysis step ``name`` (a key of :data:`~uno_rl.experiments.config.ANALYSES`)
    on the finished run ``folder``: it writes its outputs there."""
    if name == "bluff":
        from uno_rl.analysis.study import write_bluff_study

        write_bluff_study(folder, workers=workers, progress=progress)
    elif name == "bluff-when":
        from uno_rl.analysis.situations import write_situation_study

        write_situation_study(folder, workers=workers, progress=progress)
    else:
        raise ConfigError(f"unknown analysis {name!r}")


def analysis_summary(name: str, folder: Path) -> str:
    """The text summary of analysis step ``name``'s outputs in ``folder``."""
    if name == "bluff":
        from uno_rl.analysis.study import study_summary

        return study_summary(folder)
    if name == "bluff-when":
        from uno_rl.analysis.situations import situation_summary

        return situation_summary(folder)
    raise ConfigError(f"unknown analysis {name!r}")

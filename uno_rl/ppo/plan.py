"""What ``uno_rl train`` says before it trains and after: the plan of a new run (its whole
updates, :func:`budget_line`; the size of its evaluations, :func:`evaluation_line`), what
one call trained (:func:`trained_line`), and what a stopped run kept (:func:`resume_note`,
:func:`interrupted_line`)."""

from __future__ import annotations

from pathlib import Path

from .checkpoint import load_checkpoint
from .config import TrainConfig

__all__ = [
    "budget_line",
    "counted",
    "evaluation_line",
    "interrupted_line",
    "periodic_evaluations",
    "resume_note",
    "trained_line",
]


def counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless it is one: ``1 update``, ``1,024 updates``."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def budget_line(config: TrainConfig) -> str:
    """What a new run of ``config`` will train: its whole updates of one rollout each, and
    ``total_decisions`` as asked where that rounded it."""
    per, updates = config.decisions_per_rollout, config.num_updates
    line = (
        f"training {counted(updates, 'update')} of {per:,} decisions: {updates * per:,} decisions"
    )
    if updates * per != config.total_decisions:
        line += f" (asked {config.total_decisions:,})"
    return line


def periodic_evaluations(config: TrainConfig, num_updates: int) -> int:
    """How many periodic evaluations a run of ``num_updates`` updates makes: one every
    ``eval_every`` updates and one after the last (none when ``eval_every`` is 0)."""
    if not config.eval_every:
        return 0
    return -(-num_updates // config.eval_every)


def evaluation_line(config: TrainConfig, match: bool) -> str:
    """What a new run of ``config`` will evaluate (``match``: its rules play matches): the
    size of each periodic evaluation, how many there are and the final one's size, each with
    the field that sets it; a size set for the other unit, which this run does not use, is
    named too (a single-round recipe run with ``--set match=true``)."""
    unit = "matches" if match else "rounds"
    field, size = config.eval_size(False, match)
    count = periodic_evaluations(config, config.num_updates)
    if not count:
        parts = ["no periodic evaluation (eval_every = 0)"]
    else:
        when = "after the last update"
        if count > 1:
            last = "" if config.num_updates % config.eval_every == 0 else " and after the last"
            when = f"every {counted(config.eval_every, 'update')}{last} ({count} evaluations)"
        parts = [f"{size:,} {unit} each {when} ({_source(config, field)})"]
    final_field, final = config.eval_size(True, match)
    parts.append(
        f"{final:,} {unit} each at the end ({_source(config, final_field)})"
        if final
        else f"no final evaluation ({final_field} = 0)"
    )
    line = f"evaluating against {', '.join(config.eval_agents)}: {'; '.join(parts)}"
    others = [config.eval_size(True, not match)[0]]  # the other unit's fields this run reads
    if count:
        others.insert(0, config.eval_size(False, not match)[0])
    unused = [
        f"{name} = {getattr(config, name)}" for name in others if getattr(config, name) != "auto"
    ]
    if unused:
        other = "single rounds" if match else "matches"
        line += f" ({' and '.join(unused)}: for {other}, unused: these rules play {unit})"
    return line


def _source(config: TrainConfig, field: str) -> str:
    """The field that sets an evaluation's size, and ``auto`` where its rule did."""
    return f"{field} auto" if getattr(config, field) == "auto" else field


def trained_line(summary: dict) -> str:
    """What this call trained, and how fast: only the updates it ran count (a resumed run
    has trained the others; a finished one has nothing left, and no speed to report)."""
    if not summary["updates_run"]:
        return (
            f"nothing left to train: the run had finished all "
            f"{counted(summary['num_updates'], 'update')} "
            f"({summary['decisions']:,} decisions, {summary['rounds']:,} rounds)"
        )
    speed = summary["decisions_run"] / max(summary["seconds"], 1e-9)
    return (
        f"{summary['decisions_run']:,} decisions in "
        f"{counted(summary['updates_run'], 'update')}, "
        f"{summary['seconds']:.0f} s ({speed:,.0f} decisions/s, {summary['precision']} trunk); "
        f"the run: {summary['decisions']:,} decisions, {summary['rounds']:,} rounds"
    )


def resume_note(run: Path) -> str:
    """Where a stopped run in folder ``run`` goes on: its last checkpoint's update and the
    command that resumes it, or that none was written yet."""
    saved = run / "checkpoint.pt"
    if not saved.is_file():
        return "no checkpoint was written yet"
    update = load_checkpoint(saved, ("update",))["update"]
    return (
        f"the run resumes from its last checkpoint (update {update:,}) with: uno_rl train "
        f"--resume {run}"
    )


def interrupted_line(run: Path | None, trained: Path | None) -> str:
    """The one line of a ``uno_rl train`` stopped by a signal: the trained policy where the
    final evaluation was stopped, else where the run goes on (:func:`resume_note`), or that
    nothing was started."""
    if trained is not None:
        return f"interrupted: the final evaluation stopped; the trained policy is {trained}"
    if run is None:
        return "interrupted: training stopped before its run started: nothing was written"
    return f"interrupted: training stopped in {run}; {resume_note(run)}"

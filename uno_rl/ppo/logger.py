"""Training logs: one ``metrics.csv`` row per update, the same scalars as TensorBoard events.

Names are ``group/name`` as in CleanRL: ``charts/`` (progress, speed, the rollout's games),
``losses/`` (the PPO update), ``behaviour/`` (how the learner plays the +4), ``eval/`` (the
periodic duplicate-deal evaluation). The CSV's columns are those names; its first column is
``global_step``, TensorBoard's step axis. With ``track`` on, the same scalars go to Weights &
Biases at the same step (:mod:`uno_rl.ppo.tracking`).

Columns (per row = per update; "this update" = the rollout and PPO update of that row):

============================================ ================================================
``global_step``                              learner decisions so far (int): the decisions
                                             the trained policy took, over every update
``charts/update``                            updates done (int)
``charts/decisions``                         decisions of every seat so far (int): learner,
                                             snapshots and zoo agents; what
                                             ``total_decisions`` counts
``charts/rounds``                            rounds finished so far, all games (int)
``charts/learning_rate``                     Adam's learning rate this update
``charts/wall_time`` *                       Unix time (s) the row was logged
``charts/elapsed_s`` *                       seconds of training so far, those before a
                                             resume included (saved in the checkpoint)
``charts/SPS`` *                             learner decisions per second of this update
                                             (rollout and PPO update; no evaluation)
``charts/decisions_per_s`` *                 every seat's decisions per second, same window
``charts/rollout_share`` *                   share of that window spent playing (0..1)
``charts/round_length``                      decisions (all seats) per round that ended this
                                             update, mean: the episode length (objective
                                             ``rules``: an episode is a round)
``charts/truncation_rate``                   share of the rounds ended this update that were
                                             cut at ``max_turns`` (0..1)
``charts/episodic_return``                   training reward handed to learner seats this
                                             update per learner episode that ended (objective
                                             ``match``: cut-round penalties included)
``charts/win_rate_all_lineups``              rounds won by learner seats / their rounds,
                                             every line-up (self-play included)
``charts/rounds_vs_pool``, ``_vs_zoo``       rounds this update with one learner seat against
                                             snapshots / zoo agents (sample sizes, int)
``charts/win_rate_vs_pool``, ``_vs_zoo``     rounds won in those rounds (0..1)
``charts/points_per_round_vs_pool``, ...zoo  zero-sum net card points per such round
``charts/match_win_rate_vs_pool``, ...zoo    matches won of those finished (match rules)
``losses/policy_loss``                       clipped surrogate loss (last minibatch)
``losses/value_loss``                        0.5 * squared value error (last minibatch)
``losses/entropy``                           policy entropy over legal actions, nats
``losses/old_approx_kl``, ``approx_kl``      KL estimates -log r and (r - 1) - log r (last
                                             minibatch), nats
``losses/clipfrac``                          share of samples with abs(r - 1) > clip_coef,
                                             mean over minibatches (0..1)
``losses/explained_variance``                1 - Var(returns - values) / Var(returns)
``losses/grad_norm``                         global L2 norm of the gradient before clipping
                                             to ``max_grad_norm``, mean over minibatches
``losses/grad_norm_max``                     the largest of those norms this update
``losses/distill_loss``                      search distillation only: the imitation loss,
                                             cross-entropy to the search's choices (mean)
``losses/distill_agreement``                 share of those targets where the policy's
                                             likeliest action is the search's
``behaviour/draw4_per_round``                +4s the learner played per learner round
``behaviour/bluff_share``                    share of those +4s that were bluffs (0..1)
``behaviour/challenges_per_round``           challenges the learner made per learner round
``behaviour/challenge_success``              share of its challenges that won (0..1)
``eval/evaluated``                           1 on rows with an evaluation, else 0 (int)
``eval/win_rate_vs_OPP``                     rounds won against eval agent ``OPP`` (0..1)
``eval/points_per_round_vs_OPP``             net card points per round against ``OPP``
``eval/match_win_rate_vs_OPP``               matches won against ``OPP`` (match rules, 0..1)
``eval/..._ci95_low``, ``..._ci95_high``     the 95% interval of each eval measure
============================================ ================================================

``*``: timing columns (:data:`TIMING_KEYS`); the others are the same in every run of one
seed and config, killed and resumed or not.

Missing values: a value that does not exist in a row (no evaluation this update, no round
against the zoo, a rate over zero events, a non-finite number) is an empty CSV cell and no
TensorBoard point; ``nan`` is never written. A column is added to the header the first time
it has a value (earlier rows are blank there; it takes its place by the columns logged beside
it), so no column is empty throughout; rows with an evaluation are those with
``eval/evaluated`` = 1.

The run's hyperparameters (its config, lists and tables flattened to text) go to
TensorBoard's HPARAMS tab (the hparams plugin's experiment summary and this run's start
summary, in the run's own event file, so that the tab's metric columns are this run's scalars)
and, as in CleanRL, to a ``hyperparameters`` text table (:meth:`RunLogger.log_hparams`).

Every row reaches the disk before the update's checkpoint is written (each append is
``fsync``-ed; a widened header is rewritten durably), so a checkpoint never runs ahead of
``metrics.csv``. A resumed run (``keep_rows`` and ``purge_step``) first drops the rows past
its checkpoint, which the killed run logged but the resumed run logs again, and has
TensorBoard hide their events: the log of a run killed and resumed holds each update exactly
once, as an uninterrupted run's does.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uno_rl.plumbing.durable import append_durably, fsync_folder, replace_durably

if TYPE_CHECKING:
    from .tracking import Tracker

__all__ = ["STEP", "TIMING_KEYS", "RunLogger", "hparam_values", "read_rows"]

#: The first column: learner decisions so far (TensorBoard's step).
STEP = "global_step"
#: Columns that measure time, not what was computed.
TIMING_KEYS = (
    "charts/wall_time",
    "charts/elapsed_s",
    "charts/SPS",
    "charts/decisions_per_s",
    "charts/rollout_share",
)


def read_rows(path: str | Path) -> tuple[list[str], list[list[str]]]:
    """The header and rows of a ``metrics.csv`` (empty where the file is missing or empty)."""
    path = Path(path)
    if not path.is_file():
        return [], []
    with path.open(newline="", encoding="utf-8") as f:
        lines = list(csv.reader(f))
    return (lines[0], lines[1:]) if lines else ([], [])


def _csv_text(rows: list[list[Any]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)  # csv's own line ends (\r\n), as csv.DictWriter
    return buffer.getvalue()


def _has_value(value: Any) -> bool:
    """A loggable scalar: not None, and finite if a number."""
    if value is None or isinstance(value, str):
        return False
    return math.isfinite(value)


def _widened(header: list[str], order: list[str], new: Mapping[str, Any]) -> list[str]:
    """``header`` with the keys of ``new`` it lacks, each placed after the nearest key before
    it in ``order`` that the header has (so a group's columns stay together:
    ``charts/round_length`` joins the other ``charts/`` columns)."""
    wider, at = list(header), 0
    for key in order:
        if key in wider:
            at = wider.index(key) + 1
        elif key in new:
            wider.insert(at, key)
            at += 1
    return wider


def hparam_values(config: Mapping[str, Any]) -> dict[str, int | float | str | bool]:
    """``config`` with every value a TensorBoard hparam can hold: lists become
    comma-separated text, tables ``key=value`` pairs (sorted), ``None`` empty text."""

    def flat(value: Any) -> int | float | str | bool:
        if isinstance(value, bool | int | float | str):
            return value
        if value is None:
            return ""
        if isinstance(value, Mapping):
            return ",".join(f"{k}={flat(v)}" for k, v in sorted(value.items()))
        if isinstance(value, Iterable):
            return ",".join(str(flat(v)) for v in value)
        return str(value)

    return {name: flat(value) for name, value in config.items()}


class RunLogger:
    """Appends rows to ``RUN/metrics.csv`` and (optionally) ``RUN/tensorboard/`` events.

    ``keep_rows``: resuming, the number of rows the checkpoint covers (one per update): later
    rows are dropped. ``purge_step``: resuming, the first step after the checkpoint: TensorBoard
    hides the earlier run's events from this step on. ``tracker``: where the same scalars go
    as well (a :class:`uno_rl.ppo.tracking.Tracker`: Weights & Biases), closed with the logger.
    """

    def __init__(
        self,
        folder: str | Path,
        tensorboard: bool = True,
        keep_rows: int | None = None,
        purge_step: int | None = None,
        tracker: Tracker | None = None,
    ):
        self.tracker = tracker
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / "metrics.csv"
        if keep_rows is not None:
            self.truncate(keep_rows)
        self.header = read_rows(self.path)[0]  # the columns so far ([]: no file yet)
        self.writer = None
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(self.folder / "tensorboard"), purge_step=purge_step)
            fsync_folder(self.folder)

    def truncate(self, keep: int) -> int:
        """Keep the header and the first ``keep`` rows (durably); returns the rows dropped."""
        header, rows = read_rows(self.path)
        if not header:
            return 0
        with self.path.open("rb") as f:
            f.seek(-1, 2)
            whole = f.read(1) == b"\n"
        if not whole:  # the last row was cut short (no durable append cuts one): drop it
            rows = rows[:-1]
        elif len(rows) <= keep:
            return 0
        with replace_durably(self.path) as tmp:
            tmp.write_text(_csv_text([header, *rows[:keep]]), encoding="utf-8")
        return max(len(rows) - keep, 0)

    def log(self, step: int, row: Mapping[str, Any]) -> None:
        """Record ``row`` (scalars) at global step ``step``, durably. Entries without a value
        (``None``, ``nan``, infinite) are left out: an empty cell, no TensorBoard point."""
        order = [STEP, *row]  # every key, those without a value too: where new columns go
        row = {STEP: step, **{k: v for k, v in row.items() if _has_value(v)}}
        if not self.header:
            self.header = list(row)
            append_durably(self.path, _csv_text([self.header]))
        if any(c not in self.header for c in row):  # a metric's first value: a wider header
            _, old = read_rows(self.path)
            wider = _widened(self.header, order, row)
            moved = [dict(zip(self.header, r)) for r in old]
            padded = [[r.get(c, "") for c in wider] for r in moved]
            self.header = wider
            with replace_durably(self.path) as tmp:
                tmp.write_text(_csv_text([self.header, *padded]), encoding="utf-8")
        append_durably(self.path, _csv_text([[row.get(k, "") for k in self.header]]))
        if self.writer is not None:
            for key, value in row.items():
                if key != STEP:
                    self.writer.add_scalar(key, value, step)
            self.writer.flush()
        if self.tracker is not None:
            self.tracker.log(step, {k: v for k, v in row.items() if k != STEP})

    def log_hparams(self, hparams: Mapping[str, Any], metrics: Iterable[str]) -> None:
        """Write the run's hyperparameters to TensorBoard (a fresh run, once): the HPARAMS
        tab's experiment summary and this run's start summary, with ``metrics`` (scalar tags
        the run logs) as its metric columns, and a ``hyperparameters`` text table as CleanRL
        writes it."""
        if self.writer is None:
            return
        from torch.utils.tensorboard.summary import hparams as hparams_summaries

        values = hparam_values(hparams)
        experiment, start, _ = hparams_summaries(values, dict.fromkeys(metrics, 0.0))
        self.writer.file_writer.add_summary(experiment, 0)
        self.writer.file_writer.add_summary(start, 0)
        table = "\n".join(f"|{k}|{v}|" for k, v in values.items())
        self.writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}", 0)
        self.writer.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if self.tracker is not None:
            self.tracker.finish()

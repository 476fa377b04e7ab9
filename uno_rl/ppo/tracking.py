"""Experiment tracking: a run's scalars and config to Weights & Biases, beside TensorBoard.

Off unless the config's ``track`` field is on (``uno_rl train --track``); then every row the
run logs (:class:`uno_rl.ppo.logger.RunLogger`: the scalars of ``metrics.csv`` and
TensorBoard, under the same names) goes to a W&B run at the same step, the learner's
decisions so far (``global_step``), and the run's config is the W&B run's config. ``wandb``
is an optional dependency (``pip install 'uno_rl[track]'``), imported only when tracking is on;
without it a tracked run stops before anything is written (:class:`TrainConfigError`).

W&B's own environment variables decide where the run goes: ``WANDB_MODE`` (``offline``:
written to disk only, sent later with ``wandb sync``; ``disabled``: nothing at all),
``WANDB_ENTITY``, ``WANDB_PROJECT`` (default :data:`PROJECT`), ``WANDB_NAME`` (default the
run folder's ``NAME/<timestamp>``), ``WANDB_DIR`` (default the run folder: its files go to
``RUN/wandb/``). The W&B run is grouped by the config's ``name``. Once the run has trained,
its final evaluation's tables (:data:`FINAL_TABLES`) go to the same W&B run as tables
``final_eval/NAME``, at the run's last step.

The W&B run's id is kept in the run folder (:data:`ID_FILE`), so that ``uno_rl train --resume
RUN`` continues the same W&B run (``resume="allow"``), each update at its own step: none is
counted twice. The updates a killed run logged after its last checkpoint are logged again at
the same steps; W&B keeps the values it already holds there (the same, timings aside: a
resumed run repeats its updates exactly) and warns that it ignores the repeats.
"""

from __future__ import annotations

import math
import os
import secrets
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from uno_rl.plumbing.durable import write_text_durably

from .config import TrainConfig, TrainConfigError

__all__ = ["FINAL_TABLES", "ID_FILE", "PROJECT", "Tracker", "init_settings", "run_id"]

#: The W&B project of a run unless ``WANDB_PROJECT`` names another.
PROJECT = "uno_rl"
#: The file of the run folder holding its W&B run id (one line).
ID_FILE = "wandb_run_id.txt"
#: The final evaluation's tables (``RUN/final_eval/NAME.csv``) a tracked run sends to W&B.
FINAL_TABLES = ("agents", "pairs", "seats", "ratings")
#: How the optional dependency is installed.
INSTALL = "pip install 'uno_rl[track]'"


def _import_wandb():
    try:
        import wandb
    except ImportError:
        raise TrainConfigError(
            f"track: logging to Weights & Biases needs the wandb package: {INSTALL}"
        ) from None
    return wandb


def run_id(folder: Path) -> str:
    """The W&B run id of run folder ``folder``: the one it keeps in :data:`ID_FILE`, or a new
    one (12 hex digits), written there durably."""
    path = folder / ID_FILE
    if path.is_file():
        kept = path.read_text(encoding="utf-8").strip()
        if kept:
            return kept
    new = secrets.token_hex(6)
    write_text_durably(path, new + "\n")
    return new


def init_settings(
    folder: Path, config: TrainConfig, ident: str, environ: Mapping[str, str] = os.environ
) -> dict[str, Any]:
    """The arguments of ``wandb.init`` for the run in ``folder``: its id ``ident`` (resumed
    where it exists), its config; the project, name and folder of the W&B variables in
    ``environ`` or the defaults (:data:`PROJECT`, ``NAME/<timestamp>``, the run folder)."""
    settings = {
        "project": environ.get("WANDB_PROJECT") or PROJECT,
        "name": environ.get("WANDB_NAME") or f"{folder.parent.name}/{folder.name}",
        "group": config.name,
        "job_type": "train",
        "id": ident,
        "resume": "allow",
        "config": config.to_dict(),
    }
    if not environ.get("WANDB_DIR"):
        settings["dir"] = str(folder)
    return settings


class Tracker:
    """The W&B side of a run's logs; does nothing unless ``config.track``.

    Made before anything is written (it imports ``wandb``, or raises
    :class:`TrainConfigError` naming the extra to install); :meth:`start` opens the W&B run
    once the run folder exists, :meth:`log` sends a row, :meth:`finish` closes the run.
    """

    def __init__(self, config: TrainConfig):
        self.config = config
        self.wandb = _import_wandb() if config.track else None
        self.run = None
        self.opened_at: float | None = None  # when the last W&B run of this tracker opened

    def start(self, folder: Path) -> None:
        """Open the W&B run of run folder ``folder`` (the same one on a resume)."""
        if self.wandb is None:
            return
        settings = init_settings(Path(folder), self.config, run_id(Path(folder)))
        if self.opened_at is not None:
            # An offline run's folder is named by its id and the second it opened: the same
            # run opened again within that second would write over the first one's log.
            time.sleep(max(0.0, math.floor(self.opened_at) + 1 - time.time()))
        try:
            self.run = self.wandb.init(**settings)
            self.opened_at = time.time()
        except (self.wandb.errors.Error, ValueError) as error:
            why = " ".join(str(error).split())
            raise TrainConfigError(f"track: Weights & Biases did not start: {why}") from None

    def log(self, step: int, row: Mapping[str, float]) -> None:
        """Send ``row`` (scalars by name, each with a value) at step ``step``."""
        if self.run is not None:
            self.run.log(dict(row), step=step)

    def log_tables(self, folder: Path, prefix: str, names: Sequence[str], step: int) -> None:
        """Send the tables ``folder/NAME.csv`` of ``names`` (those there) as W&B tables
        ``PREFIX/NAME`` at step ``step`` to the run of run folder ``folder`` (opened again
        where it was closed: the training's own W&B run), then close it."""
        if self.wandb is None:
            return
        import pandas as pd

        tables = {
            f"{prefix}/{name}": self.wandb.Table(
                dataframe=pd.read_csv(folder / prefix / f"{name}.csv")
            )
            for name in names
            if (folder / prefix / f"{name}.csv").is_file()
        }
        if not tables:
            return
        if self.run is None:
            self.start(folder)
        self.run.log(tables, step=step)
        self.finish()

    def finish(self) -> None:
        """Close the W&B run (offline: its files are complete); again: nothing."""
        if self.run is not None:
            run, self.run = self.run, None
            run.finish()

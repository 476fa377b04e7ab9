"""Training logs: one CSV row per update, the same scalars as TensorBoard events.

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
from pathlib import Path
from typing import Any

from uno_rl.durable import append_durably, fsync_folder, replace_durably

__all__ = ["RunLogger", "read_rows"]


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


class RunLogger:
    """Appends rows to ``RUN/metrics.csv`` and (optionally) ``RUN/tensorboard/`` events.

    Keys are ``group/name`` (``charts/decisions_per_s``, ``losses/value``, ``eval/...``); the
    CSV has one column per key seen in the first row plus any later ones (written at the end).

    ``keep_rows``: resuming, the number of rows the checkpoint covers (one per update): later
    rows are dropped. ``purge_step``: resuming, the first step after the checkpoint: TensorBoard
    hides the earlier run's events from this step on.
    """

    def __init__(
        self,
        folder: str | Path,
        tensorboard: bool = True,
        keep_rows: int | None = None,
        purge_step: int | None = None,
    ):
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

    def log(self, step: int, row: dict[str, Any]) -> None:
        """Record ``row`` (scalars) at global step ``step`` (decisions so far), durably."""
        row = {"step": step, **row}
        if not self.header:
            self.header = list(row)
            append_durably(self.path, _csv_text([self.header]))
        extra = [c for c in row if c not in self.header]
        if extra:  # a new metric appears (the first evaluation): rewrite with the wider header
            _, old = read_rows(self.path)
            self.header = self.header + extra
            padded = [r + [""] * (len(self.header) - len(r)) for r in old]
            with replace_durably(self.path) as tmp:
                tmp.write_text(_csv_text([self.header, *padded]), encoding="utf-8")
        append_durably(self.path, _csv_text([[row.get(k, "") for k in self.header]]))
        if self.writer is not None:
            for key, value in row.items():
                if key != "step" and isinstance(value, int | float) and math.isfinite(value):
                    self.writer.add_scalar(key, value, step)
            self.writer.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

"""Training logs: one CSV row per update, the same scalars as TensorBoard events."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

__all__ = ["RunLogger"]


class RunLogger:
    """Appends rows to ``RUN/metrics.csv`` and (optionally) ``RUN/tensorboard/`` events.

    Keys are ``group/name`` (``charts/decisions_per_s``, ``losses/value``, ``eval/...``); the
    CSV has one column per key seen in the first row plus any later ones (written at the end).
    """

    def __init__(self, folder: str | Path, tensorboard: bool = True):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / "metrics.csv"
        self.writer = None
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(self.folder / "tensorboard"))

    def log(self, step: int, row: dict[str, Any]) -> None:
        """Record ``row`` (scalars) at global step ``step`` (decisions so far)."""
        row = {"step": step, **row}
        exists = self.path.exists() and self.path.stat().st_size > 0
        columns = list(row)
        if exists:
            with self.path.open(newline="") as f:
                header = next(csv.reader(f), [])
            extra = [c for c in columns if c not in header]
            if extra:  # a new metric appears (the first evaluation): rewrite with the wider header
                with self.path.open(newline="") as f:
                    old = list(csv.DictReader(f))
                header = header + extra
                tmp = self.path.with_suffix(".csv.tmp")
                with tmp.open("w", newline="") as f:
                    writer = csv.DictWriter(f, header)
                    writer.writeheader()
                    writer.writerows(old)
                tmp.replace(self.path)
            columns = header
        with self.path.open("a", newline="") as f:
            writer = csv.DictWriter(f, columns)
            if not exists:
                writer.writeheader()
            writer.writerow({k: row.get(k, "") for k in columns})
        if self.writer is not None:
            for key, value in row.items():
                if key != "step" and isinstance(value, int | float) and math.isfinite(value):
                    self.writer.add_scalar(key, value, step)
            self.writer.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

"""Where the notebooks find the runs they read, and what they say when a run is missing.

The rule, stated in each notebook's first cell: the runs folder is ``$UNO_RL_RUNS`` when it
is set; else ``runs/`` in the current folder (a Jupyter kernel starts in its notebook's
folder), if there is one; else ``runs/`` next to that folder (the repository's layout, and the
one ``uno_rl notebooks`` makes: ``notebooks/`` and ``runs/`` side by side), if there is one.
In that folder the run of an experiment ``NAME`` is the latest finished run (a folder with
``DONE``) of ``NAME/``, else of ``NAME-quick/`` (what ``--quick`` writes). A notebook's own
variable (``UNO_RL_RUN``, ...) names a run folder instead.

A section whose run is missing prints :meth:`Runs.missing`, one sentence naming the commands
that produce the run, and the notebook goes on to the next section.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["RUNS_VARIABLE", "Runs", "latest_finished"]

#: The environment variable naming the runs folder.
RUNS_VARIABLE = "UNO_RL_RUNS"


def latest_finished(folder: Path) -> Path | None:
    """The last (by name: the names are timestamps) run folder below ``folder`` holding
    ``DONE``; None when there is none."""
    if not folder.is_dir():
        return None
    done = sorted(p for p in folder.iterdir() if (p / "DONE").is_file())
    return done[-1] if done else None


@dataclass(frozen=True)
class Runs:
    """The runs folder a notebook reads (``folder``: None when there is none), where it was
    found (``source``), the folders looked at, and the environment the run variables are
    read from."""

    folder: Path | None
    source: str
    looked: tuple[Path, ...] = ()
    environ: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def find(cls, environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> Runs:
        """The runs folder by the rule of this module: ``$UNO_RL_RUNS``, else ``runs/`` in
        ``cwd`` (default: the current folder), else ``runs/`` in its parent."""
        environ = dict(os.environ if environ is None else environ)
        given = environ.get(RUNS_VARIABLE, "")
        if given:
            return cls(Path(given).expanduser(), f"${RUNS_VARIABLE}", (), environ)
        here = Path.cwd() if cwd is None else Path(cwd)
        candidates = (
            (here / "runs", "in the current folder"),
            (here.parent / "runs", "next to the current folder"),
        )
        for folder, source in candidates:
            if folder.is_dir():
                return cls(folder, source, (), environ)
        return cls(None, "", tuple(folder for folder, _ in candidates), environ)

    def __str__(self) -> str:
        if self.folder is None:
            looked = " nor ".join(str(folder) for folder in self.looked)
            return f"no runs folder: ${RUNS_VARIABLE} is not set and neither {looked} exists"
        return f"runs folder: {self.folder} ({self.source})"

    def latest(self, name: str, variable: str | None = None) -> Path | None:
        """The run of experiment ``name``: the folder ``$variable`` names when that is set
        (None if it is not a folder), else the latest finished run of ``NAME/``, else of
        ``NAME-quick/``; None when there is none."""
        given = self.environ.get(variable, "") if variable else ""
        if given:
            folder = Path(given).expanduser()
            return folder if folder.is_dir() else None
        if self.folder is None:
            return None
        for folder in (self.folder / name, self.folder / f"{name}-quick"):
            run = latest_finished(folder)
            if run is not None:
                return run
        return None

    def missing(self, name: str, variable: str | None = None) -> str:
        """The sentence a section prints when :meth:`latest` found no run of ``name``: where
        it looked and the commands that produce one."""
        given = self.environ.get(variable, "") if variable else ""
        if given:
            where = f"{given} (${variable}) is not a folder"
        elif self.folder is None:
            where = f"no finished {name} run (no runs folder)"
        else:
            where = f"no finished {name} run in {self.folder}"
        return (
            f"{where[0].upper()}{where[1:]}: `uno_rl experiment {name} --quick` (a miniature) "
            f"or `uno_rl experiment {name}` (the full run) produces one."
        )

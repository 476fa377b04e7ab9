"""Copy the analysis notebooks into a folder: ``uno_rl notebooks [DIR]``.

The notebooks (``bluff``, ``editions`` and ``variants``: the figures of the shipped
experiments) ship with the package in ``uno_rl/data/notebooks`` (:func:`uno_rl.plumbing.resources.data_dir`;
in the repository a link to ``notebooks/``, in the wheel a copy). The command writes them into
``DIR`` (default ``notebooks``, made if missing): a file there that is the same is left as it
is, one that differs is replaced only with ``--force``; otherwise nothing is written and one
``error:`` line names the files (exit status 2), as for any other bad ``DIR``. The files get the
mode a new file gets (``0o666`` less the user's umask). It then says what to do next: install
Jupyter (the ``notebooks`` extra), produce a run, open the folder.

The notebooks only read runs: ``$UNO_RL_RUNS``, else ``runs/`` in their folder, else ``runs/``
next to it (:mod:`uno_rl.analysis.notebook_runs`), so experiments run in the folder above
``DIR`` are found.
"""

from __future__ import annotations

import argparse
import os
import shlex
from collections.abc import Sequence
from pathlib import Path

from uno_rl.plumbing import resources
from uno_rl.plumbing.cli import CliParser, print_error
from uno_rl.plumbing.durable import write_bytes_durably

__all__ = ["build_parser", "copy_notebooks", "main", "next_steps", "shipped_notebooks"]

#: The default folder the notebooks are written to (relative to the current folder).
DEFAULT_FOLDER = "notebooks"


def shipped_notebooks() -> list[Path]:
    """The ``*.ipynb`` files shipped with the package, by name; ``FileNotFoundError`` when
    there is none (a broken installation)."""
    folder = resources.data_dir("notebooks")
    found = sorted(p for p in folder.glob("*.ipynb") if p.is_file())
    if not found:
        raise FileNotFoundError(f"no notebooks in {folder}: the installation is incomplete")
    return found


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__


def _differs(source: Path, target: Path) -> bool:
    """Whether ``target`` (an existing file) is not a copy of ``source``."""
    try:
        return target.read_bytes() != source.read_bytes()
    except OSError as error:
        raise ValueError(f"cannot read {target}: {_reason(error)}") from None


def _plan(sources: list[Path], folder: Path) -> list[tuple[Path, Path, str]]:
    """(source, target, what is to be done) per notebook; ``ValueError`` for a path in the
    way."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder} is a file, not a folder")
    plan = []
    for source in sources:
        target = folder / source.name
        if target.is_dir():
            raise ValueError(f"{target} is a folder, where a notebook would go")
        if not target.exists():
            plan.append((source, target, "written"))
        else:
            plan.append((source, target, "replaced" if _differs(source, target) else "unchanged"))
    return plan


def copy_notebooks(folder: str | os.PathLike[str], force: bool = False) -> list[tuple[Path, str]]:
    """Write the shipped notebooks into ``folder``; returns each target with what was done
    (``written``, ``unchanged`` or ``replaced``). Everything is checked before anything is
    written: ``ValueError`` with one line for an empty path, a file in the way, a target that
    is a folder, targets that differ without ``force``, or a folder that cannot be made or
    written in."""
    text = os.fspath(folder)
    if not text.strip():
        raise ValueError("DIR must name a folder, got an empty path")
    folder = Path(text)
    sources = shipped_notebooks()
    try:
        plan = _plan(sources, folder)
    except OSError as error:  # a folder on the way that cannot be searched
        raise ValueError(f"cannot use {text}: {_reason(error)}") from None
    different = [target.name for _, target, what in plan if what == "replaced"]
    if different and not force:
        one = len(different) == 1
        raise ValueError(
            f"{', '.join(different)} in {text} {'differs' if one else 'differ'} from the shipped "
            f"{'notebook' if one else 'notebooks'}; --force replaces {'it' if one else 'them'}"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ValueError(f"cannot make the folder {text}: {_reason(error)}") from None
    for source, target, what in plan:
        if what == "unchanged":
            continue
        try:
            write_bytes_durably(target, source.read_bytes())
        except OSError as error:
            raise ValueError(f"cannot write {target}: {_reason(error)}") from None
    return [(target, what) for _, target, what in plan]


def next_steps(folder: str | os.PathLike[str]) -> str:
    """What to do once the notebooks are in ``folder``: install Jupyter, produce a run where
    the notebooks look for it, open the folder."""
    folder = Path(folder)
    home = folder.resolve().parent
    here = "" if home == Path.cwd().resolve() else f"cd {shlex.quote(str(home))} && "
    steps = [
        ("pip install 'uno_rl[notebooks]'", "JupyterLab and a kernel"),
        (
            f"{here}uno_rl experiment variants --quick",
            "a run to read (each notebook names its own)",
        ),
        (f"jupyter lab {shlex.quote(str(folder))}", ""),
    ]
    width = max(len(command) for command, _ in steps)
    lines = [f"  {command:<{width}}  # {why}" if why else f"  {command}" for command, why in steps]
    return "\n".join(
        [
            "next:",
            *lines,
            f"The notebooks read the runs in $UNO_RL_RUNS if it is set, else in runs/ inside "
            f"their folder, else in {home / 'runs'} (where experiments run in {home} write).",
        ]
    )


def build_parser() -> argparse.ArgumentParser:
    parser = CliParser(
        prog="uno_rl notebooks",
        description="Copy the analysis notebooks (bluff, editions, variants) into a folder, "
        "to open with Jupyter.",
    )
    parser.add_argument(
        "folder",
        metavar="DIR",
        nargs="?",
        default=DEFAULT_FOLDER,
        help=f"the folder to write them in, made if missing (default {DEFAULT_FOLDER})",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace notebooks in DIR that differ from the shipped ones",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``uno_rl notebooks ARGV``; the exit status (0: done, 1: no notebooks shipped,
    2: bad input)."""
    args = build_parser().parse_args(argv)
    try:
        done = copy_notebooks(args.folder, args.force)
    except ValueError as error:
        print_error(error)
        return 2
    except FileNotFoundError as error:
        print_error(error)
        return 1
    for target, what in done:
        print(f"{what:<9}  {target}")
    print(next_steps(args.folder))
    return 0

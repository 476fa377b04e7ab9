"""Output paths checked before any work: a run never plays for an hour to fail at its save.

:func:`check_output_folder` refuses, with one line naming the option and the path, a folder
that exists as a file, a path below a file, a place this process cannot write in, and a
folder holding a folder where a table file is to go. It creates nothing: a missing folder is
made when the results are written.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from uno_rl.plumbing.tomlfile import not_a_file

__all__ = ["check_output_folder"]


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:  # a path whose parent cannot be searched: treat as missing
        return False


def check_output_folder(
    path: str | os.PathLike[str], option: str, files: Iterable[str] = ()
) -> Path:
    """``path`` as a folder the results can be written into, else ``ValueError`` naming
    ``option``: it must not be a file, every existing ancestor must be a folder this process
    can write in, and none of ``files`` (the names to be written there) may be a folder."""
    text = os.fspath(path)
    if not str(text).strip():
        raise ValueError(f"{option} must name a folder, got an empty path")
    folder = Path(text)
    if _exists(folder) and not folder.is_dir():
        what = not_a_file(folder) or "a file"
        raise ValueError(f"{option} {text}: exists and is {what}, not a folder")
    existing = folder
    while not _exists(existing):
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        what = not_a_file(existing) or "a file"
        raise ValueError(f"{option} {text}: {existing} is {what}, so no folder can be made there")
    try:
        handle, probe = tempfile.mkstemp(prefix=".uno-rl-probe-", dir=existing)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ValueError(f"{option} {text}: cannot write in {existing} ({reason})") from None
    os.close(handle)
    os.unlink(probe)
    if existing == folder:
        for name in files:
            if (folder / name).is_dir():
                raise ValueError(
                    f"{option} {text}: {name} there is a folder; the run would write a file there"
                )
    return folder

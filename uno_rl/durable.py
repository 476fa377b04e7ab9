"""Durable files: what a resume depends on survives a crash or a power cut.

Every writer here follows the same protocol: write a temporary file in the target's folder,
flush and ``fsync`` it, ``os.replace`` it onto the target (atomic on POSIX), then ``fsync``
the folder so that the rename itself is on disk. A reader sees the old file or the new one,
never half of either. :func:`append_durably` is the append-only counterpart (a CSV row).

A new file gets the mode ``open()`` would give it (``0o666`` less the user's umask), so that
teammates and a Jupyter server running as another user can read the results.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

__all__ = [
    "append_durably",
    "fsync_folder",
    "replace_durably",
    "write_bytes_durably",
    "write_text_durably",
]


def fsync_folder(folder: str | os.PathLike[str]) -> None:
    """``fsync`` a folder, so that renames and new entries in it are durable (no-op where
    folders cannot be opened, e.g. Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def replace_durably(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; once the block has written it, make it
    durable and rename it onto ``path``. On an exception the temporary file is removed and
    ``path`` is untouched. Missing parent folders are made.

    >>> with replace_durably("out/table.parquet") as tmp:   # doctest: +SKIP
    ...     frame.to_parquet(tmp)
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _new_temporary(path)
    try:
        yield tmp
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_folder(path.parent)


def _new_temporary(path: Path) -> Path:
    """A new empty file ``.NAME.<random>.tmp`` beside ``path``, made as ``open()`` makes a
    file (mode ``0o666`` less the umask; ``tempfile.mkstemp`` would make it private)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
        try:
            os.close(os.open(tmp, flags, 0o666))
        except FileExistsError:
            continue
        return tmp
    raise FileExistsError(f"{path.parent}: no free name for a temporary file")


def _write(path: str | os.PathLike[str], write: Callable[[IO], None], mode: str, **kw) -> None:
    with replace_durably(path) as tmp, open(tmp, mode, **kw) as f:
        write(f)
        f.flush()


def write_text_durably(path: str | os.PathLike[str], text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8), durably and atomically."""
    _write(path, lambda f: f.write(text), "w", encoding="utf-8")


def write_bytes_durably(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data``, durably and atomically."""
    _write(path, lambda f: f.write(data), "wb")


def append_durably(path: str | os.PathLike[str], text: str) -> None:
    """Append ``text`` (UTF-8) to ``path`` and ``fsync`` it; a new file's folder is synced
    too, so that the file itself survives."""
    path = Path(path)
    new = not path.exists()
    with open(path, "a", encoding="utf-8", newline="") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    if new:
        fsync_folder(path.parent)

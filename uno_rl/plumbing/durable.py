"""Durable files: what a resume depends on survives a crash or a power cut.

Every writer here follows the same protocol: write a temporary file in the target's folder,
flush and ``fsync`` it, ``os.replace`` it onto the target (atomic on POSIX), then ``fsync``
the folder so that the rename itself is on disk. A reader sees the old file or the new one,
never half of either. :func:`append_durably` is the append-only counterpart (a CSV row).

A target that exists and is not a regular file (a folder, a device such as ``/dev/full``, a
FIFO, a socket, a symlink to one of those, a symlink loop) is refused before anything is made
(:class:`DurableWriteError`): the rename would replace a device node by a file when run as
root. So is a target whose folder cannot take a temporary file (read-only, no permission, a
file where a folder should be). :func:`check_writable` makes the same checks without writing,
for programs that refuse an output before their work starts.

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

from uno_rl.plumbing.tomlfile import not_a_file

__all__ = [
    "DurableWriteError",
    "append_durably",
    "check_target",
    "check_writable",
    "fsync_folder",
    "replace_durably",
    "write_bytes_durably",
    "write_text_durably",
]


class DurableWriteError(OSError):
    """A durable write refused before anything was written: the target is not a regular file,
    or no temporary file can be made beside it. The message is one line: the path, then
    ``reason`` (words that follow a name: ``is a FIFO, not a file: ...``)."""

    reason: str = ""


def _refusal(path: str | os.PathLike[str], reason: str) -> DurableWriteError:
    error = DurableWriteError(f"{os.fspath(path)} {reason}")
    error.reason = reason
    return error


def check_target(path: str | os.PathLike[str]) -> None:
    """Refuse a ``path`` that exists and is not a regular file (:class:`DurableWriteError`
    naming what it is): a write would replace it (a device node, as root) or fail late."""
    kind = not_a_file(path)
    if kind is not None:
        raise _refusal(path, f"is {kind}, not a file: choose another output path")


def check_writable(path: str | os.PathLike[str]) -> None:
    """Raise :class:`DurableWriteError` unless a durable write of ``path`` can be made: the
    target is not something other than a file (:func:`check_target`), and its folder, or the
    nearest existing folder above it where folders are still to be made, takes a new file (a
    temporary file is made there and removed). Nothing else is made."""
    path = Path(path)
    check_target(path)
    folder = _existing_folder(path)
    _new_temporary(path, folder).unlink()


def _existing_folder(path: Path) -> Path:
    """The nearest existing folder above ``path``; :class:`DurableWriteError` where a file (or
    anything but a folder) stands where a folder should be."""
    parent = Path(os.path.abspath(path)).parent
    while not os.path.lexists(parent) and parent.parent != parent:
        parent = parent.parent
    if not parent.is_dir():
        raise _refusal(path, f"cannot be written: {parent} is not a folder")
    return parent


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
    check_target(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        _existing_folder(path)  # a file where a folder should be: says which
        raise _refusal(
            path, f"cannot be written: its folder cannot be made ({_reason(error)})"
        ) from None
    tmp = _new_temporary(path, path.parent)
    try:
        yield tmp
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        check_target(path)  # made into a device or a folder meanwhile: still never replaced
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_folder(path.parent)


def _new_temporary(path: Path, folder: Path) -> Path:
    """A new empty file ``.NAME.<random>.tmp`` in ``folder`` (the folder of ``path``), made as
    ``open()`` makes a file (mode ``0o666`` less the umask; ``tempfile.mkstemp`` would make it
    private); :class:`DurableWriteError` if the folder takes no new file."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = folder / f".{path.name}.{secrets.token_hex(6)}.tmp"
        try:
            os.close(os.open(tmp, flags, 0o666))
        except FileExistsError:
            continue
        except OSError as error:
            raise _refusal(
                path, f"cannot be written: no file can be made in {folder} ({_reason(error)})"
            ) from None
        return tmp
    raise _refusal(path, f"cannot be written: no free name for a temporary file in {folder}")


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


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
    check_target(path)  # appending to a FIFO waits for a reader; to /dev/full fails
    new = not path.exists()
    with open(path, "a", encoding="utf-8", newline="") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    if new:
        fsync_folder(path.parent)

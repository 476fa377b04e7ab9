"""Files a user named: what a path is when it is not a file, reading a small file safely, and
reading a TOML file with one clear error for every way it can be unusable.

A path that is not a regular file (a folder, a FIFO, a device such as ``/dev/zero``, a
socket, a symlink loop) is told apart with ``os.stat`` before anything opens it: a FIFO opened
for reading waits for a writer forever, and ``/dev/zero`` never ends.
"""

from __future__ import annotations

import errno
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_TOML_BYTES",
    "FileReadError",
    "not_a_file",
    "parsed_value_problem",
    "read_small_file",
    "read_toml",
]

#: Most bytes of a TOML file a user names (a deck, a preset, an agent spec, a config): real
#: ones are a few kilobytes; a larger file is a mistake (a log, a data file) and is refused.
MAX_TOML_BYTES = 1_000_000

#: (test of ``st_mode``, what a path of that mode is), for paths that are not regular files.
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def not_a_file(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is when something is there that is not a regular file: ``a folder``,
    ``a FIFO``, ``a character device``, ``a block device``, ``a socket``, ``a symlink to``
    one of those, or ``a symlink loop``; None for a regular file (or a symlink to one) and for
    a path where nothing is (missing, a dangling symlink, an unusable name).

    Only ``os.stat`` and ``os.lstat`` look at the path: nothing is opened.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        return "a symlink loop" if error.errno == errno.ELOOP else None
    except ValueError:  # a NUL byte in the name: nothing can be there
        return None
    if stat.S_ISREG(mode):
        return None
    kind = next((name for is_kind, name in _KINDS if is_kind(mode)), "a special file")
    try:
        linked = stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        linked = False
    return f"a symlink to {kind}" if linked else kind


class FileReadError(Exception):
    """Why a file cannot be read, as words that follow its name: ``does not exist``,
    ``is a FIFO, not a file``, ``is too large (...)``, ``cannot be read: Permission denied``.

    Attributes:
        missing: nothing is at the path.
        kind: what the path is when it is not a regular file (:func:`not_a_file`), else None.
    """

    def __init__(self, words: str, missing: bool = False, kind: str | None = None) -> None:
        super().__init__(words)
        self.missing = missing
        self.kind = kind


def read_small_file(path: str | os.PathLike[str], limit: int = MAX_TOML_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Raises:
        FileReadError: nothing there, not a regular file (checked before it is opened, so a
            FIFO or a device is never read), more than ``limit`` bytes, or unreadable.
    """
    kind = not_a_file(path)
    if kind == "a symlink loop":
        raise FileReadError("is a symlink loop", kind=kind)
    if kind is not None:
        raise FileReadError(f"is {kind}, not a file", kind=kind)
    # O_NONBLOCK: should the path become a FIFO after the check, opening it does not wait.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileReadError("does not exist", missing=True) from None
    except OSError as error:
        raise FileReadError(f"cannot be read: {error.strerror or error}") from None
    except ValueError as error:  # a NUL byte in the name
        raise FileReadError(f"cannot be read: {error}") from None
    try:
        with open(fd, "rb", closefd=True) as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise FileReadError("is not a regular file")
            if info.st_size > limit:
                raise FileReadError(_too_large(f"{info.st_size:,} bytes", limit))
            data = file.read(limit + 1)
    except OSError as error:
        raise FileReadError(f"cannot be read: {error.strerror or error}") from None
    if len(data) > limit:  # grew while read, or a size the file system does not report
        raise FileReadError(_too_large(f"more than {limit:,} bytes", limit))
    return data


def _too_large(size: str, limit: int) -> str:
    return f"is too large ({size}; at most {limit:,})"


def read_toml(
    path: str | os.PathLike[str], kind: str, error: type[Exception], label: str = ""
) -> dict[str, Any]:
    """The table of the TOML file ``path`` (at most :data:`MAX_TOML_BYTES`).

    Args:
        kind: what the file should be, for messages ("a TOML config file", "an agent spec").
        error: the exception class raised, with one line naming the file and the problem
            (missing, a folder or another thing that is not a file, too large, unreadable,
            not UTF-8 text, not TOML).
        label: put before the path in messages ("agent spec file ").
    """
    where = f"{label}{path}"
    try:
        raw = read_small_file(Path(path))
    except FileReadError as failure:
        if failure.missing:
            raise error(f"{where}: no such file ({kind})") from None
        if failure.kind is not None:
            raise error(f"{where}: is {failure.kind}, not {kind}") from None
        raise error(f"{where}: {failure}") from None
    try:
        return tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise error(f"{where}: not a text file ({kind} is UTF-8 TOML)") from None
    except tomllib.TOMLDecodeError as failure:
        raise error(f"{where}: not valid TOML: {failure}") from None
    except RecursionError:
        raise error(f"{where}: not usable TOML: nested too deeply") from None
    except ValueError as failure:  # int() refuses a number of 4,300 or more digits
        raise error(f"{where}: not usable TOML: {parsed_value_problem(failure)}") from None


def parsed_value_problem(failure: ValueError) -> str:
    """Words for a ``ValueError`` that a parser (``tomllib``, ``json``) lets through besides
    its own decode errors: Python's ``int()`` refuses a number of 4,300 or more digits."""
    if "integer string conversion" in str(failure):
        return "a number with 4,300 or more digits"
    return str(failure).splitlines()[0] if str(failure) else type(failure).__name__

"""Lines fitted to the terminal width, broken between cards, never inside one.

:func:`wrap_line` breaks a line at its spaces outside a card's brackets (``[blue reverse]``
stays whole, and a count such as ``x2`` stays with its card); the width counts visible
characters only (ANSI color codes take no room). Continuation lines are indented. A card
wider than the whole line keeps a line of its own. :func:`terminal_width` is the width to
wrap at: a terminal's columns, or None (no wrapping) for a file or a pipe.
"""

from __future__ import annotations

import os
import re
import shutil
from typing import TextIO

__all__ = ["terminal_width", "wrap_line", "wrap_text"]

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_COUNT = re.compile(r"x\d+")
#: Extra indent of a continuation line.
HANG = "    "


def terminal_width(stream: TextIO) -> int | None:
    """The columns of the terminal ``stream`` writes to (asked of the terminal itself, so a
    stale ``COLUMNS`` variable does not count); None when it is no terminal."""
    isatty = getattr(stream, "isatty", None)
    if not (isatty and isatty()):
        return None
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return shutil.get_terminal_size().columns


def visible_length(text: str) -> int:
    """Characters ``text`` takes on screen (ANSI color codes take none)."""
    return len(_ANSI.sub("", text))


def _words(text: str) -> list[str]:
    """``text`` split at runs of spaces outside brackets (escape codes skipped), a count
    (``x2``) kept with the word before it."""
    words: list[str] = []
    start = depth = i = 0
    while i < len(text):
        code = _ANSI.match(text, i)
        if code:
            i = code.end()
            continue
        ch = text[i]
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(depth - 1, 0)
        elif ch == " " and depth == 0:
            words.append(text[start:i])
            start = i + 1
        i += 1
    words.append(text[start:])
    merged: list[str] = []
    for word in words:
        if merged and merged[-1] and _COUNT.fullmatch(_ANSI.sub("", word)):
            merged[-1] += " " + word
        else:
            merged.append(word)
    return merged


def wrap_line(line: str, width: int | None) -> list[str]:
    """``line`` (no newline) as lines of at most ``width`` visible characters, broken only
    between words outside cards; ``width`` None: the line as it is."""
    if width is None or visible_length(line) <= width:
        return [line]
    body = line.lstrip(" ")
    indent = line[: len(line) - len(body)]
    hang = indent + HANG if len(indent + HANG) < width // 2 else ""
    out: list[str] = []
    current, gap = indent, ""
    for word in _words(body):
        if not word:
            gap += " "
            continue
        if current.strip() and visible_length(current + gap + " " + word) > width:
            out.append(current)
            current, gap = hang, ""
        current += (gap + " " if current.strip() else "") + word
        gap = ""
    out.append(current)
    return out


def wrap_text(text: str, width: int | None) -> str:
    """Every line of ``text`` wrapped by :func:`wrap_line`."""
    return "\n".join(part for line in text.split("\n") for part in wrap_line(line, width))

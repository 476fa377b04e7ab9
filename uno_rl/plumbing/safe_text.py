"""Text from files and command lines made safe to print on a terminal.

Seat names, preset names and messages read from a replay file (or typed on a command line) are
shown by ``python -m uno_rl.replay``, ``python -m uno_rl.play`` and the narration. A name
holding ``ESC]0;...BEL`` would retitle the terminal, ``ESC[2J`` would clear it, a newline or a
carriage return would forge lines. :func:`printable` replaces every such character by a
visible escape, the way Python's ``ascii()`` writes it (``\\x1b``, ``\\n``, ``\\u202e``), so
the text reaches the terminal as plain characters whatever ``--no-color`` says.

Escaped: control characters (C0, DEL, C1: Unicode category ``Cc``), format characters such as
the bidirectional overrides and zero-width characters (``Cf``), line and paragraph separators
(``Zl``, ``Zp``), surrogates (``Cs``, which a JSON ``\\ud800`` yields and which no terminal
encoding can print) and unassigned or private-use code points (``Cn``, ``Co``).
"""

from __future__ import annotations

import unicodedata

__all__ = ["printable"]

#: Unicode categories never printed raw.
UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _escape(char: str) -> str:
    return ascii(char)[1:-1]


def printable(text: object) -> str:
    """``str(text)`` with every unsafe character written as a visible escape (``\\x1b``).

    Plain text passes unchanged; the result holds no control, format or separator character,
    so it stays on one line and cannot drive the terminal. Applying it twice changes nothing.
    """
    text = str(text)
    if text.isprintable() and text.isascii():
        return text  # the common case, fast
    return "".join(_escape(c) if unicodedata.category(c) in UNSAFE_CATEGORIES else c for c in text)

"""The pieces every narrated sentence is made of: an :class:`Event` line with its audience and
the :class:`Voice` that names the players (in the second person for the person playing)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from uno_rl.plumbing.safe_text import printable

__all__ = ["Event", "Voice", "capitalized", "plural"]


@dataclasses.dataclass(frozen=True)
class Event:
    """One line of what happened.

    Attributes:
        text: the line (may hold ANSI color codes).
        audience: seats that may see it; None: everybody.
    """

    text: str
    audience: frozenset[int] | None = None

    def visible_to(self, viewer: int | None) -> bool:
        """Whether seat ``viewer`` sees it (None: an open view that sees everything)."""
        return viewer is None or self.audience is None or viewer in self.audience


class Voice:
    """Names players in sentences, in the second person for the seat ``you`` (if any).

    Args:
        names: a name per seat, e.g. ``seat 1 (rule)``; control characters in them are
            escaped (:func:`~uno_rl.plumbing.safe_text.printable`): names come from replay files.
        you: the seat addressed as "you" (the person playing), or None.
    """

    def __init__(self, names: Sequence[str], you: int | None = None):
        self.names = [printable(name) for name in names]
        self.you = you

    def who(self, seat: int) -> str:
        return "you" if seat == self.you else self.names[seat]

    def whose(self, seat: int) -> str:
        return "your" if seat == self.you else f"{self.names[seat]}'s"

    def be(self, seat: int) -> str:
        """``is``, or ``are`` for "you"."""
        return "are" if seat == self.you else "is"

    def say(self, seat: int, third: str, second: str, rest: str = "") -> str:
        """``seat 1 (rule) plays [red 7]`` / ``You play [red 7]``: subject, verb, the rest."""
        verb = second if seat == self.you else third
        return capitalized(f"{self.who(seat)} {verb}" + (f" {rest}" if rest else ""))


def capitalized(text: str) -> str:
    """``text`` with its first letter upper-cased (the rest untouched)."""
    return text[:1].upper() + text[1:]


def plural(count: int, word: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{count} {word}" + ("" if count == 1 else "s")

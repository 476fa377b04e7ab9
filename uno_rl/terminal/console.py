"""A person at the terminal as one seat of a game: show what happened, the table, ask.

:class:`TerminalPlayer` is a :class:`~uno_rl.replays.record.Decider`: at each of its
decisions it prints the events since its last decision that its seat may see, the table from
its seat, the phase's question with numbered legal choices, and reads answers until one is
valid (a short explanation before each new ask); long lines break between cards at the
terminal's width (:mod:`uno_rl.terminal.wrap`). ``q`` raises :class:`QuitGame`; the end of
input raises ``EOFError``; the caller decides what quitting means.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TextIO

import numpy as np

from uno_rl.core.state import State

from .menu import QUIT, Menu, build_menu, color_menu, parse_answer
from .style import Style
from .table import table_text
from .voice import Event, Voice
from .wrap import terminal_width, wrap_text

__all__ = ["QuitGame", "TerminalPlayer"]


class QuitGame(Exception):
    """The person typed ``q``."""


class TerminalPlayer:
    """The seat played by a person.

    Args:
        seat: the seat.
        voice: player names (``voice.you`` is this seat).
        style: colors.
        out: where to print.
        read_line: reads one line of input (without its newline); raises ``EOFError`` at the
            end of input.
        width: the columns to wrap lines at; None: the terminal's, when ``out`` is one.
    """

    def __init__(
        self,
        seat: int,
        voice: Voice,
        style: Style,
        out: TextIO,
        read_line: Callable[[], str],
        width: int | None = None,
    ):
        self.seat = seat
        self.voice = voice
        self.style = style
        self.out = out
        self.read_line = read_line
        self.width = width
        self._unseen: list[Event] = []

    def write(self, text: str = "") -> None:
        """Print ``text`` and a newline, wrapped between cards at the width."""
        self.out.write(wrap_text(text, self.columns()) + "\n")
        self.out.flush()

    def columns(self) -> int | None:
        """The width lines wrap at (None: no wrapping)."""
        return self.width if self.width is not None else terminal_width(self.out)

    def rule(self, head: str) -> str:
        """``head`` followed by dashes: 40, or fewer to fit the width."""
        width = self.columns()
        room = 40 if width is None else min(40, width - len(head))
        return head + "-" * max(4, room)

    def hear(self, events: Iterable[Event]) -> None:
        """Queue the events this seat may see, to show at its next decision."""
        self._unseen.extend(e for e in events if e.visible_to(self.seat))

    def show_news(self) -> None:
        """Print the queued events (what happened since this seat's last decision)."""
        if self._unseen:
            for event in self._unseen:
                self.write("  " + event.text)
            self._unseen.clear()

    def decide(self, state: State, legal: np.ndarray) -> int:
        self.show_news()
        where = f"decision {int(state.turn[0]) + 1}"
        if state.rules.match:
            where = f"round {int(state.round_index[0]) + 1}, {where}"
        self.write(self.style.dim(self.rule(f"---- {where} ")))
        self.write(table_text(state, self.voice, self.style, self.seat))
        choice = self.ask(build_menu(state, legal, self.voice, self.style))
        if choice.needs_color:
            choice = self.ask(color_menu(state, choice.action, self.style))
        return choice.action

    def ask(self, menu: Menu):
        """Print ``menu`` and read answers until one is valid; the chosen :class:`Choice`."""
        self.write(self.style.bold(menu.question))
        for number, choice in enumerate(menu.choices, 1):
            self.write(f"  {number}) {choice.label}")
        count = len(menu.choices)
        while True:
            span = "1" if count == 1 else f"1-{count}"
            self.out.write(f"Your choice [{span}, q quits]: ")
            self.out.flush()
            answer = parse_answer(self.read_line(), count)
            if answer == QUIT:
                raise QuitGame
            if isinstance(answer, str):
                self.write(answer)
                continue
            return menu.choices[answer]
